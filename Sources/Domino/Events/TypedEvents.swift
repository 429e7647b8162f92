extension DominoNode {
    /// Posts a typed event: this node's subscribers, then every node up the route.
    ///
    /// Every subscriber for `E` on the route is notified, in route order and, at each
    /// node, in subscription order. At each node the reformers run first, then the
    /// subscribers, then the interceptors, which may stop the event there.
    ///
    /// ```swift
    /// contentNode.post(ContentDidLoad(itemCount: 12))
    /// ```
    ///
    /// - Returns: What happened; posting when nobody listens is a no-op whose result
    ///   says so (``PostResult/wasDelivered`` is false).
    @discardableResult
    public func post<E: Event>(_ event: E) -> PostResult {
        deliver(event, key: .of(E.self))
    }

    /// Subscribes a handler to events of type `E` posted here or below.
    ///
    /// ```swift
    /// containerNode.subscribe(ContentDidLoad.self, on: .postingThread) { event in
    ///     print(event.itemCount)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - phase: When the handler hears the event (see ``Phase``); by default on the
    ///     way up a post's route and down a broadcast.
    ///   - mode: Where the handler runs; nil uses the node's, else the global, default.
    ///   - handler: Called with each event.
    /// - Returns: A handle that can cancel; the subscription lives on without it.
    @discardableResult
    public func subscribe<E: Event>(
        _ type: E.Type,
        phase: Phase = .bubble,
        on mode: DeliveryMode?,
        _ handler: @escaping @Sendable (E) throws -> Void
    ) -> Subscription {
        add(ClosureReceiver<E>(delivery: mode, body: handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes a handler that can stop the event (see ``Propagation``).
    ///
    /// ```swift
    /// node.subscribe(Tap.self, on: .postingThread) { tap, propagation in
    ///     propagation.stop()   // nodes further up do not see this tap
    /// }
    /// ```
    @discardableResult
    public func subscribe<E: Event>(
        _ type: E.Type,
        phase: Phase = .bubble,
        on mode: DeliveryMode?,
        _ handler: @escaping @Sendable (E, inout Propagation) throws -> Void
    ) -> Subscription {
        add(ControllingReceiver<E>(delivery: mode, body: handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes on behalf of `owner`, which is held weakly and passed to the handler,
    /// so there is no `[weak self]` dance; the subscription ends when the owner
    /// deallocates.
    ///
    /// ```swift
    /// domino.subscribe(ContentDidLoad.self, owner: self) { controller, event in
    ///     controller.reload(count: event.itemCount)
    /// }
    /// ```
    @discardableResult
    public func subscribe<E: Event, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        phase: Phase = .bubble,
        on mode: DeliveryMode?,
        _ handler: @escaping @Sendable (Owner, E) throws -> Void
    ) -> Subscription {
        add(OwnedReceiver<E, Owner>(delivery: mode, owner: owner) { owner, event, _ in
            try handler(owner, event)
        }, for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes on behalf of `owner` with a handler that can stop the event.
    @discardableResult
    public func subscribe<E: Event, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        phase: Phase = .bubble,
        on mode: DeliveryMode?,
        _ handler: @escaping @Sendable (Owner, E, inout Propagation) throws -> Void
    ) -> Subscription {
        add(OwnedReceiver<E, Owner>(delivery: mode, owner: owner, body: handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Removes every handler for the event type `E` at this node: subscribers,
    /// reformers and interceptors, in every phase (Domino's `unsubscribeEvent:`).
    public func unsubscribe<E: Event>(_ type: E.Type) {
        removeSlots(of: E.self)
    }

    /// Removes every handler for the request type `R` at this node: responders,
    /// reformers and interceptors.
    @_disfavoredOverload
    public func unsubscribe<R: Request>(_ type: R.Type) {
        removeSlots(of: R.self)
    }

    /// Removes every target and protocol interceptor of the protocol events of
    /// `protocol` at this node.
    ///
    /// ```swift
    /// containerNode.unsubscribe(protocol: ContentEvents.self)
    /// ```
    public func unsubscribe<Target>(protocol: Target.Type) {
        removeSlot(.ofProtocol(Target.self))
    }

    private func removeSlots<T>(of type: T.Type) {
        for phase in Phase.allCases { removeSlot(SlotKey.of(T.self).in(phase)) }
    }
}
