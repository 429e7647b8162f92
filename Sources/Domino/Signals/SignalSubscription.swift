/// A handle on one subscription to a ``Signal``, as Uber Signals' `UBSignalObserver`.
///
/// ``Signal/subscribe(_:on:_:)`` returns one. It is a ``Subscription``, so node and
/// signal handles can be kept in one collection and cancelled alike:
///
/// ```swift
/// var subscriptions: [Subscription] = []
/// subscriptions.append(screenNode.subscribe(ContentDidLoad.self, owner: self) { screen, _ in screen.reload() })
/// subscriptions.append(request.onProgress.subscribe(self) { screen, progress in screen.progress = progress })
/// // ...
/// subscriptions.forEach { $0.cancel() }
/// ```
///
/// Subscriptions are attach-and-forget: dropping the handle does not end the
/// subscription. It ends when you call ``cancel()``, after its one fire when
/// ``cancelsAfterNextFire`` is on, when the observer object deallocates, when the
/// signal removes it (``Signal/unsubscribe(_:)``, ``Signal/unsubscribeAll()``), or
/// when the signal deallocates.
///
/// ```swift
/// let subscription = request.onProgress.subscribe(self) { controller, progress in
///     controller.progressView.progress = progress
/// }
/// subscription.deliveryMode = .mainThread
/// // ...
/// subscription.cancel()
/// ```
///
/// `subscribe` returns the typed subclass, ``Signal/Subscription``, whose operators
/// (``Signal/Subscription/filter(_:)``, ``Signal/Subscription/sample(every:)``,
/// ``Signal/Subscription/debounce(for:)``) see the signal's value types.
///
/// Every member is safe to call from any thread, from inside any callback.
///
/// Invariant (for `@unchecked Sendable`): `currentMode` and `slot` are read and
/// written only under the core's lock; everything else is immutable, or atomic
/// (`flags`). The node-side state inherited from ``Subscription`` is never set: a
/// signal's subscription belongs to no node.
public class SignalSubscription: Subscription, @unchecked Sendable {
    /// The signal's state, kept alive by its subscriptions so that they can leave it
    /// after the signal deallocated.
    let core: SignalCore
    /// Read by fires without a lock; see ``ObserverFlags``.
    @usableFromInline let flags: ObserverFlags
    @usableFromInline let reference: ObserverReference
    let observerType: Any.Type
    @exclusivity(unchecked) var currentMode: DeliveryMode
    /// Where the signal's current list holds this subscription, or -1 once it left
    /// the list (or before it joined). Read and written under the core's lock.
    @exclusivity(unchecked) var slot = -1

    init(core: SignalCore, observer: AnyObject, observerType: Any.Type, delivery: DeliveryMode, mainActorCallback: Bool) {
        self.core = core
        var initial: UInt = mainActorCallback ? ObserverFlags.mainActorCallback : 0
        if delivery.isPostingThread && !mainActorCallback { initial |= ObserverFlags.postingThread }
        if delivery.isMainThread { initial |= ObserverFlags.mainThread }
        flags = ObserverFlags(initial)
        reference = ObserverReference(observer)
        self.observerType = observerType
        currentMode = delivery
        super.init(role: .subscriber, delivery: nil)
        #if DEBUG
        InstanceTracker.track(observer, "signal observer \(observerType)")
        #endif
    }

    deinit {
        flags.deallocate()
    }

    /// Ends the subscription.
    ///
    /// After `cancel()` returns, no fire that starts afterwards calls the callback,
    /// nor does a delivery already queued for ``deliveryMode``, nor a fire already
    /// running whose turn for this subscription has not come yet (a callback
    /// cancelling a later subscription of the same fire, for example). Only a fire
    /// on another thread that had already reached this subscription may still call
    /// it, or be inside the callback.
    ///
    /// Calling it again, or from inside the callback itself, is harmless. The
    /// signal's ``Signal/subscriptionRemoved`` hook runs once, on this thread.
    public override func cancel() {
        core.remove([self], cancelling: true)
    }

    /// When true, the next fire that reaches this subscription cancels it: the
    /// callback runs once more, then never again.
    ///
    /// ```swift
    /// request.onResult.subscribe(self) { controller, data, error in
    ///     controller.show(data, error)
    /// }.cancelsAfterNextFire = true
    /// ```
    ///
    /// When several threads fire at once, exactly one of them delivers that last
    /// call. ``firePreviousData()`` and ``Signal/fire(for:_:)`` count as that fire.
    public var cancelsAfterNextFire: Bool {
        get { flags.load() & (ObserverFlags.cancelsAfterNextFire | ObserverFlags.stagedOnce) != 0 }
        set {
            // Under the lock, so that adding operators (which moves the bit) and this
            // do not interleave.
            core.withLock {
                let bit = flags.load() & ObserverFlags.staged != 0 ? ObserverFlags.stagedOnce : ObserverFlags.cancelsAfterNextFire
                if newValue {
                    flags.insert(bit)
                } else {
                    flags.remove(bit)
                }
            }
        }
    }

    /// Where the callback runs; ``DeliveryMode/postingThread`` unless chosen when
    /// subscribing, as in Uber Signals, where the callback runs on the queue the
    /// signal fires on.
    ///
    /// A queue mode runs the callback synchronously when the signal fires on that
    /// queue, and queues it otherwise (as Uber's `operationQueue`). The observer is
    /// not retained while the delivery waits in the queue; if it deallocates
    /// meanwhile, the delivery is dropped. Changing the mode affects fires that
    /// start afterwards.
    ///
    /// ```swift
    /// subscription.deliveryMode = .mainThread
    /// subscription.deliveryMode = .queue(renderQueue)
    /// ```
    public var deliveryMode: DeliveryMode {
        get { core.withLock { currentMode } }
        set {
            newValue.prepare()
            let previous = core.withLock {
                let previous = currentMode
                currentMode = newValue
                // Under the lock, so the bit and the stored mode change together
                // for readers of the mode; fires read the bit without it.
                // A subscription with operators keeps its bit aside (see
                // ObserverFlags.staged); one whose callback is the main actor's has
                // none (see ObserverFlags.mainActorCallback).
                let state = flags.load()
                let bit = state & ObserverFlags.staged != 0 ? ObserverFlags.stagedPostingThread : ObserverFlags.postingThread
                if newValue.isPostingThread && state & ObserverFlags.mainActorCallback == 0 {
                    flags.insert(bit)
                } else {
                    flags.remove(bit)
                }
                if newValue.isMainThread {
                    flags.insert(ObserverFlags.mainThread)
                } else {
                    flags.remove(ObserverFlags.mainThread)
                }
                return previous
            }
            // Released after unlocking: it may hold the last reference to a queue.
            withExtendedLifetime(previous) {}
        }
    }

    /// Calls the callback, for this subscription only, with the values the signal
    /// last fired, as Uber's `firePreviousData`.
    ///
    /// ```swift
    /// // Catch up with the current state, then follow its changes.
    /// settings.onChange.subscribe(self) { controller, value in
    ///     controller.apply(value)
    /// }.firePreviousData()
    /// ```
    ///
    /// The callback runs according to ``SignalSubscription/deliveryMode``, like a fire.
    ///
    /// - Returns: False when there is nothing to deliver: the signal never fired,
    ///   or this subscription has ended (which includes its signal deallocating).
    ///   A signal of no values (`EmptySignal`) that fired delivers, and returns true.
    @discardableResult
    public func firePreviousData() -> Bool {
        preconditionFailure("abstract")
    }

    /// True until the subscription ends (cancelled, removed, its one fire done, its
    /// observer or its signal gone).
    public override var isActive: Bool {
        flags.load() & ObserverFlags.ended == 0 && isObserverAlive
    }

    /// The observer's type, the signal's type, the mode, and the state, as
    /// `SignalSubscription(ProgressView on Signal<Double>, mainThread, cancelsAfterNextFire)`.
    public override var description: String {
        var traits = ["\(deliveryMode)"]
        if cancelsAfterNextFire { traits.append("cancelsAfterNextFire") }
        if !isActive { traits.append("ended") }
        return "SignalSubscription(\(observerType) on \(core.typeName), \(traits.joined(separator: ", ")))"
    }

    override var payloadName: String { core.typeName }

    /// Called once the subscription is cancelled or removed, outside the lock:
    /// cancels what its operators have pending.
    func endOperators() {}

    /// True while the observer object lives. Retains and releases it: call it
    /// outside any lock.
    var isObserverAlive: Bool {
        reference.load() != nil
    }
}
