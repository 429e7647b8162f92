import Foundation
import Testing
@testable import Domino

/// Phantom tags that make distinct event types for a node with many slots.
private enum T0 {}
private enum T1 {}
private enum T2 {}
private enum T3 {}
private enum T4 {}
private enum T5 {}
private enum T6 {}
private enum T7 {}
private enum T8 {}
private enum T9 {}
private enum T10 {}
private enum T11 {}

private struct Tagged<Tag>: Event {
    let value: Int
}

/// Slots with many handlers share their storage between the tables a walk reads,
/// mark removed handlers in place and compact later (see `HandlerList`); a node
/// with many slots indexes them (see `SlotIndex`). What users see must not change.
@Suite("Large slots and nodes with many slots", .checksLeaks)
struct LargeSlotTests {
    @Test func cancellingFromAnywhereInALargeSlotKeepsTheOthersInSubscriptionOrder() {
        let node = DominoNode(label: "large")
        let log = Log<Int>()
        var subscriptions = (0..<1_000).map { index in
            node.subscribe(Ping.self, on: .postingThread) { _ in log.append(index) }
        }
        // Every third one, in a scrambled order that crosses compactions.
        var generator = SeededGenerator(seed: 19)
        let cancelled = Array(stride(from: 0, to: 1_000, by: 3)).shuffled(using: &generator)
        for index in cancelled { subscriptions[index].cancel() }
        // New ones go after the survivors, whatever storage they ended up in.
        for index in 1_000..<1_010 {
            subscriptions.append(node.subscribe(Ping.self, on: .postingThread) { _ in log.append(index) })
        }
        node.post(Ping(value: 1))
        let expected = (0..<1_010).filter { $0 >= 1_000 || $0 % 3 != 0 }
        #expect(log.entries == expected)
        #expect(node.subscriptionCount == expected.count)
    }

    @Test func cancellingEveryHandlerOfALargeSlotInReverseLeavesTheNodeEmptyAndSilent() {
        let node = DominoNode(label: "large")
        let heard = Counter()
        let subscriptions = (0..<500).map { _ in node.subscribe(Ping.self, on: .postingThread) { _ in heard.increment() } }
        for subscription in subscriptions.reversed() { subscription.cancel() }
        #expect(node.post(Ping(value: 1)).deliveries == 0)
        #expect(heard.value == 0)
        #expect(node.subscriptionCount == 0)
        #expect(subscriptions.allSatisfy { !$0.isActive })
    }

    @Test func handlerCancelledAmongManyIsReleasedBeforeTheSlotCompacts() async {
        // One removal among a hundred does not compact the storage: the handler must
        // still be released at once (through the lock's retirement), not when the
        // storage is next copied.
        let node = DominoNode(label: "large")
        let keep = (0..<100).map { _ in node.subscribe(Ping.self, on: .postingThread) { _ in } }
        let released = subscribedAndCancelled(at: node)
        #expect(await eventually { released.value == nil })
        #expect(node.post(Ping(value: 1)).deliveries == keep.count)
    }

    @Test func deadOwnersAmongThousandsArePurgedByOnePostAndTheLiveOnesStillHear() {
        final class Owner: @unchecked Sendable {}
        let node = DominoNode(label: "owners")
        let heard = Counter()
        var owners = (0..<2_000).map { _ in Owner() }
        for (index, owner) in owners.enumerated() {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in
                if index % 2 == 0 { heard.increment() }
            }
        }
        // Drop the odd ones.
        owners = owners.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        node.post(Ping(value: 1))
        #expect(heard.value == 1_000)
        #expect(node.subscriptionCount == 1_000)
        withExtendedLifetime(owners) {}
    }

    @Test func nodeWithThousandsOfEventNamesDeliversEachNameOnlyToItsOwnHandlers() {
        let node = DominoNode(label: "names")
        let log = Log<String>()
        for index in 0..<2_000 {
            node.subscribe(EventName("event-\(index)"), on: .postingThread) { event in log.append(event.name.rawValue) }
        }
        node.post(EventName("event-1234"))
        node.post(EventName("event-0"))
        node.post(EventName("no-such-event"))
        #expect(log.entries == ["event-1234", "event-0"])
    }

    @Test func removingSlotsFromAnIndexedNodeKeepsTheOtherSlotsReachable() {
        let node = DominoNode(label: "names")
        let log = Log<String>()
        for index in 0..<40 {
            node.subscribe(EventName("event-\(index)"), on: .postingThread) { event in log.append(event.name.rawValue) }
        }
        for index in stride(from: 0, to: 40, by: 2) { node.unsubscribe(EventName("event-\(index)")) }
        for index in 0..<40 { node.post(EventName("event-\(index)")) }
        #expect(log.entries == stride(from: 1, to: 40, by: 2).map { "event-\($0)" })
    }

    @Test func nodeWithMoreEventTypesThanItScansFindsEachTypesHandlers() {
        let node = DominoNode(label: "types")
        let log = Log<String>()
        func listen<Tag>(_ tag: Tag.Type, _ name: String) {
            node.subscribe(Tagged<Tag>.self, on: .postingThread) { _ in log.append(name) }
        }
        listen(T0.self, "T0"); listen(T1.self, "T1"); listen(T2.self, "T2"); listen(T3.self, "T3")
        listen(T4.self, "T4"); listen(T5.self, "T5"); listen(T6.self, "T6"); listen(T7.self, "T7")
        listen(T8.self, "T8"); listen(T9.self, "T9"); listen(T10.self, "T10")
        let child = DominoNode(label: "child")
        child.mount(at: node)
        child.post(Tagged<T9>(value: 1))
        child.post(Tagged<T0>(value: 1))
        child.post(Tagged<T11>(value: 1))
        node.broadcast(Tagged<T10>(value: 1))
        #expect(log.entries == ["T9", "T0", "T10"])
        node.unsubscribe(Tagged<T0>.self)
        child.post(Tagged<T0>(value: 1))
        child.post(Tagged<T8>(value: 1))
        #expect(log.entries == ["T9", "T0", "T10", "T8"])
    }

    @Test func postsOnOtherThreadsWhileALargeSlotChurnsReachTheSteadyHandlerExactlyOncePerPost() {
        let node = DominoNode(label: "churn")
        let steady = Counter()
        node.subscribe(Ping.self, on: .postingThread) { _ in steady.increment() }
        let posts = 2_000
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<posts { node.post(Ping(value: 1)) }
                group.leave()
            }
        }
        // Grow the slot past several compactions and shrink it again, meanwhile.
        for round in 0..<20 {
            let added = (0..<200).map { _ in node.subscribe(Ping.self, on: .postingThread) { _ in } }
            for (index, subscription) in added.enumerated() where (index + round) % 3 != 0 { subscription.cancel() }
            for subscription in added { subscription.cancel() }
        }
        group.wait()
        #expect(steady.value == 2 * posts)
        #expect(node.subscriptionCount == 1)
    }
}
