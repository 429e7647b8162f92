/// A node's slots: for each key it has had handlers for, the key and its handler
/// table, in one allocation that readers without a lock can read while a writer
/// changes it (performance round 3; see Maintainers/ReadsWithoutALock.md).
///
/// Keys are only ever appended: a new entry is written past the published count,
/// then the count is published with a releasing store. A key's table is a word of
/// its own, replaced with a releasing store (as tables always were: read-copy-update)
/// and cleared to 0 when the key loses its last handler; the entry stays, and the
/// key's next subscription fills it again. A store that fills up, or whose cleared
/// entries outnumber the live ones, is copied without them into a new store, which
/// the node publishes; the old one is retired with `Graveyard.retireShared`. So a
/// reader that loaded a store may read every entry below the count it loaded until
/// it unpins, and finds each key's table as some write left it.
///
/// Beside the count, the store's filter: the union of the `SlotKey.filterBit`s of
/// its keys, which lets a walk pass a node without scanning. Bits are only added
/// while a store is in use (a cleared key keeps its bit until the next copy), so the
/// filter is a superset of the live keys, never a subset. A reader that sees a new
/// bit before the entry it stands for finds no entry, and one that sees an entry
/// before its bit passes the node, as a walk that started earlier would.
///
/// Stores with more than `SlotStore.scanLimit` places also hold an index: an
/// open-addressing table from key to place, filled in with atomic stores after the
/// entry is published and never emptied (entries are never removed from a store),
/// so a node with thousands of event types or names finds a key in about one probe.
///
/// Writers hold the exclusive lock; readers under a stripe read plainly, readers
/// without one through `publishedTable(for:)`.
final class SlotStore: ManagedBuffer<SlotStore.Header, Slot> {
    struct Header {
        /// The entries readers may read, published with releasing stores: first in
        /// the header, so that the header's address is its address. 32 bits, as the
        /// filter beside it, on every platform.
        var published: UInt32
        /// The filter, published with releasing stores, at offset 4.
        var filter: UInt32
        var capacity: Int32
        /// Entries whose table is not cleared.
        var live: Int32
        var count: Int { Int(published) }
    }

    /// Where a header's filter is, from the header's address.
    fileprivate static let filterOffset = MemoryLayout<UInt32>.stride

    /// Stores this small are scanned: a few key compares cost less than hashing one.
    static let scanLimit = 8

    /// An empty store with room for at least `capacity` slots.
    ///
    /// A store of more than `scanLimit` places keeps its index in the same
    /// allocation, after its entries (a header field pointing at it would take a
    /// store of one slot from a 80-byte block to a 96-byte one).
    static func make(capacity: Int) -> SlotStore {
        guard capacity > scanLimit else {
            let buffer = create(minimumCapacity: capacity) { buffer in
                Header(published: 0, filter: 0, capacity: Int32(clamping: min(buffer.capacity, scanLimit)), live: 0)
            }
            return unsafeDowncast(buffer, to: SlotStore.self)
        }
        let size = indexSize(forCapacity: capacity)
        let indexPlaces = (size * MemoryLayout<UInt>.stride + MemoryLayout<Slot>.stride - 1) / MemoryLayout<Slot>.stride
        let buffer = create(minimumCapacity: capacity + indexPlaces) { _ in
            Header(published: 0, filter: 0, capacity: Int32(clamping: capacity), live: 0)
        }
        let store = unsafeDowncast(buffer, to: SlotStore.self)
        store.withUnsafeMutablePointers { header, slots in
            _ = UnsafeMutableRawPointer(slots + capacity).initializeMemory(as: UInt.self, repeating: 0, count: size)
        }
        return store
    }

    /// The index of a store of more than `scanLimit` places: `indexSize` words after
    /// the entries, each 0 (empty) or a place plus 1; nil for a smaller store.
    @inline(__always)
    private static func index(_ header: UnsafeMutablePointer<Header>, _ slots: UnsafeMutablePointer<Slot>) -> UnsafeMutablePointer<UInt>? {
        let capacity = Int(header.pointee.capacity)
        guard capacity > scanLimit else { return nil }
        return UnsafeMutableRawPointer(slots + capacity).assumingMemoryBound(to: UInt.self)
    }

    /// A power of two at least twice `capacity`: the index is never more than half full.
    private static func indexSize(forCapacity capacity: Int) -> Int {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        return size
    }

    deinit {
        withUnsafeMutablePointers { header, slots in
            for place in 0..<header.pointee.count {
                if let table = slots[place].unmanagedTable { table.release() }
            }
            slots.deinitialize(count: header.pointee.count)
        }
    }

    // Through the header's pointer, not `header`: that accessor is a class
    // property's, with the runtime's exclusivity checks on every access (measured:
    // they cost a post 40 instructions per node passed).
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    var live: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.live) } }
    var isFull: Bool { withUnsafeMutablePointerToHeader { $0.pointee.count == Int($0.pointee.capacity) } }

    /// The filter, read under the lock.
    @inline(__always)
    var filter: UInt32 { withUnsafeMutablePointerToHeader { $0.pointee.filter } }

    /// Where `key` would start its probe in an index of `size` places.
    @inline(__always)
    private static func probeStart(of key: SlotKey, size: Int) -> Int {
        key.spreadHash & (size - 1)
    }

    /// The place of `key`'s entry (its table may be cleared), or nil. Lock held.
    @inline(__always)
    func place(of key: SlotKey) -> Int? {
        withUnsafeMutablePointers { header, slots in
            let count = header.pointee.count
            guard let index = Self.index(header, slots) else {
                for place in 0..<count where slots[place].key == key { return place }
                return nil
            }
            let size = Self.indexSize(forCapacity: Int(header.pointee.capacity))
            var probe = Self.probeStart(of: key, size: size)
            while true {
                let cell = index[probe]
                if cell == 0 { return nil }
                if slots[Int(cell) - 1].key == key { return Int(cell) - 1 }
                probe = (probe + 1) & (size - 1)
            }
        }
    }

    /// The table of `key` as a reader without a lock finds it, or nil: the count,
    /// filter, index cells and table word are loaded atomically (acquiring). The
    /// caller is pinned (`GraphLock.pinWithoutLock`) and loaded this store from its
    /// node with `DominoNode.publishedSlots`. The table stays allocated until it
    /// unpins (while such a reader runs, no table is retired as young).
    @inline(__always)
    func publishedTable(for key: SlotKey) -> Unmanaged<HandlerTable>? {
        Slot.table(inWord: publishedTableWord(for: key))
    }

    /// `publishedTable(for:)`'s table word, `Slot.rarerTag` included; 0 for none.
    @inline(__always)
    func publishedTableWord(for key: SlotKey) -> UInt {
        withUnsafeMutablePointers { header, slots in
            if AtomicWord.load32(UnsafeMutableRawPointer(header) + Self.filterOffset) & key.filterBit == 0 { return 0 }
            let count = Int(AtomicWord.load32(UnsafeMutableRawPointer(header)))
            guard let index = Self.index(header, slots) else {
                for place in 0..<count where slots[place].key == key {
                    return Self.publishedTableWord(at: place, slots)
                }
                return 0
            }
            let size = Self.indexSize(forCapacity: Int(header.pointee.capacity))
            var probe = Self.probeStart(of: key, size: size)
            while true {
                let cell = AtomicWord.load(UnsafeMutableRawPointer(index + probe))
                if cell == 0 { return 0 }
                if slots[Int(cell) - 1].key == key { return Self.publishedTableWord(at: Int(cell) - 1, slots) }
                probe = (probe + 1) & (size - 1)
            }
        }
    }

    @inline(__always)
    fileprivate static func publishedTableWord(at place: Int, _ slots: UnsafeMutablePointer<Slot>) -> UInt {
        AtomicWord.load(Slot.tableAddress(of: slots + place))
    }

    /// The entry at `place`, read under the lock.
    @inline(__always)
    subscript(place: Int) -> Slot {
        _read { yield withUnsafeMutablePointerToElements { $0[place] } }
    }

    /// Installs `table` as the table of the entry at `place`, with a releasing
    /// store; returns the table it replaces (owned by the caller, who retires it),
    /// or nil when the entry was cleared. Exclusive lock held.
    func install(_ table: HandlerTable, at place: Int) -> HandlerTable? {
        withUnsafeMutablePointers { header, slots in
            let previous = slots[place].unmanagedTable
            AtomicWord.storeReleasing(Slot.tableAddress(of: slots + place), Slot.word(retaining: table))
            if previous == nil { header.pointee.live = header.pointee.live + 1 }
            return previous?.takeRetainedValue()
        }
    }

    /// Clears the entry at `place`; returns its table (owned by the caller, who
    /// retires it). Exclusive lock held.
    func clear(at place: Int) -> HandlerTable? {
        withUnsafeMutablePointers { header, slots in
            guard let previous = slots[place].unmanagedTable else { return nil }
            AtomicWord.storeReleasing(Slot.tableAddress(of: slots + place), 0)
            header.pointee.live = header.pointee.live - 1
            return previous.takeRetainedValue()
        }
    }

    /// Appends an entry for `key` with `table`, which the store retains. The store
    /// must not be full. Exclusive lock held.
    func append(_ key: SlotKey, _ table: HandlerTable) {
        withUnsafeMutablePointers { header, slots in
            let place = header.pointee.count
            precondition(place < Int(header.pointee.capacity), "SlotStore.append on a full store")
            (slots + place).initialize(to: Slot(key: key, table: table))
            header.pointee.live = header.pointee.live + 1
            AtomicWord.storeReleasing32(UnsafeMutableRawPointer(header), UInt32(place + 1))
            AtomicWord.storeReleasing32(UnsafeMutableRawPointer(header) + Self.filterOffset, header.pointee.filter | key.filterBit)
            if let index = Self.index(header, slots) {
                let size = Self.indexSize(forCapacity: Int(header.pointee.capacity))
                var probe = Self.probeStart(of: key, size: size)
                while index[probe] != 0 { probe = (probe + 1) & (size - 1) }
                AtomicWord.storeReleasing(UnsafeMutableRawPointer(index + probe), UInt(place + 1))
            }
        }
    }

    /// A store with this one's live entries in order, with room for at least
    /// `capacity`; not yet published. Exclusive lock held.
    func copyingLive(capacity: Int) -> SlotStore {
        let copy = Self.make(capacity: max(capacity, live))
        forEachLive { slot in
            copy.append(slot.key, slot.table)
        }
        return copy
    }

    /// True when cleared entries outnumber the live ones, and there are enough of
    /// them for a copy to be worth it.
    var isHoley: Bool {
        let (count, live) = withUnsafeMutablePointerToHeader { ($0.pointee.count, Int($0.pointee.live)) }
        let cleared = count - live
        return cleared > live && cleared > Self.scanLimit
    }

    /// Calls `body` with each entry whose table is not cleared, in order. Lock held.
    func forEachLive(_ body: (Slot) -> Void) {
        withUnsafeMutablePointers { header, slots in
            for place in 0..<header.pointee.count where slots[place].unmanagedTable != nil {
                body(slots[place])
            }
        }
    }
}

extension SlotKey {
    /// A hash for the slot index: the type's address scrambled (cheap, and
    /// addresses differ in their middle bits), the name's hash for named keys.
    @inline(__always)
    var spreadHash: Int {
        let bits = typeIdentityBits
        // Fibonacci hashing, the middle bits of the product (on a 32-bit word,
        // arm64_32, a shift that leaves as many of them).
        if bits >= 8 { return Int(truncatingIfNeeded: (bits &* SlotKey.goldenRatio) >> (UInt.bitWidth == 64 ? 29 : 13)) }
        return hashValue
    }
}

/// A node's slots in one word: 0 when the node has no handlers, else a
/// `SlotStore`'s address, retained. Writers hold the exclusive lock and publish a
/// new store with a releasing store of the word, retiring the old one with
/// `Graveyard.retireShared`; readers under a stripe read plainly, readers pinned
/// without a lock load the word atomically (`NodeSlotsRef.published`). Read and
/// changed through `NodeSlotsRef`, never `inout` (see `NodeList.withRef`).
struct NodeSlots: ~Copyable {
    private var word: UInt = 0

    init() {}

    deinit {
        // A node empties its slots (retiring the store) in its deinit.
        if word != 0 { Unmanaged<SlotStore>.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped).release() }
    }
}

/// A node's `NodeSlots` where it is stored, through which it is read and changed.
struct NodeSlotsRef {
    private let slotsWord: PublishedWord

    @inline(__always)
    init(at address: UnsafeMutableRawPointer) {
        slotsWord = PublishedWord(at: address)
    }

    /// The word, read plainly (lock held).
    @inline(__always)
    private var word: UInt { slotsWord.plain }

    /// The store, lent. Lock held.
    @inline(__always)
    private func withStore<R>(_ body: (SlotStore) throws -> R) rethrows -> R? {
        guard let pointer = UnsafeRawPointer(bitPattern: word) else { return nil }
        return try Unmanaged<SlotStore>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    @inline(__always)
    private func publish(_ new: UInt) {
        slotsWord.publish(new)
    }

    /// Publishes `store` (or none) in place of the current store, which is retired.
    private func replaceStore(with store: SlotStore?, _ graveyard: inout Graveyard) {
        let previous = word
        publish(store.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0)
        if let pointer = UnsafeRawPointer(bitPattern: previous) {
            graveyard.retireShared(Unmanaged<SlotStore>.fromOpaque(pointer).takeRetainedValue())
        }
    }

    /// The table of `key`, if the node has handlers for it: the filter first, then
    /// the entry. Lock held (a stripe or the exclusive lock).
    ///
    /// Only the two checks that pass most nodes are inlined (no slots; no key with
    /// the key's filter bit): with the look-up inlined too, a walk's visit closure
    /// grew past what the optimizer inlines, and a post paid a call per node passed
    /// (measured: 1,352 instructions at depth 10 against 998).
    @inline(__always)
    func table(for key: SlotKey) -> Unmanaged<HandlerTable>? {
        let word = word
        guard let pointer = UnsafeRawPointer(bitPattern: word) else { return nil }
        let store = Unmanaged<SlotStore>.fromOpaque(pointer)
        let bit = key.filterBit
        let typeBits = key.typeIdentityBits
        // The filter, and the first entry when its key is the key's type (the common
        // node: one event type), inline; the rest out of line.
        let first: Unmanaged<HandlerTable>?? = store._withUnsafeGuaranteedRef { store in
            store.withUnsafeMutablePointers { header, slots in
                if header.pointee.filter & bit == 0 { return .some(nil) }
                if typeBits >= 8 && header.pointee.published > 0 && slots[0].key.typeIdentityBits == typeBits {
                    return .some(slots[0].unmanagedTable)
                }
                return nil
            }
        }
        if let first { return first }
        return Self.lookUp(key, in: store)
    }

    @inline(never)
    private static func lookUp(_ key: SlotKey, in store: Unmanaged<SlotStore>) -> Unmanaged<HandlerTable>? {
        store._withUnsafeGuaranteedRef { store in
            guard let place = store.place(of: key) else { return nil }
            return store[place].unmanagedTable
        }
    }

    /// The table of `key` as a reader pinned without a lock finds it (see
    /// `SlotStore.publishedTable(for:)`), with the same two checks inlined as
    /// `table(for:)`: the filter, and the first entry when its key is the key's type.
    @inline(__always)
    func publishedTable(for key: SlotKey) -> Unmanaged<HandlerTable>? {
        Slot.table(inWord: publishedTableWord(for: key))
    }

    /// `publishedTable(for:)`'s table word, `Slot.rarerTag` included; 0 for none.
    @inline(__always)
    func publishedTableWord(for key: SlotKey) -> UInt {
        guard let store = published else { return 0 }
        let bit = key.filterBit
        let typeBits = key.typeIdentityBits
        let first: UInt? = store._withUnsafeGuaranteedRef { store in
            store.withUnsafeMutablePointers { header, slots in
                let raw = UnsafeMutableRawPointer(header)
                if AtomicWord.load32(raw + SlotStore.filterOffset) & bit == 0 { return 0 }
                // An entry is complete before the count that covers it is published.
                if typeBits >= 8 && AtomicWord.load32(raw) > 0 && slots[0].key.typeIdentityBits == typeBits {
                    return SlotStore.publishedTableWord(at: 0, slots)
                }
                return nil
            }
        }
        if let first { return first }
        return Self.lookUpPublished(key, in: store)
    }

    @inline(never)
    private static func lookUpPublished(_ key: SlotKey, in store: Unmanaged<SlotStore>) -> UInt {
        store._withUnsafeGuaranteedRef { $0.publishedTableWord(for: key) }
    }

    /// The store, loaded atomically (acquiring), for a reader pinned without a
    /// lock; it reads it with `SlotStore.publishedTable(for:)`.
    @inline(__always)
    var published: Unmanaged<SlotStore>? {
        UnsafeRawPointer(bitPattern: slotsWord.acquired).map { Unmanaged.fromOpaque($0) }
    }

    /// The place of `key`'s entry (cleared or not), if the store has one. Lock held.
    func place(of key: SlotKey) -> Int? {
        withStore { $0.place(of: key) } ?? nil
    }

    /// The key of the entry at `place`. Lock held.
    func key(at place: Int) -> SlotKey {
        withStore { $0[place].key }!
    }

    /// The table at `place`, which is not cleared. Lock held.
    func table(at place: Int) -> HandlerTable {
        withStore { $0[place].table }!
    }

    /// Installs `table` for `key`, in its entry if it has one (retiring the table it
    /// replaces), else in a new entry; returns the entry's place. Exclusive lock held.
    ///
    /// A key's first table at the node (none before, or a cleared entry) is
    /// installed with the walk sequence odd (`GraphLock.changingLinks`): a walk
    /// without a lock checks again, under its delivery pin, only the tables it found,
    /// so without it a walk could find a table installed after one it missed at a
    /// node it had passed (a later subscription seen, an earlier one not).
    func install(_ table: HandlerTable, for key: SlotKey, _ graveyard: inout Graveyard) -> Int {
        if self.table(for: key) == nil {
            return graphLock.changingLinks { installEntry(table, for: key, &graveyard) }
        }
        return installEntry(table, for: key, &graveyard)
    }

    private func installEntry(_ table: HandlerTable, for key: SlotKey, _ graveyard: inout Graveyard) -> Int {
        if let place = place(of: key) {
            if let previous = withStore({ $0.install(table, at: place) }) ?? nil { graveyard.retire(previous) }
            return place
        }
        if let store = withStore({ $0 }), !store.isFull {
            store.append(key, table)
            return store.count - 1
        }
        // Room for twice the live keys: appending N keys copies O(N) entries in all.
        let live = withStore { $0.live } ?? 0
        let grown = withStore { $0.copyingLive(capacity: 2 * (live + 1)) } ?? SlotStore.make(capacity: 1)
        grown.append(key, table)
        replaceStore(with: grown, &graveyard)
        return grown.count - 1
    }

    /// Clears the entry at `place`, retiring its table; when the node has no live
    /// entry left, or cleared ones outnumber live ones, publishes a smaller store (or
    /// none). Exclusive lock held.
    func clear(at place: Int, _ graveyard: inout Graveyard) {
        guard let store = withStore({ $0 }) else { return }
        if let previous = store.clear(at: place) { graveyard.retire(previous) }
        if store.live == 0 {
            replaceStore(with: nil, &graveyard)
        } else if store.isHoley {
            replaceStore(with: store.copyingLive(capacity: store.live + store.live / 2 + 1), &graveyard)
        }
    }

    /// Clears every entry, retiring each table, and publishes no store. Exclusive
    /// lock held.
    func removeAll(_ graveyard: inout Graveyard) {
        guard let store = withStore({ $0 }) else { return }
        for place in 0..<store.count {
            if let table = store.clear(at: place) { graveyard.retire(table) }
        }
        replaceStore(with: nil, &graveyard)
    }

    /// Calls `body` with each entry that has handlers, in order. Lock held.
    func forEach(_ body: (Slot) -> Void) {
        withStore { $0.forEachLive(body) }
    }

    /// The first entry with handlers for which `predicate` is true. Lock held.
    func first(where predicate: (Slot) -> Bool) -> Slot? {
        var found: Slot?
        forEach { slot in if found == nil && predicate(slot) { found = slot } }
        return found
    }

    /// The place of the entry whose table holds `handler`. Lock held.
    func place(holding handler: Subscription) -> Int? {
        withStore { store -> Int? in
            for place in 0..<store.count {
                if let table = store[place].unmanagedTable, table._withUnsafeGuaranteedRef({ $0.contains(handler) }) {
                    return place
                }
            }
            return nil
        } ?? nil
    }
}
