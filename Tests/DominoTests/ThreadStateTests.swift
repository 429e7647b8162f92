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
