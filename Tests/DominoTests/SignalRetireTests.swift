import Dispatch
import Foundation
import Testing
@testable import Domino

/// A signal's list replaced while a fire reads it is retired: the last fire out of it
/// releases it (see `ObserverList.retire()`).
///
/// The test sets a hook that every retire of a list being fired calls, under that
/// signal's lock, so another suite's signals in parallel would call it too: it runs
/// only in a process of its own, as CI runs it,
/// `DOMINO_SIGNAL_RETIRES=1 swift test --filter SignalRetireTests` (and under the
/// thread and address sanitizers). In the whole suite's run it is skipped.
@Suite(
    "A signal's list retired while a fire reads it",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["DOMINO_SIGNAL_RETIRES"] == "1")
)
struct SignalRetireTests {
    private final class Observer: Sendable {}

    /// The fire ends, and counts itself out, between the retire's mark and the rest
    /// of the retire: when the retire took its reference after the mark, that fire's
    /// release freed the list under it (a crash).
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aFireThatEndsAsItsListIsRetiredLeavesTheListAliveUntilTheRetireIsDone() {
        let signal = Signal<Int>()
        let observer = Observer()
        let inCallback = DispatchSemaphore(value: 0)
        let mayReturn = DispatchSemaphore(value: 0)
        let fireEnded = DispatchSemaphore(value: 0)
        let calls = Counter()
        signal.subscribe(observer, on: .postingThread) { _, _ in
            calls.increment()
            inCallback.signal()
            mayReturn.wait()
        }
        let leaving = signal.subscribe(observer, on: .postingThread) { _, _ in calls.increment() }
        weak let firedList: ObserverList? = signal.core.withLock { signal.core.list }

        Thread.detachNewThread {
            // Deeper than the hazard slots go: the fire counts itself in on the list.
            insideNestedFires(GraphLock.signalHazardSlots) { signal.fire(1) }
            fireEnded.signal()
        }
        inCallback.wait()
        #expect(signal.core.withLock { signal.core.list.isBeingFired })
        var hookRuns = 0
        let fired = signal.core.withLock { ObjectIdentifier(signal.core.list) }
        ObserverList.retiredWhileFired = { retired in
            // Not the lists of the signal that nests the fire, retired as it ends.
            guard ObjectIdentifier(retired) == fired else { return }
            hookRuns += 1
            // The fire returns from its callback, passes the cancelled entry and
            // counts out, taking the marked list's count to one: it releases the
            // retire's reference, not the core's.
            mayReturn.signal()
            fireEnded.wait()
        }
        defer { ObserverList.retiredWhileFired = nil }
        // A fire reads the list: the remaining entry moves to a new list and the
        // old one is retired.
        leaving.cancel()

        #expect(hookRuns == 1)
        #expect(calls.value == 1)
        #expect(firedList == nil)
        #expect(signal.subscriptionCount == 1)
        mayReturn.signal()  // for the next fire's callback
        signal.fire(2)
        #expect(calls.value == 2)
    }
}

/// Runs `body` inside signal fires nested `depth` deep on this thread (a signal
/// whose callback fires it again), so that a fire made in `body` is that deep.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
func insideNestedFires(_ depth: Int, _ body: @escaping @Sendable () -> Void) {
    final class Nester: Sendable {}
    let nest = Signal<Int>()
    let nester = Nester()
    nest.subscribe(nester, on: .postingThread) { [weak nest] _, level in
        if level < depth { nest?.fire(level + 1) } else { body() }
    }
    nest.fire(1)
}
