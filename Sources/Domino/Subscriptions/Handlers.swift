/// The concrete handlers behind `Subscription`, one class per shape of closure.
///
/// A slot holds handlers of one payload type only (the slot key is the payload's
/// type, or an event name whose payload is always `NamedEvent`), which is what makes
/// the `unsafeDowncast`s in the walk sound.

/// Receives a notification (typed or named event).
class Receiver<Payload: Sendable>: Subscription, @unchecked Sendable {
    init(delivery: DeliveryMode?) {
        super.init(role: .subscriber, delivery: delivery)
    }

    override var payloadName: String { String(describing: Payload.self) }

    /// Delivers `value`; returns false when the owner is gone (the handler did not run).
    func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        preconditionFailure("abstract")
    }
}

final class ClosureReceiver<Payload: Sendable>: Receiver<Payload>, @unchecked Sendable {
    /// `Sendable` when the handler named a mode; else a main-actor handler's own
    /// closure (see `init(mainActor:)`).
    let body: (Payload) throws -> Void

    init(delivery: DeliveryMode?, body: @escaping @Sendable (Payload) throws -> Void) {
        self.body = body
        super.init(delivery: delivery)
        isClosureReceiver = true
    }

    /// A handler written in main-actor code, stored as written: its mode, the main
    /// thread, runs it in place only there and else on the main queue, which is
    /// why its closure need not be `Sendable` (see ``HandlerIsolation``). The
    /// general isolated receiver wrapped it in a closure of its own, called at each
    /// delivery (measured: a main-actor post 393 to 362 instructions).
    init(mainActor body: @escaping (Payload) throws -> Void) {
        self.body = body
        super.init(delivery: .mainThread)
        isClosureReceiver = true
    }

    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        run(value)
        return true
    }

    /// Runs the body with `value`: what a walk calls for a handler marked
    /// `isClosureReceiver`, in place of `receive`: a call through the class's
    /// table and a frame of its own, 15 to 19 instructions a handler (measured: a
    /// post 339 to 323, a raise at depth 10 2,434 to 2,223).
    @inline(__always)
    func run(_ value: Payload) {
        do { try body(value) } catch { reportThrown(error) }
    }
}

final class ControllingReceiver<Payload: Sendable>: Receiver<Payload>, @unchecked Sendable {
    /// As `ClosureReceiver.body`.
    let body: (Payload, inout Propagation) throws -> Void

    init(delivery: DeliveryMode?, body: @escaping @Sendable (Payload, inout Propagation) throws -> Void) {
        self.body = body
        super.init(delivery: delivery)
    }

    /// A handler written in main-actor code, stored as written (see
    /// `ClosureReceiver.init(mainActor:)`).
    init(mainActor body: @escaping (Payload, inout Propagation) throws -> Void) {
        self.body = body
        super.init(delivery: .mainThread)
    }

    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        do { try body(value, &propagation) } catch { reportThrown(error) }
        return true
    }
}

final class OwnedReceiver<Payload: Sendable, Owner: AnyObject & Sendable>: Receiver<Payload>, @unchecked Sendable {
    private let owner: OwnerReference
    /// As `ClosureReceiver.body`.
    let body: (Owner, Payload, inout Propagation) throws -> Void

    convenience init(delivery: DeliveryMode?, owner: Owner, body: @escaping @Sendable (Owner, Payload, inout Propagation) throws -> Void) {
        self.init(delivery, owner, body)
    }

    /// A handler written in main-actor code, stored as written (see
    /// `ClosureReceiver.init(mainActor:)`).
    convenience init(mainActor owner: Owner, body: @escaping (Owner, Payload, inout Propagation) throws -> Void) {
        self.init(.mainThread, owner, body)
    }

    private init(_ delivery: DeliveryMode?, _ owner: Owner, _ body: @escaping (Owner, Payload, inout Propagation) throws -> Void) {
        self.owner = OwnerReference(owner)
        self.body = body
        super.init(delivery: delivery)
        #if DEBUG
        InstanceTracker.track(owner, "owner \(type(of: owner))")
        #endif
    }

    override var isOrphaned: Bool { owner.isGone }
    override var boundObject: ObjectIdentifier? { owner.identity }
    override var boundObjectName: String { "\(Owner.self)" }

    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        // The strong reference keeps the owner alive for the whole call.
        guard let owner = owner.load(as: Owner.self) else { return false }
        do { try body(owner, value, &propagation) } catch { reportThrown(error) }
        return true
    }
}

/// Rewrites a value before the node's subscribers and the nodes further up see it.
final class Reformer<Payload: Sendable>: Subscription, @unchecked Sendable {
    let body: @Sendable (inout Payload) -> Void

    init(body: @escaping @Sendable (inout Payload) -> Void) {
        self.body = body
        super.init(role: .reformer, delivery: nil)
    }

    /// Calls `body` (a method for the reason `Interceptor.decide` is one).
    func reform(_ value: inout Payload) {
        body(&value)
    }

    override var payloadName: String { String(describing: Payload.self) }
}

/// Decides, after the node's subscribers ran, whether the value goes further up.
final class Interceptor<Payload: Sendable>: Subscription, @unchecked Sendable {
    let body: @Sendable (Payload) -> Interception

    init(body: @escaping @Sendable (Payload) -> Interception) {
        self.body = body
        super.init(role: .interceptor, delivery: nil)
    }

    /// Calls `body`. A method, so that the call borrows the closure from `self`
    /// (called through the property by a walk, its context was retained and
    /// released around each call: measured).
    func decide(_ value: Payload) -> Interception {
        body(value)
    }

    override var payloadName: String { String(describing: Payload.self) }
}

/// Answers a request; the first non-nil answer on the route wins.
class Responder<R: Request>: Subscription, @unchecked Sendable {
    /// A responder that answers on the requesting thread.
    init() {
        super.init(role: .responder, delivery: .postingThread)
    }

    /// A responder that answers only where `mode` runs (see `Answering.notHere`).
    init(mode: DeliveryMode) {
        super.init(role: .responder, delivery: mode)
    }

    override var payloadName: String { String(describing: R.self) }

    /// True when this responder may answer on the current thread: always on the
    /// posting thread's mode, else where its mode runs.
    @inline(__always)
    var answersHere: Bool {
        runsOnPostingThread || delivery.unsafelyUnwrapped.isCurrent(ThreadState.current)
    }

    /// Answers an awaited request that `answer(_:into:)` said it cannot answer here
    /// (`.notHere`): on its mode's queue or thread; isolated responders override it
    /// to answer in their isolation.
    func answerWhereItRuns(_ request: R) async -> DominoNode.RemoteAnswer<R.Response> {
        await withCheckedContinuation { continuation in
            delivery.unsafelyUnwrapped.schedule {
                var answer: R.Response?
                do {
                    let answering = try self.answer(request, into: &answer)
                    continuation.resume(returning: DominoNode.RemoteAnswer(answering: answering, response: answer))
                } catch {
                    continuation.resume(returning: DominoNode.RemoteAnswer(answering: .failed, response: nil, failure: error))
                }
            }
        }
    }

    /// Writes the answer (nil to decline) into `answer` and says which it was.
    ///
    /// An out-parameter and a plain outcome, rather than a `Response??` result or a
    /// nil test by the caller: an unspecialized walk pays a generic metadata look-up
    /// for each `Response?` it touches, and this method touches it anyway.
    func answer(_ request: R, into answer: inout R.Response?) throws -> Answering {
        preconditionFailure("abstract")
    }
}

/// What a responder did with a request.
enum Answering {
    /// It answered: the walk ends.
    case answered
    /// It declined (answered nil): the walk goes on.
    case declined
    /// Its owner is gone and it did not run: the walk goes on, and the responder is
    /// removed.
    case ownerGone
    /// It threw (its request's `Failure`): the request ends with that error.
    case failed
    /// It answers in another isolation or on another thread only (a main-actor
    /// responder, or one whose mode names a queue): a synchronous request from here
    /// passes it by, reported; an async request goes there.
    case notHere
}

/// A responder's closure as `respond` makes it where it is compiled (it is
/// inlinable): it writes the user's answer into the walk's `R.Response?` and says
/// whether it answered. Tested there, the optional is of a known type; tested in
/// this unspecialized code, it cost every answer a generic metadata look-up
/// (measured: about 310 instructions a request).
final class ClosureResponder<R: Request>: Responder<R>, @unchecked Sendable {
    /// Throws only `R.Failure` (see `respond(to:on:_:)`).
    let body: @Sendable (R, inout R.Response?) throws -> Bool

    init(mode: DeliveryMode, body: @escaping @Sendable (R, inout R.Response?) throws -> Bool) {
        self.body = body
        super.init(mode: mode)
    }

    override func answer(_ request: R, into answer: inout R.Response?) throws -> Answering {
        if !answersHere { return .notHere }
        return try body(request, &answer) ? .answered : .declined
    }
}

final class OwnedResponder<R: Request, Owner: AnyObject & Sendable>: Responder<R>, @unchecked Sendable {
    private let owner: OwnerReference
    /// Throws only `R.Failure` (see `ClosureResponder.body`).
    let body: @Sendable (Owner, R, inout R.Response?) throws -> Bool

    init(mode: DeliveryMode, owner: Owner, body: @escaping @Sendable (Owner, R, inout R.Response?) throws -> Bool) {
        self.owner = OwnerReference(owner)
        self.body = body
        super.init(mode: mode)
        #if DEBUG
        InstanceTracker.track(owner, "owner \(type(of: owner))")
        #endif
    }

    override var isOrphaned: Bool { owner.isGone }
    override var boundObject: ObjectIdentifier? { owner.identity }
    override var boundObjectName: String { "\(Owner.self)" }

    override func answer(_ request: R, into answer: inout R.Response?) throws -> Answering {
        if !answersHere { return .notHere }
        guard let owner = owner.load(as: Owner.self) else { return .ownerGone }
        return try body(owner, request, &answer) ? .answered : .declined
    }
}
