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
    /// A name used by tracing, diagnostics and descriptions.
    public let label: String?

    // Guarded by `graphLock`, which already gives exclusive access to writers; the
    // runtime's exclusivity checks would only cost every visit of a walk.
    @exclusivity(unchecked) var parentLinks = NodeList()
    @exclusivity(unchecked) var childLinks = NodeList()
    @exclusivity(unchecked) var slots: ContiguousArray<Slot> = []
    @exclusivity(unchecked) var tracingFlag = false
    /// The union of the `filterBit`s of the keys in `slots`: a walk passes a node
    /// whose filter lacks its key's bit without scanning the slots. (Four bytes that
    /// fit in the padding after `tracingFlag`, so a node grows by nothing.)
    @exclusivity(unchecked) var slotFilter: UInt32 = 0
    @exclusivity(unchecked) var deliveryOverride: DeliveryMode?
    /// Where each key's slot is in `slots`, once the node holds more than
    /// `SlotIndex.threshold` slots: a node with thousands of event types or names
    /// then finds a key in one hash look-up rather than a scan (whose cost the
    /// 32-bit filter no longer saves once every bit is set).
    @exclusivity(unchecked) var slotIndex: SlotIndex?
    /// Set for nodes of a ``DominoResponder``; constant, so readable without the lock.
    let responderLink: ResponderLink?

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
        graphLock.withExclusive { _ in registerLocked(responder: link) }
        #if DEBUG
        InstanceTracker.track(self, "node \(label ?? "unlabelled")")
        InstanceTracker.track(responder, "responder \(type(of: responder))")
        #endif
    }

    deinit {
        graphLock.withExclusive { graveyard in
            if let responderLink { unregisterLocked(responder: responderLink) }
            unmountFromAllLocked()
            childLinks.forEach { $0.parentLinks.remove(self) }
            childLinks.removeAll()
            removeAllSlotsLocked(&graveyard)
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
        set { graphLock.withExclusive { _ in tracingFlag = newValue } }
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
                defer { deliveryOverride = newValue }
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
        let mounted: Bool = graphLock.withExclusive { _ in
            if parentLinks.contains(parent) { return false }
            if Route.wouldCloseCycle(mounting: self, at: parent) {
                closedCycle = true
                Route.graphMayHaveCycles = true
            }
            parentLinks.append(parent)
            parent.childLinks.append(self)
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
        let removed: Bool = graphLock.withExclusive { _ in
            guard parentLinks.remove(parent) else { return false }
            parent.childLinks.remove(self)
            return true
        }
        if !removed {
            Diagnostics.emit(.notMounted, "\(self) is not mounted at \(parent); nothing was unmounted. Unmount it from one of its parents (see `parents`).")
        }
    }

    /// Removes every link to a parent.
    public func unmountFromAll() {
        graphLock.withExclusive { _ in unmountFromAllLocked() }
    }

    /// Exclusive lock held.
    private func unmountFromAllLocked() {
        parentLinks.forEach { $0.childLinks.remove(self) }
        parentLinks.removeAll()
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
            if key.phase == .capture { GraphSettings.capturesExist = true }
            handler.home = NodeLink(self)
            handler.publishedEpoch = UInt32(truncatingIfNeeded: graphLock.currentEpoch)
            let index: Int
            if let found = slotPosition(of: key) {
                index = found
                replaceTable(at: index, with: slots[index].table.adding(handler), &graveyard)
            } else {
                index = slots.count
                slots.append(Slot(key: key, table: HandlerTable(of: self).adding(handler)))
                slotFilter |= key.filterBit
                if let slotIndex {
                    slotIndex.positions[key] = index
                } else if slots.count > SlotIndex.threshold {
                    reindexSlots()
                }
            }
            guard let bound else { return [] }
            return slots[index].handlers(boundTo: bound, besides: handler)
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
                guard let index = slotPosition(of: key) else { return }
                for stale in earlier { slots[index].replaceBound(stale, with: handler) }
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
        guard let index = slots.firstIndex(where: { $0.table.contains(handler) }) else { return }
        if let bound = handler.boundObject { slots[index].unindexBound(handler, boundTo: bound) }
        // O(1): the table's storage marks the handler removed and stops owning it,
        // and the handler waits for the walks that may borrow it.
        let remaining = slots[index].table.removing(handler)
        graveyard.retire(handler)
        // The graveyard's reference stands in for the storage's from here.
        Unmanaged.passUnretained(handler).release()
        if remaining.isEmpty {
            graveyard.retire(slots[index].table)
            removeSlot(at: index)
        } else {
            replaceTable(at: index, with: remaining, &graveyard)
        }
    }

    /// The key of the slot holding `handler`. Lock held.
    func slotKeyLocked(of handler: Subscription) -> SlotKey? {
        slots.first { $0.table.contains(handler) }?.key
    }

    /// Where the slot of `key` is in `slots`, if the node has one. Lock held.
    @inline(__always)
    func slotPosition(of key: SlotKey) -> Int? {
        if let slotIndex { return slotIndex.positions[key] }
        // An index loop: `first(where:)` copies every slot it looks at (measured:
        // +40% instructions per post on a node with five other slots).
        for index in slots.indices where slots[index].key == key { return index }
        return nil
    }

    /// Removes the slot at `index`, keeping the filter and the index right.
    /// Exclusive lock held. O(slots): removing many slots one by one is quadratic
    /// in the number of slots (not of handlers), which only a node with thousands of
    /// event types would notice.
    private func removeSlot(at index: Int) {
        slots.remove(at: index)
        slotFilter = slots.reduce(0) { $0 | $1.key.filterBit }
        if slotIndex != nil { reindexSlots() }
    }

    /// Builds `slotIndex` from `slots`, or drops it when the node has few slots.
    /// Exclusive lock held.
    private func reindexSlots() {
        guard slots.count > SlotIndex.threshold else {
            slotIndex = nil
            return
        }
        let index = slotIndex ?? SlotIndex()
        index.positions.removeAll(keepingCapacity: true)
        for (position, slot) in slots.enumerated() { index.positions[slot.key] = position }
        slotIndex = index
    }

    /// Installs `table` at `index`. Exclusive lock held.
    ///
    /// Tables are immutable once published: walks read them outside the lock, so a
    /// change always installs a new table (read-copy-update). Mutating in place when
    /// the table looks uniquely referenced would be cheaper, but a reference-count
    /// read does not order the last reader's reads before the writer's writes (the
    /// thread sanitizer reports it). The replaced table goes to the graveyard: its
    /// last release may free handlers and with them user objects.
    private func replaceTable(at index: Int, with table: HandlerTable, _ graveyard: inout Graveyard) {
        graveyard.retire(slots[index].table)
        slots[index].table = table
    }

    /// Removes every handler of `key` at this node.
    func removeSlot(_ key: SlotKey) {
        graphLock.withExclusive { graveyard in
            guard let index = slotPosition(of: key) else { return }
            slots[index].table.forEachHandler { graveyard.end($0) }
            graveyard.retire(slots[index].table)
            removeSlot(at: index)
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
        for slot in slots {
            slot.table.forEachHandler { graveyard.end($0) }
            graveyard.retire(slot.table)
        }
        slots = []
        slotFilter = 0
        slotIndex = nil
    }

    /// How many handlers of every kind are registered at this node.
    public var subscriptionCount: Int {
        graphLock.withShared { slots.reduce(0) { $0 + $1.table.count } }
    }
}

/// A node's slots by key (see `DominoNode.slotIndex`). Guarded by the graph lock.
final class SlotIndex {
    /// How many slots a node scans before it indexes them: a scan of a few keys
    /// (one word compared each, for types) costs less than hashing one.
    static let threshold = 8

    @exclusivity(unchecked) var positions: [SlotKey: Int] = [:]
}

extension DominoNode: CustomStringConvertible {
    /// The label, or a generated name with the node's address.
    public var description: String {
        Self.describe(label: label, id: ObjectIdentifier(self))
    }

    static func describe(label: String?, id: ObjectIdentifier) -> String {
        if let label { return label }
        return "DominoNode(0x" + String(UInt(bitPattern: id), radix: 16) + ")"
    }
}
