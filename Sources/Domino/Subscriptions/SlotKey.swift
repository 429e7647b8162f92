/// What a handler table entry at a node is for: one Swift type, or one event name,
/// in one ``Phase``.
///
/// A struct rather than an enum with a `String` payload: comparing two type keys
/// then touches one machine word and no reference count, which matters because
/// every node of every walk compares keys.
///
/// `typeBits` is the type's identity (a metadata address, so at least 8-aligned)
/// with the phase in its low bits; named events have no type, so their `typeBits`
/// is the phase alone, below 8.
struct SlotKey: Hashable, Sendable {
    private let typeBits: UInt
    /// The event name, for named events.
    private let eventName: String?

    private static let phaseMask: UInt = 0b11

    @inline(__always)
    static func of<T>(_ type: T.Type) -> SlotKey {
        SlotKey(typeBits: UInt(bitPattern: ObjectIdentifier(type)), eventName: nil)
    }

    /// The slot of protocol events of `Target` (a protocol's existential type):
    /// keyed by `Target` itself rather than `ProtocolEvent<Target>`, whose metadata
    /// an unspecialized walk looks up at every post (about 330 instructions). No
    /// typed event or request has an existential type (existentials do not conform
    /// to `Event` or `Request`), so the keys never meet.
    @inline(__always)
    static func ofProtocol<Target>(_ type: Target.Type) -> SlotKey {
        .of(type)
    }

    /// The slot of a node's group interceptors (``DominoNode/intercept(every:_:)``):
    /// below 8 and with no name, so it equals no type key and no named key.
    static let group = SlotKey(typeBits: 7, eventName: nil)

    static func name(_ name: String) -> SlotKey {
        SlotKey(typeBits: 0, eventName: name)
    }

    /// The same event in another phase.
    func `in`(_ phase: Phase) -> SlotKey {
        SlotKey(typeBits: (typeBits & ~Self.phaseMask) | UInt(phase.bits), eventName: eventName)
    }

    /// The key's bit in a node's `slotFilter`: one of 32, from the type's address
    /// and the phase (a raise's look-up of a type's raise-phase key at each node on
    /// its way up used to pass the filter wherever the type had bubble handlers:
    /// measured, 30 instructions a node). Two keys with the same bit only cost a
    /// scan of the slots, never a wrong answer.
    ///
    /// The top five bits of the identity times 2⁶⁴ (2³² on a 32-bit watch) divided
    /// by the golden ratio (Fibonacci hashing): every bit of the address reaches
    /// them, and the phases of one type, one apart in the low bits, land about 20
    /// bits apart. Keys without a type (the phase alone) get their bits the same
    /// way. Three instructions (the constants fold); the shifts and masks before,
    /// with a test for keys without a type, cost every post 10 more (357 to 347;
    /// session 29).
    @inline(__always)
    var filterBit: UInt32 {
        1 << UInt32(truncatingIfNeeded: (typeBits &* Self.goldenRatio) >> (UInt.bitWidth - 5))
    }

    /// 2 to the word's width divided by the golden ratio, odd: Knuth's
    /// multiplicative hashing constant, for `filterBit` and `spreadHash`. Written for
    /// the word's width: `UInt` is 32 bits on arm64_32 (Apple Watch), where a 64-bit
    /// literal would not compile; the 32-bit constant is the 64-bit one's top half.
    /// A computed property, which folds to the constant where it is used.
    @inline(__always)
    static var goldenRatio: UInt {
        UInt(truncatingIfNeeded: (0x9E37_79B9_7F4A_7C15 as UInt64) >> (64 - UInt.bitWidth))
    }

    /// The phase this key's handlers run in.
    var phase: Phase { Phase(bits: UInt8(typeBits & Self.phaseMask)) ?? .bubble }

    /// The event name of a named-event key.
    var name: String? { eventName }

    /// The type's identity with the phase in its low bits, or (below 8) the phase
    /// alone for keys without a type.
    @inline(__always)
    var typeIdentityBits: UInt { typeBits }

    @inline(__always)
    static func == (lhs: SlotKey, rhs: SlotKey) -> Bool {
        if lhs.typeBits != rhs.typeBits { return false }
        return lhs.typeBits >= 8 || lhs.eventName == rhs.eventName
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(typeBits)
        if typeBits < 8 { hasher.combine(eventName) }
    }

    /// How tracing and descriptions name the key: the quoted event name, or the type.
    func displayName<T>(for type: T.Type) -> String {
        displayName(typeName: String(describing: type))
    }

    func displayName(typeName: @autoclosure () -> String) -> String {
        if let eventName { return "\"\(eventName)\"" }
        return typeName()
    }
}

/// The role a handler plays in a slot, which decides when it runs during a walk.
enum HandlerRole: UInt8, Sendable {
    /// Receives events (notification semantics) or answers requests.
    case subscriber
    /// Runs before the node's subscribers and may rewrite the value.
    case reformer
    /// Runs after the node's subscribers and may stop the event.
    case interceptor
    /// Answers requests (chain of responsibility).
    case responder
}

/// The handlers of one slot at one node, in subscription order.
///
/// Readers copy the reference under the shared lock and then iterate it outside
/// the lock; writers never change what a published table shows but install a new
/// table (see `DominoNode.replaceTable`), whose lists share their storage with the
/// old one's (see `HandlerList`). So a walk sees the table's handlers as they were
/// when the walk collected it, less those removed since.
final class HandlerTable: Sendable {
    /// The label of the node the table belongs to, copied here so that a walk can
    /// name the node without holding it (the node may go away mid-walk).
    let label: String?
    /// The identity of that node, for the same reason.
    let nodeID: ObjectIdentifier

    // `let`: a published table never changes, and immutable stored properties let
    // the walk borrow the lists instead of retaining them.
    /// The subscribers, or the responders when `primaryResponds`: the list a walk
    /// reads, inline. A slot holds subscribers (an event's key) or responders (a
    /// request's); only a type that is both an event and a request has both, and
    /// then its responders are the rarer lists' `secondary`. One list inline rather
    /// than two: 16 bytes fewer per table, so a table takes an 80-byte block rather
    /// than 96.
    let primary: HandlerList
    /// The reformers, the interceptors and the secondary list, which few slots
    /// have, out of line: nil when there are none (so a table takes an 80-byte
    /// block rather than 128).
    let rarer: RarerLists?

    /// The low 32 bits of the graph lock's epoch when this table was made (under
    /// the lock): a walk that pinned in an earlier epoch cannot have borrowed it
    /// (see `GraphLock`). The low bits, as a handler's (see
    /// `Subscription.publishedEpoch`).
    let publishedEpoch: UInt32
    /// True when `primary` holds the responders (the table has no subscribers).
    let primaryResponds: Bool

    init(
        label: String?,
        nodeID: ObjectIdentifier,
        subscribers: HandlerList = .empty,
        reformers: HandlerList = .empty,
        interceptors: HandlerList = .empty,
        responders: HandlerList = .empty,
        publishedEpoch: UInt32? = nil
    ) {
        self.label = label
        self.nodeID = nodeID
        primaryResponds = subscribers.isEmpty && !responders.isEmpty
        primary = primaryResponds ? responders : subscribers
        let secondary = primaryResponds ? HandlerList.empty : responders
        rarer = reformers.isEmpty && interceptors.isEmpty && secondary.isEmpty
            ? nil : RarerLists(reformers: reformers, interceptors: interceptors, secondary: secondary)
        // Read under the lock, for a table about to be published; a detached copy
        // (never published) keeps its original's instead: its walk holds only a pin,
        // and reading the epoch there raced with writers advancing it (TSan).
        self.publishedEpoch = publishedEpoch ?? UInt32(truncatingIfNeeded: GraphLock.currentEpoch)
    }

    /// A table's reformers, interceptors and secondary list (see `rarer`).
    final class RarerLists: Sendable {
        let reformers: HandlerList
        let interceptors: HandlerList
        /// The responders of a table that also has subscribers (see `primary`).
        let secondary: HandlerList

        init(reformers: HandlerList, interceptors: HandlerList, secondary: HandlerList) {
            self.reformers = reformers
            self.interceptors = interceptors
            self.secondary = secondary
        }
    }

    /// The subscribers: `primary` unless it holds the responders. (Walks call
    /// `forEachSubscriber(of:_:)`, which borrows the list.)
    var subscribers: HandlerList {
        primaryResponds ? HandlerList.empty : primary
    }

    /// The responders: `primary` when it holds them, else the secondary list.
    var responders: HandlerList {
        _read {
            if primaryResponds {
                yield primary
            } else if let rarer {
                yield rarer.secondary
            } else {
                yield HandlerList.empty
            }
        }
    }

    /// The reformers (cold paths; walks test `hasReformers` first).
    var reformers: HandlerList {
        _read {
            if let rarer { yield rarer.reformers } else { yield HandlerList.empty }
        }
    }

    /// The interceptors (cold paths; walks test `hasInterceptors` first).
    var interceptors: HandlerList {
        _read {
            if let rarer { yield rarer.interceptors } else { yield HandlerList.empty }
        }
    }

    /// True when the table has reformers (without a retain, which reading
    /// `reformers` through its accessor costs).
    var hasReformers: Bool {
        guard let rarer else { return false }
        return !rarer.reformers.isEmpty
    }

    /// True when the table has interceptors (see `hasReformers`).
    var hasInterceptors: Bool {
        guard let rarer else { return false }
        return !rarer.interceptors.isEmpty
    }

    /// An empty table of `node`: what a stage with only group interceptors runs.
    /// Borrowing, and the identity from the node's link: called under the lock,
    /// where a debug build's copy of the node must not be its last reference (see
    /// `NodeLink.init(_:)`).
    convenience init(of node: borrowing DominoNode) {
        self.init(label: node.label, nodeID: NodeLink(node).id)
    }

    /// How tracing and diagnostics name the table's node.
    var nodeName: String { DominoNode.describe(label: label, id: nodeID) }

    var isEmpty: Bool { subscribers.isEmpty && reformers.isEmpty && interceptors.isEmpty && responders.isEmpty }
    var count: Int { subscribers.count + reformers.count + interceptors.count + responders.count }

    /// A table with `list` as the list of `role` and the others as here.
    private func with(_ list: HandlerList, as role: HandlerRole) -> HandlerTable {
        HandlerTable(
            label: label,
            nodeID: nodeID,
            subscribers: role == .subscriber ? list : subscribers,
            reformers: role == .reformer ? list : reformers,
            interceptors: role == .interceptor ? list : interceptors,
            responders: role == .responder ? list : responders
        )
    }

    /// A table with `handler` appended to the list of its role. O(1) amortized.
    /// Exclusive lock held.
    func adding(_ handler: Subscription) -> HandlerTable {
        with(list(of: handler.role).appending(handler), as: handler.role)
    }

    /// A table without `handler` (which it holds: see `contains`). O(1) amortized.
    /// The caller retires `handler`. Exclusive lock held.
    func removing(_ handler: Subscription) -> HandlerTable {
        with(list(of: handler.role).removing(handler), as: handler.role)
    }

    /// The same handlers in storage of its own, for a walk that gives up its pin.
    func detachedCopy() -> HandlerTable {
        HandlerTable(
            label: label,
            nodeID: nodeID,
            subscribers: subscribers.detachedCopy(),
            reformers: reformers.detachedCopy(),
            interceptors: interceptors.detachedCopy(),
            responders: responders.detachedCopy(),
            publishedEpoch: publishedEpoch
        )
    }

    /// The list of `role`.
    func list(of role: HandlerRole) -> HandlerList {
        switch role {
        case .subscriber: return subscribers
        case .reformer: return reformers
        case .interceptor: return interceptors
        case .responder: return responders
        }
    }

    /// True when the table holds `handler`. O(1). Lock held.
    func contains(_ handler: Subscription) -> Bool {
        list(of: handler.role).contains(handler)
    }

    /// Calls `body` with each handler of `list` (one of this table's lists) until it
    /// returns false, lending each one without reference counting: the table's
    /// storage holds them, and the caller holds the table. This is what keeps a walk
    /// from touching the reference counts of handlers that other threads walk too.
    ///
    /// A body that keeps a handler must copy it in a function of its own (see
    /// `DominoNode.keep(_:in:)`): a copy in the body itself makes the compiler
    /// retain every handler up front.
    @inline(__always)
    static func forEachBorrowed(in list: borrowing HandlerList, _ body: (Subscription) -> Bool) {
        list.forEachBorrowed(body)
    }

    /// `forEachBorrowed(in:_:)` over `table`'s subscribers. Walks use this rather
    /// than the `subscribers` accessor, whose yielded list a walk's loop retained
    /// (one retain and release per stage, measured).
    /// With `lonesUnchecked`, `body` tests `isRemoved` itself (see
    /// `HandlerList.forEachBorrowed(lonesUnchecked:_:)`).
    @inline(__always)
    static func forEachSubscriber(of table: HandlerTable, lonesUnchecked: Bool = false, _ body: (Subscription) -> Bool) {
        if !table.primaryResponds { table.primary.forEachBorrowed(lonesUnchecked: lonesUnchecked, body) }
    }

    /// `table`'s subscribers as a cursor (see `HandlerList.borrowedCursor`), for a
    /// loop whose body throws.
    @inline(__always)
    static func subscriberCursor(of table: Unmanaged<HandlerTable>) -> BorrowedHandlers {
        table._withUnsafeGuaranteedRef { $0.primaryResponds ? .empty : $0.primary.borrowedCursor }
    }

    /// `forEachBorrowed(in:_:)` over `table`'s reformers (see `forEachSubscriber`:
    /// the `reformers` accessor's list was retained, measured).
    @inline(__always)
    static func forEachReformer(of table: HandlerTable, _ body: (Subscription) -> Bool) {
        withRarerLists(of: table) { $0.reformers.forEachBorrowed(body) }
    }

    /// `forEachBorrowed(in:_:)` over `table`'s interceptors (see `forEachReformer`).
    @inline(__always)
    static func forEachInterceptor(of table: HandlerTable, _ body: (Subscription) -> Bool) {
        withRarerLists(of: table) { $0.interceptors.forEachBorrowed(body) }
    }

    /// Lends `table`'s rarer lists to `body`, if it has them. Their address is read as
    /// a bit pattern, as `HandlerList.forEachBorrowed` reads its storage's: bound as
    /// a reference, the lists were retained and released (measured).
    @inline(__always)
    private static func withRarerLists(of table: HandlerTable, _ body: (RarerLists) -> Void) {
        guard let rarer = unsafeBitCast(table.rarer, to: UnsafeRawPointer?.self) else { return }
        Unmanaged<RarerLists>.fromOpaque(rarer)._withUnsafeGuaranteedRef(body)
    }

    /// `forEachBorrowed(in:_:)` over `table`'s responders (see `forEachSubscriber`;
    /// the secondary list lent as `forEachReformer`'s).
    @inline(__always)
    static func forEachResponder(of table: HandlerTable, _ body: (Subscription) -> Bool) {
        if table.primaryResponds {
            table.primary.forEachBorrowed(body)
        } else {
            withRarerLists(of: table) { $0.secondary.forEachBorrowed(body) }
        }
    }

    /// Calls `body` with each live handler, retained. Lock held.
    func forEachHandler(_ body: (Subscription) -> Void) {
        subscribers.forEachLiveLocked(body)
        reformers.forEachLiveLocked(body)
        interceptors.forEachLiveLocked(body)
        responders.forEachLiveLocked(body)
    }
}

/// One entry of a node's slots (see `SlotStore`): a key and its handler table.
struct Slot {
    let key: SlotKey
    /// The table, retained by the store (`Unmanaged` bits), with `rarerTag` set
    /// when the table has reformers, interceptors or secondary responders; or 0
    /// once the key has no handlers left. Written with releasing stores: readers
    /// without a lock load it atomically (see `SlotStore.publishedTable(for:)`).
    fileprivate(set) var tableWord: UInt
    /// An entry holding `table` retained.
    init(key: SlotKey, table: HandlerTable) {
        self.key = key
        tableWord = Self.word(retaining: table)
    }

    /// Set in a table word when its table's `rarer` lists exist: a walk down
    /// without the stripe, which delivers only tables without them, learns it
    /// from the word it loads anyway, without reading the table (which only its
    /// delivery pin would let it read: measured, testing each table under that
    /// pin cost a broadcast 6 instructions a node). A table is a heap object
    /// (aligned to 8 bytes at least) and never changes: the bit is free, and
    /// always says what the table holds.
    static let rarerTag: UInt = 1

    /// The word of an entry holding `table`, retained.
    static func word(retaining table: HandlerTable) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(table).toOpaque()) | (table.rarer == nil ? 0 : rarerTag)
    }

    /// The table a table word names, or nil for 0.
    @inline(__always)
    static func table(inWord word: UInt) -> Unmanaged<HandlerTable>? {
        UnsafeRawPointer(bitPattern: word & ~rarerTag).map { Unmanaged.fromOpaque($0) }
    }

    /// Where the table word of the entry at `slot` is, for atomic access.
    @inline(__always)
    static func tableAddress(of slot: UnsafeMutablePointer<Slot>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(slot) + tableOffset
    }

    /// The table word's offset in an entry: right after the key, the first stored
    /// property (a test compares it with `MemoryLayout<Slot>.offset(of:)`). A
    /// constant, where a `static let` of `offset(of:)` cost every access a
    /// `swift_once` (two per post).
    @inline(__always)
    static var tableOffset: Int { MemoryLayout<SlotKey>.stride }

    /// The table, unless the entry is cleared. Lock held.
    @inline(__always)
    var unmanagedTable: Unmanaged<HandlerTable>? {
        Self.table(inWord: tableWord)
    }

    /// The table of an entry that is not cleared. Lock held.
    @inline(__always)
    var table: HandlerTable { unmanagedTable.unsafelyUnwrapped.takeUnretainedValue() }
}
