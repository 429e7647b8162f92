extension DominoNode {
    /// Asks the route for an answer: the first responder that answers non-nil wins
    /// and the walk ends there (chain of responsibility).
    ///
    /// Runs synchronously on the calling thread whatever the delivery modes, like
    /// Domino's value-returning selector events.
    ///
    /// ```swift
    /// let channel = contentNode.request(FetchChannelID())
    /// ```
    ///
    /// A request whose ``Request/Failure`` is not `Never` is asked with `try`: a
    /// responder that throws ends it, and `request` throws that error.
    ///
    /// - Returns: The first answer, or nil when nobody on the route answered (reported
    ///   when ``Diagnostics/reportsUnansweredRequests`` is on).
    @inlinable
    public func request<R: Request>(_ request: R) throws(R.Failure) -> R.Response? {
        var answer: R.Response?
        do {
            try ask(request, into: &answer)
        } catch {
            throw Self.requestFailure(error, of: R.self)
        }
        return answer
    }

    /// Registers a nonisolated responder for requests of type `R` made here or
    /// below, which answers where `mode` says. Main-actor code uses
    /// ``respond(to:isolation:_:)``, which names no mode.
    ///
    /// Return nil to decline and let the request go further up. With
    /// ``DeliveryMode/postingThread`` it answers every synchronous request on the
    /// requesting thread. With another mode it answers synchronous requests made
    /// where that mode runs (on the main thread, on that queue), and a synchronous
    /// request from elsewhere passes it by, reported as
    /// ``Diagnostic/Code/isolatedResponderSkipped``; `try await request(_:)` goes
    /// there.
    ///
    /// ```swift
    /// rootNode.respond(to: FetchChannelID.self, on: .postingThread) { _ in "channel-42" }
    /// ```
    @inlinable @discardableResult
    public func respond<R: Request>(
        to type: R.Type,
        on mode: DeliveryMode,
        _ answer: @escaping @Sendable (R) throws -> R.Response?
    ) -> Subscription {
        // Inlinable, so that the optional answer is tested where `R` is known (see
        // `ClosureResponder`).
        addResponder(to: type, on: mode) { request, response in
            response = try answer(request)
            return response != nil
        }
    }

    /// `respond(to:on:_:)` with its closure made: registers it.
    @usableFromInline
    func addResponder<R: Request>(
        to type: R.Type,
        on mode: DeliveryMode,
        _ answer: @escaping @Sendable (R, inout R.Response?) throws -> Bool
    ) -> Subscription {
        mode.prepare()
        return add(ClosureResponder<R>(mode: mode, body: answer), for: .of(R.self))
    }

    /// Registers a nonisolated responder on behalf of `owner`, held weakly and
    /// passed in, which answers where `mode` says (see ``respond(to:on:_:)``).
    ///
    /// ```swift
    /// domino.respond(to: FetchChannelID.self, owner: session, on: .postingThread) { session, _ in
    ///     session.channelID
    /// }
    /// ```
    @inlinable @discardableResult
    public func respond<R: Request, Owner: AnyObject & Sendable>(
        to type: R.Type,
        owner: Owner,
        on mode: DeliveryMode,
        _ answer: @escaping @Sendable (Owner, R) throws -> R.Response?
    ) -> Subscription {
        addResponder(to: type, owner: owner, on: mode) { owner, request, response in
            response = try answer(owner, request)
            return response != nil
        }
    }

    /// `respond(to:owner:on:_:)` with its closure made: registers it.
    @usableFromInline
    func addResponder<R: Request, Owner: AnyObject & Sendable>(
        to type: R.Type,
        owner: Owner,
        on mode: DeliveryMode,
        _ answer: @escaping @Sendable (Owner, R, inout R.Response?) throws -> Bool
    ) -> Subscription {
        mode.prepare()
        return add(OwnedResponder<R, Owner>(mode: mode, owner: owner, body: answer), for: .of(R.self))
    }
}
