/// Async requests: responders that await, and `await node.request(...)`.
///
/// ```swift
/// struct FetchProfile: Request {
///     typealias Response = Profile
///     var userID: String
/// }
///
/// accountNode.respond(to: FetchProfile.self) { request async in
///     try? await api.profile(for: request.userID)
/// }
///
/// // In async code:
/// let profile = try await screenNode.request(FetchProfile(userID: "42"))
/// ```
///
/// The async walk is the synchronous one with awaits: node by node, reformers, then
/// responders in order, sync or async, until one answers non-nil, then interceptors.
/// It runs on the awaiting task. Cancelling that task ends the walk with
/// `CancellationError` (checked before and after each async responder, which also
/// sees the cancellation itself).
///
/// A synchronous ``DominoNode/request(_:)-(R)`` cannot wait: it skips async
/// responders, and if it then ends unanswered it reports
/// ``Diagnostic/Code/asyncResponderSkipped``.
extension DominoNode {
    /// Registers an async responder for requests of type `R` made here or below.
    ///
    /// Return nil to decline and let the request go further up. Only async requests
    /// (`try await node.request(...)`) wait for it.
    @discardableResult
    public func respond<R: Request>(
        to type: R.Type,
        _ answer: @escaping @Sendable (R) async throws -> R.Response?
    ) -> Subscription {
        add(AsyncClosureResponder<R>(body: answer), for: .of(R.self))
    }

    /// Registers an async responder on behalf of `owner`, held weakly, and strongly
    /// for the duration of each answer.
    @discardableResult
    public func respond<R: Request, Owner: AnyObject & Sendable>(
        to type: R.Type,
        owner: Owner,
        _ answer: @escaping @Sendable (Owner, R) async throws -> R.Response?
    ) -> Subscription {
        add(AsyncOwnedResponder<R, Owner>(owner: owner, body: answer), for: .of(R.self))
    }

    /// Asks the route for an answer, waiting for async responders: the first
    /// responder that answers non-nil wins.
    ///
    /// Awaited requests nest per task, across awaits: one nested deeper than
    /// ``DominoNode/maximumNestingDepth`` (a responder awaiting a request that
    /// reaches it again, without end) returns nil and is reported as
    /// ``Diagnostic/Code/nestingLimitExceeded``.
    ///
    /// - Returns: The first answer, or nil when nobody on the route answered.
    /// - Throws: `CancellationError` when the awaiting task is cancelled.
    public func request<R: Request>(_ request: R) async throws -> R.Response? {
        // Nesting is counted per task, across awaits: a responder that awaits a
        // request of its own kind, without end, is cut off as a synchronous one is.
        let depth = AsyncNesting.depth
        guard depth < Self.maximumNestingDepth else {
            Diagnostics.emit(
                .nestingLimitExceeded,
                "Requesting \(R.self) at \(self) was nested \(depth) awaited requests deep in one task (a responder awaiting a request that reaches it again?); the innermost was dropped and returns nil. Make sure a responder does not await a request that comes back to it."
            )
            return nil
        }
        return try await AsyncNesting.$depth.withValue(depth + 1) {
            try await walkAsync(request)
        }
    }

    /// The awaited request's walk, once the nesting check passed.
    private func walkAsync<R: Request>(_ request: R) async throws -> R.Response? {
        var plan = Plan()
        collect(.of(R.self), into: &plan, thread: ThreadState.current)
        // This walk may wait for seconds: it retains its tables rather than holding
        // back every other thread's reclamation (see `GraphLock`).
        plan.holdTables()
        var eventName: String { String(describing: R.self) }
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .requested, event: eventName, node: description))
        }
        var request = request
        var orphans: [Subscription] = []
        defer { if !orphans.isEmpty { Self.purge(orphans) } }

        for index in 0..<plan.stages.count {
            let stage = plan.stages[index]
            if stage.table.hasReformers {
                Self.reform(&request, at: stage, eventName: eventName)
            }
            for handler in stage.table.responders {
                let responder = unsafeDowncast(handler, to: Responder<R>.self)
                var answer: R.Response?
                if let asynchronous = responder as? AsyncResponder<R> {
                    try Task.checkCancellation()
                    let outcome: R.Response??
                    do {
                        outcome = try await asynchronous.answer(request)
                    } catch {
                        try Self.failOrReport(error, of: R.self, by: responder)
                        continue
                    }
                    guard let answered = outcome else {
                        orphans.append(responder)
                        continue
                    }
                    try Task.checkCancellation()
                    answer = answered
                } else {
                    var answering: Answering
                    do {
                        answering = try responder.answer(request, into: &answer)
                    } catch {
                        try Self.failOrReport(error, of: R.self, by: responder)
                        continue
                    }
                    if answering == .notHere {
                        // It answers elsewhere (the main actor, another actor, a
                        // queue): go there.
                        try Task.checkCancellation()
                        let answered = await responder.answerWhereItRuns(request)
                        try Task.checkCancellation()
                        answering = answered.answering
                        answer = answered.response
                        if let failure = answered.failure {
                            try Self.failOrReport(failure, of: R.self, by: responder)
                            continue
                        }
                    }
                    if answering == .ownerGone {
                        orphans.append(responder)
                        continue
                    }
                }
                if let answer {
                    if stage.traced {
                        Tracing.emit(TraceRecord(kind: .answered(String(describing: answer)), event: eventName, node: stage.nodeName))
                    }
                    return answer
                }
            }
            if plan.mayIntercept(at: index), Self.requestIntercepted(request, at: index, of: plan, eventName: eventName) { return nil }
        }
        wentUnanswered(eventName, plan: plan)
        return nil
    }
}

extension DominoNode {
    /// Throws `error` when it is `R`'s ``Request/Failure``, which ends the request;
    /// reports any other error up the route from the responder's node.
    static func failOrReport<R: Request>(_ error: any Error, of type: R.Type, by responder: Subscription) throws {
        if isFailure(error, of: R.self) { throw error }
        responder.reportThrown(error)
    }
}

/// How many awaited requests the current task is inside.
enum AsyncNesting {
    @TaskLocal static var depth = 0
}

extension DominoNode {
    /// What a responder said where it runs (its isolation, its mode's queue),
    /// carried back to the awaiting task.
    struct RemoteAnswer<Response: Sendable>: Sendable {
        let answering: Answering
        let response: Response?
        /// What the responder threw, for `.failed`.
        var failure: (any Error)? = nil
    }
}

/// A responder that answers asynchronously. Its synchronous `answer` declines
/// without running (a synchronous walk cannot wait), which the walk reports when it
/// ends unanswered.
class AsyncResponder<R: Request>: Responder<R>, @unchecked Sendable {
    override init() {
        super.init()
        answersAsynchronously = true
    }

    override func answer(_ request: R, into answer: inout R.Response?) throws -> Answering {
        answer = nil
        return .declined
    }

    /// `.some(answer)` (which may be nil: declined), or nil when the owner is gone.
    /// Throws what the responder threw (its request's `Failure`).
    func answer(_ request: R) async throws -> R.Response?? {
        preconditionFailure("abstract")
    }
}

final class AsyncClosureResponder<R: Request>: AsyncResponder<R>, @unchecked Sendable {
    let body: @Sendable (R) async throws -> R.Response?

    init(body: @escaping @Sendable (R) async throws -> R.Response?) {
        self.body = body
    }

    override func answer(_ request: R) async throws -> R.Response?? {
        .some(try await body(request))
    }
}

final class AsyncOwnedResponder<R: Request, Owner: AnyObject & Sendable>: AsyncResponder<R>, @unchecked Sendable {
    private let owner: OwnerReference
    let body: @Sendable (Owner, R) async throws -> R.Response?

    init(owner: Owner, body: @escaping @Sendable (Owner, R) async throws -> R.Response?) {
        self.owner = OwnerReference(owner)
        self.body = body
        super.init()
        #if DEBUG
        InstanceTracker.track(owner, "owner \(type(of: owner))")
        #endif
    }

    override var isOrphaned: Bool { owner.isGone }
    override var boundObject: ObjectIdentifier? { owner.identity }
    override var boundObjectName: String { "\(Owner.self)" }

    override func answer(_ request: R) async throws -> R.Response?? {
        guard let owner = owner.load(as: Owner.self) else { return nil }
        return .some(try await body(owner, request))
    }
}
