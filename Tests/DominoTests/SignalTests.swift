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
        signal.addObserver(listener, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        signal.fire(2)
        #expect(listener.received == [1, 2])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anObserverFiringItsOwnSignalRecursivelyIsCutOffAndReportedInsteadOfOverflowingTheStack() {
        let signal = Signal<Int>()
        let listener = Listener()
        signal.addObserver(listener, on: .postingThread) { [weak signal] observer, value in
            observer.record(value)
            signal?.fire(value + 1)
        }
        let diagnostics = Diagnostics.capture { signal.fire(0) }
        #expect(listener.received == Array(0..<DominoNode.maximumNestingDepth))
        #expect(diagnostics.map(\.code) == [.nestingLimitExceeded])
        // The nesting count is given back: the next fire runs as deep again.
        listener.forget()
        _ = Diagnostics.capture { signal.fire(0) }
        #expect(listener.received.count == DominoNode.maximumNestingDepth)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func mainActorObserverRunsInPlaceWhenFiredOnTheMainActor() {
        let signal = Signal<Int, String>()
        let screen = ProgressScreen()
        // Written in main-actor code, with no mode: the callback is the main actor's.
        signal.addObserver(screen) { screen, value, label in screen.shown.append("\(label) \(value)") }
        signal.fire(1, "one")
        #expect(screen.shown == ["one 1"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func mainActorObserverFiredFromAnotherThreadRunsOnTheMainActor() async {
        let signal = Signal<Int>()
        let screen = ProgressScreen()
        signal.addObserver(screen) { screen, value in screen.shown.append("\(value)") }
        DispatchQueue.global().async { signal.fire(2) }
        #expect(await eventuallyOnMainActor { screen.shown == ["2"] })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func mainActorObserverStillRunsOnTheMainActorWhenItsModeIsChanged() async {
        // Misuse: the handle's mode moved off the main thread. The callback must
        // not run off the main actor (that would trap); it hops back instead.
        let signal = Signal<Int>()
        let screen = ProgressScreen()
        let observation = signal.addObserver(screen) { screen, value in screen.shown.append("\(value)") }
        observation.deliveryMode = .postingThread
        DispatchQueue.global().async { signal.fire(3) }
        #expect(await eventuallyOnMainActor { screen.shown == ["3"] })
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func deprecatedAddObserverOnMainActorStillRunsTheCallbackOnTheMainActor() async {
        let signal = Signal<Int>()
        let screen = ProgressScreen()
        signal.addObserverOnMainActor(screen) { screen, value in screen.shown.append("\(value)") }
        signal.fire(4)
        DispatchQueue.global().async { signal.fire(5) }
        #expect(await eventuallyOnMainActor { screen.shown == ["4", "5"] })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignalOfNoValuesFiresWithNone() {
        let signal = EmptySignal()
        let listener = Listener()
        let counter = Counter()
        signal.addObserver(listener, on: .postingThread) { _ in counter.increment() }
        signal.fire()
        signal.fire()
        #expect(counter.value == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aSignalOfSeveralValuesDeliversThemAllInOrder() {
        let signal = Signal<String, Int, Bool>()
        let listener = Listener()
        let log = Log<String>()
        signal.addObserver(listener, on: .postingThread) { _, text, number, flag in log.append("\(text) \(number) \(flag)") }
        signal.fire("a", 1, true)
        #expect(log.entries == ["a 1 true"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func optionalValuesPassNilThrough() {
        let signal = Signal<String?, Int?>()
        let listener = Listener()
        let log = Log<String>()
        signal.addObserver(listener, on: .postingThread) { _, data, error in log.append("\(data ?? "nil") \(error.map(String.init) ?? "nil")") }
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
            signal.addObserver(listener, on: .postingThread) { observer, _ in log.append(observer.name) }
        }
        signal.fire(0)
        #expect(log.entries == ["l0", "l1", "l2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func oneObjectMayObserveSeveralTimes() {
        let signal = Signal<Int>()
        let listener = Listener()
        let counter = Counter()
        signal.addObserver(listener, on: .postingThread) { _, _ in counter.increment() }
        signal.addObserver(listener, on: .postingThread) { _, _ in counter.increment() }
        signal.fire(0)
        #expect(counter.value == 2)
        #expect(signal.observerCount == 2)
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
        integers.addObserver(listener, on: .postingThread) { _, value in log.append("int \(value)") }
        floats.addObserver(listener, on: .postingThread) { _, value in log.append("float \(value)") }
        doubles.addObserver(listener, on: .postingThread) { _, value in log.append("double \(value)") }
        booleans.addObserver(listener, on: .postingThread) { _, value in log.append("bool \(value)") }
        strings.addObserver(listener, on: .postingThread) { _, value in log.append("string \(value)") }
        arrays.addObserver(listener, on: .postingThread) { _, value in log.append("array \(value.count)") }
        dictionaries.addObserver(listener, on: .postingThread) { _, value in log.append("dictionary \(value.keys.sorted())") }
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
            signal.addObserver(listener, on: .postingThread) { _, _ in }
        }
        #expect(weakListener == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aDeallocatedObserverIsNotCalledAndIsPurgedByTheNextFire() {
        let signal = Signal<Int>()
        let counter = Counter()
        let removed = Counter()
        signal.observerRemoved = { _ in removed.increment() }
        weak var weakListener: Listener?
        var observation: SignalObserver?
        do {
            let listener = Listener()
            weakListener = listener
            observation = signal.addObserver(listener, on: .postingThread) { _, _ in counter.increment() }
            signal.fire(1)
        }
        #expect(weakListener == nil)
        #expect(observation?.isActive == false)
        signal.fire(2)
        #expect(counter.value == 1)
        #expect(removed.value == 1)
        #expect(signal.observerCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func countingPurgesDeallocatedObserversAndCallsTheRemovalHook() {
        let signal = Signal<Int>()
        let removed = Log<String>()
        signal.observerRemoved = { removed.append("\($0)") }
        let kept = Listener("kept")
        signal.addObserver(kept, on: .postingThread) { _, _ in }
        do {
            let gone = Listener("gone")
            signal.addObserver(gone, on: .postingThread) { _, _ in }
        }
        #expect(signal.observerCount == 1)
        #expect(removed.count == 1)
        #expect(removed.entries.first?.contains("Listener") == true)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theObserverStaysAliveUntilItsCallbackReturns() {
        let signal = Signal<Int>()
        let holder = StrongBox<Listener>(Listener())
        let watcher = WeakBox<Listener>(holder.value)
        let aliveAfterLastExternalReferenceDropped = Log<Bool>()
        signal.addObserver(holder.value!, on: .postingThread) { _, _ in
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
        signal.addObserver(holder.value!, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        holder.value = nil
        #expect(watcher.value == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theObservationEndsWhenTheSignalDeallocates() {
        let listener = Listener()
        let removed = Counter()
        var signal: Signal<Int>? = Signal<Int>()
        signal?.observerRemoved = { _ in removed.increment() }
        let observation = signal!.addObserver(listener, on: .postingThread) { _, _ in }
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
        let observation = signal.addObserver(listener, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        observation.cancel()
        signal.fire(2)
        #expect(listener.received == [1])
        #expect(!observation.isActive)
        #expect(signal.observerCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingTwiceCallsTheRemovalHookOnce() {
        let signal = Signal<Int>()
        let listener = Listener()
        let removed = Counter()
        signal.observerRemoved = { _ in removed.increment() }
        let observation = signal.addObserver(listener, on: .postingThread) { _, _ in }
        observation.cancel()
        observation.cancel()
        #expect(removed.value == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCallbackCancellingALaterObserverOfTheSameFireSkipsIt() {
        let signal = Signal<Int>()
        let first = Listener("first"), second = Listener("second")
        let log = Log<String>()
        let later = WeakBox<SignalObserver>(nil)
        signal.addObserver(first, on: .postingThread) { _, _ in
            log.append("first")
            later.value?.cancel()
        }
        later.value = signal.addObserver(second, on: .postingThread) { _, _ in log.append("second") }
        signal.fire(1)
        signal.fire(2)
        #expect(log.entries == ["first", "first"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aCallbackMayCancelItsOwnObservation() {
        let signal = Signal<Int>()
        let listener = Listener()
        let own = WeakBox<SignalObserver>(nil)
        own.value = signal.addObserver(listener, on: .postingThread) { observer, value in
            observer.record(value)
            own.value?.cancel()
        }
        signal.fire(1)
        signal.fire(2)
        #expect(listener.received == [1])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func removeObserverEndsEveryObservationOfThatObjectOnly() {
        let signal = Signal<Int>()
        let removed = Counter()
        signal.observerRemoved = { _ in removed.increment() }
        let leaving = Listener("leaving"), staying = Listener("staying")
        signal.addObserver(leaving, on: .postingThread) { observer, value in observer.record(value) }
        signal.addObserver(leaving, on: .postingThread) { observer, value in observer.record(value) }
        signal.addObserver(staying, on: .postingThread) { observer, value in observer.record(value) }
        signal.removeObserver(leaving)
        signal.fire(1)
        #expect(leaving.received.isEmpty)
        #expect(staying.received == [1])
        #expect(removed.value == 2)
        #expect(signal.observerCount == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func removeAllObserversEndsEveryObservation() {
        let signal = Signal<Int>()
        let removed = Counter()
        signal.observerRemoved = { _ in removed.increment() }
        let listeners = (0..<3).map { Listener("l\($0)") }
        let observations = listeners.map { signal.addObserver($0, on: .postingThread) { observer, value in observer.record(value) } }
        signal.removeAllObservers()
        signal.fire(1)
        #expect(listeners.allSatisfy { $0.received.isEmpty })
        #expect(observations.allSatisfy { !$0.isActive })
        #expect(removed.value == 3)
        #expect(signal.observerCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancelsAfterNextFireDeliversOnceThenEnds() {
        let signal = Signal<Int>()
        let listener = Listener()
        let removed = Counter()
        signal.observerRemoved = { _ in removed.increment() }
        let observation = signal.addObserver(listener, on: .postingThread) { observer, value in observer.record(value) }
        observation.cancelsAfterNextFire = true
        #expect(observation.cancelsAfterNextFire)
        signal.fire(1)
        signal.fire(2)
        #expect(listener.received == [1])
        #expect(!observation.isActive)
        #expect(removed.value == 1)
        #expect(signal.observerCount == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancelsAfterNextFireDeliversExactlyOnceWhenManyThreadsFire() {
        let signal = Signal<Int>()
        let listener = Listener()
        let counter = Counter()
        signal.addObserver(listener, on: .postingThread) { _, _ in counter.increment() }.cancelsAfterNextFire = true
        onThreads(4) { _ in
            for value in 0..<1_000 { signal.fire(value) }
        }
        #expect(counter.value == 1)
        #expect(signal.observerCount == 0)
    }

    // MARK: Replaying and targeting

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firePreviousDataIsFalseWhenTheSignalNeverFired() {
        let signal = Signal<Int>()
        let listener = Listener()
        let observation = signal.addObserver(listener, on: .postingThread) { observer, value in observer.record(value) }
        #expect(!observation.firePreviousData())
        #expect(listener.received.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firePreviousDataDeliversTheLastValuesToThatObserverOnly() {
        let signal = Signal<Int>()
        let early = Listener("early"), late = Listener("late")
        signal.addObserver(early, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(7)
        let observation = signal.addObserver(late, on: .postingThread) { observer, value in observer.record(value) }
        #expect(observation.firePreviousData())
        #expect(late.received == [7])
        #expect(early.received == [7])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firePreviousDataOfACancelledObserverDeliversNothing() {
        let signal = Signal<Int>()
        let listener = Listener()
        let observation = signal.addObserver(listener, on: .postingThread) { observer, value in observer.record(value) }
        signal.fire(1)
        observation.cancel()
        #expect(!observation.firePreviousData())
        #expect(listener.received == [1])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func fireForOneObserverCallsOnlyItAndLeavesLastFiredAlone() {
        let signal = Signal<Int>()
        let chosen = Listener("chosen"), other = Listener("other")
        let observation = signal.addObserver(chosen, on: .postingThread) { observer, value in observer.record(value) }
        signal.addObserver(other, on: .postingThread) { observer, value in observer.record(value) }
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
        let foreign = otherSignal.addObserver(listener, on: .postingThread) { observer, value in observer.record(value) }
        #expect(!signal.fire(for: foreign, 1))
        #expect(listener.received.isEmpty)
    }

    // MARK: Delivery modes

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theCallbackRunsOnTheFiringThreadByDefault() {
        let signal = Signal<Int>()
        let listener = Listener()
        let observation = signal.addObserver(listener, on: .postingThread) { observer, value in observer.record(value) }
        #expect(observation.deliveryMode.description == "postingThread")
        let firingThread = ObjectIdentifier(Thread.current)
        let sameThread = Log<Bool>()
        signal.addObserver(listener, on: .postingThread) { _, _ in sameThread.append(ObjectIdentifier(Thread.current) == firingThread) }
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
        signal.addObserver(listener, on: .queue(queue)) { _, _ in log.append(DispatchQueue.getSpecific(key: key)) }
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
        signal.addObserver(listener, on: .queue(queue)) { _, _ in counter.increment() }
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
        let observation = signal.addObserver(listener, on: .postingThread) { _, _ in log.append(DispatchQueue.getSpecific(key: key)) }
        signal.fire(1)
        observation.deliveryMode = .queue(queue)
        signal.fire(2)
        #expect(await eventually { log.count == 2 })
        #expect(log.entries == [nil, 9])
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
        let observation = signal.addObserver(listener, on: .queue(queue)) { _, _ in counter.increment() }
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
        let once = WeakBox<SignalObserver>(nil)
        once.value = signal.addObserver(adder, on: .postingThread) { _, value in
            log.append("adder \(value)")
            signal.addObserver(added.value!, on: .postingThread) { _, value in log.append("added \(value)") }
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
        signal.addObserver(listener, on: .postingThread) { [weak signal] observer, value in
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
        signal.observerAdded = { [unowned signal] _ in counts.append(signal.observerCount) }
        signal.observerRemoved = { [unowned signal] _ in
            counts.append(signal.observerCount)
            signal.fire(0)
        }
        let listener = Listener()
        let observation = signal.addObserver(listener, on: .postingThread) { _, _ in }
        observation.cancel()
        #expect(counts.entries == [1, 0])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theAddedHookIsCalledWithTheNewObservation() {
        let signal = Signal<Int>()
        let added = Log<String>()
        signal.observerAdded = { added.append("\($0)") }
        let listener = Listener()
        let observation = signal.addObserver(listener, on: .background) { _, _ in }
        #expect(added.entries == ["\(observation)"])
        #expect(added.entries.first?.contains("Listener on Signal<Int>, background") == true)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func manyThreadsFiringAtOnceDeliverEveryFireToEveryObserver() {
        let signal = Signal<Int>()
        let listeners = (0..<3).map { Listener("l\($0)") }
        let counter = Counter()
        for listener in listeners {
            signal.addObserver(listener, on: .postingThread) { _, _ in counter.increment() }
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
        signal.addObserver(stable, on: .postingThread) { _, _ in stableCalls.increment() }
        let churned = Counter()
        onThreads(4) { worker in
            if worker == 0 {
                let transient = Listener("transient")
                for _ in 0..<2_000 {
                    let observation = signal.addObserver(transient, on: .postingThread) { _, _ in churned.increment() }
                    signal.fire(-1)
                    observation.cancel()
                }
            } else {
                for value in 0..<5_000 { signal.fire(value) }
            }
        }
        #expect(stableCalls.value == 3 * 5_000 + 2_000)
        #expect(churned.value >= 2_000)
        #expect(signal.observerCount == 1)
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
                    let observation = signal.addObserver(listener, on: .postingThread) { _, ticket in
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
        #expect(signal.observerCount == 0)
    }

    // MARK: Limits and descriptions

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func maxObserversIs100ByDefault() {
        #expect(Signal<Int>().maxObservers == 100)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func addingBeyondMaxObserversIsReportedAndTheObserverIsAddedAnyway() {
        let signal = Signal<Int>(maxObservers: 2)
        let listeners = (0..<3).map { Listener("l\($0)") }
        let counter = Counter()
        let diagnostics = Diagnostics.capture {
            for listener in listeners {
                signal.addObserver(listener, on: .postingThread) { _, _ in counter.increment() }
            }
        }
        #expect(diagnostics.map(\.code) == [.observerLimitExceeded])
        #expect(diagnostics.first?.message.contains("Signal<Int> has 3 observers, more than its maxObservers (2)") == true)
        signal.fire(1)
        #expect(counter.value == 3)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func deallocatedObserversDoNotCountTowardsMaxObservers() {
        let signal = Signal<Int>(maxObservers: 1)
        do {
            let gone = Listener("gone")
            signal.addObserver(gone, on: .postingThread) { _, _ in }
        }
        let listener = Listener()
        let diagnostics = Diagnostics.capture {
            signal.addObserver(listener, on: .postingThread) { _, _ in }
        }
        #expect(diagnostics.isEmpty)
        #expect(signal.observerCount == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func loweringMaxObserversBelowTheCountIsReportedAndKeepsEveryObserver() {
        let signal = Signal<Int>()
        let listeners = (0..<3).map { Listener("l\($0)") }
        for listener in listeners {
            signal.addObserver(listener, on: .postingThread) { _, _ in }
        }
        let diagnostics = Diagnostics.capture { signal.maxObservers = 2 }
        #expect(diagnostics.map(\.code) == [.observerLimitExceeded])
        #expect(diagnostics.first?.message.contains("lowered to 2, below its 3 observers") == true)
        #expect(signal.maxObservers == 2)
        #expect(signal.observerCount == 3)
        let raising = Diagnostics.capture { signal.maxObservers = 500 }
        #expect(raising.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theDescriptionsListTheObservers() {
        let signal = Signal<Int>()
        let listener = Listener()
        signal.addObserver(listener, on: .postingThread) { _, _ in }
        signal.addObserver(listener, on: .background) { _, _ in }.cancelsAfterNextFire = true
        #expect(signal.description == "Signal<Int>(2 observers)")
        #expect(signal.debugDescription == """
            Signal<Int>(2 observers, max 100, never fired)
              SignalObserver(Listener on Signal<Int>, postingThread)
              SignalObserver(Listener on Signal<Int>, background, cancelsAfterNextFire)
            """)
        signal.removeAllObservers()
        signal.fire(5)
        #expect(signal.debugDescription == "Signal<Int>(0 observers, max 100, last fired 5)")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anEndedObservationSaysSo() {
        let signal = Signal<String, Int>()
        let listener = Listener()
        let observation = signal.addObserver(listener, on: .postingThread) { _, _, _ in }
        observation.cancel()
        #expect(observation.description == "SignalObserver(Listener on Signal<String, Int>, postingThread, ended)")
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
        var connection: SignalObserver?
        do {
            let node = DominoNode(label: "short-lived")
            weakNode = node
            connection = signal.connect(to: node) { Ping(value: $0) }
        }
        #expect(weakNode == nil)
        #expect(connection?.isActive == false)
        signal.fire(1)
        #expect(signal.observerCount == 0)
    }
}

/// Main-actor state observing signals, as a view controller's.
@MainActor private final class ProgressScreen {
    var shown: [String] = []
}
