/// Events that go down the graph: broadcast to a subtree, EventsTree's raise and
/// propagate, and delivery to the deepest subscriber.
///
/// ```swift
/// // Every node of the window's tree hears the theme change.
/// windowNode.broadcast(ThemeDidChange(theme: .dark))
///
/// // EventsTree: up to the root(s) first (raise-phase handlers), then down to
/// // every node (default handlers); any handler can consume it.
/// cellNode.raise(SessionDidExpire())
/// ```
///
/// Going down, at each node: its reformers rewrite the value for that node and its
/// subtree, its subscribers run, then an interceptor's ``Interception/stop`` keeps
/// the event out of that node's subtree (the rest of the tree still gets it). A
/// subscriber's ``Propagation/stop()`` consumes the event: no node that has not
/// received it yet will (EventsTree's consume); ``Propagation/stopImmediately()``
/// also skips the remaining handlers at its node.
extension DominoNode {
    /// Delivers a typed event to this node and every node below it: depth-first
    /// pre-order, children in mount order (then the nodes whose responder chain
    /// leads here), each node once even in a DAG.
    ///
    /// ```swift
    /// rootNode.broadcast(ThemeDidChange(theme: .dark))
    /// ```
    ///
    /// A node knows where its own responder chain leads, never which nodes lead to
    /// it, so a broadcast first reads the chain of every responder node (see
    /// ``DominoResponder``): on the main thread, it reaches every responder node whose
    /// chain leads here now, posted from or not. From another thread it reads only
    /// the chains that may be read there, and follows the others as last read on the
    /// main thread (by a post, a broadcast or ``refreshResponderChain()`` there).
    /// Raise and ``deliverToDeepestSubscriber(_:)`` do the same.
    @discardableResult
    public func broadcast<E: Event>(_ event: E) -> PostResult {
        deliverDown(event, key: .of(E.self), raising: false)
    }

    /// Delivers a named event to this node and every node below it.
    @discardableResult
    public func broadcast(_ name: EventName, _ parameters: [String: any Sendable] = [:]) -> PostResult {
        deliverDown(NamedEvent(name: name, parameters: parameters), key: .name(name.rawValue), raising: false)
    }

    /// Raises a typed event, as EventsTree does: ``Phase/raise`` handlers run along
    /// the route up to the root(s); then the event propagates from each root down to
    /// every node of its tree, where the default-phase handlers run. Any handler can
    /// consume it with ``Propagation/stop()``.
    ///
    /// A cycle of the route with no way further up (`a` mounted at `b` and `b` at
    /// `a`) has no root: the event turns down there from the cycle's node that comes
    /// last on the route, the raising node's outermost ancestor in that cycle. (The
    /// mount that closed the cycle was reported as ``Diagnostic/Code/mountCycle``.)
    ///
    /// ```swift
    /// appNode.subscribe(SessionDidExpire.self, phase: .raise) { _, propagation in
    ///     if isOffline { propagation.stop() }   // nobody else hears it
    /// }
    /// screenNode.subscribe(SessionDidExpire.self) { _ in showLogin() }
    /// cellNode.raise(SessionDidExpire())
    /// ```
    @discardableResult
    public func raise<E: Event>(_ event: E) -> PostResult {
        deliverDown(event, key: .of(E.self), raising: true)
    }

    /// Raises a named event (see ``raise(_:)-(E)``).
    @discardableResult
    public func raise(_ name: EventName, _ parameters: [String: any Sendable] = [:]) -> PostResult {
        deliverDown(NamedEvent(name: name, parameters: parameters), key: .name(name.rawValue), raising: true)
    }

    /// Delivers a typed event to one subscriber: the most recent subscriber of the
    /// deepest node below (or at) this node that has one; among nodes equally deep,
    /// the one in the most recently mounted branch. Nowhere else.
    ///
    /// For events that come from outside the hierarchy and concern whatever is
    /// frontmost, such as a menu command or a deep link:
    ///
    /// ```swift
    /// windowNode.deliverToDeepestSubscriber(Copy())
    /// ```
    ///
    /// A subscriber whose owner is gone is skipped for the next one.
    @discardableResult
    public func deliverToDeepestSubscriber<E: Event>(_ event: E) -> PostResult {
        deliverToDeepest(event, key: .of(E.self))
    }

    // MARK: The walk down

    /// Collects the stages of `key` in the subtrees of `roots`, with each stage's
    /// nearest ancestor stage. Shared lock held. Returns true when no stage has
    /// reformers, interceptors or groups (nor responders beside its subscribers,
    /// which share their out-of-line lists): the delivery then needs no marks.
    private static func collectDown(_ key: SlotKey, from roots: UnsafeBufferPointer<NodeLink>, into plan: inout Plan, traceAll: Bool, scratch: DownScratch) -> Bool {
        let groupsExist = GraphSettings.groupsExist
        let extras = plan.extra()
        // The space of earlier walks, as locals: a class's properties would cost an
        // access check per node.
        var visited = Set<NodeLink>()
        var stack = ScratchList<Route.DownStep>()
        // The stages that may intercept on the path from the root to the node being
        // visited, by their entry in `subtreeEnds`: every visited node closes the
        // ones that are not its ancestors. (Each node's nearest ancestor stage comes
        // down the walk's tree instead: `walkDown` hands it down.)
        var openEnds = ScratchList<(depth: Int, entry: Int)>()
        // And the plan's lists, for the same reason.
        var ancestors = ScratchList<Int>()
        var subtreeEnds = ScratchList<(stage: Int, end: Int)>()
        swap(&visited, &scratch.visited)
        swap(&stack, &scratch.stack)
        swap(&openEnds, &scratch.openEnds)
        swap(&ancestors, &extras.ancestors)
        swap(&subtreeEnds, &extras.subtreeEnds)
        defer {
            swap(&visited, &scratch.visited)
            swap(&stack, &scratch.stack)
            swap(&openEnds, &scratch.openEnds)
            swap(&ancestors, &extras.ancestors)
            swap(&subtreeEnds, &extras.subtreeEnds)
        }
        var plain = true
        Route.walkDown(from: roots, visited: &visited, stack: &stack) { node, depth, ancestor in
            plan.nodesVisited += 1
            while let last = openEnds.last, last.depth >= depth {
                subtreeEnds[last.entry].end = plan.nodesVisited - 1
                openEnds.removeLast()
            }
            // Unmanaged rather than table references: each reference held here would
            // cost a retain and a release per node.
            let table = node.slots.table(for: key)
            let groups = groupsExist ? node.slots.table(for: .group) : nil
            if table == nil && groups == nil { return ancestor }
            plan.addStage(table ?? .passUnretained(plan.ownTable(for: node)), at: node, traceAll: traceAll)
            ancestors.append(ancestor)
            if groups != nil || table.unsafelyUnwrapped._withUnsafeGuaranteedRef({ $0.rarer != nil }) { plain = false }
            if groups != nil || table.unsafelyUnwrapped._withUnsafeGuaranteedRef({ $0.hasInterceptors }) {
                openEnds.append((depth, subtreeEnds.count))
                subtreeEnds.append((plan.stages.count - 1, plan.nodesVisited))     // until its subtree closes
            }
            if let groups { plan.addGroups(groups.takeUnretainedValue()) }
            return plan.stages.count - 1
        }
        for index in 0..<openEnds.count { subtreeEnds[openEnds[index].entry].end = plan.nodesVisited }
        return plain
    }

    /// A raise or a broadcast from this node. Inlined into the four public walks
    /// down, with the walk without the stripe: called, its result was copied from
    /// frame to frame (measured: a raise 2,223 to 2,203 instructions).
    @inline(__always)
    func deliverDown<Payload: Sendable>(_ value: Payload, key: SlotKey, raising: Bool) -> PostResult {
        let thread = ThreadState.current
        // The verb inside the message: a local captured by it was released at every walk.
        guard enterNesting(thread, what: "\(raising ? "Raising" : "Broadcasting") \(key.displayName(for: Payload.self))") else {
            return PostResult(deliveries: 0, nodesVisited: 0, stopReason: .nestingLimit, stoppedAt: description)
        }
        // Wrapping: `enterNesting` bounds the count (`maximumNestingDepth`).
        defer { thread.pointee.nesting &-= 1 }
        // Without the stripe and without plans when no responder node was ever made
        // (their followers are not published), unless this thread's last walk of the
        // same kind, from this node, for this type, found a stage that is not plain
        // (that walk collected the tree twice); else, or when that declines, under
        // the stripe along plans. Once responder nodes exist, under the stripe and
        // without plans first (`deliverDownThroughResponders`).
        guard !GraphLock.respondersExist else { return deliverDownThroughResponders(value, key: key, raising: raising, thread: thread) }
        if !thread.pointee.downNotPlain.matches(self, key, raising: raising),
           let result = deliverDownWithoutLock(value, key: key, raising: raising, thread: thread) {
            return result
        }
        return deliverDownLocked(value, key: key, raising: raising, chainsRead: nil, thread: thread)
    }

    /// `deliverDown` once responder nodes exist: under the stripe without plans
    /// (`deliverDownStriped`) unless the thread's last walk of the same kind found a
    /// stage that is not plain, else, or when that declines, along plans. Out of
    /// line, so that walks in programs without responder nodes pay one test for it.
    @inline(never)
    private func deliverDownThroughResponders<Payload: Sendable>(_ value: Payload, key: SlotKey, raising: Bool, thread: UnsafeMutablePointer<ThreadState>) -> PostResult {
        if thread.pointee.downNotPlain.matches(self, key, raising: raising) {
            return deliverDownLocked(value, key: key, raising: raising, chainsRead: nil, thread: thread)
        }
        // A node knows where its own responder chain leads, never who follows it.
        var chainsRead = Self.refreshEveryResponderChain()
        if let result = deliverDownStriped(value, key: key, raising: raising, chainsRead: &chainsRead, thread: thread) { return result }
        return deliverDownLocked(value, key: key, raising: raising, chainsRead: chainsRead, thread: thread)
    }

    /// `deliverDown` collected under the stripe, along plans: every case (responder
    /// chains, cycles, branching routes, reformers, interceptors, groups, tracing).
    /// `chainsRead`: what the walk's reads of every responder chain found, when it
    /// made them already (a walk under the stripe that declined; see
    /// `refreshEveryResponderChain()`).
    @inline(never)
    private func deliverDownLocked<Payload: Sendable>(_ value: Payload, key: SlotKey, raising: Bool, chainsRead: ChainsRead?, thread: UnsafeMutablePointer<ThreadState>) -> PostResult {
        thread.pointee.walksDownAlongPlans &+= 1
        let scratch = DownScratch.take(from: thread)
        var up = Plan()
        var down = Plan()
        up.stages = StageList(reusing: scratch.takeUpStages())
        down.stages = StageList(reusing: scratch.takeDownStages())
        down.borrowExtras(scratch.extras)
        defer {
            down.returnExtras()
            DownScratch.giveBack(scratch, upStages: up.stages.takeStorage(), downStages: down.stages.takeStorage(), to: thread)
        }
        up.writes = thread.pointee.writes
        down.writes = up.writes
        let hinted = thread.pointee.downNotPlain.matches(self, key, raising: raising)
        let plain = collectDownLocked(key, raising: raising, chainsRead: chainsRead, up: &up, down: &down, scratch: scratch, thread: thread)
        // The tree is plain again: the next walk tries without the stripe.
        if hinted && plain { thread.pointee.downNotPlain = DownHint() }

        var eventName: String { Self.traceName(of: value, key: key) }
        if down.originTraced {
            Tracing.emit(TraceRecord(kind: raising ? .raised : .broadcast, event: eventName, node: description))
        }
        var deliveries = 0
        var scheduled = 0
        var orphans = Orphans()
        var stopReason: PostResult.StopReason?
        var stoppedAt: String?
        defer { orphans.purge() }

        // The nodes the walk reached: the way up (for a raise), then the way down but
        // for the subtrees that interceptors kept the event out of, unless a stop
        // ends it before.
        var reached = 0
        var keptOut = 0

        func stopped(_ stop: Propagation.Stop, at stage: Stage, reached nodes: Int) {
            stopReason = stop == .immediately ? .subscriberImmediately : .subscriber
            stoppedAt = stage.nodeName
            reached = nodes
            if stage.traced {
                Tracing.emit(TraceRecord(kind: .stopped(stopReason!), event: eventName, node: stage.nodeName))
            }
        }

        // Raise: up the route to the root(s).
        // Through the loop the way down uses, rather than `notify` inlined here.
        if up.stages.count > 0, let (stage, stop) = Self.notifyEach(
            value, key: key, planned: up.stages, writes: up.writes, thread: thread,
            deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans
        ) {
            stopped(stop, at: stage, reached: stage.position)
        }

        // Down the subtrees, pre-order.
        if plain {
            // Nothing reforms or intercepts: every stage gets the value as sent, and
            // only a stop ends the walk (measured: the marks below cost about 40
            // instructions a node).
            if stopReason == nil, down.stages.count > 0, let (stage, stop) = Self.notifyEach(
                value, key: key, planned: down.stages, writes: down.writes, thread: thread,
                deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans
            ) {
                stopped(stop, at: stage, reached: up.nodesVisited + stage.position)
            }
        } else if stopReason == nil, let (stage, stop, reachedBefore) = Self.notifyMarked(
            value, down: down, scratch: scratch, thread: thread, eventName: { eventName },
            deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans, keptOut: &keptOut
        ) {
            stopped(stop, at: stage, reached: up.nodesVisited + reachedBefore)
        }
        if stopReason == nil { reached = up.nodesVisited + down.nodesVisited - keptOut }

        if deliveries == 0 && down.originTraced && stopReason == nil {
            Tracing.emit(TraceRecord(kind: .unhandled, event: eventName, node: description))
        }
        return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: reached, stopReason: stopReason, stoppedAt: stoppedAt)
    }

    /// The way down of a walk whose tree is not plain (reformers, interceptors,
    /// groups): each stage inherits from its nearest ancestor stage the value as
    /// reformed there, and whether an interceptor above kept the event out of its
    /// subtree. Returns the stage where a subscriber stopped the walk, how, and the
    /// nodes reached on the way down by then; `keptOut` counts the nodes of the
    /// subtrees kept out. Out of `deliverDown`, whose plain walks paid for its frame
    /// and registers.
    @inline(never)
    private static func notifyMarked<Payload: Sendable>(
        _ value: Payload, down: borrowing Plan, scratch: DownScratch, thread: UnsafeMutablePointer<ThreadState>,
        eventName: () -> String, deliveries: inout Int, scheduled: inout Int, orphans: inout Orphans, keptOut: inout Int
    ) -> (Stage, Propagation.Stop, reached: Int)? {
        let ancestors = down.extras.unsafelyUnwrapped.ancestors
        // By stage, for stages with reformers. Of a concrete type: a `[Int: Payload]`
        // made an unspecialized walk look up two tuple metadata per walk (measured:
        // 330 instructions a raise), for a dictionary that only reformers fill.
        var reformed: [Int: any Sendable] = [:]
        let marks = scratch.marks(count: down.stages.count)
        let hasGroups = down.hasGroups
        for index in 0..<down.stages.count {
            let stage = down.stages[index]
            let ancestor = ancestors[index]
            if ancestor >= 0 {
                marks[index].source = marks[ancestor].source
                marks[index].excluded = marks[ancestor].excluded || marks[ancestor].intercepted
            }
            if marks[index].excluded { continue }
            let (reforms, intercepts) = stage.withTable { ($0.hasReformers, $0.hasInterceptors) }
            let propagation: Propagation
            var intercepted = false
            if marks[index].source < 0 && !reforms {
                // The value as sent, lent rather than copied (a copy of a generic
                // value per stage cost a broadcast 40 instructions a node).
                propagation = notify(value, at: stage, writes: down.writes, thread: thread, eventName: eventName(), deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans)
                if propagation.requestedStop == nil, intercepts || hasGroups {
                    intercepted = Self.intercepts(value, at: index, of: down)
                }
            } else {
                var current = marks[index].source >= 0 ? reformed[marks[index].source]! as! Payload : value
                if reforms {
                    reform(&current, at: stage, eventName: eventName())
                    reformed[index] = current
                    marks[index].source = index
                }
                propagation = notify(current, at: stage, writes: down.writes, thread: thread, eventName: eventName(), deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans)
                if propagation.requestedStop == nil, intercepts || hasGroups {
                    intercepted = Self.intercepts(current, at: index, of: down)
                }
            }
            if let stop = propagation.requestedStop {
                return (stage, stop, stage.position - keptOut)
            }
            if intercepted {
                marks[index].intercepted = true
                // Its subtree: in pre-order, the places after it up to its end.
                keptOut += (down.extras?.subtreeEnd(of: index) ?? stage.position) - stage.position
                if stage.traced {
                    Tracing.emit(TraceRecord(kind: .stopped(.interceptor), event: eventName(), node: stage.nodeName))
                }
            }
        }
        return nil
    }

    /// `deliverDown`'s collection under the stripe: every case (responder chains,
    /// cycles, branching routes, reformers, interceptors, groups, tracing). Returns
    /// true when every stage of the way down is plain (see `collectDown`).
    private func collectDownLocked(_ key: SlotKey, raising: Bool, chainsRead: ChainsRead?, up: inout Plan, down: inout Plan, scratch: DownScratch, thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        // A node knows where its own responder chain leads, never who follows it: read
        // every chain, so that the walk down finds the followers it has not met yet.
        var chainsRead = chainsRead ?? Self.refreshEveryResponderChain()
        Self.lockShared(stripe: thread.pointee.stripe, chainsRead: &chainsRead)
        let gate = GraphLock.walkGate
        up.takeDefaultMode(fromGate: gate)
        down.takeDefaultMode(fromGate: gate)
        // A traced origin traces every stage, up and down.
        let traceAll = Tracing.tracesAllNodes || tracingFlag
        down.originTraced = traceAll
        var roots = ScratchList<NodeLink>()
        swap(&roots, &scratch.roots)
        defer { swap(&roots, &scratch.roots) }
        if !raising {
            roots.append(NodeLink(self))
        } else {
            let raiseKey = key.in(.raise)
            Route.walk(from: self) { node in
                up.nodesVisited += 1
                if let table = node.slots.table(for: raiseKey) {
                    up.addStage(table, at: node, traceAll: traceAll)
                }
                // Nested ifs: a `&&` naming `node` on its right retains it in debug
                // builds (see `Route.walkDown`).
                if node.parentLinks.isEmpty {
                    if node.responderLink?.successor == nil { roots.append(NodeLink(node)) }
                }
            }
            // A cycle with no way further up has no root: it turns down from its node
            // last on the route (see `Route.tops`).
            if Route.graphMayHaveCycles {
                roots.removeAll()
                for top in Route.tops(from: self) { roots.append(top) }
            }
        }
        let plain = Self.collectDown(key, from: roots.buffer, into: &down, traceAll: traceAll, scratch: scratch)
        up.pinIfBorrowing(thread.pointee.pins)
        down.pinIfBorrowing(thread.pointee.pins)
        graphLock.unlockShared(stripe: thread.pointee.stripe)
        chainsRead.dropCensus()
        return plain
    }

    /// `deliverDown` without the stripe and without plans (performance round 3; see
    /// Maintainers/ReadsWithoutALock.md, "Walks down without plans"): collects the
    /// way up and the way down into the thread's scratch lists, as a walk up collects
    /// without the stripe, then runs the stages. Nil when the walk must collect under
    /// its stripe instead, having delivered nothing and holding no pin: the
    /// collection declined, or found a stage that is not plain (which the thread then
    /// remembers in `downNotPlain`). The caller saw that no responder node exists.
    ///
    /// A collection that found the epoch moved when it took its delivery pin starts
    /// again (at most twice), rather than wait for the stripe: the epoch moves
    /// whenever a writer retires something, so under churn that would make walks
    /// down wait for writers often.
    @inline(__always)
    private func deliverDownWithoutLock<Payload: Sendable>(_ value: Payload, key: SlotKey, raising: Bool, thread: UnsafeMutablePointer<ThreadState>) -> PostResult? {
        let scratch = DownScratch.take(from: thread)
        scratch.startPublishedWalk()
        let writes = thread.pointee.writes
        let pins = thread.pointee.pins
        var parity = -1
        var outcome = DownCollection.declined
        for _ in 0..<3 {
            let readParity = GraphLock.pinWithoutLock(pins)
            outcome = collectDownPublished(key, raising: raising, scratch: scratch, readParity: readParity, thread: thread)
            // The read pin first: giving the delivery pin back may reclaim (and so run
            // deinits), which no read pin may span.
            if outcome == .collected {
                GraphLock.unpinReadPin(pins, parity: readParity)
            } else {
                GraphLock.unpinWithoutLock(pins, parity: readParity)
            }
            if outcome == .collected {
                parity = readParity
                break
            }
            if outcome == .nothingToDeliver { break }
            scratch.startPublishedWalk()
            if outcome != .epochMoved { break }
        }
        guard outcome == .collected || outcome == .nothingToDeliver else {
            if outcome == .notPlain, let hint = DownHint(origin: self, key: key, raising: raising) { thread.pointee.downNotPlain = hint }
            DownScratch.giveBackPublished(consume scratch, to: thread)
            return nil
        }
        return deliverCollected(value, key: key, raising: raising, scratch: scratch, writes: writes, parity: parity, thread: thread)
    }

    /// The delivery of a walk down collected into `scratch`'s stage lists, all
    /// plain, without plans (`deliverDownWithoutLock`, `deliverDownStriped`): the
    /// way up, then the way down; gives the delivery pin of `parity` back (none when
    /// -1) and the scratch to `thread`.
    @inline(__always)
    private func deliverCollected<Payload: Sendable>(
        _ value: Payload, key: SlotKey, raising: Bool, scratch: consuming DownScratch, writes: Int, parity: Int,
        thread: UnsafeMutablePointer<ThreadState>
    ) -> PostResult {
        let pins = thread.pointee.pins
        var eventName: String { Self.traceName(of: value, key: key) }
        if scratch.originTraced {
            Tracing.emit(TraceRecord(kind: raising ? .raised : .broadcast, event: eventName, node: description))
        }
        var deliveries = 0
        var scheduled = 0
        var orphans = Orphans()
        // Where a subscriber stopped the walk, how, and the nodes reached by then.
        var stopped: (stage: Stage, stop: Propagation.Stop, reached: Int)?
        // Raise: up the route to the root; then down the tree, pre-order. The stages'
        // memory does not change under the loops: a handler's own walks down take
        // scratch of their own.
        if scratch.upStages.count > 0, let (stage, stop) = Self.notifyEach(
            value, key: key, stages: scratch.upStages.buffer, writes: writes, thread: thread,
            deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans
        ) {
            stopped = (stage, stop, stage.position)
        }
        if stopped == nil, scratch.downStages.count > 0, let (stage, stop) = Self.notifyEach(
            value, key: key, stages: scratch.downStages.buffer, writes: writes, thread: thread,
            deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans
        ) {
            stopped = (stage, stop, scratch.upVisited + stage.position)
        }
        // The result before the delivery pin goes back: the stage where a subscriber
        // stopped the walk names its node through its table, which only the pin
        // keeps (the handler that stopped it may have replaced it).
        let result: PostResult
        if let stopped {
            let stopReason: PostResult.StopReason = stopped.stop == .immediately ? .subscriberImmediately : .subscriber
            let stoppedAt = stopped.stage.nodeName
            if stopped.stage.traced {
                Tracing.emit(TraceRecord(kind: .stopped(stopReason), event: eventName, node: stoppedAt))
            }
            result = PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: stopped.reached, stopReason: stopReason, stoppedAt: stoppedAt)
        } else {
            if deliveries == 0 && scratch.originTraced {
                Tracing.emit(TraceRecord(kind: .unhandled, event: eventName, node: description))
            }
            result = PostResult(
                deliveries: deliveries, scheduled: scheduled, nodesVisited: scratch.upVisited + scratch.downVisited, stopReason: nil, stoppedAt: nil
            )
        }
        orphans.purge()
        if parity >= 0 { GraphLock.unpin(pins, parity: parity) }
        DownScratch.giveBackPublished(consume scratch, to: thread)
        return result
    }

    /// What `collectDownPublished` or `collectDownStriped` did. "The read pin" is
    /// the walk without the stripe's; the walk under the stripe holds no pin until
    /// its caller pins for a collection that returned `.collected`.
    private enum DownCollection {
        /// The walk holds every stage, all plain (without the stripe, and the
        /// delivery pin in the read pin's parity).
        case collected
        /// The walk found no stage. Nothing but the read pin held.
        case nothingToDeliver
        /// The walk must collect under its stripe. Nothing but the read pin held.
        case declined
        /// The walk must collect under its stripe: a stage on the way down has
        /// reformers or interceptors (or secondary responders), whose marks need it
        /// (`Slot.rarerTag`). Nothing but the read pin held.
        case notPlain
        /// The epoch moved during the walk: collecting again may succeed. Nothing but
        /// the read pin held.
        case epochMoved
    }

    /// `deliverDownWithoutLock`'s walk; the caller is pinned without a lock.
    ///
    /// What it reads, it reads as `collectPublished` does: between two equal, even
    /// loads of `GraphLock.linkSequence` (checked at each node too), each node's
    /// mode word, parent and child lists and table word, never a table: a table
    /// word tagged as not plain (`Slot.rarerTag`: reformers, interceptors, which
    /// need the marks that `collectDown` sets up) declines the whole collection.
    /// Then it takes the delivery pin in the read pin's parity as
    /// `collectPublished` does (`.epochMoved` when the epoch moved).
    /// Declines too when the gate is closed, at a node with group interceptors or
    /// that declines walks without a lock (a responder node, a mode with a queue),
    /// and on a raise's way up that branches (a raise then has a single root). The
    /// way up of a raise needs no group look-up: it runs raise-phase handlers only.
    private func collectDownPublished(
        _ key: SlotKey, raising: Bool, scratch: DownScratch, readParity: Int, thread: UnsafeMutablePointer<ThreadState>
    ) -> DownCollection {
        // The sequence before the gate, as in `collectPublished`.
        let sequenceWord = GraphLock.linkSequenceAddress
        let sequence = AtomicWord.load(sequenceWord)
        let gate = GraphLock.walkGate
        // Capture handlers do not matter going down; group interceptors do, at the
        // nodes that have them.
        let groupsUsed = gate & GraphLock.gateGroups != 0
        let defaultCode = gate & ~(GraphLock.gateGroups | GraphLock.gateCaptures)
        guard defaultCode &- 1 < 0xFF, sequence & 1 == 0 else { return .declined }
        let origin = publishedMode
        if DominoNode.declinesWalksWithoutALock(origin) { return .declined }
        let traceAll = origin & 1 != 0
        scratch.originTraced = traceAll
        let modeBits = Stage.publishedModeBits(defaultCode: defaultCode, traceAll: traceAll)
        var top = NodeLink(self)
        let raiseKey = key.in(.raise)
        if raising {
            var visited = 0
            var stages = scratch.upStages
            defer { scratch.upStages = stages }
            while true {
                guard let found = Self.readPublished(top, raiseKey), !found.parents.isMultiple else { return .declined }
                visited &+= 1
                if let table = found.table {
                    stages.append(Stage(published: table, modeBits: modeBits, modeWord: found.mode, position: visited))
                }
                guard let next = found.parents.only else { break }
                // The sequence every 16 levels, and once after the walk down (which
                // covers this one), as in `collectLean(_:thread:)`.
                if visited & 15 == 0, AtomicWord.load(sequenceWord) != sequence { return .declined }
                top = next
            }
            scratch.upVisited = visited
        }

        // Depth-first pre-order, children in mount order; a node with several
        // parents once (no cycle: the gate is closed once one was ever made). A walk
        // without the stripe has a single root. A node's only child is visited next
        // (measured: a raise at depth 10 2,595 to 2,457 instructions, 13 a node of
        // its chain); a list of several is read in place through a cursor, and the
        // cursor of the list above is kept while the walk goes down one of its links
        // (each link pushed on a stack and popped cost a broadcast 23 instructions a
        // node). The visited set is used in place, where nodes with several parents
        // are: taken out into a local and put back, the empty set left in the local
        // was released at every walk (measured: 18 instructions).
        // The lists as locals, put back at the end: the walk's fields would be
        // loaded and stored at every node. (Put back by a `defer`, which the
        // optimizer makes a function of its own for the loop's several returns: one
        // way out of the loop instead cost a broadcast 4 instructions a node, more
        // registers spilled in the loop.)
        var stages = scratch.downStages
        var cursors = scratch.cursors
        defer {
            scratch.downStages = stages
            scratch.cursors = cursors
            if !scratch.visited.isEmpty { scratch.visited.removeAll(keepingCapacity: true) }
        }
        var link = top
        var visited = 0
        var cursor = ChildCursor.empty
        walk: while true {
            let found = link.withNode { node -> (children: NodeList.Shape, tableWord: UInt, mode: UInt32, reachableTwice: Bool)? in
                let mode = node.publishedMode
                if DominoNode.declinesWalksWithoutALock(mode) { return nil }
                // Not `groupsUsed && …`: the operator's autoclosure captures `node`,
                // which a debug build retains, and a node read without a lock may be
                // in its deinit (a retain then outlives it: a crash, seen under the
                // address sanitizer). No other operator with an autoclosure here.
                if groupsUsed {
                    if node.publishedTable(for: .group) != nil { return nil }
                }
                return (node.publishedChildren, node.publishedTableWord(for: key), mode, node.publishedParents.isMultiple)
            }
            guard let found else { return .declined }
            // A table with reformers or interceptors: the walk needs its marks.
            if found.tableWord & Slot.rarerTag != 0 { return .notPlain }
            var firstVisit = true
            if found.reachableTwice {
                firstVisit = scratch.visited.insert(link).inserted
            }
            if firstVisit {
                visited &+= 1
                // Without the tag: the table's address, or 0.
                if let table = UnsafeRawPointer(bitPattern: found.tableWord) {
                    stages.append(Stage(published: Unmanaged.fromOpaque(table), modeBits: modeBits, modeWord: found.mode, position: visited))
                }
                // The sequence every 16 nodes, not at each: links of two moments could
                // make a loop, found within 16 nodes of the sequence moving; the walk
                // as a whole is checked once after it (every word is read with an
                // acquiring load). Memory needs no check: what a link read under the
                // pin leads to is retired, not freed. (At each node: a broadcast about
                // 3 instructions a node more.)
                if visited & 15 == 0, AtomicWord.load(sequenceWord) != sequence { return .declined }
                if let only = found.children.only {
                    link = only
                    continue
                }
                if let children = found.children.publishedCursor {
                    // The list above is kept only while it has links left.
                    if cursor.hasMore { cursors.append(cursor) }
                    cursor = children
                }
            }
            guard let next = Self.nextLink(&cursor, above: &cursors, advance: { $0.advance() }) else { break walk }
            link = next
        }
        if AtomicWord.load(sequenceWord) != sequence { return .declined }
        scratch.downVisited = visited

        guard scratch.upStages.count > 0 || stages.count > 0 else { return .nothingToDeliver }
        // When the epoch moved during the walk, the walk collects again rather than
        // check each table still published: that would need each stage's node kept
        // (measured: 8 instructions a node), for a case that needs a writer to
        // retire something while the walk reads.
        guard GraphLock.pinForDelivery(thread.pointee.pins, keepingReadPinOf: readParity) else { return .epochMoved }
        return .collected
    }

    /// `deliverDown` once responder nodes exist, whose followers (the nodes whose
    /// responder chain leads to a node) only walks under a stripe read: collected
    /// under the stripe as `collectDownPublished` collects without it, straight into
    /// the thread's scratch lists, then delivered as that walk delivers, without
    /// plans (a walk along plans through 111 responder nodes spent about 166
    /// instructions a node collecting). Nil when the walk must go along plans
    /// (`deliverDownLocked`), having delivered nothing and holding no pin; the
    /// chains were read first, so that walk need not read them again.
    @inline(__always)
    private func deliverDownStriped<Payload: Sendable>(_ value: Payload, key: SlotKey, raising: Bool, chainsRead: inout ChainsRead, thread: UnsafeMutablePointer<ThreadState>) -> PostResult? {
        let scratch = DownScratch.take(from: thread)
        scratch.startPublishedWalk()
        let writes = thread.pointee.writes
        let stripe = thread.pointee.stripe
        Self.lockShared(stripe: stripe, chainsRead: &chainsRead)
        let outcome = collectDownStriped(key, raising: raising, scratch: scratch)
        // Pinned under the stripe, where no writer retires anything: the pin keeps
        // every table collected.
        let parity = outcome == .collected ? GraphLock.pin(thread.pointee.pins) : -1
        graphLock.unlockShared(stripe: stripe)
        chainsRead.dropCensus()
        guard outcome == .collected || outcome == .nothingToDeliver else {
            if outcome == .notPlain, let hint = DownHint(origin: self, key: key, raising: raising) { thread.pointee.downNotPlain = hint }
            DownScratch.giveBackPublished(consume scratch, to: thread)
            return nil
        }
        return deliverCollected(value, key: key, raising: raising, scratch: scratch, writes: writes, parity: parity, thread: thread)
    }

    /// `deliverDownStriped`'s walk, stripe held: `collectDownPublished`'s, with
    /// what only the stripe makes readable. A node's followers are visited after
    /// its children, as `Route.walkDown` visits them, and a node that is both
    /// mounted and a follower may be reached twice; a responder node without a mode
    /// of its own takes the walk's default. No writer runs, so no link sequence is
    /// checked and nothing is left to the epoch. Declines where that walk declines
    /// (the gate closed, a mode with a queue, and here a responder node with a mode
    /// of its own, group interceptors, a raise's way up that branches), and returns
    /// `.notPlain` as it does.
    private func collectDownStriped(_ key: SlotKey, raising: Bool, scratch: DownScratch) -> DownCollection {
        let gate = GraphLock.walkGate
        let groupsUsed = gate & GraphLock.gateGroups != 0
        let defaultCode = gate & ~(GraphLock.gateGroups | GraphLock.gateCaptures)
        guard defaultCode &- 1 < 0xFF else { return .declined }
        let origin = publishedMode
        if DominoNode.declinesStripedWalks(origin) { return .declined }
        let traceAll = origin & 1 != 0
        scratch.originTraced = traceAll
        let modeBits = Stage.stripedModeBits(defaultCode: defaultCode, traceAll: traceAll)
        var top = NodeLink(self)
        if raising {
            guard let root = Self.collectUpStriped(from: top, key.in(.raise), modeBits: modeBits, scratch: scratch) else { return .declined }
            top = root
        }

        // Depth-first pre-order, children in mount order, then followers; as
        // `collectDownPublished`, a node's only link below is visited next and a list
        // of several read in place through a cursor. A node with children and
        // followers leaves its followers' cursor to be read once its children's
        // subtrees are done.
        var stages = scratch.downStages
        var cursors = scratch.cursors
        defer {
            scratch.downStages = stages
            scratch.cursors = cursors
            if !scratch.visited.isEmpty { scratch.visited.removeAll(keepingCapacity: true) }
        }
        var link = top
        var visited = 0
        var cursor = ChildCursor.empty
        walk: while true {
            let found = Self.readStriped(link, key)
            guard let found else { return .declined }
            if groupsUsed {
                if Self.hasGroupInterceptors(link) { return .declined }
            }
            if found.tableWord & Slot.rarerTag != 0 { return .notPlain }
            var firstVisit = true
            if found.reachableTwice {
                firstVisit = scratch.visited.insert(link).inserted
            }
            if firstVisit {
                visited &+= 1
                if let table = UnsafeRawPointer(bitPattern: found.tableWord) {
                    stages.append(Stage(striped: Unmanaged.fromOpaque(table), modeBits: modeBits, modeWord: found.mode, position: visited))
                }
                var below = found.children
                if !found.followers.isEmpty {
                    if below.isEmpty {
                        below = found.followers
                    } else {
                        if cursor.hasMore { cursors.append(cursor) }
                        cursor = found.followers.cursor
                    }
                }
                if let only = below.only {
                    link = only
                    continue
                }
                if let list = below.publishedCursor {
                    if cursor.hasMore { cursors.append(cursor) }
                    cursor = list
                }
            }
            guard let next = Self.nextLink(&cursor, above: &cursors, advance: { $0.advanceAny() }) else { break walk }
            link = next
        }
        scratch.downVisited = visited
        guard scratch.upStages.count > 0 || stages.count > 0 else { return .nothingToDeliver }
        return .collected
    }

    /// The next link of a walk down (`collectDownPublished`, `collectDownStriped`):
    /// the current list's, else the innermost kept list's, read with `advance`; nil
    /// when every list is done.
    @inline(__always)
    private static func nextLink(
        _ cursor: inout ChildCursor, above cursors: inout ScratchList<ChildCursor>, advance: (inout ChildCursor) -> NodeLink?
    ) -> NodeLink? {
        while true {
            while cursor.hasMore {
                if let next = advance(&cursor) { return next }
            }
            guard let above = cursors.popLast() else { return nil }
            cursor = above
        }
    }

    /// The way up of a raise collected under the stripe (`collectDownStriped`), into
    /// `scratch`'s stages of the way up: the one way there is, each node's parent or
    /// its responder chain's next node. The root, where the way down starts; nil
    /// when the walk declines (a node with two ways up, a mode with a queue). Out of
    /// line: in its caller, the optimizer no longer inlined the closure that reads
    /// each node of the way down (measured: about 25 instructions a node).
    @inline(never)
    private static func collectUpStriped(from start: NodeLink, _ raiseKey: SlotKey, modeBits: UInt64, scratch: DownScratch) -> NodeLink? {
        var top = start
        var visited = 0
        var stages = scratch.upStages
        defer { scratch.upStages = stages }
        while true {
            let found = top.withNode { node -> (up: NodeLink?, table: Unmanaged<HandlerTable>?, mode: UInt32)? in
                let mode = node.publishedMode
                if DominoNode.declinesStripedWalks(mode) { return nil }
                let parents = node.parentLinks.shape
                if parents.isMultiple { return nil }
                var up = parents.only
                if let successor = node.responderLink?.successor {
                    if up != nil { return nil }
                    up = successor
                }
                return (up, node.publishedTable(for: raiseKey), mode)
            }
            guard let found else { return nil }
            visited &+= 1
            if let table = found.table {
                stages.append(Stage(striped: table, modeBits: modeBits, modeWord: found.mode, position: visited))
            }
            guard let up = found.up else { break }
            top = up
        }
        scratch.upVisited = visited
        return top
    }

    /// True when the node of `link` has group interceptors, for a walk that declines
    /// at such a node. Lock held. Out of line, as `collectUpStriped`.
    @inline(never)
    private static func hasGroupInterceptors(_ link: NodeLink) -> Bool {
        link.slots.publishedTable(for: .group) != nil
    }

    /// What `collectDownStriped` reads at the node of `link`: its children, its
    /// followers, its table word of `key`, its mode word, and whether it may be
    /// reached twice (it has several parents, or a parent and a successor); nil
    /// when the walk declines. Only the responder link is read through the node;
    /// the node's words from the link's address: the optimizer did not inline a
    /// closure that read them all (measured: about 25 instructions a node).
    @inline(__always)
    private static func readStriped(
        _ link: NodeLink, _ key: SlotKey
    ) -> (children: NodeList.Shape, followers: NodeList.Shape, tableWord: UInt, mode: UInt32, reachableTwice: Bool)? {
        let mode = link.publishedMode
        if DominoNode.declinesStripedWalks(mode) { return nil }
        let parents = link.parentLinks.shape
        var reachableTwice = parents.isMultiple
        var followers = NodeList.Shape.empty
        if DominoNode.isResponderCode(mode) {
            let responder = link.withNode { node -> (followers: NodeList.Shape, followsChain: Bool) in
                guard let responderLink = node.responderLink else { return (.empty, false) }
                return (responderLink.followers.shape, responderLink.successor != nil)
            }
            followers = responder.followers
            // Mounted and a follower: reached from its parent and its successor.
            if responder.followsChain {
                if parents.only != nil { reachableTwice = true }
            }
        }
        return (link.childLinks.shape, followers, link.slots.publishedTableWord(for: key), mode, reachableTwice)
    }

    /// Runs the subscribers of each of `stages`, in order with `value`, until one
    /// stops: the stage where it stopped, and how. A function of its own, so that
    /// `notify` is inlined in its loop (in `deliverDown`'s it was called, about 40
    /// instructions a node). Given the stages in their memory rather than their
    /// plan: a plan passed borrowed was copied for the call (about 30 instructions a
    /// walk down). A handler's own walks use scratch of their own, so the memory does
    /// not change under the loop. The counts kept in locals and added at the end, and
    /// the event's name made from `key` where a traced stage needs it rather than by
    /// a closure (measured: 4 instructions a node of a broadcast; given a first stage
    /// and the others apart, as a plan keeps them, 5 a node more).
    @inline(never)
    private static func notifyEach<Payload: Sendable>(
        _ value: Payload, key: SlotKey, stages: UnsafeBufferPointer<Stage>, writes: Int,
        thread: UnsafeMutablePointer<ThreadState>, deliveries: inout Int, scheduled: inout Int, orphans: inout Orphans
    ) -> (Stage, Propagation.Stop)? {
        var delivered = 0
        var scheduledElsewhere = 0
        defer {
            deliveries &+= delivered
            scheduled &+= scheduledElsewhere
        }
        for stage in stages {
            let propagation = notify(
                value, at: stage, writes: writes, thread: thread, eventName: traceName(of: value, key: key),
                deliveries: &delivered, scheduled: &scheduledElsewhere, orphans: &orphans
            )
            if let stop = propagation.requestedStop { return (stage, stop) }
        }
        return nil
    }

    /// `notifyEach` over a plan's stages (a walk under the stripe): the first, which
    /// the plan keeps inline, then the others in their memory.
    private static func notifyEach<Payload: Sendable>(
        _ value: Payload, key: SlotKey, planned stages: StageList, writes: Int,
        thread: UnsafeMutablePointer<ThreadState>, deliveries: inout Int, scheduled: inout Int, orphans: inout Orphans
    ) -> (Stage, Propagation.Stop)? {
        var first = stages[0]
        let stoppedFirst = withUnsafePointer(to: &first) {
            notifyEach(
                value, key: key, stages: UnsafeBufferPointer(start: $0, count: 1), writes: writes, thread: thread,
                deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans
            )
        }
        if let stoppedFirst { return stoppedFirst }
        return notifyEach(
            value, key: key, stages: stages.laterStages, writes: writes, thread: thread,
            deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans
        )
    }

    private func deliverToDeepest<Payload: Sendable>(_ value: Payload, key: SlotKey) -> PostResult {
        let thread = ThreadState.current
        guard enterNesting(thread, what: "Delivering \(key.displayName(for: Payload.self)) to the deepest subscriber") else {
            return PostResult(deliveries: 0, nodesVisited: 0, stopReason: .nestingLimit, stoppedAt: description)
        }
        defer { thread.pointee.nesting -= 1 }
        var chainsRead = Self.refreshEveryResponderChain()

        var plan = Plan()
        Self.lockShared(stripe: thread.pointee.stripe, chainsRead: &chainsRead)
        let traceAll = Tracing.tracesAllNodes || tracingFlag
        plan.originTraced = traceAll
        var visited = Set<NodeLink>()
        Route.walkDown(from: [NodeLink(self)], visited: &visited) { node, depth in
            plan.nodesVisited += 1
            if let table = node.slots.table(for: key), !table._withUnsafeGuaranteedRef({ $0.subscribers.isEmpty }) {
                plan.addStage(table, at: node, traceAll: traceAll)
                plan.extra().depths.append(depth)
            }
        }
        plan.pinIfBorrowing(thread.pointee.pins)
        graphLock.unlockShared(stripe: thread.pointee.stripe)
        chainsRead.dropCensus()

        var eventName: String { key.displayName(for: Payload.self) }
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .posted, event: eventName, node: description))
        }
        // Deepest first; among equals, the later in pre-order (the later-mounted branch).
        let depths = plan.extras?.depths.elements ?? []
        let order = (0..<plan.stages.count).sorted { lhs, rhs in
            depths[lhs] != depths[rhs] ? depths[lhs] > depths[rhs] : lhs > rhs
        }
        var orphans = Orphans()
        defer { orphans.purge() }
        for index in order {
            let stage = plan.stages[index]
            for handler in stage.table.subscribers.reversed() {
                let receiver = unsafeDowncast(handler, to: Receiver<Payload>.self)
                if receiver.isOrphaned {
                    orphans.append(receiver)
                    continue
                }
                let mode = receiver.delivery ?? stage.delivery
                var scheduled = 1
                if receiver.runsOnPostingThread || mode.isCurrent(thread) {
                    var propagation = Propagation()
                    guard receiver.receive(value, &propagation) else {
                        orphans.append(receiver)
                        continue
                    }
                    if !receiver.hopsToActor { scheduled = 0 }
                    if stage.traced { Tracing.emit(TraceRecord(kind: scheduled == 0 ? .delivered : .scheduled, event: eventName, node: stage.nodeName)) }
                } else {
                    Self.schedule(value, to: receiver, mode: mode, stage: stage)
                    if stage.traced { Tracing.emit(TraceRecord(kind: .scheduled, event: eventName, node: stage.nodeName)) }
                }
                return PostResult(deliveries: 1, scheduled: scheduled, nodesVisited: plan.nodesVisited, stopReason: nil, stoppedAt: nil)
            }
        }
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .unhandled, event: eventName, node: description))
        }
        return PostResult(deliveries: 0, nodesVisited: plan.nodesVisited, stopReason: nil, stoppedAt: nil)
    }
}

/// A walk down that a thread's last walk of its kind found not plain (see
/// `DominoNode.deliverDown`): its starting node, its type key and whether it raised.
/// Only compared, never followed: a node gone and another at its address only sends
/// one walk under its stripe, which then finds it plain and forgets the hint.
struct DownHint {
    private var origin: UnsafeMutableRawPointer?
    private var bits: UInt = 0

    /// No walk.
    init() {}

    /// A walk from `origin` for `key`; nil for a named key (its name is not kept),
    /// so that a named walk leaves the thread's hint for a type as it was.
    init?(origin: borrowing DominoNode, key: SlotKey, raising: Bool) {
        let typeBits = key.typeIdentityBits
        guard typeBits >= 8 else { return nil }
        self.origin = NodeLink(origin).pointer
        bits = Self.bits(typeBits, raising: raising)
    }

    /// A type's bits are 8-aligned with the phase in the low two: the third is free.
    @inline(__always)
    private static func bits(_ typeBits: UInt, raising: Bool) -> UInt { typeBits | (raising ? 4 : 0) }

    /// True when this is the walk from `origin` for `key` (the node compared first:
    /// most walks stop there).
    @inline(__always)
    func matches(_ origin: borrowing DominoNode, _ key: SlotKey, raising: Bool) -> Bool {
        guard let pointer = self.origin, pointer == NodeLink(origin).pointer else { return false }
        return bits == Self.bits(key.typeIdentityBits, raising: raising)
    }
}

/// The space a walk down needs, kept by each thread between walks so that raises and
/// broadcasts allocate nothing once a thread has seen trees of their size: the lists
/// are emptied, their capacity kept.
///
/// A walk takes it from its thread and gives it back at its end; a walk down nested
/// in a handler of another finds none and makes its own. A thread keeps at most
/// `keptCapacity` entries per list, so one huge broadcast does not hold its memory.
final class DownScratch {
    @exclusivity(unchecked) var visited = Set<NodeLink>()
    @exclusivity(unchecked) var stack = ScratchList<Route.DownStep>()
    @exclusivity(unchecked) var openEnds = ScratchList<(depth: Int, entry: Int)>()
    @exclusivity(unchecked) var roots = ScratchList<NodeLink>()
    /// A walk without the stripe's places in the lists of children above the node
    /// it visits (`ChildCursor`), the innermost not included.
    @exclusivity(unchecked) var cursors = ScratchList<ChildCursor>()
    /// `marks(count:)`'s storage: raw, so that the walk writes it without the
    /// uniqueness check of an array (measured: 17 instructions a node).
    private var marksStorage: UnsafeMutablePointer<StageMarks>?
    private var marksCapacity = 0
    /// The stages of the way up (a raise's) and of the way down: lent to a walk
    /// along plans, used in place by a walk without the stripe.
    @exclusivity(unchecked) var upStages = ScratchList<Stage>()
    @exclusivity(unchecked) var downStages = ScratchList<Stage>()
    /// For a walk without the stripe: the nodes on the way up and on the way down,
    /// and whether its starting node is traced, or every node is.
    @exclusivity(unchecked) var upVisited = 0
    @exclusivity(unchecked) var downVisited = 0
    @exclusivity(unchecked) var originTraced = false
    let extras = Plan.Extras()

    /// What a walk down knows of each stage it delivers at, by stage index.
    struct StageMarks {
        /// The stage whose reformed value this one receives, or -1 for the value as
        /// sent.
        var source = -1
        /// True when an interceptor above kept the event out of this stage's subtree.
        var excluded = false
        /// True when an interceptor here keeps the event out of this stage's subtree.
        var intercepted = false
    }

    /// Empties the stage lists and the counts for a walk without the stripe, or for
    /// its collection starting again (its cursors may hold what a declined
    /// collection left).
    @inline(__always)
    func startPublishedWalk() {
        upStages.removeAll()
        downStages.removeAll()
        cursors.removeAll()
        upVisited = 0
        downVisited = 0
    }

    /// `count` fresh marks, valid until the next call or until the scratch goes.
    func marks(count: Int) -> UnsafeMutablePointer<StageMarks> {
        if count > marksCapacity || marksStorage == nil {
            marksStorage?.deallocate()
            marksCapacity = Swift.max(count, 2 * marksCapacity, 16)
            marksStorage = .allocate(capacity: marksCapacity)
        }
        let marks = marksStorage.unsafelyUnwrapped
        marks.initialize(repeating: StageMarks(), count: count)
        return marks
    }

    deinit {
        marksStorage?.deallocate()
        stack.deallocate()
        openEnds.deallocate()
        roots.deallocate()
        cursors.deallocate()
        upStages.deallocate()
        downStages.deallocate()
    }

    /// The most entries a list keeps between walks (a broadcast to 4,096 nodes).
    static let keptCapacity = 4_096

    /// The thread's scratch, or a new one while the thread's is in use.
    @inline(__always)
    static func take(from thread: UnsafeMutablePointer<ThreadState>) -> DownScratch {
        guard let scratch = thread.pointee.downScratch else { return DownScratch() }
        thread.pointee.downScratch = nil
        return scratch
    }

    func takeUpStages() -> ScratchList<Stage> { take(&upStages) }
    func takeDownStages() -> ScratchList<Stage> { take(&downStages) }

    private func take(_ list: inout ScratchList<Stage>) -> ScratchList<Stage> {
        var taken = ScratchList<Stage>()
        swap(&taken, &list)
        return taken
    }

    /// Empties everything for the next walk and leaves it with `thread`, unless the
    /// thread already has one (this was a nested walk's) or it grew too large: for
    /// a walk under the stripe, along plans. Consumes the walk's reference, which the
    /// thread keeps (measured: a retain and a release fewer a walk than a method
    /// that retained `self` for the thread).
    static func giveBack(_ scratch: consuming DownScratch, upStages: ScratchList<Stage>, downStages: ScratchList<Stage>, to thread: UnsafeMutablePointer<ThreadState>) {
        guard scratch.keep(upStages: upStages, downStages: downStages, nested: thread.pointee.downScratch != nil) else { return }
        // The field is nil (`keep` declines when it is not): initialized, not
        // assigned, which released the nil it held (measured: a raise 2,878 to
        // 2,865 instructions, a release fewer).
        ThreadState.downScratchField(thread).initialize(to: scratch)
    }

    /// Leaves the scratch with `thread` after a walk without the stripe, as
    /// `giveBack(_:upStages:downStages:to:)` does after one along plans. That walk
    /// uses the stage lists, the cursors and `visited` (which it
    /// empties itself) in place.
    @inline(__always)
    static func giveBackPublished(_ scratch: consuming DownScratch, to thread: UnsafeMutablePointer<ThreadState>) {
        guard scratch.keepPublished(nested: thread.pointee.downScratch != nil) else { return }
        ThreadState.downScratchField(thread).initialize(to: scratch)
    }

    /// `keep` for a walk without the stripe: false when the thread should not keep
    /// the scratch (as `keep`'s `nested`, or grown too large). The stage lists are
    /// emptied when the next walk takes them. Inlined, unlike `keep`: here that
    /// costs no retain (measured: a raise 2,475 to 2,457 instructions).
    @inline(__always)
    private func keepPublished(nested: Bool) -> Bool {
        // Empty between walks, as `keep` leaves it.
        cursors.removeAll()
        if nested { return false }
        return Swift.max(visited.capacity, cursors.capacity, upStages.capacity, downStages.capacity) <= Self.keptCapacity
    }

    /// Takes back the stage lists and empties everything for the next walk; false
    /// when the thread should not keep it (`nested`: it has one already, this was a
    /// nested walk's; or it grew too large).
    /// Not inlined: inlined into `giveBack`, it made the optimizer retain and release
    /// the consumed scratch again (measured: a raise 2,903 to 2,969, a retain and a
    /// release more).
    @inline(never)
    private func keep(upStages: ScratchList<Stage>, downStages: ScratchList<Stage>, nested: Bool) -> Bool {
        // Kept first, whatever happens next: the scratch frees them when it goes.
        self.upStages = upStages
        self.downStages = downStages
        if nested { return false }
        let largest = Swift.max(
            visited.capacity, stack.capacity, openEnds.capacity, roots.capacity, cursors.capacity, marksCapacity,
            upStages.capacity, downStages.capacity, extras.largestCapacity
        )
        guard largest <= Self.keptCapacity else { return false }
        // Arrays and sets only when in use: emptying an empty one still costs a
        // uniqueness check and a call of `replaceSubrange`. (ScratchLists empty by
        // setting their count.)
        if !visited.isEmpty { visited.removeAll(keepingCapacity: true) }
        stack.removeAll()
        openEnds.removeAll()
        roots.removeAll()
        extras.clear()
        return true
    }
}
