/// The subscriptions of a signal, in the order they were made: slots that fires
/// read without the lock.
///
/// A fire reads the list's `count` under the signal's lock and says that it reads
/// the list, then reads the slots below that count after unlocking, and says that
/// it is done: most fires in a hazard slot of their thread (see `SignalCore`,
/// "Reading the list"), fires nested deeper than those slots go by counting
/// themselves in and out here (`firing`, alone on the cache line before the slots).
/// The core changes a list in place only where no fire can be reading, which keeps
/// every change O(1) amortized:
/// - Adding fills the slot at `count`, which no fire that started earlier reads.
/// - Removing clears the entry's slot (see ``cleared``) when no fire reads the list
///   (none can start while the core holds the lock). Otherwise it copies the other
///   entries into a new list, as every change did before, and retires the old one:
///   the last fire still iterating it releases it. Copies made this way are at most
///   one per fire that overlapped them, and cost what such a fire costs.
/// - A full list is copied into one with room for as many again, and cleared slots
///   are copied away once they outnumber the filled ones, so each such copy costs
///   at most a constant times the changes since the last one, and a fire never
///   passes more cleared slots than entries.
///
/// A fire counted in and out with one atomic add each, inline, where it retained
/// and released the list (about 45 instructions a fire more, measured: the runtime's
/// calls check the object's counts and flags). The count is also what the core
/// asks where it asked whether it held the only reference. (An earlier design
/// counted fires in and out under the lock: a second lock round trip per fire,
/// measured 30% slower single-threaded, 57 against 41 ns for one observer. The one
/// before that made a new list on every change: O(N) per subscribe and cancel.)
///
/// The count has a cache line of its own (a fire writes it twice, the slots only
/// change with subscriptions): when it shared its line with the first slots, each
/// fire on another processor made the line move once more to read them
/// (`signal.fire.1.contended`, issue 28: 62.2 to 56.9 ns a fire from two threads,
/// medians of 20 alternating runs). It costs a list 56 bytes.
///
/// The list holds a strong reference to each entry, stored as an address in
/// memory of its own so that reading one retains nothing (an array element would
/// be retained by the reader). Fires load slots atomically (an ordinary load on
/// x86, a load-acquire on arm64), so that the thread sanitizer sees them ordered
/// with the store that clears a slot.
///
/// Invariants (for `@unchecked Sendable`): `count` and the slots are written only
/// under the core's lock; a slot is written once when filled, and at most once more,
/// atomically, when cleared, only while no fire reads the list. Every slot below
/// `count` holds a retained entry's address or ``cleared``'s. `firing` is twice the
/// fires counted in, plus one once the core retired the list; retiring it while
/// fires are in takes a reference that the last fire out (the one that takes the
/// word to exactly one) releases. The runtime orders a deinit after every
/// other thread's release, so the deinit reads the slots without the lock.
@usableFromInline
final class ObserverList: @unchecked Sendable {
    /// The slots filled so far, cleared ones included. Guarded by the core's lock.
    @usableFromInline @exclusivity(unchecked) var count = 0
    let capacity: Int
    /// `count` slots, each the address of a retained entry, or of ``cleared``;
    /// the line before them holds `firing` (see above).
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
        let placeholder = SignalSubscription(core: core, observer: core, observerType: SignalCore.self, delivery: .postingThread, mainActorCallback: false)
        placeholder.flags.insert(ObserverFlags.cancelled)
        return placeholder
    }

    /// The address a cleared slot holds.
    static var clearedAddress: UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(cleared).toOpaque())
    }

    /// The list's address, as hazard slots hold it (see `SignalCore`, "Reading the
    /// list").
    var address: UInt {
        UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
    }

    /// An empty list with room for `capacity` entries.
    init(capacity: Int) {
        self.capacity = capacity
        let words = Self.lineWords
        // At least one slot, so that `base` points into the block: the leak checker
        // takes a block that only a pointer past its end reaches for a leak.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: (words + max(capacity, 1)) * MemoryLayout<UnsafeRawPointer?>.stride, alignment: Self.lineSize)
        let memory = raw.bindMemory(to: UnsafeRawPointer?.self, capacity: words + capacity)
        memory.initialize(repeating: nil, count: words)
        base = memory + words
    }

    deinit {
        let cleared = count == 0 ? nil : Self.clearedAddress
        for index in 0..<count where base[index] != cleared {
            Unmanaged<SignalSubscription>.fromOpaque(base[index]!).release()
        }
        (base - Self.lineWords).deallocate()
    }

    /// The word that counts fires in and out, a cache line before the slots at
    /// `base`.
    @inlinable @inline(__always)
    static func firing(_ base: UnsafeMutablePointer<UnsafeRawPointer?>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(base - lineWords)
    }

    /// The bytes of the line that `firing` starts, which holds nothing else.
    @usableFromInline static var lineSize: Int { 64 }

    /// `lineSize` in slots (8 with 64-bit pointers, 16 with 32-bit ones).
    @usableFromInline static var lineWords: Int { lineSize / MemoryLayout<UnsafeRawPointer?>.stride }

    /// True while a fire is counted in. Lock held (no fire can start).
    var isBeingFired: Bool {
        AtomicWord.load(Self.firing(base)) >= 2
    }

    /// Counts a fire in. Lock held.
    @inlinable @inline(__always)
    func countFireIn() {
        _ = AtomicWord.add(Self.firing(base), 2)
    }

    /// Counts a fire out of the list whose slots are at `base`; the last fire out
    /// of a retired list releases it.
    @inlinable @inline(__always)
    static func countFireOut(_ list: Unmanaged<ObserverList>, base: UnsafeMutablePointer<UnsafeRawPointer?>) {
        if AtomicWord.add(firing(base), -2) == 1 { lastFireOut(list) }
    }

    /// Releases a retired list that the last fire left (it may hold the last
    /// references to entries, and so to what their callbacks capture).
    @usableFromInline
    @inline(never)
    static func lastFireOut(_ list: Unmanaged<ObserverList>) {
        list.release()
    }

    /// For tests (`SignalRetireTests`): runs, given the list, when `retire()` has marked it,
    /// before it decides about its reference (the signal's lock held: the hook must
    /// not fire that signal). Nil otherwise; set
    /// only by a suite that runs in a process of its own.
    @exclusivity(unchecked) nonisolated(unsafe) static var retiredWhileFired: ((ObserverList) -> Void)?

    /// Marks the list retired: the core no longer lists it. Lock held. When a fire
    /// is still counted in, takes a reference for the last fire out to release; the
    /// core releases its own after unlocking either way.
    ///
    /// The reference is taken before the mark, never after: fires count out without
    /// the lock, and the last one out of a list already marked releases at once, so
    /// with the reference taken after the mark, that release could come first and
    /// free the list under the writer, whose retain then came too late (seen once in
    /// a full test run under load, and every other run with a pause put between the
    /// mark and the retain; `SignalRetireTests`).
    func retire() {
        let reference = Unmanaged.passUnretained(self).retain()
        let before = AtomicWord.insert(Self.firing(base), 1)
        Self.retiredWhileFired?(self)
        if before < 2 {
            // No fire was counted in, and none can start (the lock is held): none
            // will release it. The core's reference is still held, so this release
            // is never the last.
            reference.release()
        }
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
