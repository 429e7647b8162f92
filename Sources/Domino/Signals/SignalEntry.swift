/// What delivering to one observer came to.
@usableFromInline
enum SignalDelivery {
    /// Nothing ran: the observation had ended, or another fire claimed its last call.
    case skipped
    /// The callback ran, or was queued.
    case delivered
    /// The callback ran, or was queued, for the last time
    /// (``SignalSubscription/cancelsAfterNextFire``): the entry leaves the signal.
    case deliveredLast
    /// The observer has deallocated: the entry leaves the signal.
    case observerGone

    /// The callback ran or was queued.
    @inlinable
    var didDeliver: Bool {
        switch self {
        case .delivered, .deliveredLast: return true
        case .skipped, .observerGone: return false
        }
    }

    /// The entry must leave its signal.
    @inlinable
    var endsObservation: Bool {
        switch self {
        case .deliveredLast, .observerGone: return true
        case .skipped, .delivered: return false
        }
    }
}

/// The handle on one subscription to a `Signal<repeat each Value>`: a
/// ``SignalSubscription`` that knows the signal's value types, so that operators
/// such as ``filter(_:)`` see the values typed.
///
/// ``Signal/subscribe(_:on:_:)`` returns one; use it wherever a
/// ``SignalSubscription`` is expected.
///
/// `@unchecked Sendable` as its superclass (see there); the callback is immutable
/// and `@Sendable`, and the operators are guarded by the signal's lock.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal {
public final class Subscription: SignalSubscription, @unchecked Sendable {
    /// The user's callback, with the observer's static type erased.
    @usableFromInline typealias Callback = @Sendable (AnyObject, repeat each Value) throws -> Void

    @usableFromInline let callback: Callback

    /// The operators values pass before the callback (see SignalOperators.swift);
    /// nil until one is added. Read and written under the core's lock; fires read
    /// the copy `flags` publishes instead.
    @exclusivity(unchecked) var operators: SignalOperators<repeat each Value>?

    init(
        core: TypedSignalCore<repeat each Value>, observer: AnyObject, observerType: Any.Type,
        delivery: DeliveryMode, mainActorCallback: Bool, callback: @escaping Callback
    ) {
        self.callback = callback
        super.init(core: core, observer: observer, observerType: observerType, delivery: delivery, mainActorCallback: mainActorCallback)
    }

    /// The core, with its value types.
    var typedCore: TypedSignalCore<repeat each Value> {
        unsafeDowncast(core, to: TypedSignalCore<repeat each Value>.self)
    }

    /// Delivers one fire: checks the flags, claims the last call of a one-shot
    /// observer, then runs the callback here or hands it to the delivery mode.
    ///
    /// Operators cost nothing here: a subscription that has any keeps neither the
    /// posting-thread nor the one-shot bit (see ``ObserverFlags/staged``), so its
    /// fires take the slow path, ``deliverByMode(flags:_:)``, which hands the values to
    /// them. (Testing for them here instead kept this from being inlined into the
    /// fire loop: about 20 instructions more per subscription.)
    @inlinable
    func deliver(_ value: repeat each Value) -> SignalDelivery {
        deliver(flags: flags.load(), repeat each value)
    }

    /// `deliver(_:)` with the flags already loaded (a fire loads them to skip cleared
    /// slots; see ``ObserverList/cleared``).
    @inlinable
    func deliver(flags state: UInt, _ value: repeat each Value) -> SignalDelivery {
        if state & ObserverFlags.ended != 0 { return .skipped }
        var delivered = SignalDelivery.delivered
        if state & ObserverFlags.cancelsAfterNextFire != 0 {
            guard flags.insert(ObserverFlags.spent, unlessAnyOf: ObserverFlags.ended) else { return .skipped }
            delivered = .deliveredLast
        }
        // In place: on the posting thread's mode, or on the main thread's (a main-actor
        // observer's) when this is the main thread and no operators come first. (On
        // the slow path, the main-thread case cost a main-actor fire 60 instructions:
        // the call, its frame, the operators' load.)
        if state & ObserverFlags.postingThread != 0
            || state & (ObserverFlags.mainThread | ObserverFlags.staged) == ObserverFlags.mainThread && isOnMainThread() {
            // The strong reference keeps the observer alive for the whole call.
            guard let observer = reference.load() else { return .observerGone }
            do { try callback(observer, repeat each value) } catch { callbackThrew(error) }
            return delivered
        }
        return deliverByMode(flags: state, repeat each value) ? delivered : .observerGone
    }

    /// Runs the callback on this thread: what every path that found itself where the
    /// callback runs calls, but `deliver(flags:_:)`'s posting-thread case, which keeps
    /// its own copy for the fire loop's code. Returns false when the observer is gone.
    @inlinable @inline(__always)
    func deliverHere(_ value: repeat each Value) -> Bool {
        // The strong reference keeps the observer alive for the whole call.
        guard let observer = reference.load() else { return false }
        do { try callback(observer, repeat each value) } catch { callbackThrew(error) }
        return true
    }

    /// Reports an error the callback threw (see `SignalCore.callbackThrew`).
    @usableFromInline
    @inline(never)
    func callbackThrew(_ error: any Error) {
        core.callbackThrew(error, observerType: observerType)
    }

    /// The slow path of `deliver`: hands the values to the operators when there are
    /// any, else delivers by mode (in place for the main-thread mode on the main
    /// thread, without the lock). Returns false when the observer is gone.
    ///
    /// Inlinable, so that the caller's module specializes it for the values' types
    /// (unspecialized, the stages' generic types were looked up at every fire), and
    /// never inlined, so that the fire loop stays as small as without it.
    @inlinable @inline(never)
    func deliverByMode(flags state: UInt, _ value: repeat each Value) -> Bool {
        // The operators are published before the bits that send fires here change
        // (see `append`), and live as long as this subscription.
        let operators = flags.loadOperators()
        if operators != 0 {
            Unmanaged<SignalOperators<repeat each Value>>
                .fromOpaque(UnsafeRawPointer(bitPattern: operators)!)
                ._withUnsafeGuaranteedRef { $0.push(repeat each value, from: 0, to: self) }
            return true
        }
        if state & ObserverFlags.mainThread != 0 && isOnMainThread() {
            return deliverHere(repeat each value)
        }
        return deliverInMode(repeat each value)
    }

    /// For modes other than the posting thread (and for subscriptions with
    /// operators, whatever their mode): runs the callback now when this thread is
    /// where the mode says, else queues it. Returns false when the observer is gone.
    ///
    /// A callback written in main-actor code runs only on the main thread: off it,
    /// whatever the mode, the delivery is queued there (one hop, with the checks of
    /// any queued delivery: a cancel that returned first wins).
    @usableFromInline
    func deliverInMode(_ value: repeat each Value) -> Bool {
        // A main-actor callback's mode is not read: it would be set aside anyway.
        let mode = flags.load() & ObserverFlags.mainActorCallback != 0
            ? DeliveryMode.mainThread
            : core.withLock { currentMode }
        if mode.isCurrent(ThreadState.current) {
            return deliverHere(repeat each value)
        }
        let values = (repeat each value)
        mode.schedule { [self] in
            deliverQueued(repeat each values)
        }
        return true
    }

    /// Delivers values that came out of the last operator, now or later (a timed
    /// operator calls it from its timer): `deliver` without the operators, with the
    /// one-shot and posting-thread bits they keep aside. Takes the subscription out
    /// of its signal when that ended it.
    @inlinable
    func emit(_ value: repeat each Value) {
        let state = flags.load()
        if state & ObserverFlags.ended != 0 { return }
        var last = false
        if state & ObserverFlags.stagedOnce != 0 {
            guard flags.insert(ObserverFlags.spent, unlessAnyOf: ObserverFlags.ended) else { return }
            last = true
        }
        let observerLives: Bool
        if state & ObserverFlags.stagedPostingThread != 0
            || state & ObserverFlags.mainThread != 0 && isOnMainThread() {
            observerLives = deliverHere(repeat each value)
        } else {
            observerLives = deliverInMode(repeat each value)
        }
        if last || !observerLives {
            leaveSignal()
        }
    }

    /// Takes the subscription out of its signal, without the cancelled mark (its
    /// one fire done, or its observer gone).
    @usableFromInline
    @inline(never)
    func leaveSignal() {
        core.remove([self], cancelling: false)
    }

    /// Cancels the operators' pending timed deliveries.
    override func endOperators() {
        let operators = core.withLock { self.operators }
        operators?.cancelTimers()
    }
    /// Runs a queued delivery, unless the observation was cancelled meanwhile (a
    /// cancel that returned before this runs wins) or the observer is gone.
    private func deliverQueued(_ value: repeat each Value) {
        guard flags.load() & ObserverFlags.cancelled == 0 else { return }
        guard let observer = reference.load() else {
            core.remove([self], cancelling: false)
            return
        }
        do { try callback(observer, repeat each value) } catch { core.callbackThrew(error, observerType: observerType) }
    }

    /// Delivers to this observer alone (``Signal/fire(for:_:)``,
    /// ``SignalSubscription/firePreviousData()``) and takes it out of the signal when
    /// that ended it.
    func deliverAlone(_ value: repeat each Value) -> Bool {
        let outcome = deliver(repeat each value)
        if outcome.endsObservation {
            core.remove([self], cancelling: false)
        }
        return outcome.didDeliver
    }

    @discardableResult
    public override func firePreviousData() -> Bool {
        let core = typedCore
        let values = core.withLock { core.lastFired.pointee }
        guard let values else { return false }
        return deliverAlone(repeat each values)
    }
}
}

/// The typed handle, by the name the signal internals use.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
typealias SignalEntry<each Value: Sendable> = Signal<repeat each Value>.Subscription

/// A signal callback written in an actor's code, which is not `Sendable`. It is only
/// called in the isolation it was written in, inside `runIsolated(on:)`; that is
/// what makes carrying it in a `Sendable` box sound. (A callback written in
/// main-actor code is captured directly, with the same argument: the subscription
/// calls it only on the main thread; see `ObserverFlags.mainActorCallback`.)
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
final class IsolatedCallback<Observer, each Value>: @unchecked Sendable {
    @usableFromInline let body: (Observer, repeat each Value) throws -> Void

    @usableFromInline
    init(_ body: @escaping (Observer, repeat each Value) throws -> Void) {
        self.body = body
    }
}
