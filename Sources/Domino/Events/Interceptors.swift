/// Interceptors (Domino's `DominoInterceptor`): reform a value before it goes on,
/// or stop it.
///
/// At each node of a walk, reformers run before the node's subscribers and see the
/// value as the nodes below left it; what they change is what this node's
/// subscribers and every node further up receive, while nodes already passed keep
/// the original. Interceptors run after the node's subscribers and may stop the walk.
/// Both always run synchronously on the posting thread.
extension DominoNode {
    /// Rewrites events of type `E` as they pass this node.
    ///
    /// ```swift
    /// containerNode.reform(ContentDidLoad.self) { event in
    ///     event.itemCount = min(event.itemCount, 100)
    /// }
    /// ```
    @discardableResult
    public func reform<E: Event>(_ type: E.Type, _ body: @escaping @Sendable (inout E) -> Void) -> Subscription {
        add(Reformer<E>(body: body), for: .of(E.self))
    }

    /// Rewrites requests of type `R` as they pass this node, before its responders
    /// see them.
    ///
    /// ```swift
    /// containerNode.reform(FetchChannelID.self) { request in
    ///     request.region = "eu"
    /// }
    /// ```
    // Disfavored so that a type that is both an Event and a Request (one slot) picks
    // the Event form rather than failing as ambiguous.
    @_disfavoredOverload
    @discardableResult
    public func reform<R: Request>(_ type: R.Type, _ body: @escaping @Sendable (inout R) -> Void) -> Subscription {
        add(Reformer<R>(body: body), for: .of(R.self))
    }

    /// Decides whether events of type `E` go further up from this node, after this
    /// node's subscribers ran.
    ///
    /// ```swift
    /// rootNode.intercept(ContentDidLoad.self) { event in
    ///     event.itemCount == 0 ? .stop : .proceed
    /// }
    /// ```
    ///
    /// Protocol events have their own form, ``intercept(protocol:_:)``.
    @discardableResult
    public func intercept<E: Event>(_ type: E.Type, _ decide: @escaping @Sendable (E) -> Interception) -> Subscription {
        add(Interceptor<E>(body: decide), for: .of(E.self))
    }

    /// Decides whether requests of type `R` go further up from this node, after
    /// this node's responders declined.
    ///
    /// ```swift
    /// rootNode.intercept(FetchChannelID.self) { _ in isSignedOut ? .stop : .proceed }
    /// ```
    @_disfavoredOverload
    @discardableResult
    public func intercept<R: Request>(_ type: R.Type, _ decide: @escaping @Sendable (R) -> Interception) -> Subscription {
        add(Interceptor<R>(body: decide), for: .of(R.self))
    }

    /// Rewrites the named event `name` (its parameters) as it passes this node, like
    /// Domino's `reformDominoParams:`.
    ///
    /// ```swift
    /// containerNode.reform("Statistics") { event in
    ///     event.parameters["screen"] = "container"
    /// }
    /// ```
    @discardableResult
    public func reform(_ name: EventName, _ body: @escaping @Sendable (inout NamedEvent) -> Void) -> Subscription {
        add(Reformer<NamedEvent>(body: body), for: .name(name.rawValue))
    }

    /// Decides whether the named event `name` goes further up from this node.
    @discardableResult
    public func intercept(_ name: EventName, _ decide: @escaping @Sendable (NamedEvent) -> Interception) -> Subscription {
        add(Interceptor<NamedEvent>(body: decide), for: .name(name.rawValue))
    }
}
