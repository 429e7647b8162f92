import Domino

// Issue 19's scale rows. Each batch builds its objects untimed, times the phases the
// issue names, and checks what they did with public API only (a handler's count,
// `subscriptionCount`, `parents`, `children`), so a phase that got fast by doing
// nothing fails the run. Everything is done in the order a program would: cancels
// and unmounts in the order of subscribing and mounting.

extension Scenarios {
    /// The sizes of most scale rows; `--quick` leaves out 100,000 and the budget
    /// skips any size predicted to take too long (see `ScalePlan`).
    static let scaleSizes = [1_000, 10_000, 100_000]

    /// The scale families, in report order, built only when one of their row names
    /// matches `filter` (all when nil).
    static func scale(filter: String?) -> [ScaleFamily] {
        var families = [subscribeAndCancel(), ownerPurge(), unmountChildren(), mountAtParents()]
        if #available(macOS 14, *) {
            families += [signalAddAndCancel(), signalPurge()]
        }
        // Last: the responder nodes they make leave the responder registry switched on
        // for the rest of the process.
        families += [responderFirstPost(), responderRefreshTopDown(), responderCyclePost()]
        guard let filter else { return families }
        return families.filter { family in family.rowNames.contains { matches($0, filter) } }
    }

    /// Subscribes `size` closures to one node, then cancels them all (issue 19: 100,000
    /// of each in under 0.5 s).
    static func subscribeAndCancel() -> ScaleFamily {
        ScaleFamily(
            phases: ["scale.subscribe", "scale.cancel"], sizes: scaleSizes,
            secondsTarget: { _, size in size == 100_000 ? 0.5 : nil }
        ) { size in
            let counter = Counter()
            let node = DominoNode(label: "scale.subscribe")
            var subscriptions: [Subscription] = []
            subscriptions.reserveCapacity(size)
            return [
                .timed("scale.subscribe") {
                    for _ in 0..<size {
                        subscriptions.append(node.subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) })
                    }
                },
                .check { expect(node, delivers: size, to: counter, holding: size) },
                .timed("scale.cancel") {
                    for subscription in subscriptions { subscription.cancel() }
                },
                .check { expect(node, delivers: 0, to: counter, holding: 0) },
            ]
        }
    }

    /// `size` owner-bound subscriptions at one node whose owners all deallocated,
    /// removed by the next post that reaches them.
    static func ownerPurge() -> ScaleFamily {
        ScaleFamily(phases: ["scale.purge"], sizes: scaleSizes) { size in
            let counter = Counter()
            let node = DominoNode(label: "scale.purge")
            do {
                let owners = (0..<size).map { _ in Owner() }
                for owner in owners {
                    node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, event in counter.bump(lane: event.lane) }
                }
            }
            return [
                .check { node.subscriptionCount == size ? nil : "\(node.subscriptionCount) subscriptions listed before the purge; expected \(size)" },
                .timed("scale.purge") { node.post(Ping(lane: 0)) },
                .check { expect(node, delivers: 0, to: counter, holding: 0) },
            ]
        }
    }

    /// `size` children mounted at one parent, then each unmounted from it.
    static func unmountChildren() -> ScaleFamily {
        ScaleFamily(phases: ["scale.unmount"], sizes: scaleSizes) { size in
            let parent = DominoNode(label: "scale.unmount.parent")
            let children = (0..<size).map { _ in DominoNode() }
            for child in children { child.mount(at: parent) }
            return [
                .check { parent.children.count == size ? nil : "\(parent.children.count) children mounted; expected \(size)" },
                .timed("scale.unmount") {
                    for child in children { child.unmount(from: parent) }
                },
                .check { parent.children.isEmpty ? nil : "\(parent.children.count) children left mounted" },
            ]
        }
    }

    /// One child mounted at `size` parents, then unmounted from each.
    static func mountAtParents() -> ScaleFamily {
        ScaleFamily(phases: ["scale.mount", "scale.mount.unmount"], sizes: scaleSizes) { size in
            let child = DominoNode(label: "scale.mount.child")
            let parents = (0..<size).map { _ in DominoNode() }
            return [
                .timed("scale.mount") {
                    for parent in parents { child.mount(at: parent) }
                },
                .check { child.parents.count == size ? nil : "mounted at \(child.parents.count) parents; expected \(size)" },
                .timed("scale.mount.unmount") {
                    for parent in parents { child.unmount(from: parent) }
                },
                .check { child.parents.isEmpty ? nil : "still mounted at \(child.parents.count) parents" },
            ]
        }
    }

    /// `size` observers subscribed to one signal, then their subscriptions cancelled.
    /// `maxSubscriptions` is `size`, so the observer limit reports nothing.
    @available(macOS 14, *)
    static func signalAddAndCancel() -> ScaleFamily {
        ScaleFamily(phases: ["scale.signal.add", "scale.signal.cancel"], sizes: scaleSizes) { size in
            let counter = Counter()
            let signal = Signal<Int>(maxSubscriptions: size)
            let observers = (0..<size).map { _ in SignalObserverObject() }
            var subscriptions: [Subscription] = []
            subscriptions.reserveCapacity(size)
            return [
                .timed("scale.signal.add") {
                    for observer in observers {
                        subscriptions.append(signal.subscribe(observer, on: .postingThread) { _, _ in counter.bump() })
                    }
                },
                .check { expect(signal, delivers: size, to: counter) },
                .timed("scale.signal.cancel") {
                    for subscription in subscriptions { subscription.cancel() }
                },
                .check {
                    expect(signal, delivers: 0, to: counter)
                        ?? (signal.subscriptionCount == 0 ? nil : "\(signal.subscriptionCount) subscriptions left")
                },
            ]
        }
    }

    /// `size` observers of one signal that all deallocated, removed by the next fire.
    /// `subscriptionRemoved` counts the removals, so the check knows the fire
    /// removed them (reading `subscriptionCount` would purge on its own).
    @available(macOS 14, *)
    static func signalPurge() -> ScaleFamily {
        ScaleFamily(phases: ["scale.signal.purge"], sizes: scaleSizes) { size in
            let counter = Counter()
            let removed = Counter()
            let signal = Signal<Int>(maxSubscriptions: size)
            do {
                let observers = (0..<size).map { _ in SignalObserverObject() }
                for observer in observers {
                    signal.subscribe(observer, on: .postingThread) { _, _ in counter.bump() }
                }
            }
            signal.subscriptionRemoved = { _ in removed.bump() }
            return [
                .timed("scale.signal.purge") { signal.fire(0) },
                .check {
                    if counter.total != 0 { return "\(counter.total) callbacks ran for dead observers" }
                    return removed.total == size ? nil : "the fire removed \(removed.total) subscriptions; expected \(size)"
                },
            ]
        }
    }

    /// The first post at the bottom of a chain of `size` responders, each with a node
    /// and none mounted: the post resolves the whole chain on its way up to the one
    /// subscriber at the top. The chain is readable on any thread (a model object's),
    /// so the row does not depend on running on the main thread.
    static func responderFirstPost() -> ScaleFamily {
        ScaleFamily(phases: ["scale.responder.firstpost"], sizes: [1_000, 4_000, 10_000]) { size in
            let counter = Counter()
            var responders: [ChainResponder] = []
            responders.reserveCapacity(size)
            for _ in 0..<size { responders.append(ChainResponder(next: responders.last)) }
            // Created top-down, the way a UI tree grows.
            let nodes = responders.enumerated().map { index, responder in
                DominoNode(label: "responder\(index)", responder: responder)
            }
            nodes[0].subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
            let bottom = nodes[size - 1]
            return [
                .timed("scale.responder.firstpost") { bottom.post(Ping(lane: 0)) },
                .check {
                    withExtendedLifetime((responders, nodes)) {
                        counter.total == 1 ? nil : "the post reached the top \(counter.total) times; expected once"
                    }
                },
            ]
        }
    }

    /// `refreshResponderChain()` on each node of a fresh chain of `size` responders,
    /// from the top down (the order in which a UI tree is built and its views move
    /// into a window), then once more on the chain already read. Each call reads its
    /// own node's link; the route above was read by the call before.
    static func responderRefreshTopDown() -> ScaleFamily {
        let phases = ["scale.responder.refresh.topdown", "scale.responder.refresh.again"]
        return ScaleFamily(phases: phases, sizes: [1_000, 3_000, 10_000]) { size in
            let counter = Counter()
            var responders: [ChainResponder] = []
            responders.reserveCapacity(size)
            for _ in 0..<size { responders.append(ChainResponder(next: responders.last)) }
            let nodes = responders.enumerated().map { index, responder in
                DominoNode(label: "responder\(index)", responder: responder)
            }
            nodes[0].subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
            let bottom = nodes[size - 1]
            let check = ScaleStep.check {
                withExtendedLifetime(responders) {
                    // The bottom's link was read by the refreshes: its post reaches the
                    // top through every node.
                    let result = bottom.post(Ping(lane: 0))
                    if result.nodesVisited != size { return "a post from the bottom visited \(result.nodesVisited) nodes; expected \(size)" }
                    return nodes[0].children.first === nodes[1] ? nil : "the top does not list the node below it as a child"
                }
            }
            return [
                .timed(phases[0]) { for node in nodes { node.refreshResponderChain() } },
                check,
                .timed(phases[1]) { for node in nodes { node.refreshResponderChain() } },
                check,
            ]
        }
    }

    /// `size` posts from a node whose responder chain runs into a cycle of
    /// responders without nodes (a cycle of `nextDominoResponder`), after a first
    /// post that found it. The route stops at the node, which the posts reach.
    static func responderCyclePost() -> ScaleFamily {
        ScaleFamily(phases: ["scale.responder.cyclepost"], sizes: [1_000, 10_000]) { size in
            let counter = Counter()
            let first = LoopResponder(), second = LoopResponder()
            first.next = second
            second.next = first
            let entry = LoopResponder()
            entry.next = first
            let node = DominoNode(label: "cycle.entry", responder: entry)
            node.subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
            // Captured, so that the report is not printed: once per post before the fix.
            let found = Diagnostics.capture { node.post(Ping(lane: 0)) }
            return [
                .check { found.isEmpty ? "the first post did not report the cycle" : nil },
                .timed("scale.responder.cyclepost") {
                    Diagnostics.capture {
                        for _ in 0..<size { node.post(Ping(lane: 0)) }
                    }
                },
                .check {
                    withExtendedLifetime((first, second, entry)) {
                        counter.total == size + 1 ? nil : "the posts were delivered \(counter.total) times; expected \(size + 1)"
                    }
                },
            ]
        }
    }

    /// Posts once at `node` and checks that `counter` moved by `deliveries` and that
    /// the node holds `count` subscriptions; the failure, or nil.
    private static func expect(_ node: DominoNode, delivers deliveries: Int, to counter: Counter, holding count: Int) -> String? {
        let before = counter.total
        node.post(Ping(lane: 0))
        let delivered = counter.total - before
        if delivered != deliveries { return "a post ran \(delivered) handlers; expected \(deliveries)" }
        let listed = node.subscriptionCount
        return listed == count ? nil : "\(listed) subscriptions listed; expected \(count)"
    }

    /// Fires `signal` once and checks that `counter` moved by `deliveries`.
    @available(macOS 14, *)
    private static func expect(_ signal: Signal<Int>, delivers deliveries: Int, to counter: Counter) -> String? {
        let before = counter.total
        signal.fire(0)
        let delivered = counter.total - before
        return delivered == deliveries ? nil : "a fire ran \(delivered) callbacks; expected \(deliveries)"
    }
}

/// The owner of an owner-bound subscription.
final class Owner: Sendable {}

/// A responder whose next responder is fixed at creation and readable on any thread.
final class ChainResponder: DominoResponder, Sendable {
    let next: ChainResponder?

    init(next: ChainResponder?) {
        self.next = next
    }

    nonisolated var nextDominoResponder: (any DominoResponder)? { next }
    nonisolated static var readsChainOnMainThreadOnly: Bool { false }
}

/// A responder whose next responder can be set after creation, readable on any
/// thread: enough to build a cycle.
final class LoopResponder: DominoResponder, @unchecked Sendable {
    // Set while the scale batch is built, before any post reads it.
    weak var next: LoopResponder?

    nonisolated var nextDominoResponder: (any DominoResponder)? { next }
    nonisolated static var readsChainOnMainThreadOnly: Bool { false }
}
