import Dispatch
import Foundation
import Testing
@testable import Domino

/// An object that observes signals in these tests. `Sendable`, as every observer
/// must be: callbacks may run on other threads, so what it received is locked.
private final class Listener: Sendable {
    let name: String
    private let log = Mutex<[Int]>([])
    init(_ name: String = "listener") { self.name = name }

    /// What the callbacks recorded, in order.
    var received: [Int] { log.withLock { $0 } }
    func record(_ value: Int) { log.withLock { $0.append(value) } }
    func forget() { log.withLock { $0 = [] } }
}

/// A signal whose one observer records each value, then fires the signal again
/// with the next one, synchronously: a recursion only the nesting limit ends.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
private func signalFiringItselfRecursively() -> (Signal<Int>, Listener) {
    let signal = Signal<Int>()
    let listener = Listener()
    signal.subscribe(listener, on: .postingThread) { [weak signal] observer, value in
        observer.record(value)
        signal?.fire(value + 1)
    }
    return (signal, listener)
}

/// Runs `body(worker)` on `workers` threads at once and waits for all of them.
private func onThreads(_ workers: Int, _ body: @escaping @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: workers) { body($0) }
}

// Signals need the parameter-pack runtime of macOS 14 / iOS 17; Swift Testing takes
// availability on test functions only, so each test carries it.
@Suite("Signals", .checksLeaks)
struct SignalTests {
    // MARK: Firing and observing

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func fireCallsTheCallbackWithTheObserverAndTheValue() {
        let signal = Signal<Int>()
        let listener = Listener()
        signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        signal.fire(2)
        #expect(listener.received == [1, 2])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anObserverFiringItsOwnSignalRecursivelyIsCutOffAndReportedInsteadOfOverflowingTheStack() {
        let (signal, listener) = signalFiringItselfRecursively()
        let diagnostics = Diagnostics.capture { signal.fire(0) }
        #expect(listener.received == Array(0..<DominoNode.maximumNestingDepth))
        #expect(diagnostics.map(\.code) == [.nestingLimitExceeded])
        // The nesting count is given back: the next fire runs as deep again.
        listener.forget()
        _ = Diagnostics.capture { signal.fire(0) }
        #expect(listener.received.count == DominoNode.maximumNestingDepth)
    }

    /// A thread's first fire, before it has any Domino state, takes the fire's slow
    /// entry (which makes the state): it must count its level as every later fire
    /// does, or a recursion from it would run one level deeper or shallower.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aRecursiveFireThatIsItsThreadsFirstDominoCallIsCutOffAtTheSameDepth() {
        let (signal, listener) = signalFiringItselfRecursively()
        let diagnostics = Mutex<[Diagnostic.Code]>([])
        let done = DispatchSemaphore(value: 0)
        // A thread of its own: no other test has posted or fired on it.
        let thread = Thread {
            diagnostics.withLock { $0 = Diagnostics.capture { signal.fire(0) }.map(\.code) }
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(listener.received == Array(0..<DominoNode.maximumNestingDepth))
        #expect(diagnostics.withLock { $0 } == [.nestingLimitExceeded])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func mainActorObserverRunsInPlaceWhenFiredOnTheMainActor() {
        let signal = Signal<Int, String>()
        let screen = ProgressScreen()
        // Written in main-actor code, with no mode: the callback is the main actor's.
        signal.subscribe(screen) { screen, value, label in screen.shown.append("\(label) \(value)") }
        signal.fire(1, "one")
        #expect(screen.shown == ["one 1"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func mainActorObserverFiredFromAnotherThreadRunsOnTheMainActor() async {
        let signal = Signal<Int>()
        let screen = ProgressScreen()
        signal.subscribe(screen) { screen, value in screen.shown.append("\(value)") }
        DispatchQueue.global().async { signal.fire(2) }
        #expect(await eventuallyOnMainActor { screen.shown == ["2"] })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func mainActorObserverStillRunsOnTheMainActorWhenItsModeIsChanged() async {
        // Misuse: the handle's mode moved off the main thread. The callback must
        // not run off the main actor (that would trap); it hops back instead.
        let signal = Signal<Int>()
        let screen = ProgressScreen()
        let observation = signal.subscribe(screen) { screen, value in screen.shown.append("\(value)") }
        observation.deliveryMode = .postingThread
        DispatchQueue.global().async { signal.fire(3) }
        #expect(await eventuallyOnMainActor { screen.shown == ["3"] })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func aMainActorObserverCancelledBeforeItsHopToTheMainActorRunsIsNotCalled() async {
        let signal = Signal<Int>()
        let screen = ProgressScreen()
        let observation = signal.subscribe(screen) { screen, value in screen.shown.append("\(value)") }
        observation.deliveryMode = .postingThread
        let fired = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            signal.fire(4)
            fired.signal()
        }
        // The main thread waits, so the delivery's hop to it is still queued.
        fired.wait()
        observation.cancel()
        // Runs after the hop (the main queue keeps its order).
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
        #expect(screen.shown.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignalOfNoValuesFiresWithNone() {
        let signal = EmptySignal()
        let listener = Listener()
        let counter = Counter()
        signal.subscribe(listener, on: .postingThread) { _ in counter.increment() }
        signal.fire()
        signal.fire()
        #expect(counter.value == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignalOfSeveralValuesDeliversThemAllInOrder() {
        let signal = Signal<String, Int, Bool>()
        let listener = Listener()
        let log = Log<String>()
        signal.subscribe(listener, on: .postingThread) { _, text, number, flag in log.append("\(text) \(number) \(flag)") }
        signal.fire("a", 1, true)
        #expect(log.entries == ["a 1 true"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func optionalValuesPassNilThrough() {
        let signal = Signal<String?, Int?>()
        let listener = Listener()
        let log = Log<String>()
        signal.subscribe(listener, on: .postingThread) { _, data, error in log.append("\(data ?? "nil") \(error.map(String.init) ?? "nil")") }
        signal.fire(nil, 404)
        signal.fire("body", nil)
        #expect(log.entries == ["nil 404", "body nil"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func observersAreCalledInTheOrderTheyWereAdded() {
        let signal = Signal<Int>()
        let listeners = (0..<3).map { Listener("l\($0)") }
        let log = Log<String>()
        for listener in listeners {
            signal.subscribe(listener, on: .postingThread) { observer, _ in log.append(observer.name) }
        }
        signal.fire(0)
        #expect(log.entries == ["l0", "l1", "l2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func oneObjectMayObserveSeveralTimes() {
        let signal = Signal<Int>()
        let listener = Listener()
        let counter = Counter()
        signal.subscribe(listener, on: .postingThread) { _, _ in counter.increment() }
        signal.subscribe(listener, on: .postingThread) { _, _ in counter.increment() }
        signal.fire(0)
        #expect(counter.value == 2)
        #expect(signal.subscriptionCount == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theSignalRemembersTheLastValuesFired() {
        let signal = Signal<String, Int>()
        #expect(signal.lastFired == nil)
        signal.fire("a", 1)
        signal.fire("b", 2)
        let last = signal.lastFired
        #expect(last?.0 == "b")
        #expect(last?.1 == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func valuesLargerThanTheFireLineAreRememberedWhole() {
        // 81 bytes of values: past the 48 that the lock's cache line has room for
        // (the address sanitizer run in CI sees a store past the block).
        let signal = Signal<Int, Int, Int, Int, Int, Int, Int, Int, String?>()
        signal.fire(1, 2, 3, 4, 5, 6, 7, 8, "first")
        signal.fire(11, 12, 13, 14, 15, 16, 17, 18, "second")
        let last = signal.lastFired
        #expect(last.map { [$0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7] } == Array(11...18))
        #expect(last?.8 == "second")
        #expect(signal.fireCount == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theLastValuesFiredAreReleasedWithTheSignal() {
        weak var released: Listener?
        do {
            let signal = Signal<Listener>()
            let value = Listener("value")
            released = value
            signal.fire(value)
        }
        #expect(released == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func manyThreadsFiringAtOnceCountEveryFireAndRememberOneLastFireWhole() {
        let signal = Signal<Int, String>()
        onThreads(4) { thread in
            for value in 0..<10_000 { signal.fire(thread * 10_000 + value, "thread \(thread)") }
        }
        #expect(signal.fireCount == 40_000)
        // Some thread's last fire, its two values from the same fire.
        let last = signal.lastFired
        let thread = (last?.0 ?? -1) / 10_000
        #expect(last?.0 == thread * 10_000 + 9_999)
        #expect(last?.1 == "thread \(thread)")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignalOfNoValuesRemembersThatItFired() {
        let signal = EmptySignal()
        #expect(signal.lastFired == nil)
        signal.fire()
        #expect(signal.lastFired != nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func thePredefinedShapesFireTheirValueTypes() {
        let listener = Listener()
        let log = Log<String>()
        let integers = IntegerSignal()
        let floats = FloatSignal()
        let doubles = DoubleSignal()
        let booleans = BooleanSignal()
        let strings = StringSignal()
        let arrays = ArraySignal()
        let dictionaries = DictionarySignal()
        integers.subscribe(listener, on: .postingThread) { _, value in log.append("int \(value)") }
        floats.subscribe(listener, on: .postingThread) { _, value in log.append("float \(value)") }
        doubles.subscribe(listener, on: .postingThread) { _, value in log.append("double \(value)") }
        booleans.subscribe(listener, on: .postingThread) { _, value in log.append("bool \(value)") }
        strings.subscribe(listener, on: .postingThread) { _, value in log.append("string \(value)") }
        arrays.subscribe(listener, on: .postingThread) { _, value in log.append("array \(value.count)") }
        dictionaries.subscribe(listener, on: .postingThread) { _, value in log.append("dictionary \(value.keys.sorted())") }
        integers.fire(1)
        floats.fire(0.5)
        doubles.fire(0.25)
        booleans.fire(true)
        strings.fire("s")
        arrays.fire([1, "two"])
        dictionaries.fire(["key": 1])
        #expect(log.entries == ["int 1", "float 0.5", "double 0.25", "bool true", "string s", "array 2", "dictionary [\"key\"]"])
    }

    // MARK: Observer lifetime

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theObserverIsHeldWeakly() {
        let signal = Signal<Int>()
        weak var weakListener: Listener?
        do {
            let listener = Listener()
            weakListener = listener
            signal.subscribe(listener, on: .postingThread) { _, _ in }
        }
        #expect(weakListener == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDeallocatedObserverIsNotCalledAndIsPurgedByTheNextFire() {
        let signal = Signal<Int>()
        let counter = Counter()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        weak var weakListener: Listener?
        var observation: SignalSubscription?
        do {
            let listener = Listener()
            weakListener = listener
            observation = signal.subscribe(listener, on: .postingThread) { _, _ in counter.increment() }
            signal.fire(1)
        }
        #expect(weakListener == nil)
        #expect(observation?.isActive == false)
        signal.fire(2)
        #expect(counter.value == 1)
        #expect(removed.value == 1)
        #expect(signal.subscriptionCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func countingPurgesDeallocatedObserversAndCallsTheRemovalHook() {
        let signal = Signal<Int>()
        let removed = Log<String>()
        signal.subscriptionRemoved = { removed.append("\($0)") }
        let kept = Listener("kept")
        signal.subscribe(kept, on: .postingThread) { _, _ in }
        do {
            let gone = Listener("gone")
            signal.subscribe(gone, on: .postingThread) { _, _ in }
        }
        #expect(signal.subscriptionCount == 1)
        #expect(removed.count == 1)
        #expect(removed.entries.first?.contains("Listener") == true)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func subscribingPurgesDeallocatedObserversOnceTheListDoubledSinceTheLastPurge() {
        let signal = Signal<Int>()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let kept = Listener("kept")
        signal.subscribe(kept, on: .postingThread) { _, _ in }
        for _ in 0..<6 {
            signal.subscribe(Listener("gone"), on: .postingThread) { _, _ in }
        }
        // Seven listed, below the first threshold (8): no purge yet.
        #expect(signal.description == "Signal<Int>(7 subscriptions)")
        #expect(removed.value == 0)
        // The eighth makes the list reach it: the six dead ones leave.
        signal.subscribe(kept, on: .postingThread) { _, _ in }
        #expect(signal.description == "Signal<Int>(2 subscriptions)")
        #expect(removed.value == 6)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignalWhoseObserversComeAndGoWithoutFiringDoesNotGrow() {
        let signal = Signal<Int>()
        let kept = (0..<20).map { Listener("kept \($0)") }
        for listener in kept { signal.subscribe(listener, on: .postingThread) { _, _ in } }
        for _ in 0..<10_000 {
            signal.subscribe(Listener("short-lived"), on: .postingThread) { _, _ in }
        }
        // At most twice the live subscriptions the last purge found, plus the one
        // just added: never the 10,020 a purge on fire and count alone would leave;
        // and the slots of removed ones never outnumber the listed ones.
        let (listed, slots) = signal.core.withLock { (signal.core.listed, signal.core.list.count) }
        #expect(listed <= 2 * 20 + 1)
        #expect(slots <= 2 * listed)
        #expect(signal.subscriptionCount == 20)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func unsubscribingAlsoRemovesSubscriptionsWhoseObserverDeallocated() {
        let signal = Signal<Int>()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let leaving = Listener("leaving"), staying = Listener("staying")
        signal.subscribe(leaving, on: .postingThread) { _, _ in }
        signal.subscribe(staying, on: .postingThread) { _, _ in }
        signal.subscribe(Listener("gone"), on: .postingThread) { _, _ in }
        signal.unsubscribe(leaving)
        #expect(removed.value == 2)
        #expect(signal.description == "Signal<Int>(1 subscription)")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theObserverStaysAliveUntilItsCallbackReturns() {
        let signal = Signal<Int>()
        let holder = StrongBox<Listener>(Listener())
        let watcher = WeakBox<Listener>(holder.value)
        let aliveAfterLastExternalReferenceDropped = Log<Bool>()
        signal.subscribe(holder.value!, on: .postingThread) { _, _ in
            holder.value = nil
            aliveAfterLastExternalReferenceDropped.append(watcher.value != nil)
        }
        signal.fire(1)
        #expect(aliveAfterLastExternalReferenceDropped.entries == [true])
        #expect(watcher.value == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firingDoesNotRetainTheObserverAfterTheCallback() {
        let signal = Signal<Int>()
        let holder = StrongBox<Listener>(Listener())
        let watcher = WeakBox<Listener>(holder.value)
        signal.subscribe(holder.value!, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        holder.value = nil
        #expect(watcher.value == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theObservationEndsWhenTheSignalDeallocates() {
        let listener = Listener()
        let removed = Counter()
        var signal: Signal<Int>? = Signal<Int>()
        signal?.subscriptionRemoved = { _ in removed.increment() }
        let observation = signal!.subscribe(listener, on: .postingThread) { _, _ in }
        signal?.fire(1)
        signal = nil
        #expect(!observation.isActive)
        #expect(!observation.firePreviousData())
        observation.cancel()
        #expect(removed.value == 0)
    }

    // MARK: Cancelling and removing

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCancelledObserverIsNotCalledAgain() {
        let signal = Signal<Int>()
        let listener = Listener()
        let observation = signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        observation.cancel()
        signal.fire(2)
        #expect(listener.received == [1])
        #expect(!observation.isActive)
        #expect(signal.subscriptionCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingTwiceCallsTheRemovalHookOnce() {
        let signal = Signal<Int>()
        let listener = Listener()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let observation = signal.subscribe(listener, on: .postingThread) { _, _ in }
        observation.cancel()
        observation.cancel()
        #expect(removed.value == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCallbackCancellingALaterObserverOfTheSameFireSkipsIt() {
        let signal = Signal<Int>()
        let first = Listener("first"), second = Listener("second")
        let log = Log<String>()
        let later = WeakBox<SignalSubscription>(nil)
        signal.subscribe(first, on: .postingThread) { _, _ in
            log.append("first")
            later.value?.cancel()
        }
        later.value = signal.subscribe(second, on: .postingThread) { _, _ in log.append("second") }
        signal.fire(1)
        signal.fire(2)
        #expect(log.entries == ["first", "first"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCallbackMayCancelItsOwnObservation() {
        let signal = Signal<Int>()
        let listener = Listener()
        let own = WeakBox<SignalSubscription>(nil)
        own.value = signal.subscribe(listener, on: .postingThread) { observer, value in
            observer.record(value)
            own.value?.cancel()
        }
        signal.fire(1)
        signal.fire(2)
        #expect(listener.received == [1])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func unsubscribeEndsEverySubscriptionOfThatObjectOnly() {
        let signal = Signal<Int>()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let leaving = Listener("leaving"), staying = Listener("staying")
        signal.subscribe(leaving, on: .postingThread) { observer, value in observer.record(value) }
        signal.subscribe(leaving, on: .postingThread) { observer, value in observer.record(value) }
        signal.subscribe(staying, on: .postingThread) { observer, value in observer.record(value) }
        signal.unsubscribe(leaving)
        signal.fire(1)
        #expect(leaving.received.isEmpty)
        #expect(staying.received == [1])
        #expect(removed.value == 2)
        #expect(signal.subscriptionCount == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func unsubscribeAllEndsEverySubscription() {
        let signal = Signal<Int>()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let listeners = (0..<3).map { Listener("l\($0)") }
        let observations = listeners.map { signal.subscribe($0, on: .postingThread) { observer, value in observer.record(value) } }
        signal.unsubscribeAll()
        signal.fire(1)
        #expect(listeners.allSatisfy { $0.received.isEmpty })
        #expect(observations.allSatisfy { !$0.isActive })
        #expect(removed.value == 3)
        #expect(signal.subscriptionCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func unsubscribeGivenASubscriptionHandleEndsThatSubscriptionOnly() {
        let signal = Signal<Int>()
        let listener = Listener()
        let first = signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value * 10) }
        signal.unsubscribe(first)
        signal.fire(1)
        #expect(!first.isActive)
        #expect(listener.received == [10])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func nodeAndSignalHandlesLiveInOneCollectionAndCancelAlike() {
        let node = DominoNode(label: "n")
        let signal = Signal<Int>()
        let listener = Listener()
        let log = Log<String>()
        var subscriptions: [Subscription] = []
        subscriptions.append(node.subscribe(Ping.self, on: .postingThread) { log.append("node \($0.value)") })
        subscriptions.append(signal.subscribe(listener, on: .postingThread) { _, value in log.append("signal \(value)") })
        #expect(subscriptions.allSatisfy { $0.isActive })
        subscriptions.forEach { $0.cancel() }
        node.post(Ping(value: 1))
        signal.fire(1)
        #expect(log.entries.isEmpty)
        #expect(subscriptions.allSatisfy { !$0.isActive })
        #expect(signal.subscriptionCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancelsAfterNextFireDeliversOnceThenEnds() {
        let signal = Signal<Int>()
        let listener = Listener()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let observation = signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        observation.cancelsAfterNextFire = true
        #expect(observation.cancelsAfterNextFire)
        signal.fire(1)
        signal.fire(2)
        #expect(listener.received == [1])
        #expect(!observation.isActive)
        #expect(removed.value == 1)
        #expect(signal.subscriptionCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancelsAfterNextFireDeliversExactlyOnceWhenManyThreadsFire() {
        let signal = Signal<Int>()
        let listener = Listener()
        let counter = Counter()
        signal.subscribe(listener, on: .postingThread) { _, _ in counter.increment() }.cancelsAfterNextFire = true
        onThreads(4) { _ in
            for value in 0..<1_000 { signal.fire(value) }
        }
        #expect(counter.value == 1)
        #expect(signal.subscriptionCount == 0)
    }

    // MARK: Replaying and targeting

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firePreviousDataIsFalseWhenTheSignalNeverFired() {
        let signal = Signal<Int>()
        let listener = Listener()
        let observation = signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        #expect(!observation.firePreviousData())
        #expect(listener.received.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firePreviousDataOfASignalOfNoValuesDeliversOnceItFired() {
        let signal = EmptySignal()
        let listener = Listener()
        let subscription = signal.subscribe(listener, on: .postingThread) { observer in observer.record(0) }
        #expect(!subscription.firePreviousData())
        signal.fire()
        #expect(subscription.firePreviousData())
        #expect(listener.received == [0, 0])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firePreviousDataDeliversTheLastValuesToThatObserverOnly() {
        let signal = Signal<Int>()
        let early = Listener("early"), late = Listener("late")
        signal.subscribe(early, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(7)
        let observation = signal.subscribe(late, on: .postingThread) { observer, value in observer.record(value) }
        #expect(observation.firePreviousData())
        #expect(late.received == [7])
        #expect(early.received == [7])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firePreviousDataOfACancelledObserverDeliversNothing() {
        let signal = Signal<Int>()
        let listener = Listener()
        let observation = signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        observation.cancel()
        #expect(!observation.firePreviousData())
        #expect(listener.received == [1])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func fireForOneObserverCallsOnlyItAndLeavesLastFiredAlone() {
        let signal = Signal<Int>()
        let chosen = Listener("chosen"), other = Listener("other")
        let observation = signal.subscribe(chosen, on: .postingThread) { observer, value in observer.record(value) }
        signal.subscribe(other, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        #expect(signal.fire(for: observation, 2))
        #expect(chosen.received == [1, 2])
        #expect(other.received == [1])
        #expect(signal.lastFired == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func fireForAnObserverOfAnotherSignalDoesNothing() {
        let signal = Signal<Int>(), otherSignal = Signal<Int>()
        let listener = Listener()
        let foreign = otherSignal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        #expect(!signal.fire(for: foreign, 1))
        #expect(listener.received.isEmpty)
    }

    // MARK: Delivery modes

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theCallbackRunsOnTheFiringThreadByDefault() {
        let signal = Signal<Int>()
        let listener = Listener()
        let observation = signal.subscribe(listener, on: .postingThread) { observer, value in observer.record(value) }
        #expect(observation.deliveryMode.description == "postingThread")
        let firingThread = ObjectIdentifier(Thread.current)
        let sameThread = Log<Bool>()
        signal.subscribe(listener, on: .postingThread) { _, _ in sameThread.append(ObjectIdentifier(Thread.current) == firingThread) }
        signal.fire(1)
        #expect(listener.received == [1])
        #expect(sameThread.entries == [true])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theCallbackRunsOnTheQueueGivenWhenAdding() async {
        let queue = DispatchQueue(label: "signal.tests.delivery")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let signal = Signal<Int>()
        let listener = Listener()
        let log = Log<Int?>()
        signal.subscribe(listener, on: .queue(queue)) { _, _ in log.append(DispatchQueue.getSpecific(key: key)) }
        signal.fire(1)
        #expect(await eventually { log.count == 1 })
        #expect(log.entries == [7])
        withExtendedLifetime(listener) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theCallbackRunsSynchronouslyWhenFiredOnItsQueue() {
        let queue = DispatchQueue(label: "signal.tests.sync")
        let signal = Signal<Int>()
        let listener = Listener()
        let counter = Counter()
        signal.subscribe(listener, on: .queue(queue)) { _, _ in counter.increment() }
        let seenBeforeFireReturned = queue.sync { () -> Int in
            signal.fire(1)
            return counter.value
        }
        #expect(seenBeforeFireReturned == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func changingTheDeliveryModeMovesLaterCallbacks() async {
        let queue = DispatchQueue(label: "signal.tests.moved")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 9)
        let signal = Signal<Int>()
        let listener = Listener()
        let log = Log<Int?>()
        let observation = signal.subscribe(listener, on: .postingThread) { _, _ in log.append(DispatchQueue.getSpecific(key: key)) }
        signal.fire(1)
        observation.deliveryMode = .queue(queue)
        signal.fire(2)
        #expect(await eventually { log.count == 2 })
        #expect(log.entries == [nil, 9])
        withExtendedLifetime(listener) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func aMainThreadSubscriptionMovedToAQueueRunsThereWhenFiredOnTheMainThread() async {
        let queue = DispatchQueue(label: "signal.tests.offMain")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let signal = Signal<Int>()
        let listener = Listener()
        let log = Log<Int?>()
        let observation = signal.subscribe(listener, on: .mainThread) { _, _ in log.append(DispatchQueue.getSpecific(key: key)) }
        signal.fire(1)
        observation.deliveryMode = .queue(queue)
        signal.fire(2)
        #expect(await eventuallyOnMainActor { log.count == 2 })
        #expect(log.entries == [nil, 7])
        withExtendedLifetime(listener) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDeliveryQueuedBeforeCancelIsDropped() async {
        let queue = DispatchQueue(label: "signal.tests.dropped")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let signal = Signal<Int>()
        let listener = Listener()
        let counter = Counter()
        let observation = signal.subscribe(listener, on: .queue(queue)) { _, _ in counter.increment() }
        signal.fire(1)
        observation.cancel()
        gate.signal()
        let drained = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: true) }
        }
        #expect(drained)
        #expect(counter.value == 0)
        withExtendedLifetime(listener) {}
    }

    // MARK: Reentrancy and threads

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anObserverAddedDuringAFireIsNotCalledByThatFire() {
        let signal = Signal<Int>()
        let adder = Listener("adder")
        let added = StrongBox(Listener("added"))
        let log = Log<String>()
        let once = WeakBox<SignalSubscription>(nil)
        once.value = signal.subscribe(adder, on: .postingThread) { _, value in
            log.append("adder \(value)")
            signal.subscribe(added.value!, on: .postingThread) { _, value in log.append("added \(value)") }
            once.value?.cancel()
        }
        signal.fire(1)
        signal.fire(2)
        #expect(log.entries == ["adder 1", "added 2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCallbackMayFireTheSignalAgain() {
        let signal = Signal<Int>()
        let listener = Listener()
        // Weak: the signal holds this callback, which must not hold the signal.
        signal.subscribe(listener, on: .postingThread) { [weak signal] observer, value in
            observer.record(value)
            if value < 3 { signal?.fire(value + 1) }
        }
        signal.fire(1)
        #expect(listener.received == [1, 2, 3])
        #expect(signal.lastFired == 3)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func hooksRunOutsideTheLockSoTheyMayUseTheSignal() {
        let signal = Signal<Int>()
        let counts = Log<Int>()
        signal.subscriptionAdded = { [unowned signal] _ in counts.append(signal.subscriptionCount) }
        signal.subscriptionRemoved = { [unowned signal] _ in
            counts.append(signal.subscriptionCount)
            signal.fire(0)
        }
        let listener = Listener()
        let observation = signal.subscribe(listener, on: .postingThread) { _, _ in }
        observation.cancel()
        #expect(counts.entries == [1, 0])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theAddedHookIsCalledWithTheNewObservation() {
        let signal = Signal<Int>()
        let added = Log<String>()
        signal.subscriptionAdded = { added.append("\($0)") }
        let listener = Listener()
        let observation = signal.subscribe(listener, on: .background) { _, _ in }
        #expect(added.entries == ["\(observation)"])
        #expect(added.entries.first?.contains("Listener on Signal<Int>, background") == true)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aListReplacedWhileAFireReadsItLivesUntilThatFireEndsAndNoLonger() {
        let signal = Signal<Int>()
        let observer = Listener()
        let inCallback = DispatchSemaphore(value: 0)
        let mayReturn = DispatchSemaphore(value: 0)
        let fireEnded = DispatchSemaphore(value: 0)
        signal.subscribe(observer, on: .postingThread) { _, _ in
            inCallback.signal()
            mayReturn.wait()
        }
        let leaving = signal.subscribe(observer, on: .postingThread) { _, _ in }
        weak let firedList: ObserverList? = signal.core.withLock { signal.core.list }
        Thread.detachNewThread {
            signal.fire(1)
            fireEnded.signal()
        }
        inCallback.wait()
        // The fire reads the list under its thread's hazard slot: the cancel copies
        // the remaining entry to a new list, and the old one waits for the fire.
        leaving.cancel()
        #expect(firedList != nil)
        #expect(signal.core.withLock { signal.core.pendingLists.count } == 1)
        mayReturn.signal()
        fireEnded.wait()
        // The fire, last out, released it.
        #expect(firedList == nil)
        #expect(signal.core.withLock { signal.core.pendingLists.isEmpty })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func listsReplacedWhileOtherThreadsFireAreAllReleasedOnceTheFiresEnd() {
        let signal = Signal<Int>()
        let stable = Listener()
        let counter = Counter()
        signal.subscribe(stable, on: .postingThread) { _, _ in counter.increment() }
        onThreads(3) { worker in
            if worker == 0 {
                // Each cancel while a fire reads the list replaces it.
                for _ in 0..<2_000 {
                    let passing = Listener()
                    signal.subscribe(passing, on: .postingThread) { _, _ in }.cancel()
                }
            } else {
                for value in 0..<20_000 { signal.fire(value) }
            }
        }
        #expect(counter.value == 40_000)
        #expect(signal.core.withLock { signal.core.pendingLists.isEmpty })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func manyThreadsFiringAtOnceDeliverEveryFireToEveryObserver() {
        let signal = Signal<Int>()
        let listeners = (0..<3).map { Listener("l\($0)") }
        let counter = Counter()
        for listener in listeners {
            signal.subscribe(listener, on: .postingThread) { _, _ in counter.increment() }
        }
        onThreads(4) { _ in
            for value in 0..<10_000 { signal.fire(value) }
        }
        #expect(counter.value == 3 * 40_000)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func addingAndCancellingWhileOtherThreadsFireLosesNoStableObserverCall() {
        let signal = Signal<Int>()
        let stable = Listener("stable")
        let stableCalls = Counter()
        signal.subscribe(stable, on: .postingThread) { _, _ in stableCalls.increment() }
        let churned = Counter()
        onThreads(4) { worker in
            if worker == 0 {
                let transient = Listener("transient")
                for _ in 0..<2_000 {
                    let observation = signal.subscribe(transient, on: .postingThread) { _, _ in churned.increment() }
                    signal.fire(-1)
                    observation.cancel()
                }
            } else {
                for value in 0..<5_000 { signal.fire(value) }
            }
        }
        #expect(stableCalls.value == 3 * 5_000 + 2_000)
        #expect(churned.value >= 2_000)
        #expect(signal.subscriptionCount == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func subscribingShortLivedObserversWhileOtherThreadsFireLosesNoStableObserverCallAndStaysBounded() {
        let signal = Signal<Int>()
        let removed = Counter()
        signal.subscriptionRemoved = { _ in removed.increment() }
        let stable = Listener("stable")
        let stableCalls = Counter()
        signal.subscribe(stable, on: .postingThread) { _, _ in stableCalls.increment() }
        onThreads(4) { worker in
            if worker < 2 {
                // Each observer dies right after subscribing: purged by a later
                // subscribe (once the list doubled) or by a fire that reaches it.
                for _ in 0..<3_000 {
                    signal.subscribe(Listener("short-lived"), on: .postingThread) { _, _ in }
                }
            } else {
                for value in 0..<3_000 { signal.fire(value) }
            }
        }
        #expect(stableCalls.value == 2 * 3_000)
        let listed = signal.core.withLock { signal.core.listed }
        #expect(listed <= 16)
        #expect(signal.subscriptionCount == 1)
        // Each dead subscription left once, with its hook.
        #expect(removed.value == 2 * 3_000)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func noFireStartedAfterCancelReturnedReachesTheCallback() {
        // Every fire carries a ticket taken before it starts; each observation
        // remembers the last ticket handed out when its cancel() returned. A call
        // carrying a later ticket came from a fire that started after the cancel.
        let signal = Signal<Int>()
        let tickets = Ticketer()
        let violations = Counter()
        onThreads(4) { worker in
            if worker == 0 {
                let listener = Listener()
                for _ in 0..<2_000 {
                    let cancelMark = Ticketer.Mark()
                    let observation = signal.subscribe(listener, on: .postingThread) { _, ticket in
                        if let mark = cancelMark.value, ticket > mark { violations.increment() }
                    }
                    signal.fire(tickets.next())
                    observation.cancel()
                    cancelMark.value = tickets.current
                    signal.fire(tickets.next())
                }
            } else {
                for _ in 0..<10_000 { signal.fire(tickets.next()) }
            }
        }
        #expect(violations.value == 0)
        #expect(signal.subscriptionCount == 0)
    }

    // MARK: Limits and descriptions

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func maxSubscriptionsIs100ByDefault() {
        #expect(Signal<Int>().maxSubscriptions == 100)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func subscribingBeyondMaxSubscriptionsIsReportedAndTheSubscriptionIsMadeAnyway() {
        let signal = Signal<Int>(maxSubscriptions: 2)
        let listeners = (0..<3).map { Listener("l\($0)") }
        let counter = Counter()
        let diagnostics = Diagnostics.capture {
            for listener in listeners {
                signal.subscribe(listener, on: .postingThread) { _, _ in counter.increment() }
            }
        }
        #expect(diagnostics.map(\.code) == [.observerLimitExceeded])
        #expect(diagnostics.first?.message.contains("Signal<Int> has 3 subscriptions, more than its maxSubscriptions (2)") == true)
        signal.fire(1)
        #expect(counter.value == 3)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func deallocatedObserversDoNotCountTowardsMaxSubscriptions() {
        let signal = Signal<Int>(maxSubscriptions: 1)
        do {
            let gone = Listener("gone")
            signal.subscribe(gone, on: .postingThread) { _, _ in }
        }
        let listener = Listener()
        let diagnostics = Diagnostics.capture {
            signal.subscribe(listener, on: .postingThread) { _, _ in }
        }
        #expect(diagnostics.isEmpty)
        #expect(signal.subscriptionCount == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func loweringMaxSubscriptionsBelowTheCountIsReportedAndKeepsEverySubscription() {
        let signal = Signal<Int>()
        let listeners = (0..<3).map { Listener("l\($0)") }
        for listener in listeners {
            signal.subscribe(listener, on: .postingThread) { _, _ in }
        }
        let diagnostics = Diagnostics.capture { signal.maxSubscriptions = 2 }
        #expect(diagnostics.map(\.code) == [.observerLimitExceeded])
        #expect(diagnostics.first?.message.contains("lowered to 2, below its 3 subscriptions") == true)
        #expect(signal.maxSubscriptions == 2)
        #expect(signal.subscriptionCount == 3)
        let raising = Diagnostics.capture { signal.maxSubscriptions = 500 }
        #expect(raising.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theDescriptionsListTheSubscriptions() {
        let signal = Signal<Int>()
        let listener = Listener()
        signal.subscribe(listener, on: .postingThread) { _, _ in }
        signal.subscribe(listener, on: .background) { _, _ in }.cancelsAfterNextFire = true
        #expect(signal.description == "Signal<Int>(2 subscriptions)")
        #expect(signal.debugDescription == """
            Signal<Int>(2 subscriptions, max 100, never fired)
              SignalSubscription(Listener on Signal<Int>, postingThread)
              SignalSubscription(Listener on Signal<Int>, background, cancelsAfterNextFire)
            """)
        signal.unsubscribeAll()
        signal.fire(5)
        #expect(signal.debugDescription == "Signal<Int>(0 subscriptions, max 100, last fired 5)")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anEndedObservationSaysSo() {
        let signal = Signal<String, Int>()
        let listener = Listener()
        let observation = signal.subscribe(listener, on: .postingThread) { _, _, _ in }
        observation.cancel()
        #expect(observation.description == "SignalSubscription(Listener on Signal<String, Int>, postingThread, ended)")
    }

    // MARK: The node graph

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aConnectedSignalPostsEachFireAsATypedEvent() {
        let signal = Signal<Int>()
        let nodes = makeChain(2)
        let log = Log<Int>()
        nodes[1].subscribe(Ping.self, on: .postingThread) { log.append($0.value) }
        signal.connect(to: nodes[0]) { Ping(value: $0) }
        signal.fire(3)
        signal.fire(4)
        #expect(log.entries == [3, 4])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignalOfSeveralValuesBuildsOneEventFromThem() {
        let signal = Signal<String, Int>()
        let node = DominoNode(label: "bridge")
        let log = Log<String>()
        node.subscribe(Pong.self, on: .postingThread) { log.append($0.text) }
        signal.connect(to: node) { text, count in Pong(text: "\(text) x\(count)") }
        signal.fire("tap", 2)
        #expect(log.entries == ["tap x2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingTheConnectionStopsThePosts() {
        let signal = Signal<Int>()
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        let connection = signal.connect(to: node) { Ping(value: $0) }
        signal.fire(1)
        connection.cancel()
        signal.fire(2)
        #expect(counter.value == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theConnectionEndsWhenTheNodeDeallocates() {
        let signal = Signal<Int>()
        weak var weakNode: DominoNode?
        var connection: SignalSubscription?
        do {
            let node = DominoNode(label: "short-lived")
            weakNode = node
            connection = signal.connect(to: node) { Ping(value: $0) }
        }
        #expect(weakNode == nil)
        #expect(connection?.isActive == false)
        signal.fire(1)
        #expect(signal.subscriptionCount == 0)
    }
}

/// Main-actor state observing signals, as a view controller's.
@MainActor private final class ProgressScreen {
    var shown: [String] = []
}
