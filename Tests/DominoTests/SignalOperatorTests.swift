import Dispatch
import Foundation
import Testing
@testable import Domino
import DominoTesting

/// The operators' timers, moved by hand: DominoTesting's clock, which users get too.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
typealias ManualTimers = ManualSignalClock

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal.Subscription {
    /// `sample(every:)` on `clock`, through the scope users have (`run`).
    @discardableResult
    func sample(every interval: Duration, timers clock: ManualSignalClock) -> Self {
        clock.run { sample(every: interval) }
    }

    /// `debounce(for:)` on `clock`, through the scope users have (`run`).
    @discardableResult
    func debounce(for interval: Duration, timers clock: ManualSignalClock) -> Self {
        clock.run { debounce(for: interval) }
    }
}

/// An observer that records the values it receives.
private final class Recorder: Sendable {
    private let log = Mutex<[Int]>([])
    var received: [Int] { log.withLock { $0 } }
    func record(_ value: Int) { log.withLock { $0.append(value) } }
}

@Suite("Signal operators", .checksLeaks)
struct SignalOperatorTests {
    // MARK: filter

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func filterLetsOnlyTheValuesThatPassReachTheCallback() {
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .filter { value in value.isMultiple(of: 2) }
        for value in 1...6 { signal.fire(value) }
        #expect(recorder.received == [2, 4, 6])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func filtersChainedAllApply() {
        let signal = Signal<Int, String>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value, _ in recorder.record(value) }
            .filter { value, _ in value > 2 }
            .filter { _, name in name == "keep" }
        signal.fire(1, "keep")
        signal.fire(3, "drop")
        signal.fire(4, "keep")
        #expect(recorder.received == [4])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aValueTheFilterDropsDoesNotSpendAOneShotSubscription() {
        let signal = Signal<Int>()
        let recorder = Recorder()
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .filter { value in value > 1 }
        subscription.cancelsAfterNextFire = true
        signal.fire(1)
        #expect(subscription.isActive)
        signal.fire(2)
        signal.fire(3)
        #expect(recorder.received == [2])
        #expect(!subscription.isActive)
        #expect(signal.subscriptionCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aOneShotSubscriptionGivenAFilterAfterwardsWaitsForAValueThatPasses() {
        let signal = Signal<Int>()
        let recorder = Recorder()
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
        subscription.cancelsAfterNextFire = true
        subscription.filter { value in value > 1 }
        #expect(subscription.cancelsAfterNextFire)
        signal.fire(1)
        signal.fire(2)
        signal.fire(3)
        #expect(recorder.received == [2])
        #expect(!subscription.isActive)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func choosingThePostingThreadAfterAddingAFilterKeepsTheFilter() {
        let signal = Signal<Int>()
        let recorder = Recorder()
        let subscription = signal.subscribe(recorder, on: .background) { recorder, value in recorder.record(value) }
            .filter { value in value > 1 }
        subscription.deliveryMode = .postingThread
        signal.fire(1)
        signal.fire(2)
        #expect(recorder.received == [2])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aFilteredSubscriptionMovedOffThePostingThreadDeliversWhereItsNewModeSays() async {
        let queue = DispatchQueue(label: "operators.moved")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let signal = Signal<Int>()
        let recorder = Recorder()
        let onQueue = Mutex<[Bool]>([])
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in
            onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) }
            recorder.record(value)
        }.filter { value in value > 1 }
        subscription.deliveryMode = .queue(queue)
        signal.fire(1)
        signal.fire(2)
        #expect(await eventually { recorder.received == [2] })
        #expect(onQueue.withLock { $0 } == [true])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func filtersAddedWhileAnotherThreadFiresApplyToEveryLaterFire() {
        let signal = Signal<Int>()
        let recorder = Recorder()
        let racing = Mutex((stop: false, fired: 0, delivered: 0))
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in
            if value < 0 {
                racing.withLock { $0.delivered += 1 }
            } else {
                recorder.record(value)
            }
        }
        let done = DispatchSemaphore(value: 0), firing = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Fires that the filters below never drop, racing each filter's adding.
            var first = true
            while !racing.withLock({ $0.stop }) {
                signal.fire(-1)
                racing.withLock { $0.fired += 1 }
                if first { firing.signal() }
                first = false
            }
            done.signal()
        }
        // The racing thread fires before the filters are added (on a loaded machine
        // it once started only after the loop below had ended, and raced nothing).
        firing.wait()
        for value in 0..<200 {
            subscription.filter { fired in fired != value }
            signal.fire(value)
        }
        racing.withLock { $0.stop = true }
        done.wait()
        // Each value was fired after the filter that drops it was added; the racing
        // fires passed every filter they found.
        #expect(recorder.received.isEmpty)
        let (fired, delivered) = racing.withLock { ($0.fired, $0.delivered) }
        #expect(fired > 0)
        #expect(fired == delivered)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func replayedValuesPassTheFilterToo() {
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.fire(1)
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .filter { value in value > 1 }
        subscription.firePreviousData()
        signal.fire(for: subscription, 5)
        #expect(recorder.received == [5])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test func anIsolatedSubscriptionTakesOperators() async {
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder) { recorder, value in
            MainActor.assertIsolated()
            recorder.record(value)
        }.filter { value in value != 2 }
        for value in 1...3 { signal.fire(value) }
        #expect(recorder.received == [1, 3])
    }

    // MARK: sample

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func sampleCallsOncePerIntervalWithTheLatestValue() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .sample(every: .seconds(1), timers: timers)
        signal.fire(1)
        signal.fire(2)
        signal.fire(3)
        #expect(recorder.received == [])
        timers.advance(by: .milliseconds(999))
        #expect(recorder.received == [])
        timers.advance(by: .milliseconds(1))
        #expect(recorder.received == [3])
        #expect(timers.pendingTimers == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func sampleKeepsItsPaceWhileValuesKeepComing() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .sample(every: .seconds(1), timers: timers)
        // A value every 400 ms (at 0, 0.4, ... 2.4 s): the first starts a sample that
        // ends at 1 s with 3; 4 (at 1.2 s) starts the next, ending at 2.2 s with 6;
        // 7 (at 2.4 s) starts a third, still pending at 2.8 s. A debounce would not
        // have called at all.
        for value in 1...7 {
            signal.fire(value)
            timers.advance(by: .milliseconds(400))
        }
        #expect(recorder.received == [3, 6])
        #expect(timers.pendingTimers == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func sampleStartsNoTimerForValuesTheFilterBeforeItDrops() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .filter { value in value > 10 }
            .sample(every: .seconds(1), timers: timers)
        signal.fire(1)
        #expect(timers.pendingTimers == 0)
        signal.fire(11)
        signal.fire(2)
        timers.advance(by: .seconds(1))
        #expect(recorder.received == [11])
    }

    // MARK: debounce

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func debounceCallsOnceAfterAQuietIntervalWithTheLastValue() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .debounce(for: .seconds(1), timers: timers)
        signal.fire(1)
        signal.fire(2)
        timers.advance(by: .seconds(1))
        #expect(recorder.received == [2])
        timers.advance(by: .seconds(5))
        #expect(recorder.received == [2])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func debounceRestartsTheWaitWithEachValue() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .debounce(for: .seconds(1), timers: timers)
        for value in 1...5 {
            signal.fire(value)
            timers.advance(by: .milliseconds(900))
        }
        #expect(recorder.received == [])
        #expect(timers.pendingTimers == 1)
        timers.advance(by: .milliseconds(100))
        #expect(recorder.received == [5])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDebouncedOneShotSubscriptionEndsWithItsFirstCall() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .debounce(for: .seconds(1), timers: timers)
        subscription.cancelsAfterNextFire = true
        signal.fire(1)
        timers.advance(by: .seconds(1))
        signal.fire(2)
        timers.advance(by: .seconds(1))
        #expect(recorder.received == [1])
        #expect(!subscription.isActive)
        #expect(signal.subscriptionCount == 0)
    }

    // MARK: Ending, lifetime, threads

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingCancelsAPendingTimedCall() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .debounce(for: .seconds(1), timers: timers)
        signal.fire(1)
        #expect(timers.pendingTimers == 1)
        subscription.cancel()
        #expect(timers.pendingTimers == 0)
        timers.advance(by: .seconds(2))
        #expect(recorder.received == [])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func unsubscribingCancelsAPendingSample() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .sample(every: .seconds(1), timers: timers)
        signal.fire(1)
        signal.unsubscribe(recorder)
        #expect(timers.pendingTimers == 0)
        timers.advance(by: .seconds(2))
        #expect(recorder.received == [])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aPendingTimerKeepsNeitherTheObserverNorTheSubscriptionAlive() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        weak var weakRecorder: Recorder?
        weak var weakSubscription: SignalSubscription?
        do {
            let recorder = Recorder()
            weakRecorder = recorder
            weakSubscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
                .debounce(for: .seconds(1), timers: timers)
            signal.fire(1)
        }
        #expect(weakRecorder == nil)
        #expect(timers.pendingTimers == 1)
        #expect(signal.subscriptionCount == 0)
        #expect(weakSubscription == nil)
        timers.advance(by: .seconds(1))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aTimedCallRunsWhereTheDeliveryModeSays() async {
        let timers = ManualTimers()
        let queue = DispatchQueue(label: "operators.delivery")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let signal = Signal<Int>()
        let recorder = Recorder()
        let onQueue = Mutex<[Bool]>([])
        signal.subscribe(recorder, on: .queue(queue)) { recorder, value in
            onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) }
            recorder.record(value)
        }.sample(every: .seconds(1), timers: timers)
        signal.fire(7)
        timers.advance(by: .seconds(1))
        #expect(await eventually { recorder.received == [7] })
        #expect(onQueue.withLock { $0 } == [true])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theProductionTimersDeliverADebouncedValue() async {
        let signal = Signal<Int>()
        let recorder = Recorder()
        // Far longer than a scheduling pause between the two fires (at 1 ms, a
        // descheduled thread made the debounce rightly deliver both).
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .debounce(for: .milliseconds(200))
        signal.fire(1)
        signal.fire(2)
        #expect(await eventually { recorder.received == [2] })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func concurrentFiresThroughAFilterAndADebounceDeliverOnceWithAValueThatPassed() {
        let timers = ManualTimers()
        let signal = Signal<Int>()
        let recorder = Recorder()
        let passed = Mutex(0)
        signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
            .filter { value in
                guard value.isMultiple(of: 2) else { return false }
                passed.withLock { $0 += 1 }
                return true
            }
            .debounce(for: .seconds(1), timers: timers)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for index in 0..<500 { signal.fire(worker * 1000 + index) }
        }
        #expect(passed.withLock { $0 } == 1000)
        #expect(timers.pendingTimers == 1)
        timers.advance(by: .seconds(1))
        #expect(recorder.received.count == 1)
        #expect(recorder.received.allSatisfy { $0.isMultiple(of: 2) })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func noSampledCallRunsAfterACancelThatRacedFiresAndTheClock() {
        for _ in 0..<50 {
            let timers = ManualTimers()
            let signal = Signal<Int>()
            let recorder = Recorder()
            let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
                .sample(every: .milliseconds(1), timers: timers)
            let countAtCancel = Mutex(-1)
            DispatchQueue.concurrentPerform(iterations: 3) { worker in
                switch worker {
                case 0: for value in 0..<200 { signal.fire(value) }
                case 1: for _ in 0..<200 { timers.advance(by: .milliseconds(1)) }
                default:
                    subscription.cancel()
                    countAtCancel.withLock { $0 = recorder.received.count }
                }
            }
            timers.advance(by: .seconds(1))
            // A call already under way when cancel() returned may still finish;
            // none starts afterwards, so at most one lands after the count.
            #expect(recorder.received.count <= countAtCancel.withLock { $0 } + 1)
            #expect(timers.pendingTimers == 0)
        }
    }

    // MARK: Fire count, clearing

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func fireCountCountsEveryFireButNotTheOnesForOneSubscription() {
        let signal = EmptySignal()
        let recorder = Recorder()
        #expect(signal.fireCount == 0)
        signal.fire()
        let subscription = signal.subscribe(recorder, on: .postingThread) { _ in }
        signal.fire()
        signal.fire(for: subscription)
        subscription.firePreviousData()
        #expect(signal.fireCount == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func clearLastFiredLeavesNothingToReplay() {
        let signal = Signal<Int>()
        let recorder = Recorder()
        signal.fire(1)
        signal.clearLastFired()
        #expect(signal.lastFired == nil)
        #expect(signal.fireCount == 1)
        let subscription = signal.subscribe(recorder, on: .postingThread) { recorder, value in recorder.record(value) }
        #expect(subscription.firePreviousData() == false)
        signal.fire(2)
        #expect(subscription.firePreviousData())
        #expect(recorder.received == [2, 2])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func clearLastFiredReleasesTheValues() {
        let signal = Signal<AnyObjectBox>()
        weak var weakValue: AnyObjectBox?
        do {
            let value = AnyObjectBox()
            weakValue = value
            signal.fire(value)
        }
        #expect(weakValue != nil)
        signal.clearLastFired()
        #expect(weakValue == nil)
    }
}

private final class AnyObjectBox: Sendable {}
