import Testing
@testable import Domino

@Suite("Unsubscribing", .checksLeaks)
struct UnsubscribeTests {
    @Test func cancelByTokenStopsDelivery() {
        let node = DominoNode()
        let counter = Counter()
        let subscription = node.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        node.post(Ping(value: 1))
        subscription.cancel()
        node.post(Ping(value: 2))
        #expect(counter.value == 1)
        #expect(!subscription.isActive)
    }

    @Test func cancellingTwiceIsHarmless() {
        let node = DominoNode()
        let subscription = node.subscribe(Ping.self, on: .postingThread) { _ in }
        subscription.cancel()
        subscription.cancel()
        #expect(node.subscriptionCount == 0)
    }

    @Test func cancelLeavesOtherSubscriptionsOfTheSameType() {
        let node = DominoNode()
        let log = Log<String>()
        let first = node.subscribe(Ping.self, on: .postingThread) { _ in log.append("first") }
        node.subscribe(Ping.self, on: .postingThread) { _ in log.append("second") }
        first.cancel()
        node.post(Ping(value: 1))
        #expect(log.entries == ["second"])
    }

    @Test func aWalkHoldingALoneSubscribersTableFromBeforeItsCancelSkipsIt() throws {
        // A subscriber alone in its slot has no storage entry to mark: its removal is
        // marked on the handler, which a walk that collected the table earlier (on
        // another thread, say) tests before calling it.
        let node = DominoNode()
        let log = Log<String>()
        let subscription = node.subscribe(Ping.self, on: .postingThread) { _ in log.append("called") }
        var collected: HandlerTable?
        graphLock.withShared { collected = node.slots.table(for: .of(Ping.self))?.takeUnretainedValue() }
        let table = try #require(collected)
        var reached: [Subscription] = []
        HandlerTable.forEachBorrowed(in: table.subscribers) { reached.append($0); return true }
        #expect(reached.count == 1)
        subscription.cancel()
        reached = []
        HandlerTable.forEachBorrowed(in: table.subscribers) { reached.append($0); return true }
        #expect(reached.isEmpty)
        #expect(Array(table.subscribers).isEmpty)
        #expect(log.entries.isEmpty)
    }

    @Test func aWalksOwnCopyOfATableWhoseHandlersWereAllCancelledReachesNone() throws {
        // A walk that moves to another thread keeps its own copy of each table
        // (`detachedCopy`); copied after every handler of a list was cancelled, the
        // copy must be an empty list, not an empty storage (read as a lone handler).
        let node = DominoNode()
        let first = node.subscribe(Ping.self, on: .postingThread) { _ in }
        let second = node.subscribe(Ping.self, on: .postingThread) { _ in }
        var collected: HandlerTable?
        graphLock.withShared { collected = node.slots.table(for: .of(Ping.self))?.takeUnretainedValue() }
        let table = try #require(collected)
        first.cancel()
        second.cancel()
        let copy = table.detachedCopy()
        var reached = 0
        HandlerTable.forEachBorrowed(in: copy.subscribers) { _ in reached += 1; return true }
        #expect(reached == 0)
        #expect(copy.subscribers.isEmpty)
    }

    @Test func aLoneSubscriberCancelledByAnEarlierHandlerOfTheSamePostIsNotCalled() {
        // The parent's subscriber is alone in its slot; the walk collected the
        // parent's table before the cancel and must still skip it.
        let nodes = makeChain(2)
        let log = Log<String>()
        let parentSubscription = nodes[1].subscribe(Ping.self, on: .postingThread) { _ in log.append("parent") }
        nodes[0].subscribe(Ping.self, on: .postingThread) { _ in
            log.append("child")
            parentSubscription.cancel()
        }
        nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["child"])
    }

    @Test func aSlotsSecondAndThirdSubscribersJoinItsLoneFirstInOrderAndOutliveIt() {
        let node = DominoNode()
        let log = Log<String>()
        let first = node.subscribe(Ping.self, on: .postingThread) { _ in log.append("first") }
        node.subscribe(Ping.self, on: .postingThread) { _ in log.append("second") }
        node.post(Ping(value: 1))
        first.cancel()
        node.subscribe(Ping.self, on: .postingThread) { _ in log.append("third") }
        node.post(Ping(value: 2))
        #expect(log.entries == ["first", "second", "second", "third"])
        #expect(node.subscriptionCount == 2)
    }

    @Test func unsubscribeTypeRemovesEveryHandlerOfThatTypeAtTheNode() {
        let nodes = makeChain(2)
        let log = Log<String>()
        record(Ping.self, at: nodes[0], into: log, tag: "a")
        record(Ping.self, at: nodes[0], into: log, tag: "b")
        record(Pong.self, at: nodes[0], into: log, tag: "pong")
        record(Ping.self, at: nodes[1], into: log, tag: "parent")
        nodes[0].unsubscribe(Ping.self)
        nodes[0].post(Ping(value: 1))
        nodes[0].post(Pong(text: "x"))
        #expect(log.entries == ["parent", "pong"])
    }

    @Test func unsubscribeTypeEndsTheTokensItRemoved() {
        let node = DominoNode()
        let subscription = node.subscribe(Ping.self, on: .postingThread) { _ in }
        node.unsubscribe(Ping.self)
        #expect(!subscription.isActive)
    }

    @Test func clearAllSubscribersRemovesEverythingButKeepsLinks() {
        let nodes = makeChain(2)
        let log = Log<String>()
        record(Ping.self, at: nodes[0], into: log, tag: "ping")
        nodes[0].subscribe("Named", on: .postingThread) { _ in log.append("named") }
        nodes[0].respond(to: Ask.self, on: .postingThread) { _ in "x" }
        nodes[0].intercept(Ping.self) { _ in .stop }
        record(Ping.self, at: nodes[1], into: log, tag: "parent")
        nodes[0].clearAllSubscribers()
        #expect(nodes[0].subscriptionCount == 0)
        nodes[0].post(Ping(value: 1))
        nodes[0].post("Named")
        #expect(nodes[0].request(Ask(question: "q")) == nil)
        #expect(log.entries == ["parent"])
    }

    @Test func cancelFromInsideTheHandlerEndsItAfterThisDelivery() {
        let node = DominoNode()
        let counter = Counter()
        let box = Log<Subscription>()
        // Weak: the box holds this subscription, which must not hold the box.
        let subscription = node.subscribe(Ping.self, on: .postingThread) { [weak box] _ in
            counter.increment()
            box?.entries.first?.cancel()
        }
        box.append(subscription)
        node.post(Ping(value: 1))
        node.post(Ping(value: 2))
        #expect(counter.value == 1)
    }

    @Test func subscriptionDescriptionNamesEventAndNode() {
        let node = DominoNode(label: "content")
        let subscription = node.subscribe(Ping.self, on: .postingThread) { _ in }
        #expect(subscription.description == "Subscription(subscriber for Ping at content)")
        subscription.cancel()
        #expect(subscription.description == "Subscription(subscriber for Ping at <ended>)")
    }
}
