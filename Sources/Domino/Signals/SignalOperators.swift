import Dispatch

// Operators per subscription, as artman/Signals has them: values pass a chain of
// stages (filter, sample, debounce) on their way from a fire to the callback. A
// subscription without operators never reaches this file, and its fires test
// nothing more than before (see `ObserverFlags.staged`).

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal.Subscription {
    /// Lets only the values that pass `isIncluded` reach the callback
    /// (artman/Signals' `filter`).
    ///
    /// ```swift
    /// request.onProgress.subscribe(self) { controller, progress in
    ///     controller.showDone()
    /// }.filter { progress in progress >= 1 }
    /// ```
    ///
    /// The predicate runs on the thread that fires (or, after a timed operator, on
    /// its timer's thread), hence `@Sendable`; the callback still runs where
    /// ``SignalSubscription/deliveryMode`` says. Operators apply in the order they
    /// are added; a value the filter drops does not count as the next fire of a
    /// ``SignalSubscription/cancelsAfterNextFire`` subscription.
    ///
    /// - Returns: This subscription, to chain more operators.
    @discardableResult
    public func filter(_ isIncluded: @escaping @Sendable (repeat each Value) -> Bool) -> Self {
        append(SignalStage(filter: isIncluded))
    }

    /// Calls the callback at most once per `interval`, with the latest values
    /// (artman/Signals' `sample(every:)`, a throttle).
    ///
    /// ```swift
    /// search.onQueryChange.subscribe(self) { controller, query in
    ///     controller.showSuggestions(for: query)
    /// }.sample(every: .milliseconds(300))
    /// ```
    ///
    /// A value arriving when no sample is pending starts one: `interval` later the
    /// callback receives the latest value that arrived meanwhile, and the next value
    /// starts the next sample. Sampling is trailing only: even the first value of a
    /// burst reaches the callback `interval` after it arrived, never at once. The timer holds neither the observer nor the signal;
    /// cancelling the subscription cancels a pending sample.
    ///
    /// - Returns: This subscription, to chain more operators.
    @discardableResult
    public func sample(every interval: Duration) -> Self {
        sample(every: interval, timers: SignalTimerScope.current)
    }

    /// Calls the callback once the values stop coming for `interval`, with the
    /// last of them (artman/Signals' `debounce`).
    ///
    /// ```swift
    /// editor.onTextChange.subscribe(self) { controller, text in
    ///     controller.save(text)
    /// }.debounce(for: .seconds(1))
    /// ```
    ///
    /// Each value restarts the wait. The timer holds neither the observer nor the
    /// signal; cancelling the subscription cancels a pending call.
    ///
    /// - Returns: This subscription, to chain more operators.
    @discardableResult
    public func debounce(for interval: Duration) -> Self {
        debounce(for: interval, timers: SignalTimerScope.current)
    }

    /// `sample(every:)` on the given timers (tests pass a manual clock).
    @discardableResult
    func sample(every interval: Duration, timers: any SignalTimers) -> Self {
        append(SignalStage(SignalTimedStage(interval: interval, restarts: false, timers: timers)))
    }

    /// `debounce(for:)` on the given timers (tests pass a manual clock).
    @discardableResult
    func debounce(for interval: Duration, timers: any SignalTimers) -> Self {
        append(SignalStage(SignalTimedStage(interval: interval, restarts: true, timers: timers)))
    }

    /// Adds `stage` after the operators already there.
    private func append(_ stage: SignalStage<repeat each Value>) -> Self {
        let operators: SignalOperators<repeat each Value> = core.withLock {
            let earlier = self.operators
            let made = SignalOperators<repeat each Value>(stages: (earlier?.stages ?? []) + [stage], replacing: earlier)
            self.operators = made
            // Published before the bits below change: a fire that finds the
            // subscription staged finds its operators.
            flags.publishOperators(made)
            if earlier == nil {
                // Off the fast path (see ObserverFlags.staged): under the lock, as
                // the mode and the one-shot setters change these bits under it too.
                let state = flags.insert(ObserverFlags.staged)
                flags.remove(ObserverFlags.postingThread | ObserverFlags.cancelsAfterNextFire)
                if state & ObserverFlags.cancelsAfterNextFire != 0 { flags.insert(ObserverFlags.stagedOnce) }
                if state & ObserverFlags.postingThread != 0 { flags.insert(ObserverFlags.stagedPostingThread) }
            }
            return made
        }
        // Cancelled meanwhile: the canceller may have looked for timers before these
        // operators were published.
        if flags.load() & ObserverFlags.cancelled != 0 { operators.cancelTimers() }
        return self
    }

    /// Hands values that a timed stage held to the stages after it, `next` on, and
    /// then to the callback (a timer's continuation; see
    /// `SignalOperators.handOver(_:to:resumingAt:for:)`).
    func resumeOperators(_ value: repeat each Value, at next: Int) {
        let operators = core.withLock { self.operators }
        operators?.push(repeat each value, from: next, to: self)
    }
}

/// A subscription's operators, in order: immutable once made. Adding one makes new
/// operators with one stage more (a stage is shared by all that list it), published
/// for fires to read without the signal's lock (see `ObserverFlags`); the new ones
/// keep those they replaced, so a fire that loaded them finishes with them, and all
/// of them live until the subscription does. A handful of stages per subscription,
/// added when it is made: keeping the earlier lists costs a few words.
///
/// Fires run the stages in the caller's specialized code (inlinable): filters in
/// line, a timed stage handed the values with a continuation to the rest. Only the
/// continuation refers to the subscription, weakly, so a pending timer keeps nothing
/// alive.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
final class SignalOperators<each Value: Sendable>: Sendable {
    @usableFromInline let stages: [SignalStage<repeat each Value>]
    /// The operators these replaced (one stage fewer), or nil.
    private let replaced: SignalOperators<repeat each Value>?

    init(stages: [SignalStage<repeat each Value>], replacing replaced: SignalOperators<repeat each Value>?) {
        self.stages = stages
        self.replaced = replaced
    }

    /// Hands the values to stage `index` and on, and to `subscription`'s callback
    /// past the last one.
    @inlinable
    func push(_ value: repeat each Value, from index: Int, to subscription: Signal<repeat each Value>.Subscription) {
        var position = index
        while position < stages.count {
            // These operators keep their stages, and the fire keeps them: used
            // without retaining (measured: a retain and a release of the stage and
            // of the filter's context, about 60 instructions a stage).
            let passes = Unmanaged.passUnretained(stages[position])._withUnsafeGuaranteedRef { stage in
                if let timed = stage.timed {
                    handOver(repeat each value, to: timed, resumingAt: position &+ 1, for: subscription)
                    return false
                }
                return stage.passes(repeat each value)
            }
            guard passes else { return }
            position &+= 1
        }
        subscription.emit(repeat each value)
    }

    /// Gives the values to a timed stage, with a continuation to the stages from
    /// `next` on. The continuation holds the subscription weakly.
    @usableFromInline
    func handOver(
        _ value: repeat each Value, to timed: SignalTimedStage<repeat each Value>,
        resumingAt next: Int, for subscription: Signal<repeat each Value>.Subscription
    ) {
        timed.receive(repeat each value) { [weak subscription] (value: repeat each Value) in
            subscription?.resumeOperators(repeat each value, at: next)
        }
    }

    func cancelTimers() {
        for stage in stages { stage.cancel() }
    }
}

/// One operator: a filter, or a timed stage (sample, debounce). A class of its own
/// rather than subclasses: a class generic over a type pack cannot be inherited from.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
final class SignalStage<each Value: Sendable>: Sendable {
    /// A filter's predicate; for a timed stage, one that lets everything through
    /// (not optional: a fire calls it from the stage borrowed, without copying it).
    @usableFromInline let isIncluded: @Sendable (repeat each Value) -> Bool
    @usableFromInline let timed: SignalTimedStage<repeat each Value>?

    init(filter isIncluded: @escaping @Sendable (repeat each Value) -> Bool) {
        self.isIncluded = isIncluded
        timed = nil
    }

    init(_ timed: SignalTimedStage<repeat each Value>) {
        isIncluded = { (_: repeat each Value) in true }
        self.timed = timed
    }

    /// Whether a filter lets the values through (a timed stage is handled apart).
    @inlinable
    func passes(_ value: repeat each Value) -> Bool {
        isIncluded(repeat each value)
    }

    /// Drops what is pending; later values are still handled (the subscription
    /// checks for itself whether it ended).
    func cancel() {
        timed?.cancel()
    }
}

/// `sample(every:)` and `debounce(for:)`: holds the latest values until a timer
/// passes them on. Sampling starts the timer with the first value and lets later
/// ones replace the held values; debouncing restarts the timer with each value.
///
/// Invariant (for `@unchecked Sendable`): the `var`s are read and written only under
/// `lock`; values taken out are released after unlocking (they may hold a user
/// object's last reference).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
final class SignalTimedStage<each Value: Sendable>: @unchecked Sendable {
    typealias Next = @Sendable (repeat each Value) -> Void

    private let interval: Duration
    private let restarts: Bool
    private let timers: any SignalTimers
    private let lock = SignalLock()
    @exclusivity(unchecked) private var latest: (repeat each Value)?
    @exclusivity(unchecked) private var next: Next?
    /// Cancels the pending timer; nil when none is pending.
    @exclusivity(unchecked) private var pending: (@Sendable () -> Void)?
    /// Tells a timer that fires after it was replaced or cancelled that it is stale.
    @exclusivity(unchecked) private var generation = 0

    /// A sample, or a debounce when `restarts`.
    init(interval: Duration, restarts: Bool, timers: any SignalTimers) {
        self.interval = interval
        self.restarts = restarts
        self.timers = timers
    }

    func receive(_ value: repeat each Value, next: @escaping Next) {
        var values: (repeat each Value)? = (repeat each value)
        let replaced: (@Sendable () -> Void)? = lock.withLock {
            swap(&values, &latest)
            self.next = next
            guard restarts || pending == nil else { return nil }
            let replaced = pending
            generation &+= 1
            let current = generation
            // The timer holds this stage weakly: it keeps nothing alive.
            pending = timers.schedule(after: interval) { [weak self] in
                self?.timerFired(current)
            }
            return replaced
        }
        replaced?()
        withExtendedLifetime(values) {}
    }

    private func timerFired(_ current: Int) {
        // Locked by hand: a function value in a generic closure's result is not
        // supported for variadic function types.
        var values: (repeat each Value)? = nil
        var next: Next? = nil
        lock.lock()
        if generation == current {
            swap(&values, &latest)
            next = self.next
            pending = nil
        }
        lock.unlock()
        guard let values, let next else { return }
        next(repeat each values)
    }

    func cancel() {
        let dropped: ((repeat each Value)?, (@Sendable () -> Void)?) = lock.withLock {
            generation &+= 1
            var values: (repeat each Value)? = nil
            swap(&values, &latest)
            let timer = pending
            pending = nil
            return (values, timer)
        }
        dropped.1?()
        withExtendedLifetime(dropped.0) {}
    }
}

// MARK: Timers

/// Where timed operators schedule their work: the dispatch queues in production, a
/// manual clock in tests (DominoTesting's `ManualSignalClock`).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@_spi(DominoTesting)
public protocol SignalTimers: Sendable {
    /// Runs `work` once, `interval` from now, on a thread of the timers' choice;
    /// returns what cancels it (harmless once it ran).
    func schedule(after interval: Duration, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

/// The timers that operators made in the current task use: the dispatch queues,
/// unless a test replaced them for a scope (DominoTesting's `ManualSignalClock.run`).
/// Read once per operator, when it is added, never on a fire.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@_spi(DominoTesting)
public enum SignalTimerScope {
    @TaskLocal public static var replacement: (any SignalTimers)?

    static var current: any SignalTimers {
        replacement ?? DispatchSignalTimers.shared
    }
}

/// The production timers: a dispatch queue's deadlines, on the wall-independent
/// clock `DispatchTime` uses.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
struct DispatchSignalTimers: SignalTimers {
    static let shared = DispatchSignalTimers()
    private let queue = DispatchQueue(label: "Domino.signalTimers", qos: .userInitiated, attributes: .concurrent)

    func schedule(after interval: Duration, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let item = DispatchWorkItem(block: work)
        let (seconds, attoseconds) = interval.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let delay: DispatchTimeInterval = nanoseconds.overflow
            ? .never
            : .nanoseconds(Int(clamping: nanoseconds.partialValue &+ attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + delay, execute: item)
        let cancellable = CancellableWorkItem(item: item)
        return { cancellable.item.cancel() }
    }
}

/// A work item to cancel from another thread: `DispatchWorkItem` is thread-safe
/// (Apple's SDK marks it `Sendable`; swift-corelibs-libdispatch does not yet).
private struct CancellableWorkItem: @unchecked Sendable {
    let item: DispatchWorkItem
}

/// A small lock for the operators' state.
final class SignalLock: @unchecked Sendable {
    private let mutex = PlatformMutex.make()

    deinit { PlatformMutex.free(mutex) }

    func lock() { PlatformMutex.lock(mutex) }

    func unlock() { PlatformMutex.unlock(mutex) }

    @inline(__always)
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        PlatformMutex.lock(mutex)
        defer { PlatformMutex.unlock(mutex) }
        return try body()
    }
}
