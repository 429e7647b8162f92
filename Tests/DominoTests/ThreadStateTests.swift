import Foundation
import Testing
@testable import Domino

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the C shim (`_DominoShims`) gives the library: each thread's state through a
/// thread-local word, freed when the thread exits, and the runtime's `swift_tryRetain`
/// called directly.
@Suite("Thread state and tryRetain through the C shim")
struct ThreadStateTests {
    @Test func aThreadReadsTheSameStateEachTimeAndAnotherThreadItsOwn() {
        let here = ThreadState.current
        #expect(ThreadState.current == here)
        let other = Box<UInt>(0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let state = ThreadState.current
            other.value = ThreadState.current == state ? UInt(bitPattern: state) : 0
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(other.value != 0)
        #expect(other.value != UInt(bitPattern: here))
    }

    @Test func aPostFromAThreadExitDestructorThatRunsAfterDominosOwnIsDelivered() {
        // Domino's key for freeing a thread's state exists before the test's key (this
        // thread has posted), so glibc runs its destructor first: the thread-local word
        // must be cleared with it, or the post below would use the freed state (the
        // address sanitizer's run reports that). The post makes a fresh state, which
        // the next round of destructors frees (the leak check's run would report it
        // otherwise).
        _ = ThreadState.current
        let root = DominoNode(label: "root")
        let delivered = Counter()
        let subscription = root.subscribe(Ping.self, on: .postingThread) { _ in delivered.increment() }
        defer { subscription.cancel() }
        let context = ExitContext(node: root)
        var key = pthread_key_t()
        #if canImport(Darwin)
        let created = pthread_key_create(&key, { pointer in
            Unmanaged<ExitContext>.fromOpaque(pointer).takeRetainedValue().postAndSignal()
        })
        #else
        let created = pthread_key_create(&key, { pointer in
            guard let pointer else { return }
            Unmanaged<ExitContext>.fromOpaque(pointer).takeRetainedValue().postAndSignal()
        })
        #endif
        #expect(created == 0)
        defer { pthread_key_delete(key) }
        let testKey = key
        let thread = Thread {
            _ = root.post(Ping(value: 1)) // this thread's state exists, and its destructor is registered
            pthread_setspecific(testKey, Unmanaged.passRetained(context).toOpaque())
        }
        thread.start()
        #expect(context.posted.wait(timeout: .now() + 10) == .success)
        #expect(delivered.value == 2)
    }

    @Test func tryRetainRetainsALiveObjectAndRefusesOneWhoseDeinitBegan() {
        let live = Probe()
        let pointer = Unmanaged.passUnretained(live).toOpaque()
        let retained = tryRetain(pointer)
        #expect(retained == pointer)
        if let retained { Unmanaged<Probe>.fromOpaque(retained).release() }

        let seen = Box<Bool?>(nil)
        do { _ = Probe(onDeinit: { seen.value = tryRetain($0) != nil }) }
        #expect(seen.value == false)
    }
}

private final class ExitContext: @unchecked Sendable {
    let node: DominoNode
    let posted = DispatchSemaphore(value: 0)
    init(node: DominoNode) { self.node = node }

    func postAndSignal() {
        _ = node.post(Ping(value: 2))
        posted.signal()
    }
}

private final class Probe {
    let onDeinit: ((UnsafeMutableRawPointer) -> Void)?
    init(onDeinit: ((UnsafeMutableRawPointer) -> Void)? = nil) { self.onDeinit = onDeinit }
    deinit { onDeinit?(Unmanaged.passUnretained(self).toOpaque()) }
}

private final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// The signal's lock (`WordLock`): a futex lock on Linux, `os_unfair_lock` on Apple
/// platforms.
@Suite("A word lock")
struct WordLockTests {
    @Test func threadsContendingForAWordLockNeverOverlapAndLoseNoIncrement() {
        // Four threads on two cores: most rounds find the lock held, so the slow
        // paths (marking it waited for, sleeping, waking one) run many times. The
        // count is a plain variable: an overlap would lose increments, and the thread
        // sanitizer's run would report the race.
        // Zeroed memory is a free lock, as in the graph lock's words and a signal's
        // fire line.
        nonisolated(unsafe) let lock = UnsafeMutableRawPointer.allocate(byteCount: WordLock.size, alignment: 8)
        lock.initializeMemory(as: UInt8.self, repeating: 0, count: WordLock.size)
        defer { lock.deallocate() }
        nonisolated(unsafe) var count = 0
        nonisolated(unsafe) var inside = 0
        nonisolated(unsafe) var overlaps = 0
        let threads = 4, rounds = 20_000
        let done = DispatchGroup()
        for _ in 0..<threads {
            done.enter()
            Thread {
                for _ in 0..<rounds {
                    WordLock.lock(lock)
                    inside += 1
                    if inside != 1 { overlaps += 1 }
                    count += 1
                    inside -= 1
                    WordLock.unlock(lock)
                }
                done.leave()
            }.start()
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        WordLock.lock(lock)
        #expect(count == threads * rounds)
        #expect(overlaps == 0)
        WordLock.unlock(lock)
    }
}

/// A plan's stages after the first live in memory that each thread keeps between
/// walks (`ThreadState.spareStages`), so that a post that needs a plan for several
/// stages allocates nothing in steady state (the benchmark's `typed.post.intercepted`
/// counts the allocations). Three stages: a post to two plain ones may be delivered
/// without a plan.
@Suite("A thread's spare memory for a walk's stages")
struct SpareStageTests {
    struct Level: Event { let depth: Int }

    /// Runs `body` on a thread of its own, whose state no other test touches.
    private func onFreshThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    @Test func aPostReachingThreeStagesLeavesItsStageMemoryForTheThreadsNextPostToReuse() {
        let seen = Box<[UnsafeRawPointer?]>([])
        let delivered = Log<String>()
        onFreshThread {
            // Two separate chains, posted in turn: a reused list must start empty, or
            // a post would reach the other chain's stage.
            var chains: [DominoNode] = []
            for name in ["a", "b"] {
                let top = DominoNode(label: "\(name).top")
                let middle = DominoNode(label: "\(name).middle")
                let bottom = DominoNode(label: "\(name).bottom")
                middle.mount(at: top)
                bottom.mount(at: middle)
                for (place, node) in [("top", top), ("middle", middle), ("bottom", bottom)] {
                    node.subscribe(Level.self, on: .postingThread) { _ in delivered.append("\(name).\(place)") }
                }
                chains += [top, middle, bottom]
            }
            for round in 0..<4 {
                chains[round % 2 == 0 ? 2 : 5].post(Level(depth: 0))
                let thread = ThreadState.current
                seen.value.append(UnsafeRawPointer(thread.pointee.spareStages.buffer.baseAddress))
                // Taken and given back by each post in turn: never a second list.
                #expect(thread.pointee.spareStagesNested.capacity == 0)
            }
            withExtendedLifetime(chains) {}
        }
        let a = ["a.bottom", "a.middle", "a.top"], b = ["b.bottom", "b.middle", "b.top"]
        #expect(delivered.entries == a + b + a + b)
        #expect(seen.value.count == 4)
        #expect(seen.value[0] != nil)
        #expect(Set(seen.value.map { $0.map(UInt.init(bitPattern:)) }).count == 1)
    }

    @Test func postsNestedDeeperThanTheSpareListsEachReachTheirStagesInRouteOrder() {
        // Each handler at the bottom posts the next level from the bottom again while
        // its own plan holds a spare list: four plans at once, two spares, so the
        // deeper ones grow memory of their own and the last ones ended free it.
        let delivered = Log<String>()
        onFreshThread {
            let top = DominoNode(label: "top")
            let middle = DominoNode(label: "middle")
            let bottom = DominoNode(label: "bottom")
            middle.mount(at: top)
            bottom.mount(at: middle)
            for (name, node) in [("top", top), ("middle", middle)] {
                node.subscribe(Level.self, on: .postingThread) { level in delivered.append("\(name):\(level.depth)") }
            }
            bottom.subscribe(Level.self, on: .postingThread) { [weak bottom] level in
                delivered.append("bottom:\(level.depth)")
                if level.depth < 3 { bottom?.post(Level(depth: level.depth + 1)) }
            }
            for _ in 0..<3 { bottom.post(Level(depth: 0)) }
        }
        let once = (0...3).flatMap { depth in ["bottom:\(depth)"] } + (0...3).reversed().flatMap { depth in ["middle:\(depth)", "top:\(depth)"] }
        #expect(delivered.entries == once + once + once)
    }
}
