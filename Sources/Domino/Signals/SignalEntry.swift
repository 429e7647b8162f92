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

/// One subscription to a `Signal<repeat each Value>`: a ``SignalSubscription`` with the
/// callback, the one part that depends on the signal's value types.
///
/// `@unchecked Sendable` as its superclass (see there); the callback is immutable
/// and `@Sendable`.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
final class SignalEntry<each Value: Sendable>: SignalSubscription, @unchecked Sendable {
    /// The user's callback, with the observer's static type erased.
    @usableFromInline typealias Callback = @Sendable (AnyObject, repeat each Value) throws -> Void

    @usableFromInline let callback: Callback

    init(core: TypedSignalCore<repeat each Value>, observer: AnyObject, observerType: Any.Type, delivery: DeliveryMode, callback: @escaping Callback) {
        self.callback = callback
        super.init(core: core, observer: observer, observerType: observerType, delivery: delivery)
    }

    /// The core, with its value types.
    var typedCore: TypedSignalCore<repeat each Value> {
        unsafeDowncast(core, to: TypedSignalCore<repeat each Value>.self)
    }

    /// Delivers one fire: checks the flags, claims the last call of a one-shot
    /// observer, then runs the callback here or hands it to the delivery mode.
    @inlinable
    func deliver(_ value: repeat each Value) -> SignalDelivery {
        let state = flags.load()
        if state & ObserverFlags.ended != 0 { return .skipped }
        var delivered = SignalDelivery.delivered
        if state & ObserverFlags.cancelsAfterNextFire != 0 {
            guard flags.insert(ObserverFlags.spent, unlessAnyOf: ObserverFlags.ended) else { return .skipped }
            delivered = .deliveredLast
        }
        if state & ObserverFlags.postingThread != 0 {
            // The strong reference keeps the observer alive for the whole call.
            guard let observer = reference.load() else { return .observerGone }
            do { try callback(observer, repeat each value) } catch { callbackThrew(error) }
            return delivered
        }
        return deliverByMode(repeat each value) ? delivered : .observerGone
    }

    /// Reports an error the callback threw (see `SignalCore.callbackThrew`).
    @usableFromInline
    @inline(never)
    func callbackThrew(_ error: any Error) {
        core.callbackThrew(error, observerType: observerType)
    }

    /// The slow path of `deliver`, for modes other than the posting thread: runs the
    /// callback now when this thread is where the mode says, else queues it.
    /// Returns false when the observer is gone.
    @usableFromInline
    func deliverByMode(_ value: repeat each Value) -> Bool {
        let mode = core.withLock { currentMode }
        if mode.isCurrent(ThreadState.current) {
            guard let observer = reference.load() else { return false }
            do { try callback(observer, repeat each value) } catch { core.callbackThrew(error, observerType: observerType) }
            return true
        }
        let values = (repeat each value)
        mode.schedule { [self] in
            deliverQueued(repeat each values)
        }
        return true
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

    override func firePreviousData() -> Bool {
        let core = typedCore
        let values = core.withLock { core.lastFired }
        guard let values else { return false }
        return deliverAlone(repeat each values)
    }
}

/// A signal callback written in isolated code, which is not `Sendable`. It is only
/// called in the isolation it was written in: on the main actor (through
/// `runOnMainActor`) or inside `runIsolated(on:)`; that is what makes carrying it in
/// a `Sendable` box sound.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
final class IsolatedCallback<Observer, each Value>: @unchecked Sendable {
    @usableFromInline let body: (Observer, repeat each Value) throws -> Void

    @usableFromInline
    init(_ body: @escaping (Observer, repeat each Value) throws -> Void) {
        self.body = body
    }
}
