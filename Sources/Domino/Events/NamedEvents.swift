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

    /// Posts a named event with positional arguments, for a handler that takes them
    /// in order (the responder-chain blog's `routeEventWithName:wrappedValueParams:`).
    ///
    /// Nil arguments keep their place; no wrapping is needed:
    ///
    /// ```swift
    /// cell.domino.post("SelectFund", arguments: fund.code, user.phone, user.name)
    /// // a handler reads event.argument(1, as: String.self), nil when phone was nil
    /// ```
    @discardableResult
    public func post(_ name: EventName, arguments: (any Sendable)?...) -> PostResult {
        deliver(NamedEvent(name: name, arguments: arguments), key: .name(name.rawValue))
    }

    /// Routes named events to nonisolated methods of `owner`, run where `mode`
    /// says: each name in `routes` is subscribed on behalf of `owner` (held weakly),
    /// and its method receives the event (the responder-chain blog's
    /// name-to-selector table, checked by the compiler). Main-actor code uses
    /// ``route(_:to:isolation:)``, which names no mode.
    ///
    /// ```swift
    /// domino.route([
    ///     "SelectLimit": FundService.didSelectLimit,
    /// ], to: service, on: .postingThread)
    /// ```
    ///
    /// - Returns: One subscription per name, in the order of the names' raw values.
    @discardableResult
    public func route<Owner: AnyObject & Sendable>(
        _ routes: [EventName: @Sendable (Owner) -> (NamedEvent) -> Void],
        to owner: Owner,
        on mode: DeliveryMode?
    ) -> [Subscription] {
        routes.sorted { $0.key.rawValue < $1.key.rawValue }.map { name, method in
            subscribe(name, owner: owner, on: mode) { owner, event in method(owner)(event) }
        }
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
        phase: Phase = .bubble,
        on mode: DeliveryMode?,
        _ handler: @escaping @Sendable (NamedEvent) throws -> Void
    ) -> Subscription {
        add(ClosureReceiver<NamedEvent>(delivery: mode, body: handler), for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Subscribes a handler to the named event `name` that can stop it.
    @discardableResult
    public func subscribe(
        _ name: EventName,
        phase: Phase = .bubble,
        on mode: DeliveryMode?,
        _ handler: @escaping @Sendable (NamedEvent, inout Propagation) throws -> Void
    ) -> Subscription {
        add(ControllingReceiver<NamedEvent>(delivery: mode, body: handler), for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Subscribes to the named event `name` on behalf of `owner`, held weakly and
    /// passed in; the subscription ends when the owner deallocates.
    @discardableResult
    public func subscribe<Owner: AnyObject & Sendable>(
        _ name: EventName,
        owner: Owner,
        phase: Phase = .bubble,
        on mode: DeliveryMode?,
        _ handler: @escaping @Sendable (Owner, NamedEvent) throws -> Void
    ) -> Subscription {
        add(OwnedReceiver<NamedEvent, Owner>(delivery: mode, owner: owner) { owner, event, _ in
            try handler(owner, event)
        }, for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Removes every handler for the named event `name` at this node, in every phase
    /// (Domino's `unsubscribeEvent:`).
    public func unsubscribe(_ name: EventName) {
        for phase in Phase.allCases { removeSlot(SlotKey.name(name.rawValue).in(phase)) }
    }
}
