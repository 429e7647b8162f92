import Testing
@testable import Domino

@Suite("Typed events", .checksLeaks)
struct TypedEventTests {
    @Test func everySubscriberOnTheRouteIsNotifiedInSubscriptionOrder() {
        let nodes = makeChain(2)
        let log = Log<String>()
        record(Ping.self, at: nodes[0], into: log, tag: "a1")
        record(Ping.self, at: nodes[0], into: log, tag: "a2")
        record(Ping.self, at: nodes[1], into: log, tag: "b1")
        let result = nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["a1", "a2", "b1"])
        #expect(result.deliveries == 3)
    }

    @Test func subscribersReceiveTheEventValue() {
        let node = DominoNode()
        let log = Log<Int>()
        node.subscribe(Ping.self, on: .postingThread) { log.append($0.value) }
        node.post(Ping(value: 42))
        #expect(log.entries == [42])
    }

    @Test func subscribersOfOtherEventTypesAreNotCalled() {
        let node = DominoNode()
        let log = Log<String>()
        node.subscribe(Pong.self, on: .postingThread) { log.append($0.text) }
        let result = node.post(Ping(value: 1))
        #expect(log.entries.isEmpty)
        #expect(!result.wasDelivered)
    }

    @Test func manyEventTypesAtOneNodeEachReachOnlyTheirOwnSubscribersAfterSomeAreCancelled() {
        // More types than a node's slot filter has bits, so several share a bit:
        // sharing may cost a scan but must never hide or invent a subscriber.
        var types: [any BlankEvent.Type] = []
        collectNestedEventTypes(Int.self, count: 48, into: &types)
        let node = DominoNode(label: "many")
        let child = DominoNode(label: "child")
        child.mount(at: node)
        let subscriptions = types.map { node.subscribeBlank($0) }
        for (index, subscription) in subscriptions.enumerated() where index % 3 == 0 {
            subscription.cancel()
        }
        for (index, type) in types.enumerated() {
            #expect(child.postBlank(type).deliveries == (index % 3 == 0 ? 0 : 1), "type \(index)")
        }
    }

    @Test func postingWithNoSubscribersIsANoOpThatSaysSo() {
        let nodes = makeChain(3)
        let result = nodes[0].post(Ping(value: 1))
        #expect(!result.wasDelivered)
        #expect(result.deliveries == 0)
        #expect(result.nodesVisited == 3)
        #expect(!result.wasStopped)
    }

    @Test func ownerBoundSubscriptionPassesTheOwnerIn() {
        let host = Host("host")
        host.domino.subscribe(Ping.self, owner: host, on: .postingThread) { owner, event in
            owner.received.append(event.value)
        }
        host.domino.post(Ping(value: 7))
        #expect(host.received == [7])
    }

    @Test func ownerBoundSubscriptionEndsWhenTheOwnerDeallocates() {
        let node = DominoNode()
        let counter = Counter()
        weak var weakOwner: Host?
        var subscription: Subscription?
        do {
            let owner = Host("owner")
            weakOwner = owner
            subscription = node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in counter.increment() }
            node.post(Ping(value: 1))
        }
        #expect(weakOwner == nil)
        #expect(subscription?.isActive == false)
        let result = node.post(Ping(value: 2))
        #expect(counter.value == 1)
        #expect(!result.wasDelivered)
        // The dead subscription is purged by the post that found it.
        #expect(node.subscriptionCount == 0)
    }

    @Test func ownerIsHeldWeakly() {
        let node = DominoNode()
        let weakOwner = WeakBox<Host>(nil)
        do {
            let owner = Host("owner")
            weakOwner.value = owner
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { owner, _ in owner.received.append(1) }
        }
        #expect(weakOwner.value == nil)
    }

    @Test func ownerIsKeptAliveForTheDurationOfItsHandler() {
        let node = DominoNode()
        let log = Log<Bool>()
        let strongOwner = StrongBox<Host>(Host("owner"))
        let weakOwner = WeakBox<Host>(strongOwner.value)
        node.subscribe(Ping.self, owner: strongOwner.value!, on: .postingThread) { owner, _ in
            strongOwner.value = nil          // the last outside reference goes away mid-call
            log.append(weakOwner.value != nil)
            owner.received.append(1)
        }
        node.post(Ping(value: 1))
        #expect(log.entries == [true])
        #expect(weakOwner.value == nil)
    }

    @Test func subscriptionsLiveWithoutTheirHandle() {
        let node = DominoNode()
        let counter = Counter()
        _ = node.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        node.post(Ping(value: 1))
        node.post(Ping(value: 2))
        #expect(counter.value == 2)
    }

    @Test func subscriptionsEndWhenTheNodeDeallocates() {
        var node: DominoNode? = DominoNode()
        let subscription = node!.subscribe(Ping.self, on: .postingThread) { _ in }
        #expect(subscription.isActive)
        node = nil
        #expect(!subscription.isActive)
        subscription.cancel()
    }

    @Test func handlerCapturesAreReleasedWhenTheNodeDeallocates() async {
        // At once when no walk runs anywhere; other tests' walks may be running on
        // other threads, and the tables retired meanwhile wait for them (see the
        // reclamation suite), hence "eventually".
        let captured = WeakBox<Counter>(nil)
        do {
            let node = DominoNode()
            let counter = Counter()
            captured.value = counter
            node.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        }
        #expect(await eventually { captured.value == nil })
    }
}

/// An event type that can be made without arguments.
private protocol BlankEvent: Event {
    init()
}

/// A distinct event type per nesting level.
private struct Nested<Inner>: BlankEvent {}

/// Appends `Nested<T>`, `Nested<Nested<T>>`, ... (`count` types) to `types`.
private func collectNestedEventTypes<T>(_ type: T.Type, count: Int, into types: inout [any BlankEvent.Type]) {
    guard count > 0 else { return }
    types.append(Nested<T>.self)
    collectNestedEventTypes(Nested<T>.self, count: count - 1, into: &types)
}

private extension DominoNode {
    func subscribeBlank<E: BlankEvent>(_ type: E.Type) -> Subscription {
        subscribe(type, on: .postingThread) { _ in }
    }

    func postBlank<E: BlankEvent>(_ type: E.Type) -> PostResult {
        post(E())
    }
}
