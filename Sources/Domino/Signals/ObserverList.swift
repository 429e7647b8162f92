/// The subscriptions of a signal, in the order they were made: slots that fires
/// read without the lock.
///
/// A fire retains the list and reads its `count` under the signal's lock, then
/// reads the slots below that count after unlocking. The core changes a list in
/// place only where no fire can be reading, which keeps every change O(1)
/// amortized:
/// - Adding fills the slot at `count`, which no fire that started earlier reads.
/// - Removing clears the entry's slot (see ``cleared``) when the list is uniquely
///   referenced: no fire holds it, and none can take it while the core holds the
///   lock. Otherwise it copies the other entries into a new list, as every change
///   did before; the fires still iterating the old one keep it alive, and later
///   removals clear slots of the new one. Copies made this way are at most one per
///   fire that overlapped them, and cost what such a fire costs.
/// - A full list is copied into one with room for as many again, and cleared slots
///   are copied away once they outnumber the filled ones, so each such copy costs
///   at most a constant times the changes since the last one, and a fire never
///   passes more cleared slots than entries.
///
/// The list holds a strong reference to each entry, stored as an address in
/// memory of its own so that reading one retains nothing (an array element would
/// be retained by the reader). Fires load slots atomically (an ordinary load on
/// x86, a load-acquire on arm64): the thread sanitizer does not see the reference
/// count that tells the core no fire is left, and would take a plain load for a
/// race with the store that clears the slot. (An earlier design counted fires in
/// and out as readers under the lock instead of retaining the list: a second lock
/// round trip per fire, measured 30% slower single-threaded, 57 against 41 ns for
/// one observer. The one before this made a new list on every change: O(N) per
/// subscribe and cancel.)
///
/// Invariants (for `@unchecked Sendable`): `count` and the slots are written only
/// under the core's lock; a slot is written once when filled, and at most once more,
/// atomically, when cleared, only while the list is uniquely referenced. Every slot
/// below `count` holds a retained entry's address or ``cleared``'s. The runtime
/// orders a deinit after every other thread's release, so the deinit reads the
/// slots without the lock.
@usableFromInline
final class ObserverList: @unchecked Sendable {
    /// The slots filled so far, cleared ones included. Guarded by the core's lock.
    @usableFromInline @exclusivity(unchecked) var count = 0
    let capacity: Int
    /// `count` slots, each the address of a retained entry, or of ``cleared``.
    @usableFromInline let base: UnsafeMutablePointer<UnsafeRawPointer?>

    /// What a cleared slot holds: a subscription to no signal, cancelled from the
    /// start, so that fires skip it by the flags test they make for every entry
    /// anyway, not by one more test per slot. Slots do not retain it; it lives as
    /// long as the process.
    static let cleared: SignalSubscription = {
        #if DEBUG
        // Not recorded by a test's leak check: it lives as long as the process.
        return InstanceTracker.$current.withValue(nil) { makeCleared() }
        #else
        return makeCleared()
        #endif
    }()

    private static func makeCleared() -> SignalSubscription {
        let core = SignalCore(typeName: "cleared slot", maxSubscriptions: 0)
        let placeholder = SignalSubscription(core: core, observer: core, observerType: SignalCore.self, delivery: .postingThread)
        placeholder.flags.insert(ObserverFlags.cancelled)
        return placeholder
    }

    /// The address a cleared slot holds.
    static var clearedAddress: UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(cleared).toOpaque())
    }

    /// An empty list with room for `capacity` entries.
    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        let cleared = count == 0 ? nil : Self.clearedAddress
        for index in 0..<count where base[index] != cleared {
            Unmanaged<SignalSubscription>.fromOpaque(base[index]!).release()
        }
        base.deallocate()
    }

    /// The entry in `slot` (or ``cleared``), not retained: one acquiring load, for
    /// fires.
    @inlinable
    static func load(_ slot: UnsafeMutablePointer<UnsafeRawPointer?>) -> Unmanaged<SignalSubscription> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: AtomicWord.load(UnsafeMutableRawPointer(slot))).unsafelyUnwrapped)
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
        // Atomic for the sanitizer's sake only (see above): nothing else writes it.
        AtomicWord.storeReleasing(UnsafeMutableRawPointer(base + index), UInt(bitPattern: Self.clearedAddress))
        Unmanaged.passUnretained(entry).release()
    }

    /// The entries, in order, not retained; each stays alive while the list does.
    /// Lock held.
    func forEachEntry(_ body: (SignalSubscription) -> Void) {
        let cleared = count == 0 ? nil : Self.clearedAddress
        for index in 0..<count where base[index] != cleared {
            body(Unmanaged<SignalSubscription>.fromOpaque(base[index]!).takeUnretainedValue())
        }
    }

    /// The entries, in order, retaining each. Lock held.
    var entries: [SignalSubscription] {
        var listed: [SignalSubscription] = []
        listed.reserveCapacity(count)
        forEachEntry { listed.append($0) }
        return listed
    }
}
