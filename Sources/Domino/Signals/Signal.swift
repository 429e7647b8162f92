/// A typed, observable event that an object owns and fires: Uber Signals in Swift.
///
/// A signal carries any number of values, none included; their types are the
/// signal's generic arguments, so the compiler checks every fire and every callback.
/// Declare signals as constants of the object that fires them:
///
/// ```swift
/// final class NetworkRequest {
///     let onResult = Signal<Data?, (any Error)?>()
///     let onProgress = Signal<Double>()
///
///     func received(_ data: Data?, _ error: (any Error)?) {
///         onProgress.fire(1.0)
///         onResult.fire(data, error)
///     }
/// }
/// ```
///
/// Observers are objects that subscribe. The signal holds each one weakly, passes it
/// into the callback (so there is no `[weak self]` dance), keeps it alive for the
/// length of a callback, and forgets it when it deallocates:
///
/// ```swift
/// request.onResult.subscribe(self) { controller, data, error in
///     controller.show(data, error)
/// }
/// ```
///
/// Callbacks run on the firing thread unless the subscription asks for another
/// ``DeliveryMode`` (see ``SignalSubscription/deliveryMode``). A signal is safe to
/// fire, subscribe to and cancel from any number of threads at once, from inside its
/// own callbacks too:
///
/// - A fire delivers to the subscriptions listed when it starts, in the order they
///   were made. A subscription made during a fire is not called by that fire.
/// - A subscription cancelled or removed before its turn in a running fire is
///   skipped by the rest of that fire (see ``SignalSubscription/cancel()``).
/// - No callback and no hook runs while the signal holds its lock, so callbacks may
///   fire, subscribe, cancel and unsubscribe freely.
/// - Firing does not retain observers beyond their callbacks.
///
/// Signals live outside the node graph; ``connect(to:_:)`` feeds one into it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public final class Signal<each Value: Sendable>: @unchecked Sendable {
    // The signal's own state is all in the core, which guards it (see SignalCore).
    @usableFromInline let core: TypedSignalCore<repeat each Value>

    /// Creates a signal with no subscriptions that has never fired.
    ///
    /// ```swift
    /// let onNetworkResult = Signal<Data?, (any Error)?>()
    /// let onTap = EmptySignal()
    /// ```
    ///
    /// - Parameter maxSubscriptions: How many subscriptions the signal expects at
    ///   most (see ``maxSubscriptions``).
    public init(maxSubscriptions: Int = 100) {
        core = TypedSignalCore(maxSubscriptions: maxSubscriptions)
    }

    deinit {
        core.close()
    }

    /// The node from which an error thrown by a callback is reported up the route,
    /// as ``DominoNode/report(_:isolation:)`` does; held weakly. When nil, such an
    /// error is reported as ``Diagnostic/Code/unhandledError``. Either way the fire
    /// goes on to the next subscription.
    ///
    /// ```swift
    /// upload.onResult.errorNode = screen.domino
    /// upload.onResult.subscribe(self) { controller, data in
    ///     try controller.show(data)      // a thrown error goes up from the screen
    /// }
    /// ```
    public var errorNode: DominoNode? {
        get { core.withLock { core.errorNode } }
        set { core.withLock { core.errorNode = newValue } }
    }

    // MARK: Firing

    /// Calls every subscription's callback with `value`, and remembers it as
    /// ``lastFired``.
    ///
    /// ```swift
    /// onNetworkResult.fire(data, nil)
    /// onTap.fire()
    /// ```
    ///
    /// Callbacks in ``DeliveryMode/postingThread`` mode (the default) have all run
    /// when `fire` returns; others are queued where their mode says, or run now when
    /// this thread already is there. Subscriptions found with their observer
    /// deallocated are removed, and ``subscriptionRemoved`` is called for them, on
    /// this thread, after the callbacks.
    @inlinable
    public func fire(_ value: repeat each Value) {
        // Inlinable so that callers specialize it for their value types: unspecialized,
        // handling a pack of values costs several look-ups of type metadata per fire.
        guard let firing = core.enterFiring() else { return }
        defer {
            if firing.traced { core.endFireInterval(firing.nesting) }
            firing.nesting.pointee &-= 1
        }
        var previous: (repeat each Value)? = (repeat each value)
        core.lock()
        swap(&previous, &core.lastFired.pointee)
        core.fireCount.pointee &+= 1
        let reading = core.listForFiringLocked(hazard: firing.hazard)
        core.unlock()
        // The values fired before may hold the last reference to a user object:
        // released here, after unlocking.
        withExtendedLifetime(previous) {}
        guard let reading else { return }

        // The fire's hazard slot or its count on the list keeps the list alive (see
        // SignalCore, "Reading the list"), and the list its entries, so the entries
        // are used without retaining them. No slot below `count` changes meanwhile.
        var ended: [SignalSubscription]?
        let base = reading.base
        for index in 0..<reading.count {
            ObserverList.load(base + index)._withUnsafeGuaranteedRef { subscription in
                // Tested before the downcast: a cleared slot holds a placeholder of
                // another class, always cancelled (see ObserverList.cleared).
                let state = subscription.flags.load()
                guard state & ObserverFlags.ended == 0 else { return }
                let entry = unsafeDowncast(subscription, to: SignalEntry<repeat each Value>.self)
                if entry.deliver(flags: state, repeat each value).endsObservation {
                    if ended == nil { ended = [] }
                    ended?.append(subscription)
                }
            }
        }
        // After the callbacks: if the list was replaced meanwhile, the last fire out
        // releases it, and with it perhaps an entry's last reference.
        if let hazard = firing.hazard {
            core.fireEnded(hazard: hazard)
        } else {
            ObserverList.countFireOut(reading.list, base: base)
        }
        if let ended {
            core.remove(ended, cancelling: false)
        }
    }

    /// Calls one subscription's callback with `value`, as if the signal fired for it
    /// alone. ``lastFired`` does not change: the values were meant for this
    /// subscription only, so ``SignalSubscription/firePreviousData()`` does not hand
    /// them to others.
    ///
    /// ```swift
    /// let subscription = onStatus.subscribe(self) { controller, status in
    ///     controller.render(status)
    /// }
    /// onStatus.fire(for: subscription, .idle)   // this observer's first state
    /// ```
    ///
    /// - Returns: True when the callback ran or was queued; false when `subscription`
    ///   belongs to another signal or has ended.
    @discardableResult
    public func fire(for subscription: SignalSubscription, _ value: repeat each Value) -> Bool {
        // The same core means the same value types, so the downcast is sound.
        guard subscription.core === core else { return false }
        return unsafeDowncast(subscription, to: SignalEntry<repeat each Value>.self).deliverAlone(repeat each value)
    }

    /// The values of the last ``fire(_:)``, or nil if the signal never fired.
    ///
    /// ```swift
    /// let progress = Signal<Double>()
    /// progress.fire(0.5)
    /// progress.lastFired   // Optional(0.5)
    /// ```
    ///
    /// For a signal of several values it is a tuple of them; for a signal of none,
    /// `()` once it fired.
    public var lastFired: (repeat each Value)? {
        core.withLock { core.lastFired.pointee }
    }

    /// How many times the signal fired (artman/Signals' `fireCount`).
    ///
    /// ```swift
    /// onTap.fire()
    /// onTap.fireCount   // 1
    /// ```
    ///
    /// Each ``fire(_:)`` counts, whether or not anyone subscribed; ``fire(for:_:)``
    /// and ``SignalSubscription/firePreviousData()`` do not, since they deliver to
    /// one subscription only.
    public var fireCount: Int {
        core.withLock { core.fireCount.pointee }
    }

    /// Forgets the values last fired: ``lastFired`` becomes nil and
    /// ``SignalSubscription/firePreviousData()`` has nothing to replay until the
    /// next fire (artman/Signals' `clearLastData()`).
    ///
    /// ```swift
    /// session.onUser.fire(user)
    /// // Signed out: a screen subscribing later must not see the old user.
    /// session.onUser.clearLastFired()
    /// ```
    ///
    /// Use it to let go of large or sensitive values; ``fireCount`` does not change.
    public func clearLastFired() {
        var previous: (repeat each Value)? = nil
        core.withLock { swap(&previous, &core.lastFired.pointee) }
        // Released after unlocking: the values may hold the last reference to a
        // user object.
        withExtendedLifetime(previous) {}
    }

    // MARK: Subscribing

    /// Subscribes `observer`, whose `callback` runs in the caller's isolation with
    /// each fire: written in main-actor code (a `@MainActor` view controller), on the
    /// main actor, in place when the signal fires on the main thread, else soon after
    /// on the main queue; written in an actor's code, on that actor, enqueued.
    ///
    /// ```swift
    /// request.onProgress.subscribe(self) { controller, progress in
    ///     controller.progressView.progress = Float(progress)   // main-actor state
    /// }
    /// ```
    ///
    /// Nonisolated code names a mode instead: ``subscribe(_:on:_:)``. Should the
    /// handle's ``SignalSubscription/deliveryMode`` be changed, a main-actor callback
    /// still runs on the main actor, one hop later. Everything else is as for
    /// ``subscribe(_:on:_:)``.
    @inlinable
    @discardableResult
    public func subscribe<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        isolation: isolated (any Actor) = #isolation,
        _ callback: @escaping (Observer, repeat each Value) throws -> Void
    ) -> Subscription {
        // The callback is not `Sendable`: it belongs to the caller's isolation and
        // only ever runs there.
        if isolation === MainActor.shared {
            // The subscription calls it only on the main thread, whatever its mode
            // (see `ObserverFlags.mainActorCallback`): in place there, where
            // main-actor code runs. Captured as is rather than in an
            // `IsolatedCallback` box: a call through the box's property retained the
            // callback's context at every fire.
            nonisolated(unsafe) let body = callback
            return add(observer, type: Observer.self, on: .mainThread, mainActorCallback: true) { (observer: AnyObject, value: repeat each Value) in
                try body(unsafeDowncast(observer, to: Observer.self), repeat each value)
            }
        }
        let handler = IsolatedCallback<Observer, repeat each Value>(callback)
        let core = self.core
        let actor: any Actor = isolation
        return add(observer, type: Observer.self, on: .postingThread) { (observer: AnyObject, value: repeat each Value) in
            let typed = unsafeDowncast(observer, to: Observer.self)
            Task {
                await runIsolated(on: actor) {
                    do { try handler.body(typed, repeat each value) } catch { core.callbackThrew(error, observerType: Observer.self) }
                }
            }
        }
    }

    /// Subscribes `observer`, whose `@Sendable` callback the signal calls with each
    /// fire, where `mode` says: the form for nonisolated code.
    ///
    /// ```swift
    /// request.onResult.subscribe(cache, on: .postingThread) { cache, data, error in
    ///     cache.store(data)
    /// }
    /// ```
    ///
    /// The signal holds `observer` weakly and passes it into `callback`, so the
    /// callback need not capture it; `observer` stays alive until the callback
    /// returns, and the subscription ends when it deallocates. One object may
    /// subscribe several times; each call adds a subscription.
    ///
    /// Subscribing beyond ``maxSubscriptions`` (counting only those whose observer
    /// lives) is reported as ``Diagnostic/Code/observerLimitExceeded``; the
    /// subscription is made all the same.
    ///
    /// - Parameters:
    ///   - observer: The object on whose behalf the callback runs.
    ///   - mode: Where the callback runs: ``DeliveryMode/postingThread`` for the
    ///     thread that fires. Settable later through ``SignalSubscription/deliveryMode``.
    ///   - callback: Called with the observer and the fired values.
    /// - Returns: A handle that can cancel the subscription or change its mode; the
    ///   subscription lives on without it.
    @inlinable
    @discardableResult
    public func subscribe<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        on mode: DeliveryMode,
        _ callback: @escaping @Sendable (Observer, repeat each Value) throws -> Void
    ) -> Subscription {
        // Inlinable so that the closure erasing the observer's type is specialized
        // where the callback is known: unspecialized, forwarding the values costs a
        // generic copy of each, on every fire.
        return add(observer, type: Observer.self, on: mode) { (observer: AnyObject, value: repeat each Value) in
            try callback(unsafeDowncast(observer, to: Observer.self), repeat each value)
        }
    }

    /// Adds a subscription whose callback takes the observer type-erased.
    @usableFromInline
    func add(
        _ observer: AnyObject,
        type observerType: Any.Type,
        on mode: DeliveryMode,
        mainActorCallback: Bool = false,
        _ callback: @escaping SignalEntry<repeat each Value>.Callback
    ) -> Subscription {
        mode.prepare()
        let entry = SignalEntry(
            core: core, observer: observer, observerType: observerType, delivery: mode,
            mainActorCallback: mainActorCallback, callback: callback
        )
        let added = core.add(entry)
        if added.listed > added.limit || added.listed >= added.purgeAt {
            // Subscriptions whose observer died do not count; they leave now. Beyond
            // the limit, on every add; below it, once the list doubled since the
            // last purge, which keeps adding O(1) amortized.
            let count = core.purge()
            if count > added.limit {
                Diagnostics.emit(
                    .observerLimitExceeded,
                    "\(core.typeName) has \(count) subscriptions, more than its maxSubscriptions (\(added.limit)); the new one (\(observerType)) was made anyway. A leak or a repeated subscribe? If so many are intended, raise maxSubscriptions."
                )
            }
        }
        added.hook?(entry)
        return entry
    }

    /// Ends every subscription of `observer` to this signal, or, given a
    /// ``SignalSubscription`` of this signal, that subscription.
    ///
    /// ```swift
    /// request.onProgress.unsubscribe(self)
    /// ```
    ///
    /// Subscriptions whose observer deallocated leave too, as in Uber Signals.
    /// ``subscriptionRemoved`` is called for each, on this thread.
    public func unsubscribe(_ observer: AnyObject) {
        let snapshot = core.withLock { core.observers }
        // Matched outside the lock: reading a reference retains and releases the
        // observer, and that release may be its last.
        var matching: [SignalSubscription] = [], dead: [SignalSubscription] = []
        for entry in snapshot {
            if entry === observer || entry.reference.refers(to: observer) {
                matching.append(entry)
            } else if !entry.isObserverAlive {
                dead.append(entry)
            }
        }
        core.remove(matching, cancelling: true)
        core.remove(dead, cancelling: false)
    }

    /// Ends every subscription to this signal; ``subscriptionRemoved`` is called for
    /// each, on this thread.
    public func unsubscribeAll() {
        core.removeAll()
    }

    /// How many subscriptions the signal has whose observer lives.
    ///
    /// Reading it first removes the subscriptions whose observer deallocated (which
    /// calls ``subscriptionRemoved`` for them), so it counts only live ones.
    public var subscriptionCount: Int {
        core.purge()
    }

    /// How many subscriptions the signal expects at most; 100 unless set (Uber's
    /// `maxObservers`).
    ///
    /// As in Uber Signals, a limit makes oversubscription visible: an observer that
    /// leaks, or an object that subscribes again each time a screen appears.
    /// Subscribing beyond it, or lowering it below the current count, is reported
    /// through ``Diagnostics`` as ``Diagnostic/Code/observerLimitExceeded``. Nothing
    /// is refused or removed: the limit only reports.
    ///
    /// ```swift
    /// onNetworkResult.maxSubscriptions = 500
    /// ```
    public var maxSubscriptions: Int {
        get { core.withLock { core.maxSubscriptions } }
        set {
            let count = core.withLock {
                core.maxSubscriptions = newValue
                return core.listed
            }
            guard count > newValue else { return }
            let live = core.purge()
            if live > newValue {
                Diagnostics.emit(
                    .observerLimitExceeded,
                    "maxSubscriptions of \(core.typeName) was lowered to \(newValue), below its \(live) subscriptions; they all stay. Cancel subscriptions first, or keep the limit above their count."
                )
            }
        }
    }

    // MARK: Hooks

    /// Called with each new subscription, after it was made (Uber's
    /// `observerAdded`).
    ///
    /// ```swift
    /// onLocation.subscriptionAdded = { [manager] _ in manager.startUpdatingLocation() }
    /// ```
    ///
    /// It runs on the thread that called ``subscribe(_:on:_:)``, after the signal
    /// released its lock, so it may use the signal.
    public var subscriptionAdded: (@Sendable (SignalSubscription) -> Void)? {
        get { core.withLock { core.subscriptionAdded } }
        set {
            var replaced = newValue
            core.withLock { swap(&replaced, &core.subscriptionAdded) }
            withExtendedLifetime(replaced) {}
        }
    }

    /// Called with each subscription that ends while listed: cancelled,
    /// unsubscribed, done after its one fire, or found with its observer deallocated
    /// (Uber's `observerRemoved`).
    ///
    /// ```swift
    /// onLocation.subscriptionRemoved = { [weak self] _ in
    ///     guard let self, onLocation.subscriptionCount == 0 else { return }
    ///     manager.stopUpdatingLocation()
    /// }
    /// ```
    ///
    /// It runs once per subscription, after the signal released its lock, on the
    /// thread that ended it: the caller of ``SignalSubscription/cancel()``,
    /// ``unsubscribe(_:)`` or ``unsubscribeAll()``, or the thread that fired,
    /// subscribed or counted and found the observer gone. It is not called when the
    /// signal itself deallocates.
    public var subscriptionRemoved: (@Sendable (SignalSubscription) -> Void)? {
        get { core.withLock { core.subscriptionRemoved } }
        set {
            var replaced = newValue
            core.withLock { swap(&replaced, &core.subscriptionRemoved) }
            withExtendedLifetime(replaced) {}
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal: CustomStringConvertible, CustomDebugStringConvertible {
    /// The signal's type and how many subscriptions it lists, as
    /// `Signal<Int>(2 subscriptions)`.
    public var description: String {
        let count = core.withLock { core.listed }
        return "\(core.typeName)(\(count) subscription\(count == 1 ? "" : "s"))"
    }

    /// The description, the limit, the last values fired, and one line per
    /// subscription:
    ///
    /// ```
    /// Signal<Int>(2 subscriptions, max 100, last fired 42)
    ///   SignalSubscription(ProgressView on Signal<Int>, postingThread)
    ///   SignalSubscription(StatusBar on Signal<Int>, mainThread, cancelsAfterNextFire)
    /// ```
    public var debugDescription: String {
        let (subscriptions, limit, last) = core.withLock { (core.observers, core.maxSubscriptions, core.lastFired.pointee) }
        let lastText = last.map { "last fired \($0)" } ?? "never fired"
        let count = subscriptions.count
        var lines = ["\(core.typeName)(\(count) subscription\(count == 1 ? "" : "s"), max \(limit), \(lastText))"]
        for subscription in subscriptions {
            lines.append("  \(subscription)")
        }
        return lines.joined(separator: "\n")
    }
}
