/// A non-owning reference to a node, valid only under `graphLock`.
///
/// Links between nodes never retain: a node that goes away clears every link to
/// itself under the exclusive lock (see `DominoNode.deinit`), so a reader holding
/// the lock never meets a dangling one.
struct NodeLink {
    unowned(unsafe) let node: DominoNode
}

/// An ordered list of node links that keeps its first element inline.
///
/// Most nodes have one parent and few children; keeping the first link inline
/// saves an array allocation per node (see the memory targets in the benchmark).
struct NodeList {
    private(set) var first: NodeLink?
    private var rest: ContiguousArray<NodeLink> = []

    var isEmpty: Bool { first == nil }
    var count: Int { first == nil ? 0 : 1 + rest.count }
    /// True when the list has two links or more.
    var isMultiple: Bool { !rest.isEmpty }

    func contains(_ node: DominoNode) -> Bool {
        if first?.node === node { return true }
        return rest.contains { $0.node === node }
    }

    mutating func append(_ node: DominoNode) {
        if first == nil {
            first = NodeLink(node: node)
        } else {
            rest.append(NodeLink(node: node))
        }
    }

    @discardableResult
    mutating func remove(_ node: DominoNode) -> Bool {
        if first?.node === node {
            first = rest.isEmpty ? nil : rest.removeFirst()
            return true
        }
        if let index = rest.firstIndex(where: { $0.node === node }) {
            rest.remove(at: index)
            return true
        }
        return false
    }

    mutating func removeAll() {
        first = nil
        rest = []
    }

    @inline(__always)
    func forEach(_ body: (DominoNode) -> Void) {
        guard let first else { return }
        body(first.node)
        for link in rest { body(link.node) }
    }

    /// Calls `body` from the last link to the first.
    @inline(__always)
    func forEachReversed(_ body: (DominoNode) -> Void) {
        guard let first else { return }
        for link in rest.reversed() { body(link.node) }
        body(first.node)
    }

    var nodes: [DominoNode] {
        var result: [DominoNode] = []
        forEach { result.append($0) }
        return result
    }
}

extension NodeLink: Equatable {
    static func == (lhs: NodeLink, rhs: NodeLink) -> Bool { lhs.node === rhs.node }
}
