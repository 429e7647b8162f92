/// A handle on one observation of a ``Signal``, as Uber Signals' `UBSignalObserver`.
///
/// ``Signal/addObserver(_:on:_:)`` returns one. Observations are attach-and-forget:
/// dropping the handle does not end the observation. It ends when you call
/// ``cancel()``, after its one fire when ``cancelsAfterNextFire`` is on, when the
/// observer object deallocates, when the signal removes it
/// (``Signal/removeObserver(_:)``, ``Signal/removeAllObservers()``), or when the
/// signal deallocates.
///
/// ```swift
/// let observation = request.onProgress.addObserver(self) { controller, progress in
///     controller.progressView.progress = progress
/// }
/// observation.deliveryMode = .mainThread
/// // ...
/// observation.cancel()
/// ```
///
/// Every member is safe to call from any thread, from inside any callback.
///
/// Invariant (for `@unchecked Sendable`): `delivery` is read and written only under
/// the core's lock; everything else is immutable, or atomic (`flags`).
public class SignalObserver: @unchecked Sendable, CustomStringConvertible {
    /// The signal's state, kept alive by its observers so that they can leave it
    /// after the signal deallocated.
    let core: SignalCore
    /// Read by fires without a lock; see ``ObserverFlags``.
    @usableFromInline let flags: ObserverFlags
    @usableFromInline let reference: ObserverReference
    let observerType: Any.Type
    @exclusivity(unchecked) var delivery: DeliveryMode

    init(core: SignalCore, observer: AnyObject, observerType: Any.Type, delivery: DeliveryMode) {
        self.core = core
        flags = ObserverFlags(delivery.isPostingThread ? ObserverFlags.postingThread : 0)
        reference = ObserverReference(observer)
        self.observerType = observerType
        self.delivery = delivery
        #if DEBUG
        InstanceTracker.track(observer, "signal observer \(observerType)")
        #endif
    }

    deinit {
        flags.deallocate()
    }

    /// Ends the observation.
    ///
    /// After `cancel()` returns, no fire that starts afterwards calls the callback,
    /// nor does a delivery already queued for ``deliveryMode``, nor a fire already
    /// running whose turn for this observer has not come yet (a callback cancelling
    /// a later observer of the same fire, for example). Only a fire on another
    /// thread that had already reached this observer may still call it, or be
    /// inside the callback.
    ///
    /// Calling it again, or from inside the callback itself, is harmless. The
    /// signal's ``Signal/observerRemoved`` hook runs once, on this thread.
    public func cancel() {
        core.remove([self], cancelling: true)
    }

    /// When true, the next fire that reaches this observer cancels it: the callback
    /// runs once more, then never again.
    ///
    /// ```swift
    /// request.onResult.addObserver(self) { controller, data, error in
    ///     controller.show(data, error)
    /// }.cancelsAfterNextFire = true
    /// ```
    ///
    /// When several threads fire at once, exactly one of them delivers that last
    /// call. ``firePreviousData()`` and ``Signal/fire(for:_:)`` count as that fire.
    public var cancelsAfterNextFire: Bool {
        get { flags.load() & ObserverFlags.cancelsAfterNextFire != 0 }
        set {
            if newValue {
                flags.insert(ObserverFlags.cancelsAfterNextFire)
            } else {
                flags.remove(ObserverFlags.cancelsAfterNextFire)
            }
        }
    }

    /// Where the callback runs; ``DeliveryMode/postingThread`` unless chosen when
    /// adding, as in Uber Signals, where the callback runs on the queue the signal
    /// fires on.
    ///
    /// A queue mode runs the callback synchronously when the signal fires on that
    /// queue, and queues it otherwise (as Uber's `operationQueue`). The observer is
    /// not retained while the delivery waits in the queue; if it deallocates
    /// meanwhile, the delivery is dropped. Changing the mode affects fires that
    /// start afterwards.
    ///
    /// ```swift
    /// observation.deliveryMode = .mainThread
    /// observation.deliveryMode = .queue(renderQueue)
    /// ```
    public var deliveryMode: DeliveryMode {
        get { core.withLock { delivery } }
        set {
            newValue.prepare()
            let previous = core.withLock {
                let previous = delivery
                delivery = newValue
                // Under the lock, so the bit and the stored mode change together
                // for readers of the mode; fires read the bit without it.
                if newValue.isPostingThread {
                    flags.insert(ObserverFlags.postingThread)
                } else {
                    flags.remove(ObserverFlags.postingThread)
                }
                return previous
            }
            // Released after unlocking: it may hold the last reference to a queue.
            withExtendedLifetime(previous) {}
        }
    }

    /// Calls the callback, for this observer only, with the values the signal last
    /// fired, as Uber's `firePreviousData`.
    ///
    /// ```swift
    /// // Catch up with the current state, then follow its changes.
    /// settings.onChange.addObserver(self) { controller, value in
    ///     controller.apply(value)
    /// }.firePreviousData()
    /// ```
    ///
    /// The callback runs according to ``deliveryMode``, like a fire.
    ///
    /// - Returns: False when there is nothing to deliver: the signal never fired,
    ///   or this observation has ended (which includes its signal deallocating).
    @discardableResult
    public func firePreviousData() -> Bool {
        preconditionFailure("abstract")
    }

    /// True until the observation ends (cancelled, removed, its one fire done, its
    /// observer or its signal gone).
    public var isActive: Bool {
        flags.load() & ObserverFlags.ended == 0 && isObserverAlive
    }

    /// The observer's type, the signal's type, the mode, and the state, as
    /// `SignalObserver(ProgressView on Signal<Double>, mainThread, cancelsAfterNextFire)`.
    public var description: String {
        var traits = ["\(deliveryMode)"]
        if cancelsAfterNextFire { traits.append("cancelsAfterNextFire") }
        if !isActive { traits.append("ended") }
        return "SignalObserver(\(observerType) on \(core.typeName), \(traits.joined(separator: ", ")))"
    }

    /// True while the observer object lives. Retains and releases it: call it
    /// outside any lock.
    var isObserverAlive: Bool {
        reference.load() != nil
    }
}
