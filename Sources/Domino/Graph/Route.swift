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
    /// True when `target` is `start` or one of its descendants. Exclusive lock held.
    ///
    /// Used when mounting: new nodes are usually leaves, so walking down from the
    /// child is O(1) in the common top-down construction of a hierarchy.
    static func reachesDown(from start: DominoNode, to target: DominoNode) -> Bool {
        if start === target { return true }
        if start.childLinks.isEmpty { return false }
        var visited = Set<ObjectIdentifier>()
        var stack: [DominoNode] = [start]
        while let node = stack.popLast() {
            if node === target { return true }
            guard visited.insert(ObjectIdentifier(node)).inserted else { continue }
            node.childLinks.forEach { stack.append($0) }
        }
        return false
    }
}
