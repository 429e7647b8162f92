/// Interceptors (Domino's `DominoInterceptor`): reform a value before it goes on,
/// or stop it.
///
/// At each node of a walk, reformers run before the node's subscribers and see the
/// value as the nodes below left it; what they change is what this node's
/// subscribers and every node further up receive, while nodes already passed keep
/// the original. Interceptors run after the node's subscribers and may stop the walk.
/// Both always run synchronously on the posting thread.
extension DominoNode {
    /// Rewrites events or requests of type `T` as they pass this node.
    ///
    /// ```swift
    /// containerNode.reform(ContentDidLoad.self) { event in
    ///     event.itemCount = min(event.itemCount, 100)
    /// }
    /// ```
    @discardableResult
    public func reform<T: Sendable>(_ type: T.Type, _ body: @escaping @Sendable (inout T) -> Void) -> Subscription {
        add(Reformer<T>(body: body), for: .of(T.self))
    }

    /// Decides whether events or requests of type `T` go further up from this node,
    /// after this node's subscribers ran.
    ///
    /// ```swift
    /// rootNode.intercept(ContentDidLoad.self) { event in
    ///     event.itemCount == 0 ? .stop : .proceed
    /// }
    /// ```
    @discardableResult
    public func intercept<T: Sendable>(_ type: T.Type, _ decide: @escaping @Sendable (T) -> Interception) -> Subscription {
        add(Interceptor<T>(body: decide), for: .of(T.self))
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
