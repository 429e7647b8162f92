/// Handling reported errors: the forms of `handle`, `receive`, `transform` and
/// `catch`. Each has an isolated form, written without a mode, whose closure runs in
/// the caller's isolation (on the main actor from main-actor code), and a form for
/// nonisolated code that names where its `@Sendable` closure may run with `on:`.
extension DominoNode {
    /// Handles errors of type `F` reported here or below: the error goes no further.
    /// The handler runs in the caller's isolation (on the main actor from main-actor
    /// code), in place when the error is reported there, else enqueued there; the
    /// error counts as handled either way.
    ///
    /// ```swift
    /// domino.handle(NetworkError.self) { error in
    ///     banner.show(error.message)
    /// }
    /// domino.handle((any Error).self) { error in log(error) }   // every error
    /// ```
    @discardableResult
    public func handle<F: Error>(
        _ type: F.Type,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (F) -> Void
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "handle", isolation: HandlerIsolation(isolation)) { error in
            handler(error)
            return .handled
        })
    }

    /// Handles errors of type `F` on behalf of `owner`, which is held weakly and passed
    /// to the handler; the handler runs in the caller's isolation. Once the owner is
    /// gone the handler is removed, and errors pass it by.
    ///
    /// ```swift
    /// domino.handle(NetworkError.self, owner: self) { controller, error in
    ///     controller.showBanner(error.message)
    /// }
    /// ```
    @discardableResult
    public func handle<F: Error, Owner: AnyObject & Sendable>(
        _ type: F.Type,
        owner: Owner,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (Owner, F) -> Void
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "handle", isolation: HandlerIsolation(isolation), owner: owner) { [reference = OwnerReference(owner)] error in
            guard let owner = reference.load(as: Owner.self) else { return .passed }
            handler(owner, error)
            return .handled
        })
    }

    /// Handles errors of type `F` with a `@Sendable` handler that runs on `mode`, from
    /// nonisolated code; the error counts as handled wherever the handler runs.
    @discardableResult
    public func handle<F: Error>(
        _ type: F.Type,
        on mode: DeliveryMode,
        _ handler: @escaping @Sendable (F) -> Void
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "handle", mode: mode) { error in
            handler(error)
            return .handled
        })
    }

    /// Handles errors of type `F` on behalf of a `Sendable` owner, held weakly, with a
    /// `@Sendable` handler that runs on `mode`.
    @discardableResult
    public func handle<F: Error, Owner: AnyObject & Sendable>(
        _ type: F.Type,
        owner: Owner,
        on mode: DeliveryMode,
        _ handler: @escaping @Sendable (Owner, F) -> Void
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "handle", mode: mode, owner: owner) { [reference = OwnerReference(owner)] error in
            guard let owner = reference.load(as: Owner.self) else { return .passed }
            handler(owner, error)
            return .handled
        })
    }

    /// Receives errors of type `F` and decides: ``ErrorHandling/handled`` stops the
    /// error, ``ErrorHandling/notHandled`` lets it go on up. The handler runs in
    /// the caller's isolation: an error reported elsewhere moves there, and its walk
    /// goes on from this handler (see ``report(_:isolation:)``).
    ///
    /// ```swift
    /// domino.receive(NetworkError.self) { error in
    ///     error.isRetryable ? .handled : .notHandled
    /// }
    /// ```
    @discardableResult
    public func receive<F: Error>(
        _ type: F.Type,
        isolation: isolated (any Actor) = #isolation,
        _ handler: @escaping (F) -> ErrorHandling
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "receive", isolation: HandlerIsolation(isolation), decides: true) { error in
            handler(error) == .handled ? .handled : .passed
        })
    }

    /// Receives errors of type `F` with a `@Sendable` handler that decides where `mode`
    /// runs: an error reported elsewhere moves there (never, for
    /// ``DeliveryMode/postingThread``), and its walk goes on from this handler.
    @discardableResult
    public func receive<F: Error>(
        _ type: F.Type,
        on mode: DeliveryMode,
        _ handler: @escaping @Sendable (F) -> ErrorHandling
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "receive", mode: mode, decides: true) { error in
            handler(error) == .handled ? .handled : .passed
        })
    }

    /// Transforms errors of type `F` into another error, which the handlers after this
    /// one and the nodes above see instead. Runs in the caller's isolation, where the
    /// walk moves if need be, as for ``receive(_:isolation:_:)``.
    ///
    /// ```swift
    /// domino.transform(URLError.self) { error in
    ///     NetworkError(message: error.localizedDescription)
    /// }
    /// ```
    @discardableResult
    public func transform<F: Error>(
        _ type: F.Type,
        isolation: isolated (any Actor) = #isolation,
        _ transform: @escaping (F) -> any Error
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "transform", isolation: HandlerIsolation(isolation), decides: true) { error in
            .transformed(transform(error))
        })
    }

    /// Transforms errors of type `F` with a `@Sendable` closure that runs where `mode`
    /// runs.
    @discardableResult
    public func transform<F: Error>(
        _ type: F.Type,
        on mode: DeliveryMode,
        _ transform: @escaping @Sendable (F) -> any Error
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "transform", mode: mode, decides: true) { error in
            .transformed(transform(error))
        })
    }

    /// Catches errors of type `F` into an event: the error is handled, and the event
    /// the closure returns is posted from this node (its own subscribers first, then
    /// up the route). Runs in the caller's isolation, where the walk moves if need
    /// be, as for ``receive(_:isolation:_:)``.
    ///
    /// ```swift
    /// domino.catch(NetworkError.self) { error in
    ///     ShowBanner(text: error.message)
    /// }
    /// ```
    @discardableResult
    public func `catch`<F: Error, E: Event>(
        _ type: F.Type,
        isolation: isolated (any Actor) = #isolation,
        _ convert: @escaping (F) -> E
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "catch", isolation: HandlerIsolation(isolation), decides: true) { [weak self] error in
            let event = convert(error)
            self?.post(event)
            return .caught(CaughtEvent(event))
        })
    }

    /// Catches errors of type `F` into an event with a `@Sendable` closure that runs
    /// where `mode` runs; the event is posted from this node.
    @discardableResult
    public func `catch`<F: Error, E: Event>(
        _ type: F.Type,
        on mode: DeliveryMode,
        _ convert: @escaping @Sendable (F) -> E
    ) -> Subscription {
        addErrorHandler(ErrorHandler(F.self, kind: "catch", mode: mode, decides: true) { [weak self] error in
            let event = convert(error)
            self?.post(event)
            return .caught(CaughtEvent(event))
        })
    }

    private func addErrorHandler(_ handler: ErrorHandler) -> Subscription {
        add(handler, for: .of(ReportedErrors.self))
    }
}

/// One error handler: the type it takes, where it lives, and what it does.
///
/// Invariant (for `@unchecked Sendable`): `body` is called only where the handler
/// lives (see `livesHere`), or enqueued there by `handle(_:thread:isolation:)`; it is
/// not `Sendable` for isolated handlers, which belong to one isolation.
final class ErrorHandler: Subscription, @unchecked Sendable {
    /// Called only with an error the handler takes (see `takes`).
    private let body: (any Error) -> ErrorStep
    /// The handler's error type, for the cheap exact-type test.
    private let exactType: ObjectIdentifier
    /// True for a handler of every error (`(any Error).self`).
    private let takesAll: Bool
    /// The runtime's cast test, for errors not exactly of the handler's type (a
    /// subclass, or a handler whose type is a protocol).
    private let takesByCast: (any Error) -> Bool
    private let typeName: String
    private let kind: String
    /// The isolation of the code that added it; nil for a `Sendable` handler with a mode.
    private let isolation: HandlerIsolation?
    private let owner: OwnerReference?
    /// True for handlers whose result decides the walk (receive, transform, catch):
    /// they run in place, and a walk that meets one elsewhere moves to it.
    let decidesInPlace: Bool

    init<F: Error>(_ type: F.Type, kind: String, isolation: HandlerIsolation, owner: AnyObject? = nil, decides: Bool = false, body: @escaping (F) -> ErrorStep) {
        self.isolation = isolation
        (self.body, takesByCast, typeName) = Self.erase(body)
        exactType = ObjectIdentifier(F.self)
        takesAll = F.self == (any Error).self
        self.kind = kind
        self.owner = owner.map(OwnerReference.init)
        decidesInPlace = decides
        super.init(role: .subscriber, delivery: isolation.delivery)
        track()
    }

    init<F: Error>(_ type: F.Type, kind: String, mode: DeliveryMode, owner: AnyObject? = nil, decides: Bool = false, body: @escaping (F) -> ErrorStep) {
        isolation = nil
        (self.body, takesByCast, typeName) = Self.erase(body)
        exactType = ObjectIdentifier(F.self)
        takesAll = F.self == (any Error).self
        self.kind = kind
        self.owner = owner.map(OwnerReference.init)
        decidesInPlace = decides
        super.init(role: .subscriber, delivery: mode)
        track()
    }

    private static func erase<F: Error>(_ body: @escaping (F) -> ErrorStep) -> ((any Error) -> ErrorStep, (any Error) -> Bool, String) {
        (
            { error in body(takenError(error, as: F.self)) },
            { $0 is F },
            F.self == (any Error).self ? "any Error" : String(describing: F.self)
        )
    }

    private func track() {
        #if DEBUG
        if let owner = owner?.load(as: AnyObject.self) { InstanceTracker.track(owner, "owner \(type(of: owner))") }
        #endif
    }

    override var payloadName: String { "\(typeName) (\(kind))" }

    // Out of line: inlined into a report's walk (since an actor's `isGone` became a
    // call of its own), it made the optimizer split the walk's handler loop in two
    // (measured: a report up 10 levels 1,592 to 1,649 instructions).
    @inline(never)
    override var isOrphaned: Bool { owner?.isGone == true || (isolation?.isGone ?? false) }

    /// True when this handler takes `error`: it is of the handler's type. Exact types
    /// and handlers of every error are decided without the runtime's cast test.
    @inline(__always)
    func takes(_ error: any Error) -> Bool {
        takesAll || ObjectIdentifier(type(of: error)) == exactType || takesByCast(error)
    }

    /// True when a caller on `thread`, isolated to `caller`, may run the handler.
    func livesHere(_ thread: UnsafeMutablePointer<ThreadState>, isolation caller: (any Actor)?) -> Bool {
        lives(in: isolation, on: thread, caller: caller)
    }

    /// Where the handler lives, for diagnostics.
    var placeName: String {
        placeName(of: isolation)
    }

    /// Runs the handler here and now.
    func run(_ error: any Error) -> ErrorStep { body(error) }

    /// Where the handler lives: `isolation`, or its mode when nil.
    var runsIn: HandlerIsolation? { isolation }

    /// Runs a `handle` handler: here when it lives here, else enqueued where it
    /// lives. The error is handled either way.
    /// Called only with an error it takes.
    func handle(_ error: any Error, thread: UnsafeMutablePointer<ThreadState>, isolation caller: (any Actor)?) -> ErrorStep {
        if livesHere(thread, isolation: caller) { return run(error) }
        let enqueued = move(to: isolation) { [self] _ in
            // A cancel that returned before this runs must win.
            guard isAttached else { return }
            _ = body(error)
        }
        return enqueued ? .enqueued(self) : .passed
    }
}

/// An error the handler takes (see `ErrorHandler.takes`) as the handler's type: a
/// forced cast, which `takes` has checked, and no `Optional<F>`, whose metadata an
/// unspecialized generic call would look up each time. A handler of every error
/// (`F` is `any Error`, to which the error binds without opening) needs no cast.
@inline(__always)
func takenError<F>(_ error: any Error, as type: F.Type) -> F {
    func open<T: Error>(_ opened: T) -> F {
        if T.self == F.self { return unsafeBitCast(opened, to: F.self) }
        return opened as! F
    }
    return open(error)
}
