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

    @inline(__always)
    init(_ node: DominoNode) {
        pointer = Unmanaged.passUnretained(node).toOpaque()
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

/// An ordered list of node links that keeps its first element inline.
///
/// Most nodes have one parent and few children: the first link is inline, so a node
/// with one parent and one child allocates nothing for its links, and `more` stays
/// nil until a second link comes (one pointer test on a walk's hot path). Long lists
/// (a parent with thousands of children, a child mounted at thousands of parents)
/// find and remove a link in constant time, so mounting and unmounting N links
/// costs O(N), not O(N^2); see `LinkStore`.
///
/// A value type: a copy never sees the original's later changes.
struct NodeList {
    private(set) var first: NodeLink?
    /// The links after `first`; nil when there are none.
    private var more: LinkStore?

    var isEmpty: Bool { first == nil }
    /// True when the list has two links or more.
    var isMultiple: Bool { more != nil }

    /// Exclusive lock held: a search may build a long list's index.
    func contains(_ node: DominoNode) -> Bool {
        let link = NodeLink(node)
        if first == link { return true }
        return more?.place(of: link) != nil
    }

    mutating func append(_ node: DominoNode) {
        let link = NodeLink(node)
        guard first != nil else {
            first = link
            return
        }
        guard makeStoreUnique() else {
            more = LinkStore.make(capacity: 1)
            _ = more!.append(link)
            return
        }
        if let grown = more!.append(link) { more = grown }
    }

    @discardableResult
    mutating func remove(_ node: DominoNode) -> Bool {
        let link = NodeLink(node)
        if first == link {
            guard makeStoreUnique() else {
                first = nil
                return true
            }
            first = more!.removeFirst()
        } else {
            guard makeStoreUnique(), let place = more!.place(of: link) else { return false }
            more!.remove(at: place)
        }
        if more!.isEmpty {
            more = nil
        } else if let compacted = more!.compactedIfHoley() {
            more = compacted
        }
        return true
    }

    mutating func removeAll() {
        first = nil
        more = nil
    }

    /// Gives this list its own store before a change, and says whether it has one.
    @discardableResult
    private mutating func makeStoreUnique() -> Bool {
        guard more != nil else { return false }
        if !isKnownUniquelyReferenced(&more) { more = more!.copy(capacity: more!.count + 1) }
        return true
    }

    /// The links in order.
    var links: [NodeLink] {
        guard let first else { return [] }
        var links = [first]
        if let more {
            links.reserveCapacity(1 + more.count)
            more.forEach { links.append($0) }
        }
        return links
    }

    /// Borrows each node in order. Lock held.
    @inline(__always)
    func forEach(_ body: (DominoNode) -> Void) {
        guard let first else { return }
        first.withNode(body)
        more?.forEach { $0.withNode(body) }
    }

    /// Calls `body` with each link in order.
    func forEachLink(_ body: (NodeLink) -> Void) {
        guard let first else { return }
        body(first)
        more?.forEach(body)
    }

    /// Calls `body` with each link from the last to the first.
    @inline(__always)
    func forEachLinkReversed(_ body: (NodeLink) -> Void) {
        guard let first else { return }
        more?.forEachReversed(body)
        body(first)
    }

    /// The link after `cursor` (0 before the first link), moving `cursor` past it, or
    /// nil after the last: for walks that take one link at a time. The list must not
    /// change between calls (lock held throughout).
    func next(after cursor: inout Int) -> NodeLink? {
        if cursor == 0 {
            cursor = 1
            return first
        }
        guard let more, let (link, place) = more.link(from: cursor - 1) else { return nil }
        cursor = place + 2
        return link
    }

    /// Strong references to the live nodes, for handing out of the lock.
    func retainedNodes() -> [DominoNode] {
        links.compactMap { $0.retainIfAlive() }
    }
}

/// The links of a `NodeList` after its first, in order: one allocation, the links
/// stored inline after a small header.
///
/// A short list is a plain array: removal shifts the links after it. A list longer
/// than `indexedCount` gets an index from link to place the first time it is
/// searched (never just for appending: a parent that only gains children never pays
/// for one), and keeps it up to date from then on; with an index, removal leaves a
/// hole (nil) so that the order holds without shifting. Holes exist only in an
/// indexed store, and are squeezed out once they outnumber the links, so every
/// operation costs amortized O(1) and a walk over the list O(links).
///
/// Changed under the exclusive lock only, once `NodeList` made it unique; searching
/// may build the index, so it needs the exclusive lock too.
final class LinkStore: ManagedBuffer<LinkStore.Header, NodeLink?> {
    struct Header {
        // Int32, not Int: keeps a two-link list's store within one malloc size class
        // of the array it replaced. No list reaches 2^31 links (that many nodes would
        // take hundreds of gigabytes).
        /// Places before it hold holes only.
        var start: Int32
        /// Places from it on are unused.
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

    /// A store with the same links in order, without holes or index, with room for
    /// at least `capacity` links.
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
                for place in 0..<Int(header.pointee.end) where places[place] == link {
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
            (places + end).initialize(to: link)
            header.pointee.end += 1
            header.pointee.count += 1
            if header.pointee.positions != nil { header.pointee.positions![link] = end }
            return true
        }
        if appended { return nil }
        // Doubles the links held, not the places used: holes are dropped.
        let grown = copy(capacity: 2 * (count + 1))
        _ = grown.append(link)
        return grown
    }

    /// Removes the link at `place` (a place `place(of:)` found), keeping the order.
    func remove(at place: Int) {
        withUnsafeMutablePointers { header, places in
            header.pointee.count -= 1
            if header.pointee.positions != nil {
                header.pointee.positions![places[place]!] = nil
                places[place] = nil
            } else {
                Self.close(place, in: header, places)
            }
        }
    }

    /// Removes and returns the first link.
    func removeFirst() -> NodeLink? {
        withUnsafeMutablePointers { header, places in
            if header.pointee.positions == nil && !Self.index(header, places) {
                guard header.pointee.count > 0, let link = places[0] else { return nil }
                header.pointee.count -= 1
                Self.close(0, in: header, places)
                return link
            }
            for place in Int(header.pointee.start)..<Int(header.pointee.end) {
                guard let link = places[place] else { continue }
                header.pointee.count -= 1
                header.pointee.positions![link] = nil
                places[place] = nil
                header.pointee.start = Int32(place + 1)
                return link
            }
            return nil
        }
    }

    /// Shifts the links after `place` down by one, in a short list (no holes).
    private static func close(_ place: Int, in header: UnsafeMutablePointer<Header>, _ places: UnsafeMutablePointer<NodeLink?>) {
        let end = Int(header.pointee.end)
        for index in place..<(end - 1) { places[index] = places[index + 1] }
        header.pointee.end -= 1
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
