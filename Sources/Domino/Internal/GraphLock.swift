internal import _DominoShims

/// The lock that guards the whole node graph: links, handler tables and settings.
///
/// It is a "big-reader" lock: one lock per stripe (a `WordLock`, free at zero, so
/// the static words need no set-up), each on its own cache lines.
/// A post (a reader) locks only its thread's stripe, so threads posting at the same
/// time neither wait for each other nor bounce a shared cache line; a mutation (a
/// writer: mount, subscribe, cancel, node deinit) locks every stripe in order.
/// Posts vastly outnumber mutations in event-driven code, so this trades a slower
/// write for the cheapest read a portable mutex allows.
///
/// Invariant: no user code (handler, deinit of a user object) ever runs while any
/// stripe is held. Writers hand what they remove back to the caller, which drops it
/// after unlocking (see `Graveyard`).
///
/// It also keeps handler tables alive for the walks that borrow them, without a
/// reference count that two threads posting at once would bounce between their
/// cores (read-copy-update with epochs):
/// - A walk *pins* while it runs: one of two counts in its thread's pin record
///   (see "Pin records" below), chosen by the parity of the current epoch.
///   (`pinWithoutLock` takes one without the stripe, counted apart, for the
///   lock-free reads that performance round 3 builds; what such readers may load
///   is retired with `Graveyard.retireShared`, and released at once when no such
///   reader is pinned.)
/// - A writer that replaces a table while any walk is pinned *retires* the old one
///   to a limbo, stamped with the current epoch, instead of releasing it.
/// - The epoch advances (new walks then pin the other parity) once the other
///   parity has no pins left on any stripe; a table retired in epoch `e` is
///   released once the epoch is past `e` and parity `e` has drained everywhere.
/// - A table *published* in the current epoch and retired in it is young: only
///   walks pinned in this epoch can have borrowed it, so it is released once the
///   current parity drains, even while a walk of the other parity still runs.
/// - Who releases what limbo holds: the writer that retired it, right after it
///   unlocks (its sweep), and what a walk still borrows then, the last walk of a
///   parity to unpin. A walk that unpins while a sweep is due leaves
///   the work to it, so that a thread posting while another writes in a loop does
///   not take the exclusive lock to free what the writer has just made.
/// So every retired table is released soon after the walks that were running when
/// it was retired have ended, however busy the threads are. A handler that runs for a
/// long time (a modal loop, a blocking wait) holds back only the tables that existed
/// when its walk began and were retired meanwhile (bounded by the graph's size then),
/// plus one epoch's batch: churn elsewhere is not held (measured: 100,000
/// subscribe/cancel pairs during a blocked handler grew the heap by 432 MB before
/// young tables). Async walks, which may wait for seconds, retain their tables instead.
final class GraphLock: @unchecked Sendable {
    static let stripeCount = 8
    /// Two cache lines per stripe keep adjacent-line prefetching from coupling them.
    private static let stripeStride = 128
    /// Where a stripe keeps the count of readers waiting for it: at the end of the
    /// mutex's line, which the writer that reads it holds (see `waiters(_:)`).
    private static let waitersOffset = 64 - MemoryLayout<Int>.stride

    /// Where the lock's words are: static storage of the C shim (`_domino_graph_words`),
    /// so that a walk reaches them without the `swift_once` that every access of
    /// `graphLock`, a global, costs (two a post). Zero until `init` initializes the
    /// mutexes; the pins, epoch and flags start at zero, and a zero walk gate is
    /// closed, so a walk that runs before `graphLock` exists takes the path that
    /// makes it.
    @inline(__always)
    private static var base: UnsafeMutableRawPointer { _domino_graph_words_address() }

    /// The current epoch: written under the exclusive lock (sequentially
    /// consistent), so any one stripe is enough to read it; read atomically by a pin
    /// taken without a lock (`pinWithoutLock`).
    private static var epoch: UInt {
        get { AtomicWord.load(epochWord) }
        set { AtomicWord.store(epochWord, newValue) }
    }
    /// Where the epoch lives: on the limbo flag's line region, a cache line of its own.
    private static var epochWord: UnsafeMutableRawPointer { base + Self.limboFlagOffset + 64 }
    /// Where `walkGate` lives: beside the epoch, which the same walks load.
    private static var walkGateWord: UnsafeMutableRawPointer { epochWord + MemoryLayout<UInt>.stride }
    /// Where `linkSequence` lives: beside the epoch.
    private static var linkSequenceWord: UnsafeMutableRawPointer { epochWord + 2 * MemoryLayout<UInt>.stride }
    /// Where `respondersExist` lives: beside the link sequence.
    private static var respondersWord: UnsafeMutableRawPointer { epochWord + 3 * MemoryLayout<UInt>.stride }

    /// True once a responder node was ever made (`ResponderRegistry.exist`, sticky),
    /// for walks down that collect without a lock: a responder's followers are not
    /// published, and a broadcast reads every responder's chain first. An acquiring
    /// load.
    static var respondersExist: Bool { AtomicWord.load(respondersWord) != 0 }

    /// Sets `respondersExist`. Exclusive lock held.
    func publishRespondersExist() {
        AtomicWord.storeReleasing(Self.respondersWord, 1)
    }

    /// Where `strictRequests` lives: beside the responders' word.
    private static var strictRequestsWord: UnsafeMutableRawPointer { epochWord + 4 * MemoryLayout<UInt>.stride }

    /// Where `responderMembership` lives: beside `strictRequests`.
    private static var responderMembershipWord: UnsafeMutableRawPointer { epochWord + 5 * MemoryLayout<UInt>.stride }

    /// `ResponderRegistry.membership`, in a word of its own: stored (releasing) under
    /// the exclusive lock, loaded (acquiring) under a stripe or without a lock, by
    /// `ChainCensus.check` after it read the chains it checks, outside the lock.
    static var responderMembership: UInt {
        get { AtomicWord.load(responderMembershipWord) }
        set { AtomicWord.storeReleasing(responderMembershipWord, newValue) }
    }

    /// Where `linksWritten` lives: beside `responderMembership`.
    private static var linksWrittenWord: UnsafeMutableRawPointer { epochWord + 6 * MemoryLayout<UInt>.stride }

    /// `ResponderRegistry.linksWritten`, in a word of its own: stored (releasing)
    /// under the exclusive lock, loaded (acquiring) under a stripe or without a lock,
    /// by a post that reads its route through responder nodes without one (see
    /// `DominoNode.collectAlongKnownChainsWithoutALock`).
    static var linksWritten: Int {
        get { Int(bitPattern: AtomicWord.load(linksWrittenWord)) }
        set { AtomicWord.storeReleasing(linksWrittenWord, UInt(bitPattern: newValue)) }
    }

    /// The process-wide `Diagnostics.reportsUnansweredRequests`, which every
    /// unanswered request reads: a word of its own, loaded and stored atomically
    /// without a lock, so that such a request, like every walk, never waits for a
    /// writer (it read the setting under the shared lock before).
    static var strictRequests: Bool {
        get { AtomicWord.load(strictRequestsWord) != 0 }
        set { AtomicWord.storeReleasing(strictRequestsWord, newValue ? 1 : 0) }
    }
    /// Tables (and removed handlers) retired while walks were pinned, by the epoch they were retired in,
    /// oldest first, young and old apart. At most two epochs wait at a time (see
    /// `advanceLocked`), so admitting and reclaiming cost the same however many
    /// tables wait. Guarded by the exclusive lock.
    @exclusivity(unchecked) private var limbo: [(tables: [AnyObject], epoch: UInt, young: Bool)] = []
    /// Where the words after the stripes start: the one that says whether unpins
    /// reclaim (`unpinsReclaimWord`), on a cache line of its own, then the epoch's
    /// line (see `epochWord`), then the limbo flag and the reclaim request, on a pair
    /// of lines of their own (`limboFlagWord`). Written under the exclusive lock (the
    /// request also by walks), read by `unpin` without any (atomically, as the pin
    /// counts are).
    private static var limboFlagOffset: Int { stripeCount * stripeStride }

    /// Opens the walk gate. Only the one `graphLock` may exist (its words are
    /// static). The other words are not written: they are zero in static storage (a
    /// stripe's lock, a `WordLock`, is free at zero), and a walk may already have
    /// pinned (`pinWithoutLock` runs before a walk reads the gate).
    fileprivate init() {
        precondition(WordLock.size <= Self.waitersOffset)
        precondition(Self.limboFlagOffset + 2 * Self.stripeStride <= _domino_graph_words_size(), "the C shim's graph words are too small")
        AtomicWord.storeReleasing(Self.walkGateWord, DeliveryMode.Code.published(.postingThread))
    }

    /// The current epoch, for stamping new tables. The caller holds a stripe.
    static var currentEpoch: UInt { epoch }

    /// The thread (its `ThreadState`'s address) that holds every other writer back,
    /// or 0; see `holdingOtherWritersBack`. Written and read under the exclusive lock.
    @exclusivity(unchecked) private var writersHeldBackBy: UInt = 0

    /// Runs `body` while writes from every other thread wait (for tests): counts of
    /// what a write does (links a refresh reads again after the link generation moved)
    /// are then the calling thread's own, however many tests write in parallel.
    /// Readers are not held back. Nothing in the library calls it.
    func holdingOtherWritersBack<R>(_ body: () throws -> R) rethrows -> R {
        lockExclusive()
        waitForOtherWritersHoldingBack()
        writersHeldBackBy = UInt(bitPattern: ThreadState.current)
        unlockExclusive()
        defer {
            lockExclusive()
            writersHeldBackBy = 0
            unlockExclusive()
        }
        return try body()
    }

    /// Waits, with the exclusive lock held on entry and on return but not meanwhile,
    /// until no other thread holds writers back.
    @inline(never)
    private func waitForOtherWritersHoldingBack() {
        let own = UInt(bitPattern: ThreadState.current)
        while writersHeldBackBy != 0 && writersHeldBackBy != own {
            unlockExclusive()
            PlatformMutex.yieldProcessor()
            lockExclusive()
        }
    }

    /// How many retired tables wait in limbo (for tests). Takes the exclusive lock.
    var tablesInLimbo: Int {
        lockExclusive()
        defer { unlockExclusive() }
        return limbo.reduce(0) { $0 + $1.tables.count }
    }

    /// How many retired objects of type `T` wait in limbo (for tests). Takes the
    /// exclusive lock.
    func retiredInLimbo<T: AnyObject>(_ type: T.Type, where isCounted: (T) -> Bool = { _ in true }) -> Int {
        lockExclusive()
        defer { unlockExclusive() }
        return limbo.reduce(0) { $0 + $1.tables.count { ($0 as? T).map(isCounted) ?? false } }
    }

    // MARK: Pin records

    // A thread's pin counts live in a pin record of its own (`ThreadState.pins`),
    // 128 bytes aligned to 128, so that no other thread writes its cache lines:
    // - word 0 and 1: walk pins of parity 0 and 1 (`pin`, `pinForDelivery`, `unpin`);
    // - word 2 and 3: pins of readers without a lock (`pinWithoutLock`);
    // - word 4: the next record (set before the record is shared, never changed);
    // - word 5: 1 while a thread owns the record, else 0;
    // - words 8 to 15: the observer lists that the thread's signal fires read, by
    //   nesting depth (`signalHazard`; see `SignalCore`'s "Reading the list").
    // Only the owning thread writes its counts, so a count that needs no barrier
    // (a delivery pin in its read pin's parity, a read pin given back under the
    // delivery pin) is a plain load and releasing store, where the counts a stripe
    // shared among its threads needed a locked add each (see
    // Maintainers/ReadsWithoutALock.md, "Pin records"). Writers (exclusive lock
    // held) read every record's counts. Records are never freed: a thread that
    // exits gives its record back (`giveBackPinRecord`) and a new thread takes a
    // free one first (`takePinRecord`), so there are as many as threads that ever
    // walked at one time (a thread pool's peak), linked from `pinRecordsWord`
    // (pushed with a compare-and-swap, never unlinked).

    /// The size and alignment of a pin record: two cache lines, so that adjacent-line
    /// prefetching does not couple two threads' records.
    private static let pinRecordSize = 128

    /// The word counting the walks of `record`'s thread pinned in epochs of
    /// `parity` that are still running.
    @inline(__always)
    private static func walkPins(_ record: UnsafeMutableRawPointer, parity: Int) -> UnsafeMutableRawPointer {
        record + parity &* MemoryLayout<Int>.stride
    }

    /// The word counting the readers of `record`'s thread pinned without a lock in
    /// epochs of `parity` (see `pinWithoutLock`): apart from the walks' pins, so
    /// that a writer can tell whether any such reader runs (only those can meet what
    /// `Graveyard.retireShared` takes).
    @inline(__always)
    private static func lockFreePins(_ record: UnsafeMutableRawPointer, parity: Int) -> UnsafeMutableRawPointer {
        record + (2 &+ parity) &* MemoryLayout<Int>.stride
    }

    /// The word of `record` holding the next record's address (0 for the last).
    @inline(__always)
    private static func nextRecordWord(_ record: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        record + 4 * MemoryLayout<Int>.stride
    }

    /// The word of `record` that is 1 while a thread owns it.
    @inline(__always)
    private static func ownedWord(_ record: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        record + 5 * MemoryLayout<Int>.stride
    }

    /// Where the first pin record's address is (0 before any thread walked): on
    /// the limbo flag's line, which only writers and reclaims read.
    private static var pinRecordsWord: UnsafeMutableRawPointer { limboFlagWord + 2 * MemoryLayout<UInt>.stride }

    /// The first pin record, or nil. Sequentially consistent: a writer's half of
    /// the Dekker check (see `pinWithoutLock`) reads it after its fence, so a
    /// record pushed after this load belongs to a thread whose pin comes later and
    /// sees what the writer unlinked.
    @inline(__always)
    private static var firstPinRecord: UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: AtomicWord.loadSequentiallyConsistent(pinRecordsWord))
    }

    /// True when `test` holds for every pin record, in list order; stops at the first
    /// for which it does not. Needs no lock to be safe (records are never freed or
    /// unlinked); writers call it with the exclusive lock held, so that the counts
    /// they read are the ones their protocol needs.
    @inline(__always)
    private static func everyPinRecord(_ test: (UnsafeMutableRawPointer) -> Bool) -> Bool {
        var record = firstPinRecord
        while let current = record {
            if !test(current) { return false }
            record = UnsafeMutableRawPointer(bitPattern: AtomicWord.load(nextRecordWord(current)))
        }
        return true
    }

    /// A pin record for a new thread (`ThreadState`): a free one, or a new one
    /// pushed on the list. Takes no lock (a thread's first walk may begin inside a
    /// writer's deinit callback, or while another lock is held).
    static func takePinRecord() -> UnsafeMutableRawPointer {
        var taken: UnsafeMutableRawPointer?
        _ = everyPinRecord { candidate in
            var free: UInt = 0
            guard AtomicWord.load(ownedWord(candidate)) == 0,
                  AtomicWord.compareExchange(ownedWord(candidate), expected: &free, desired: 1) else { return true }
            taken = candidate
            return false
        }
        if let taken { return taken }
        let new = UnsafeMutableRawPointer.allocate(byteCount: pinRecordSize, alignment: pinRecordSize)
        // Written before it is shared: the compare-and-swap below publishes it.
        new.initializeMemory(as: UInt8.self, repeating: 0, count: pinRecordSize)
        ownedWord(new).storeBytes(of: 1, as: UInt.self)
        var first = AtomicWord.load(pinRecordsWord)
        repeat {
            nextRecordWord(new).storeBytes(of: first, as: UInt.self)
        } while !AtomicWord.compareExchange(pinRecordsWord, expected: &first, desired: UInt(bitPattern: new))
        return new
    }

    /// How many fires of a thread, by nesting depth, publish the list they read in
    /// a hazard slot of the thread's pin record; deeper ones count themselves in on
    /// the list instead (see `SignalCore`'s "Reading the list").
    static let signalHazardSlots = 8

    /// The hazard slot of `record` for a fire at nesting depth `depth` (the
    /// thread's nesting count before the fire entered), or nil past the last.
    @inline(__always)
    static func signalHazard(_ record: UnsafeMutableRawPointer, depth: Int) -> UnsafeMutableRawPointer? {
        depth < signalHazardSlots ? signalHazardSlot(record, depth) : nil
    }

    /// True when a hazard slot of some thread holds `list` (an observer list's
    /// address), marked or not: a fire may be reading it. No lock needed (records
    /// are never freed); a fire fills its slot under its signal's lock, so a caller
    /// holding that lock sees every fire of that signal that began before.
    static func signalHazardHeld(_ list: UInt) -> Bool {
        !everyPinRecord { record in
            for depth in 0..<signalHazardSlots where AtomicWord.load(signalHazardSlot(record, depth)) & ~1 == list {
                return false
            }
            return true
        }
    }

    /// Marks every hazard slot that holds `list` (sets its low bit, with a
    /// compare-and-swap, so that a fire clearing it meanwhile wins): the fire that
    /// clears a marked slot learns that the list waits for it. True when one was
    /// marked. The signal's lock held.
    static func markSignalHazards(_ list: UInt) -> Bool {
        var marked = false
        _ = everyPinRecord { record in
            // Loaded first: a compare-and-swap takes the record's line from its
            // thread even when it fails.
            for depth in 0..<signalHazardSlots where AtomicWord.load(signalHazardSlot(record, depth)) == list {
                var expected = list
                if AtomicWord.compareExchange(signalHazardSlot(record, depth), expected: &expected, desired: list | 1) { marked = true }
            }
            return true
        }
        return marked
    }

    @inline(__always)
    private static func signalHazardSlot(_ record: UnsafeMutableRawPointer, _ depth: Int) -> UnsafeMutableRawPointer {
        record + (8 &+ depth) &* MemoryLayout<Int>.stride
    }

    /// Gives back the pin record of a thread that exits (its state's destructor):
    /// a later new thread takes it. Its counts are zero (no walk runs on a thread
    /// that exits), set so all the same: a thread ended inside a walk
    /// (`pthread_exit` in a handler) reads nothing more.
    static func giveBackPinRecord(_ record: UnsafeMutableRawPointer) {
        for parity in 0...1 {
            AtomicWord.storeReleasing(walkPins(record, parity: parity), 0)
            AtomicWord.storeReleasing(lockFreePins(record, parity: parity), 0)
        }
        for depth in 0..<signalHazardSlots {
            AtomicWord.storeReleasing(signalHazardSlot(record, depth), 0)
        }
        AtomicWord.storeReleasing(ownedWord(record), 0)
    }

    /// How many pin records exist, and how many of them a thread owns (for tests).
    static var pinRecordCounts: (all: Int, owned: Int) {
        var all = 0, owned = 0
        _ = everyPinRecord { record in
            all += 1
            if AtomicWord.load(ownedWord(record)) != 0 { owned += 1 }
            return true
        }
        return (all, owned)
    }

    /// Adds `delta` to a count of the calling thread's own pin record: a load and a
    /// releasing store, no locked instruction (only this thread writes it). What
    /// the walk loaded before is ordered before it by the callers' protocols (see
    /// `pinForDelivery(_:keepingReadPinOf:)`).
    @inline(__always)
    private static func addToOwn(_ word: UnsafeMutableRawPointer, _ delta: Int) {
        AtomicWord.storeReleasing(word, UInt(bitPattern: Int(bitPattern: AtomicWord.loadRelaxed(word)) &+ delta))
    }

    /// Marks a walk as borrowing tables, in `record` (its thread's). The caller
    /// holds its stripe, so no writer runs (writers hold every stripe) and none
    /// reads the count until the stripe's unlock has published it: a plain add.
    ///
    /// - Returns: The parity to unpin.
    @inline(__always)
    static func pin(_ record: UnsafeMutableRawPointer) -> Int {
        let parity = Int(epoch & 1)
        addToOwn(walkPins(record, parity: parity), 1)
        return parity
    }

    /// Marks a reader as borrowing what writers publish, without taking its
    /// stripe, in `record` (its thread's): the pin of performance round 3's
    /// lock-free reads (see Maintainers/ReadsWithoutALock.md). What the reader may
    /// load after it returns stays allocated until `unpinWithoutLock`, provided
    /// writers retire it with `Graveyard.retireShared` (never young: a reader pinned
    /// without a lock can load an object published after it pinned).
    ///
    /// A Dekker-style check: the reader counts itself in the parity of the epoch it
    /// read, makes a full fence, then reads the epoch again and starts over if it
    /// moved; a writer unlinks what it retires or advances the epoch, makes a full
    /// fence (or a sequentially consistent store), then reads the pin counts. With
    /// a fence on each side, either the reader's loads after its fence see the
    /// writer's stores, or the writer sees the pin (the fences are ordered one way or
    /// the other). On x86 the pin's locked add is a full fence already, and no
    /// fence is emitted (`AtomicWord.fenceAfterAdd`); the fence is for the weaker
    /// models (ARM64), where the pin's store could otherwise be ordered after the
    /// reader's first loads. Hold it only while reading: no user
    /// code may run under it (a blocked reader holds every retirement back), and
    /// never while holding a stripe (`unpinWithoutLock` may take the exclusive lock
    /// to reclaim). It reads no handler table or handler under this pin alone: a
    /// writer may retire one published after the pin as young, released once the
    /// epoch it was published in drains, which this pin is not counted in. It takes
    /// `pinForDelivery` and loads the table's word again first.
    ///
    /// - Returns: The parity to give `unpinWithoutLock`.
    @inline(__always)
    static func pinWithoutLock(_ record: UnsafeMutableRawPointer) -> Int {
        pinWithoutLock(counting: { lockFreePins(record, parity: $0) })
    }

    /// The Dekker-style pin of `pinWithoutLock` and `pinForDelivery`, counted in
    /// `count(parity)`: counted in the parity of the epoch read, a full fence, the
    /// epoch read again, and over again when it moved. A retry gives its count back
    /// without reclaiming, which would run deinits (user code) in the middle of a
    /// pin (for `pinForDelivery`, between a walk's collection and its check); a
    /// later unpin, or the next writer, reclaims.
    ///
    /// A locked add although only this thread writes the count: the Dekker check
    /// needs the count's store ordered before the epoch's load, which on x86 only a
    /// locked instruction or a fence gives (a fence costs more).
    @inline(__always)
    private static func pinWithoutLock(counting count: (Int) -> UnsafeMutableRawPointer) -> Int {
        while true {
            let seen = AtomicWord.loadSequentiallyConsistent(epochWord)
            let parity = Int(seen & 1)
            _ = AtomicWord.add(count(parity), 1)
            AtomicWord.fenceAfterAdd()
            if AtomicWord.loadSequentiallyConsistent(epochWord) == seen { return parity }
            _ = AtomicWord.add(count(parity), -1)
        }
    }

    /// Marks a walk as borrowing tables, as `pin(_:)` does, without taking the
    /// stripe: the delivery pin of a walk collected without a lock (see
    /// `DominoNode.collectPublished`). Dekker-style, as `pinWithoutLock`: counted in
    /// the parity of the epoch read, a full fence, the epoch read again. The caller
    /// then loads again each table word it collected: a table still published after
    /// the fence is one that a writer retires only after it sees this pin, so the
    /// walk may use it as a walk pinned under its stripe would. Give it back with
    /// `unpin(_:parity:)`.
    ///
    /// The walk must load the words again while it still holds its read pin: an
    /// equal address is not enough on its own (the table may have been freed as
    /// young and another published at the same address after this pin's epoch);
    /// the read pin caps the epoch at one past the one it pinned in, which keeps a
    /// table retired meanwhile allocated until the check is over.
    @inline(__always)
    static func pinForDelivery(_ record: UnsafeMutableRawPointer) -> Int {
        pinWithoutLock(counting: { walkPins(record, parity: $0) })
    }

    /// The delivery pin of a walk that holds its read pin (`pinWithoutLock`) of
    /// `parity`, taken in the same parity without the Dekker check: true when the
    /// epoch is still the one the read pin was taken in, and the walk may then use
    /// every table it collected without loading its word again; it gives the read
    /// pin back with `unpinReadPin(_:parity:)`. False when the epoch moved
    /// meanwhile (the pin is given back): the walk takes `pinForDelivery(_:)` and
    /// checks its tables as before.
    ///
    /// Why no check is needed when the epoch did not move (see
    /// Maintainers/ReadsWithoutALock.md, "One pin's worth"): the walk was counted in
    /// `parity` without a gap from its read pin on (this count is stored before the
    /// read pin is given back, both releasing, and `drained` loads a record's read
    /// pins before its delivery pins), so the epoch cannot pass the one after the
    /// read pin's, and nothing retired since the read pin in a batch that parity
    /// holds can be released; and a table loaded under the read pin was published
    /// in the epoch loaded after it or earlier (its publisher read the epoch before
    /// its releasing store), so when that is still the read pin's epoch, the table
    /// is young, if at all, in an epoch this pin holds.
    ///
    /// A plain add: the epoch's load may be performed before the count's store is
    /// seen, which is the same as checking the epoch first and pinning after it.
    /// That order is as sound, because the read pin holds `parity` meanwhile: the
    /// epoch seen is the read pin's at a moment when the walk is counted in it.
    @inline(__always)
    static func pinForDelivery(_ record: UnsafeMutableRawPointer, keepingReadPinOf parity: Int) -> Bool {
        addToOwn(walkPins(record, parity: parity), 1)
        if Int(truncatingIfNeeded: AtomicWord.load(epochWord) & 1) == parity { return true }
        // Without reclaiming, as a retry of the Dekker check (the read pin, given back
        // next, or the next writer reclaims).
        addToOwn(walkPins(record, parity: parity), -1)
        return false
    }

    /// Gives back a read pin of `parity` while the delivery pin of the same parity
    /// is held (`pinForDelivery(_:keepingReadPinOf:)` returned true): a plain
    /// releasing store, and no reclaiming. The walk is still counted in `parity`
    /// (its delivery pin, stored before), so nothing waiting in limbo becomes
    /// releasable here: a batch of that parity waits for the delivery pin, whose
    /// `unpin` reclaims; a batch of the other parity never waited for this pin; and
    /// what was retired shared while readers were pinned went to limbo then
    /// (`admitRetired`), where only the epoch and the pins of each parity count.
    @inline(__always)
    static func unpinReadPin(_ record: UnsafeMutableRawPointer, parity: Int) {
        addToOwn(lockFreePins(record, parity: parity), -1)
    }

    /// Whether walks may collect without a lock, and how: 0 while anything that only
    /// walks under a stripe handle is in use (tracing of all nodes, a cycle ever
    /// made, a default mode with a queue), else the default mode's code
    /// (`DeliveryMode.Code.published`, the low byte) with `gateGroups` and `gateCaptures`
    /// set once group interceptors or capture handlers were ever used (walks then
    /// look for them too). Loaded atomically; see `GraphSettings.refreshWalkGate`.
    @inline(__always)
    static var walkGate: UInt { AtomicWord.load(walkGateWord) }

    /// `walkGate`'s bit for group interceptors.
    static let gateGroups: UInt = 0x100
    /// `walkGate`'s bit for capture handlers.
    static let gateCaptures: UInt = 0x200

    /// Sets `walkGate`. Exclusive lock held.
    func setWalkGate(_ value: UInt) {
        AtomicWord.storeReleasing(Self.walkGateWord, value)
    }

    /// A sequence lock over what walks up read without a lock and do not check again
    /// under their delivery pin: parent links, a key's first table at a node, a
    /// node's mode word. Even while no write changes them, odd while one does
    /// (`changingLinks`). A walk without a lock
    /// loads it before it reads a link and after, and takes its stripe instead when
    /// the two differ or the first is odd: so the route it collected is one that
    /// existed at one time (no node visited twice, no loop through links of
    /// different times), however writers remount meanwhile.
    @inline(__always)
    static var linkSequence: UInt { AtomicWord.load(linkSequenceWord) }

    /// Where `linkSequence` is, for a walk that loads it at every level.
    @inline(__always)
    static var linkSequenceAddress: UnsafeMutableRawPointer { linkSequenceWord }

    /// Runs `body`, which changes parent links, with the link sequence odd.
    /// Exclusive lock held. The odd value is stored before the links change (their
    /// releasing stores come after it), the even one after.
    @inline(__always)
    func changingLinks<R>(_ body: () throws -> R) rethrows -> R {
        let sequence = Self.linkSequenceWord.load(as: UInt.self)
        AtomicWord.store(Self.linkSequenceWord, sequence &+ 1)
        defer { AtomicWord.storeReleasing(Self.linkSequenceWord, sequence &+ 2) }
        return try body()
    }

    /// Ends a reader's `pinWithoutLock`; releases the retired objects this makes
    /// safe (as `unpin` does). A locked add: the check of the limbo's word after it
    /// is the unpin's half of a Dekker check (see `unpin`). A walk that holds its
    /// delivery pin gives the read pin back with `unpinReadPin` instead.
    @inline(__always)
    static func unpinWithoutLock(_ record: UnsafeMutableRawPointer, parity: Int) {
        let remaining = AtomicWord.add(lockFreePins(record, parity: parity), -1)
        if remaining == 0 && AtomicWord.loadSequentiallyConsistent(unpinsReclaimWord) != 0 { graphLock.reclaimRetired() }
    }

    /// Ends a walk's borrowing, counted in `record` (its thread's), without a lock;
    /// releases the retired tables that this makes safe.
    ///
    /// A writer that retires tables sets the limbo flag (and with it
    /// `unpinsReclaimWord`, which is what unpins load), then checks the pins; this
    /// decrements the pins, then checks that word. Both are a sequentially consistent
    /// write followed by a sequentially consistent load, so at least one of the two
    /// sees the other: a table is never left in limbo after its last walk ended
    /// unnoticed. (The flag's load was acquiring before session 26: enough on x86,
    /// where the locked decrement is a full fence, but on ARM64 an acquiring load
    /// may be compiled to `ldapr`, which can pass an earlier release.)
    /// While the flag says `writerSweeps`, the unpin leaves the reclaiming to that
    /// writer's sweep (see `sweepLimbo`), whose end looks at the pins again after it
    /// stores `unpinsReclaim`.
    @inline(__always)
    static func unpin(_ record: UnsafeMutableRawPointer, parity: Int) {
        let remaining = AtomicWord.add(walkPins(record, parity: parity), -1)
        if remaining == 0 && AtomicWord.loadSequentiallyConsistent(unpinsReclaimWord) != 0 { graphLock.reclaimRetired() }
    }

    /// What the limbo flag says: whether `limbo` holds anything, and who reclaims it.
    private enum LimboFlag {
        /// Limbo is empty.
        static let empty: UInt = 0
        /// Limbo holds tables; the last unpin of a parity reclaims what it made safe.
        static let unpinsReclaim: UInt = 1
        /// Limbo holds tables that a writer retired and reclaims itself once it has
        /// unlocked (`sweepLimbo`); unpins leave them to it. Their reclaiming, a
        /// round of the exclusive lock on memory the writer has just written, cost
        /// a thread posting while another writes in a loop (the stall row) about a
        /// tenth of its posts (see Maintainers/ReadsWithoutALock.md).
        static let writerSweeps: UInt = 2
    }

    /// Sets the limbo flag (a `LimboFlag`), and the word that unpins read
    /// (`unpinsReclaimWord`) when what it says changes. Exclusive lock held.
    private func setLimboFlag(_ value: UInt) {
        AtomicWord.store(Self.limboFlagWord, value)
        let unpinsReclaim: UInt = value == LimboFlag.unpinsReclaim ? 1 : 0
        // Only this lock's holder stores it, so the load sees the last store; an
        // unchanged word is not stored again: unpins keep it in their caches.
        if AtomicWord.load(Self.unpinsReclaimWord) != unpinsReclaim {
            AtomicWord.store(Self.unpinsReclaimWord, unpinsReclaim)
        }
    }

    /// The limbo flag, loaded without a lock.
    private static var limboFlag: UInt { AtomicWord.load(limboFlagWord) }

    /// Where the limbo flag lives: on a line of its own, after the epoch's, which
    /// only writers and reclaims read. Unpins read `unpinsReclaimWord` instead.
    private static var limboFlagWord: UnsafeMutableRawPointer { base + Self.limboFlagOffset + Self.stripeStride }

    /// 1 while the limbo flag says `unpinsReclaim`, else 0: the one word of the
    /// flag's that every unpin loads, on a line of its own (the first of the pair
    /// whose second holds the epoch). It changes only when the unpins' duty does,
    /// so a writer that sweeps what it retired (the common write) does not store to
    /// it: the flag itself changes two or three times a write, and while it shared
    /// this line every post after a write missed on it (see
    /// Maintainers/ReadsWithoutALock.md, session 27).
    private static var unpinsReclaimWord: UnsafeMutableRawPointer { base + Self.limboFlagOffset }

    /// For tests (`WriterSweepTests`): runs at the start of each writer's sweep, on
    /// the writing thread, with nothing locked. Nil otherwise; set only by a suite
    /// that runs in a process of its own.
    @exclusivity(unchecked) nonisolated(unsafe) static var sweepBegins: (() -> Void)?
    /// For tests, as `sweepBegins`: runs when a reclaim that found limbo left to a
    /// sweep leaves what is still borrowed to the unpins, just before it says so
    /// (exclusive lock held: the hook must not lock).
    @exclusivity(unchecked) nonisolated(unsafe) static var limboStillBorrowed: (() -> Void)?

    /// The sweep of a writer that left what it retired to itself (`LimboFlag.writerSweeps`,
    /// never from inside a walk of its own: see `admitRetired`), after unlocking:
    /// reclaims as an unpin would (`reclaimRetired`: at once if it gets the lock, else
    /// by whoever holds it), which leaves what is still borrowed to the unpins
    /// (`unpinsReclaim`). Does nothing when another reclaim has settled the flag.
    ///
    /// It does not wait for the walks: a post's walk lasts well under a microsecond,
    /// and by the time the writer has unlocked it has mostly ended (in the stall row,
    /// 99% of the sweeps found every walk that borrowed what they retired ended).
    /// Looking again, 8 to 64 times between pauses, changed nothing measurable.
    @inline(never)
    private func sweepLimbo() {
        Self.sweepBegins?()
        if Self.limboFlag == LimboFlag.writerSweeps { reclaimRetired() }
    }

    /// Where the request to reclaim lives (see `reclaimRetired`): beside the limbo
    /// flag, which the threads that set it have just read, away from the words
    /// that unpins load.
    private static var reclaimRequestWord: UnsafeMutableRawPointer { limboFlagWord + MemoryLayout<UInt>.stride }

    /// Reclaims what the last unpin of a parity made safe, without waiting for a
    /// writer: the walk asks (the request word), then reclaims only if it gets the
    /// lock at once. When a writer holds it, that writer reclaims after it unlocks:
    /// it reads the request after a full fence, and the walk set the request before
    /// a full fence and its failed try, so one of the two sees the other. (Before,
    /// the walk took the exclusive lock: in the stall row, with the writer retiring
    /// tables all the time, every post did, behind the writer.)
    @inline(never)
    fileprivate func reclaimRetired() {
        AtomicWord.store(Self.reclaimRequestWord, 1)
        AtomicWord.fence()
        reclaimRequested()
    }

    /// Reclaims while a request is pending and the lock can be had at once (its
    /// first stripe tried: a writer takes the stripes in order, so any other stripe
    /// is held only by a reader, briefly). Whoever holds the first stripe when a try
    /// fails checks the request after it unlocks (`unlockExclusive`,
    /// `unlockShared`).
    @inline(never)
    private func reclaimRequested() {
        while AtomicWord.loadSequentiallyConsistent(Self.reclaimRequestWord) != 0 {
            guard WordLock.tryLock(Self.base) else { return }
            for stripe in 1..<Self.stripeCount { WordLock.lock(Self.base + stripe * Self.stripeStride) }
            AtomicWord.store(Self.reclaimRequestWord, 0)
            var released: [AnyObject] = []
            advanceLocked(releasing: &released)
            unlockStripes()
            // A request made while this thread held the lock is seen below.
            AtomicWord.fence()
            // Their handlers, and whatever those hold, go here, outside the lock.
            released.removeAll()
        }
    }

    /// Looks for a reclaim request that a walk left while this thread held the first
    /// stripe (see `reclaimRequested`). After unlocking it.
    @inline(__always)
    private func reclaimIfRequested() {
        AtomicWord.fence()
        if AtomicWord.load(Self.reclaimRequestWord) != 0 { reclaimRequested() }
    }

    /// True when a reader pinned without a lock is running. Exclusive lock held.
    /// A full fence comes first: such a reader either is seen here or sees what the
    /// writer unlinked before asking (see `pinWithoutLock`). Walks pinned under
    /// their stripe do not count: they read nothing after they unlock but the
    /// tables and handlers they collected.
    var lockFreeReadersPinnedLocked: Bool {
        AtomicWord.fence()
        return lockFreeReadersPinned
    }

    /// `lockFreeReadersPinnedLocked` for a caller that has just made the fence.
    private var lockFreeReadersPinned: Bool {
        !Self.everyPinRecord { record in
            AtomicWord.loadSequentiallyConsistent(Self.lockFreePins(record, parity: 0)) == 0
                && AtomicWord.loadSequentiallyConsistent(Self.lockFreePins(record, parity: 1)) == 0
        }
    }

    /// True when no walk pinned in epochs of `parity` is running. Exclusive lock held.
    private func drained(parity: Int) -> Bool {
        // Sequentially consistent: the writer's half of `pinWithoutLock`'s check.
        // A record's read pins before its delivery pins: a walk stores its delivery
        // pin before it gives its read pin back (`pinForDelivery(_:keepingReadPinOf:)`,
        // then `unpinReadPin`, both releasing), so whichever count this sees last,
        // it sees the walk in one of the two.
        Self.everyPinRecord {
            AtomicWord.loadSequentiallyConsistent(Self.lockFreePins($0, parity: parity)) == 0
                && AtomicWord.loadSequentiallyConsistent(Self.walkPins($0, parity: parity)) == 0
        }
    }

    /// Advances the epoch when it can, moves the limbo batches that are safe now into
    /// `released`, and sets the limbo flag: `writerSweeps` when the calling writer
    /// sweeps (`admitRetired`), else `unpinsReclaim` while limbo holds anything.
    /// Exclusive lock held.
    private func advanceLocked(releasing released: inout [AnyObject], writerSweeps: Bool = false) {
        let before = Self.limboFlag
        releaseSafeBatchesLocked(into: &released)
        if limbo.isEmpty { return setLimboFlag(LimboFlag.empty) }
        if writerSweeps { return setLimboFlag(LimboFlag.writerSweeps) }
        if before == LimboFlag.writerSweeps { Self.limboStillBorrowed?() }
        setLimboFlag(LimboFlag.unpinsReclaim)
        guard before == LimboFlag.writerSweeps else { return }
        // Unpins that found `writerSweeps` left their reclaiming to this: each gave
        // its pin back before it loaded the flag, so before the store above, and a
        // second look at the pins, after it, sees them all. An unpin after that
        // finds `unpinsReclaim`.
        releaseSafeBatchesLocked(into: &released)
        if limbo.isEmpty { setLimboFlag(LimboFlag.empty) }
    }

    /// Advances the epoch when it can and moves the limbo batches that are safe now
    /// into `released`. Exclusive lock held.
    private func releaseSafeBatchesLocked(into released: inout [AnyObject]) {
        var epoch = Self.epoch
        if limbo.contains(where: { $0.epoch == epoch }) && drained(parity: Int((epoch &+ 1) & 1)) {
            epoch &+= 1
            Self.epoch = epoch
        }
        limbo.removeAll { batch in
            let parity = Int(batch.epoch & 1)
            let safe = epoch &- batch.epoch >= 2
                || (epoch &- batch.epoch == 1 && drained(parity: parity))
                // Young: published in its batch's epoch, still the current one; only
                // walks of this parity, all pinned in this epoch, can borrow it.
                || (batch.young && batch.epoch == epoch && drained(parity: parity))
            if safe { released += batch.tables }
            return safe
        }
    }

    /// Sends the tables `graveyard` retired to limbo when a walk may still borrow
    /// them, or back to the graveyard to be released after unlocking. Exclusive lock
    /// held. Returns true when it left limbo to this writer's sweep (`sweepLimbo`),
    /// which the caller must then run once it has unlocked.
    private func admitRetired(_ graveyard: inout Graveyard) -> Bool {
        var sweeps = false
        let (tables, handlers, shared) = graveyard.takeRetired()
        let epoch = Self.epoch
        var released: [AnyObject] = []
        // What unlinked the retired objects comes before the pins are read: a reader
        // pinned without a lock either is seen below or sees the unlinking.
        AtomicWord.fence()
        if drained(parity: 0) && drained(parity: 1) {
            released = tables + handlers + shared
        } else {
            // Only readers pinned without a lock can meet what was retired shared
            // (walks pinned under a stripe read it only while they hold the stripe):
            // with none running, it is released at once, so a handler that blocks
            // inside a walk holds none of it back. Tables and handlers keep the
            // young rule: a reader pinned without a lock may load a table's address
            // published after it pinned, but reads the table only under a delivery
            // pin taken after it, once it has seen the table still published (see
            // `pinForDelivery` and Maintainers/ReadsWithoutALock.md).
            var young: [AnyObject] = [], old: [AnyObject] = []
            if lockFreeReadersPinned { old = shared } else { released = shared }
            for table in tables {
                if table.publishedEpoch == UInt32(truncatingIfNeeded: epoch) { young.append(table) } else { old.append(table) }
            }
            for handler in handlers {
                if handler.publishedEpoch == UInt32(truncatingIfNeeded: epoch) { young.append(handler) } else { old.append(handler) }
            }
            for (batch, isYoung) in [(old, false), (young, true)] where !batch.isEmpty {
                if let index = limbo.lastIndex(where: { $0.epoch == epoch && $0.young == isYoung }) {
                    limbo[index].tables += batch
                } else {
                    limbo.append((batch, epoch, isYoung))
                }
            }
            if !old.isEmpty || !young.isEmpty {
                // The writer sweeps what is left, unless it writes from inside a walk
                // (a handler), whose own pin would hold the sweep back.
                sweeps = ThreadState.current.pointee.nesting == 0
                // The flag before the pins are read again (see `unpin`).
                setLimboFlag(sweeps ? LimboFlag.writerSweeps : LimboFlag.unpinsReclaim)
                advanceLocked(releasing: &released, writerSweeps: sweeps)
                sweeps = sweeps && !limbo.isEmpty
            }
        }
        for table in released { graveyard.add(table) }
        return sweeps
    }

    /// How many readers wait for `stripe` (atomic): a writer that finds some when it
    /// unlocks lets them in before it writes again.
    ///
    /// On the mutex's line, not the pins': every write's unlock reads all eight, and
    /// a read of the line that a thread posting meanwhile writes at each pin and
    /// unpin costs that thread a coherence miss at its next pin (measured in the
    /// stall row, posts with the writer against those without, medians of
    /// alternating runs: 0.77 to 0.82 in six pairs, 0.83 to 0.85 in eight; see
    /// Maintainers/ReadsWithoutALock.md, session 29).
    /// The mutex's line is the writer's own while it writes; a reader touches it
    /// only when it waits, and then it waits for that line anyway.
    @inline(__always)
    private static func waiters(_ stripe: Int) -> UnsafeMutableRawPointer {
        Self.base + stripe * Self.stripeStride + Self.waitersOffset
    }

    @inline(__always)
    func lockShared(stripe: Int) {
        let mutex = Self.base + stripe * Self.stripeStride
        if WordLock.tryLock(mutex) { return }
        waitForShared(mutex, stripe: stripe)
    }

    /// A reader's wait for its stripe, counted so that a writer in a loop does not
    /// starve it.
    @inline(never)
    private func waitForShared(_ mutex: UnsafeMutableRawPointer, stripe: Int) {
        // A write holds the lock for about a microsecond: trying again for a few
        // costs less than sleeping and being woken (tens of microseconds).
        for _ in 0..<Self.readerSpins where WordLock.tryLock(mutex) { return }
        _ = AtomicWord.add(Self.waiters(stripe), 1)
        WordLock.lock(mutex)
        _ = AtomicWord.add(Self.waiters(stripe), -1)
    }

    @inline(__always)
    func unlockShared(stripe: Int) {
        WordLock.unlock(Self.base + stripe * Self.stripeStride)
        if stripe == 0 { reclaimIfRequested() }
    }

    func lockExclusive() {
        for stripe in 0..<Self.stripeCount {
            WordLock.lock(Self.base + stripe * Self.stripeStride)
        }
    }

    /// Unlocks every stripe, last first.
    private func unlockStripes() {
        for stripe in (0..<Self.stripeCount).reversed() {
            WordLock.unlock(Self.base + stripe * Self.stripeStride)
        }
    }

    func unlockExclusive() {
        unlockStripes()
        reclaimIfRequested()
        // Readers that waited for this write go first: a mutex lets the thread
        // that unlocks take it again before a woken waiter runs, so a thread that
        // writes in a loop would otherwise hold posts elsewhere back for as long
        // as it loops (measured: posts at an unrelated node slowed a hundredfold,
        // the 99th percentile at 135 µs).
        for stripe in 0..<Self.stripeCount where AtomicWord.load(Self.waiters(stripe)) != 0 {
            var turns = 0
            while AtomicWord.load(Self.waiters(stripe)) != 0 && turns < Self.maximumTurnsForReaders {
                PlatformMutex.yieldProcessor()
                turns += 1
            }
        }
    }

    /// How many times a reader tries a held stripe again before it sleeps.
    private static let readerSpins = 256

    /// How many times a writer yields for the readers of one stripe at most (a
    /// reader that is itself descheduled must not hold the writer for long).
    private static let maximumTurnsForReaders = 64

    /// Runs `body` as a reader on the calling thread's stripe.
    @inline(__always)
    func withShared<R>(_ body: () throws -> R) rethrows -> R {
        let stripe = ThreadState.current.pointee.stripe
        lockShared(stripe: stripe)
        defer { unlockShared(stripe: stripe) }
        return try body()
    }

    /// Runs `body` as the only writer. Whatever `body` puts in the graveyard is
    /// released after the lock is dropped, so no deinit runs under the lock.
    @inline(__always)
    func withExclusive<R>(_ body: (inout Graveyard) throws -> R) rethrows -> R {
        var graveyard = Graveyard()
        ThreadState.current.pointee.writes &+= 1
        lockExclusive()
        if writersHeldBackBy != 0 { waitForOtherWritersHoldingBack() }
        let result: R
        do {
            result = try body(&graveyard)
        } catch {
            endWrite(&graveyard)
            throw error
        }
        endWrite(&graveyard)
        graveyard.bury()
        return result
    }

    /// Admits what a write retired and unlocks; then sweeps limbo if the write left
    /// it to itself.
    @inline(__always)
    private func endWrite(_ graveyard: inout Graveyard) {
        guard graveyard.hasRetired else { return unlockExclusive() }
        let sweeps = admitRetired(&graveyard)
        unlockExclusive()
        if sweeps { sweepLimbo() }
    }
}

/// Objects removed under the graph lock, released only after it is dropped.
///
/// Releasing a handler can release the last reference to a user object whose deinit
/// touches Domino (for example a host whose node then unmounts), which would deadlock
/// if it happened under the lock.
///
/// It also tells subscriptions that ended under the lock, once the lock is dropped,
/// so that one feeding a stream can finish it (which runs the stream's termination
/// handler, which may cancel, which takes the lock).
struct Graveyard {
    private var bodies: [AnyObject] = []
    private var ended: [Subscription] = []

    private var retired: [HandlerTable] = []
    private var retiredHandlers: [Subscription] = []
    private var retiredShared: [AnyObject] = []

    mutating func add(_ object: AnyObject) {
        bodies.append(object)
    }

    /// Takes a handler table that was published at a node: walks may still borrow
    /// it, so it is released only once none can (see `GraphLock`).
    mutating func retire(_ table: HandlerTable) {
        retired.append(table)
    }

    /// Takes a handler removed from a published table's storage, which no longer
    /// owns it: walks may still borrow it, so it is released only once none can.
    mutating func retire(_ handler: Subscription) {
        retiredHandlers.append(handler)
    }

    /// Takes an object that readers pinned without a lock may have loaded
    /// (`GraphLock.pinWithoutLock`): released once none can hold it (at once when
    /// none is pinned, whatever walks under a stripe run), and never early as young,
    /// because such a reader can load what was published after it pinned. The caller
    /// has unlinked it (a releasing store) before.
    mutating func retireShared(_ object: AnyObject) {
        retiredShared.append(object)
    }

    var hasRetired: Bool { !retired.isEmpty || !retiredHandlers.isEmpty || !retiredShared.isEmpty }

    mutating func takeRetired() -> (tables: [HandlerTable], handlers: [Subscription], shared: [AnyObject]) {
        defer {
            retired = []
            retiredHandlers = []
            retiredShared = []
        }
        return (retired, retiredHandlers, retiredShared)
    }

    /// Marks `subscription` as ended (no longer registered at a node). Lock held.
    mutating func end(_ subscription: Subscription) {
        subscription.home = nil
        ended.append(subscription)
    }

    mutating func bury() {
        for subscription in ended { subscription.didEnd() }
        ended.removeAll()
        bodies.removeAll()
    }
}

/// The one lock of the graph.
let graphLock = GraphLock()
