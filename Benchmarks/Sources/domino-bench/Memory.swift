import CMallocStats
import Domino

/// The event type of the memory measurement's subscriptions.
struct MemoryProbe: Event {}

/// Heap cost of Domino's objects, read from the C allocator's own statistics.
///
/// Counting what the allocator says is in use (rather than adding up
/// `MemoryLayout` sizes) includes every side allocation and the allocator's
/// rounding and chunk headers, which is what a host app actually pays. Measuring
/// 100,000 objects at once makes one-off allocations (type metadata, a thread's
/// state) vanish in the division.
struct MemoryFigures {
    /// Bytes per node mounted in a chain (one parent link and one child link), or
    /// nil where the allocator has no statistics.
    let bytesPerIdleNode: Double?
    /// Bytes of a node's only subscription (its handler table included), or nil
    /// where unavailable.
    let bytesPerSingleSubscription: Double?
    /// Bytes per subscription, 100 to a node, or nil where unavailable.
    let bytesPerSubscription: Double?

    static let idleNodeTarget = 128.0
    /// Issue 19's target for a node's single subscription.
    static let singleSubscriptionTarget = 64.0
    static let subscriptionTarget = 96.0

    static let objectCount = 100_000

    static func measure() -> MemoryFigures {
        guard heapBytesInUse() != nil else {
            return MemoryFigures(bytesPerIdleNode: nil, bytesPerSingleSubscription: nil, bytesPerSubscription: nil)
        }
        return MemoryFigures(
            bytesPerIdleNode: idleNodes(objectCount),
            bytesPerSingleSubscription: subscriptions(objectCount, perNode: 1),
            bytesPerSubscription: subscriptions(objectCount, perNode: 100)
        )
    }

    /// Bytes the C allocator has handed out and not got back, or nil when unknown.
    static func heapBytesInUse() -> Int? {
        #if canImport(Glibc)
        let bytes = cmallocstats_bytes_in_use()
        return bytes < 0 ? nil : Int(bytes)
        #else
        return nil
        #endif
    }

    /// Nodes each mounted at the one made before, so that (but for the two ends)
    /// each holds exactly one parent link and one child link: the shape of an idle
    /// node in a tree, where every node has a parent and usually a child.
    @inline(never)
    private static func idleNodes(_ count: Int) -> Double? {
        warmUp()
        var nodes: [DominoNode] = []
        nodes.reserveCapacity(count)  // before the first reading: not counted
        guard let before = heapBytesInUse() else { return nil }
        var previous: DominoNode?
        for _ in 0..<count {
            let node = DominoNode()
            if let previous { node.mount(at: previous) }
            nodes.append(node)
            previous = node
        }
        guard let after = heapBytesInUse() else { return nil }
        return withExtendedLifetime(nodes) { Double(after - before) / Double(count) }
    }

    /// Subscriptions spread `perNode` to a node over `count / perNode` nodes that
    /// exist before the first reading, with a closure that captures nothing, so the
    /// delta is the subscriptions and their share of each node's handler table (all
    /// of it with one to a node).
    @inline(never)
    private static func subscriptions(_ count: Int, perNode: Int) -> Double? {
        warmUp()
        let nodes = (0..<(count / perNode)).map { _ in DominoNode() }
        guard let before = heapBytesInUse() else { return nil }
        for node in nodes {
            for _ in 0..<perNode {
                node.subscribe(MemoryProbe.self, on: .postingThread) { _ in }
            }
        }
        guard let after = heapBytesInUse() else { return nil }
        return withExtendedLifetime(nodes) { Double(after - before) / Double(count) }
    }

    /// Makes the one-off allocations (generic metadata, the thread's state) before
    /// any reading, so they are not charged to the measured objects.
    private static func warmUp() {
        let parent = DominoNode()
        let child = DominoNode()
        child.mount(at: parent)
        child.subscribe(MemoryProbe.self, on: .postingThread) { _ in }
        child.post(MemoryProbe())
    }
}
