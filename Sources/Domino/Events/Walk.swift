/// The engine behind `post` and `request`: collect, then run with no lock held.
///
/// A walk collects the handler tables of the route's nodes that have handlers for
/// the slot, then runs them in route order. It collects without a lock where it can
/// (`collectPublished`: routes without responder nodes, while `GraphLock.walkGate`
/// is open; see Maintainers/ReadsWithoutALock.md), else under its thread's stripe of
/// the graph lock, once whatever the depth. So handlers never run under a lock, and
/// a handler may change the graph freely (its changes apply to posts that start
/// afterwards).

/// What a walk collected at one node.
///
/// The handler table is borrowed, not retained: the walk's `Plan` pins it (in its
/// thread's pin record of the graph lock), and a table replaced meanwhile is
/// retired rather than released until the walk unpins (see `GraphLock`). So two
/// threads walking the same route write to no shared cache line at all
/// (measured: the contended
/// scenario spent three quarters of its time in swift_retain and swift_release
/// when every copy of a stage retained the table, its arrays and each handler, and
/// still over half when each walk retained each table once).
///
/// Plain data, so that making, copying and dropping stages costs no reference
/// counting and no value-witness calls (measured: about a tenth of a local post's
/// instructions went to destroying stages that held a `DeliveryMode`).
struct Stage {
    private(set) var handlers: Unmanaged<HandlerTable>
    /// The box of a mode with a queue (the plan keeps it alive), else nil.
    private let box: Unmanaged<DeliveryBox>?
    /// The mode's code, a flag and the node's place, packed so that a stage is no
    /// bigger than two flags made it (measured: a separate place field cost a post
    /// 10 to 30 instructions): bits 0 and 1 the mode's code (`DeliveryMode.Code`'s
    /// 1 to 3, or 0 for a boxed mode), bit 2 `traced`, the rest `position`. A code
    /// rather than an enum with a payload: a walk without a lock makes a stage from
    /// a node's published word with shifts alone (measured: a `switch` on the code,
    /// 7 instructions a node of a broadcast).
    let bits: UInt32

    enum Mode {
        case mainThread
        case background
        case postingThread
        case boxed(Unmanaged<DeliveryBox>)

        /// The mode of a published code from 1 to 3 (`DeliveryMode.Code.published`).
        @inline(__always)
        init(code: UInt) {
            switch code {
            case UInt(DeliveryMode.Code.mainThread.rawValue): self = .mainThread
            case UInt(DeliveryMode.Code.background.rawValue): self = .background
            default: self = .postingThread
            }
        }
    }

    init(handlers: Unmanaged<HandlerTable>, mode: Mode, traced: Bool, position: Int) {
        let code: DeliveryMode.Code
        var box: Unmanaged<DeliveryBox>?
        switch mode {
        case .mainThread: code = .mainThread
        case .background: code = .background
        case .postingThread: code = .postingThread
        case .boxed(let boxed): code = .inherits; box = boxed
        }
        self.init(handlers: handlers, box: box, code: code.rawValue, traced: traced, position: position)
    }

    /// The stage of `handlers` with the `bits` of another stage (`LeanFound`).
    @inline(__always)
    init(handlers: Unmanaged<HandlerTable>, bits: UInt32) {
        self.handlers = handlers
        self.box = nil
        self.bits = bits
    }

    /// The stage of a mode without a queue, from its code (1 to 3).
    @inline(__always)
    init(handlers: Unmanaged<HandlerTable>, code: UInt32, traced: Bool, position: Int) {
        self.init(handlers: handlers, box: nil, code: code, traced: traced, position: position)
    }

    @inline(__always)
    private init(handlers: Unmanaged<HandlerTable>, box: Unmanaged<DeliveryBox>?, code: UInt32, traced: Bool, position: Int) {
        self.handlers = handlers
        self.box = box
        // A walk of half a billion nodes cannot fit in memory.
        self.bits = code | (traced ? 4 : 0) | UInt32(truncatingIfNeeded: position) << 3
    }

    /// The stage of `table` at a node whose published mode word (`DominoNode.
    /// publishedMode`) is `modeWord`, found by a walk without a lock: a node without
    /// a mode of its own takes `defaultCode`, the default mode's code that the walk
    /// gate names (both from 1 to 3: the walk declined any other).
    @inline(__always)
    init(published table: Unmanaged<HandlerTable>, modeWord: UInt32, defaultCode: UInt, traceAll: Bool, position: Int) {
        let code = modeWord >> 1
        self.init(
            handlers: table, box: nil, code: code == 0 ? UInt32(truncatingIfNeeded: defaultCode) : code,
            traced: traceAll || modeWord & 1 != 0, position: position
        )
    }

    /// The low bits of the stages of a walk without a lock (`bits` but the place)
    /// for each published mode word it can meet, four bits a word: words 0 to 7,
    /// since `DominoNode.declinesWalksWithoutALock` declines the others. For
    /// `init(published:modeBits:modeWord:position:)`, which makes a stage's bits
    /// with a shift and a mask where `init(published:modeWord:defaultCode:traceAll:
    /// position:)` tests and selects (measured: 5 instructions a node of a
    /// broadcast, a raise at depth 10 2,506 to 2,457). A node without a mode of its
    /// own takes `defaultCode` (1 to 3, as the walk gate names it); `traceAll`
    /// traces every stage.
    @inline(__always)
    static func publishedModeBits(defaultCode: UInt, traceAll: Bool) -> UInt32 {
        let code = UInt32(truncatingIfNeeded: defaultCode)
        // Words 2 to 7: the codes 1 to 3, each untraced then traced (bit 2). Words 0
        // and 1: the default's code, untraced then traced.
        let bits: UInt32 = 0x7362_5100 | code | (code | 4) << 4
        return traceAll ? bits | 0x4444_4444 : bits
    }

    /// The stage of `table` at a node whose published mode word is `modeWord` (0 to
    /// 7), in a walk without a lock whose `publishedModeBits` are `modeBits`.
    @inline(__always)
    init(published table: Unmanaged<HandlerTable>, modeBits: UInt32, modeWord: UInt32, position: Int) {
        handlers = table
        box = nil
        // A walk of half a billion nodes cannot fit in memory.
        bits = (modeBits &>> (modeWord &<< 2)) & 7 | UInt32(truncatingIfNeeded: position) &<< 3
    }

    /// `publishedModeBits` for a walk down under a stripe (`DominoNode.
    /// collectDownStriped`), which also meets the words of responder nodes (8 to 15,
    /// `DominoNode.declinesWalksWithoutALockInheriting`): a responder node's code
    /// is 4 more than a plain node's of the same mode, so words 8 to 15 repeat
    /// words 0 to 7.
    @inline(__always)
    static func stripedModeBits(defaultCode: UInt, traceAll: Bool) -> UInt64 {
        let bits = UInt64(publishedModeBits(defaultCode: defaultCode, traceAll: traceAll))
        return bits | bits << (UInt64.bitWidth / 2)
    }

    /// The stage of `table` at a node whose published mode word is `modeWord` (0 to
    /// 15), in a walk under a stripe whose `stripedModeBits` are `modeBits`.
    @inline(__always)
    init(striped table: Unmanaged<HandlerTable>, modeBits: UInt64, modeWord: UInt32, position: Int) {
        handlers = table
        box = nil
        bits = UInt32(truncatingIfNeeded: (modeBits &>> UInt64(modeWord &<< 2)) & 7) | UInt32(truncatingIfNeeded: position) &<< 3
    }

    /// The same stage, running `table` instead (a walk's detached copy).
    func running(_ table: Unmanaged<HandlerTable>) -> Stage {
        var stage = self
        stage.handlers = table
        return stage
    }

    /// True when the node's mode is `.postingThread`.
    var deliveryIsPostingThread: Bool { bits & 3 == DeliveryMode.Code.postingThread.rawValue }

    /// True when the walk reports what happens here: the node is traced, or the
    /// walk's starting node is (or every node is).
    var traced: Bool { bits & 4 != 0 }

    /// The node's place in the walk, counting from 1: on the route for walks up, in
    /// pre-order for walks down. What `PostResult.nodesVisited` reports when the walk
    /// stops here.
    var position: Int { Int(bits >> 3) }

    /// The node's mode, else the global default.
    var delivery: DeliveryMode {
        switch bits & 3 {
        case DeliveryMode.Code.mainThread.rawValue: return .mainThread
        case DeliveryMode.Code.background.rawValue: return .background
        case DeliveryMode.Code.postingThread.rawValue: return .postingThread
        default: return box.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.mode }
        }
    }

    /// The table, retained: for the walks that are not worth the care.
    var table: HandlerTable { handlers.takeUnretainedValue() }

    /// Runs `body` with the table lent, not retained.
    @inline(__always)
    func withTable<R>(_ body: (HandlerTable) throws -> R) rethrows -> R {
        try handlers._withUnsafeGuaranteedRef(body)
    }

    var nodeName: String { withTable { $0.nodeName } }
    var label: String? { withTable { $0.label } }
    var nodeID: ObjectIdentifier { withTable { $0.nodeID } }
}

/// A delivery mode with a queue, for a stage to point at.
final class DeliveryBox {
    let mode: DeliveryMode
    init(_ mode: DeliveryMode) { self.mode = mode }
}

/// Stages in route order; the first is kept inline so that the common one-stage
/// post allocates nothing.
///
/// The others are in a `ScratchList` (appends without a uniqueness check, and no
/// array to release at the end of every post: measured, ~15 instructions a post).
/// So a copy shares the memory: the plan that owns a list frees it
/// (`deallocate()`), or hands it on (`takeStorage()`).
struct StageList {
    private var first: Stage?
    private var rest = ScratchList<Stage>()
    private(set) var count = 0

    @inline(__always)
    mutating func append(_ stage: Stage) {
        if count == 0 {
            first = stage
        } else if rest.count < rest.capacity {
            rest.appendWithinCapacity(stage)
        } else {
            appendMakingRoom(stage)
        }
        count &+= 1
    }

    /// Appends `stage` to `rest`, which is full: the first time, into one of this
    /// thread's spare lists (see `ThreadState.spareStages`), else into grown memory.
    @inline(never)
    private mutating func appendMakingRoom(_ stage: Stage) {
        if rest.capacity == 0 { rest = ThreadState.takeSpareStages() }
        rest.append(stage)
    }

    @inline(__always)
    subscript(index: Int) -> Stage {
        get { index == 0 ? first.unsafelyUnwrapped : rest[index - 1] }
        set { if index == 0 { first = newValue } else { rest[index - 1] = newValue } }
    }

    init() {}

    /// The stages after the first, in place: valid while the list does not change.
    var laterStages: UnsafeBufferPointer<Stage> {
        @inline(__always) get { rest.buffer }
    }

    /// An empty list that appends into `storage` (emptied, its memory kept).
    init(reusing storage: ScratchList<Stage>) {
        rest = storage
        rest.removeAll()
    }

    /// Takes the list's storage, for a later list to reuse; the list is left empty.
    mutating func takeStorage() -> ScratchList<Stage> {
        first = nil
        count = 0
        let storage = rest
        rest = ScratchList()
        return storage
    }

    /// Gives the list's memory back to this thread's spares (or frees it). The list
    /// must not be used afterwards.
    func deallocate() {
        if rest.capacity > 0 { ThreadState.keepSpareStages(rest) }
    }
}

/// Everything a walk read under the lock.
///
/// Noncopyable, because it owns the walk's pin (or, for async walks, a retain of
/// each stage's table), given back in `deinit`.
struct Plan: ~Copyable {
    var stages = StageList()
    /// What only some walks need, allocated by those (one word for the others, whose
    /// every plan is built and destroyed per post).
    var extras: Extras? {
        @inline(__always) get { extrasReference?.takeUnretainedValue() }
        set {
            if let newValue { _ = Unmanaged.passRetained(newValue) }
            extrasReference?.release()
            extrasReference = newValue.map { Unmanaged.passUnretained($0) }
        }
    }
    /// `extras`, retained by hand: the implicit destruction of an `Extras?` field
    /// went through a merged outlined copy that looked up `Optional`'s metadata
    /// and called its value witness (measured: 59 instructions every post).
    private var extrasReference: Unmanaged<Extras>?

    /// Owned by one plan, on one thread: the runtime's exclusivity checks on its
    /// properties would only cost a broadcast a check per node (measured: a quarter
    /// of its instructions).
    final class Extras {
        /// The group interceptors of the stages, by stage index (shorter than
        /// `stages` when the last stages have none).
        @exclusivity(unchecked) var groups: ContiguousArray<HandlerTable?> = []
        /// The capture-phase stages of a post, in route order (run in reverse).
        @exclusivity(unchecked) var captures: ContiguousArray<Stage> = []
        /// For `deliverToDeepestSubscriber`: each stage's depth below its start.
        @exclusivity(unchecked) var depths = ScratchList<Int>()
        /// For walks down: each stage's nearest ancestor stage in the walk's tree, or
        /// -1 (what it inherits reformed values and interceptions from).
        @exclusivity(unchecked) var ancestors = ScratchList<Int>()
        /// For walks down: for each stage that may intercept, in stage order, the
        /// place (`Stage.position`) of the last node of its subtree in the walk, which
        /// an interceptor there keeps the event out of. (Only those stages: tracking
        /// every stage cost a broadcast 55 instructions per node.)
        @exclusivity(unchecked) var subtreeEnds = ScratchList<(stage: Int, end: Int)>()

        /// The place of the last node of the subtree of `stage`, or nil for a stage
        /// that cannot intercept. A binary search: `subtreeEnds` is in stage order.
        func subtreeEnd(of stage: Int) -> Int? {
            var low = 0, high = subtreeEnds.count
            while low < high {
                let middle = (low + high) / 2
                if subtreeEnds[middle].stage < stage { low = middle + 1 } else { high = middle }
            }
            return low < subtreeEnds.count && subtreeEnds[low].stage == stage ? subtreeEnds[low].end : nil
        }
        /// Objects made for this walk only, which its stages point at: tables of
        /// stages with only group interceptors, boxed delivery modes.
        @exclusivity(unchecked) var owned: ContiguousArray<AnyObject> = []

        /// Empties every list for the next walk that reuses these extras, keeping
        /// their capacity; releases what the walk owned.
        func clear() {
            // Only the lists in use (see `DownScratch.giveBack`).
            if !groups.isEmpty { groups.removeAll(keepingCapacity: true) }
            if !captures.isEmpty { captures.removeAll(keepingCapacity: true) }
            depths.removeAll()
            ancestors.removeAll()
            subtreeEnds.removeAll()
            if !owned.isEmpty { owned.removeAll(keepingCapacity: true) }
        }

        deinit {
            depths.deallocate()
            ancestors.deallocate()
            subtreeEnds.deallocate()
        }

        /// The most entries any list holds (for the cap on what a thread keeps).
        var largestCapacity: Int {
            Swift.max(groups.capacity, captures.capacity, depths.capacity, ancestors.capacity, subtreeEnds.capacity, owned.capacity)
        }
    }

    /// Lends `extras` to the plan without a retain (a walk down's, which its scratch
    /// keeps: a retain and a release every walk, measured: 49 instructions a raise).
    /// The lender keeps them alive while the plan runs and takes them back with
    /// `returnExtras()` before the plan ends; `extras` must not be set meanwhile.
    @inline(__always)
    mutating func borrowExtras(_ lent: Extras) {
        assert(extrasReference == nil, "a plan borrows extras before it has any")
        extrasReference = .passUnretained(lent)
    }

    /// Gives back the extras lent by `borrowExtras(_:)`, without a release.
    @inline(__always)
    mutating func returnExtras() {
        extrasReference = nil
    }

    /// The extras, created on first use.
    mutating func extra() -> Extras {
        if let extras { return extras }
        let created = Extras()
        extras = created
        return created
    }

    /// Records the group interceptors of stage `index`, at or after every stage
    /// whose groups were recorded before.
    mutating func setGroups(_ groups: HandlerTable, at index: Int) {
        let extras = extra()
        while extras.groups.count <= index { extras.groups.append(nil) }
        extras.groups[index] = groups
    }

    /// Records the group interceptors of the stage just appended.
    mutating func addGroups(_ groups: HandlerTable) {
        let extras = extra()
        while extras.groups.count < stages.count - 1 { extras.groups.append(nil) }
        extras.groups.append(groups)
    }

    /// True when the stages have group interceptors to consult.
    var hasGroups: Bool { extras.map { !$0.groups.isEmpty } ?? false }

    /// True when stage `index` has interceptors, or the stages group interceptors:
    /// tested before a generic `requestIntercepted` call, whose payload's metadata
    /// a walk over a generic type (a protocol event) looks up at each call.
    func mayIntercept(at index: Int) -> Bool {
        stages[index].withTable { $0.hasInterceptors } || hasGroups
    }
    /// The nodes collected along: the whole route (or subtree), whether or not the
    /// walk gets that far.
    var nodesVisited = 0
    /// True when the walk's starting node is traced, or every node is: then every
    /// stage is traced too, and the walk reports its start and its end.
    var originTraced = false
    /// The thread's `writes` when the plan was collected.
    var writes = 0
    /// True when the route stopped at a responder chain never read on the main
    /// thread (see ``PostResult/routeCutShort``).
    var routeCutShort = false
    /// The pin record this plan's walk pinned in (its thread's), or nil, and the
    /// parity it pinned.
    private var pinned: UnsafeMutableRawPointer?
    private var pinnedParity = 0
    /// True once the plan retains its stages' tables itself (`holdTables()`).
    private var holdsTables = false
    /// The stage mode of nodes without a mode of their own, once a walk under the
    /// lock has looked it up.
    private var defaultMode: Stage.Mode?

    init() {}

    /// Pins in `record` (the thread's) if the plan borrowed any table. Call before
    /// unlocking the shared lock the plan was collected under.
    @inline(__always)
    mutating func pinIfBorrowing(_ record: UnsafeMutableRawPointer) {
        guard pinned == nil, stages.count > 0 || extras.map({ !$0.captures.isEmpty }) == true else { return }
        pinnedParity = GraphLock.pin(record)
        pinned = record
    }

    /// Gives each stage a copy of its table's handlers that the plan owns, and gives
    /// up the pin: for walks that may wait (async requests), which must not hold
    /// back other threads' reclamation. Copies rather than retains: a handler removed
    /// meanwhile is released once no pinned walk can borrow it, and this walk would
    /// no longer be pinned (see `HandlerList`).
    mutating func holdTables() {
        guard let record = pinned else { return }
        func detached(_ stage: Stage) -> Stage {
            stage.running(.passRetained(stage.withTable { $0.detachedCopy() }))
        }
        for index in 0..<stages.count { stages[index] = detached(stages[index]) }
        if let extras {
            extras.captures = ContiguousArray(extras.captures.map(detached))
            extras.groups = ContiguousArray(extras.groups.map { $0?.detachedCopy() })
        }
        holdsTables = true
        GraphLock.unpin(record, parity: pinnedParity)
        pinned = nil
    }

    /// Takes over the delivery pin of a walk collected without a lock
    /// (`GraphLock.pinForDelivery`), given back as a pin under the stripe is.
    @inline(__always)
    mutating func adoptPin(_ record: UnsafeMutableRawPointer, parity: Int) {
        pinned = record
        pinnedParity = parity
    }

    /// Makes a table for this walk only and keeps it alive as long as the plan.
    mutating func ownTable(for node: DominoNode) -> HandlerTable {
        let table = HandlerTable(of: node)
        extra().owned.append(table)
        return table
    }

    /// The stage of `table` at `node`, the walk's latest node (`nodesVisited`). Lock
    /// held.
    ///
    /// The table comes unmanaged: passed as a reference, it is loaded from a node's
    /// slots across a call that mutates the plan, so the compiler retains it (the
    /// contended scenario lost its scaling to that one retain).
    ///
    /// - Parameter traceAll: True when every stage is traced: the walk's starting
    ///   node is traced, or every node is (`originTraced`).
    @inline(__always)
    mutating func stage(_ table: Unmanaged<HandlerTable>, at node: DominoNode, traceAll: Bool) -> Stage {
        // The node's published word holds both its tracing flag and its mode's code
        // (one load instead of two fields and a `DeliveryMode` copied per node:
        // measured, 40 instructions a node of a broadcast).
        let word = node.publishedMode
        let code = word >> 1
        let traced = traceAll || word & 1 != 0
        if code &- 1 < 3 { return Stage(handlers: table, code: code, traced: traced, position: nodesVisited) }
        return Stage(handlers: table, mode: mode(code: code, at: node), traced: traced, position: nodesVisited)
    }

    /// Appends the stage of `table` at `node`. Lock held.
    @inline(__always)
    mutating func addStage(_ table: Unmanaged<HandlerTable>, at node: DominoNode, traceAll: Bool) {
        let stage = stage(table, at: node, traceAll: traceAll)
        stages.append(stage)
    }

    /// The delivery mode of `node`'s stages, from `code`, the mode code of its
    /// published word (`DominoNode.publishedMode`), for a node without a mode of its
    /// own or one that walks without a lock decline (`stage` makes the stages of the
    /// codes 1 to 3 itself). Lock held.
    @inline(__always)
    private mutating func mode(code: UInt32, at node: DominoNode) -> Stage.Mode {
        if code == 0 || code == DominoNode.declinesWalksWithoutALockInheriting, let defaultMode { return defaultMode }
        return modeSlowly(at: node)
    }

    /// Takes the default mode from the walk gate when it names one (see
    /// `GraphLock.walkGate`), so that the walk does not look it up in the settings
    /// (measured: 43 instructions a raise). Lock held.
    @inline(__always)
    mutating func takeDefaultMode(fromGate gate: UInt) {
        let code = gate & 0xFF
        if code != 0 { defaultMode = Stage.Mode(code: code) }
    }

    /// `mode(code:at:)` for a node with a mode with a queue, a responder node with a
    /// mode of its own, or the walk's first node without one (which looks the
    /// default up once for the walk). Lock held.
    @inline(never)
    private mutating func modeSlowly(at node: DominoNode) -> Stage.Mode {
        let mode: Stage.Mode
        switch node.deliveryOverride ?? GraphSettings.defaultDelivery {
        case .mainThread: mode = .mainThread
        case .background: mode = .background
        case .postingThread: mode = .postingThread
        case let other: mode = queueMode(other)
        }
        if node.deliveryOverride == nil { defaultMode = mode }
        return mode
    }

    /// The stage mode of a mode with a queue, or of the scoped default when `mode`
    /// is the marker that stands for it. Lock held.
    @inline(never)
    private mutating func queueMode(_ mode: DeliveryMode) -> Stage.Mode {
        let mode = mode.isScopedDefaultMarker ? DeliveryMode.scopedDefaultLocked() : mode
        switch mode {
        case .mainThread: return .mainThread
        case .background: return .background
        case .postingThread: return .postingThread
        case let mode:
            let box = DeliveryBox(mode)
            extra().owned.append(box)
            return .boxed(.passUnretained(box))
        }
    }

    deinit { giveBackEverything() }

    /// Ends the plan as `deinit` does, inlined into the caller: for the common
    /// post, which otherwise calls the deinit (measured: a post 493 to 490; posts
    /// up levels moved with the chain loop's layout, 718 to 735 at depth 10 in the
    /// build that landed, 686 in another).
    @inline(__always)
    consuming func end() {
        giveBackEverything()
        discard self
    }

    /// What ending a plan gives back: its pin, the tables it holds, its memory.
    @inline(__always)
    private func giveBackEverything() {
        if let pinned { GraphLock.unpin(pinned, parity: pinnedParity) }
        if holdsTables {
            for index in 0..<stages.count { stages[index].handlers.release() }
            extras?.captures.forEach { $0.handlers.release() }
        }
        stages.deallocate()
        extrasReference?.release()
    }
}

extension DominoNode {
    /// Collects the stages of `key` along the route from this node.
    @inline(__always)
    func collect(_ key: SlotKey, into plan: inout Plan, thread: UnsafeMutablePointer<ThreadState>) {
        plan.writes = thread.pointee.writes
        let pins = thread.pointee.pins
        let readParity = GraphLock.pinWithoutLock(pins)
        let collected = collectPublished(key, into: &plan, readParity: readParity, thread: thread)
        GraphLock.unpinWithoutLock(pins, parity: readParity)
        if collected { return }
        collectAgain(key, into: &plan, thread: thread)
    }

    /// `collect` when the walk without a lock declined: a function of its own, so
    /// that the posts it serves do not pay for its code (inlined, the route walk
    /// under the stripe changed the register use of every post: 25 instructions at
    /// depth 10, measured).
    @inline(never)
    func collectAgain(_ key: SlotKey, into plan: inout Plan, thread: UnsafeMutablePointer<ThreadState>) {
        let stripe = thread.pointee.stripe
        plan = Plan()
        plan.writes = thread.pointee.writes
        if GraphLock.walkGate > 0xFF, collectWithoutLockSlowly(key, into: &plan, thread: thread) { return }
        if GraphLock.respondersExist {
            switch collectAlongKnownChainsWithoutALock(key, into: &plan, thread: thread) {
            case .hold:
                return
            case .changed:
                collectResolvingResponders(key, into: &plan, thread: thread)
                return
            case .declined:
                plan = Plan()
                plan.writes = thread.pointee.writes
            }
        }
        graphLock.lockShared(stripe: stripe)
        if ResponderRegistry.exist {
            // Given the stripe it holds: its first collection runs under it.
            collectFollowingResponders(key, into: &plan, thread: thread)
            return
        }
        collectLocked(key, into: &plan)
        plan.pinIfBorrowing(thread.pointee.pins)
        graphLock.unlockShared(stripe: stripe)
    }

    /// `collect` without a lock (performance round 3; see
    /// Maintainers/ReadsWithoutALock.md): true when the route has no responder node
    /// and nothing that only walks under a stripe handle is in use
    /// (`GraphLock.walkGate`), and `plan` then holds the stages with a delivery pin;
    /// false when the walk must take its stripe instead (`plan` is then to be
    /// thrown away). The caller is pinned without a lock, in `readParity`.
    ///
    /// The route is read between two equal, even loads of `GraphLock.linkSequence`
    /// (checked every 16 levels of a chain too, so that links of different times
    /// cannot make a loop that never ends): it is the route of one moment. Tables
    /// are not read at all under the read pin, only their addresses: once the
    /// stages are collected, the walk takes its delivery pin in the read pin's
    /// parity and, when the epoch has not moved, uses them as they are
    /// (`GraphLock.pinForDelivery(_:keepingReadPinOf:)`); else it pins with a check
    /// and loads each stage's table word again, and a table still published then is
    /// safe for as long as the delivery pin holds, as for a walk pinned under its
    /// stripe.
    @inline(__always)
    func collectPublished(_ key: SlotKey, into plan: inout Plan, readParity: Int, thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        // The sequence before the gate: a writer that closes the gate (a mount
        // closing a cycle) stores it before it bumps the sequence, so a walk that
        // loads the bumped sequence sees the closed gate (else its chain loop, which
        // keeps no visited set, could go round the new cycle forever).
        let sequenceWord = GraphLock.linkSequenceAddress
        let sequence = AtomicWord.load(sequenceWord)
        let gate = GraphLock.walkGate
        // A gate from 1 to 0xFF: open, no groups or captures to look for (with
        // them, `collectWithoutLockSlowly` after this declines).
        guard gate &- 1 < 0xFF, sequence & 1 == 0 else { return false }
        let traceAll = publishedMode & 1 != 0
        plan.originTraced = traceAll
        return Self.collectPublished(
            from: NodeLink(self), key, into: &plan, visited: 0, firstNode: NodeLink(self), gate: gate, traceAll: traceAll,
            sequenceWord: sequenceWord, sequence: sequence, readParity: readParity, thread: thread
        )
    }

    /// The route walk of `collectPublished` from `start`, after `visited` nodes
    /// already collected into `plan` (the first stage's node, if any, in
    /// `firstNode`): inlined into `collectPublished` as it starts, and called out of
    /// line by a post that hands its walk over to a plan on the way
    /// (`collectPublishedResuming`). The caller holds its read pin in `readParity`
    /// and loaded `sequence` and `gate` (open, naming no groups or captures).
    @inline(__always)
    static func collectPublished(
        from start: NodeLink, _ key: SlotKey, into plan: inout Plan, visited: Int, firstNode: NodeLink, gate: UInt, traceAll: Bool,
        sequenceWord: UnsafeMutableRawPointer, sequence: UInt, readParity: Int, thread: UnsafeMutablePointer<ThreadState>
    ) -> Bool {
        var link = start
        var firstNode = firstNode
        // Counted here, not in the plan, which the loop would store at every level.
        var visited = visited
        var branches = false
        while true {
            guard let found = readPublished(link, key) else { return false }
            if found.parents.isMultiple {
                branches = true
                break
            }
            visited &+= 1
            if let table = found.table {
                addPublishedStage(table, mode: found.mode, at: link, position: visited, gate: gate, traceAll: traceAll, into: &plan, firstNode: &firstNode, thread: thread)
            }
            guard let next = found.parents.only else { break }
            // The sequence every 16 levels, and once after the loop, as in
            // `collectLean(_:thread:)`.
            if visited & 15 == 0, AtomicWord.load(sequenceWord) != sequence { return false }
            link = next
        }
        if AtomicWord.load(sequenceWord) != sequence { return false }
        if branches {
            // The rest of the route branches: walked with a visited set, from `link`.
            // (Called after the loop, with the counts by value: a call inside it,
            // `inout` counts even more so, cost the chain's levels 4 instructions
            // each.)
            guard let rest = collectPublishedBranching(
                from: link, key, into: &plan, visited: visited, firstNode: firstNode,
                gate: gate, traceAll: traceAll, sequenceWord: sequenceWord, sequence: sequence, thread: thread
            ) else { return false }
            (visited, firstNode) = rest
        }
        plan.nodesVisited = visited
        guard plan.stages.count > 0 else { return true }
        let pins = thread.pointee.pins
        if GraphLock.pinForDelivery(pins, keepingReadPinOf: readParity) {
            plan.adoptPin(pins, parity: readParity)
            return true
        }
        return checkPublishedStages(key, of: &plan, firstNode: firstNode, thread: thread)
    }

    /// `collectPublished(from:…)` out of line, for a post's or a request's walk
    /// that a plan takes over at `start` (see `collectLean`).
    @inline(never)
    static func collectPublishedResuming(
        from start: NodeLink, _ key: SlotKey, into plan: inout Plan, visited: Int, firstNode: NodeLink, gate: UInt,
        sequenceWord: UnsafeMutableRawPointer, sequence: UInt, readParity: Int, thread: UnsafeMutablePointer<ThreadState>
    ) -> Bool {
        collectPublished(
            from: start, key, into: &plan, visited: visited, firstNode: firstNode, gate: gate, traceAll: false,
            sequenceWord: sequenceWord, sequence: sequence, readParity: readParity, thread: thread
        )
    }

    /// The end of `collectPublished` when the epoch moved during the walk: takes the
    /// delivery pin with its own check, then loads each stage's table word again
    /// (see `GraphLock.pinForDelivery(_:)`). True when every table is still
    /// published.
    @inline(never)
    static func checkPublishedStages(_ key: SlotKey, of plan: inout Plan, firstNode: NodeLink, thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        plan.adoptPin(thread.pointee.pins, parity: GraphLock.pinForDelivery(thread.pointee.pins))
        for index in 0..<plan.stages.count {
            let node = index == 0 ? firstNode : thread.pointee.stageNodes[index - 1]
            let table = node.withNode { $0.publishedTable(for: key) }
            if table?.toOpaque() != plan.stages[index].handlers.toOpaque() { return false }
        }
        return true
    }

    /// What a walk without a lock reads at the node of `link`: its parents, and its
    /// table of `key`, and its mode word; nil when the walk must take its stripe
    /// instead (a responder node, whose chain is read under the stripe; a mode with
    /// a queue). Only trivial words of the node are read: it may be in its deinit.
    @inline(__always)
    static func readPublished(_ link: NodeLink, _ key: SlotKey) -> (parents: NodeList.Shape, table: Unmanaged<HandlerTable>?, mode: UInt32)? {
        link.withNode { node in
            let mode = node.publishedMode
            if DominoNode.declinesWalksWithoutALock(mode) { return nil }
            return (node.publishedParents, node.publishedTable(for: key), mode)
        }
    }

    /// Appends the stage of `table` at `link`, found by a walk without a lock, and
    /// keeps its node for the check under the delivery pin: the first in
    /// `firstNode`, the others in the thread's `stageNodes`.
    @inline(__always)
    static func addPublishedStage(
        _ table: Unmanaged<HandlerTable>, mode: UInt32, at link: NodeLink, position: Int, gate: UInt, traceAll: Bool,
        into plan: inout Plan, firstNode: inout NodeLink, thread: UnsafeMutablePointer<ThreadState>
    ) {
        plan.stages.append(Stage(published: table, modeWord: mode, defaultCode: gate, traceAll: traceAll, position: position))
        if plan.stages.count == 1 { firstNode = link } else { thread.pointee.stageNodes.set(link, at: plan.stages.count - 2) }
    }

    /// The rest of `collectPublished` from `start`, a node with two parents or more:
    /// depth-first pre-order with a visited set, parents in mount order, as
    /// `Route.walkGeneral` (the nodes of the chain before `start` need no marking:
    /// the gate is closed once a cycle was ever made, so none is above `start`).
    /// Returns the nodes visited and the first stage's node so far, or nil when the
    /// walk must take its stripe instead.
    @inline(never)
    static func collectPublishedBranching(
        from start: NodeLink, _ key: SlotKey, into plan: inout Plan, visited: Int, firstNode: NodeLink,
        gate: UInt, traceAll: Bool, sequenceWord: UnsafeMutableRawPointer, sequence: UInt, thread: UnsafeMutablePointer<ThreadState>
    ) -> (visited: Int, firstNode: NodeLink)? {
        var visited = visited, firstNode = firstNode
        let walked = Route.walkPublished(from: start, checking: (sequenceWord, sequence)) { link in
            guard let found = readPublished(link, key) else { return nil }
            visited &+= 1
            if let table = found.table {
                addPublishedStage(table, mode: found.mode, at: link, position: visited, gate: gate, traceAll: traceAll, into: &plan, firstNode: &firstNode, thread: thread)
            }
            return found.parents
        }
        return walked ? (visited, firstNode) : nil
    }

    /// `collect` without a lock once group interceptors or capture handlers were used
    /// (the gate says which), out of line: its call inside `collectPublished` cost
    /// every post 5 to 50 instructions of register shuffling. True when `plan` holds
    /// the stages with a delivery pin; false to take the stripe (`plan` emptied).
    @inline(never)
    func collectWithoutLockSlowly(_ key: SlotKey, into plan: inout Plan, thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        let pins = thread.pointee.pins
        let readParity = GraphLock.pinWithoutLock(pins)
        // The sequence before the gate (see `collectPublished`).
        let sequenceWord = GraphLock.linkSequenceAddress
        let sequence = AtomicWord.load(sequenceWord)
        let gate = GraphLock.walkGate
        var collected = false
        if gate != 0, sequence & 1 == 0 {
            let traceAll = publishedMode & 1 != 0
            plan.originTraced = traceAll
            collected = collectPublishedSlowly(key, into: &plan, gate: gate, traceAll: traceAll, sequenceWord: sequenceWord, sequence: sequence, readParity: readParity)
        }
        GraphLock.unpinWithoutLock(pins, parity: readParity)
        if !collected {
            plan = Plan()
            plan.writes = thread.pointee.writes
        }
        return collected
    }

    /// `collectPublished` once group interceptors or capture handlers were used (the
    /// gate says which): as `collectSlowly` does under the stripe, a node with group
    /// interceptors is a stage even without handlers for `key`, and the capture
    /// handlers of `key` are collected too. Every table, group tables included, is
    /// read (retained, or named for a stage of group interceptors only) only once
    /// the delivery pin is taken, as `collectPublished` takes it (and, when the
    /// epoch moved, each is checked still published).
    @inline(never)
    func collectPublishedSlowly(
        _ key: SlotKey, into plan: inout Plan, gate: UInt, traceAll: Bool, sequenceWord: UnsafeMutableRawPointer, sequence: UInt, readParity: Int
    ) -> Bool {
        let groupsExist = gate & GraphLock.gateGroups != 0
        let captureKey = gate & GraphLock.gateCaptures != 0 && key.phase == .bubble ? key.in(.capture) : nil
        // What the check under the delivery pin loads again: each table collected,
        // with its node and key.
        var checks: [(link: NodeLink, key: SlotKey, table: Unmanaged<HandlerTable>)] = []
        // The group tables, by stage. A stage with group interceptors only runs the
        // group table until the check, then a table of its own named after it.
        var groups: [(stage: Int, table: Unmanaged<HandlerTable>, ownTable: Bool)] = []
        var visited = 0
        let walked = Route.walkPublished(from: NodeLink(self), checking: (sequenceWord, sequence)) { link in
            typealias Found = (
                parents: NodeList.Shape, table: Unmanaged<HandlerTable>?, group: Unmanaged<HandlerTable>?,
                capture: Unmanaged<HandlerTable>?, mode: UInt32
            )
            let found = link.withNode { node -> Found? in
                let mode = node.publishedMode
                if DominoNode.declinesWalksWithoutALock(mode) { return nil }
                let table = node.publishedTable(for: key)
                let group = groupsExist ? node.publishedTable(for: .group) : nil
                let capture = captureKey.flatMap { node.publishedTable(for: $0) }
                return (node.publishedParents, table, group, capture, mode)
            }
            guard let found else { return nil }
            visited &+= 1
            if found.table != nil || found.group != nil || found.capture != nil {
                let code = found.mode >> 1
                let mode = Stage.Mode(code: code == 0 ? gate & 0xFF : UInt(code))
                let traced = traceAll || found.mode & 1 != 0
                if let capture = found.capture, let captureKey {
                    plan.extra().captures.append(Stage(handlers: capture, mode: mode, traced: traced, position: visited))
                    checks.append((link, captureKey, capture))
                }
                if let table = found.table ?? found.group {
                    plan.stages.append(Stage(handlers: table, mode: mode, traced: traced, position: visited))
                    if let keyTable = found.table { checks.append((link, key, keyTable)) }
                    if let group = found.group {
                        groups.append((plan.stages.count - 1, group, found.table == nil))
                        checks.append((link, .group, group))
                    }
                }
            }
            return found.parents
        }
        guard walked else { return false }
        plan.nodesVisited = visited
        guard !checks.isEmpty else { return true }
        let pins = ThreadState.current.pointee.pins
        if GraphLock.pinForDelivery(pins, keepingReadPinOf: readParity) {
            plan.adoptPin(pins, parity: readParity)
        } else {
            plan.adoptPin(pins, parity: GraphLock.pinForDelivery(pins))
            for check in checks where check.link.withNode({ $0.publishedTable(for: check.key) })?.toOpaque() != check.table.toOpaque() {
                return false
            }
        }
        // Checked: the tables are safe to read, and to retain, from here on.
        for (stage, group, ownTable) in groups {
            let groupTable = group.takeUnretainedValue()
            if ownTable {
                let own = HandlerTable(label: groupTable.label, nodeID: groupTable.nodeID)
                plan.extra().owned.append(own)
                plan.stages[stage] = plan.stages[stage].running(.passUnretained(own))
            }
            plan.setGroups(groupTable, at: stage)
        }
        return true
    }

    /// `collect` once responder nodes exist: the responder chains met on the route are
    /// read again (outside the lock), and the route walked again when they changed.
    /// Called with the thread's stripe held, which it gives back.
    @inline(never)
    func collectFollowingResponders(_ key: SlotKey, into plan: inout Plan, thread: UnsafeMutablePointer<ThreadState>) {
        if collectAlongKnownChains(key, into: &plan, thread: thread) { return }
        collectResolvingResponders(key, into: &plan, thread: thread)
    }

    /// `collectFollowingResponders` once a chain on the route was found changed (or
    /// could not be checked): collects under the stripe and resolves the links of
    /// the route's responder nodes until they stay. Called without the stripe.
    @inline(never)
    func collectResolvingResponders(_ key: SlotKey, into plan: inout Plan, thread: UnsafeMutablePointer<ThreadState>) {
        plan = Plan()
        plan.writes = thread.pointee.writes
        let stripe = thread.pointee.stripe
        let onMainThread = DeliveryMode.mainThread.isCurrent(thread)
        // Held until the walk ends (see `ResponderRegistry.respondersOnRoute`).
        var refreshed: [DominoNode] = []
        var cutShort = false
        // The route's responder nodes as last collected, for its census.
        var route: [NodeLink] = []
        while true {
            graphLock.lockShared(stripe: stripe)
            collectLocked(key, into: &plan)
            plan.pinIfBorrowing(thread.pointee.pins)
            route.removeAll(keepingCapacity: true)
            let pending = Self.respondersOnRoute(from: self, skipping: refreshed, onMainThread: onMainThread, route: &route)
            let collected = ResponderRegistry.generation
            graphLock.unlockShared(stripe: stripe)
            if pending.isEmpty || !Self.refresh(pending, into: &refreshed, collectedAt: collected, cutShort: &cutShort) {
                plan.routeCutShort = cutShort
                // Once it resolved links (this pass or one before), whose installs
                // moved the links' write count past any census the thread keeps.
                if !pending.isEmpty || !refreshed.isEmpty {
                    Self.keepCensus(of: route, collectedAt: collected, onMainThread: onMainThread, thread: thread)
                }
                return
            }
            plan = Plan()
            plan.writes = thread.pointee.writes
        }
    }

    /// Takes the census of `route` (a walk up's responder nodes, in route order) for
    /// this thread's next walks up, unless it keeps one for the links as they are:
    /// after a walk resolved links of its route, so that the next post along it
    /// reads the route without a lock rather than take its stripe to take the census
    /// (session 42: before, the second post after a link changed took its stripe).
    /// Only while no link changed since `route` was collected
    /// (`ResponderRegistry.generation` is `collected`): no node of it was
    /// unregistered meanwhile, so each is still readable. Takes the stripe; what a
    /// new census replaces is released outside it.
    @inline(never)
    static func keepCensus(of route: [NodeLink], collectedAt collected: Int, onMainThread: Bool, thread: UnsafeMutablePointer<ThreadState>) {
        guard !route.isEmpty else { return }
        let stripe = thread.pointee.stripe
        var taken: ChainCensus?
        graphLock.lockShared(stripe: stripe)
        if ResponderRegistry.generation == collected {
            route.withUnsafeBufferPointer { route in
                guard !thread.pointee.routeCensuses.bringFirst(route, onMainThread: onMainThread, linksWritten: ResponderRegistry.linksWritten) else { return }
                thread.pointee.routeCensusesTaken &+= 1
                if !thread.pointee.routeCensuses.retakeLast(route, onMainThread: onMainThread) {
                    taken = ChainCensus(route: route, onMainThread: onMainThread)
                }
            }
        }
        graphLock.unlockShared(stripe: stripe)
        if let taken { thread.pointee.routeCensuses.insertFirst(taken) }
    }

    /// The published successor of the responder node of `link` (see
    /// `collectAlongKnownChainsWithoutALock`). Pinned without a lock: the node may be
    /// in its deinit, its link retired but not freed.
    @inline(__always)
    static func publishedSuccessor(of link: NodeLink) -> NodeLink? {
        link.withNode { node in
            node.responderLink.map { Unmanaged.passUnretained($0) }
        }?._withUnsafeGuaranteedRef { $0.publishedSuccessor }
    }

    /// What `collectAlongKnownChainsWithoutALock` found.
    enum KnownChains {
        /// Every chain on the route holds: the plan holds the stages, pinned for
        /// delivery.
        case hold
        /// A chain on the route changed, or a host is gone: its links are to be
        /// resolved (`collectResolvingResponders`). No host held; the plan, to be
        /// thrown away, may hold a delivery pin, which it gives back as it goes.
        case changed
        /// The walk must take its stripe (`collectFollowingResponders`): a node it
        /// does not read without one, a branching route, links changed under it, no
        /// census of the route kept, or the epoch moved. Nothing pinned or held.
        case declined
    }

    /// `collectAlongKnownChains` without the stripe (performance round 3: a walk up
    /// through responder nodes no longer waits for a writer): the route read
    /// between two equal, even link sequences, as a walk without a lock reads it,
    /// along each responder node's published successor (`ResponderLink.
    /// publishedSuccessor`, set inside `graphLock.changingLinks`), then compared
    /// with the thread's census of it and the links written
    /// (`ResponderRegistry.linksWritten`, loaded after the read pin). The census
    /// then tells what each link's last resolution read, as under the stripe; the
    /// hosts are held under the read pin (a link unregistered since is retired,
    /// not freed, while the pin holds, and keeps its host's memory) and each chain
    /// read after it is given back. A route that branches, a responder node with a
    /// mode of its own, a node with a queue, a closed walk gate, a route whose
    /// census the thread does not keep (the first post along it, or links changed
    /// since) decline: the walk takes its stripe, where the census is taken.
    @inline(never)
    func collectAlongKnownChainsWithoutALock(_ key: SlotKey, into plan: inout Plan, thread: UnsafeMutablePointer<ThreadState>) -> KnownChains {
        let pins = thread.pointee.pins
        let readParity = GraphLock.pinWithoutLock(pins)
        // The sequence before the gate (see `collectPublished`), the links written
        // after the pin (see above).
        let sequenceWord = GraphLock.linkSequenceAddress
        let sequence = AtomicWord.load(sequenceWord)
        let gate = GraphLock.walkGate
        let written = ResponderRegistry.linksWritten
        guard gate &- 1 < 0xFF, sequence & 1 == 0 else {
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            return .declined
        }
        plan.takeDefaultMode(fromGate: gate)
        let traceAll = publishedMode & 1 != 0
        plan.originTraced = traceAll
        thread.pointee.routeNodes.removeAll()
        var link = NodeLink(self)
        var firstNode = link
        var visited = 0
        // Each node's words read through its link's address, outside `withNode`
        // (read inside it, they kept the optimizer from inlining the closure:
        // about 50 instructions a node more; see `NodeLink.publishedMode`).
        while true {
            var mode = link.publishedMode
            let isResponder = DominoNode.declinesWalksWithoutALock(mode)
            if isResponder {
                // A responder node takes the mode its code names, 4 less (none: the
                // walk's default), as under the stripe; a mode with a queue
                // declines.
                if DominoNode.declinesStripedWalks(mode) {
                    GraphLock.unpinWithoutLock(pins, parity: readParity)
                    return .declined
                }
                mode &-= DominoNode.declinesWalksWithoutALockInheriting << 1
            }
            let parents = link.parentLinks.publishedShape
            var next = parents.only
            var branches = parents.isMultiple
            if isResponder {
                thread.pointee.routeNodes.append(link)
                if let successor = Self.publishedSuccessor(of: link) {
                    // A node with both a parent and a successor: the route branches.
                    branches = branches || next != nil
                    next = successor
                }
            }
            if branches {
                GraphLock.unpinWithoutLock(pins, parity: readParity)
                return .declined
            }
            visited &+= 1
            if let table = link.slots.publishedTable(for: key) {
                Self.addPublishedStage(table, mode: mode, at: link, position: visited, gate: gate, traceAll: traceAll, into: &plan, firstNode: &firstNode, thread: thread)
            }
            guard let next else { break }
            // The sequence every 16 levels and once after the loop, as in
            // `collectLean(_:thread:)` (at each level: a post up 10 responder nodes
            // about 30 instructions more).
            if visited & 15 == 0, AtomicWord.load(sequenceWord) != sequence {
                GraphLock.unpinWithoutLock(pins, parity: readParity)
                return .declined
            }
            link = next
        }
        if AtomicWord.load(sequenceWord) != sequence {
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            return .declined
        }
        plan.nodesVisited = visited
        let onMainThread = DeliveryMode.mainThread.isCurrent(thread)
        let route = thread.pointee.routeNodes.buffer
        guard route.isEmpty || thread.pointee.routeCensuses.bringFirst(route, onMainThread: onMainThread, linksWritten: written) else {
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            return .declined
        }
        // The delivery pin in the read pin's parity: the tables read are safe when
        // the epoch did not move (see `GraphLock.pinForDelivery(_:keepingReadPinOf:)`).
        if plan.stages.count > 0 {
            guard GraphLock.pinForDelivery(pins, keepingReadPinOf: readParity) else {
                GraphLock.unpinWithoutLock(pins, parity: readParity)
                return .declined
            }
            plan.adoptPin(pins, parity: readParity)
        }
        if route.isEmpty {
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            return .hold
        }
        // Held for the check: reading a chain calls a responder's getter, which may
        // post on this thread, and that walk may take the thread's censuses again.
        let census = thread.pointee.routeCensuses.first.unsafelyUnwrapped
        let held = census.holdHosts()
        GraphLock.unpinWithoutLock(pins, parity: readParity)
        guard held else {
            census.releaseHosts()
            return .changed
        }
        return census.checkHeld(thread: thread) ? .hold : .changed
    }

    /// `collectFollowingResponders` when every responder node on the route still
    /// leads where it did: the route collected under the stripe, with its responder
    /// nodes in route order, then each of their chains read outside the lock and
    /// compared with what its link's last resolution read, as the census of the
    /// route's links says (`ChainCensus.init(route:onMainThread:)`). The thread keeps
    /// that census for its next walks up, which take it again only when their route
    /// or a link changed. True when every chain holds (`plan` then holds the
    /// stages); false when one does not or cannot be checked, and the links are to
    /// be resolved (`plan` is then to be thrown away).
    /// Measured (callgrind, `responder.post.depth10`): 21,088 instructions a post
    /// resolving every link, 9,964 checking them; then 5,987 once responders were
    /// held without side tables (see `WeakResponder`), the checks' lists kept with
    /// the thread and the route walked once for the stages and the checks; 5,823
    /// to 3,618 with the checks taken once for a route, not at each walk.
    /// Called with the thread's stripe held (taken by `collectAgain` to tell whether
    /// responder nodes exist: taken twice, it cost a post through them about 30
    /// instructions), which it gives back.
    private func collectAlongKnownChains(_ key: SlotKey, into plan: inout Plan, thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        let stripe = thread.pointee.stripe
        let onMainThread = DeliveryMode.mainThread.isCurrent(thread)
        thread.pointee.routeNodes.removeAll()
        // The default mode from the walk gate when it names one, as walks down take
        // it, rather than looked up in the settings at the first stage (measured: a
        // post up 10 responder nodes 3,050 to 3,023 instructions).
        plan.takeDefaultMode(fromGate: GraphLock.walkGate)
        // One walk for the stages and the route's responder nodes.
        collectLocked(key, into: &plan) { node in
            if node.responderLink != nil { thread.pointee.routeNodes.append(NodeLink(node)) }
        }
        plan.pinIfBorrowing(thread.pointee.pins)
        let route = thread.pointee.routeNodes.buffer
        if route.isEmpty {
            graphLock.unlockShared(stripe: stripe)
            return true
        }
        // Taken again in the memory of the thread's least recently used census when
        // that is its only reference (no allocation); else (a walk nested in
        // another's check holds the outer walk's) anew.
        var taken: ChainCensus?
        if !thread.pointee.routeCensuses.bringFirst(route, onMainThread: onMainThread, linksWritten: ResponderRegistry.linksWritten) {
            thread.pointee.routeCensusesTaken &+= 1
            if !thread.pointee.routeCensuses.retakeLast(route, onMainThread: onMainThread) {
                taken = ChainCensus(route: route, onMainThread: onMainThread)
            }
        }
        // Held for the check: reading a chain calls a responder's getter, which may
        // post on this thread, and that walk may take the thread's censuses again.
        let census = taken ?? thread.pointee.routeCensuses.first.unsafelyUnwrapped
        let held = census.holdHosts()
        graphLock.unlockShared(stripe: stripe)
        // The census a new one drops released here, outside the lock.
        if let taken { thread.pointee.routeCensuses.insertFirst(taken) }
        guard held else {
            census.releaseHosts()
            return false
        }
        return census.checkHeld(thread: thread)
    }

    /// The walk of `collect`. Shared lock held.
    @inline(__always)
    func collectLocked(_ key: SlotKey, into plan: inout Plan) {
        collectLocked(key, into: &plan) { _ in }
    }

    /// The walk of `collect`, calling `visit` with each node of the route too (in
    /// route order, before its stage). Shared lock held.
    @inline(__always)
    func collectLocked(_ key: SlotKey, into plan: inout Plan, visiting visit: (DominoNode) -> Void) {
        // A traced origin traces every stage of its walk (Domino's debug mode logs
        // when either end is in debug mode).
        let traceAll = Tracing.tracesAllNodes || tracingFlag
        plan.originTraced = traceAll
        let slowPath = GraphSettings.groupsExist || GraphSettings.capturesExist
        Route.walk(from: self) { node in
            visit(node)
            plan.nodesVisited += 1
            if slowPath {
                Self.collectSlowly(key, at: node, into: &plan, traceAll: traceAll)
                return
            }
            if let table = node.slots.table(for: key) {
                plan.addStage(table, at: node, traceAll: traceAll)
            }
        }
    }

    /// The slower look-up once group interceptors or capture handlers exist: a node
    /// with group interceptors is a stage even without handlers for `key`, and the
    /// capture handlers of `key` are collected too (for posts).
    @inline(never)
    static func collectSlowly(_ key: SlotKey, at node: DominoNode, into plan: inout Plan, traceAll: Bool) {
        var table: HandlerTable?
        var groups: HandlerTable?
        var capture: HandlerTable?
        let captureKey = key.phase == .bubble ? key.in(.capture) : nil
        table = node.slots.table(for: key)?.takeUnretainedValue()
        groups = node.slots.table(for: .group)?.takeUnretainedValue()
        if let captureKey { capture = node.slots.table(for: captureKey)?.takeUnretainedValue() }
        if let capture {
            let stage = plan.stage(.passUnretained(capture), at: node, traceAll: traceAll)
            plan.extra().captures.append(stage)
        }
        if table == nil && groups == nil { return }
        plan.addStage(.passUnretained(table ?? plan.ownTable(for: node)), at: node, traceAll: traceAll)
        if let groups { plan.addGroups(groups) }
    }

    /// Runs the interceptors of stage `index`, then its group interceptors; true when
    /// one stops the value.
    static func intercepts<Payload: Sendable>(_ value: Payload, at index: Int, of plan: borrowing Plan) -> Bool {
        if stageIntercepts(value, at: plan.stages[index]) { return true }
        if let extras = plan.extras, index < extras.groups.count, let groups = extras.groups[index] {
            for handler in groups.interceptors {
                let interceptor = unsafeDowncast(handler, to: GroupInterceptor.self)
                if interceptor.decide(value) == .stop { return true }
            }
        }
        return false
    }

    /// True when an interceptor of `stage`'s own table stops `value`.
    @inline(__always)
    static func stageIntercepts<Payload: Sendable>(_ value: Payload, at stage: Stage) -> Bool {
        stage.withTable { table in
            // Tested first: reading `interceptors` through its accessor retains.
            guard table.hasInterceptors else { return false }
            var stopped = false
            HandlerTable.forEachInterceptor(of: table) { handler in
                let interceptor = unsafeDowncast(handler, to: Interceptor<Payload>.self)
                stopped = interceptor.decide(value) == .stop
                return !stopped
            }
            return stopped
        }
    }

    /// Enters one level of nesting, or reports the runaway and returns false.
    @inline(__always)
    func enterNesting(_ thread: UnsafeMutablePointer<ThreadState>, what: @autoclosure () -> String) -> Bool {
        ThreadState.enterNesting(thread, "\(what()) at \(self)")
    }

    /// Posts `value` along the route, notifying the receivers of `key`.
    ///
    /// The common post (a chain without responder nodes, at most one node with
    /// handlers for `key`, neither reformers nor interceptors there, not traced from
    /// its start, the walk gate open without groups or captures) walks without a
    /// `Plan` (`collectLean`) and runs the one stage's handlers (measured: a post 490
    /// to 380 instructions, at depth 10 735 to 575; see
    /// Maintainers/ReadsWithoutALock.md, "A post without a plan"). So does a post
    /// whose route has two such stages, or one or two with reformers or
    /// interceptors. Anything else hands the walk over to a plan where it stands
    /// (`deliverPlanned`), so that no post walks its route twice. Inlined into the
    /// public posts: called, its result was copied from frame to frame (measured: a
    /// post 323 to 300 instructions; `collectLean` inlined too made it 323 again).
    @inline(__always)
    func deliver<Payload: Sendable>(_ value: Payload, key: SlotKey) -> PostResult {
        let thread = ThreadState.current
        guard enterNesting(thread, what: "Posting \(key.displayName(for: Payload.self))") else {
            return PostResult(deliveries: 0, nodesVisited: 0, stopReason: .nestingLimit, stoppedAt: description)
        }
        // Wrapping: `enterNesting` bounds the count (`maximumNestingDepth`).
        defer { thread.pointee.nesting &-= 1 }

        let writes = thread.pointee.writes
        let found = collectLean(key, thread: thread)
        if let table = found.table {
            let stage = Stage(handlers: table, bits: found.bits)
            let result = found.isOnePlainStage
                ? Self.deliver(value, key: key, atOnly: stage, writes: writes, nodesVisited: found.visited, routeCutShort: false, thread: thread)
                : found.reformsOrIntercepts
                ? Self.deliver(value, key: key, leanFirst: stage, stageWord: found.stageWord, thread: thread, writes: writes, nodesVisited: found.visited)
                : Self.deliver(value, key: key, first: stage, thenLeanSecondOf: thread, writes: writes, nodesVisited: found.visited)
            GraphLock.unpin(thread.pointee.pins, parity: found.parity)
            return result
        }
        if found.parity < 0 {
            return PostResult(deliveries: 0, scheduled: 0, nodesVisited: found.visited, stopReason: nil, stoppedAt: nil, routeCutShort: false)
        }
        return deliverPlanned(value, key: key, thread: thread, readParity: found.parity)
    }

    /// What the walk of a post or a request without a plan found (`collectLean`),
    /// in four words, which a function returns in registers (an enum with payloads
    /// went through memory: measured, a post 396 to 416 instructions).
    struct LeanFound {
        /// The table of the route's first stage, pinned for delivery in `parity`;
        /// else nil.
        let table: Unmanaged<HandlerTable>?
        /// The stage's mode code, tracing flag and place (`Stage.bits`) in the low 32
        /// bits; `twoStagesBit` set when the route has a second stage further up (in
        /// the thread's `leanSecondStage`, pinned with the first);
        /// `reformsOrInterceptsBit` when either stage has reformers or interceptors.
        /// One word: a fifth field would make the struct be returned through memory.
        let stageWord: UInt64
        /// See `stageWord`.
        static let twoStagesBit: UInt64 = 1 << 32
        /// See `stageWord`.
        static let reformsOrInterceptsBit: UInt64 = 1 << 33
        /// The stage's `Stage.bits`.
        var bits: UInt32 { UInt32(truncatingIfNeeded: stageWord) }
        /// True when the walk kept a second stage (see `stageWord`).
        var twoStages: Bool { stageWord & Self.twoStagesBit != 0 }
        /// True for the common route: one stage, without reformers or interceptors.
        var isOnePlainStage: Bool { stageWord >> 32 == 0 } // 64-bit: `stageWord` is a UInt64
        /// True when a stage has reformers or interceptors (see `stageWord`).
        var reformsOrIntercepts: Bool { stageWord & Self.reformsOrInterceptsBit != 0 }
        /// The nodes on the route.
        let visited: Int
        /// With a table, the delivery pin's parity; without one, -1 when the route
        /// has no stage (nothing pinned), else the read pin's parity, and the walk is
        /// for a plan to take over from `ThreadState.handover`.
        let parity: Int
    }

    /// The walk of a post or a request without a plan: reads the route under a read
    /// pin as `collectPublished` does, keeps the one stage in locals, and takes its
    /// delivery pin in the read pin's parity. Where the walk stops being common, it
    /// records where it stands in the thread's `handover` for a plan to take over
    /// (`plan(from:key:readParity:thread:)`). A function of its own, not generic, so
    /// that the generic post and request that call it stay small.
    ///
    /// A second stage further up is kept too (handlers at two levels: measured, a
    /// post to both 1,201 instructions through a plan, 732 without one); its node
    /// goes where a plan would keep it (the thread's `stageNodes`), so that a plan
    /// taking over at a third stage, a branch or a moved epoch goes on with both.
    /// Stages with reformers or interceptors are flagged in the result
    /// (`LeanFound.reformsOrInterceptsBit`): a post delivers them without a plan,
    /// a request hands them to one.
    @inline(never)
    func collectLean(_ key: SlotKey, thread: UnsafeMutablePointer<ThreadState>) -> LeanFound {
        // The walk's own node needs no pin to be read (the caller holds it): a
        // responder node, which walks without a lock decline, goes to the plan before
        // pinning (measured: a post up 10 responder nodes 10,129 to 10,092).
        let originMode = publishedMode
        if DominoNode.declinesWalksWithoutALock(originMode) {
            thread.pointee.handover = .declinedAtOrigin
            return LeanFound(table: nil, stageWord: 0, visited: 0, parity: 0)
        }
        // The record's address loaded again after the loop rather than kept: kept
        // in a register, it spilled two of the loop's (measured: a post at depth
        // 10 531 to 547 instructions).
        let readParity = GraphLock.pinWithoutLock(thread.pointee.pins)
        func handOver(_ handover: Handover) -> LeanFound {
            thread.pointee.handover = handover
            return LeanFound(table: nil, stageWord: 0, visited: 0, parity: readParity)
        }
        // The sequence before the gate, as in `collectPublished`.
        let sequenceWord = GraphLock.linkSequenceAddress
        let sequence = AtomicWord.load(sequenceWord)
        let gate = GraphLock.walkGate
        guard gate &- 1 < 0xFF, sequence & 1 == 0, originMode & 1 == 0 else { return handOver(.start) }
        var link = NodeLink(self)
        var visited = 0
        // The stage found so far: its table, its node's mode word and place.
        var table: Unmanaged<HandlerTable>?
        var modeWord: UInt32 = 0
        var position = 0
        var stageLink = link
        while true {
            guard let found = Self.readPublished(link, key) else { return handOver(.declined) }
            if found.parents.isMultiple || (found.table != nil && table != nil) {
                if let secondTable = found.table, let firstTable = table, !found.parents.isMultiple {
                    // Out of line, so that this loop keeps its registers.
                    return Self.collectLean(
                        key, secondStage: secondTable, modeWord: found.mode, at: link, parents: found.parents,
                        after: Stage(published: firstTable, modeWord: modeWord, defaultCode: gate, traceAll: false, position: position),
                        at: stageLink, visited: visited, gate: gate, sequence: sequence, readParity: readParity, thread: thread
                    )
                }
                let first = table.map { Stage(published: $0, modeWord: modeWord, defaultCode: gate, traceAll: false, position: position) }
                return handOver(.resuming(at: link, visited: visited, first: first, withSecond: false, firstNode: stageLink, gate: gate, sequence: sequence))
            }
            visited &+= 1
            if let foundTable = found.table {
                table = foundTable
                modeWord = found.mode
                position = visited
                stageLink = link
            }
            guard let next = found.parents.only else { break }
            // The sequence every 16 levels, not at each: links of different moments
            // could make a loop (a route of one moment has none while the gate is
            // open), and a moved sequence is found within 16 levels of it; the
            // route as a whole is checked once below. (At each level: a post at
            // depth 10 452 instructions; 443 so.) Memory needs no check: a node
            // reached by a link read under the pin is retired, not freed.
            if visited & 15 == 0, AtomicWord.load(sequenceWord) != sequence { return handOver(.declined) }
            link = next
        }
        // Every word above was read with an acquiring load: the sequence loaded
        // after them is the one they were read under.
        if AtomicWord.load(sequenceWord) != sequence { return handOver(.declined) }
        let pins = thread.pointee.pins
        guard let table else {
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            return LeanFound(table: nil, stageWord: 0, visited: visited, parity: -1)
        }
        let stage = Stage(published: table, modeWord: modeWord, defaultCode: gate, traceAll: false, position: position)
        guard GraphLock.pinForDelivery(pins, keepingReadPinOf: readParity) else {
            return handOver(.epochMoved(stage, withSecond: false, at: stageLink, visited: visited))
        }
        GraphLock.unpinReadPin(pins, parity: readParity)
        if Self.isPlain(table) {
            return LeanFound(table: table, stageWord: UInt64(stage.bits), visited: visited, parity: readParity)
        }
        return LeanFound(table: table, stageWord: UInt64(stage.bits) | LeanFound.reformsOrInterceptsBit, visited: visited, parity: readParity)
    }

    /// The rest of `collectLean` from the node of `link`, where it found a second
    /// stage (`table`, its node's mode word `modeWord` and parents `parents`) after
    /// the stage `first` (at `firstLink`) and `visited` nodes: keeps the second in
    /// the thread's `leanSecondStage` (its node in `stageNodes[0]`, where a plan
    /// keeps a second stage's node) and, when no stage follows, returns both pinned
    /// for delivery; else hands over to a plan as `collectLean` does, with both.
    @inline(never)
    static func collectLean(
        _ key: SlotKey, secondStage table: Unmanaged<HandlerTable>, modeWord: UInt32, at link: NodeLink, parents: NodeList.Shape,
        after first: Stage, at firstLink: NodeLink, visited: Int, gate: UInt, sequence: UInt, readParity: Int,
        thread: UnsafeMutablePointer<ThreadState>
    ) -> LeanFound {
        func handOver(_ handover: Handover) -> LeanFound {
            thread.pointee.handover = handover
            return LeanFound(table: nil, stageWord: 0, visited: 0, parity: readParity)
        }
        let sequenceWord = GraphLock.linkSequenceAddress
        var visited = visited &+ 1
        thread.pointee.leanSecondStage = Stage(published: table, modeWord: modeWord, defaultCode: gate, traceAll: false, position: visited)
        thread.pointee.stageNodes.set(link, at: 0)
        var parents = parents
        while let next = parents.only {
            // The sequence every 16 levels, and once after the loop, as in
            // `collectLean(_:thread:)`.
            if visited & 15 == 0, AtomicWord.load(sequenceWord) != sequence { return handOver(.declined) }
            guard let found = readPublished(next, key) else { return handOver(.declined) }
            if found.parents.isMultiple || found.table != nil {
                return handOver(.resuming(at: next, visited: visited, first: first, withSecond: true, firstNode: firstLink, gate: gate, sequence: sequence))
            }
            visited &+= 1
            parents = found.parents
        }
        if AtomicWord.load(sequenceWord) != sequence { return handOver(.declined) }
        let pins = thread.pointee.pins
        guard GraphLock.pinForDelivery(pins, keepingReadPinOf: readParity) else {
            return handOver(.epochMoved(first, withSecond: true, at: firstLink, visited: visited))
        }
        GraphLock.unpinReadPin(pins, parity: readParity)
        let flags = isPlain(first.handlers) && isPlain(table) ? LeanFound.twoStagesBit : LeanFound.twoStagesBit | LeanFound.reformsOrInterceptsBit
        return LeanFound(table: first.handlers, stageWord: UInt64(first.bits) | flags, visited: visited, parity: readParity)
    }

    /// True when `table` has neither reformers nor interceptors.
    @inline(__always)
    static func isPlain(_ table: Unmanaged<HandlerTable>) -> Bool {
        table._withUnsafeGuaranteedRef { !($0.hasReformers || $0.hasInterceptors) }
    }

    /// Where a post's or a request's walk without a plan (`collectLean`) hands over
    /// to one (`plan(from:key:readParity:thread:)`), kept in the thread's state.
    enum Handover {
        /// Nothing read yet: the plan's walk from the start (a walk traced from its
        /// start, a closed gate, one that names groups or captures). Read pin held.
        case start
        /// The walk's own node declines walks without a lock (a responder node, a
        /// mode with a queue): the plan collects as `declined` says. Nothing pinned.
        case declinedAtOrigin
        /// A node that declines walks without a lock, or links that changed under
        /// the walk: the plan collects again (under the stripe if it must). Read pin
        /// held.
        case declined
        /// A stage the walk does not keep, or a branching route, at `link`, after
        /// `visited` nodes and the stage `first` (at `firstNode`), and with
        /// `withSecond` a second stage (in the thread's `leanSecondStage`, its node
        /// in `stageNodes[0]`): the plan's walk goes on from there. Read pin held.
        case resuming(at: NodeLink, visited: Int, first: Stage?, withSecond: Bool, firstNode: NodeLink, gate: UInt, sequence: UInt)
        /// The stages collected (one, or with `withSecond` two, as in `resuming`),
        /// but the epoch moved before the delivery pin: the plan pins
        /// with a check and loads the table words again. Read pin held.
        case epochMoved(Stage, withSecond: Bool, at: NodeLink, visited: Int)
        /// The stages collected (one, or with `withSecond` two, as in `resuming`)
        /// and pinned for delivery, one with reformers or interceptors, for a request:
        /// the plan's walk. Read pin given back, delivery pin held.
        case pinned(Stage, withSecond: Bool, visited: Int)
    }

    /// The plan that a walk without one hands over to (`collectLean`): collects the
    /// rest of the route from where the walk stands and takes over its pins (the read
    /// pin of `readParity` given back).
    @inline(never)
    func plan(from handover: Handover, key: SlotKey, readParity: Int, thread: UnsafeMutablePointer<ThreadState>) -> Plan {
        let pins = thread.pointee.pins
        var plan = Plan()
        plan.writes = thread.pointee.writes
        switch handover {
        case .start:
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            collect(key, into: &plan, thread: thread)
        case .declinedAtOrigin:
            collectAgain(key, into: &plan, thread: thread)
        case .declined:
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            collectAgain(key, into: &plan, thread: thread)
        case let .resuming(link, visited, first, withSecond, firstNode, gate, sequence):
            if let first { plan.stages.append(first) }
            if withSecond { plan.stages.append(thread.pointee.leanSecondStage.unsafelyUnwrapped) }
            let collected = Self.collectPublishedResuming(
                from: link, key, into: &plan, visited: visited, firstNode: firstNode, gate: gate,
                sequenceWord: GraphLock.linkSequenceAddress, sequence: sequence, readParity: readParity, thread: thread
            )
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            if !collected { collectAgain(key, into: &plan, thread: thread) }
        case let .epochMoved(stage, withSecond, stageLink, visited):
            plan.stages.append(stage)
            if withSecond { plan.stages.append(thread.pointee.leanSecondStage.unsafelyUnwrapped) }
            plan.nodesVisited = visited
            let checked = Self.checkPublishedStages(key, of: &plan, firstNode: stageLink, thread: thread)
            GraphLock.unpinWithoutLock(pins, parity: readParity)
            if !checked { collectAgain(key, into: &plan, thread: thread) }
        case let .pinned(stage, withSecond, visited):
            plan.stages.append(stage)
            if withSecond { plan.stages.append(thread.pointee.leanSecondStage.unsafelyUnwrapped) }
            plan.nodesVisited = visited
            plan.adoptPin(pins, parity: readParity)
        }
        return plan
    }

    /// `deliver(_:key:)` from where its walk without a plan handed over: collects
    /// the rest into a plan (which takes over the pins), then delivers along it.
    @inline(never)
    func deliverPlanned<Payload: Sendable>(
        _ value: Payload, key: SlotKey, thread: UnsafeMutablePointer<ThreadState>, readParity: Int
    ) -> PostResult {
        let plan = plan(from: thread.pointee.handover, key: key, readParity: readParity, thread: thread)
        // At most one stage, no reformers, interceptors, captures or groups, not
        // traced from its start: the one-stage delivery.
        if plan.stages.count <= 1 && plan.extras == nil && !plan.originTraced {
            if plan.stages.count == 0 {
                let result = PostResult(deliveries: 0, scheduled: 0, nodesVisited: plan.nodesVisited, stopReason: nil, stoppedAt: nil, routeCutShort: plan.routeCutShort)
                plan.end()
                return result
            }
            let stage = plan.stages[0]
            if Self.isPlain(stage.handlers) {
                let result = Self.deliver(value, key: key, atOnly: stage, writes: plan.writes, nodesVisited: plan.nodesVisited, routeCutShort: plan.routeCutShort, thread: thread)
                plan.end()
                return result
            }
        }
        return deliver(value, key: key, following: plan, thread: thread)
    }

    /// `deliver` for one stage without reformers or interceptors, not traced from
    /// its start: its handlers, then the result.
    @inline(__always)
    static func deliver<Payload: Sendable>(
        _ value: Payload, key: SlotKey, atOnly stage: Stage, writes: Int, nodesVisited: Int, routeCutShort: Bool, thread: UnsafeMutablePointer<ThreadState>
    ) -> PostResult {
        var deliveries = 0
        var scheduled = 0
        var orphans = Orphans()
        // The cast written here, not `traceName(of:key:)`: in the common post's code
        // the call cost more than the copies it saves elsewhere (measured: a post 300
        // to 353 instructions).
        var eventName: String { (value as? TraceNamed)?.traceName ?? key.displayName(for: Payload.self) }
        let propagation = notify(value, at: stage, writes: writes, thread: thread, eventName: eventName, deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans)
        orphans.purge()
        guard let stop = propagation.requestedStop else {
            return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: nodesVisited, stopReason: nil, stoppedAt: nil, routeCutShort: routeCutShort)
        }
        let stopReason: PostResult.StopReason = stop == .immediately ? .subscriberImmediately : .subscriber
        if stage.traced {
            Tracing.emit(TraceRecord(kind: .stopped(stopReason), event: eventName, node: stage.nodeName))
        }
        return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: stage.position, stopReason: stopReason, stoppedAt: stage.nodeName, routeCutShort: routeCutShort)
    }

    /// `deliver` for what a walk without a plan found with reformers or
    /// interceptors: one or two stages (`stageWord`, as `collectLean` returned it),
    /// the first nearer the posting node, not traced from the start. At each stage
    /// in route order: its reformers rewrite the event, its subscribers run, then
    /// its interceptors may stop it, as along a plan. Measured: a post through an
    /// interceptor below a subscriber 1,362 instructions through a plan, 861 here.
    /// Two plain stages keep a delivery of their own
    /// (`deliver(_:key:first:thenLeanSecondOf:…)`): through this one, 732 to 792;
    /// with this one calling it, 742, and this one's own 861 to 955.
    ///
    /// A second stage is the one `collectLean` kept in the thread's state, taken
    /// from it before any handler runs (a handler's own post may keep another
    /// there).
    @inline(never)
    static func deliver<Payload: Sendable>(
        _ value: Payload, key: SlotKey, leanFirst first: Stage, stageWord: UInt64, thread: UnsafeMutablePointer<ThreadState>,
        writes: Int, nodesVisited: Int
    ) -> PostResult {
        var next = stageWord & LeanFound.twoStagesBit != 0 ? thread.pointee.leanSecondStage : nil
        // Changed only through `inout` (captured by a closure here, it took a box:
        // measured, an allocation a post).
        var value = value
        var deliveries = 0
        var scheduled = 0
        var orphans = Orphans()
        var stage = first
        var stopReason: PostResult.StopReason?
        while true {
            stopReason = deliverStage(
                &value, key: key, at: stage, writes: writes, thread: thread,
                deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans
            )
            if stopReason != nil { break }
            guard let following = next else { break }
            stage = following
            next = nil
        }
        orphans.purge()
        guard let stopReason else {
            return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: nodesVisited, stopReason: nil, stoppedAt: nil, routeCutShort: false)
        }
        if stage.traced {
            let eventName = Self.traceName(of: value, key: key)
            Tracing.emit(TraceRecord(kind: .stopped(stopReason), event: eventName, node: stage.nodeName))
        }
        return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: stage.position, stopReason: stopReason, stoppedAt: stage.nodeName, routeCutShort: false)
    }

    /// One stage of `deliver(_:key:leanFirst:…)`: its reformers, its subscribers,
    /// then its interceptors. Returns why the walk stops here, if it does.
    @inline(__always)
    private static func deliverStage<Payload: Sendable>(
        _ value: inout Payload, key: SlotKey, at stage: Stage, writes: Int, thread: UnsafeMutablePointer<ThreadState>,
        deliveries: inout Int, scheduled: inout Int, orphans: inout Orphans
    ) -> PostResult.StopReason? {
        var eventName: String { Self.traceName(of: value, key: key) }
        let (reforms, intercepts) = stage.withTable { ($0.hasReformers, $0.hasInterceptors) }
        if reforms {
            // Named before, and only when traced: `value` is not read while it is
            // reformed (an `eventName` reading it there does not compile).
            let name = stage.traced ? eventName : ""
            reform(&value, at: stage, eventName: name)
        }
        let propagation = notify(value, at: stage, writes: writes, thread: thread, eventName: eventName, deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans)
        if let stop = propagation.requestedStop {
            return stop == .immediately ? .subscriberImmediately : .subscriber
        }
        if intercepts, stageIntercepts(value, at: stage) {
            return .interceptor
        }
        return nil
    }

    /// `deliver` for two plain stages, the first nearer the posting node, not traced
    /// from the start: each stage's handlers in route order, until one stops it. Not
    /// two calls of the one-stage delivery: the result built and destroyed twice cost
    /// 74 instructions and 3 releases (measured).
    /// The second is the one `collectLean` kept in the thread's state, taken from
    /// it before any handler runs (a handler's own post may keep another there).
    @inline(never)
    static func deliver<Payload: Sendable>(
        _ value: Payload, key: SlotKey, first: Stage, thenLeanSecondOf thread: UnsafeMutablePointer<ThreadState>, writes: Int, nodesVisited: Int
    ) -> PostResult {
        let second = thread.pointee.leanSecondStage.unsafelyUnwrapped
        var deliveries = 0
        var scheduled = 0
        var orphans = Orphans()
        var eventName: String { Self.traceName(of: value, key: key) }
        var stopped: (stage: Stage, stop: Propagation.Stop)?
        // One `notify` in a loop of two, not two calls: the optimizer kept the second
        // call's `notify` out of line (measured: a post to two levels 597 to 568
        // instructions).
        var stage = first
        var next: Stage? = second
        while true {
            let propagation = notify(value, at: stage, writes: writes, thread: thread, eventName: eventName, deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans)
            if let stop = propagation.requestedStop {
                stopped = (stage, stop)
                break
            }
            guard let following = next else { break }
            stage = following
            next = nil
        }
        orphans.purge()
        guard let (stage, stop) = stopped else {
            return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: nodesVisited, stopReason: nil, stoppedAt: nil, routeCutShort: false)
        }
        let stopReason: PostResult.StopReason = stop == .immediately ? .subscriberImmediately : .subscriber
        if stage.traced {
            Tracing.emit(TraceRecord(kind: .stopped(stopReason), event: eventName, node: stage.nodeName))
        }
        return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: stage.position, stopReason: stopReason, stoppedAt: stage.nodeName, routeCutShort: false)
    }

    /// `deliver` along a collected plan: every case (captures, reformers,
    /// interceptors, groups, tracing from the start).
    @inline(never)
    func deliver<Payload: Sendable>(
        _ value: Payload, key: SlotKey, following plan: borrowing Plan, thread: UnsafeMutablePointer<ThreadState>
    ) -> PostResult {
        // Only tracing needs the name; building it costs more than the whole walk.
        var eventName: String { Self.traceName(of: value, key: key) }
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .posted, event: eventName, node: description))
            Signposts.begin(.post, id: ThreadState.signpostID(thread), "\(eventName) at \(description)")
        }

        var value = value
        var deliveries = 0
        var scheduled = 0
        var stopReason: PostResult.StopReason?
        var stoppedAt: String?
        var orphans = Orphans()
        // The nodes the walk reached: the whole route unless something stops it.
        var reached = plan.nodesVisited

        // The capture phase: outermost first, down to the posting node.
        if let captures = plan.extras?.captures, !captures.isEmpty {
            for stage in captures.reversed() {
            let propagation = Self.notify(value, at: stage, writes: plan.writes, thread: thread, eventName: eventName, deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans)
            if let stop = propagation.requestedStop {
                stopReason = stop == .immediately ? .subscriberImmediately : .subscriber
                stoppedAt = stage.nodeName
                // From the outermost node down to this one.
                reached = plan.nodesVisited - stage.position + 1
                if stage.traced {
                    Tracing.emit(TraceRecord(kind: .stopped(stopReason!), event: eventName, node: stage.nodeName))
                }
                break
            }
            }
        }

        stages: for index in 0..<plan.stages.count where stopReason == nil {
            let stage = plan.stages[index]
            let (reforms, intercepts) = stage.withTable { ($0.hasReformers, $0.hasInterceptors) }

            if reforms {
                Self.reform(&value, at: stage, eventName: eventName)
            }

            let propagation = Self.notify(value, at: stage, writes: plan.writes, thread: thread, eventName: eventName, deliveries: &deliveries, scheduled: &scheduled, orphans: &orphans)
            if let stop = propagation.requestedStop {
                stopReason = stop == .immediately ? .subscriberImmediately : .subscriber
                stoppedAt = stage.nodeName
            } else if intercepts || plan.extras != nil, Self.intercepts(value, at: index, of: plan) {
                stopReason = .interceptor
                stoppedAt = stage.nodeName
            }
            if let stopReason {
                reached = stage.position
                if stage.traced {
                    Tracing.emit(TraceRecord(kind: .stopped(stopReason), event: eventName, node: stage.nodeName))
                }
                break stages
            }
        }

        if plan.originTraced {
            if deliveries == 0 && stopReason == nil {
                Tracing.emit(TraceRecord(kind: .unhandled, event: eventName, node: description))
            }
            let result = PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: plan.nodesVisited, stopReason: stopReason, stoppedAt: stoppedAt)
            Signposts.end(.post, id: ThreadState.signpostID(thread), result.description)
        }
        orphans.purge()
        return PostResult(deliveries: deliveries, scheduled: scheduled, nodesVisited: reached, stopReason: stopReason, stoppedAt: stoppedAt, routeCutShort: plan.routeCutShort)
    }

    /// The name a trace gives `value`, sent for `key`, for the walks that trace (all
    /// but the common post's one-stage delivery, which writes the cast itself).
    /// Out of line: the cast of a generic value made an unspecialized delivery loop
    /// allocate room for copies of the value at every call, traced or not
    /// (measured: a raise at depth 1 757 to 729 instructions, at depth 10 2,193 to
    /// 2,160; a broadcast one a node more, the loop's registers).
    @inline(never)
    static func traceName<Payload: Sendable>(of value: Payload, key: SlotKey) -> String {
        (value as? TraceNamed)?.traceName ?? key.displayName(for: Payload.self)
    }

    /// Runs a stage's subscribers: on this thread when their mode allows, else
    /// scheduled on their queue. Returns the stop they asked for.
    @inline(__always)
    static func notify<Payload: Sendable>(
        _ value: Payload,
        at stage: Stage,
        writes: Int,
        thread: UnsafeMutablePointer<ThreadState>,
        eventName: @autoclosure () -> String,
        deliveries: inout Int,
        scheduled: inout Int,
        orphans: inout Orphans
    ) -> Propagation {
        var propagation = Propagation()
        stage.withTable { table in
            // A lone handler comes even when removed: the in-place tests below are
            // false for it (their mask holds the removed bit), and `isRemoved`
            // skips it.
            HandlerTable.forEachSubscriber(of: table, lonesUnchecked: true) { handler in
                let receiver = unsafeDowncast(handler, to: Receiver<Payload>.self)
                // A handler on this thread changed the graph during this walk: skip
                // handlers it ended (cancelled, unsubscribed, their node gone).
                if thread.pointee.writes != writes, !receiver.isAttached { return true }
                // The common handler, a closure that takes the event and runs on
                // this thread, called here: it neither stops the walk, nor hops to an
                // actor, nor declines.
                if receiver.isClosureCalledInPlace(on: thread) {
                    unsafeDowncast(handler, to: ClosureReceiver<Payload>.self).run(value)
                    // Wrapping: a count of handlers called cannot overflow.
                    deliveries &+= 1
                    if stage.traced {
                        Tracing.emit(TraceRecord(kind: .delivered, event: eventName(), node: stage.nodeName))
                    }
                    return true
                }
                // Another handler that runs here by its mode (an owner-bound one, most
                // often) by the same test without the closure bit; else the removed
                // mark, then the tests for a handler without a mode of its own or
                // with a queue.
                let runsHere: Bool
                if receiver.runsInPlace(on: thread) {
                    runsHere = true
                } else {
                    if receiver.isRemoved { return true }
                    runsHere = receiver.runsInPlace(stageRunsOnPostingThread: stage.deliveryIsPostingThread, thread: thread)
                        || (receiver.delivery ?? stage.delivery).isCurrent(thread)
                }
                if runsHere {
                    // A closure that runs here for another reason (no mode of its
                    // own in a stage on the posting thread, or a queue that is this
                    // one), called as above.
                    if receiver.isClosureReceiver {
                        unsafeDowncast(handler, to: ClosureReceiver<Payload>.self).run(value)
                        // Wrapping: a count of handlers called cannot overflow.
                        deliveries &+= 1
                        if stage.traced {
                            Tracing.emit(TraceRecord(kind: .delivered, event: eventName(), node: stage.nodeName))
                        }
                        return true
                    }
                    if receiver.receive(value, &propagation) {
                        // Wrapping: a count of handlers called cannot overflow.
                        deliveries &+= 1
                        if receiver.hopsToActor { scheduled &+= 1 }
                        if stage.traced {
                            // An actor's handler was only enqueued on its actor.
                            Tracing.emit(TraceRecord(kind: receiver.hopsToActor ? .scheduled : .delivered, event: eventName(), node: stage.nodeName))
                        }
                    } else {
                        orphans.append(handler)
                    }
                    return propagation.requestedStop != .immediately
                }
                // An owner already gone is purged here, whatever the mode: queuing an
                // empty delivery for it on every post would keep it forever.
                if receiver.isOrphaned {
                    orphans.append(handler)
                    return true
                }
                deliveries += 1
                scheduled += 1
                schedule(value, to: receiver, mode: receiver.delivery ?? stage.delivery, stage: stage)
                if stage.traced {
                    Tracing.emit(TraceRecord(kind: .scheduled, event: eventName(), node: stage.nodeName))
                }
                return true
            }
        }
        return propagation
    }

    /// Runs a stage's reformers on `value`, tracing each rewrite when the node is traced.
    static func reform<Payload: Sendable>(_ value: inout Payload, at stage: Stage, eventName: @autoclosure () -> String) {
        stage.withTable { table in
            HandlerTable.forEachReformer(of: table) { handler in
                let reformer = unsafeDowncast(handler, to: Reformer<Payload>.self)
                if stage.traced {
                    let before = String(describing: value)
                    reformer.reform(&value)
                    Tracing.emit(TraceRecord(kind: .reformed(from: before, to: String(describing: value)), event: eventName(), node: stage.nodeName))
                } else {
                    reformer.reform(&value)
                }
                return true
            }
        }
    }

    /// Hands `value` to a receiver on another thread or queue.
    @inline(never)
    static func schedule<Payload: Sendable>(_ value: Payload, to receiver: Receiver<Payload>, mode: DeliveryMode, stage: Stage) {
        let label = stage.label, nodeID = stage.nodeID
        mode.schedule {
            // A cancel that returned before this runs must win.
            guard receiver.isAttached else { return }
            var detached = Propagation()
            guard receiver.receive(value, &detached) else {
                // The owner went while the delivery was queued: purge it now.
                DominoNode.purge([receiver])
                return
            }
            if detached.isStopped {
                Diagnostics.emit(
                    .stopIgnored,
                    "A subscriber for \(receiver.handledName) at \(DominoNode.describe(label: label, id: nodeID)) was delivered on \(mode) and tried to stop propagation; the walk had already moved on, so the stop was ignored. To stop events, subscribe with `on: .postingThread`, or from main-actor code and post on the main thread."
                )
            }
        }
    }

    /// Walks the route for a request: reformers, then responders until one answers,
    /// then interceptors, node by node.
    ///
    /// The answer goes into `answer` (nil on entry), which only responders touch:
    /// the caller, `request(_:)`, is inlinable, so that the `R.Response?` it
    /// declares and returns is of a type known where it is compiled. Declared here,
    /// it cost every request a generic metadata look-up (measured: about 310
    /// instructions).
    @usableFromInline
    func ask<R: Request>(_ request: R, into answer: inout R.Response?) throws {
        let thread = ThreadState.current
        guard enterNesting(thread, what: "Requesting \(R.self)") else { return }
        defer { thread.pointee.nesting -= 1 }

        // The common request (one node with responders, no reformers or
        // interceptors there, not traced from its start) asks that stage without a
        // plan, as a post delivers (see `deliver(_:key:)`).
        let writes = thread.pointee.writes
        let found = collectLean(.of(R.self), thread: thread)
        guard let table = found.table else {
            if found.parity < 0 {
                return wentUnanswered(R.self, skippedAsync: 0, skippedElsewhere: 0, nodesVisited: found.visited, originTraced: false)
            }
            let plan = plan(from: thread.pointee.handover, key: .of(R.self), readParity: found.parity, thread: thread)
            return try ask(request, into: &answer, following: plan, thread: thread)
        }
        var stage = Stage(handlers: table, bits: found.bits)
        var second: Stage?
        if !found.isOnePlainStage {
            if found.reformsOrIntercepts {
                // Reformers and interceptors are the plan's walk's (a post's are
                // handled without one); the stages are pinned already.
                thread.pointee.handover = .pinned(stage, withSecond: found.twoStages, visited: found.visited)
                let plan = plan(from: thread.pointee.handover, key: .of(R.self), readParity: found.parity, thread: thread)
                return try ask(request, into: &answer, following: plan, thread: thread)
            }
            // Read before any responder runs: one that posts or requests in turn
            // may keep a second stage of its own there.
            second = thread.pointee.leanSecondStage
        }
        var tally = RequestTally()
        Self.askResponders(request, at: stage, writes: writes, thread: thread, into: &answer, tally: &tally)
        if let second, !tally.answered && tally.failure == nil {
            stage = second
            Self.askResponders(request, at: stage, writes: writes, thread: thread, into: &answer, tally: &tally)
        }
        tally.orphans.purge()
        GraphLock.unpin(thread.pointee.pins, parity: found.parity)
        if let failure = tally.failure { throw failure }
        if tally.answered {
            if stage.traced || tally.skippedElsewhere > 0 {
                noteAnswer(R.self, answer, at: stage, skippedElsewhere: tally.skippedElsewhere, originTraced: false, thread: thread)
            }
            return
        }
        wentUnanswered(R.self, skippedAsync: tally.skippedAsync, skippedElsewhere: tally.skippedElsewhere, nodesVisited: found.visited, originTraced: false)
    }

    /// What a request's walk keeps from one stage to the next.
    struct RequestTally {
        /// Responders whose owner was gone, purged once the walk ends.
        var orphans = Orphans()
        /// Async responders passed (only `try await request(_:)` waits for them).
        var skippedAsync = 0
        /// Responders passed because they answer only elsewhere.
        var skippedElsewhere = 0
        /// What a responder threw: the request ends with it. Not an `R.Failure?`,
        /// whose generic metadata an unspecialized walk would look up.
        var failure: (any Error)?
        /// True once a responder answered.
        var answered = false
    }

    /// Asks the responders of `stage` in turn, until one answers, fails or throws
    /// the request's failure.
    @inline(__always)
    static func askResponders<R: Request>(
        _ request: R, at stage: Stage, writes: Int, thread: UnsafeMutablePointer<ThreadState>,
        into answer: inout R.Response?, tally: inout RequestTally
    ) {
        stage.withTable { table in
            HandlerTable.forEachResponder(of: table) { handler in
                let responder = unsafeDowncast(handler, to: Responder<R>.self)
                if thread.pointee.writes != writes, !responder.isAttached { return true }
                if responder.answersAsynchronously {
                    tally.skippedAsync += 1
                    return true
                }
                let answering: Answering
                do {
                    answering = try responder.answer(request, into: &answer)
                } catch {
                    // The request's own failure ends it; any other error goes up
                    // the route from the responder's node, and the walk goes on.
                    if isFailure(error, of: R.self) {
                        tally.failure = error
                        return false
                    }
                    responder.reportThrown(error)
                    return true
                }
                switch answering {
                case .answered:
                    tally.answered = true
                    return false
                case .failed:
                    return false
                case .declined:
                    return true
                case .ownerGone:
                    tally.orphans.append(handler)
                    return true
                case .notHere:
                    tally.skippedElsewhere += 1
                    return true
                }
            }
        }
    }

    /// `ask` along a plan: every case (several stages, reformers, interceptors,
    /// groups, tracing from the start, routes that take the stripe).
    @inline(never)
    func ask<R: Request>(
        _ request: R, into answer: inout R.Response?, following plan: consuming Plan, thread: UnsafeMutablePointer<ThreadState>
    ) throws {
        var eventName: String { String(describing: R.self) }
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .requested, event: eventName, node: description))
            Signposts.begin(.request, id: ThreadState.signpostID(thread), "\(eventName) at \(description)")
        }
        var request = request
        var tally = RequestTally()
        defer { tally.orphans.purge() }

        let writes = plan.writes
        for index in 0..<plan.stages.count {
            let stage = plan.stages[index]
            if stage.withTable({ $0.hasReformers }) {
                Self.reform(&request, at: stage, eventName: eventName)
            }
            Self.askResponders(request, at: stage, writes: writes, thread: thread, into: &answer, tally: &tally)
            if let failure = tally.failure {
                if plan.originTraced { Signposts.end(.request, id: ThreadState.signpostID(thread), "failed at \(stage.nodeName)") }
                throw failure
            }
            if tally.answered {
                if stage.traced || tally.skippedElsewhere > 0 {
                    noteAnswer(R.self, answer, at: stage, skippedElsewhere: tally.skippedElsewhere, originTraced: plan.originTraced, thread: thread)
                }
                return
            }
            if plan.mayIntercept(at: index), Self.requestIntercepted(request, at: index, of: plan, eventName: eventName) {
                if plan.originTraced { Signposts.end(.request, id: ThreadState.signpostID(thread), "stopped at \(stage.nodeName) by an interceptor") }
                return
            }
        }
        wentUnanswered(R.self, skippedAsync: tally.skippedAsync, skippedElsewhere: tally.skippedElsewhere, nodesVisited: plan.nodesVisited, originTraced: plan.originTraced)
        if plan.originTraced { Signposts.end(.request, id: ThreadState.signpostID(thread), "unanswered") }
    }

    /// Traces an answer given at `stage` (a traced node), and reports responders
    /// passed because they answer only elsewhere. Out of line: most answers need
    /// neither.
    @inline(never)
    func noteAnswer<R: Request>(
        _ type: R.Type, _ answer: R.Response?, at stage: Stage, skippedElsewhere: Int, originTraced: Bool, thread: UnsafeMutablePointer<ThreadState>
    ) {
        if stage.traced {
            Tracing.emit(TraceRecord(kind: .answered(Self.describeAnswer(answer)), event: String(describing: R.self), node: stage.nodeName))
            if originTraced { Signposts.end(.request, id: ThreadState.signpostID(thread), "answered at \(stage.nodeName)") }
        }
        // The answer came from further up than it would have on another thread:
        // say so, or the difference goes unnoticed.
        if skippedElsewhere > 0 { reportSkippedElsewhere(R.self, skippedElsewhere, answeredAt: stage.nodeName) }
    }

    /// Ends a request of `type` that went unanswered past the responders it
    /// skipped: reports those, traces it and reports it when strict checks are on.
    @inline(never)
    func wentUnanswered<R: Request>(_ type: R.Type, skippedAsync: Int, skippedElsewhere: Int, nodesVisited: Int, originTraced: Bool) {
        if skippedAsync > 0 {
            Diagnostics.emit(.asyncResponderSkipped, "\(R.self) was requested synchronously at \(self) and went unanswered past \(skippedAsync) async responder(s), which only `try await request(_:)` waits for. Await the request, or give it a synchronous responder.")
        }
        if skippedElsewhere > 0 { reportSkippedElsewhere(R.self, skippedElsewhere, answeredAt: nil) }
        wentUnanswered(String(describing: R.self), nodesVisited: nodesVisited, originTraced: originTraced)
    }

    /// An answer as tracing shows it, out of line: only traced requests pay for the
    /// answer's type.
    @inline(never)
    static func describeAnswer<Response>(_ answer: Response?) -> String {
        answer.map { String(describing: $0) } ?? "nil"
    }

    /// True when `error` is `R`'s ``Request/Failure`` (never, for a request that
    /// cannot fail).
    @inline(never)
    static func isFailure<R: Request>(_ error: any Error, of type: R.Type) -> Bool {
        error is R.Failure
    }

    /// What a responder threw, as its request's `Failure` (checked by `isFailure`).
    @usableFromInline
    static func requestFailure<R: Request>(_ error: any Error, of type: R.Type) -> R.Failure {
        error as! R.Failure
    }

    /// Reports responders a synchronous request passed by because they answer only
    /// elsewhere, whether or not one further up answered.
    @inline(never)
    func reportSkippedElsewhere<R>(_ type: R.Type, _ count: Int, answeredAt node: String?) {
        let outcome = node.map { "was answered further up, at \($0)" } ?? "went unanswered"
        Diagnostics.emit(.isolatedResponderSkipped, "\(R.self) was requested synchronously at \(self) and \(outcome), past \(count) responder(s) that answer only elsewhere (a main-actor responder asked off the main thread, another actor's, or a queue's); request it there, or `try await request(_:)`, which goes to each.")
    }

    /// Runs the interceptors of stage `index` for a request; traces and returns true
    /// when one stopped it. Shared by every kind of request walk.
    static func requestIntercepted<Payload: Sendable>(_ value: Payload, at index: Int, of plan: borrowing Plan, eventName: @autoclosure () -> String) -> Bool {
        guard intercepts(value, at: index, of: plan) else { return false }
        let stage = plan.stages[index]
        if stage.traced {
            Tracing.emit(TraceRecord(kind: .stopped(.interceptor), event: eventName(), node: stage.nodeName))
        }
        return true
    }

    /// Ends a request walk nobody answered: traces it, and reports it when strict
    /// checks are on. Shared by every kind of request walk.
    func wentUnanswered(_ eventName: @autoclosure () -> String, plan: borrowing Plan) {
        wentUnanswered(eventName(), nodesVisited: plan.nodesVisited, originTraced: plan.originTraced)
    }

    /// `wentUnanswered(_:plan:)` for a walk of `nodesVisited` nodes, traced from
    /// its start when `originTraced`.
    func wentUnanswered(_ eventName: @autoclosure () -> String, nodesVisited: Int, originTraced: Bool) {
        if originTraced {
            Tracing.emit(TraceRecord(kind: .unanswered, event: eventName(), node: description))
        }
        if Diagnostics.reportsUnansweredRequests {
            Diagnostics.emit(.unansweredRequest, "\(eventName()) requested at \(self) reached the end of its route (\(nodesVisited) node(s)) without an answer. Give it a responder on that route, or turn off reportsUnansweredRequests if nil is expected here.")
        }
    }
}

/// The handlers a walk found orphaned (their owner gone), purged once it ends.
///
/// Nil until the first: a walk ending with an empty array released the empty
/// array's storage (measured: 18 instructions a post), where a nil costs a test.
struct Orphans {
    private var list: [Subscription]?

    /// Keeps a borrowed handler. A function of its own, so that only this rare path
    /// pays for the retain (see `HandlerTable.forEachBorrowed`).
    @inline(never)
    mutating func append(_ handler: Subscription) {
        if list == nil { list = [handler] } else { list!.append(handler) }
    }

    /// Detaches every kept handler (see `DominoNode.purge(_:)`); nothing when none.
    /// Mutating, and leaves `list` nil: the optimizer then knows that nothing is
    /// left to release when the walk ends (measured: a non-mutating purge left a
    /// `swift_release` of nil on every post: 393 to 380 instructions).
    @inline(__always)
    mutating func purge() {
        guard let list = list.take() else { return }
        DominoNode.purge(list)
    }
}
