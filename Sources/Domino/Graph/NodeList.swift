/// A non-owning link to a node, valid only under `graphLock`.
///
/// Links never retain, and code holding the lock never even retains the node
/// behind a link: a node whose host just dropped its last reference may be waiting
/// in its deinit for the exclusive lock, and a retain/release pair taken under the
/// lock could make that release the last one, running the deinit under the lock
/// (a deadlock). So a link is a raw pointer, compared by address and borrowed with
/// `withNode` (no reference counting). A node clears every link to itself under the
/// exclusive lock in its deinit, so a reader holding the lock never meets a freed one.
struct NodeLink: Hashable {
    let pointer: UnsafeMutableRawPointer

    /// Borrowing: an initializer takes its arguments owned by default, so a debug
    /// build retained `node` for the call and released it in it, under the lock. A
    /// node borrowed from a link may have lost its last other reference meanwhile:
    /// that release was the last, and ran the node's deinit under the lock, which
    /// waits for the exclusive lock: a deadlock (seen in CI under the address
    /// sanitizer, a debug build: the responder checks of session 17 making a node's
    /// link).
    @inline(__always)
    init(_ node: borrowing DominoNode) {
        pointer = Unmanaged.passUnretained(node).toOpaque()
    }

    @inline(__always)
    init(pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
    }

    /// The node's `ObjectIdentifier`, made from the pointer: `ObjectIdentifier(node)`
    /// takes its argument owned, so a debug build retains and releases a node for
    /// it, which under the lock risks the deadlock described at `init(_:)`.
    @inline(__always)
    var id: ObjectIdentifier {
        unsafeBitCast(pointer, to: ObjectIdentifier.self)
    }

    @inline(__always)
    func refers(to node: DominoNode) -> Bool {
        pointer == Unmanaged.passUnretained(node).toOpaque()
    }

    /// Borrows the node without retaining it. Lock held.
    @inline(__always)
    func withNode<R>(_ body: (DominoNode) throws -> R) rethrows -> R {
        try Unmanaged<DominoNode>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// A strong reference for handing the node out of the lock, or nil when the node
    /// is already being deallocated. The caller must release it after unlocking.
    func retainIfAlive() -> DominoNode? {
        guard let retained = tryRetain(pointer) else { return nil }
        return Unmanaged<DominoNode>.fromOpaque(retained).takeRetainedValue()
    }
}

/// An ordered list of node links in one word.
///
/// Most nodes have one parent and few children: a single link is the word itself,
/// so a node with one parent and one child allocates nothing for its links, and a
/// walk tells "one link" from "several" by the word's low bit. Two links or more
/// live in a `LinkStore` that the list owns. Long lists (a parent with thousands of
/// children, a child mounted at thousands of parents) find and remove a link in
/// constant time, so mounting and unmounting N links costs O(N), not O(N^2); see
/// `LinkStore`.
///
/// One word, not the first link inline beside a reference to the rest (16 bytes):
/// a node holds two lists, and the 16 bytes took an idle node from 96 bytes of heap
/// to 112. A plain word, not an enum with a class payload, so that reading a list
/// costs no reference counting (measured: an enum cost a post at depth 10 over 200
/// instructions, its copies' outlined retain checks). Noncopyable, so the store has
/// one owner and is changed in place.
///
/// Published for readers that hold no lock (performance round 3; see
/// Maintainers/ReadsWithoutALock.md): writers hold the exclusive lock and change the
/// word with releasing stores, a store's links are only ever appended (published by
/// a releasing store of its bounds) or cleared to holes in place (an atomic store),
/// and a store the list stops using is retired with `Graveyard.retireShared`, never
/// released while a reader pinned without a lock may still read it. Readers under a
/// stripe read plainly (no writer runs then); readers without one use
/// `NodeListRef.publishedShape` and `Shape.forEachPublishedLink`.
struct NodeList: ~Copyable {
    /// 0 when empty; a node's address when the list holds that one link; else a
    /// `LinkStore`'s address plus 1, retained by the list. Objects are aligned to 16
    /// bytes, so a node's address never has the low bit set. The list's only stored
    /// property, so a pointer to the list is a pointer to the word.
    private var word: UInt = 0

    init() {}

    deinit {
        // Lists are emptied (their store retired) before their owner goes; a list
        // that was never published (tests) releases its store here.
        if word & 1 != 0 { Self.unmanagedStore(word).release() }
    }

    fileprivate static func unmanagedStore(_ word: UInt) -> Unmanaged<LinkStore> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word & ~1).unsafelyUnwrapped)
    }

    /// Runs `body` with a reference to this list, for lists that only code holding
    /// the lock touches (tests). A list that readers without a lock read is reached
    /// through `NodeListRef(at:)` from its owner's address instead: passing it
    /// `inout`, as this does, is an access to the whole word that the thread
    /// sanitizer sees as a plain write racing with those readers.
    mutating func withRef<R>(_ body: (NodeListRef) throws -> R) rethrows -> R {
        try withUnsafeMutablePointer(to: &word) { try body(NodeListRef(at: UnsafeMutableRawPointer($0))) }
    }

    /// The list's word, read once, for a walk up a chain: whether the list has
    /// several links, else its one link (or none).
    struct Shape {
        fileprivate let word: UInt

        /// True when the list has two links or more.
        @inline(__always)
        var isMultiple: Bool { word & 1 != 0 }

        /// The shape of an empty list.
        @inline(__always)
        static var empty: Shape { Shape(word: 0) }

        /// True when the list has no link.
        @inline(__always)
        var isEmpty: Bool { word == 0 }

        /// The links as a cursor, one link or several (`ChildCursor.single` for one),
        /// read with `ChildCursor.advanceAny`: for a walk under a stripe.
        @inline(__always)
        var cursor: ChildCursor {
            if let only { return .single(only) }
            return publishedCursor ?? .empty
        }

        /// The one link of a list that has no more; nil when it has none (or several).
        @inline(__always)
        var only: NodeLink? {
            guard word & 1 == 0, let pointer = UnsafeMutableRawPointer(bitPattern: word) else { return nil }
            return NodeLink(pointer: pointer)
        }

        /// Calls `body` with each link in order, reading the store's bounds and links
        /// atomically: for a reader pinned without a lock (`GraphLock.pinWithoutLock`)
        /// that loaded this shape with `NodeListRef.publishedShape`. A link cleared or
        /// appended meanwhile may or may not be seen; no link that stays is missed.
        @inline(__always)
        func forEachPublishedLink(_ body: (NodeLink) -> Void) {
            if let only { return body(only) }
            guard isMultiple else { return }
            NodeList.unmanagedStore(word)._withUnsafeGuaranteedRef { $0.forEachPublished(body) }
        }

        /// The links of a list of two or more as a cursor (see `ChildCursor`), or
        /// nil for a list of one link or none. For a reader pinned without a lock,
        /// as `forEachPublishedLink`: the store's bounds read now, each place when
        /// the cursor reaches it.
        @inline(__always)
        var publishedCursor: ChildCursor? {
            guard isMultiple else { return nil }
            return NodeList.unmanagedStore(word)._withUnsafeGuaranteedRef { $0.publishedCursor }
        }

        /// `forEachPublishedLink` from the last link to the first: for a walk down
        /// that pushes a node's children on its stack so that they pop in order.
        @inline(__always)
        func forEachPublishedLinkReversed(_ body: (NodeLink) -> Void) {
            if let only { return body(only) }
            guard isMultiple else { return }
            NodeList.unmanagedStore(word)._withUnsafeGuaranteedRef { $0.forEachPublishedReversed(body) }
        }
    }
}

/// A `NodeList` where it is stored (a node's, a responder link's), through which it is
/// read and changed: a pointer, so that no access to the list is an `inout` one (see
/// `NodeList.withRef`). Writers hold the exclusive lock; readers hold a stripe, or
/// use `publishedShape` when pinned without a lock.
struct NodeListRef {
    private let published: PublishedWord

    @inline(__always)
    init(at address: UnsafeMutableRawPointer) {
        published = PublishedWord(at: address)
    }

    /// The word, read plainly (lock held).
    @inline(__always)
    private var word: UInt { published.plain }

    private static func word(owning store: LinkStore) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(store).toOpaque()) | 1
    }

    /// Sets the word with a releasing store: a reader without a lock that loads it
    /// sees the store (or link) it names complete. Exclusive lock held.
    @inline(__always)
    private func publish(_ new: UInt) {
        published.publish(new)
    }

    /// Publishes `new` in place of the word, retiring the store the list owned (if
    /// any) for readers without a lock that may still read it.
    private func replace(with new: UInt, _ graveyard: inout Graveyard) {
        let previous = word
        publish(new)
        if previous & 1 != 0 { graveyard.retireShared(NodeList.unmanagedStore(previous).takeRetainedValue()) }
    }

    /// The single link, when the list holds exactly one.
    @inline(__always)
    private var only: NodeLink? { shape.only }

    /// Runs `body` with the store lent, when the list has one.
    @inline(__always)
    private func withStore<R>(_ body: (LinkStore) throws -> R) rethrows -> R? {
        let word = word
        guard word & 1 != 0 else { return nil }
        return try NodeList.unmanagedStore(word)._withUnsafeGuaranteedRef(body)
    }

    @inline(__always)
    var shape: NodeList.Shape { NodeList.Shape(word: word) }

    /// The shape, loaded atomically (acquiring): for readers pinned without a lock,
    /// whose writers may be changing the list.
    @inline(__always)
    var publishedShape: NodeList.Shape { NodeList.Shape(word: published.acquired) }

    var isEmpty: Bool { word == 0 }
    /// True when the list has two links or more.
    @inline(__always)
    var isMultiple: Bool { shape.isMultiple }

    /// Exclusive lock held: a search may build a long list's index.
    func contains(_ node: DominoNode) -> Bool {
        let link = NodeLink(node)
        if let only { return only == link }
        return withStore { $0.place(of: link) != nil } ?? false
    }

    /// Appends a link to `node`. Exclusive lock held; a store outgrown is retired to
    /// `graveyard`.
    func append(_ node: DominoNode, _ graveyard: inout Graveyard) {
        let link = NodeLink(node)
        if word == 0 {
            publish(UInt(bitPattern: link.pointer))
        } else if let only {
            let store = LinkStore.make(capacity: 2)
            _ = store.append(only)
            _ = store.append(link)
            publish(Self.word(owning: store))
        } else if let grown = withStore({ $0.append(link) }) ?? nil {
            replace(with: Self.word(owning: grown), &graveyard)
        }
    }

    /// Removes the link to `node`; false when the list has none. Exclusive lock held;
    /// a store the list stops using is retired to `graveyard`.
    @discardableResult
    func remove(_ node: DominoNode, _ graveyard: inout Graveyard) -> Bool {
        let link = NodeLink(node)
        if word & 1 == 0 {
            guard word != 0, only == link else { return false }
            publish(0)
            return true
        }
        let outcome = withStore { store -> (removed: Bool, last: NodeLink?, compacted: LinkStore?) in
            guard let place = store.place(of: link) else { return (false, nil, nil) }
            store.remove(at: place)
            if store.count == 1 { return (true, store.link(from: 0)?.0, nil) }
            return (true, nil, store.compactedIfHoley())
        }!
        if let last = outcome.last {
            replace(with: UInt(bitPattern: last.pointer), &graveyard)
        } else if let compacted = outcome.compacted {
            replace(with: Self.word(owning: compacted), &graveyard)
        }
        return outcome.removed
    }

    /// Empties the list. Exclusive lock held; its store is retired to `graveyard`.
    func removeAll(_ graveyard: inout Graveyard) {
        replace(with: 0, &graveyard)
    }

    /// The links in order.
    var links: [NodeLink] {
        if let only { return [only] }
        return withStore { store in
            var links: [NodeLink] = []
            links.reserveCapacity(store.count)
            store.forEach { links.append($0) }
            return links
        } ?? []
    }

    /// Borrows each node in order. Lock held.
    @inline(__always)
    func forEach(_ body: (DominoNode) -> Void) {
        if let only { return only.withNode(body) }
        withStore { $0.forEach { $0.withNode(body) } }
    }

    /// Calls `body` with each link in order.
    func forEachLink(_ body: (NodeLink) -> Void) {
        if let only { return body(only) }
        withStore { $0.forEach(body) }
    }

    /// Calls `body` with each link from the last to the first.
    @inline(__always)
    func forEachLinkReversed(_ body: (NodeLink) -> Void) {
        if let only { return body(only) }
        withStore { $0.forEachReversed(body) }
    }

    /// The link after `cursor` (0 before the first link), moving `cursor` past it, or
    /// nil after the last: for walks that take one link at a time. The list must not
    /// change between calls (lock held throughout).
    func next(after cursor: inout Int) -> NodeLink? {
        if let only {
            guard cursor == 0 else { return nil }
            cursor = 1
            return only
        }
        let from = cursor
        guard let (link, place) = withStore({ $0.link(from: from) }) ?? nil else { return nil }
        cursor = place + 1
        return link
    }

    /// Strong references to the live nodes, for handing out of the lock.
    func retainedNodes() -> [DominoNode] {
        links.compactMap { $0.retainIfAlive() }
    }
}

/// The links of a `NodeList` of two links or more, in order: one allocation, the
/// links stored inline after a small header.
///
/// Links are appended past the end and never move: removal leaves a hole (nil) in
/// place, so that the order holds without shifting and a reader without a lock
/// never sees a link twice or misses one that stays. Holes at the front are
/// skipped by moving `start`; holes are squeezed out (into a new store, which the
/// list publishes) once they outnumber the links, and a full store grows into a
/// new one without them, so every operation costs amortized O(1) and a walk over
/// the list O(links). A list longer than `indexedCount` gets an index from link to
/// place the first time it is searched (never just for appending: a parent that
/// only gains children never pays for one), kept up to date from then on.
///
/// Changed under the exclusive lock only; searching may build the index, so it
/// needs the exclusive lock too. The bounds and the places are read atomically by
/// readers without a lock (`forEachPublished`); the rest of the header is the
/// writers' own.
final class LinkStore: ManagedBuffer<LinkStore.Header, NodeLink?> {
    struct Header {
        // Int32, not Int: a store of two links takes 56 bytes, a 64-byte block (72
        // and 80 with Int). No list reaches 2^31 links (that many nodes would take
        // hundreds of gigabytes).
        /// Places before it hold holes only. Written with releasing stores (a reader
        /// without a lock loads it atomically, before `end`); first in the header.
        var start: Int32
        /// Places from it on are unused. Written with releasing stores, after the
        /// link appended; second in the header.
        var end: Int32
        var count: Int32
        var capacity: Int32
        /// The place of each link, once a list longer than `indexedCount` was searched.
        var positions: [NodeLink: Int]?
    }

    /// Lists up to this long are scanned: a few pointer compares beat hashing.
    static let indexedCount = 16

    var count: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.count) } }
    var isEmpty: Bool { count == 0 }

    /// An empty store with room for at least `capacity` links.
    static func make(capacity: Int) -> LinkStore {
        let buffer = create(minimumCapacity: capacity) { buffer in
            Header(start: 0, end: 0, count: 0, capacity: Int32(clamping: buffer.capacity), positions: nil)
        }
        return unsafeDowncast(buffer, to: LinkStore.self)
    }

    /// Publishes a new start with a releasing store.
    @inline(__always)
    private static func publish(_ header: UnsafeMutablePointer<Header>, start: Int) {
        AtomicWord.storeReleasing32(UnsafeMutableRawPointer(header), UInt32(truncatingIfNeeded: start))
    }

    /// Publishes a new end with a releasing store: the links written before it are
    /// seen by a reader that loads it.
    @inline(__always)
    private static func publish(_ header: UnsafeMutablePointer<Header>, end: Int) {
        AtomicWord.storeReleasing32(UnsafeMutableRawPointer(header) + MemoryLayout<Int32>.stride, UInt32(truncatingIfNeeded: end))
    }

    /// A store with the same links in order, without holes or index, with room for
    /// at least `capacity` links. Not yet published: plain writes.
    func copy(capacity: Int) -> LinkStore {
        let copy = Self.make(capacity: max(capacity, count))
        copy.withUnsafeMutablePointers { header, places in
            var end = 0
            forEach { link in
                (places + end).initialize(to: link)
                end += 1
            }
            header.pointee.end = Int32(end)
            header.pointee.count = Int32(end)
        }
        return copy
    }

    /// The place of `link`, or nil when the list lacks it. Exclusive lock held.
    func place(of link: NodeLink) -> Int? {
        withUnsafeMutablePointers { header, places in
            if header.pointee.positions == nil && !Self.index(header, places) {
                for place in Int(header.pointee.start)..<Int(header.pointee.end) where places[place] == link {
                    return place
                }
                return nil
            }
            return header.pointee.positions![link]
        }
    }

    /// Builds the index of a long list that has none; returns false for a short list
    /// (no index: scanning is cheaper).
    private static func index(_ header: UnsafeMutablePointer<Header>, _ places: UnsafeMutablePointer<NodeLink?>) -> Bool {
        guard header.pointee.count > indexedCount else { return false }
        var positions: [NodeLink: Int] = [:]
        // As many as the store holds: appends then never resize the index.
        positions.reserveCapacity(Int(header.pointee.capacity))
        for place in Int(header.pointee.start)..<Int(header.pointee.end) {
            if let link = places[place] { positions[link] = place }
        }
        header.pointee.positions = positions
        return true
    }

    /// Appends `link`, or returns a larger store holding the links and `link` when
    /// this one is full.
    func append(_ link: NodeLink) -> LinkStore? {
        let appended: Bool = withUnsafeMutablePointers { header, places in
            let end = Int(header.pointee.end)
            guard end < Int(header.pointee.capacity) else { return false }
            // Past the published end: no reader looks here until the bounds say so.
            (places + end).initialize(to: link)
            header.pointee.count = header.pointee.count + 1
            if header.pointee.positions != nil { header.pointee.positions![link] = end }
            Self.publish(header, end: end + 1)
            return true
        }
        if appended { return nil }
        // Doubles the links held, not the places used: holes are dropped.
        let grown = copy(capacity: 2 * (count + 1))
        _ = grown.append(link)
        return grown
    }

    /// Removes the link at `place` (a place `place(of:)` found), keeping the order:
    /// the place becomes a hole.
    func remove(at place: Int) {
        withUnsafeMutablePointers { header, places in
            header.pointee.count = header.pointee.count - 1
            if header.pointee.positions != nil { header.pointee.positions![places[place]!] = nil }
            // Atomic: a reader without a lock may be reading the place.
            AtomicWord.storeReleasing(UnsafeMutableRawPointer(places + place), 0)
            // Holes at the front are skipped once here, not by every walk over the list.
            var start = Int(header.pointee.start)
            let end = Int(header.pointee.end)
            if place == start {
                while start < end && places[start] == nil { start += 1 }
                Self.publish(header, start: start)
            }
        }
    }

    /// A copy without holes when they outnumber the links (holes before `start`
    /// count too: removing from the front leaves them), else nil.
    func compactedIfHoley() -> LinkStore? {
        let (count, holes) = withUnsafeMutablePointerToHeader { header in
            (Int(header.pointee.count), Int(header.pointee.end - header.pointee.count))
        }
        guard holes > count, holes > Self.indexedCount else { return nil }
        // Room to grow by half again before the next copy.
        return copy(capacity: count + count / 2 + 1)
    }

    /// The first link at or after `place`, and its place.
    func link(from place: Int) -> (NodeLink, Int)? {
        withUnsafeMutablePointers { header, places in
            for place in max(place, Int(header.pointee.start))..<Int(header.pointee.end) {
                if let link = places[place] { return (link, place) }
            }
            return nil
        }
    }

    @inline(__always)
    func forEach(_ body: (NodeLink) -> Void) {
        withUnsafeMutablePointers { header, places in
            var place = Int(header.pointee.start)
            let end = Int(header.pointee.end)
            while place < end {
                if let link = places[place] { body(link) }
                place += 1
            }
        }
    }

    /// `forEach` for a reader without a lock: the bounds and every place are loaded
    /// atomically (acquiring), so the reader sees each link it meets complete. The
    /// start first: it never passes the end, so the range read is never inverted.
    @inline(__always)
    func forEachPublished(_ body: (NodeLink) -> Void) {
        withUnsafeMutablePointers { header, places in
            var place = Int(AtomicWord.load32(UnsafeMutableRawPointer(header)))
            let end = Int(AtomicWord.load32(UnsafeMutableRawPointer(header) + MemoryLayout<Int32>.stride))
            while place < end {
                let word = AtomicWord.load(UnsafeMutableRawPointer(places + place))
                if let pointer = UnsafeMutableRawPointer(bitPattern: word) { body(NodeLink(pointer: pointer)) }
                place += 1
            }
        }
    }

    /// The places `forEachPublished` reads, as a cursor that reads them one at a
    /// time (the start first, as there).
    @inline(__always)
    var publishedCursor: ChildCursor {
        withUnsafeMutablePointers { header, places in
            let start = Int(AtomicWord.load32(UnsafeMutableRawPointer(header)))
            let end = Int(AtomicWord.load32(UnsafeMutableRawPointer(header) + MemoryLayout<Int32>.stride))
            return ChildCursor(places: UnsafeMutableRawPointer(places), next: start, end: end)
        }
    }

    /// `forEachPublished` from the end back to the start. The end is loaded first; a
    /// start loaded past it (links cleared meanwhile) reads nothing.
    @inline(__always)
    func forEachPublishedReversed(_ body: (NodeLink) -> Void) {
        withUnsafeMutablePointers { header, places in
            var place = Int(AtomicWord.load32(UnsafeMutableRawPointer(header) + MemoryLayout<Int32>.stride))
            let start = Int(AtomicWord.load32(UnsafeMutableRawPointer(header)))
            while place > start {
                place -= 1
                let word = AtomicWord.load(UnsafeMutableRawPointer(places + place))
                if let pointer = UnsafeMutableRawPointer(bitPattern: word) { body(NodeLink(pointer: pointer)) }
            }
        }
    }

    /// Walks down (broadcast, raise) list children through it.
    @inline(__always)
    func forEachReversed(_ body: (NodeLink) -> Void) {
        withUnsafeMutablePointers { header, places in
            let start = Int(header.pointee.start)
            var place = Int(header.pointee.end)
            while place > start {
                place -= 1
                if let link = places[place] { body(link) }
            }
        }
    }
}

/// A walk down's place in a node's list of children (`NodeList.Shape.publishedCursor`):
/// the places of the list's store, the next to read and the end, read by a reader
/// pinned without a lock (the store is retired shared: it stays while the reader is
/// pinned). Each place is loaded atomically when reached; a cleared place (a link
/// unmounted meanwhile) is passed over, as `forEachPublished` does. A walk under a
/// stripe reads a responder node's followers through one too, and a list of one
/// link as a cursor of its own (`single`, read with `advanceAny`).
struct ChildCursor {
    let places: UnsafeMutableRawPointer
    var next: Int
    let end: Int

    /// A cursor with nothing left to read (its address, not null, is never read).
    static var empty: ChildCursor { ChildCursor(places: UnsafeMutableRawPointer(bitPattern: MemoryLayout<UInt>.alignment).unsafelyUnwrapped, next: 0, end: 0) }

    /// True while places are left to read.
    @inline(__always)
    var hasMore: Bool { next < end }

    /// A cursor over one link, which a list of one keeps in its word rather than in
    /// places: the link's address as `places`, `next` -1 (read by `advanceAny`).
    @inline(__always)
    static func single(_ link: NodeLink) -> ChildCursor {
        ChildCursor(places: link.pointer, next: -1, end: 0)
    }

    /// `advance()`, for cursors that may be `single`.
    @inline(__always)
    mutating func advanceAny() -> NodeLink? {
        if next < 0 {
            next = 0
            return NodeLink(pointer: places)
        }
        return advance()
    }

    /// The next link, or nil when the place read was cleared; advances. Only while
    /// `hasMore`.
    @inline(__always)
    mutating func advance() -> NodeLink? {
        let word = AtomicWord.load(places + next &* MemoryLayout<UInt>.stride)
        next &+= 1
        return UnsafeMutableRawPointer(bitPattern: word).map(NodeLink.init(pointer:))
    }
}
