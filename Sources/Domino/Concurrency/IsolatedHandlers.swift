/// Handlers that run where they were written: the rule behind every `subscribe`,
/// `respond` and `route` that names no delivery mode.
///
/// A handler written in main-actor code (a `@MainActor` view controller, or any code
/// in a module whose default isolation is `MainActor`) runs on the main actor: in
/// place when the event is posted on the main thread, else enqueued on the main
/// queue in posting order. It may read and mutate main-actor state directly, with no
/// `MainActor.assumeIsolated` and no `Task`:
///
/// ```swift
/// @MainActor final class LikesViewController {
///     let domino = DominoNode(label: "likes")
///     var likes = 0
///
///     func viewDidLoad() {
///         domino.subscribe(PhotoLiked.self, owner: self) { controller, event in
///             controller.likes += event.count      // main-actor state, no warning
///         }
///     }
/// }
/// ```
///
/// A handler written in another actor's code runs on that actor, always enqueued
/// (a task per delivery). Nonisolated code names where its `@Sendable` handler runs
/// with `on:` (see ``DeliveryMode``); the compiler asks for it, because a handler
/// that is not `Sendable` must never run on another thread.
///
/// The caller's isolation is read from `#isolation`, so these calls compile only in
/// isolated code; never pass `isolation` yourself.
extension DominoNode {
    /// Subscribes a handler to events of type `E` posted here or below; it runs in
    /// the caller's isolation (on the main actor from main-actor code).
    ///
    /// ```swift
    /// domino.subscribe(ContentDidLoad.self) { event in
    ///     badge.count = event.itemCount
    /// }
    /// ```
    ///
    /// From nonisolated code, name a mode instead:
    /// ``subscribe(_:phase:on:_:)-(_,_,DeliveryMode?,(E)->Void)``.
    @discardableResult
    public func subscribe<E: Event>(
        _ type: E.Type,
        phase: Phase = .bubble,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (E) throws -> Void
    ) -> Subscription {
        add(isolatedReceiver(isolation, handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes a handler, run in the caller's isolation, that can stop the event
    /// (see ``Propagation``). A handler enqueued rather than run in place cannot
    /// stop the walk, which has moved on; that is reported.
    @discardableResult
    public func subscribe<E: Event>(
        _ type: E.Type,
        phase: Phase = .bubble,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (E, inout Propagation) throws -> Void
    ) -> Subscription {
        add(isolatedReceiver(isolation, handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes on behalf of `owner`, which is held weakly and passed to the
    /// handler, so there is no `[weak self]` dance; the subscription ends when the
    /// owner deallocates. The handler runs in the caller's isolation.
    ///
    /// ```swift
    /// domino.subscribe(ContentDidLoad.self, owner: self) { controller, event in
    ///     controller.itemCount = event.itemCount
    /// }
    /// ```
    @discardableResult
    public func subscribe<E: Event, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        phase: Phase = .bubble,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (Owner, E) throws -> Void
    ) -> Subscription {
        add(isolatedReceiver(isolation, owner: owner) { owner, event, _ in try handler(owner, event) }, for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes on behalf of `owner` with a handler, run in the caller's
    /// isolation, that can stop the event.
    @discardableResult
    public func subscribe<E: Event, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        phase: Phase = .bubble,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (Owner, E, inout Propagation) throws -> Void
    ) -> Subscription {
        add(isolatedReceiver(isolation, owner: owner, handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes on behalf of an actor, held weakly and passed to the handler as its
    /// isolated parameter: the handler runs on the actor, enqueued, and may use its
    /// state. Callable from anywhere.
    ///
    /// ```swift
    /// actor Tally {
    ///     let domino = DominoNode(label: "tally")
    ///     var total = 0
    ///
    ///     func start() {
    ///         domino.subscribe(Tick.self, owner: self) { tally, tick in
    ///             tally.total += tick.count      // the actor's state
    ///         }
    ///     }
    /// }
    /// ```
    @discardableResult
    public func subscribe<E: Event, Owner: Actor>(
        _ type: E.Type,
        owner: Owner,
        phase: Phase = .bubble,
        _ handler: @escaping @Sendable (isolated Owner, E) throws -> Void
    ) -> Subscription {
        add(ActorOwnedReceiver<E, Owner>(owner: owner, handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes to the named event `name` on behalf of an actor, passed to the
    /// handler as its isolated parameter (see
    /// ``subscribe(_:owner:phase:_:)-(E.Type,_,_,_)``).
    @discardableResult
    public func subscribe<Owner: Actor>(
        _ name: EventName,
        owner: Owner,
        phase: Phase = .bubble,
        _ handler: @escaping @Sendable (isolated Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        add(ActorOwnedReceiver<NamedEvent, Owner>(owner: owner, handler), for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Subscribes a handler, run in the caller's isolation, to the named event `name`.
    ///
    /// ```swift
    /// domino.subscribe("ContentViewControllerStatisticsEvent") { event in
    ///     statistics.record(event.value("msg", as: String.self))
    /// }
    /// ```
    @discardableResult
    public func subscribe(
        _ name: EventName,
        phase: Phase = .bubble,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (NamedEvent) throws -> Void
    ) -> Subscription {
        add(isolatedReceiver(isolation, handler), for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Subscribes a handler, run in the caller's isolation, to the named event
    /// `name` that can stop it.
    @discardableResult
    public func subscribe(
        _ name: EventName,
        phase: Phase = .bubble,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (NamedEvent, inout Propagation) throws -> Void
    ) -> Subscription {
        add(isolatedReceiver(isolation, handler), for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Subscribes to the named event `name` on behalf of `owner`, held weakly and
    /// passed in; the handler runs in the caller's isolation.
    @discardableResult
    public func subscribe<Owner: AnyObject & Sendable>(
        _ name: EventName,
        owner: Owner,
        phase: Phase = .bubble,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        add(isolatedReceiver(isolation, owner: owner) { owner, event, _ in try handler(owner, event) }, for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Routes named events to methods of `owner`, each run in the caller's isolation:
    /// the responder-chain blog's name-to-selector table for a view controller,
    /// checked by the compiler.
    ///
    /// ```swift
    /// domino.route([
    ///     "SelectLimit": FundViewController.didSelectLimit,
    ///     "SelectMinBuyAmount": FundViewController.didSelectMinBuyAmount,
    /// ], to: self)
    /// ```
    ///
    /// - Returns: One subscription per name, in the order of the names' raw values.
    @discardableResult
    public func route<Owner: AnyObject & Sendable>(
        _ routes: [EventName: (Owner) -> (NamedEvent) -> Void],
        to owner: Owner,
        isolation: isolated (any Actor) = #isolation
    ) -> [Subscription] {
        routes.sorted { $0.key.rawValue < $1.key.rawValue }.map { name, method in
            add(isolatedReceiver(isolation, owner: owner) { owner, event, _ in method(owner)(event) }, for: SlotKey.name(name.rawValue).in(.bubble))
        }
    }

    /// Registers a responder for requests of type `R` made here or below; it answers
    /// in the caller's isolation.
    ///
    /// A main-actor responder answers synchronous requests made on the main thread
    /// in place. A synchronous request from another thread passes it by (reported as
    /// ``Diagnostic/Code/isolatedResponderSkipped``); `try await request(_:)` hops to
    /// it from anywhere.
    ///
    /// ```swift
    /// domino.respond(to: FetchChannelID.self) { _ in channelID }
    /// ```
    @inlinable @discardableResult
    public func respond<R: Request>(
        to type: R.Type,
        isolation: isolated (any Actor) = #isolation,
        _ answer: @escaping (R) throws -> R.Response?
    ) -> Subscription {
        // Inlinable, so that the optional answer is tested where `R` is known (see
        // `ClosureResponder`).
        addResponder(to: type, isolation: isolation, owner: nil) { _, request, response in
            response = try answer(request)
            return response != nil
        }
    }

    /// The isolated `respond` forms with their closure made: registers it.
    @usableFromInline
    func addResponder<R: Request>(
        to type: R.Type,
        isolation: isolated (any Actor),
        owner: AnyObject?,
        _ answer: @escaping (AnyObject?, R, inout R.Response?) throws -> Bool
    ) -> Subscription {
        add(IsolatedResponder<R>(isolation: isolation, owner: owner, body: answer), for: .of(R.self))
    }

    /// Registers a responder on behalf of `owner`, held weakly and passed in; it
    /// answers in the caller's isolation (see ``respond(to:isolation:_:)``).
    ///
    /// ```swift
    /// domino.respond(to: FetchChannelID.self, owner: self) { controller, _ in
    ///     controller.channelID
    /// }
    /// ```
    @inlinable @discardableResult
    public func respond<R: Request, Owner: AnyObject & Sendable>(
        to type: R.Type,
        owner: Owner,
        isolation: isolated (any Actor) = #isolation,
        _ answer: @escaping (Owner, R) throws -> R.Response?
    ) -> Subscription {
        addResponder(to: type, isolation: isolation, owner: owner) { owner, request, response in
            response = try answer(unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self), request)
            return response != nil
        }
    }
}

/// The receiver of an owner-less handler written in code isolated to `isolation`:
/// a main-actor handler is stored as written, with the main thread as its mode (a
/// post on the main thread calls it without a closure around it); another actor's
/// goes through `IsolatedReceiver`, which enqueues it there.
private func isolatedReceiver<Payload: Sendable>(
    _ isolation: any Actor, _ handler: @escaping (Payload) throws -> Void
) -> Receiver<Payload> {
    if isolation === MainActor.shared { return ClosureReceiver(mainActor: handler) }
    return IsolatedReceiver(isolation: isolation, owner: nil) { _, event, _ in try handler(event) }
}

/// As `isolatedReceiver(_:_:)`, for a handler that can stop the event.
private func isolatedReceiver<Payload: Sendable>(
    _ isolation: any Actor, _ handler: @escaping (Payload, inout Propagation) throws -> Void
) -> Receiver<Payload> {
    if isolation === MainActor.shared { return ControllingReceiver(mainActor: handler) }
    return IsolatedReceiver(isolation: isolation, owner: nil) { _, event, propagation in try handler(event, &propagation) }
}

/// As `isolatedReceiver(_:_:)`, for a handler bound to `owner`: a main-actor one is
/// an `OwnedReceiver` on the main thread, which passes the owner as its type.
private func isolatedReceiver<Payload: Sendable, Owner: AnyObject & Sendable>(
    _ isolation: any Actor, owner: Owner, _ handler: @escaping (Owner, Payload, inout Propagation) throws -> Void
) -> Receiver<Payload> {
    if isolation === MainActor.shared { return OwnedReceiver(mainActor: owner, body: handler) }
    return IsolatedReceiver(isolation: isolation, owner: owner) { owner, event, propagation in
        try handler(unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self), event, &propagation)
    }
}

/// Where an isolated handler runs: the main actor, or another actor.
///
/// The handler's closure is not `Sendable`: it belongs to the isolation it was
/// written in, and is only ever called there. That is what makes storing it in a
/// `Sendable` table sound: the main-actor case runs only where `DeliveryMode.mainThread`
/// says the main actor runs (in place on the main thread, else on the main queue);
/// the other-actor case runs only inside a function isolated to that actor.
///
/// Another actor is held without keeping it alive (`WeakActor`): a handler does not
/// keep the actor whose code subscribed it alive (an actor that owns the node would
/// otherwise never go). Once the actor is gone, its handlers are orphans and are
/// removed.
enum HandlerIsolation {
    case mainActor
    case actor(WeakActor)

    init(_ isolation: any Actor) {
        self = isolation === MainActor.shared ? .mainActor : .actor(WeakActor(isolation))
    }

    /// The other actor, while it lives; nil for the main actor.
    var actor: (any Actor)? {
        if case .actor(let actor) = self { return actor.value }
        return nil
    }

    /// True when the handler's actor deallocated, so the handler can never run.
    var isGone: Bool {
        if case .actor(let actor) = self { return actor.isGone }
        return false
    }

    /// The mode that brings a handler to its isolation: the main thread, or the
    /// posting thread from which it enqueues a task on its actor.
    var delivery: DeliveryMode {
        if case .mainActor = self { return .mainThread }
        return .postingThread
    }
}

/// Where a handler that runs only in place lives (a protocol target, an error handler
/// that decides): `isolation` for one written in isolated code, else its mode.
extension Subscription {
    /// True when a caller on `thread`, isolated to `caller`, may run the handler: it is
    /// in the handler's isolation, or where the handler's mode runs.
    final func lives(in isolation: HandlerIsolation?, on thread: UnsafeMutablePointer<ThreadState>, caller: (any Actor)?) -> Bool {
        switch isolation {
        case .mainActor?: return DeliveryMode.mainThread.isCurrent(thread)
        case .actor(let actor)?: return caller.map { actor.refers(to: $0) } ?? false
        case nil: return runsOnPostingThread || delivery.unsafelyUnwrapped.isCurrent(thread)
        }
    }

    /// Enqueues `body` where a handler that lives in `isolation` (else on its mode)
    /// runs, passing it the isolation to walk on with there. False, and nothing
    /// enqueued, when that is an actor that is gone.
    final func move(to isolation: HandlerIsolation?, _ body: @escaping @Sendable ((any Actor)?) -> Void) -> Bool {
        switch isolation {
        case .mainActor?:
            // A main-actor job, not only a main-queue block: code there may rely on
            // the main actor's executor (isolated conformances, `assumeIsolated`).
            // Jobs enqueued from one thread keep their order, as on the main queue.
            Task { @MainActor in body(MainActor.shared) }
        case .actor(let weakActor)?:
            guard let actor = weakActor.value else { return false }
            Task { await runIsolated(on: actor) { body(actor) } }
        case nil:
            delivery.unsafelyUnwrapped.schedule { body(nil) }
        }
        return true
    }

    /// Where the handler lives, for diagnostics.
    final func placeName(of isolation: HandlerIsolation?) -> String {
        switch isolation {
        case .mainActor?: return "the main actor"
        case .actor(let actor)?: return "actor \(actor.typeName)"
        case nil:
            switch delivery.unsafelyUnwrapped {
            case .mainThread: return "the main thread"
            case .background: return "the background queue"
            case .postingThread: return "any thread"
            case .queue(let queue): return "queue \(queue.label)"
            case .operationQueue(let queue): return "operation queue \(queue.name ?? "unnamed")"
            }
        }
    }
}

/// An actor held without keeping it alive (see ``HandlerIsolation``): an
/// `UnownedReference`, on every platform (an actor is always a native Swift object).
/// A `weak` reference gave the actor a side table, and every call into it (the
/// app's own included) paid the runtime's slow path for its retains and releases. A
/// dead actor's memory (not its state) stays allocated until its handlers are
/// removed.
final class WeakActor: @unchecked Sendable {
    private let reference: UnownedReference
    // Read only while `reference` holds the actor alive: the copy is then a plain
    // retain.
    private unowned(unsafe) let object: any Actor
    /// The actor's type, for diagnostics after it is gone.
    let typeName: String

    init(_ actor: any Actor) {
        reference = UnownedReference(actor)
        object = actor
        typeName = "\(type(of: actor))"
    }

    /// The actor, retained, or nil once its deinit has begun. Out of line, as
    /// `isGone`: both serve deliveries that cost a task each, and inlined they grow
    /// the walks that test a handler's isolation (see `ErrorHandler.isOrphaned`).
    @inline(never)
    var value: (any Actor)? { reference.whileAlive { object } }

    /// True once the actor's deinit has begun.
    @inline(never)
    var isGone: Bool { reference.isGone }

    /// True when this refers to `actor` (alive, since the caller holds it). Loads
    /// nothing.
    func refers(to actor: any Actor) -> Bool {
        reference.refers(to: actor)
    }
}

/// Runs `body` isolated to `actor`. The closure is not `Sendable`; it is sent to
/// the one isolation it belongs to.
@usableFromInline
func runIsolated(on actor: isolated any Actor, _ body: () -> Void) {
    body()
}

/// A subscriber written in isolated code (see ``HandlerIsolation``).
final class IsolatedReceiver<Payload: Sendable>: Receiver<Payload>, @unchecked Sendable {
    /// Called only in `isolation`; the owner argument is non-nil for owner-bound ones.
    private let body: (AnyObject?, Payload, inout Propagation) throws -> Void
    private let owner: OwnerReference?
    private let isolation: HandlerIsolation

    init(isolation: any Actor, owner: AnyObject?, body: @escaping (AnyObject?, Payload, inout Propagation) throws -> Void) {
        self.isolation = HandlerIsolation(isolation)
        self.body = body
        self.owner = owner.map(OwnerReference.init)
        super.init(delivery: self.isolation.delivery)
        if case .actor = self.isolation { hopsToActor = true }
        #if DEBUG
        if let owner { InstanceTracker.track(owner, "owner \(type(of: owner))") }
        #endif
    }

    override var isOrphaned: Bool { owner?.isGone == true || isolation.isGone }
    override var boundObject: ObjectIdentifier? { owner?.identity }
    override var boundObjectName: String { owner?.load(as: AnyObject.self).map { "\(type(of: $0))" } ?? "An owner" }

    /// Runs the handler: called by the walk on the main thread for a main-actor
    /// handler (its mode is `.mainThread`); for another actor's handler, enqueues it
    /// there and returns at once.
    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        if owner == nil {
            // The common case, a closure: no owner to load, no isolation switch.
            if runsOnMainThread {
                do { try body(nil, value, &propagation) } catch { reportThrown(error) }
                return true
            }
            return enqueue(value)
        }
        // Read in place: a copy of the reference (`guard let owner`) is an unowned
        // retain and release on Linux (measured: about 170 instructions a post).
        // The strong reference keeps the owner alive for the whole call. Kept
        // optional, as the body takes it: unwrapped, it was retained once more to be
        // wrapped again for the call.
        let liveOwner: AnyObject? = owner?.load(as: AnyObject.self)
        if liveOwner == nil { return false }
        if runsOnMainThread {
            do { try body(liveOwner, value, &propagation) } catch { reportThrown(error) }
            return true
        }
        return enqueue(value)
    }

    /// Enqueues the handler in its isolation: a task on its actor. (A main-actor
    /// handler only gets here if the walk called it off the main thread, which its
    /// mode prevents; it then hops to the main queue rather than run in the wrong
    /// isolation.)
    private func enqueue(_ value: Payload) -> Bool {
        switch isolation {
        case .mainActor:
            DeliveryMode.mainThread.schedule { [self] in runIfStillAttached(value) }
        case .actor(let weakActor):
            guard let actor = weakActor.value else { return false }
            Task { [self] in
                await runIsolated(on: actor) { runIfStillAttached(value) }
            }
        }
        return true
    }

    /// Runs an enqueued delivery, in the handler's isolation.
    private func runIfStillAttached(_ value: Payload) {
        // A cancel that returned before this runs must win.
        guard isAttached else { return }
        let liveOwner = owner?.load(as: AnyObject.self)
        if owner != nil && liveOwner == nil { return }
        var detached = Propagation()
        do { try body(liveOwner, value, &detached) } catch { reportThrown(error, isolation: isolation.actor) }
    }
}

/// A subscriber owned by an actor: each delivery is a task that runs the handler on
/// the actor, which it receives as its isolated parameter.
final class ActorOwnedReceiver<Payload: Sendable, Owner: Actor>: Receiver<Payload>, @unchecked Sendable {
    private let owner: OwnerReference
    private let body: @Sendable (isolated Owner, Payload) throws -> Void

    init(owner: Owner, _ body: @escaping @Sendable (isolated Owner, Payload) throws -> Void) {
        self.owner = OwnerReference(owner)
        self.body = body
        super.init(delivery: .postingThread)
        hopsToActor = true
        #if DEBUG
        InstanceTracker.track(owner, "owner \(type(of: owner))")
        #endif
    }

    override var isOrphaned: Bool { owner.isGone }
    override var boundObject: ObjectIdentifier? { owner.identity }
    override var boundObjectName: String { "\(Owner.self)" }

    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        guard let owner = owner.load(as: Owner.self) else { return false }
        Task { [self] in await deliver(value, on: owner) }
        return true
    }

    private func deliver(_ value: Payload, on owner: isolated Owner) {
        // A cancel that returned before this runs must win.
        guard isAttached else { return }
        do { try body(owner, value) } catch { reportThrown(error, isolation: owner) }
    }
}

/// A responder written in isolated code (see ``HandlerIsolation``).
final class IsolatedResponder<R: Request>: Responder<R>, @unchecked Sendable {
    /// Throws only `R.Failure` (see `ClosureResponder.body`).
    private let body: (AnyObject?, R, inout R.Response?) throws -> Bool
    private let owner: OwnerReference?
    private let isolation: HandlerIsolation

    init(isolation: any Actor, owner: AnyObject?, body: @escaping (AnyObject?, R, inout R.Response?) throws -> Bool) {
        self.isolation = HandlerIsolation(isolation)
        self.body = body
        self.owner = owner.map(OwnerReference.init)
        super.init()
        #if DEBUG
        if let owner { InstanceTracker.track(owner, "owner \(type(of: owner))") }
        #endif
    }

    override var isOrphaned: Bool { owner?.isGone == true || isolation.isGone }
    override var boundObject: ObjectIdentifier? { owner?.identity }
    override var boundObjectName: String { owner?.load(as: AnyObject.self).map { "\(type(of: $0))" } ?? "An owner" }

    /// Answers in place when the caller is in the responder's isolation (the main
    /// thread for a main-actor responder); else says it cannot answer here.
    override func answer(_ request: R, into answer: inout R.Response?) throws -> Answering {
        guard case .mainActor = isolation, DeliveryMode.mainThread.isCurrent(ThreadState.current) else {
            return .notHere
        }
        return try answerHere(request, into: &answer)
    }

    /// Answers for an async request, in the responder's isolation.
    override func answerWhereItRuns(_ request: R) async -> DominoNode.RemoteAnswer<R.Response> {
        switch isolation {
        case .mainActor: return await answerOn(MainActor.shared, request)
        case .actor(let weakActor):
            guard let actor = weakActor.value else { return DominoNode.RemoteAnswer(answering: .ownerGone, response: nil) }
            return await answerOn(actor, request)
        }
    }

    private func answerOn(_ actor: isolated any Actor, _ request: R) -> DominoNode.RemoteAnswer<R.Response> {
        var answer: R.Response?
        do {
            let answering = try answerHere(request, into: &answer)
            return DominoNode.RemoteAnswer(answering: answering, response: answer)
        } catch {
            return DominoNode.RemoteAnswer(answering: .failed, response: nil, failure: error)
        }
    }

    /// Always inlined: a frame of its own under `answer`'s cost a main-actor request
    /// 14 instructions (two prologues and epilogues).
    @inline(__always)
    private func answerHere(_ request: R, into answer: inout R.Response?) throws -> Answering {
        // No owner: nothing loaded, nothing to release (an empty reference's release
        // is still a call).
        if owner == nil { return try body(nil, request, &answer) ? .answered : .declined }
        let liveOwner: AnyObject? = owner?.load(as: AnyObject.self)
        if liveOwner == nil { return .ownerGone }
        return try body(liveOwner, request, &answer) ? .answered : .declined
    }
}
