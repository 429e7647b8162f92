/// The handlers of one role in one slot, as a walk sees them: a view of the first
/// `end` entries of a shared, append-only `HandlerStorage`.
///
/// Why a view of shared storage rather than an array copied per write: a walk reads
/// a slot's handlers outside the lock, so a write can never change what a published
/// view shows, and copying the whole list per write made subscribing or cancelling
/// N handlers at one node quadratic (issue 19: 10,000 took 1.8 s and 4.2 s, and held
/// every stripe of the graph lock for a time that grew with the node). Now:
/// - **adding** writes the entry just past the newest view's end, which no published
///   view covers, and publishes a view one longer: O(1), amortized over the copies
///   when the storage is full (capacity grows by half);
/// - **removing** marks the entry removed (bit 0 of its word, stored atomically,
///   because walks that began earlier may be reading it) and publishes a view with
///   one handler fewer live: O(1). The handler itself is retired through the graph
///   lock's epochs (see `GraphLock`), so it is released, with its closure, as soon
///   as no walk can be borrowing it, exactly as before. Once removed entries
///   outnumber live ones, the live ones move to a fresh storage (O(live), amortized
///   over the removals).
/// A walk that collected a view before a removal skips the removed handler if it
/// reaches it afterwards; `Subscription.cancel()` documents that a walk already
/// under way may or may not call it.
///
/// A list of one handler (most slots have one subscriber, or one responder) holds
/// the handler itself instead of a storage of one entry: a 48-byte block fewer per
/// such slot. Such a view is told by `end` 0 with `live` 1; its removal is marked
/// on the handler (`Subscription.isRemoved`), which a walk tests before calling
/// it, as it tests a storage entry's bit. The list's second handler moves both
/// into a storage.
struct HandlerList: @unchecked Sendable {
    /// A `HandlerStorage`, or the list's lone handler (a `Subscription`, when `end`
    /// is 0 and `live` 1); nil while the list has never held a handler.
    let storage: AnyObject?
    /// The entries of `storage` this view covers, removed ones included; 0 for a
    /// lone handler.
    let end: UInt32
    /// How many of them were live when the view was published.
    let live: UInt32

    /// The list that never held a handler. Computed, where a `static let` cost each
    /// access a `swift_once`.
    @inline(__always)
    static var empty: HandlerList { HandlerList(storage: nil, end: 0, live: 0) }

    /// A view of `handler` alone.
    private init(lone handler: Subscription) {
        self.init(storage: handler, end: 0, live: 1)
    }

    private init(storage: AnyObject?, end: UInt32, live: UInt32) {
        self.storage = storage
        self.end = end
        self.live = live
    }

    /// True when the view holds a lone handler rather than a storage.
    @inline(__always)
    private var isLone: Bool { end == 0 && live != 0 }

    /// The storage, for a view that has one (not `isLone`). Lock held.
    private var handlerStorage: HandlerStorage? {
        guard let storage, !isLone else { return nil }
        return unsafeDowncast(storage, to: HandlerStorage.self)
    }

    /// The lone handler of a view that `isLone`.
    private var loneHandler: Subscription {
        unsafeDowncast(storage.unsafelyUnwrapped, to: Subscription.self)
    }

    /// True when no handler was live when the view was published.
    var isEmpty: Bool { live == 0 }
    /// The handlers live when the view was published.
    var count: Int { Int(live) }

    /// The capacity of a fresh storage for `count` handlers: half as many again, so
    /// that appends stay O(1) amortized while a node of 100 handlers wastes a sixth
    /// of its entries on average rather than a third (doubling's).
    static func room(for count: Int) -> Int {
        Swift.max(4, count + count / 2)
    }

    /// A view with `handler` appended. Exclusive lock held.
    func appending(_ handler: Subscription) -> HandlerList {
        if live == 0 { return HandlerList(lone: handler) }
        if let storage = handlerStorage, storage.used == end, Int(end) < storage.room {
            storage.append(handler)
            return HandlerList(storage: storage, end: end + 1, live: live + 1)
        }
        // Full, or a lone handler: a fresh storage of the live handlers, with room.
        let liveCount = Int(live) + 1
        let fresh = HandlerStorage.make(capacity: Self.room(for: liveCount))
        forEachLiveLocked { fresh.append($0) }
        fresh.append(handler)
        return HandlerList(storage: fresh, end: UInt32(fresh.used), live: UInt32(liveCount))
    }

    /// A view without `handler`, which the caller checked with `contains` and
    /// retired first: the storage gives up its reference (a lone handler's view
    /// holds it as any reference, released with the views). Exclusive lock held.
    func removing(_ handler: Subscription) -> HandlerList {
        handler.markRemoved()
        guard let storage = handlerStorage, let place = storage.place(of: handler, below: Int(end)) else { return isLone ? .empty : self }
        storage.markRemoved(at: place)
        if let object = handler.boundObject { storage.unindex(handler, boundTo: object) }
        Unmanaged.passUnretained(handler).release()
        let remaining = live - 1
        if remaining == 0 { return .empty }
        // Compact once removed entries outnumber live ones: each compaction copies at
        // most as many handlers as removals since the last, so removals stay O(1).
        if end - remaining > remaining && end >= 8 {
            let fresh = HandlerStorage.make(capacity: Self.room(for: Int(remaining)))
            forEachLiveLocked { fresh.append($0) }
            return HandlerList(storage: fresh, end: UInt32(fresh.used), live: remaining)
        }
        return HandlerList(storage: storage, end: end, live: remaining)
    }

    /// True when this view holds `handler`, live. O(1): the handler knows its place.
    /// Lock held.
    func contains(_ handler: Subscription) -> Bool {
        if isLone { return storage === handler }
        return handlerStorage?.place(of: handler, below: Int(end)) != nil
    }

    /// Calls `body` with each live handler, in order, retained. Lock held, or the view
    /// borrowed by a pinned walk.
    func forEachLiveLocked(_ body: (Subscription) -> Void) {
        for handler in self { body(handler) }
    }

    /// Calls `body` with each live handler in order until it returns false, lending
    /// each one without reference counting (see `HandlerTable.forEachBorrowed`).
    ///
    /// With `lonesUnchecked`, a handler the list holds alone is lent even when it
    /// is removed, for a body that tests `isRemoved` itself (the walks' `notify`
    /// tests it with the handler's mode in one compare: one load of its state word
    /// where there were two). Handlers in a storage are skipped by their entries'
    /// marks either way.
    @inline(__always)
    func forEachBorrowed(lonesUnchecked: Bool = false, _ body: (Subscription) -> Bool) {
        // The storage's address as a bit pattern, not a reference: binding the
        // reference (`if let storage`) costs a retain and a release per list walked.
        guard let object = unsafeBitCast(storage, to: UnsafeMutableRawPointer?.self) else { return }
        if end == 0 {
            // A lone handler (a view with a storage always covers an entry: see
            // `detachedCopy`): the storage word is the handler.
            let handler = Unmanaged<Subscription>.fromOpaque(object)
            if lonesUnchecked || !handler._withUnsafeGuaranteedRef({ $0.isRemoved }) { _ = handler._withUnsafeGuaranteedRef(body) }
            return
        }
        let entries = (object + HandlerStorage.entriesOffset).assumingMemoryBound(to: UnsafeRawPointer?.self)
        let end = Int(self.end)
        var index = 0
        while index < end {
            // Entries below `end` are never null: one test skips removed ones.
            let bits = AtomicWord.load(UnsafeMutableRawPointer(entries + index))
            index += 1
            if bits & HandlerStorage.removedBit != 0 { continue }
            let handler = Unmanaged<Subscription>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
            if !handler._withUnsafeGuaranteedRef(body) { return }
        }
    }

    /// The live handlers one at a time, lent as `forEachBorrowed` lends them, for a
    /// loop whose body throws or returns from its function (a closure can do
    /// neither). The view's storage must outlive the cursor: a pinned walk's.
    @inline(__always)
    var borrowedCursor: BorrowedHandlers {
        BorrowedHandlers(object: unsafeBitCast(storage, to: UnsafeMutableRawPointer?.self), end: Int(end))
    }

    // MARK: Bound handlers (the duplicate check), exclusive lock held

    /// How many handlers a list scans for an object's earlier subscription before
    /// its storage indexes them.
    static let scanLimit = 16

    /// The active handlers bound to `object` other than `handler`, just added to
    /// this list: the earlier subscriptions of the same object, or of dead objects
    /// whose address `object` reuses (the caller tells them apart outside the lock).
    /// Usually none.
    ///
    /// Up to `scanLimit` handlers, a scan; beyond, the storage's index (`bound`),
    /// built here on first need: what finds a second subscription of the same object
    /// in one look-up however many the list holds, where a scan costs less than
    /// hashing (measured on a slot of 11 owner-bound subscribers: a
    /// subscribe-and-cancel took 12,195 instructions without the check, 13,300 with
    /// an index for every slot, 12,610 with this scan). A fresh storage starts
    /// without an index, rebuilt on the next bound handler's add (storages are
    /// replaced at geometric sizes, so the rebuilds stay O(1) amortized).
    func handlers(boundTo object: ObjectIdentifier, besides handler: Subscription) -> [Subscription] {
        guard let storage = handlerStorage, live > Self.scanLimit else {
            var found: [Subscription] = []
            HandlerTable.forEachBorrowed(in: self) { other in
                if other !== handler, other.boundObject == object, other.home != nil { Self.keep(other, in: &found) }
                return true
            }
            return found
        }
        return storage.withUnsafeMutablePointerToHeader { header in
            if header.pointee.bound == nil {
                // The last handler of each object wins: of a dead object's and a live
                // one's at the same address, the live one came later.
                var index: [ObjectIdentifier: Subscription] = [:]
                for other in self where other !== handler {
                    if let id = other.boundObject { index[id] = other }
                }
                header.pointee.bound = index
            }
            if let earlier = header.pointee.bound?[object], earlier.home != nil { return [earlier] }
            header.pointee.bound?[object] = handler
            return []
        }
    }

    /// Appends a borrowed handler: only this rare path pays for the retain.
    @inline(never)
    private static func keep(_ handler: Subscription, in list: inout [Subscription]) {
        list.append(handler)
    }

    /// Indexes `handler` in place of `stale`, if the storage's index holds it.
    func replaceBound(_ stale: Subscription, with handler: Subscription) {
        guard let storage = handlerStorage, let object = handler.boundObject, handler.home != nil else { return }
        storage.withUnsafeMutablePointerToHeader { header in
            if header.pointee.bound?[object] === stale { header.pointee.bound?[object] = handler }
        }
    }

    /// A view of a fresh storage holding the live handlers: what a walk that gives
    /// up its pin keeps (see `Plan.holdTables`). Taken while still pinned.
    func detachedCopy() -> HandlerList {
        guard storage != nil, live > 0 else { return .empty }
        // A lone handler: the view holds it, as a copy of its own would.
        if isLone { return loneHandler.isRemoved ? .empty : self }
        let fresh = HandlerStorage.make(capacity: Int(live), positioning: false)
        forEachLiveLocked { fresh.append($0) }
        // All removed since the view was published: a view with a storage must not
        // be empty (`end` 0 with a storage would read as a lone handler).
        if fresh.used == 0 { return .empty }
        return HandlerList(storage: fresh, end: UInt32(fresh.used), live: UInt32(fresh.used))
    }
}

extension HandlerList: Sequence {
    /// Iterates the live handlers, retaining each: for the walks that are not worth
    /// borrowing (protocol events, deepest delivery, async requests).
    struct Iterator: IteratorProtocol {
        let list: HandlerList
        var index = 0

        mutating func next() -> Subscription? {
            if list.isLone {
                defer { index = 1 }
                return index == 0 && !list.loneHandler.isRemoved ? list.loneHandler : nil
            }
            guard let storage = list.handlerStorage else { return nil }
            while index < Int(list.end) {
                let raw = storage.entry(at: index)
                index += 1
                if let raw { return Unmanaged<Subscription>.fromOpaque(raw).takeUnretainedValue() }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(list: self) }

    var underestimatedCount: Int { 0 }
}

/// The shared entries behind `HandlerList`s: each word is a handler's address,
/// with bit 0 set once the handler was removed. The storage owns (holds a strong
/// reference to) each entry until it is removed; removal hands the reference to the
/// graph lock's retirement. One allocation: the entries are tail-allocated.
///
/// `used` and `room` are read and written under the exclusive lock only; walks
/// read entries below their view's `end`, atomically, which a writer writes only to
/// mark removed (entries at or past `used` are written before any view covers them,
/// and the view is published under the lock).
final class HandlerStorage: ManagedBuffer<HandlerStorage.Header, UnsafeRawPointer?> {
    struct Header {
        // 32 bits, as a list's `end` and `live` are: the entries then start 32 bytes
        // into the object rather than 40, and a single handler's storage takes a
        // 48-byte block rather than 64.
        var used: UInt32
        let capacity: UInt32
        /// False for a walk's detached copy, whose handlers keep their place in the
        /// node's own storage.
        let positions: Bool
        /// The storage's handlers bound to an object (an owner, a protocol target),
        /// by that object's identity, once the list holds more than
        /// `HandlerList.scanLimit` (see `HandlerList.handlers(boundTo:besides:)`);
        /// one handler per object. The writers' own: walks never look at it. Here
        /// rather than in the node's slot entry, where it cost every entry a word
        /// (40 bytes to 32) though few lists ever grow past the limit; the entries
        /// then start 40 bytes into the object, which costs no block size (a
        /// storage of four takes 80 bytes either way).
        var bound: [ObjectIdentifier: Subscription]?
    }

    static var removedBit: UInt { 1 }

    /// Where the entries start, from the object's address: after the heap object's
    /// header (two words) and `Header`, aligned for an entry, as `ManagedBuffer` lays
    /// them out (`make` checks it). Computed from constants, so it folds away.
    @inline(__always)
    static var entriesOffset: Int {
        let alignment = MemoryLayout<UnsafeRawPointer?>.alignment
        let headerOffset = (2 * MemoryLayout<Int>.size + MemoryLayout<Header>.alignment - 1) & ~(MemoryLayout<Header>.alignment - 1)
        return (headerOffset + MemoryLayout<Header>.size + alignment - 1) & ~(alignment - 1)
    }

    static func make(capacity: Int, positioning: Bool = true) -> HandlerStorage {
        let buffer = create(minimumCapacity: capacity) { _ in Header(used: 0, capacity: UInt32(capacity), positions: positioning, bound: nil) }
        let storage = unsafeDowncast(buffer, to: HandlerStorage.self)
        assert(storage.withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) } == Unmanaged.passUnretained(storage).toOpaque() + entriesOffset)
        return storage
    }

    var used: Int { Int(header.used) }
    /// How many entries fit (`ManagedBuffer.capacity` asks the allocator).
    var room: Int { Int(header.capacity) }

    /// Appends `handler`, retained, and records its place. Exclusive lock held, room
    /// checked by the caller.
    func append(_ handler: Subscription) {
        withUnsafeMutablePointers { header, entries in
            let index = Int(header.pointee.used)
            (entries + index).initialize(to: UnsafeRawPointer(Unmanaged.passRetained(handler).toOpaque()))
            header.pointee.used = UInt32(truncatingIfNeeded: index + 1)
            if header.pointee.positions { handler.position = UInt32(truncatingIfNeeded: index) }
        }
    }

    /// The live handler at `index`, or nil when it was removed. Atomic.
    @inline(__always)
    func entry(at index: Int) -> UnsafeRawPointer? {
        withUnsafeMutablePointerToElements { entries in
            let bits = AtomicWord.load(UnsafeMutableRawPointer(entries + index))
            return bits & Self.removedBit != 0 ? nil : UnsafeRawPointer(bitPattern: bits)
        }
    }

    /// Takes `handler` out of the index of bound handlers, if it is there.
    func unindex(_ handler: Subscription, boundTo object: ObjectIdentifier) {
        withUnsafeMutablePointerToHeader { header in
            if header.pointee.bound?[object] === handler { header.pointee.bound?[object] = nil }
        }
    }

    /// Where `handler` is live among the first `end` entries, or nil: its recorded
    /// `position`, or a scan for a place too large to record (only lists of 16
    /// million handlers have such places; removing from them is then linear). Lock
    /// held.
    func place(of handler: Subscription, below end: Int) -> Int? {
        let address = UnsafeRawPointer(Unmanaged.passUnretained(handler).toOpaque())
        let recorded = Int(handler.position)
        guard recorded == Int(Subscription.unrecordedPosition) else {
            return recorded < end && entry(at: recorded) == address ? recorded : nil
        }
        return (0..<end).first { entry(at: $0) == address }
    }

    /// Marks the entry at `index` removed; the storage stops owning it. Exclusive
    /// lock held (no other writer), walks may be reading it.
    func markRemoved(at index: Int) {
        withUnsafeMutablePointerToElements { entries in
            _ = AtomicWord.insert(UnsafeMutableRawPointer(entries + index), Self.removedBit)
        }
    }

    deinit {
        withUnsafeMutablePointers { header, entries in
            for index in 0..<Int(header.pointee.used) {
                let raw = (entries + index).pointee
                if let raw, UInt(bitPattern: raw) & Self.removedBit == 0 {
                    Unmanaged<Subscription>.fromOpaque(raw).release()
                }
            }
            entries.deinitialize(count: Int(header.pointee.used))
        }
    }
}

/// A cursor over a `HandlerList`'s live handlers, each lent without reference
/// counting (see `HandlerList.borrowedCursor`): a protocol walk's loop, whose body
/// calls a closure that may throw, iterated the list as a sequence, which retained
/// the storage and each handler (measured: four retains and five releases a post).
/// `forEachBorrowed` keeps a loop of its own: written over this cursor, it cost a
/// post 357 to 394 instructions and a broadcast 186 to 212 a node (measured).
struct BorrowedHandlers {
    /// The storage, or a lone handler when `end` is 0; nil for an empty list.
    private let object: UnsafeMutableRawPointer?
    private let end: Int
    private var index = 0

    fileprivate init(object: UnsafeMutableRawPointer?, end: Int) {
        self.object = object
        self.end = end
    }

    /// A cursor over no handler.
    static var empty: BorrowedHandlers { BorrowedHandlers(object: nil, end: 0) }

    /// The next live handler, or nil after the last.
    @inline(__always)
    mutating func next() -> Unmanaged<Subscription>? {
        guard let object else { return nil }
        if end == 0 {
            // A lone handler: the storage word is the handler.
            guard index == 0 else { return nil }
            index = 1
            let handler = Unmanaged<Subscription>.fromOpaque(object)
            return handler._withUnsafeGuaranteedRef { $0.isRemoved } ? nil : handler
        }
        let entries = (object + HandlerStorage.entriesOffset).assumingMemoryBound(to: UnsafeRawPointer?.self)
        while index < end {
            // Entries below `end` are never null: one test skips removed ones.
            let bits = AtomicWord.load(UnsafeMutableRawPointer(entries + index))
            index &+= 1
            if bits & HandlerStorage.removedBit != 0 { continue }
            return Unmanaged<Subscription>.fromOpaque(UnsafeRawPointer(bitPattern: bits).unsafelyUnwrapped)
        }
        return nil
    }
}
