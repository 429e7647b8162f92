/// The subscriptions of a signal, in the order they were made: slots that fires
/// read without the lock.
///
/// A fire retains the list and reads its `count` under the signal's lock, then
/// reads the slots below that count after unlocking. The core changes a list in
/// place only where no fire can be reading:
/// - Adding writes the slot at `count`, which no fire that started earlier reads.
/// - Removing clears the entry's slot when the list is uniquely referenced (no fire
///   holds it; a fire retains it under the lock, so none can start meanwhile), and
///   otherwise copies the listed entries into a new list, as every change did
///   before; fires still iterating the old list keep it alive, and the next
///   removals change the new one in place. Either way removal is O(1) amortized:
///   a copy costs no more than the fire it waits for.
/// - Cleared slots are copied away once they outnumber the listed entries, and a
///   full list is copied into one with room for as many again, so that each copy
///   costs at most a constant times the changes since the last one.
///
/// The list holds a strong reference to each entry, stored as an address in
/// memory of its own so that reading one is a plain load (an array element would
/// be retained by the reader). Fires load slots atomically (one ordinary load on
/// x86 and arm64): the sanitizer does not see the reference count that tells the
/// core no fire is left, so a plain load would look like a race with the store
/// that clears the slot. (An earlier design counted fires in and out as readers
/// under the lock instead of retaining the list: a second lock round trip per fire,
/// measured 30% slower single-threaded, 57 against 41 ns for one observer. The one
/// before this made a new list on every change: O(N) per subscribe and cancel.)
///
/// Invariants (for `@unchecked Sendable`): `count` and the slots are written only
/// under the core's lock; a slot is written once when filled, and at most once more,
/// atomically, to clear it, only while the list is uniquely referenced. The
/// runtime orders a deinit after every other thread's release, so the deinit reads
/// the slots without the lock.
@usableFromInline
final class ObserverList: @unchecked Sendable {
    /// The slots filled so far, cleared ones included. Guarded by the core's lock.
    @usableFromInline @exclusivity(unchecked) var count = 0
    let capacity: Int
    /// `count` slots, each the address of a retained entry or nil once cleared.
    @usableFromInline let base: UnsafeMutablePointer<UnsafeRawPointer?>

    /// An empty list with room for `capacity` entries.
    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        for index in 0..<count {
            if let address = base[index] {
                Unmanaged<SignalSubscription>.fromOpaque(address).release()
            }
        }
        base.deallocate()
    }

    /// The entry in `slot`, not retained, or nil if the slot was cleared: one
    /// acquiring load, for fires.
    @inlinable
    static func load(_ slot: UnsafeMutablePointer<UnsafeRawPointer?>) -> Unmanaged<SignalSubscription>? {
        // The primitive is typed for class references; it loads the address
        // without retaining it (see ObserverFlags).
        _stdlib_atomicAcquiringLoadARCRef(object: UnsafeMutableRawPointer(slot).assumingMemoryBound(to: SignalSubscription?.self))
    }

    /// True when `append(_:)` has a free slot. Lock held.
    var hasRoom: Bool {
        count < capacity
    }

    /// Retains `entry` into the next free slot, and records the slot in it;
    /// `hasRoom` must be true. Lock held.
    func append(_ entry: SignalSubscription) {
        entry.slot = count
        (base + count).initialize(to: Unmanaged.passRetained(entry).toOpaque())
        count += 1
    }

    /// Clears slot `index`, which holds `entry`, and gives up the list's
    /// reference to it; the caller must hold another. Only while the list is
    /// uniquely referenced. Lock held.
    func clear(_ index: Int, holding entry: SignalSubscription) {
        var expected: UnsafeRawPointer? = UnsafeRawPointer(Unmanaged.passUnretained(entry).toOpaque())
        // Atomic for the sanitizer's sake only (see above): nothing else writes it.
        _ = _stdlib_atomicCompareExchangeStrongPtr(object: base + index, expected: &expected, desired: nil)
        Unmanaged.passUnretained(entry).release()
    }

    /// The entries, in order, retaining each. Lock held.
    var entries: [SignalSubscription] {
        var listed: [SignalSubscription] = []
        listed.reserveCapacity(count)
        for index in 0..<count {
            if let address = base[index] {
                listed.append(Unmanaged<SignalSubscription>.fromOpaque(address).takeUnretainedValue())
            }
        }
        return listed
    }
}
