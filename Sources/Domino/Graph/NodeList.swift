/// A non-owning link to a node, valid only under `graphLock`.
///
/// Links never retain, and code holding the lock never even retains the node
/// behind a link: a node whose host just dropped its last reference may be waiting
/// in its deinit for the exclusive lock, and a retain/release pair taken under the
/// lock could make that release the last one, running the deinit under the lock
/// (a deadlock). So a link is a raw pointer, compared by address and borrowed with
/// `withNode` (no reference counting). A node clears every link to itself under the
/// exclusive lock in its deinit, so a reader holding the lock never meets a freed one.
struct NodeLink: Hashable {
    let pointer: UnsafeMutableRawPointer

    @inline(__always)
    init(_ node: DominoNode) {
        pointer = Unmanaged.passUnretained(node).toOpaque()
    }

    @inline(__always)
    func refers(to node: DominoNode) -> Bool {
        pointer == Unmanaged.passUnretained(node).toOpaque()
    }

    /// Borrows the node without retaining it. Lock held.
    @inline(__always)
    func withNode<R>(_ body: (DominoNode) throws -> R) rethrows -> R {
        try Unmanaged<DominoNode>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// A strong reference for handing the node out of the lock, or nil when the node
    /// is already being deallocated. The caller must release it after unlocking.
    func retainIfAlive() -> DominoNode? {
        guard let retained = tryRetain(pointer) else { return nil }
        return Unmanaged<DominoNode>.fromOpaque(retained).takeRetainedValue()
    }
}

/// An ordered list of node links that keeps its first element inline.
///
/// Most nodes have one parent and few children; keeping the first link inline
/// saves an array allocation per node (see the memory targets in the benchmark).
struct NodeList {
    private(set) var first: NodeLink?
    private var rest: ContiguousArray<NodeLink> = []

    var isEmpty: Bool { first == nil }
    /// True when the list has two links or more.
    var isMultiple: Bool { !rest.isEmpty }

    func contains(_ node: DominoNode) -> Bool {
        if first?.refers(to: node) == true { return true }
        return rest.contains { $0.refers(to: node) }
    }

    mutating func append(_ node: DominoNode) {
        if first == nil {
            first = NodeLink(node)
        } else {
            rest.append(NodeLink(node))
        }
    }

    @discardableResult
    mutating func remove(_ node: DominoNode) -> Bool {
        if first?.refers(to: node) == true {
            first = rest.isEmpty ? nil : rest.removeFirst()
            return true
        }
        if let index = rest.firstIndex(where: { $0.refers(to: node) }) {
            rest.remove(at: index)
            return true
        }
        return false
    }

    mutating func removeAll() {
        first = nil
        rest = []
    }

    /// The links in order.
    var links: [NodeLink] {
        guard let first else { return [] }
        return [first] + rest
    }

    /// Borrows each node in order. Lock held.
    @inline(__always)
    func forEach(_ body: (DominoNode) -> Void) {
        guard let first else { return }
        first.withNode(body)
        for link in rest { link.withNode(body) }
    }

    /// Calls `body` with each link from the last to the first.
    @inline(__always)
    func forEachLinkReversed(_ body: (NodeLink) -> Void) {
        guard let first else { return }
        for link in rest.reversed() { body(link) }
        body(first)
    }

    /// Strong references to the live nodes, for handing out of the lock.
    func retainedNodes() -> [DominoNode] {
        links.compactMap { $0.retainIfAlive() }
    }
}
