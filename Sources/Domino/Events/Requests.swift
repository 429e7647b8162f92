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
    /// - Returns: The first answer, or nil when nobody on the route answered (reported
    ///   when ``Diagnostics/reportsUnansweredRequests`` is on).
    public func request<R: Request>(_ request: R) -> R.Response? {
        ask(request)
    }

    /// Registers a responder for requests of type `R` made here or below.
    ///
    /// Return nil to decline and let the request go further up.
    ///
    /// ```swift
    /// rootNode.respond(to: FetchChannelID.self) { _ in "channel-42" }
    /// ```
    @discardableResult
    public func respond<R: Request>(
        to type: R.Type,
        _ answer: @escaping @Sendable (R) -> R.Response?
    ) -> Subscription {
        add(ClosureResponder<R>(body: answer), for: .of(R.self))
    }

    /// Registers a responder on behalf of `owner`, held weakly and passed in.
    ///
    /// ```swift
    /// domino.respond(to: FetchChannelID.self, owner: self) { controller, _ in
    ///     controller.channelID
    /// }
    /// ```
    @discardableResult
    public func respond<R: Request, Owner: AnyObject>(
        to type: R.Type,
        owner: Owner,
        _ answer: @escaping @Sendable (Owner, R) -> R.Response?
    ) -> Subscription {
        add(OwnedResponder<R, Owner>(owner: owner, body: answer), for: .of(R.self))
    }
}
