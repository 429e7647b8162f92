/// One participant of the event chain, owned by its host object.
///
/// Give each object that posts or receives events a node and keep it for the
/// object's lifetime, as Domino's `self.domino`:
///
/// ```swift
/// final class ContentViewController {
///     let domino = DominoNode(label: "content")
/// }
/// ```
///
/// Nodes form a graph: ``mount(at:)`` makes a node's events travel up to another
/// node. A node may be mounted at several parents (a DAG); cycles are survived. The
/// graph holds no strong reference between nodes, so mounting never keeps a host
/// alive and never makes a retain cycle: when a node deallocates it drops out of
/// every route and takes its subscriptions with it.
///
/// Every method is safe to call from any thread and from inside any handler.
public final class DominoNode: @unchecked Sendable {
    // The words readers without a lock read (see Maintainers/ReadsWithoutALock.md):
    // first, in this order, so that their addresses are fixed offsets from the
    // node's stored properties (`parentLinks`, `childLinks`, `slots`). Never
    // accessed by name after init: an access by name (a mutating call, `&`) is one
    // the thread sanitizer sees as a plain write racing with those readers.
    // Guarded by `graphLock`, which already gives exclusive access to writers.
    @exclusivity(unchecked) private var parentList = NodeList()
    @exclusivity(unchecked) private var childList = NodeList()
    /// Each key's handler table, with a filter that lets a walk pass a node
    /// without scanning, and an index once the node has many keys (see `SlotStore`).
    @exclusivity(unchecked) private var slotList = NodeSlots()
    /// `tracingFlag` and `deliveryOverride` as a walk without a lock reads them (see
    /// `publishedMode`): fourth, 32 bits, so the node is no bigger.
    @exclusivity(unchecked) private var modeBits: UInt32 = 0

    /// A name used by tracing, diagnostics and descriptions.
    public let label: String?
    @exclusivity(unchecked) var tracingFlag = false
    @exclusivity(unchecked) var deliveryOverride: DeliveryMode?
    /// Set for nodes of a ``DominoResponder``; constant, so readable without the lock.
    let responderLink: ResponderLink?

    /// The nodes this node is mounted at (see `NodeList`).
    @inline(__always)
    var parentLinks: NodeListRef { NodeListRef(at: firstStoredProperty(of: self)) }

    /// The nodes mounted at this node.
    @inline(__always)
    var childLinks: NodeListRef { NodeListRef(at: firstStoredProperty(of: self) + MemoryLayout<UInt>.stride) }

    /// Each key's handler table (see `SlotStore`).
    @inline(__always)
    var slots: NodeSlotsRef { NodeSlotsRef(at: firstStoredProperty(of: self) + 2 * MemoryLayout<UInt>.stride) }

    /// Where `modeBits` is.
    @inline(__always)
    private var modeWord: UnsafeMutableRawPointer { firstStoredProperty(of: self) + Self.modeWordOffset }

    /// `modeWord`'s place after the first stored property.
    @inline(__always)
    fileprivate static var modeWordOffset: Int { 3 * MemoryLayout<UInt>.stride }

    /// `publishedMode`'s codes (after the tracing bit): 0 for a node without a mode
    /// of its own, 1 to 3 for a mode without a queue (`DeliveryMode.Code.
    /// published`), then the codes that the walks without a lock of routes without
    /// responder nodes decline: 4 for a responder node without a mode of its own
    /// (`declinesWalksWithoutALockInheriting`), 5 to 7 for a responder node with a
    /// mode without a queue (4 plus that mode's code), 8 for a mode with a queue,
    /// responder node or not (`declinesWalksWithoutAPlan`). Walks up through
    /// responder nodes without a lock and walks down under a stripe take the modes
    /// of codes 4 to 7 from the word; only code 8 sends them to their stripe or
    /// along plans (before session 41 a responder node with any mode of its own
    /// did). Computed, so that no access pays a `swift_once`.
    @inline(__always)
    static var declinesWalksWithoutALockInheriting: UInt32 { 4 }

    /// The code of a mode with a queue (see `declinesWalksWithoutALockInheriting`).
    @inline(__always)
    static var declinesWalksWithoutAPlan: UInt32 { 8 }

    /// True when a node whose `publishedMode` is `word` is left to walks under a
    /// stripe by the walks without a lock of routes without responder nodes: a
    /// responder node, or a mode with a queue (codes 4 to 8).
    @inline(__always)
    static func declinesWalksWithoutALock(_ word: UInt32) -> Bool {
        word >> 1 >= declinesWalksWithoutALockInheriting
    }

    /// True when a node whose `publishedMode` is `word` is left to walks along plans
    /// by walks down under a stripe too (`collectDownStriped`), and to the stripe by
    /// walks up through responder nodes without a lock: a mode with a queue (code
    /// 8). A responder node takes the mode its code names (4: the walk's default).
    @inline(__always)
    static func declinesStripedWalks(_ word: UInt32) -> Bool {
        word >> 1 >= declinesWalksWithoutAPlan
    }

    /// True when a node whose `publishedMode` is `word`, which `declinesStripedWalks`
    /// did not decline, is a responder node (codes 4 to 7): one bit, since code 8
    /// was declined.
    @inline(__always)
    static func isResponderCode(_ word: UInt32) -> Bool {
        word & (declinesWalksWithoutALockInheriting << 1) != 0
    }

    /// The node's tracing and delivery mode for a walk without a lock: bit 0 is
    /// `tracingFlag`; the rest is the code `declinesWalksWithoutALockInheriting`
    /// lists (0 to 8). An acquiring
    /// load. A trivial word, so a reader may load it from a node in its deinit (its
    /// memory kept; `responderLink`, a reference, may be freed).
    @inline(__always)
    var publishedMode: UInt32 { AtomicWord.load32(modeWord) }

    /// Publishes `tracingFlag` and `deliveryOverride` for walks without a lock, with
    /// the walk sequence odd (a walk must not see one node's new mode and another's
    /// old table). Exclusive lock held.
    private func publishModeLocked() {
        var mode: UInt32 = 0
        if let deliveryOverride {
            let code = DeliveryMode.Code.published(deliveryOverride)
            if code == 0 {
                mode = Self.declinesWalksWithoutAPlan
            } else {
                mode = UInt32(code) + (responderLink != nil ? Self.declinesWalksWithoutALockInheriting : 0)
            }
        } else if responderLink != nil {
            mode = Self.declinesWalksWithoutALockInheriting
        }
        let word = mode << 1 | (tracingFlag ? 1 : 0)
        graphLock.changingLinks { AtomicWord.storeReleasing32(modeWord, word) }
    }

    /// True when the four words above are where their accessors look (for tests):
    /// `firstStoredProperty(of:)` agrees with the standard library's
    /// `_getUnsafePointerToStoredProperties`, and the words are first, in order.
    var wordsAreWhereReadersLook: Bool {
        let base = firstStoredProperty(of: self)
        guard base == _getUnsafePointerToStoredProperties(self) else { return false }
        return withUnsafeMutablePointer(to: &parentList) { UnsafeMutableRawPointer($0) == base }
            && withUnsafeMutablePointer(to: &childList) { UnsafeMutableRawPointer($0) == base + MemoryLayout<UInt>.stride }
            && withUnsafeMutablePointer(to: &slotList) { UnsafeMutableRawPointer($0) == base + 2 * MemoryLayout<UInt>.stride }
            && withUnsafeMutablePointer(to: &modeBits) { UnsafeMutableRawPointer($0) == base + 3 * MemoryLayout<UInt>.stride }
    }

    /// How many posts, requests and signal fires may nest on one thread (a handler
    /// posting, whose handler posts, ...). One beyond it is dropped and reported as
    /// ``Diagnostic/Code/nestingLimitExceeded``, which stops runaway recursion
    /// without crashing.
    public static let maximumNestingDepth = 64

    /// Creates a node.
    ///
    /// - Parameter label: A name that tracing and diagnostics show, such as
    ///   `"ContentViewController"`.
    public init(label: String? = nil) {
        self.label = label
        responderLink = nil
        #if DEBUG
        InstanceTracker.track(self, "node \(label ?? "unlabelled")")
        #endif
    }

    /// Creates the node of a responder: its routes continue along the responder chain
    /// (see ``DominoResponder``) before its mounted parents.
    ///
    /// ```swift
    /// lazy var domino = DominoNode(label: "card", responder: self)
    /// ```
    ///
    /// The node holds the responder weakly. A responder has one node: creating a
    /// second one for the same responder makes the chain lead to the newer one.
    public init(label: String? = nil, responder: some DominoResponder) {
        self.label = label
        let link = ResponderLink(host: responder)
        responderLink = link
        // Before the node is shared: walks without a lock decline at responder nodes.
        modeBits = Self.declinesWalksWithoutALockInheriting << 1
        graphLock.withExclusive { _ in registerLocked(responder: link) }
        #if DEBUG
        InstanceTracker.track(self, "node \(label ?? "unlabelled")")
        InstanceTracker.track(responder, "responder \(type(of: responder))")
        #endif
    }

    deinit {
        graphLock.withExclusive { graveyard in
            if let responderLink { unregisterLocked(responder: responderLink, &graveyard) }
            unmountFromAllLocked(&graveyard)
            graphLock.changingLinks {
                childLinks.forEach { $0.parentLinks.remove(self, &graveyard) }
                childLinks.removeAll(&graveyard)
            }
            removeAllSlotsLocked(&graveyard)
            keepMemoryForReadersLocked(&graveyard)
        }
    }

    // MARK: Settings

    /// When true, this node reports ``TraceRecord``s to the ``Tracing`` sink
    /// (Domino's debug mode, per node), as Domino logs when either end of an event is
    /// in debug mode:
    ///
    /// - every walk that starts here (a post, a request, sync or awaited, a named or
    ///   protocol event, a broadcast, a raise, a delivery to the deepest subscriber)
    ///   is traced whole: its start, what happens at every node it reaches (on any
    ///   node, traced or not), and `unhandled` or `unanswered` at its end;
    /// - a walk that starts elsewhere reports only what happens at this node:
    ///   `delivered`, `scheduled`, `reformed`, `stopped` and `answered`.
    ///
    /// ```swift
    /// contentNode.isTracing = true
    /// contentNode.post(ContentDidLoad(itemCount: 12))
    /// // [Domino] post ContentDidLoad at content
    /// // [Domino]   -> ContentDidLoad delivered at container
    /// ```
    public var isTracing: Bool {
        get { graphLock.withShared { tracingFlag } }
        set {
            graphLock.withExclusive { _ in
                tracingFlag = newValue
                publishModeLocked()
            }
        }
    }

    /// The delivery mode of this node's subscriptions that name none; nil (the
    /// default) defers to ``DeliveryMode/default``.
    public var deliveryMode: DeliveryMode? {
        get { graphLock.withShared { deliveryOverride } }
        set {
            newValue?.prepare()
            // The old mode leaves the lock before it is released: its queue's
            // deinit may call back into Domino (a deadlock under the lock).
            let previous = graphLock.withExclusive { _ -> DeliveryMode? in
                defer {
                    deliveryOverride = newValue
                    publishModeLocked()
                }
                return deliveryOverride
            }
            withExtendedLifetime(previous) {}
        }
    }

    // MARK: Mounting

    /// Mounts this node at `parent`: events posted here continue to `parent` after
    /// this node, in the order of mounting when there are several parents.
    ///
    /// ```swift
    /// manager.domino.mount(at: contentViewController.domino)
    /// ```
    ///
    /// Mounting at a node that is already a parent changes nothing. Mounting a node at
    /// itself is refused and reported; a mount that closes a cycle is kept and
    /// reported (routes still visit each node once).
    ///
    /// - Returns: True when a new link was made.
    @discardableResult
    public func mount(at parent: DominoNode) -> Bool {
        if parent === self {
            Diagnostics.emit(.mountAtSelf, "\(self) cannot be mounted at itself; the mount was ignored. Mount it at its parent's node.")
            return false
        }
        var closedCycle = false
        let mounted: Bool = graphLock.withExclusive { graveyard in
            if parentLinks.contains(parent) { return false }
            if Route.wouldCloseCycle(mounting: self, at: parent) {
                closedCycle = true
                Route.graphMayHaveCycles = true
                GraphSettings.refreshWalkGate()
            }
            graphLock.changingLinks {
                parentLinks.append(parent, &graveyard)
                parent.childLinks.append(self, &graveyard)
            }
            // Routes from here now lead through `parent`'s, which refreshes below may
            // not have read (see RouteReading).
            ResponderRegistry.generation &+= 1
            return true
        }
        if closedCycle {
            Diagnostics.emit(.mountCycle, "Mounting \(self) at \(parent) closes a cycle; the mount was kept and routes visit each node once. If the cycle is a mistake, unmount one of its links.")
        }
        return mounted
    }

    /// Removes the link to `parent` (Domino's `unmountFromPredomino:`).
    ///
    /// You never need to unmount before a host deallocates: links are not retained.
    /// Unmounting from a node that is not a parent is reported and changes nothing.
    public func unmount(from parent: DominoNode) {
        let removed: Bool = graphLock.withExclusive { graveyard in
            graphLock.changingLinks {
                guard parentLinks.remove(parent, &graveyard) else { return false }
                parent.childLinks.remove(self, &graveyard)
                return true
            }
        }
        if !removed {
            Diagnostics.emit(.notMounted, "\(self) is not mounted at \(parent); nothing was unmounted. Unmount it from one of its parents (see `parents`).")
        }
    }

    /// Removes every link to a parent.
    public func unmountFromAll() {
        graphLock.withExclusive { graveyard in unmountFromAllLocked(&graveyard) }
    }

    /// Exclusive lock held.
    private func unmountFromAllLocked(_ graveyard: inout Graveyard) {
        graphLock.changingLinks {
            parentLinks.forEach { $0.childLinks.remove(self, &graveyard) }
            parentLinks.removeAll(&graveyard)
        }
    }

    /// The nodes this node is mounted at, in mount order.
    public var parents: [DominoNode] {
        graphLock.withShared { parentLinks.retainedNodes() }
    }

    /// The nodes mounted at this node, in mount order, then the nodes whose
    /// responder chain leads here (as last resolved: see ``refreshResponderChain()``).
    public var children: [DominoNode] {
        graphLock.withShared {
            var links = childLinks.links
            if let responderLink, !responderLink.followers.isEmpty {
                var listed = Set(links)
                responderLink.followers.forEachLink { if listed.insert($0).inserted { links.append($0) } }
            }
            return links.compactMap { $0.retainIfAlive() }
        }
    }

    /// The nodes a post from here visits, in order: this node, then its ancestors
    /// depth-first, parents in mount order, each once.
    ///
    /// ```swift
    /// print(fieldNode.routeNodes.map(\.description))   // ["field", "sidebar", "screen"]
    /// ```
    public var routeNodes: [DominoNode] {
        if graphLock.withShared({ ResponderRegistry.exist }) { refreshResponderChain() }
        return graphLock.withShared {
            var links: [NodeLink] = []
            Route.walk(from: self) { links.append(NodeLink($0)) }
            return links.compactMap { $0.retainIfAlive() }
        }
    }

    // MARK: Handler table

    /// Adds a handler to the slot `key` under the exclusive lock.
    func add<H: Subscription>(_ handler: H, for key: SlotKey) -> H {
        handler.delivery?.prepare()
        let bound = handler.boundObject
        let earlier: [Subscription] = graphLock.withExclusive { graveyard in
            if key.phase == .capture && !GraphSettings.capturesExist {
                GraphSettings.capturesExist = true
                GraphSettings.refreshWalkGate()
            }
            handler.home = NodeLink(self)
            handler.publishedEpoch = UInt32(truncatingIfNeeded: GraphLock.currentEpoch)
            let table = slots.table(for: key)?.takeUnretainedValue() ?? HandlerTable(of: self)
            let updated = table.adding(handler)
            _ = slots.install(updated, for: key, &graveyard)
            guard let bound else { return [] }
            return updated.list(of: handler.role).handlers(boundTo: bound, besides: handler)
        }
        if !earlier.isEmpty { reportDuplicate(handler, of: earlier, in: key) }
        return handler
    }

    /// Reports `handler` as a second subscription of the object it is bound to,
    /// unless each of the `earlier` handlers bound to the same identity outlived its
    /// object (whose address the new one took): then `handler` takes the index's
    /// place of the one indexed. Outside the lock: it loads weak references.
    @inline(never)
    private func reportDuplicate(_ handler: Subscription, of earlier: [Subscription], in key: SlotKey) {
        guard earlier.contains(where: { !$0.isOrphaned }) else {
            graphLock.withExclusive { _ in
                // The slot may have lost its handlers since (its entry stays, cleared).
                guard let table = slots.table(for: key)?.takeUnretainedValue() else { return }
                for stale in earlier { table.list(of: handler.role).replaceBound(stale, with: handler) }
            }
            return
        }
        let phase = key.phase == .bubble ? "" : " (\(key.phase) phase)"
        Diagnostics.emit(
            .duplicateSubscription,
            "\(handler.boundObjectName) was subscribed to \(handler.handledName)\(phase) at \(self) again while its first subscription is active; both stay, so it is called twice. Subscribe it once (not in code that runs again, such as viewWillAppear), or cancel the first subscription."
        )
    }

    /// Removes one handler. Exclusive lock held.
    func removeLocked(_ handler: Subscription, graveyard: inout Graveyard) {
        graveyard.end(handler)
        // No closure over `self` here: its retain and release, under the lock, could
        // be the last release of a node waiting in its deinit (see `NodeLink`).
        guard let place = slots.place(holding: handler) else { return }
        // The handler waits for the walks that may borrow it: the graveyard takes its
        // reference before the storage gives up its own (which may be the last).
        graveyard.retire(handler)
        // O(1): the table's storage marks the handler removed and stops owning it.
        let remaining = slots.table(at: place).removing(handler)
        // Tables are immutable once published: walks read them outside the lock, so a
        // change always installs a new table (read-copy-update). Mutating in place when
        // the table looks uniquely referenced would be cheaper, but a reference-count
        // read does not order the last reader's reads before the writer's writes (the
        // thread sanitizer reports it). The replaced table goes to the graveyard: its
        // last release may free handlers and with them user objects.
        if remaining.isEmpty {
            slots.clear(at: place, &graveyard)
        } else {
            _ = slots.install(remaining, for: slots.key(at: place), &graveyard)
        }
    }

    /// The key of the slot holding `handler`. Lock held.
    func slotKeyLocked(of handler: Subscription) -> SlotKey? {
        slots.first { $0.table.contains(handler) }?.key
    }

    /// Removes every handler of `key` at this node.
    func removeSlot(_ key: SlotKey) {
        graphLock.withExclusive { graveyard in
            guard let place = slots.place(of: key), slots.table(for: key) != nil else { return }
            slots.table(at: place).forEachHandler { graveyard.end($0) }
            slots.clear(at: place, &graveyard)
        }
    }

    /// Removes handlers whose owner deallocated, found by a walk (outside the lock).
    static func purge(_ orphans: [Subscription]) {
        graphLock.withExclusive { graveyard in
            for orphan in orphans {
                orphan.detachLocked(&graveyard)
            }
        }
    }

    /// Removes every subscriber, responder, reformer and interceptor at this node
    /// (Domino's `clearAllSubscribers`). Links to other nodes stay.
    public func clearAllSubscribers() {
        graphLock.withExclusive { graveyard in removeAllSlotsLocked(&graveyard) }
    }

    /// Ends every handler at this node. Exclusive lock held.
    private func removeAllSlotsLocked(_ graveyard: inout Graveyard) {
        slots.forEach { slot in slot.table.forEachHandler { graveyard.end($0) } }
        slots.removeAll(&graveyard)
    }

    /// Leaves this node readable, after its deinit, by readers pinned without a lock
    /// that loaded its address before the deinit unlinked it: when any reader is
    /// pinned, retires an object that holds the node `unowned`, which keeps the
    /// node's memory (not the node) allocated until that object is released, once
    /// no such reader can hold the address (see Maintainers/ReadsWithoutALock.md).
    /// The node's lists and slots are empty by now (the dead state: a late reader
    /// finds no link and no handler). Exclusive lock held.
    private func keepMemoryForReadersLocked(_ graveyard: inout Graveyard) {
        guard graphLock.lockFreeReadersPinnedLocked else { return }
        graveyard.retireShared(MemoryKeeper(self))
        // And its responder link, through which a walk up without a lock reads the
        // node's successor (`DominoNode.collectAlongKnownChainsWithoutALock`).
        if let responderLink { graveyard.retireShared(responderLink) }
    }

    /// How many handlers of every kind are registered at this node.
    public var subscriptionCount: Int {
        graphLock.withShared {
            var count = 0
            slots.forEach { count += $0.table.count }
            return count
        }
    }
}

/// Keeps a deinitialized node's memory allocated (see
/// `DominoNode.keepMemoryForReadersLocked`): the Swift runtime frees an object's
/// memory only once its unowned references are gone too.
final class MemoryKeeper {
    /// Never read: what it is for is the unowned reference count it holds.
    unowned(safe) let node: DominoNode
    /// The node's address, to tell keepers apart (tests).
    let address: UnsafeMutableRawPointer

    init(_ node: borrowing DominoNode) {
        self.node = copy node
        address = Unmanaged.passUnretained(copy node).toOpaque()
    }
}

extension DominoNode: CustomStringConvertible {
    /// The label, or a generated name with the node's address.
    public var description: String {
        // The link's identity: `ObjectIdentifier(self)` copies the node in a debug
        // build, and diagnostics describe nodes under the lock.
        Self.describe(label: label, id: NodeLink(self).id)
    }

    static func describe(label: String?, id: ObjectIdentifier) -> String {
        if let label { return label }
        return "DominoNode(0x" + String(UInt(bitPattern: id), radix: 16) + ")"
    }
}

extension NodeLink {
    /// The node's first stored property, where the words that walks read are (see
    /// `DominoNode.wordsAreWhereReadersLook`), found from the link's address without
    /// borrowing the node: for a walk that reads them outside the closure it gives
    /// `withNode` (which the optimizer may then inline; see `DominoNode.readStriped`).
    @inline(__always)
    private var words: UnsafeMutableRawPointer { firstStoredProperty(ofObjectAt: pointer) }

    /// The node's `DominoNode.parentLinks`.
    @inline(__always)
    var parentLinks: NodeListRef { NodeListRef(at: words) }

    /// The node's `DominoNode.childLinks`.
    @inline(__always)
    var childLinks: NodeListRef { NodeListRef(at: words + MemoryLayout<UInt>.stride) }

    /// The node's `DominoNode.slots`.
    @inline(__always)
    var slots: NodeSlotsRef { NodeSlotsRef(at: words + 2 * MemoryLayout<UInt>.stride) }

    /// The node's `DominoNode.publishedMode`.
    @inline(__always)
    var publishedMode: UInt32 { AtomicWord.load32(words + DominoNode.modeWordOffset) }
}
