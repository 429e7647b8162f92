/// The state of one signal observer that a firing thread reads without a lock.
///
/// A fire reads an observer's flags once per delivery, from any thread, while
/// `cancel()` or a change of ``SignalSubscription/cancelsAfterNextFire`` may write them
/// from another: the word must be atomic (see `AtomicWord`).
///
/// The word lives in its own allocation so that its address never moves; it holds a
/// small bit set, stored as a pointer's bit pattern. It is never dereferenced.
///
/// The allocation has a second word: the subscription's operators (a
/// `SignalOperators`, unretained), 0 until the first operator is added, for fires to
/// read without the signal's lock (see `Signal.Subscription.operators`). Two words
/// take the same block as one: 32 bytes with glibc's allocator, 16 with Apple's.
@usableFromInline
struct ObserverFlags: @unchecked Sendable {
    // Computed, not stored, so that inlined code folds them to constants.

    /// Cancelled or removed: no delivery starts afterwards, queued ones included.
    @inlinable static var cancelled: UInt { 1 << 0 }
    /// A ``SignalSubscription/cancelsAfterNextFire`` observer whose one delivery was
    /// claimed by a fire: later fires skip it, the claimed delivery still runs.
    @inlinable static var spent: UInt { 1 << 1 }
    /// ``SignalSubscription/cancelsAfterNextFire`` is on.
    @inlinable static var cancelsAfterNextFire: UInt { 1 << 2 }
    /// The delivery mode is ``DeliveryMode/postingThread``: the fire path tests this
    /// bit instead of copying the mode (and retaining its queue) under the lock.
    @inlinable static var postingThread: UInt { 1 << 3 }
    /// The subscription has operators (filter, sample, debounce). It then keeps
    /// neither `postingThread` nor `cancelsAfterNextFire` (that one moves to
    /// `stagedOnce`), so that fires take the slow path, which hands the values to
    /// the operators, and the fast path need not test this bit.
    @inlinable static var staged: UInt { 1 << 4 }
    /// ``SignalSubscription/cancelsAfterNextFire`` of a subscription with operators:
    /// claimed when values come out of them rather than when a fire reaches it.
    @inlinable static var stagedOnce: UInt { 1 << 5 }
    /// ``DeliveryMode/postingThread`` of a subscription with operators: values that
    /// come out of them reach the callback on the thread they come out on, without
    /// the mode being copied under the lock.
    @inlinable static var stagedPostingThread: UInt { 1 << 6 }
    /// The delivery mode is ``DeliveryMode/mainThread`` (the mode of subscriptions
    /// made in main-actor code): a fire on the main thread calls the callback in
    /// place without copying the mode under the lock.
    @inlinable static var mainThread: UInt { 1 << 7 }
    /// The callback was written in main-actor code: it runs only on the main
    /// thread (or the main queue), whatever the mode says. Such a subscription
    /// never has `postingThread` or `stagedPostingThread`; a delivery elsewhere
    /// hops to the main queue (see `Signal.Subscription.deliverInMode`). Set once,
    /// at init.
    @inlinable static var mainActorCallback: UInt { 1 << 8 }

    /// Cancelled or spent: fires skip the observer.
    @inlinable static var ended: UInt { cancelled | spent }

    @usableFromInline let word: UnsafeMutablePointer<UnsafeRawPointer?>

    init(_ initial: UInt) {
        word = .allocate(capacity: 2)
        word.initialize(to: UnsafeRawPointer(bitPattern: initial))
        (word + 1).initialize(to: nil)
    }

    /// Frees the words; called once, by the owning observer's deinit.
    func deallocate() {
        word.deinitialize(count: 2)
        word.deallocate()
    }

    /// The operators' address as last published (an acquiring load), or 0.
    @inlinable
    func loadOperators() -> UInt {
        AtomicWord.load(UnsafeMutableRawPointer(word + 1))
    }

    /// Publishes `operators` for fires (a releasing store). The caller keeps them
    /// alive for as long as the subscription lives.
    func publishOperators(_ operators: AnyObject) {
        AtomicWord.storeReleasing(UnsafeMutableRawPointer(word + 1), UInt(bitPattern: Unmanaged.passUnretained(operators).toOpaque()))
    }

    /// The current flags (an acquiring load).
    @inlinable
    func load() -> UInt {
        AtomicWord.load(UnsafeMutableRawPointer(word))
    }

    /// Sets `bits`; returns the flags as they were before.
    @discardableResult
    func insert(_ bits: UInt) -> UInt {
        AtomicWord.insert(UnsafeMutableRawPointer(word), bits)
    }

    /// Clears `bits`; returns the flags as they were before.
    @discardableResult
    func remove(_ bits: UInt) -> UInt {
        AtomicWord.remove(UnsafeMutableRawPointer(word), bits)
    }

    /// Sets `bits` unless one of `blockers` is set; true when it did.
    @usableFromInline
    func insert(_ bits: UInt, unlessAnyOf blockers: UInt) -> Bool {
        var expected = load()
        while expected & blockers == 0 {
            if exchange(expected: &expected, desired: expected | bits) { return true }
        }
        return false
    }

    /// One compare-and-swap; on failure `expected` becomes the current value.
    @inline(__always)
    private func exchange(expected: inout UInt, desired: UInt) -> Bool {
        AtomicWord.compareExchange(UnsafeMutableRawPointer(word), expected: &expected, desired: desired)
    }
}
