import Foundation
import Testing
@testable import Domino

/// How long a table replaced during a walk lives: walks borrow handler tables
/// without retaining them, so a replaced table waits in limbo until no walk that
/// may borrow it is running (see `GraphLock`).
// Serialized, so that one test's walks do not hold back another's tables.
@Suite("Reclamation of handler tables", .checksLeaks, .serialized)
struct ReclamationTests {
    @Test func aWalkThatEndsWhileAWriterHoldsTheLockLeavesItsReclaimingToTheWriter() {
        let node = DominoNode(label: "node")
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        weak var replaced: HandlerTable?
        let pins = ThreadState.current.pointee.pins
        // A walk's pin, then its node's table replaced: the old table waits in
        // limbo for the walk, whose unpin is what makes it safe to release.
        let parity = GraphLock.pinForDelivery(pins)
        graphLock.withShared { replaced = node.slots.table(for: .of(Ping.self))?.takeUnretainedValue() }
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        #expect(replaced != nil)

        let waited = whileAWriterHoldsTheLock { GraphLock.unpin(pins, parity: parity) }.waitedForTheWriter
        #expect(!waited, "the walk's unpin waited for the writer holding the lock")
        // The writer reclaimed when it unlocked (other suites' walks may still hold
        // the epoch a little longer, and the next unlock reclaims then).
        for _ in 0..<400 where replaced != nil {
            _ = graphLock.tablesInLimbo
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(replaced == nil)
    }

    @Test func handlerCancelledOutsideAnyWalkOfItsNodeIsReleased() async {
        // Other tests' walks may be running on other threads, and a table retired
        // meanwhile waits for them; so "released" here means "soon", not "at once".
        let node = DominoNode(label: "node")
        let released = WeakBox<Canary>(nil)
        // The handle is the handler, so it goes too: only the node's table and
        // limbo could keep the canary alive.
        var subscription: Subscription? = {
            let canary = Canary()
            released.value = canary
            return node.subscribe(Ping.self, on: .postingThread) { _ in canary.chirp() }
        }()
        node.post(Ping(value: 1))
        subscription?.cancel()
        subscription = nil
        #expect(await eventually { released.value == nil })
    }

    @Test func handlerCancelledDuringAnotherThreadsWalkIsReleasedWhenThatWalkEnds() async {
        let node = DominoNode(label: "node")
        let inHandler = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let walkEnded = DispatchSemaphore(value: 0)
        node.subscribe(Ping.self, on: .postingThread) { _ in
            inHandler.signal()
            resume.wait()
        }
        let released = WeakBox<Canary>(nil)
        var cancelled: Subscription? = {
            let canary = Canary()
            released.value = canary
            return node.subscribe(Ping.self, on: .postingThread) { _ in canary.chirp() }
        }()
        Thread.detachNewThread {
            node.post(Ping(value: 1))
            walkEnded.signal()
        }
        inHandler.wait()
        // The walk on the other thread borrows the table that holds the canary's
        // handler; cancelling replaces the table, which must outlive that walk.
        cancelled?.cancel()
        cancelled = nil
        #expect(released.value != nil, "released while a walk could still borrow it")
        for churn in 0..<100 { node.subscribe(Pong.self, on: .postingThread) { _ in }.cancel(); _ = churn }
        resume.signal()
        walkEnded.wait()
        #expect(await eventually { released.value == nil })
    }

    @Test func churnElsewhereWhileAHandlerBlocksIsReleasedWithoutWaitingForIt() {
        let blocked = DominoNode(label: "blocked")
        let inHandler = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let walkEnded = DispatchSemaphore(value: 0)
        let heard = Counter()
        blocked.subscribe(Ping.self, on: .postingThread) { _ in
            inHandler.signal()
            resume.wait()
        }
        blocked.subscribe(Ping.self, on: .postingThread) { _ in heard.increment() }
        Thread.detachNewThread {
            blocked.post(Ping(value: 1))
            walkEnded.signal()
        }
        inHandler.wait()
        // 10,000 subscribe/cancel pairs retire 20,000 tables, all made after the
        // blocked walk began: it cannot have borrowed them, so they need not wait.
        let busy = DominoNode(label: "busy")
        for _ in 0..<10_000 {
            busy.subscribe(Pong.self, on: .postingThread) { _ in }.cancel()
            busy.post(Pong(text: "churn"))
        }
        // The blocked walk's own node churns too: the table it borrowed must wait.
        blocked.subscribe(Pong.self, on: .postingThread) { _ in }.cancel()
        // Tables only: objects retired for readers without a lock (LockFreeReadTests,
        // which may run meanwhile) are not what this bound is about.
        let waiting = graphLock.retiredInLimbo(HandlerTable.self)
        #expect(waiting < 2_000, "\(waiting) tables wait for one blocked handler")
        resume.signal()
        walkEnded.wait()
        #expect(heard.value == 1)             // the walk went on with its borrowed table
    }

    @Test func walkThatBorrowedARetiredTableStillRunsItsRemainingHandlersSafely() {
        // A stress version: walks on two threads while a third replaces the tables
        // they borrow thousands of times. A table released too early would be a
        // use-after-free (the thread sanitizer run in CI sees those); every walk must
        // still deliver to the steady subscriber exactly once.
        let node = DominoNode(label: "node")
        let steady = Counter()
        node.subscribe(Ping.self, on: .postingThread) { _ in steady.increment() }
        let wrong = Counter()
        runConcurrently(3) { worker in
            if worker == 0 {
                for _ in 0..<3_000 {
                    let canary = Canary()
                    node.subscribe(Ping.self, on: .postingThread) { _ in canary.chirp() }.cancel()
                }
            } else {
                for value in 0..<3_000 {
                    if node.post(Ping(value: value)).deliveries < 1 { wrong.increment() }
                }
            }
        }
        #expect(steady.value == 6_000)
        #expect(wrong.value == 0)
    }

    @Test func retiredTablesAreReleasedWhileMoreThreadsThanStripesKeepPosting() {
        // Eleven threads post without pause, so several share a stripe and their
        // walks overlap; tables retired meanwhile must still be released while they
        // post (epochs move new walks to the other count), not only once they stop.
        let node = DominoNode(label: "busy")
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        let stop = Flag()
        let stopped = DispatchSemaphore(value: 0)
        let posters = 11
        for _ in 0..<posters {
            Thread.detachNewThread {
                while !stop.isSet { node.post(Ping(value: 0)) }
                stopped.signal()
            }
        }
        let canaries = (0..<200).map { _ in subscribedAndCancelled(at: node) }
        var polls = 0
        while canaries.contains(where: { $0.value != nil }) && polls < 2_000 {
            Thread.sleep(forTimeInterval: 0.005)
            polls += 1
        }
        let releasedWhilePosting = canaries.allSatisfy { $0.value == nil }
        stop.set()
        for _ in 0..<posters { stopped.wait() }
        #expect(releasedWhilePosting)
    }

    @Test func asyncRequestWaitingForAnAnswerDoesNotHoldBackReleases() async {
        // Had the waiting request pinned its stripe, the cancelled responder would
        // stay alive until the gate opens, which happens only after the check.
        let node = DominoNode(label: "node")
        let answering = AsyncGate()
        node.respond(to: Ask.self) { _ async -> String? in
            await answering.arriveAndWait()
            return "answer"
        }
        let request = Task { try await node.request(Ask(question: "?")) }
        await answering.waitForArrival()
        let released = WeakBox<Canary>(nil)
        var subscription: Subscription? = {
            let canary = Canary()
            released.value = canary
            return node.respond(to: Ask.self, on: .postingThread) { (_: Ask) -> String? in canary.chirp(); return nil }
        }()
        subscription?.cancel()
        subscription = nil
        #expect(await eventually { released.value == nil })
        await answering.open()
        #expect(try! await request.value == "answer")
    }
}

/// Lets a test hold an async responder until it says so.
private actor AsyncGate {
    private var arrived = false
    private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false
    private var openWaiters: [CheckedContinuation<Void, Never>] = []

    func arriveAndWait() async {
        arrived = true
        arrivalWaiters.forEach { $0.resume() }
        arrivalWaiters = []
        if isOpen { return }
        await withCheckedContinuation { openWaiters.append($0) }
    }

    func waitForArrival() async {
        if arrived { return }
        await withCheckedContinuation { arrivalWaiters.append($0) }
    }

    func open() {
        isOpen = true
        openWaiters.forEach { $0.resume() }
        openWaiters = []
    }
}


/// Each thread's pin counts live in a pin record of its own (`ThreadState.pins`),
/// which only that thread writes (see `GraphLock`, "Pin records"): records are
/// never freed, a thread that exits gives its record back, and a new thread takes
/// a free one before it makes one.
@Suite("Pin records of threads that come and go", .checksLeaks, .serialized)
struct PinRecordReclamationTests {
    @Test func threadsAliveAtOnceEachPinInARecordOfTheirOwn() {
        // Four threads report their record and wait until all have: all alive at
        // once, so none can have given its record back to another. A record
        // handed to two threads would lose pins, whose counts are plain stores.
        let records = Log<UInt>()
        let arrived = DispatchGroup(), release = DispatchSemaphore(value: 0), finished = DispatchGroup()
        let threads = 4
        for _ in 0..<threads {
            arrived.enter()
            finished.enter()
            Thread.detachNewThread {
                records.append(UInt(bitPattern: ThreadState.current.pointee.pins))
                arrived.leave()
                release.wait()
                finished.leave()
            }
        }
        #expect(arrived.wait(timeout: .now() + 30) == .success)
        let mine = UInt(bitPattern: ThreadState.current.pointee.pins)
        let owned = GraphLock.pinRecordCounts.owned
        for _ in 0..<threads { release.signal() }
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(Set(records.entries + [mine]).count == threads + 1)
        #expect(owned >= threads + 1)
    }

    @Test func aThreadThatExitsGivesItsPinRecordToTheNextNewThread() {
        // One thread after another, each joined before the next starts: each takes
        // the record the one before gave back. Threads of tests running meanwhile
        // may take a few more; without reuse there would be one per thread.
        let node = DominoNode(label: "posted from short-lived threads")
        let heard = Counter()
        let subscription = node.subscribe(Ping.self, on: .postingThread) { _ in heard.increment() }
        defer { subscription.cancel() }
        let before = GraphLock.pinRecordCounts.all
        let threads = 1_000
        for _ in 0..<threads {
            onThreadJoined { node.post(Ping(value: 0)) }
        }
        let grown = GraphLock.pinRecordCounts.all - before
        #expect(heard.value == threads)
        #expect(grown < 200, "\(grown) pin records made for \(threads) threads that ran one after another")
    }

    @Test func tablesRetiredWhileThreadsComeAndGoAreAllReleasedAndNoPostIsLost() {
        // Three threads each start short-lived threads one after another, which post
        // up a two-node chain and exit (their records given back and taken again),
        // while this thread subscribes and cancels handlers at the bottom node: each
        // cancel retires a table that those walks may borrow, and writers read the
        // records as threads take and give them back.
        let top = DominoNode(label: "top"), bottom = DominoNode(label: "bottom")
        bottom.mount(at: top)
        let steady = Counter(), spawned = Counter()
        let steadySubscription = top.subscribe(Ping.self, on: .postingThread) { _ in steady.increment() }
        defer { steadySubscription.cancel() }
        let stop = Flag(), done = DispatchGroup()
        let spawners = 3, postsPerThread = 20
        for _ in 0..<spawners {
            done.enter()
            Thread.detachNewThread {
                while !stop.isSet {
                    onThreadJoined {
                        for _ in 0..<postsPerThread { bottom.post(Ping(value: 0)) }
                    }
                    spawned.increment()
                }
                done.leave()
            }
        }
        var canaries: [WeakBox<Canary>] = []
        let deadline = Date().addingTimeInterval(20)
        while spawned.value < 90 && Date() < deadline {
            canaries.append(subscribedAndCancelled(at: bottom))
            // A pause between writes: a writer in a tight loop would hold every
            // stripe most of the time, and slow the suites running beside this one.
            Thread.sleep(forTimeInterval: 0.000_2)
        }
        stop.set()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(spawned.value >= 90)
        #expect(steady.value == spawned.value * postsPerThread)
        // Released by the last walks' unpins or the writes' sweeps, no later write
        // needed (a short wait: the last reclaim may still run on another thread).
        var polls = 0
        while canaries.contains(where: { $0.value != nil }) && polls < 1_000 {
            Thread.sleep(forTimeInterval: 0.005)
            polls += 1
        }
        #expect(canaries.allSatisfy { $0.value == nil }, "\(canaries.count { $0.value != nil }) of \(canaries.count) cancelled handlers still alive")
    }
}
