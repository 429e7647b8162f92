#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Android)
@preconcurrency import Android
#else
#error("Domino needs pthreads.")
#endif
internal import _DominoShims

/// The only place that knows which C mutex and thread-local API the platform has.
///
/// Everything else in Domino talks to `PlatformMutex`, `WordLock` and
/// `ThreadLocalSlot`, so no other file needs `#if os(...)`.
enum PlatformMutex {
    /// Bytes one mutex needs; callers may give it more (padding against false sharing).
    static var size: Int { MemoryLayout<pthread_mutex_t>.size }

    static func initialize(_ raw: UnsafeMutableRawPointer) {
        let mutex = raw.bindMemory(to: pthread_mutex_t.self, capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let error = pthread_mutex_init(mutex, nil)
        precondition(error == 0, "pthread_mutex_init failed: \(error)")
    }

    /// A mutex in memory of its own, for `free(_:)` to end.
    static func make() -> UnsafeMutableRawPointer {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        initialize(raw)
        return raw
    }

    /// Ends a mutex from `make()` and frees its memory.
    static func free(_ raw: UnsafeMutableRawPointer) {
        let mutex = raw.assumingMemoryBound(to: pthread_mutex_t.self)
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        raw.deallocate()
    }

    @inline(__always)
    static func lock(_ raw: UnsafeMutableRawPointer) {
        pthread_mutex_lock(raw.assumingMemoryBound(to: pthread_mutex_t.self))
    }

    /// Gives the processor to another thread that is ready to run, if any.
    static func yieldProcessor() {
        sched_yield()
    }

    @inline(__always)
    static func unlock(_ raw: UnsafeMutableRawPointer) {
        pthread_mutex_unlock(raw.assumingMemoryBound(to: pthread_mutex_t.self))
    }
}

/// A lock of one 32-bit word, for critical sections of a few instructions that every
/// call of a hot path takes (a signal's fire): `os_unfair_lock` on Apple platforms;
/// elsewhere a futex lock (0 free, 1 held, 2 held with waiters, the third mutex of
/// Drepper's "Futexes Are Tricky"), whose uncontended lock and unlock are one
/// atomic instruction each, inline, where a pthread mutex's round trip cost a fire
/// about 60 instructions in glibc's calls. A waiter sleeps in the kernel, as with a
/// mutex. Not recursive; the same thread must unlock. Usable from inline code so
/// that the inlinable `Signal.fire` takes its signal's lock without a call.
@usableFromInline
enum WordLock {
    /// Bytes one lock needs, in memory whose address does not change while it is
    /// used (the graph lock's stripes and a signal's fire line give it more); zero
    /// bytes are a free lock.
    static var size: Int {
        #if canImport(Darwin)
        MemoryLayout<os_unfair_lock>.size
        #else
        MemoryLayout<UInt32>.size
        #endif
    }

    @inlinable @inline(__always)
    static func lock(_ raw: UnsafeMutableRawPointer) {
        #if canImport(Darwin)
        os_unfair_lock_lock(raw.assumingMemoryBound(to: os_unfair_lock.self))
        #else
        var seen: UInt32 = 0
        if !AtomicWord.compareExchangeAcquiring32(raw, expected: &seen, desired: 1) { lockSlowly(raw, seen: seen) }
        #endif
    }

    /// Takes the lock if it is free; true when it did.
    @inline(__always)
    static func tryLock(_ raw: UnsafeMutableRawPointer) -> Bool {
        #if canImport(Darwin)
        os_unfair_lock_trylock(raw.assumingMemoryBound(to: os_unfair_lock.self))
        #else
        var seen: UInt32 = 0
        return AtomicWord.compareExchangeAcquiring32(raw, expected: &seen, desired: 1)
        #endif
    }

    @inlinable @inline(__always)
    static func unlock(_ raw: UnsafeMutableRawPointer) {
        #if canImport(Darwin)
        os_unfair_lock_unlock(raw.assumingMemoryBound(to: os_unfair_lock.self))
        #else
        if AtomicWord.decrementReleasing32(raw) != 1 { unlockSlowly(raw) }
        #endif
    }

    #if !canImport(Darwin)
    /// The lock was held (`seen` 1 or 2): marks it as waited for (2) and sleeps
    /// until an unlock wakes this thread, then takes it, still marked 2 (another
    /// waiter may sleep; the unlock that finds 2 wakes one).
    @usableFromInline @inline(never)
    static func lockSlowly(_ raw: UnsafeMutableRawPointer, seen: UInt32) {
        var state = seen
        if state != 2 { state = AtomicWord.exchangeAcquiring32(raw, 2) }
        while state != 0 {
            _domino_futex_wait(raw.assumingMemoryBound(to: CUnsignedInt.self), 2)
            state = AtomicWord.exchangeAcquiring32(raw, 2)
        }
    }

    /// The lock was marked as waited for: frees it and wakes one waiter.
    @usableFromInline @inline(never)
    static func unlockSlowly(_ raw: UnsafeMutableRawPointer) {
        AtomicWord.storeReleasing32(raw, 0)
        _domino_futex_wake_one(raw.assumingMemoryBound(to: CUnsignedInt.self))
    }
    #endif
}

/// A small mutex for state that is not part of the node graph (sinks, settings).
final class Mutex<Value>: @unchecked Sendable {
    private let raw: UnsafeMutableRawPointer
    private var value: Value

    init(_ value: Value) {
        self.value = value
        raw = PlatformMutex.make()
    }

    deinit {
        PlatformMutex.free(raw)
    }

    @inline(__always)
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        PlatformMutex.lock(raw)
        defer { PlatformMutex.unlock(raw) }
        return try body(&value)
    }
}

/// One pointer per thread, with a destructor run when the thread exits. Set only: the
/// thread state is read through a C thread-local word (see `ThreadState`), and this
/// key is kept for its destructor.
struct ThreadLocalSlot: @unchecked Sendable {
    private let key: pthread_key_t

    init(destructor: @convention(c) (UnsafeMutableRawPointer) -> Void) {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let error = pthread_key_create(&key, destructor)
        #else
        // Glibc declares the destructor's argument optional.
        let error = pthread_key_create(&key, unsafeBitCast(destructor, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self))
        #endif
        precondition(error == 0, "pthread_key_create failed: \(error)")
        self.key = key
    }

    func set(_ pointer: UnsafeMutableRawPointer?) {
        pthread_setspecific(key, pointer)
    }
}
