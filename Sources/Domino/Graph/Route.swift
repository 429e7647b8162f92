/// The route of a post: the posting node, then its ancestors, depth-first pre-order,
/// parents in mount order, each node at most once.
///
/// Must be called under `graphLock` (shared or exclusive). Iterative, so a
/// 100,000-deep chain does not overflow the stack.
enum Route {
    /// Set under the exclusive lock when a mount closes a cycle; sticky, because a
    /// conservative flag only costs the slow path, never a wrong answer.
    nonisolated(unsafe) static var graphMayHaveCycles = false

    @inline(__always)
    static func walk(from start: DominoNode, _ visit: (DominoNode) -> Void) {
        // Fast path: a plain chain (every node has at most one parent) in a graph
        // without cycles cannot revisit a node, so it needs no visited set.
        var node = start
        if !graphMayHaveCycles {
            while true {
                if node.parentLinks.isMultiple { break }
                visit(node)
                guard let next = node.parentLinks.first?.node else { return }
                node = next
            }
        }
        walkGeneral(from: node, alreadyVisitedChainFrom: start, visit)
    }

    /// Depth-first pre-order with a visited set, for DAGs and cycles. `start` is the
    /// first node not yet visited; the chain from `chainStart` up to it was visited
    /// by the fast path and is marked so before the walk.
    @inline(never)
    static func walkGeneral(from start: DominoNode, alreadyVisitedChainFrom chainStart: DominoNode, _ visit: (DominoNode) -> Void) {
        var visited = Set<ObjectIdentifier>()
        var chain = chainStart
        while chain !== start {
            visited.insert(ObjectIdentifier(chain))
            guard let next = chain.parentLinks.first?.node else { break }
            chain = next
        }
        var stack: [DominoNode] = [start]
        while let node = stack.popLast() {
            guard visited.insert(ObjectIdentifier(node)).inserted else { continue }
            visit(node)
            node.parentLinks.forEachReversed { parent in
                if !visited.contains(ObjectIdentifier(parent)) { stack.append(parent) }
            }
        }
    }
}

extension Route {
    /// True when mounting `child` at `parent` would close a cycle, that is when
    /// `parent` is `child` or one of its descendants. Exclusive lock held.
    ///
    /// Searches up from `parent` and down from `child` in lockstep and stops as soon
    /// as either side runs out, so the cost is bounded by the smaller side: O(1) when
    /// a hierarchy is built top-down (the child is a new leaf) or bottom-up (the
    /// parent is a new root).
    static func wouldCloseCycle(mounting child: DominoNode, at parent: DominoNode) -> Bool {
        if child === parent { return true }
        if child.childLinks.isEmpty || parent.parentLinks.isEmpty { return false }
        var up = Search(start: parent, target: child, next: \.parentLinks)
        var down = Search(start: child, target: parent, next: \.childLinks)
        while true {
            switch up.step() {
            case .found: return true
            case .exhausted: return false
            case .searching: break
            }
            switch down.step() {
            case .found: return true
            case .exhausted: return false
            case .searching: break
            }
        }
    }

    private struct Search {
        enum Outcome { case found, exhausted, searching }

        let target: DominoNode
        let next: KeyPath<DominoNode, NodeList>
        var stack: [DominoNode]
        var visited = Set<ObjectIdentifier>()

        init(start: DominoNode, target: DominoNode, next: KeyPath<DominoNode, NodeList>) {
            self.target = target
            self.next = next
            stack = [start]
        }

        mutating func step() -> Outcome {
            guard let node = stack.popLast() else { return .exhausted }
            if node === target { return .found }
            if visited.insert(ObjectIdentifier(node)).inserted {
                node[keyPath: next].forEach { stack.append($0) }
            }
            return .searching
        }
    }
}
