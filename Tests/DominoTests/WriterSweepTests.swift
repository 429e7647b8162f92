import Foundation
import Testing
@testable import Domino

/// A writer that retires a table while a walk borrows it reclaims the table itself
/// once it has unlocked (its sweep), and the walk's unpin leaves the table to that
/// sweep; what the sweep still finds borrowed goes back to the unpins (see
/// `GraphLock.LimboFlag`).
///
/// These tests set a hook that every writer's sweep calls and read limbo as a whole,
/// so another suite's walks and writes in parallel would break them (and the whole
/// suite's writers would read the hook while a test sets it): they run only in a
/// process of their own, as CI runs them,
/// `DOMINO_WRITER_SWEEPS=1 swift test --filter WriterSweepTests` (and under the
/// thread and address sanitizers). In the whole suite's run they are skipped.
@Suite(
    "A writer's sweep of what it retired",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["DOMINO_WRITER_SWEEPS"] == "1")
)
struct WriterSweepTests {
    /// A node with one subscriber, a walk's delivery pin taken on this thread (as a
    /// post's), and the node's table about to be replaced by `replace()`.
    private struct PinnedTable {
        let node = DominoNode(label: "node")
        let pins = ThreadState.current.pointee.pins
        let parity: Int
        weak var table: HandlerTable?

        init() {
            node.subscribe(Ping.self, on: .postingThread) { _ in }
            parity = GraphLock.pinForDelivery(pins)
            let node = node
            table = graphLock.withShared { node.slots.table(for: .of(Ping.self))?.takeUnretainedValue() }
        }

        /// Replaces the pinned table: a second subscriber.
        func replace() {
            node.subscribe(Ping.self, on: .postingThread) { _ in }
        }

        func unpin() {
            GraphLock.unpin(pins, parity: parity)
        }
    }

    /// Runs `body` with `hook` called at the start of every writer's sweep.
    private func whileSweepsBegin(with hook: @escaping () -> Void, _ body: () -> Void) {
        GraphLock.sweepBegins = hook
        defer { GraphLock.sweepBegins = nil }
        body()
    }

    @Test func anUnpinWhileTheWriterIsAboutToSweepLeavesTheTableToThatSweep() {
        let pinned = PinnedTable()
        var sweeps = 0
        var aliveAfterTheUnpin = false
        whileSweepsBegin(with: {
            sweeps += 1
            // The walk ends between the write and its sweep: its unpin must not
            // reclaim (the writer does, on memory it has just written).
            pinned.unpin()
            aliveAfterTheUnpin = pinned.table != nil
        }) {
            pinned.replace()
        }
        #expect(sweeps == 1)
        #expect(aliveAfterTheUnpin, "the unpin reclaimed what the writer's sweep was about to")
        #expect(pinned.table == nil, "the writer's sweep left the table it retired in limbo")
        #expect(graphLock.tablesInLimbo == 0)
    }

    @Test func aTableStillBorrowedWhenTheSweepEndsIsReclaimedByTheWalksUnpin() {
        let pinned = PinnedTable()
        pinned.replace()
        // The sweep's reclaim found the walk still pinned and left the table to it.
        #expect(pinned.table != nil, "released while a walk could still borrow it")
        pinned.unpin()
        #expect(pinned.table == nil, "the walk's unpin left the table in limbo after the sweep gave it up")
        #expect(graphLock.tablesInLimbo == 0)
    }

    @Test func anUnpinWhileTheSweepGivesUpIsSeenByTheSweep() {
        let pinned = PinnedTable()
        var aliveAfterTheUnpin = false
        // The walk ends after the sweep's reclaim found it pinned and before that
        // reclaim leaves the table to the unpins: the unpin left it to the sweep,
        // which must look at the pins again.
        GraphLock.limboStillBorrowed = {
            pinned.unpin()
            aliveAfterTheUnpin = pinned.table != nil
        }
        defer { GraphLock.limboStillBorrowed = nil }
        pinned.replace()
        #expect(aliveAfterTheUnpin, "the unpin reclaimed what the writer's sweep was about to")
        #expect(pinned.table == nil, "the sweep left the table in limbo after the walk that borrowed it ended")
        #expect(graphLock.tablesInLimbo == 0)
    }

    @Test func aSweepThatCannotTakeTheLockIsFinishedByWhoeverHoldsIt() {
        let pinned = PinnedTable()
        // A walk holding the first stripe (under which the sweep's reclaim tries the
        // lock) while the sweep runs: the sweep asks and returns.
        whileSweepsBegin(with: { graphLock.lockShared(stripe: 0) }) {
            pinned.replace()
        }
        pinned.unpin()
        #expect(pinned.table != nil, "reclaimed under a stripe held by another walk")
        graphLock.unlockShared(stripe: 0)
        #expect(pinned.table == nil, "the holder of the first stripe did not reclaim when it unlocked")
        #expect(graphLock.tablesInLimbo == 0)
    }

    @Test func aWriteFromInsideAHandlerLeavesWhatItRetiredToTheWalksUnpin() {
        let node = DominoNode(label: "node")
        let replaced = WeakBox<HandlerTable>(nil)
        let aliveInTheHandler = Counter()
        var sweeps = 0
        node.subscribe(Ping.self, on: .postingThread) { [unowned node] _ in
            replaced.value = graphLock.withShared { node.slots.table(for: .of(Ping.self))?.takeUnretainedValue() }
            node.subscribe(Ping.self, on: .postingThread) { _ in }
            if replaced.value != nil { aliveInTheHandler.increment() }
        }
        whileSweepsBegin(with: { sweeps += 1 }) {
            node.post(Ping(value: 1))
        }
        // The handler's own walk borrows the table: a sweep could only wait for it.
        #expect(sweeps == 0)
        #expect(aliveInTheHandler.value == 1)
        #expect(replaced.value == nil, "the post's unpin left the table its handler retired in limbo")
        #expect(graphLock.tablesInLimbo == 0)
    }

    @Test func nothingIsLeftInLimboOnceAPosterAndAWriterStop() {
        // Unpins racing sweeps: whatever order they meet in, once both threads have
        // stopped nothing may wait in limbo (an unpin that left its table to a sweep
        // that had already looked at the pins would leave it there for good).
        let posted = DominoNode(label: "posted")
        posted.subscribe(Ping.self, on: .postingThread) { _ in }
        let written = DominoNode(label: "written")
        var leftBehind = 0
        for _ in 0..<300 {
            let stop = Flag()
            let stopped = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                while !stop.isSet { posted.post(Ping(value: 0)) }
                stopped.signal()
            }
            for _ in 0..<30 {
                written.subscribe(Pong.self, on: .postingThread) { _ in }.cancel()
                posted.subscribe(Pong.self, on: .postingThread) { _ in }.cancel()
            }
            stop.set()
            stopped.wait()
            if graphLock.tablesInLimbo != 0 { leftBehind += 1 }
        }
        #expect(leftBehind == 0, "\(leftBehind) rounds of 300 left tables in limbo")
    }
}

