extension DominoNode {
    /// Posts a named event (Domino's SimpleEvent) up the route.
    ///
    /// ```swift
    /// node.post("ContentViewControllerStatisticsEvent", ["msg": "did load"])
    /// ```
    @discardableResult
    public func post(_ name: EventName, _ parameters: [String: any Sendable] = [:]) -> PostResult {
        deliver(NamedEvent(name: name, parameters: parameters), key: .name(name.rawValue))
    }

    /// Posts a prepared named event up the route.
    @discardableResult
    public func post(_ event: NamedEvent) -> PostResult {
        deliver(event, key: .name(event.name.rawValue))
    }

    /// Subscribes a handler to the named event `name`.
    ///
    /// ```swift
    /// node.subscribe("ContentViewControllerStatisticsEvent") { event in
    ///     print(event.value("msg", as: String.self) ?? "")
    /// }
    /// ```
    @discardableResult
    public func subscribe(
        _ name: EventName,
        on mode: DeliveryMode? = nil,
        _ handler: @escaping @Sendable (NamedEvent) -> Void
    ) -> Subscription {
        add(ClosureReceiver<NamedEvent>(delivery: mode, body: handler), for: .name(name.rawValue))
    }

    /// Subscribes a handler to the named event `name` that can stop it.
    @discardableResult
    public func subscribe(
        _ name: EventName,
        on mode: DeliveryMode? = nil,
        _ handler: @escaping @Sendable (NamedEvent, inout Propagation) -> Void
    ) -> Subscription {
        add(ControllingReceiver<NamedEvent>(delivery: mode, body: handler), for: .name(name.rawValue))
    }

    /// Subscribes to the named event `name` on behalf of `owner`, held weakly and
    /// passed in; the subscription ends when the owner deallocates.
    @discardableResult
    public func subscribe<Owner: AnyObject>(
        _ name: EventName,
        owner: Owner,
        on mode: DeliveryMode? = nil,
        _ handler: @escaping @Sendable (Owner, NamedEvent) -> Void
    ) -> Subscription {
        add(OwnedReceiver<NamedEvent, Owner>(delivery: mode, owner: owner) { owner, event, _ in
            handler(owner, event)
        }, for: .name(name.rawValue))
    }

    /// Removes every handler for the named event `name` at this node
    /// (Domino's `unsubscribeEvent:`).
    public func unsubscribe(_ name: EventName) {
        removeSlot(.name(name.rawValue))
    }
}
