/// A handle on something registered at a node (a subscriber, a responder, a
/// reformer or an interceptor) or at a signal (a ``SignalSubscription``).
///
/// Subscriptions are attach-and-forget, as in Domino and Uber Signals: dropping the
/// handle does not end the subscription. It ends when you call ``cancel()``, when its
/// owner deallocates (for owner-bound subscriptions), when it is removed with
/// ``DominoNode/unsubscribe(_:)-(E.Type)`` or ``DominoNode/clearAllSubscribers()``, or when the node
/// deallocates.
///
/// ```swift
/// let subscription = node.subscribe(ContentDidLoad.self) { event in print(event) }
/// // ...
/// subscription.cancel()
/// ```
///
/// Node and signal handles share this type, so one collection keeps both and
/// cancels them alike:
///
/// ```swift
/// var subscriptions: [Subscription] = []
/// subscriptions.append(node.subscribe(ContentDidLoad.self, owner: self) { screen, _ in screen.reload() })
/// subscriptions.append(request.onProgress.subscribe(self) { screen, progress in screen.progress = progress })
/// subscriptions.forEach { $0.cancel() }
/// ```
public class Subscription: @unchecked Sendable, CustomStringConvertible {
    // What a handler is, packed so that a handler with a closure takes 48 bytes (a
    // 48-byte block where blocks are multiples of 16, as on Apple platforms; 64 with
    // glibc's 8-byte header): after the object's two-word header, two words (the
    // state and the epoch; the node, or a box of the node and a mode's queue), then
    // the closure's two. Each of a handler's one-byte facts as a field of its own
    // (and its mode as a `DeliveryMode?`) took it to 64 bytes; the queue as a word of
    // every handler, to 56.
    //
    // `stateBits` is first, so that its address is a fixed offset from the
    // object's (as a node's published words are), and never accessed by name after
    // init (an access by name is one the thread sanitizer sees as a plain write
    // racing with walks, which read it without a lock): bit 0 is `isRemoved`, bits
    // 1-2 `role`, bit 3 `answersAsynchronously`, bit 4 `hopsToActor`, bits 5-7 the
    // delivery mode's code (`DeliveryMode.Code`), bit 8 `isClosureReceiver`, bits
    // 9-31 `position`. Writers change it atomically, under the exclusive lock (or in
    // init, before it is shared).
    @exclusivity(unchecked) private var stateBits: UInt32 = 0
    /// The low 32 bits of the graph lock's epoch when the handler was added to its
    /// node, under the exclusive lock: once removed, it waits only for walks that
    /// may have borrowed it (see `GraphLock`), as a table does. 32 bits, beside
    /// `stateBits`, so that the two share one word. The low bits can misjudge
    /// a handler retired exactly a multiple of 2^32 epochs after it was added as
    /// young, which only a walk pinned for four billion epochs could notice.
    @exclusivity(unchecked) var publishedEpoch: UInt32 = 0
    /// `home`, and for a mode with a queue the queue, in one word. A handler whose
    /// mode has none keeps its node's address here (0 once ended); one whose mode has
    /// one keeps a `QueuedHome` here for its whole life (retained, tagged with bit 0),
    /// which holds both. So the word changes only for handlers without a queue, under
    /// the exclusive lock, and the queue, which walks read without a lock (only for a
    /// mode with a queue), sits in a box whose address never changes. Only those
    /// handlers pay for the box (a 32-byte object); every other handler saves a word.
    @exclusivity(unchecked) private var homeWord: UInt = 0

    /// A queue's mode and the handler's node, for `homeWord`.
    private final class QueuedHome {
        @exclusivity(unchecked) var home: NodeLink?
        let queue: AnyObject
        init(queue: AnyObject) { self.queue = queue }
    }

    /// The box `homeWord` points at; only when its bit 0 is set.
    @inline(__always)
    private var queuedHome: QueuedHome {
        Unmanaged<QueuedHome>.fromOpaque(UnsafeRawPointer(bitPattern: homeWord & ~1).unsafelyUnwrapped).takeUnretainedValue()
    }

    /// The node holding this handler; nil once the subscription ended.
    /// Guarded by `graphLock`; the node clears it under the exclusive lock in its
    /// deinit, so it never dangles.
    final var home: NodeLink? {
        get {
            if homeWord & 1 != 0 { return queuedHome.home }
            return UnsafeMutableRawPointer(bitPattern: homeWord).map(NodeLink.init(pointer:))
        }
        set {
            if homeWord & 1 != 0 {
                queuedHome.home = newValue
            } else {
                homeWord = newValue.map { UInt(bitPattern: $0.pointer) } ?? 0
            }
        }
    }

    private static let removedBit: UInt32 = 1
    private static let roleShift: UInt32 = 1
    private static let answersAsynchronouslyBit: UInt32 = 1 << 3
    private static let hopsToActorBit: UInt32 = 1 << 4
    private static let modeShift: UInt32 = 5
    private static let modeMask: UInt32 = 7 << modeShift
    private static let closureReceiverBit: UInt32 = 1 << 8
    private static let positionShift: UInt32 = 9
    /// The largest place `position` records: a place from here up is found by a
    /// scan of its storage (`HandlerStorage.place(of:)`), which only a list of 8
    /// million handlers (half a gigabyte of them) reaches.
    static let unrecordedPosition: UInt32 = (1 << 23) - 1

    /// Where `stateBits` is.
    @inline(__always)
    private var stateWord: UnsafeMutableRawPointer { firstStoredProperty(of: self) }

    /// `stateBits`, loaded atomically (acquiring).
    @inline(__always)
    private var state: UInt32 { AtomicWord.load32(stateWord) }

    /// Stores `state` with `bits` set. Exclusive lock held, or in init.
    private func setState(_ bits: UInt32) {
        AtomicWord.storeReleasing32(stateWord, state | bits)
    }

    /// Where the node's storage for its slot and role keeps this handler (see
    /// `HandlerList`): what makes removing it O(1). Written under the exclusive
    /// lock. A place of `unrecordedPosition` or more is recorded as
    /// `unrecordedPosition`, and the storage finds the handler by a scan.
    var position: UInt32 {
        get { state >> Self.positionShift }
        set {
            let place = min(newValue, Self.unrecordedPosition)
            AtomicWord.storeReleasing32(stateWord, place << Self.positionShift | state & (1 << Self.positionShift - 1))
        }
    }

    /// True once the handler left its node (cancelled, removed, or its node gone):
    /// safe for a walk that borrows the handler from a table it pinned. What a walk
    /// checks for a handler that a list holds alone (see `HandlerList`), where no
    /// storage entry carries the mark.
    @inline(__always)
    var isRemoved: Bool { state & Self.removedBit != 0 }

    /// Sets `isRemoved`. Exclusive lock held, when the handler leaves its node's
    /// table.
    func markRemoved() {
        setState(Self.removedBit)
    }

    /// When the handler runs during a walk.
    var role: HandlerRole {
        HandlerRole(rawValue: UInt8(truncatingIfNeeded: state >> Self.roleShift & 3)).unsafelyUnwrapped
    }

    /// The delivery mode's code.
    var modeCode: DeliveryMode.Code {
        DeliveryMode.Code(rawValue: state >> Self.modeShift & 7).unsafelyUnwrapped
    }

    /// True when the mode's code is `code`: one load, no mode built.
    @inline(__always)
    private func mode(is code: DeliveryMode.Code) -> Bool {
        state & Self.modeMask == code.rawValue << Self.modeShift
    }

    /// Where notifications run; nil means the node's, else the global, default. Reads
    /// `homeWord` only for a mode with a queue, whose word never changes after init.
    var delivery: DeliveryMode? {
        let code = modeCode
        return code.mode(queue: code.hasQueue ? queuedHome.queue : nil)
    }

    /// True when the mode is ``DeliveryMode/postingThread``: tested without building
    /// the mode (and retaining its queue).
    @inline(__always)
    var runsOnPostingThread: Bool { mode(is: .postingThread) }

    /// True when the mode is ``DeliveryMode/mainThread``: lets the walk run a
    /// main-actor handler in place on the main thread without building the mode.
    @inline(__always)
    var runsOnMainThread: Bool { mode(is: .mainThread) }

    /// True when a walk runs the handler in place, on this thread, without asking
    /// its mode's queue: its mode is the posting thread, or it has none and its
    /// stage's is the posting thread, or it is the main thread and `thread` (the
    /// walk's) is the main thread. One load of the state word for the three tests
    /// (a walk's every handler asks); the thread's flag loaded only for the third
    /// (measured: about one instruction a post). False leaves the queue's own test
    /// (`DeliveryMode.isCurrent`). (The tests as early returns, the posting thread's
    /// first, cost a raise at depth 10 88 instructions more: registers spilled.)
    @inline(__always)
    func runsInPlace(stageRunsOnPostingThread: Bool, thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        let bits = state & Self.modeMask
        return (bits == DeliveryMode.Code.inherits.rawValue << Self.modeShift && stageRunsOnPostingThread)
            || bits == DeliveryMode.Code.postingThread.rawValue << Self.modeShift
            || (bits == DeliveryMode.Code.mainThread.rawValue << Self.modeShift && thread.pointee.isMainThread)
    }

    /// True for a closure subscriber (`isClosureReceiver`), not removed, that runs
    /// in place on `thread`: its mode is the posting thread, or (on the main thread)
    /// the main thread. The common handler, which a walk calls itself, found by one
    /// mask and one compare with words of the thread's state
    /// (`ThreadState.inPlaceMask`), where `isRemoved`, `runsInPlace` and
    /// `isClosureReceiver` loaded the state word three times (it is loaded
    /// atomically, so the loads were not merged) and tested it five times. False
    /// leaves the handler to those tests (a handler without a mode of its own, in
    /// a stage whose mode is the posting thread, too).
    @inline(__always)
    func isClosureCalledInPlace(on thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        state & thread.pointee.inPlaceMask == thread.pointee.inPlaceBits
    }

    /// True for a handler, not removed, that runs in place on `thread` by its mode:
    /// `isClosureCalledInPlace(on:)` without the closure bit (owner-bound
    /// handlers). False leaves the handler to `isRemoved` and `runsInPlace`.
    @inline(__always)
    func runsInPlace(on thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        (state | Self.closureReceiverBit) & thread.pointee.inPlaceMask == thread.pointee.inPlaceBits
    }

    /// `ThreadState.inPlaceMask` and `inPlaceBits` for a thread: the removed
    /// bit, the closure bit and the mode's code, of which the main thread looks at
    /// the code's bits 0 and 2 only (its in-place codes, 1 and 3, are the codes
    /// with bit 0 set but 5, the operation queue's). Wrong codes would call a
    /// handler on a thread its mode does not allow: a test (`LockFreeReadTests`)
    /// checks every mode, removed or not, closure or not, on both threads.
    static func inPlaceTest(onMainThread: Bool) -> (mask: UInt32, bits: UInt32) {
        let posting = DeliveryMode.Code.postingThread.rawValue << modeShift
        let main = DeliveryMode.Code.mainThread.rawValue << modeShift
        guard onMainThread else { return (removedBit | closureReceiverBit | modeMask, closureReceiverBit | posting) }
        let codeBits: UInt32 = (1 | 4) << modeShift
        assert(posting & codeBits == main & codeBits, "the main thread's in-place codes must agree in bits 0 and 2")
        return (removedBit | closureReceiverBit | codeBits, closureReceiverBit | main & codeBits)
    }

    /// True for async responders, which a synchronous request skips. Set once, in
    /// init. Here rather than in the generic `Responder<R>`, whose stored properties
    /// an unspecialized walk can only reach through a metadata look-up per call.
    var answersAsynchronously: Bool {
        get { state & Self.answersAsynchronouslyBit != 0 }
        set { if newValue { setState(Self.answersAsynchronouslyBit) } }
    }

    /// True for handlers written in another actor's code: the walk's call only
    /// enqueues them there, so it counts them as scheduled. Set once, in init.
    var hopsToActor: Bool {
        get { state & Self.hopsToActorBit != 0 }
        set { if newValue { setState(Self.hopsToActorBit) } }
    }

    /// True for a `ClosureReceiver`, whose body a walk calls itself rather than
    /// through `Receiver.receive` (see `DominoNode.notify`). Set once, in init.
    @inline(__always)
    var isClosureReceiver: Bool {
        get { state & Self.closureReceiverBit != 0 }
        set { if newValue { setState(Self.closureReceiverBit) } }
    }

    /// True when `stateBits` sits where `stateWord` looks for it (a test's check: a
    /// field moved in front of it would make walks read another field's bits).
    var stateWordIsWhereReadersLook: Bool {
        let address = stateWord
        return withUnsafeMutablePointer(to: &stateBits) { UnsafeMutableRawPointer($0) == address }
    }

    init(role: HandlerRole, delivery: DeliveryMode?) {
        if let queue = delivery?.queueObject {
            homeWord = UInt(bitPattern: Unmanaged.passRetained(QueuedHome(queue: queue)).toOpaque()) | 1
        }
        stateBits = UInt32(role.rawValue) << Self.roleShift | DeliveryMode.Code(delivery).rawValue << Self.modeShift
    }

    deinit {
        if homeWord & 1 != 0 { Unmanaged.passUnretained(queuedHome).release() }
    }

    /// The handled type's name. The slot key is not stored (it would cost every
    /// subscription a few more bytes); a named handler's name is found in its node's
    /// table when needed (see `handledName`).
    var payloadName: String { preconditionFailure("abstract") }

    /// What this handler handles, for descriptions: the type, or the quoted event name.
    var handledName: String {
        let key = graphLock.withShared { home?.withNode { $0.slotKeyLocked(of: self) } }
        return key?.displayName(typeName: payloadName) ?? payloadName
    }

    /// True for owner-bound handlers whose owner is gone.
    var isOrphaned: Bool { false }

    /// The identity of the object this handler is bound to (its owner, or its
    /// protocol target), for the duplicate check; nil for a handler bound to none.
    /// Kept by the subclasses that have one, taken when the object was alive.
    var boundObject: ObjectIdentifier? { nil }

    /// How diagnostics name the bound object: its type. Outside the lock.
    var boundObjectName: String { "a handler" }

    /// Reports an error its handler threw up the route from the handler's node, as
    /// ``DominoNode/report(_:isolation:)`` does; the event goes on as it would have.
    /// A handler whose node is gone has no route: its error is reported as
    /// ``Diagnostic/Code/unhandledError``.
    @inline(never)
    final func reportThrown(_ error: any Error, isolation: (any Actor)? = nil) {
        let node = graphLock.withShared { home?.withNode { $0 } }
        guard let node else {
            Diagnostics.emit(
                .unhandledError,
                "\(DominoNode.errorName(error)) was thrown by a handler for \(payloadName) whose node is gone, so it has no route to go up. Catch it in the handler."
            )
            return
        }
        node.reportError(error, from: isolation)
    }

    /// Called once the subscription ended (cancelled, removed, or its node gone),
    /// after the lock is dropped. Streams finish here.
    func didEnd() {}

    /// Ends the subscription.
    ///
    /// After `cancel()` returns, no post, request or delivery that starts afterwards
    /// reaches the handler, on any thread. A delivery already queued for the
    /// handler's queue, thread or actor checks, when its turn comes, that the
    /// subscription is still active, and is dropped if its turn comes after the
    /// cancel.
    ///
    /// What `cancel()` does not stop is a call already under way on another thread:
    /// a post that collected its handlers before the cancel, or a queued delivery
    /// that made its check before it, may still call the handler, even just after
    /// `cancel()` returns. It does not wait for them, because waiting for a handler
    /// that is itself waiting for the cancelling thread would deadlock. Cancelled on
    /// the serial queue or actor where the handler runs (the main thread for a
    /// main-actor or ``DeliveryMode/mainThread`` handler), nothing can be under way
    /// there: no call to the handler starts after `cancel()` returns.
    ///
    /// Calling it again, or from inside the handler itself, is harmless.
    public func cancel() {
        graphLock.withExclusive { graveyard in
            detachLocked(&graveyard)
        }
    }

    /// True until the subscription ends (cancelled, removed, its node or its owner
    /// gone).
    public var isActive: Bool {
        // The owner is checked outside the lock: loading a weak reference may release
        // the last strong one, and the owner's deinit may use Domino.
        isAttached && !isOrphaned
    }

    /// True while the subscription is registered at a node.
    var isAttached: Bool {
        graphLock.withShared { home != nil }
    }

    /// Removes self from its node. Exclusive lock held.
    func detachLocked(_ graveyard: inout Graveyard) {
        home?.withNode { $0.removeLocked(self, graveyard: &graveyard) }
    }

    /// What the handler is for and where it lives, or `<ended>`.
    public var description: String {
        let label = graphLock.withShared { home?.withNode { $0.description } }
        return "Subscription(\(role) for \(handledName) at \(label ?? "<ended>"))"
    }
}
