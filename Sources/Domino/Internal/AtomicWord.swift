// Public only because the inlinable fire path (`Signal.fire`, `ObserverList.load`)
// reads an observer's slot with `AtomicWord.load`: inlinable code may use only
// what a public import brings. Nothing of Atomics appears in Domino's API.
public import Atomics

/// Word-sized atomics on raw memory: the one place that names an atomic type.
///
/// They come from `apple/swift-atomics` (`UnsafeAtomic`), which compiles each
/// operation to the processor's own instruction through the compiler's builtins
/// on every OS version Domino deploys to (iOS 13, macOS 10.15 and up), needs
/// nothing from the runtime, and is seen by the thread sanitizer as the atomics
/// they are. `Synchronization.Atomic` would be the natural type, but it needs
/// iOS 18 / macOS 15. Until session 9 these were the standard library's
/// underscored primitives for class references, which offered only an acquiring
/// load and a sequentially consistent compare-and-swap: an add was a
/// compare-and-swap loop (5.75 instructions against 1.25 for `lock xadd`) and a
/// store a compare-and-swap (6.25 against 2.37); see the CHANGELOG.
///
/// Every word these functions touch holds an `Int`'s or a pointer's bit pattern
/// and is only ever accessed through them (or before it is shared).
@usableFromInline
enum AtomicWord {
    @inlinable @inline(__always)
    static func atomic(_ word: UnsafeMutableRawPointer) -> UnsafeAtomic<UInt> {
        UnsafeAtomic(at: word.assumingMemoryBound(to: UInt.AtomicRepresentation.self))
    }

    /// An acquiring load of the word at `word`.
    @inlinable @inline(__always)
    static func load(_ word: UnsafeMutableRawPointer) -> UInt {
        atomic(word).load(ordering: .acquiring)
    }

    /// An acquiring load of the 32-bit word at `word` (counts and filters that a
    /// store header packs beside others; 32 bits on every platform, where a packed
    /// pointer-sized word would lose half its bits on arm64_32).
    @inline(__always)
    static func load32(_ word: UnsafeMutableRawPointer) -> UInt32 {
        UnsafeAtomic<UInt32>(at: word.assumingMemoryBound(to: UInt32.AtomicRepresentation.self)).load(ordering: .acquiring)
    }

    /// `atomic(_:)` for a 32-bit word.
    @inlinable @inline(__always)
    static func atomic32(_ word: UnsafeMutableRawPointer) -> UnsafeAtomic<UInt32> {
        UnsafeAtomic(at: word.assumingMemoryBound(to: UInt32.AtomicRepresentation.self))
    }

    /// Replaces the 32-bit word at `word` with `desired` if it holds `expected`,
    /// acquiring; else loads it into `expected`. True when it replaced it.
    @inlinable @inline(__always)
    static func compareExchangeAcquiring32(_ word: UnsafeMutableRawPointer, expected: inout UInt32, desired: UInt32) -> Bool {
        let (exchanged, original) = atomic32(word).compareExchange(expected: expected, desired: desired, ordering: .acquiring)
        expected = original
        return exchanged
    }

    /// Stores `value` into the 32-bit word at `word` and returns what it held,
    /// acquiring.
    @inline(__always)
    static func exchangeAcquiring32(_ word: UnsafeMutableRawPointer, _ value: UInt32) -> UInt32 {
        atomic32(word).exchange(value, ordering: .acquiring)
    }

    /// Subtracts 1 from the 32-bit word at `word` and returns what it held,
    /// releasing.
    @inlinable @inline(__always)
    static func decrementReleasing32(_ word: UnsafeMutableRawPointer) -> UInt32 {
        atomic32(word).loadThenWrappingDecrement(ordering: .releasing)
    }

    /// A releasing store of `value` into the 32-bit word at `word`.
    @inline(__always)
    static func storeReleasing32(_ word: UnsafeMutableRawPointer, _ value: UInt32) {
        UnsafeAtomic<UInt32>(at: word.assumingMemoryBound(to: UInt32.AtomicRepresentation.self)).store(value, ordering: .releasing)
    }

    /// A relaxed load of the word at `word`: for a word that only the calling
    /// thread writes (its own pin counts), whose last store it sees anyway.
    @inline(__always)
    static func loadRelaxed(_ word: UnsafeMutableRawPointer) -> UInt {
        atomic(word).load(ordering: .relaxed)
    }

    /// A sequentially consistent load of the word at `word`: ordered with every
    /// other sequentially consistent operation (the two sides of a Dekker-style
    /// check, such as a pin taken without a lock, need it).
    @inline(__always)
    static func loadSequentiallyConsistent(_ word: UnsafeMutableRawPointer) -> UInt {
        atomic(word).load(ordering: .sequentiallyConsistent)
    }

    /// Stores `value` into the word at `word` and returns what it held
    /// (sequentially consistent: on x86 one `xchg`, a full barrier).
    @inlinable @inline(__always)
    static func exchange(_ word: UnsafeMutableRawPointer, _ value: UInt) -> UInt {
        atomic(word).exchange(value, ordering: .sequentiallyConsistent)
    }

    /// A full fence: no load after it is performed before a store before it.
    @inline(__always)
    static func fence() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// A full fence right after an `add` (the reader's half of a Dekker-style check),
    /// where that add is not one already. On x86-64 it is: an `add` is a locked
    /// instruction, and loads and stores are not reordered with locked instructions
    /// (Intel's Software Developer's Manual, volume 3A, "Memory Ordering in P6 and
    /// More Recent Processor Families"); and a sequentially consistent
    /// read-modify-write acquires, so the compiler moves no later load above it. So
    /// nothing is emitted there. Elsewhere (ARM64), `fence()`.
    ///
    /// Measured on x86-64 (session 29): the fence was a second locked instruction in
    /// every walk's pin, about 7 ns of a 75 ns post (medians of six alternating runs
    /// of `typed.post.local.1`, 25 samples each: 75.4 to 68.0 ns).
    @inline(__always)
    static func fenceAfterAdd() {
        #if !arch(x86_64)
        fence()
        #endif
    }

    /// A sequentially consistent store of `value` into the word at `word`.
    @inline(__always)
    static func store(_ word: UnsafeMutableRawPointer, _ value: UInt) {
        atomic(word).store(value, ordering: .sequentiallyConsistent)
    }

    /// A relaxed store of `value` into the word at `word`: for a word whose
    /// readers are ordered with the store some other way (a lock both hold).
    @inlinable @inline(__always)
    static func storeRelaxed(_ word: UnsafeMutableRawPointer, _ value: UInt) {
        atomic(word).store(value, ordering: .relaxed)
    }

    /// A releasing store of `value` into the word at `word`: what was written
    /// before it is seen by a thread whose acquiring load sees `value`.
    @inline(__always)
    static func storeReleasing(_ word: UnsafeMutableRawPointer, _ value: UInt) {
        atomic(word).store(value, ordering: .releasing)
    }

    /// Stores `desired` if the word holds `expected` (sequentially consistent);
    /// otherwise `expected` becomes what it holds. True when it stored.
    @inline(__always)
    static func compareExchange(_ word: UnsafeMutableRawPointer, expected: inout UInt, desired: UInt) -> Bool {
        let (exchanged, original) = atomic(word).compareExchange(
            expected: expected, desired: desired, ordering: .sequentiallyConsistent)
        expected = original
        return exchanged
    }

    /// Adds `delta` to the word at `word`, which holds an `Int` (sequentially
    /// consistent); returns the sum.
    @inlinable @inline(__always)
    static func add(_ word: UnsafeMutableRawPointer, _ delta: Int) -> Int {
        UnsafeAtomic<Int>(at: word.assumingMemoryBound(to: Int.AtomicRepresentation.self))
            .wrappingIncrementThenLoad(by: delta, ordering: .sequentiallyConsistent)
    }

    /// Sets `bits` in the word at `word` (sequentially consistent); returns the
    /// word as it was before.
    @inlinable @inline(__always)
    static func insert(_ word: UnsafeMutableRawPointer, _ bits: UInt) -> UInt {
        atomic(word).loadThenBitwiseOr(with: bits, ordering: .sequentiallyConsistent)
    }

    /// Clears `bits` in the word at `word` (sequentially consistent); returns the
    /// word as it was before.
    @inline(__always)
    static func remove(_ word: UnsafeMutableRawPointer, _ bits: UInt) -> UInt {
        atomic(word).loadThenBitwiseAnd(with: ~bits, ordering: .sequentiallyConsistent)
    }
}

/// The address of an object's first stored property, found without retaining the
/// object. A Swift object starts with a header of two words (its metadata pointer
/// and its inline reference counts, two pointers long on every platform), and its
/// stored properties follow, at pointer alignment.
///
/// Not `_getUnsafePointerToStoredProperties`: its `AnyObject` parameter is retained
/// and released around the call in debug builds, and under the graph lock, reached
/// through an unretained node, that release can be the node's last: its deinit then
/// runs on the thread that holds the lock and waits for it.
@inline(__always)
func firstStoredProperty<Object: AnyObject>(of object: Object) -> UnsafeMutableRawPointer {
    firstStoredProperty(ofObjectAt: Unmanaged.passUnretained(object).toOpaque())
}

/// `firstStoredProperty(of:)` for the object at `address`, which is not touched.
@inline(__always)
func firstStoredProperty(ofObjectAt address: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
    address + 2 * MemoryLayout<UnsafeRawPointer>.stride
}

/// A word that writers publish for readers without a lock: writers hold the
/// exclusive lock and change it with releasing stores; readers under a stripe (and
/// the writer) read it plainly, readers pinned without a lock with an acquiring
/// load. What a `NodeListRef` and a `NodeSlotsRef` point at.
struct PublishedWord {
    let address: UnsafeMutableRawPointer

    @inline(__always)
    init(at address: UnsafeMutableRawPointer) {
        self.address = address
    }

    /// The word, read plainly: the caller holds the lock, so no writer runs, or is
    /// the writer.
    @inline(__always)
    var plain: UInt { address.load(as: UInt.self) }

    /// The word, loaded atomically (acquiring), for a reader pinned without a lock.
    @inline(__always)
    var acquired: UInt { AtomicWord.load(address) }

    /// Sets the word with a releasing store. Exclusive lock held.
    @inline(__always)
    func publish(_ new: UInt) {
        AtomicWord.storeReleasing(address, new)
    }
}
