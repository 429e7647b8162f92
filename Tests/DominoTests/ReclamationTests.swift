import Foundation
import Testing
@testable import Domino

/// Something a handler captures, so a test can see when the handler is released.
private final class Canary: @unchecked Sendable {
    func chirp() {}
}

/// How long a table replaced during a walk lives: walks borrow handler tables
/// without retaining them, so a replaced table waits in limbo until no walk that
/// may borrow it is running (see `GraphLock`).
// Serialized: objects retired for lock-free readers are never young, so the churn
// of `readersPinnedWithoutALock...` waits for any walk pinned meanwhile, and would
// count against `churnElsewhereWhileAHandlerBlocks...`'s bound if both ran at once.
@Suite("Reclamation of handler tables", .checksLeaks, .serialized)
struct ReclamationTests {
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
        let waiting = graphLock.tablesInLimbo
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

    @Test func readersPinnedWithoutALockNeverUseAnObjectFreedWhileTheyRead() {
        // The reclamation boundary of performance round 3's lock-free reads: readers
        // pin without the stripe and read an object through a published word while
        // a writer replaces it in a loop and retires each one it replaces. A reader
        // that met a freed object would read its deinit's mark (and the sanitizers
        // would report the access); every retired object must still be freed.
        let freed = Counter()
        nonisolated(unsafe) let slot = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<UInt>.size, alignment: MemoryLayout<UInt>.alignment)
        slot.initializeMemory(as: UInt.self, to: PublishedProbe.retainedWord(serial: 0, freed: freed))
        let stop = Flag()
        let misreads = Counter()
        let readers = 3
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<readers {
            Thread.detachNewThread {
                let stripe = ThreadState.current.pointee.stripe
                var bad = 0
                while !stop.isSet {
                    let parity = graphLock.pinWithoutLock(stripe: stripe)
                    PublishedProbe.borrow(AtomicWord.load(slot)) { probe in
                        if probe.check != ~probe.serial { bad += 1 }
                    }
                    graphLock.unpinWithoutLock(stripe: stripe, parity: parity)
                }
                for _ in 0..<bad { misreads.increment() }
                finished.signal()
            }
        }
        let replacements = 20_000
        for serial in 1...replacements {
            graphLock.withExclusive { graveyard in
                let replaced = AtomicWord.load(slot)
                AtomicWord.storeReleasing(slot, PublishedProbe.retainedWord(serial: serial, freed: freed))
                graveyard.retireShared(PublishedProbe.take(replaced))
            }
        }
        stop.set()
        for _ in 0..<readers { finished.wait() }
        // No reader left: each pin and unpin lets the epoch move on and frees what
        // waited (walks of other tests, pinned meanwhile, may hold it a little longer).
        let stripe = ThreadState.current.pointee.stripe
        var polls = 0
        while freed.value < replacements && polls < 2_000 {
            graphLock.unpinWithoutLock(stripe: stripe, parity: graphLock.pinWithoutLock(stripe: stripe))
            Thread.sleep(forTimeInterval: 0.005)
            polls += 1
        }
        #expect(misreads.value == 0)
        #expect(freed.value == replacements)
        _ = PublishedProbe.take(AtomicWord.load(slot))
        slot.deallocate()
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
        let canaries = (0..<200).map { _ in WeakBox<Canary>(nil) }
        for box in canaries {
            var subscription: Subscription? = {
                let canary = Canary()
                box.value = canary
                return node.subscribe(Ping.self, on: .postingThread) { _ in canary.chirp() }
            }()
            subscription?.cancel()
            subscription = nil
        }
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

/// A flag one thread sets and others poll.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}

/// An object published through one word for `readersPinnedWithoutALock...`: alive,
/// its `check` is the complement of its serial; its deinit clears it.
private final class PublishedProbe: @unchecked Sendable {
    let serial: Int
    var check: Int
    private let freed: Counter

    private init(serial: Int, freed: Counter) {
        self.serial = serial
        check = ~serial
        self.freed = freed
    }

    deinit {
        check = 0
        freed.increment()
    }

    /// A new probe, retained once by the word returned.
    static func retainedWord(serial: Int, freed: Counter) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(PublishedProbe(serial: serial, freed: freed)).toOpaque())
    }

    /// The probe in `word`, lent to `body` without retaining it.
    static func borrow(_ word: UInt, _ body: (PublishedProbe) -> Void) {
        Unmanaged<PublishedProbe>.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// The probe in `word`, with the word's reference.
    static func take(_ word: UInt) -> PublishedProbe {
        Unmanaged<PublishedProbe>.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped).takeRetainedValue()
    }
}
