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
/// Observers are objects. The signal holds each one weakly, passes it into the
/// callback (so there is no `[weak self]` dance), keeps it alive for the length of a
/// callback, and forgets it when it deallocates:
///
/// ```swift
/// request.onResult.addObserver(self) { controller, data, error in
///     controller.show(data, error)
/// }
/// ```
///
/// Callbacks run on the firing thread unless the observer asks for another
/// ``DeliveryMode`` (see ``SignalObserver/deliveryMode``). A signal is safe to fire,
/// observe and cancel from any number of threads at once, from inside its own
/// callbacks too:
///
/// - A fire delivers to the observers listed when it starts, in the order they
///   were added. An observer added during a fire is not called by that fire.
/// - An observer cancelled or removed before its turn in a running fire is skipped
///   by the rest of that fire (see ``SignalObserver/cancel()``).
/// - No callback and no hook runs while the signal holds its lock, so callbacks may
///   fire, add, cancel and remove freely.
/// - Firing does not retain observers beyond their callbacks.
///
/// Signals live outside the node graph; ``connect(to:_:)`` feeds one into it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public final class Signal<each Value: Sendable>: @unchecked Sendable {
    // The signal's own state is all in the core, which guards it (see SignalCore).
    @usableFromInline let core: TypedSignalCore<repeat each Value>

    /// Creates a signal with no observers that has never fired.
    ///
    /// ```swift
    /// let onNetworkResult = Signal<Data?, (any Error)?>()
    /// let onTap = EmptySignal()
    /// ```
    ///
    /// - Parameter maxObservers: How many observers the signal expects at most (see
    ///   ``maxObservers``).
    public init(maxObservers: Int = 100) {
        core = TypedSignalCore(maxObservers: maxObservers)
    }

    deinit {
        core.close()
    }

    // MARK: Firing

    /// Calls every observer's callback with `value`, and remembers it as
    /// ``lastFired``.
    ///
    /// ```swift
    /// onNetworkResult.fire(data, nil)
    /// onTap.fire()
    /// ```
    ///
    /// Callbacks in ``DeliveryMode/postingThread`` mode (the default) have all run
    /// when `fire` returns; others are queued where their mode says, or run now when
    /// this thread already is there. Observers found deallocated are removed, and
    /// ``observerRemoved`` is called for them, on this thread, after the callbacks.
    @inlinable
    public func fire(_ value: repeat each Value) {
        // Inlinable so that callers specialize it for their value types: unspecialized,
        // handling a pack of values costs several look-ups of type metadata per fire.
        guard let firing = core.enterFiring() else { return }
        defer {
            if firing.traced { core.endFireInterval(firing.nesting) }
            firing.nesting.pointee -= 1
        }
        var previous: (repeat each Value)? = (repeat each value)
        core.lock()
        swap(&previous, &core.lastFired)
        let reading = core.listForFiringLocked()
        core.unlock()
        // The values fired before may hold the last reference to a user object:
        // released here, after unlocking.
        withExtendedLifetime(previous) {}
        guard let reading else { return }

        // The fire holds the list (see ObserverList), and the list its entries, so the
        // entries are used without retaining them.
        var ended: [SignalObserver]?
        let (base, count) = reading._withUnsafeGuaranteedRef { ($0.base, $0.count) }
        for index in 0..<count {
            base[index]._withUnsafeGuaranteedRef { observer in
                let entry = unsafeDowncast(observer, to: SignalEntry<repeat each Value>.self)
                if entry.deliver(repeat each value).endsObservation {
                    if ended == nil { ended = [] }
                    ended?.append(observer)
                }
            }
        }
        // Released after the callbacks: if the list was replaced meanwhile, this may
        // be its last reference, and with it an entry's.
        reading.release()
        if let ended {
            core.remove(ended, cancelling: false)
        }
    }

    /// Calls one observer's callback with `value`, as if the signal fired for it
    /// alone. ``lastFired`` does not change: the values were meant for this observer
    /// only, so ``SignalObserver/firePreviousData()`` does not hand them to others.
    ///
    /// ```swift
    /// let observation = onStatus.addObserver(self) { controller, status in
    ///     controller.render(status)
    /// }
    /// onStatus.fire(for: observation, .idle)   // this observer's first state
    /// ```
    ///
    /// - Returns: True when the callback ran or was queued; false when `observer`
    ///   belongs to another signal or its observation has ended.
    @discardableResult
    public func fire(for observer: SignalObserver, _ value: repeat each Value) -> Bool {
        // The same core means the same value types, so the downcast is sound.
        guard observer.core === core else { return false }
        return unsafeDowncast(observer, to: SignalEntry<repeat each Value>.self).deliverAlone(repeat each value)
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
        core.withLock { core.lastFired }
    }

    // MARK: Observing

    /// Adds `observer`, whose `callback` runs in the caller's isolation with each
    /// fire: written in main-actor code (a `@MainActor` view controller), on the main
    /// actor, in place when the signal fires on the main thread, else soon after on
    /// the main queue; written in an actor's code, on that actor, enqueued.
    ///
    /// ```swift
    /// request.onProgress.addObserver(self) { controller, progress in
    ///     controller.progressView.progress = Float(progress)   // main-actor state
    /// }
    /// ```
    ///
    /// Nonisolated code names a mode instead: ``addObserver(_:on:_:)``. Should the
    /// handle's ``SignalObserver/deliveryMode`` be changed, a main-actor callback
    /// still runs on the main actor, one hop later. Everything else is as for
    /// ``addObserver(_:on:_:)``.
    @inlinable
    @discardableResult
    public func addObserver<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        isolation: isolated (any Actor) = #isolation,
        _ callback: @escaping (Observer, repeat each Value) -> Void
    ) -> SignalObserver {
        // The callback is not `Sendable`: it belongs to the caller's isolation and
        // only ever runs there (see `IsolatedCallback`).
        let handler = IsolatedCallback<Observer, repeat each Value>(callback)
        if isolation === MainActor.shared {
            return add(observer, type: Observer.self, on: .mainThread) { (observer: AnyObject, value: repeat each Value) in
                let typed = unsafeDowncast(observer, to: Observer.self)
                runOnMainActor { handler.body(typed, repeat each value) }
            }
        }
        let actor: any Actor = isolation
        return add(observer, type: Observer.self, on: .postingThread) { (observer: AnyObject, value: repeat each Value) in
            let typed = unsafeDowncast(observer, to: Observer.self)
            Task { await runIsolated(on: actor) { handler.body(typed, repeat each value) } }
        }
    }

    /// Adds `observer`, whose `@Sendable` callback the signal calls with each fire,
    /// where `mode` says: the form for nonisolated code.
    ///
    /// ```swift
    /// request.onResult.addObserver(cache, on: .postingThread) { cache, data, error in
    ///     cache.store(data)
    /// }
    /// ```
    ///
    /// The signal holds `observer` weakly and passes it into `callback`, so the
    /// callback need not capture it; `observer` stays alive until the callback
    /// returns, and the observation ends when it deallocates. One object may observe
    /// a signal several times; each call adds an observation.
    ///
    /// Adding beyond ``maxObservers`` (counting only live observers) is reported as
    /// ``Diagnostic/Code/observerLimitExceeded``; the observer is added all the same.
    ///
    /// - Parameters:
    ///   - observer: The object on whose behalf the callback runs.
    ///   - mode: Where the callback runs: ``DeliveryMode/postingThread`` for the
    ///     thread that fires. Settable later through ``SignalObserver/deliveryMode``.
    ///   - callback: Called with the observer and the fired values.
    /// - Returns: A handle that can cancel the observation or change its mode; the
    ///   observation lives on without it.
    @inlinable
    @discardableResult
    public func addObserver<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        on mode: DeliveryMode,
        _ callback: @escaping @Sendable (Observer, repeat each Value) -> Void
    ) -> SignalObserver {
        // Inlinable so that the closure erasing the observer's type is specialized
        // where the callback is known: unspecialized, forwarding the values costs a
        // generic copy of each, on every fire.
        return add(observer, type: Observer.self, on: mode) { (observer: AnyObject, value: repeat each Value) in
            callback(unsafeDowncast(observer, to: Observer.self), repeat each value)
        }
    }

    /// Adds `observer` with a callback isolated to the main actor, such as a method
    /// of a `@MainActor` view controller: it runs on the main actor, in place when the
    /// signal fires on the main thread, else soon after on the main queue.
    ///
    /// Superseded by ``addObserver(_:isolation:_:)``, which needs no separate name:
    /// a callback written in main-actor code runs on the main actor.
    ///
    /// ```swift
    /// request.onProgress.addObserverOnMainActor(self) { controller, progress in
    ///     controller.progressView.progress = Float(progress)
    /// }
    /// ```
    ///
    /// Everything else is as for ``addObserver(_:on:_:)``. Should the handle's
    /// ``SignalObserver/deliveryMode`` be changed to another thread or queue, the
    /// callback still runs on the main actor, one hop later.
    @available(*, deprecated, message: "Call addObserver(_:_:) from main-actor code: a callback written there runs on the main actor (see Domino in main-actor app code).")
    @inlinable
    @discardableResult
    public func addObserverOnMainActor<Observer: AnyObject & Sendable>(
        _ observer: Observer,
        _ callback: @escaping @MainActor @Sendable (Observer, repeat each Value) -> Void
    ) -> SignalObserver {
        return add(observer, type: Observer.self, on: .mainThread) { (observer: AnyObject, value: repeat each Value) in
            let typed = unsafeDowncast(observer, to: Observer.self)
            runOnMainActor { callback(typed, repeat each value) }
        }
    }

    /// Adds an observation whose callback takes the observer type-erased.
    @usableFromInline
    func add(
        _ observer: AnyObject,
        type observerType: Any.Type,
        on mode: DeliveryMode,
        _ callback: @escaping SignalEntry<repeat each Value>.Callback
    ) -> SignalObserver {
        mode.prepare()
        let entry = SignalEntry(core: core, observer: observer, observerType: observerType, delivery: mode, callback: callback)
        let (listed, limit, hook) = core.add(entry)
        if listed > limit {
            // Dead observers do not count; they leave now.
            let count = core.purge()
            if count > limit {
                Diagnostics.emit(
                    .observerLimitExceeded,
                    "\(core.typeName) has \(count) observers, more than its maxObservers (\(limit)); the new observer (\(observerType)) was added anyway. A leak or a repeated addObserver? If so many are intended, raise maxObservers."
                )
            }
        }
        hook?(entry)
        return entry
    }

    /// Ends every observation of `observer` on this signal.
    ///
    /// ```swift
    /// request.onProgress.removeObserver(self)
    /// ```
    ///
    /// ``observerRemoved`` is called for each, on this thread.
    public func removeObserver(_ observer: AnyObject) {
        let snapshot = core.withLock { core.observers }
        // Matched outside the lock: where the reference is weak, reading it retains
        // and releases, and that release may be an observer's last.
        let matching = snapshot.filter { $0.reference.refers(to: observer) }
        core.remove(matching, cancelling: true)
    }

    /// Ends every observation of this signal; ``observerRemoved`` is called for each,
    /// on this thread.
    public func removeAllObservers() {
        core.removeAll()
    }

    /// How many live observations the signal has.
    ///
    /// Reading it first removes the observations whose observer deallocated (which
    /// calls ``observerRemoved`` for them), so it counts only live ones.
    public var observerCount: Int {
        core.purge()
    }

    /// How many observers the signal expects at most; 100 unless set.
    ///
    /// As in Uber Signals, a limit makes oversubscription visible: an observer that
    /// leaks, or an object that adds itself again each time a screen appears. Adding
    /// beyond it, or lowering it below the current count, is reported through
    /// ``Diagnostics`` as ``Diagnostic/Code/observerLimitExceeded``. Nothing is
    /// refused or removed: the limit only reports.
    ///
    /// ```swift
    /// onNetworkResult.maxObservers = 500
    /// ```
    public var maxObservers: Int {
        get { core.withLock { core.maxObservers } }
        set {
            let count = core.withLock {
                core.maxObservers = newValue
                return core.list.count
            }
            guard count > newValue else { return }
            let live = core.purge()
            if live > newValue {
                Diagnostics.emit(
                    .observerLimitExceeded,
                    "maxObservers of \(core.typeName) was lowered to \(newValue), below its \(live) observers; they all stay. Remove observers first, or keep the limit above their count."
                )
            }
        }
    }

    // MARK: Hooks

    /// Called with each new observation, after it was added (Uber's
    /// `observerAdded`).
    ///
    /// ```swift
    /// onLocation.observerAdded = { [manager] _ in manager.startUpdatingLocation() }
    /// ```
    ///
    /// It runs on the thread that called ``addObserver(_:on:_:)``, after the signal
    /// released its lock, so it may use the signal.
    public var observerAdded: (@Sendable (SignalObserver) -> Void)? {
        get { core.withLock { core.observerAdded } }
        set {
            var replaced = newValue
            core.withLock { swap(&replaced, &core.observerAdded) }
            withExtendedLifetime(replaced) {}
        }
    }

    /// Called with each observation that ends while listed: cancelled, removed,
    /// done after its one fire, or found with its observer deallocated (Uber's
    /// `observerRemoved`).
    ///
    /// ```swift
    /// onLocation.observerRemoved = { [weak self] _ in
    ///     guard let self, onLocation.observerCount == 0 else { return }
    ///     manager.stopUpdatingLocation()
    /// }
    /// ```
    ///
    /// It runs once per observation, after the signal released its lock, on the
    /// thread that ended it: the caller of ``SignalObserver/cancel()`` or of a
    /// removal, or the thread that fired or counted and found the observer gone. It
    /// is not called when the signal itself deallocates.
    public var observerRemoved: (@Sendable (SignalObserver) -> Void)? {
        get { core.withLock { core.observerRemoved } }
        set {
            var replaced = newValue
            core.withLock { swap(&replaced, &core.observerRemoved) }
            withExtendedLifetime(replaced) {}
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal: CustomStringConvertible, CustomDebugStringConvertible {
    /// The signal's type and how many observations it lists, as
    /// `Signal<Int>(2 observers)`.
    public var description: String {
        let count = core.withLock { core.list.count }
        return "\(core.typeName)(\(count) observer\(count == 1 ? "" : "s"))"
    }

    /// The description, the limit, the last values fired, and one line per
    /// observation:
    ///
    /// ```
    /// Signal<Int>(2 observers, max 100, last fired 42)
    ///   SignalObserver(ProgressView on Signal<Int>, postingThread)
    ///   SignalObserver(StatusBar on Signal<Int>, mainThread, cancelsAfterNextFire)
    /// ```
    public var debugDescription: String {
        let (observers, limit, last) = core.withLock { (core.observers, core.maxObservers, core.lastFired) }
        let lastText = last.map { "last fired \($0)" } ?? "never fired"
        let count = observers.count
        var lines = ["\(core.typeName)(\(count) observer\(count == 1 ? "" : "s"), max \(limit), \(lastText))"]
        for observer in observers {
            lines.append("  \(observer)")
        }
        return lines.joined(separator: "\n")
    }
}
