/// What a walk checks of responder nodes' links to know them unchanged without
/// resolving them again: that each host's chain, read now, passes the same responders
/// as its last resolution did (`ResponderLink.readPath`), up to the host of the node
/// it leads to, or to a responder whose next is nil. Taken under the lock, kept
/// between walks while no link changes (`ResponderRegistry.linksWritten`), checked
/// outside the lock (it calls `nextDominoResponder`).
///
/// Two kinds:
/// - **Every responder node's** (`init(onMainThread:)`, for walks down; see
///   `DominoNode.refreshEveryResponderChain`): a walk down reads every responder
///   node's chain in the program, since a node's followers are known only from the
///   others' chains. Taking what to check of each link under the lock at every walk
///   cost a broadcast about 424 instructions for each responder node in the program,
///   on top of reading its chain (a broadcast from a leaf beside 1,000 other
///   responder nodes 426,796). It is taken under the exclusive lock when a walk finds
///   none for the links as they are, and shared by every walk after it, which retains
///   it under its stripe. Not changed while any walk holds it (taken again in its
///   own memory, under the exclusive lock, only when the registry's reference is
///   its only one); dropped when a responder node goes. A walk whose census finds
///   some chains changed resolves only their links (a view moved: its own); one
///   whose census cannot tell (a responder node made or dropped since it was taken)
///   resolves every link.
/// - **A walk up's route** (`init(route:onMainThread:)`): the links of the responder
///   nodes on a post's route, in route order. Its thread keeps it (`RouteCensuses`,
///   eight routes) for the walks up after it, which compare their route's responder
///   nodes with it under their stripe and take nothing of the links while the route
///   and the links stay (taking each link's checks at every post cost a post up 10
///   responder nodes about 2,300 of its 5,823 instructions). Only its thread uses it;
///   taken again in its own memory (`retake`) when nothing else references it. It
///   keeps no host's memory between walks: a walk holds its route's hosts under the
///   stripe (`holdHosts`), while the census describes the route as the links are
///   (its nodes registered, their links keeping their hosts' memory), and releases
///   each once its chain is read (`checkHeld`); a host the chain before leads to is
///   not held there but read from the responder that chain's read ended at, which
///   the getter returned retained. Kept memory would have outlived the views on a
///   thread that stopped walking (the leak checker found their side tables at exit).
///
/// Identities are compared while the responders read are held (each host while its
/// chain is read; the getter returns each next responder retained), against hosts
/// referenced without keeping them alive (`UnretainedResponder`), whose memory a
/// census of every node keeps by holding their nodes' links (`keepers`: each link's
/// `hostReference` keeps its host's memory). A
/// responder read now at the address of one read before that has died is taken for
/// it only where that changes nothing: no responder the path passed had a node when
/// the census was taken (`ResponderLink.holdsValidPath(now:)`) and the registry has not
/// changed since (`ResponderRegistry.membership`, compared again after the reads),
/// so it has none, as its predecessor had none; the last one is compared with the
/// successor's live host. A host that is gone fails the census, and its node's
/// link is resolved again. Holding the hosts instead would keep a view alive on
/// another thread, to be released there (a broadcast off the main thread once held
/// every host, and a test on the main thread saw a view outlive its last reference).
final class ChainCensus: @unchecked Sendable {
    struct Entry {
        /// The link's node: registered while this census is the current one.
        let node: NodeLink
        /// The host, which `keepers` holds a reference to.
        let host: UnretainedResponder
        /// The successor's host, which `keepers` holds a reference to; nil when the
        /// link leads nowhere.
        let successor: UnretainedResponder?
        /// The successor's host's identity (the successor's link's `hostID`).
        let successorID: ObjectIdentifier
        /// Where the link's `readPath` is in `paths`.
        let pathStart: Int32
        let pathCount: Int32
        /// In a census of a route: true when the entry before this one leads to this
        /// host (its successor's host is this one). A walk then reads this chain
        /// from the responder the read before ended at, which the getter returned
        /// retained, rather than holding this host under the lock (`holdHosts`):
        /// a `tryRetain` and a release fewer a node (see `checkHeld`).
        let hostIsPreviousEnd: Bool
        /// True when the next entry's `hostIsPreviousEnd` is. (The two flags make an
        /// entry 64 bytes rather than 56; packed into `pathCount`'s high bits, a walk
        /// down's check of every responder node cost 3 instructions a node more.)
        var endIsNextHost = false
    }

    /// The links whose chains a walk on this census's thread reads: those of nodes
    /// that follow their chain, on the main thread all of them, elsewhere those not
    /// read on the main thread only.
    @exclusivity(unchecked) private var entries = ScratchList<Entry>()
    /// In a census of every node, the link of every node taken, retained (a census
    /// of a route keeps none: see `holdHosts`): each link's `hostReference` keeps its
    /// host's memory, which keeps the entries' references valid, without keeping the
    /// host alive. Never read; released by `releaseKeepers()`. (A reference to each
    /// host, kept here, cost an unowned retain and release each, about 90
    /// instructions a pair against about 25 for a link's.)
    ///
    /// The lists are the census's own memory, not arrays: a census of a route is
    /// taken again in it (`retake`), and an append to an array stored in a class
    /// checked its uniqueness out of line, and a read retained it.
    @exclusivity(unchecked) private var keepers = ScratchList<Unmanaged<ResponderLink>>()
    /// The responders each link's last resolution read, one after the other.
    @exclusivity(unchecked) private var paths = ScratchList<ObjectIdentifier>()
    /// False when a link could not be checked: never read where it cannot be read
    /// here, its path taken before the registry last changed or empty where it leads
    /// somewhere. Walks then resolve every link.
    @exclusivity(unchecked) private(set) var checkable = true
    /// `ResponderRegistry.linksWritten` when this was taken: valid while it stays.
    @exclusivity(unchecked) private(set) var linksWritten = 0
    /// `ResponderRegistry.membership` when this was taken, which every path is valid
    /// at; compared again after the reads (see `check(thread:stale:)`).
    @exclusivity(unchecked) private var membership = 0
    /// Whether this is the census of walks on the main thread.
    @exclusivity(unchecked) private(set) var onMainThread = false

    /// The responder nodes of the walk up whose route this census checks, in route
    /// order (see `init(route:onMainThread:)`); empty for a census of every
    /// responder node.
    @exclusivity(unchecked) private var routeNodes = ScratchList<NodeLink>()

    /// The responder nodes of the route (see `routeNodes`), valid while the census is.
    var route: UnsafeBufferPointer<NodeLink> { routeNodes.buffer }

    /// The census of every registered responder node's link as it is now, for walks
    /// on the main thread or elsewhere. Exclusive lock held; loads no host.
    init(onMainThread: Bool) {
        retake(route: nil, onMainThread: onMainThread)
    }

    /// The census of the links of `route`, the responder nodes of a walk up in route
    /// order, as they are now: what a post through responder nodes checks, kept by
    /// its thread for its next walks up while the route and the links stay (see
    /// `describes(_:onMainThread:linksWritten:)`). Lock held (a stripe is enough: links change
    /// under the exclusive lock only); loads no host.
    init(route: UnsafeBufferPointer<NodeLink>, onMainThread: Bool) {
        retake(route: route, onMainThread: onMainThread)
    }

    /// Takes this census again, of `route` or (nil) of every responder node, in its
    /// own memory: for its owner while nothing else references it (a thread's census
    /// of a route; the registry's census of every node once no walk holds it), so
    /// that taking it again allocates nothing. Lock held, as for the initializers
    /// (the exclusive lock for every node); releases no responder (a link it drops,
    /// released for the last time, frees no responder).
    func retake(route: UnsafeBufferPointer<NodeLink>?, onMainThread: Bool) {
        self.onMainThread = onMainThread
        linksWritten = ResponderRegistry.linksWritten
        membership = ResponderRegistry.membership
        routeNodes.removeAll()
        entries.removeAll()
        releaseKeepers()
        paths.removeAll()
        if let route {
            for node in route { routeNodes.append(node) }
            // Twice at most: `raiseValidPaths` raises every path it can.
            while take(route, keepingLinks: false), raiseValidPaths(of: route) {}
        } else {
            takeEveryNode()
        }
    }

    /// `take` of every registered responder node, with room made first.
    private func takeEveryNode() {
        let count = ResponderRegistry.nodes.count
        entries.reserve(count)
        keepers.reserve(count)
        paths.reserve(count)
        // The registry's values read at each use: bound to a constant, they were
        // retained (a retain and a release a walk down more).
        while take(ResponderRegistry.nodes.values, keepingLinks: true), raiseValidPaths(of: ResponderRegistry.nodes.values) {}
    }

    /// Raises the count of every path of `nodes`' links that was read before the
    /// registry's last registration and still holds
    /// (`ResponderLink.holdsValidPath(now:)`), for `take` to take them again; false
    /// when one does not hold (the census cannot be checked, whatever is raised).
    /// Lock held. Out of `take`'s loop: a call there, even one never made, cost
    /// the census of every node about 4 instructions a node (its registers).
    @inline(never)
    private func raiseValidPaths(of nodes: some Sequence<NodeLink>) -> Bool {
        let registrations = ResponderRegistry.registrations
        for nodeLink in nodes {
            // Borrowed, as in `take` (bound as references, each was retained).
            let found = nodeLink.withNode { $0.responderLink.map(Unmanaged.passUnretained) }
            let holds = found?._withUnsafeGuaranteedRef { link -> Bool in
                guard link.followsChain, !(link.readsOnMainThreadOnly && !onMainThread) else { return true }
                return link.holdsValidPath(now: registrations)
            }
            if holds == false { return false }
        }
        return true
    }

    /// True when this is a census of `route` (the responder nodes of a walk up, in
    /// route order) on this thread's side of the main thread, and no link changed
    /// since it was taken (`written`: the registry's `linksWritten`, which the caller
    /// reads once for every census it compares): what a walk up would take again.
    /// Lock held.
    @inline(__always)
    func describes(_ route: UnsafeBufferPointer<NodeLink>, onMainThread: Bool, linksWritten written: Int) -> Bool {
        guard linksWritten == written, self.onMainThread == onMainThread, self.route.count == route.count else {
            return false
        }
        let kept = self.route
        for index in 0..<kept.count where kept[index] != route[index] { return false }
        return true
    }

    deinit {
        releaseKeepers()
        keepers.deallocate()
        entries.deallocate()
        paths.deallocate()
        routeNodes.deallocate()
    }

    /// Releases and forgets the keepers. Releases no responder: a link's last
    /// release frees its memory and, with it, perhaps the memory of a host already
    /// gone (an unowned reference's).
    private func releaseKeepers() {
        for keeper in keepers.buffer { keeper.release() }
        keepers.removeAll()
    }

    /// Fills the entries, keepers (with `keepingLinks`: a census of every node) and
    /// paths (empty) with the links of `nodes`; empties them again when a link cannot
    /// be checked. Lock held. Inlined into each caller, so that `keepingLinks` is
    /// known there (out of line, the census of every node cost 6 instructions a node
    /// more).
    ///
    /// - Returns: True when it found a path read before the registry's last
    ///   registration (`ResponderLink.readPathRegistrations`), which may still hold:
    ///   the caller raises such paths (`raiseValidPaths(of:)`) and takes it again.
    @inline(__always)
    private func take(_ nodes: some Sequence<NodeLink>, keepingLinks: Bool) -> Bool {
        let onMainThread = onMainThread, registrations = ResponderRegistry.registrations
        var checkable = true, readBefore = false
        // The last entry's successor's host, when it has one (see `Entry.hostIsPreviousEnd`).
        var previousEnd: ObjectIdentifier?
        for nodeLink in nodes where checkable {
            // Links borrowed from their nodes (bound as references, each was
            // retained and released).
            let found = nodeLink.withNode { $0.responderLink.map(Unmanaged.passUnretained) }
            found?._withUnsafeGuaranteedRef { link in
                // Every link, so that every successor's host is kept too (a
                // successor is a registered node). Not a route's: see `holdHosts`.
                if keepingLinks { keepers.append(Unmanaged.passRetained(link)) }
                guard link.followsChain, !(link.readsOnMainThreadOnly && !onMainThread) else {
                    // Walks leave such a link as it is; one never read is resolved.
                    if !link.wasRead { checkable = false }
                    return
                }
                guard link.readPathRegistrations == registrations else {
                    readBefore = true
                    checkable = false
                    return
                }
                guard !link.readPath.isEmpty || link.successor == nil else {
                    checkable = false
                    return
                }
                var successor: UnretainedResponder?
                var successorID = link.hostID
                if let successorNode = link.successor {
                    guard let successorLink = successorNode.withNode({ $0.responderLink.map(Unmanaged.passUnretained) }) else {
                        checkable = false
                        return
                    }
                    successorLink._withUnsafeGuaranteedRef {
                        successor = $0.hostReference.unretained
                        successorID = $0.hostID
                    }
                }
                let pathStart = Int32(truncatingIfNeeded: paths.count)
                let pathCount = link.readPath.count
                // One by one: `append(contentsOf:)` cost about 50 instructions a call.
                for step in 0..<pathCount { paths.append(link.readPath[step]) }
                // Identities recorded under the lock, fixed while the census is valid.
                let hostIsPreviousEnd = !keepingLinks && previousEnd == link.hostID
                if hostIsPreviousEnd { entries.updateLast { $0.endIsNextHost = true } }
                entries.append(Entry(
                    node: nodeLink, host: link.hostReference.unretained, successor: successor, successorID: successorID,
                    pathStart: pathStart, pathCount: Int32(truncatingIfNeeded: pathCount), hostIsPreviousEnd: hostIsPreviousEnd))
                if !keepingLinks { previousEnd = successor == nil ? nil : successorID }
            }
        }
        self.checkable = checkable
        if !checkable {
            entries.removeAll()
            releaseKeepers()
            paths.removeAll()
        }
        return readBefore
    }

    /// What `check(thread:stale:)` found.
    enum Check {
        /// Every chain, read now, passes the responders its link's last resolution
        /// read and leads to the host of its successor (or nowhere).
        case holds
        /// Every chain but those of the nodes listed holds: only their links need
        /// resolving again.
        case stale
        /// The census could not tell (a link it could not check, or a responder node
        /// made or dropped since it was taken): every link needs resolving again.
        case unknown
    }

    /// Reads every chain and compares it with its link; appends to `stale` the nodes
    /// whose chains do not hold. Outside the lock: it calls `nextDominoResponder`.
    /// A census of every node only: its keepers keep its hosts' memory, and each
    /// host is held while its chain is read.
    func check(thread: UnsafeMutablePointer<ThreadState>, stale: inout [NodeLink]) -> Check {
        guard checkable else { return .unknown }
        let paths = paths.buffer, onMainThread = onMainThread
        var end: (any DominoResponder)?
        for entry in entries.buffer {
            let holds = entry.host.whileAlive {
                Self.read(entry, from: $0, paths: paths, onMainThread: onMainThread, keepingEnd: false, end: &end, thread: thread)
            }
            // A host gone: its link is resolved again too (to nowhere).
            if holds != true { stale.append(entry.node) }
        }
        // Compared again after the reads (found probing a flaky test: a post read a
        // chain through a responder whose node was made during the read, took the
        // link past it as holding and skipped that node, 16 posts in 20,000). Loaded
        // without a lock: a load that has not seen a node made during the reads
        // orders this walk before that node.
        guard ResponderRegistry.membership == membership else { return .unknown }
        return stale.isEmpty ? .holds : .stale
    }

    /// Holds every entry's host but those the entry before leads to
    /// (`Entry.hostIsPreviousEnd`), for `checkHeld`: a census of a route keeps no
    /// host's memory between walks (a thread that stops walking would keep dead
    /// views' memory, and their side tables, for as long as it runs). True when all
    /// are alive; else false, and the caller releases the ones held with
    /// `releaseHosts()` after unlocking (one may be a responder's last reference by
    /// then) and resolves the links. Lock held, and the census describing the route
    /// as the links are now (`describes`): its nodes are then registered, their
    /// links alive, and each link's `hostReference` keeps its host's memory, so each
    /// address is sound to retain.
    func holdHosts() -> Bool {
        let entries = entries.buffer
        guard let base = entries.baseAddress else { return true }
        // Through the base address: indexing the buffer tested its bounds (about 8
        // instructions an entry).
        var index = 0
        while index < entries.count {
            if !base[index].hostIsPreviousEnd && !base[index].host.retainIfAlive() {
                hostsHeld = index
                return false
            }
            index &+= 1
        }
        return true
    }

    /// How many entries `holdHosts()` went through when it found a host gone.
    @exclusivity(unchecked) private var hostsHeld = 0

    /// Releases the hosts that a `holdHosts()` that returned false held. Outside the
    /// lock.
    func releaseHosts() {
        let entries = entries.buffer
        for index in 0..<hostsHeld where !entries[index].hostIsPreviousEnd { entries[index].host.release() }
        hostsHeld = 0
    }

    /// `check(thread:stale:)` for a census of a route whose hosts the caller holds
    /// (`holdHosts()`), each released once its chain is read (one may be the last
    /// reference to its responder: its deinit may walk meanwhile, and the census,
    /// which the caller holds, is not taken again under it): true when every chain
    /// holds and no responder node was made or dropped meanwhile. Outside the lock:
    /// it calls `nextDominoResponder`.
    ///
    /// A host the entry before leads to (`Entry.hostIsPreviousEnd`), which
    /// `holdHosts()` did not hold, is the responder that entry's read ended at: the
    /// getter returned it retained, and it is kept for this entry's read and released
    /// after it. When that read did not hold, this entry is not read (nothing holds
    /// its host) and the check fails, as it would anyway. A responder read there at
    /// the address of a host that has died since is a live one, held, read as any
    /// other; the registry's membership, compared after the reads, fails the check
    /// then (its node was dropped, which freed the host's memory).
    func checkHeld(thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        let entries = entries.buffer, paths = paths.buffer
        let onMainThread = onMainThread
        var holds = true
        // The responder the last read ended at, held, when the next entry's host is it.
        var end: (any DominoResponder)?
        for index in 0..<entries.count {
            let entry = entries[index]
            let keepsEnd = entry.endIsNextHost
            if entry.hostIsPreviousEnd {
                guard let host = end.take() else {
                    holds = false
                    continue
                }
                // Each responder's own kind decides, as in a resolution (the host's
                // kind was tested when the census was taken, but this may be another
                // responder at its address: see above).
                guard onMainThread || !type(of: host).readsChainOnMainThreadOnly,
                      Self.read(entry, from: host, paths: paths, onMainThread: onMainThread, keepingEnd: keepsEnd, end: &end, thread: thread)
                else {
                    holds = false
                    continue
                }
            } else {
                let read = entry.host.releasingHeld {
                    Self.read(entry, from: $0, paths: paths, onMainThread: onMainThread, keepingEnd: keepsEnd, end: &end, thread: thread)
                }
                if !read { holds = false }
            }
        }
        guard checkable else { return false }
        return holds && ResponderRegistry.membership == membership
    }

    /// True when `host`'s chain, read now, passes the responders of `entry`'s path
    /// and ends at its successor's host (or nowhere). With `keepingEnd`, the
    /// successor's host read, held, is left in `end` when the chain holds. Outside
    /// the lock: it calls `nextDominoResponder`.
    @inline(__always)
    private static func read(
        _ entry: Entry, from host: any DominoResponder, paths: UnsafeBufferPointer<ObjectIdentifier>, onMainThread: Bool,
        keepingEnd: Bool, end: inout (any DominoResponder)?, thread: UnsafeMutablePointer<ThreadState>
    ) -> Bool {
        thread.pointee.responderReads &+= 1
        let pathCount = Int(entry.pathCount)
        // The host leads nowhere.
        guard pathCount > 0 else { return host.nextResponderAssumingReadable() == nil }
        let pathStart = Int(entry.pathStart)
        guard var current = host.nextResponderAssumingReadable(), ObjectIdentifier(current) == paths[pathStart] else {
            return false
        }
        for step in 1..<pathCount {
            // Each responder's own kind decides, as in a resolution.
            guard onMainThread || !type(of: current).readsChainOnMainThreadOnly else { return false }
            thread.pointee.responderReads &+= 1
            guard let next = current.nextResponderAssumingReadable(), ObjectIdentifier(next) == paths[pathStart &+ step] else {
                return false
            }
            current = next
        }
        if let successor = entry.successor {
            guard successor.refers(to: current, recordedAs: entry.successorID) else { return false }
            if keepingEnd { end = current }
            return true
        }
        guard onMainThread || !type(of: current).readsChainOnMainThreadOnly else { return false }
        thread.pointee.responderReads &+= 1
        return current.nextResponderAssumingReadable() == nil
    }
}

/// The censuses of a thread's last walks up through responder nodes
/// (`ChainCensus.init(route:onMainThread:)`), most recently used first: a walk whose
/// route and links match one checks its chains without taking anything of the links
/// again, so that posts from a few views in turn (the buttons of a form tapped one
/// after another) take none. Only its thread reads or writes it.
///
/// Slots fill from the first: a nil slot has none after it.
struct RouteCensuses {
    /// How many routes a thread keeps censuses of. Eight rather than four (session
    /// 40): posts from five views in turn took a census each (4,085 instructions a
    /// post up 10 responder nodes, against 2,845 from two); a walk whose route is
    /// kept by none pays a few compares for each census kept.
    static let count = 8
    private var slots: (
        ChainCensus?, ChainCensus?, ChainCensus?, ChainCensus?,
        ChainCensus?, ChainCensus?, ChainCensus?, ChainCensus?
    ) = (nil, nil, nil, nil, nil, nil, nil, nil)

    /// The most recently used census.
    var first: ChainCensus? { slots.0 }

    /// The slots as a buffer of `count` (a homogeneous tuple is laid out as one).
    private mutating func withSlots<Result>(_ body: (UnsafeMutableBufferPointer<ChainCensus?>) -> Result) -> Result {
        withUnsafeMutablePointer(to: &slots) { tuple in
            tuple.withMemoryRebound(to: ChainCensus?.self, capacity: Self.count) { body(UnsafeMutableBufferPointer(start: $0, count: Self.count)) }
        }
    }

    /// Moves the census at `place` first, the ones before it one place down.
    private static func bringFirst(at place: Int, in slots: UnsafeMutableBufferPointer<ChainCensus?>) {
        var index = place
        while index > 0 {
            slots.swapAt(index, index &- 1)
            index &-= 1
        }
    }

    /// Moves the census of `route` first when one is kept for it and no link changed
    /// since (`written`: `ResponderRegistry.linksWritten`, as the caller loaded it
    /// under its stripe, or pinned without a lock before it read the route); true
    /// then. Out of line, as `retakeLast` and `insertFirst` are: inlined into the
    /// walk, the three changed its register use (a post up 10 responder nodes 2,782
    /// instructions against 2,773).
    @inline(never)
    mutating func bringFirst(_ route: UnsafeBufferPointer<NodeLink>, onMainThread: Bool, linksWritten written: Int) -> Bool {
        if slots.0?.describes(route, onMainThread: onMainThread, linksWritten: written) == true { return true }
        return withSlots { slots in
            for place in 1..<Self.count {
                // Read in place (a census bound to a constant is retained).
                guard let describes = slots[place]?.describes(route, onMainThread: onMainThread, linksWritten: written) else {
                    return false
                }
                if describes {
                    Self.bringFirst(at: place, in: slots)
                    return true
                }
            }
            return false
        }
    }

    /// Takes the census of `route` again in the memory of the least recently used
    /// census, moved first, when nothing else references it (a walk nested in
    /// another's check holds the outer walk's) and every slot is filled; true then,
    /// else false and nothing changed. Lock held; releases no responder (see
    /// `ChainCensus.retake`).
    @inline(never)
    mutating func retakeLast(_ route: UnsafeBufferPointer<NodeLink>, onMainThread: Bool) -> Bool {
        withSlots { slots in
            let last = Self.count &- 1
            guard isKnownUniquelyReferenced(&slots[last]) else { return false }
            slots[last].unsafelyUnwrapped.retake(route: route, onMainThread: onMainThread)
            Self.bringFirst(at: last, in: slots)
            return true
        }
    }

    /// Puts `census` first and drops the least recently used. Outside the lock: the
    /// census dropped may hold the last reference to links.
    @inline(never)
    mutating func insertFirst(_ census: ChainCensus) {
        withSlots { slots in
            let last = Self.count &- 1
            slots[last] = census
            Self.bringFirst(at: last, in: slots)
        }
    }
}
