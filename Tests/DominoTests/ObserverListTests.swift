import Dispatch
import Testing
@testable import Domino

/// An observer that knows its place among the others.
private final class Member: Sendable {
    let index: Int
    init(_ index: Int) { self.index = index }
}

/// An object a callback captures, to see when the callback is let go.
private final class Capture: Sendable {}

/// The orders in which the tests cancel.
enum CancelOrder: String, CaseIterable, Sendable {
    case firstToLast, lastToFirst, random

    func arrange<T>(_ items: [T]) -> [T] {
        switch self {
        case .firstToLast: return items
        case .lastToFirst: return items.reversed()
        case .random:
            // The same shuffle on every run (SeededGenerator is in ModelBasedTests).
            var generator = SeededGenerator(seed: 19)
            return items.shuffled(using: &generator)
        }
    }
}

/// Subscribes `members` in order; each callback logs its member's index.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
private func subscribeAll(_ members: [Member], to signal: Signal<Int>, log: Log<Int>) -> [Signal<Int>.Subscription] {
    members.map { member in
        signal.subscribe(member, on: .postingThread) { member, _ in log.append(member.index) }
    }
}

// How a signal keeps its subscriptions at scale: cancelling and purging anywhere in
// a large list keeps the rest in order, loses none, and lets go of what ended.
@Suite("Signal observer list", .checksLeaks)
struct ObserverListTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingFromTheMiddleOfALargeListKeepsTheOthersInOrder() {
        let signal = Signal<Int>(maxSubscriptions: 3_000)
        let members = (0..<3_000).map { Member($0) }
        let log = Log<Int>()
        let subscriptions = subscribeAll(members, to: signal, log: log)
        for index in stride(from: 1, to: 3_000, by: 3) { subscriptions[index].cancel() }
        for index in 1_000..<2_000 { subscriptions[index].cancel() }
        signal.fire(1)
        let kept = (0..<3_000).filter { $0 % 3 != 1 && !(1_000..<2_000).contains($0) }
        #expect(log.entries == kept)
        #expect(signal.subscriptionCount == kept.count)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: CancelOrder.allCases)
    func cancellingHalfTheListInAnyOrderKeepsTheOtherHalfInOrderAndCallsTheHookForEach(_ order: CancelOrder) {
        let signal = Signal<Int>(maxSubscriptions: 2_000)
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let members = (0..<2_000).map { Member($0) }
        let log = Log<Int>()
        let subscriptions = subscribeAll(members, to: signal, log: log)
        let odd = subscriptions.indices.filter { $0 % 2 == 1 }.map { subscriptions[$0] }
        for subscription in order.arrange(odd) { subscription.cancel() }
        signal.fire(1)
        #expect(log.entries == Array(stride(from: 0, to: 2_000, by: 2)))
        #expect(removed.value == 1_000)
        #expect(signal.subscriptionCount == 1_000)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: CancelOrder.allCases)
    func cancellingEverySubscriptionInAnyOrderLeavesNoneAndNoCall(_ order: CancelOrder) {
        let signal = Signal<Int>(maxSubscriptions: 2_000)
        let members = (0..<2_000).map { Member($0) }
        let log = Log<Int>()
        let subscriptions = subscribeAll(members, to: signal, log: log)
        for subscription in order.arrange(subscriptions) { subscription.cancel() }
        signal.fire(1)
        #expect(log.entries.isEmpty)
        #expect(signal.subscriptionCount == 0)
        #expect(subscriptions.allSatisfy { !$0.isActive })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func subscriptionsMadeAfterCancellationsComeAfterTheEarlierOnes() {
        let signal = Signal<Int>(maxSubscriptions: 200)
        let members = (0..<200).map { Member($0) }
        let log = Log<Int>()
        let first = subscribeAll(Array(members[0..<100]), to: signal, log: log)
        for index in 10..<60 { first[index].cancel() }
        _ = subscribeAll(Array(members[100..<200]), to: signal, log: log)
        signal.fire(1)
        #expect(log.entries == Array(0..<10) + Array(60..<200))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func countingPurgesThousandsOfDeadObserversAndLeavesTheLiveOnesInOrder() {
        let signal = Signal<Int>(maxSubscriptions: 6_000)
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        var members: [Member?] = (0..<6_000).map { Member($0) }
        let log = Log<Int>()
        _ = subscribeAll(members.map { $0! }, to: signal, log: log)
        for index in members.indices where index % 3 != 0 { members[index] = nil }
        #expect(signal.subscriptionCount == 2_000)
        #expect(removed.value == 4_000)
        signal.fire(1)
        #expect(log.entries == Array(stride(from: 0, to: 6_000, by: 3)))
        withExtendedLifetime(members) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aFirePurgesThousandsOfDeadObserversAndTheNextFireCallsTheLiveOnesInOrder() {
        let signal = Signal<Int>(maxSubscriptions: 6_000)
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        var members: [Member?] = (0..<6_000).map { Member($0) }
        let log = Log<Int>()
        _ = subscribeAll(members.map { $0! }, to: signal, log: log)
        for index in members.indices where index % 3 != 2 { members[index] = nil }
        signal.fire(1)
        #expect(removed.value == 4_000)
        signal.fire(2)
        let live = Array(stride(from: 2, to: 6_000, by: 3))
        #expect(log.entries == live + live)
        #expect(signal.core.withLock { signal.core.listed } == 2_000)
        withExtendedLifetime(members) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(arguments: CancelOrder.allCases)
    func aFireNeverPassesMoreLeftSlotsThanSubscriptions(_ order: CancelOrder) {
        let signal = Signal<Int>(maxSubscriptions: 1_000)
        let members = (0..<1_000).map { Member($0) }
        let subscriptions = subscribeAll(members, to: signal, log: Log<Int>())
        var oversized = 0
        for subscription in order.arrange(subscriptions) {
            subscription.cancel()
            let (listed, slots) = signal.core.withLock { (signal.core.listed, signal.core.list.count) }
            if slots > 2 * listed { oversized += 1 }
        }
        #expect(oversized == 0)
        #expect(signal.core.withLock { signal.core.list.count } == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCancelledSubscriptionLetsGoOfItsCallbackAtOnce() {
        let signal = Signal<Int>()
        let members = (0..<10).map { Member($0) }
        let log = Log<Int>()
        _ = subscribeAll(Array(members[0..<5]), to: signal, log: log)
        let captured = WeakBox<Capture>(nil)
        let subscription = WeakBox<SignalSubscription>(nil)
        do {
            let capture = Capture()
            captured.value = capture
            subscription.value = signal.subscribe(members[9], on: .postingThread) { _, _ in withExtendedLifetime(capture) {} }
        }
        _ = subscribeAll(Array(members[5..<9]), to: signal, log: log)
        subscription.value?.cancel()
        #expect(captured.value == nil)
        signal.fire(1)
        #expect(log.entries == Array(0..<9))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSubscriptionCancelledDuringAFireLetsGoOfItsCallbackWhenTheFireEnds() {
        let signal = Signal<Int>()
        let members = (0..<10).map { Member($0) }
        let captured = WeakBox<Capture>(nil)
        let later = WeakBox<SignalSubscription>(nil)
        let log = Log<Int>()
        signal.subscribe(members[0], on: .postingThread) { member, _ in
            later.value?.cancel()
            log.append(member.index)
        }
        do {
            let capture = Capture()
            captured.value = capture
            later.value = signal.subscribe(members[9], on: .postingThread) { _, _ in withExtendedLifetime(capture) {} }
        }
        _ = subscribeAll(Array(members[1..<9]), to: signal, log: log)
        signal.fire(1)
        #expect(captured.value == nil)
        #expect(log.entries == Array(0..<9))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aListRetiredUnderTwoFiresIsLetGoWhenTheOuterOneEnds() {
        // The outer fire fires again from its callback; the inner fire's callback
        // cancels a later subscription, which retires the list both fires iterate.
        // The inner fire ends first: the list, and the cancelled callback it holds,
        // must outlive it, and go when the outer one ends.
        let signal = Signal<Int>()
        let weakSignal = WeakBox(signal)
        let members = (0..<2).map { Member($0) }
        let captured = WeakBox<Capture>(nil)
        let later = WeakBox<SignalSubscription>(nil)
        let heldAfterTheInnerFire = Log<Bool>()
        signal.subscribe(members[0], on: .postingThread) { _, value in
            guard value == 1 else {
                later.value?.cancel()
                return
            }
            weakSignal.value?.fire(2)
            heldAfterTheInnerFire.append(captured.value != nil)
        }
        do {
            let capture = Capture()
            captured.value = capture
            later.value = signal.subscribe(members[1], on: .postingThread) { _, _ in withExtendedLifetime(capture) {} }
        }
        signal.fire(1)
        #expect(heldAfterTheInnerFire.entries == [true])
        #expect(captured.value == nil)
        #expect(signal.subscriptionCount == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingThousandsWhileOtherThreadsFireLosesNoCallAndKeepsEachFireInOrder() {
        // Stable subscriptions sit between subscriptions that two threads cancel,
        // in opposite orders, while two others fire; every fire must reach every
        // stable subscription, in subscription order.
        let signal = Signal<Int>(maxSubscriptions: 5_000)
        let stable = (0..<50).map { Member($0) }
        let churned = (0..<2_500).map { Member(1_000 + $0) }
        let deliveries = Log<[Int]>()
        var churnedSubscriptions: [Signal<Int>.Subscription] = []
        for block in 0..<50 {
            for member in churned[(block * 50)..<(block * 50 + 50)] {
                churnedSubscriptions.append(signal.subscribe(member, on: .postingThread) { _, _ in })
            }
            signal.subscribe(stable[block], on: .postingThread) { member, fire in
                deliveries.append([fire, member.index])
            }
        }
        let cancelling = churnedSubscriptions
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            switch worker {
            case 0: for subscription in cancelling[..<1_250] { subscription.cancel() }
            case 1: for subscription in cancelling[1_250...].reversed() { subscription.cancel() }
            default: for fire in 0..<100 { signal.fire(worker * 1_000 + fire) }
            }
        }
        var byFire: [Int: [Int]] = [:]
        for delivery in deliveries.entries { byFire[delivery[0], default: []].append(delivery[1]) }
        #expect(byFire.count == 200)
        #expect(byFire.values.allSatisfy { $0 == Array(0..<50) })
        #expect(signal.subscriptionCount == 50)
        withExtendedLifetime((stable, churned)) {}
    }
}
