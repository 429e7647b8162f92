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
    // The word a walk without a lock reads (`isRemoved`): first, so that its address
    // is a fixed offset from the object's (as a node's published words are), and
    // never accessed by name after init (an access by name is one the thread
    // sanitizer sees as a plain write racing with those readers). Bit 0 is set
    // once the handler left its node; the rest is `position`. One word for both,
    // because the fields before the subclasses' closure have no byte to spare: with
    // a word of its own, a handler with a closure would take 72 bytes (an 80-byte
    // block) rather than 64.
    @exclusivity(unchecked) private var stateBits: UInt32 = 0
    /// The low 32 bits of the graph lock's epoch when the handler was added to its
    /// node, under the exclusive lock: once removed, it waits only for walks that
    /// may have borrowed it (see `GraphLock`), as a table does. 32 bits, beside
    /// `stateBits`, so that the fields end before the subclasses' closure at 48
    /// bytes and a handler with a closure takes 64 (80 with the full word, which
    /// the allocator rounds to 96). The low bits can misjudge a handler retired
    /// exactly a multiple of 2^32 epochs after it was added as young, which only a
    /// walk pinned for four billion epochs could notice.
    @exclusivity(unchecked) var publishedEpoch: UInt32 = 0
    /// The node holding this handler; nil once the subscription ended.
    /// Guarded by `graphLock`; the node clears it under the exclusive lock in its
    /// deinit, so it never dangles.
    @exclusivity(unchecked) var home: NodeLink?
    /// Where notifications run; nil means the node's, else the global, default.
    let delivery: DeliveryMode?
    let role: HandlerRole
    /// `delivery` reduced to a byte, so that the hot path tests it without copying
    /// the enum (and retaining its queue).
    let runsOnPostingThread: Bool
    /// True when `delivery` is `.mainThread`: a byte that lets the walk run a
    /// main-actor handler in place on the main thread without copying the mode.
    let runsOnMainThread: Bool
    /// True when `delivery` is nil (the node's or global default applies).
    let inheritsDelivery: Bool
    /// True for async responders, which a synchronous request skips. Set once, in
    /// init. Here rather than in the generic `Responder<R>`, whose stored properties
    /// an unspecialized walk can only reach through a metadata look-up per call.
    var answersAsynchronously = false
    /// True for handlers written in another actor's code: the walk's call only
    /// enqueues them there, so it counts them as scheduled. Set once, in init.
    var hopsToActor = false

    /// Where `stateBits` is.
    @inline(__always)
    private var stateWord: UnsafeMutableRawPointer { firstStoredProperty(of: self) }

    /// Where the node's storage for its slot and role keeps this handler (see
    /// `HandlerList`): what makes removing it O(1). Written under the exclusive lock
    /// (atomically, beside the removal bit that walks read); 31 bits, so a storage
    /// would need two billion entries (16 GB of them) to run out.
    var position: UInt32 {
        get { AtomicWord.load32(stateWord) >> 1 }
        set { AtomicWord.storeReleasing32(stateWord, newValue &<< 1 | AtomicWord.load32(stateWord) & 1) }
    }

    /// True once the handler left its node (cancelled, removed, or its node gone): an
    /// acquiring load, safe for a walk that borrows the handler from a table it
    /// pinned. What a walk checks for a handler that a list holds alone (see
    /// `HandlerList`), where no storage entry carries the mark.
    @inline(__always)
    var isRemoved: Bool { AtomicWord.load32(stateWord) & 1 != 0 }

    /// Sets `isRemoved`. Exclusive lock held, when the handler leaves its node's
    /// table.
    func markRemoved() {
        AtomicWord.storeReleasing32(stateWord, AtomicWord.load32(stateWord) | 1)
    }

    /// True when `stateBits` sits where `stateWord` looks for it (a test's check: a
    /// field moved in front of it would make walks read another field's bits).
    var stateWordIsWhereReadersLook: Bool {
        let address = stateWord
        return withUnsafeMutablePointer(to: &stateBits) { UnsafeMutableRawPointer($0) == address }
    }

    init(role: HandlerRole, delivery: DeliveryMode?) {
        self.role = role
        self.delivery = delivery
        runsOnPostingThread = delivery?.isPostingThread ?? false
        if case .mainThread? = delivery { runsOnMainThread = true } else { runsOnMainThread = false }
        inheritsDelivery = delivery == nil
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
