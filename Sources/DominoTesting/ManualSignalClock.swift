import Foundation
@_spi(DominoTesting) import Domino

/// A clock that your test moves by hand, for signal subscriptions that sample or
/// debounce: no sleeps, nothing flaky.
///
/// Operators added inside ``run(_:)`` schedule on this clock instead of real time;
/// ``advance(by:)`` then runs, on the calling thread and in deadline order, every
/// timed call that came due:
///
/// ```swift
/// @Test @MainActor func searchWaitsForTypingToPause() {
///     let clock = ManualSignalClock()
///     let field = SearchField(), controller = SearchViewController()
///     clock.run { controller.observe(field) }   // its debounce(for:) uses the clock
///     field.onTextChange.fire("sw")
///     field.onTextChange.fire("swi")
///     clock.advance(by: .milliseconds(300))
///     #expect(controller.query == "swi")
/// }
/// ```
///
/// The callback then runs where the subscription's delivery mode says: in place for
/// ``DeliveryMode/postingThread``, and for a main-actor subscription when
/// `advance(by:)` is called on the main actor.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public final class ManualSignalClock: @unchecked Sendable {
    // Invariant (for `@unchecked Sendable`): every `var` is guarded by `lock`, and no
    // timer runs while it is held.
    private struct Timer {
        let id: Int
        let deadline: Duration
        let work: @Sendable () -> Void
    }

    private let lock = NSLock()
    private var now = Duration.zero
    private var timers: [Timer] = []
    private var lastID = 0

    /// Creates a clock at time zero with nothing scheduled.
    public init() {}

    /// Runs `body`; the `sample(every:)` and `debounce(for:)` operators added inside
    /// it (on this task) use this clock.
    public func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        try SignalTimerScope.$replacement.withValue(Timers(clock: self), operation: body)
    }

    /// Moves the clock on by `interval`, running each timed call that comes due, in
    /// deadline order, on this thread.
    public func advance(by interval: Duration) {
        let end = lock.withLock { now + interval }
        while let due = takeDue(by: end) {
            due.work()
        }
        lock.withLock { now = end }
    }

    /// How many timed calls are scheduled and have neither run nor been cancelled.
    public var pendingTimers: Int {
        lock.withLock { timers.count }
    }

    private func takeDue(by end: Duration) -> Timer? {
        lock.withLock {
            guard let index = timers.indices.min(by: { timers[$0].deadline < timers[$1].deadline }),
                  timers[index].deadline <= end else { return nil }
            let timer = timers.remove(at: index)
            now = timer.deadline
            return timer
        }
    }

    fileprivate func schedule(after interval: Duration, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let id: Int = lock.withLock {
            lastID += 1
            timers.append(Timer(id: lastID, deadline: now + interval, work: work))
            return lastID
        }
        return { [weak self] in self?.cancel(id) }
    }

    private func cancel(_ id: Int) {
        lock.withLock { timers.removeAll { $0.id == id } }
    }

    /// The clock as Domino's operators see it; a separate type so that the clock's
    /// public face shows no SPI.
    private struct Timers: SignalTimers {
        let clock: ManualSignalClock

        func schedule(after interval: Duration, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
            clock.schedule(after: interval, work)
        }
    }
}
