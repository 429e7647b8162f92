import Foundation
internal import _DominoShims

/// Per-thread bookkeeping, reached through a C thread-local word (`_DominoShims`): one
/// load per post, where `pthread_getspecific` and its key's lazy global cost about 28
/// instructions.
///
/// It is plain memory (not a class) so that reaching it costs no reference counting.
/// Only the owning thread ever reads or writes it.
struct ThreadState {
    /// Which stripe of `graphLock` this thread reads under.
    let stripe: Int
    /// This thread's pin record (`GraphLock.takePinRecord`): the counts its walks
    /// pin and unpin, which only this thread writes. Given back when it exits.
    let pins: UnsafeMutableRawPointer
    /// Cached, because Foundation's `Thread.isMainThread` costs hundreds of ns on Linux.
    let isMainThread: Bool
    /// What a walk's delivery on this thread tests a handler's state word with to
    /// call it in place (`Subscription.isClosureCalledInPlace(on:)`): the bits to
    /// look at, and what a closure subscriber that runs here has there. Fixed by
    /// `isMainThread`: the main thread runs main-actor handlers in place too.
    let inPlaceMask: UInt32
    /// See `inPlaceMask`.
    let inPlaceBits: UInt32
    /// How many posts and requests are nested on this thread right now.
    var nesting: Int
    /// How many exclusive (writing) sections this thread has run. A walk compares it
    /// with its value at collection time: when a handler on this thread changed the
    /// graph (cancelled a handler the walk still holds, for example), the walk
    /// re-checks each remaining handler before calling it.
    var writes: Int = 0
    /// Space for walks down, kept between them (see `DownScratch`); nil while a walk
    /// down on this thread uses it.
    var downScratch: DownScratch?
    /// The last walk down on this thread that found, without the stripe, a stage
    /// that is not plain (see `DominoNode.deliverDown`): the same walk next collects
    /// under its stripe at once, rather than collect the tree twice.
    var downNotPlain = DownHint()
    /// How many times this thread read a responder's `nextDominoResponder` to
    /// resolve a node's successor: what tests count to show that a refresh or a post
    /// reads each link once rather than the whole chain again.
    var responderReads: Int = 0
    /// How many times this thread resolved a node's successor (looked up the node of
    /// each responder read): what tests count to show that a walk along links that
    /// did not change only checks them (see `ChainCensus`).
    var responderResolutions: Int = 0
    /// The censuses of the links of this thread's last walks up through responder
    /// nodes, kept for the walks up after them while their routes and the links
    /// stay the same: they then check the chains without taking anything of the
    /// links under the lock. Hold no responder alive.
    var routeCensuses = RouteCensuses()
    /// The nodes of the stages after the first that a walk without a lock
    /// collected (see `DominoNode.collectPublished`): kept between walks, so that
    /// it allocates nothing in steady state. Only used between a collection and its
    /// check, where no user code runs. A node per stage of the longest walk the
    /// thread has made, never shrunk: each walk overwrites from the start
    /// (`ScratchList.set(_:at:)`).
    var stageNodes = ScratchList<NodeLink>()
    /// Where this thread's last post or request without a plan handed its walk over
    /// (see `DominoNode.collectLean`): written only when one does, read by the plan
    /// that takes the walk over.
    var handover: DominoNode.Handover = .start
    /// The second stage of a post or request whose walk without a plan kept two
    /// (see `DominoNode.collectLean(_:secondStage:…)`): written by that walk, read by
    /// the post or request before any handler runs, or by the plan it hands over to.
    /// Stale otherwise, never read then (it holds no reference).
    var leanSecondStage: Stage?
    /// Memory for the stages after the first of a plan (`StageList`), kept between
    /// walks so that a walk whose plan has two stages or more allocates nothing in
    /// steady state: a list takes a spare when it first needs room and gives it back when
    /// its plan ends. Two, so that a handler's own post (one level of nesting) finds
    /// one too; a plan ended while both are full frees its memory.
    var spareStages = ScratchList<Stage>()
    var spareStagesNested = ScratchList<Stage>()
    /// How many times a walk down on this thread took a census of every responder
    /// node's link (see `ChainCensus`): what tests count to show that walks while
    /// no link changes share one. Last, so that adding it moved no field a post
    /// reads.
    var censusesTaken: Int = 0
    /// The responder nodes of a walk up, in route order, gathered under its stripe
    /// to compare with `routeCensus` (see `DominoNode.collectAlongKnownChains`):
    /// kept between walks so that they allocate nothing. Used only under the lock,
    /// where no user code runs.
    var routeNodes = ScratchList<NodeLink>()
    /// How many times a walk up on this thread took a census of its route's links
    /// (see `routeCensus`): what tests count to show that walks along the same route
    /// while no link changes share one.
    var routeCensusesTaken: Int = 0
    /// How many walks down on this thread went along plans (`DominoNode.
    /// deliverDownLocked`): what tests count to show which walks go without them.
    var walksDownAlongPlans: Int = 0
    /// How many times this thread wrote a responder node's link
    /// (`ResponderRegistry.linksWritten`): a walk down that resolved links counts its
    /// own writes, to tell whether another thread wrote one before it collects (see
    /// `DominoNode.refreshEveryResponderChain()`).
    var linkWrites: Int = 0

    /// Counts one more post, request or signal fire nested on this thread; beyond
    /// ``DominoNode/maximumNestingDepth`` reports the runaway about `what` and
    /// returns false instead (the caller drops it). The caller that got true
    /// decrements `nesting` when it ends.
    @inline(__always)
    static func enterNesting(_ thread: UnsafeMutablePointer<ThreadState>, _ what: @autoclosure () -> String) -> Bool {
        if thread.pointee.nesting >= DominoNode.maximumNestingDepth {
            Diagnostics.emit(
                .nestingLimitExceeded,
                "\(what()) is nested \(DominoNode.maximumNestingDepth) levels deep on one thread (a handler posting, or an observer firing, recursively?); it was dropped. Make the handler post only when something changed, not each time it is called."
            )
            return false
        }
        thread.pointee.nesting += 1
        return true
    }

    /// The address of `thread`'s nesting count: valid as long as the thread runs.
    @inline(__always)
    static func nestingCount(_ thread: UnsafeMutablePointer<ThreadState>) -> UnsafeMutablePointer<Int> {
        (UnsafeMutableRawPointer(thread) + MemoryLayout<ThreadState>.offset(of: \.nesting)!)
            .assumingMemoryBound(to: Int.self)
    }

    /// The address of `thread`'s `downScratch`, for a walk down that gives its
    /// scratch back into the empty field (see `DownScratch.giveBack`).
    @inline(__always)
    static func downScratchField(_ thread: UnsafeMutablePointer<ThreadState>) -> UnsafeMutablePointer<DownScratch?> {
        (UnsafeMutableRawPointer(thread) + MemoryLayout<ThreadState>.offset(of: \.downScratch)!)
            .assumingMemoryBound(to: DownScratch?.self)
    }

    /// The signpost ID of the post, request or fire running at the current nesting
    /// level of the thread whose nesting count is at `nesting`: its address and the
    /// level. Intervals open at the same time never share one (one thread's nest at
    /// different levels), so the end computes it again instead of keeping it.
    /// Never 0 (the level is at least 1) nor one of the reserved IDs (addresses
    /// stay below 2^56).
    static func signpostID(nesting: UnsafeMutablePointer<Int>) -> UInt64 {
        UInt64(UInt(bitPattern: nesting)) << 8 | UInt64(truncatingIfNeeded: nesting.pointee)
    }

    /// `signpostID(nesting:)` of `thread`.
    static func signpostID(_ thread: UnsafeMutablePointer<ThreadState>) -> UInt64 {
        signpostID(nesting: nestingCount(thread))
    }

    /// A spare list for a plan's stages after the first (see `spareStages`), or an
    /// empty list when this thread has none left.
    @inline(never)
    static func takeSpareStages() -> ScratchList<Stage> {
        let thread = current
        var spare: ScratchList<Stage>
        if thread.pointee.spareStages.capacity > 0 {
            spare = thread.pointee.spareStages
            thread.pointee.spareStages = ScratchList()
        } else {
            spare = thread.pointee.spareStagesNested
            thread.pointee.spareStagesNested = ScratchList()
        }
        spare.removeAll()
        return spare
    }

    /// Keeps `stages`' memory (its list ended) for a later plan on this thread, or
    /// frees it when both spares are taken.
    @inline(never)
    static func keepSpareStages(_ stages: ScratchList<Stage>) {
        let thread = current
        if thread.pointee.spareStages.capacity == 0 {
            thread.pointee.spareStages = stages
        } else if thread.pointee.spareStagesNested.capacity == 0 {
            thread.pointee.spareStagesNested = stages
        } else {
            stages.deallocate()
        }
    }

    /// A pthread key used only for its destructor, which frees a thread's state when
    /// the thread exits; walks read the state through the thread-local word. The
    /// destructor clears that word too, so that a post from another key's destructor
    /// afterwards makes a new state (registered again, freed in the next round of
    /// destructors) instead of using freed memory.
    private static let exitDestructor = ThreadLocalSlot { pointer in
        _domino_thread_state_set(nil)
        let state = pointer.assumingMemoryBound(to: ThreadState.self)
        GraphLock.giveBackPinRecord(state.pointee.pins)
        state.pointee.stageNodes.deallocate()
        state.pointee.routeNodes.deallocate()
        state.pointee.spareStages.deallocate()
        state.pointee.spareStagesNested.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    private static let nextStripe = Mutex(0)

    /// This thread's state, or nil before its first walk or fire (see `current`).
    @inline(__always)
    static var currentIfMade: UnsafeMutablePointer<ThreadState>? {
        _domino_thread_state_get()?.assumingMemoryBound(to: ThreadState.self)
    }

    @inline(__always)
    static var current: UnsafeMutablePointer<ThreadState> {
        currentIfMade ?? makeCurrent()
    }

    /// A thread's state: its stripe, its pin record, and whether it is the main
    /// thread.
    init(stripe: Int, pins: UnsafeMutableRawPointer, isMainThread: Bool, nesting: Int) {
        self.stripe = stripe
        self.pins = pins
        self.isMainThread = isMainThread
        (inPlaceMask, inPlaceBits) = Subscription.inPlaceTest(onMainThread: isMainThread)
        self.nesting = nesting
    }

    @inline(never)
    private static func makeCurrent() -> UnsafeMutablePointer<ThreadState> {
        // Round-robin keeps the first `stripeCount` threads on private stripes.
        let stripe = nextStripe.withLock { next in
            defer { next = (next + 1) % GraphLock.stripeCount }
            return next
        }
        let state = UnsafeMutablePointer<ThreadState>.allocate(capacity: 1)
        state.initialize(to: ThreadState(stripe: stripe, pins: GraphLock.takePinRecord(), isMainThread: Thread.isMainThread, nesting: 0))
        exitDestructor.set(UnsafeMutableRawPointer(state))
        _domino_thread_state_set(UnsafeMutableRawPointer(state))
        return state
    }
}
