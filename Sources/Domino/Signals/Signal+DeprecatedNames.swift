// The signal API's earlier names, kept for one release. Each forwards to the name
// that replaced it (see the CHANGELOG: one name per idea across nodes and signals).

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal {
    /// Creates a signal with no subscriptions that has never fired.
    @available(*, deprecated, renamed: "init(maxSubscriptions:)")
    public convenience init(maxObservers: Int) {
        self.init(maxSubscriptions: maxObservers)
    }

    /// Subscribes `observer`, whose `callback` runs in the caller's isolation.
    @available(*, deprecated, renamed: "subscribe(_:isolation:_:)")
    @inlinable
    @discardableResult
    public func addObserver<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        isolation: isolated (any Actor) = #isolation,
        _ callback: @escaping (Observer, repeat each Value) -> Void
    ) -> SignalSubscription {
        subscribe(observer, isolation: isolation, callback)
    }

    /// Subscribes `observer`, whose `@Sendable` callback runs where `mode` says.
    @available(*, deprecated, renamed: "subscribe(_:on:_:)")
    @inlinable
    @discardableResult
    public func addObserver<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        on mode: DeliveryMode,
        _ callback: @escaping @Sendable (Observer, repeat each Value) -> Void
    ) -> SignalSubscription {
        subscribe(observer, on: mode, callback)
    }

    /// Subscribes `observer` with a callback isolated to the main actor, such as a
    /// method of a `@MainActor` view controller: it runs on the main actor, in place
    /// when the signal fires on the main thread, else soon after on the main queue.
    ///
    /// Superseded by ``subscribe(_:isolation:_:)``, which needs no separate name: a
    /// callback written in main-actor code runs on the main actor.
    @available(*, deprecated, message: "Call subscribe(_:_:) from main-actor code: a callback written there runs on the main actor (see Domino in main-actor app code).")
    @inlinable
    @discardableResult
    public func addObserverOnMainActor<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        _ callback: @escaping @MainActor @Sendable (Observer, repeat each Value) -> Void
    ) -> SignalSubscription {
        return add(observer, type: Observer.self, on: .mainThread) { (observer: AnyObject, value: repeat each Value) in
            let typed = unsafeDowncast(observer, to: Observer.self)
            runOnMainActor { callback(typed, repeat each value) }
        }
    }

    /// Ends every subscription of `observer` to this signal.
    @available(*, deprecated, renamed: "unsubscribe(_:)")
    public func removeObserver(_ observer: AnyObject) {
        unsubscribe(observer)
    }

    /// Ends every subscription to this signal.
    @available(*, deprecated, renamed: "unsubscribeAll()")
    public func removeAllObservers() {
        unsubscribeAll()
    }

    /// How many subscriptions the signal has whose observer lives.
    @available(*, deprecated, renamed: "subscriptionCount")
    public var observerCount: Int {
        subscriptionCount
    }

    /// How many subscriptions the signal expects at most.
    @available(*, deprecated, renamed: "maxSubscriptions")
    public var maxObservers: Int {
        get { maxSubscriptions }
        set { maxSubscriptions = newValue }
    }

    /// Called with each new subscription, after it was made.
    @available(*, deprecated, renamed: "subscriptionAdded")
    public var observerAdded: (@Sendable (SignalSubscription) -> Void)? {
        get { subscriptionAdded }
        set { subscriptionAdded = newValue }
    }

    /// Called with each subscription that ends while listed.
    @available(*, deprecated, renamed: "subscriptionRemoved")
    public var observerRemoved: (@Sendable (SignalSubscription) -> Void)? {
        get { subscriptionRemoved }
        set { subscriptionRemoved = newValue }
    }
}
