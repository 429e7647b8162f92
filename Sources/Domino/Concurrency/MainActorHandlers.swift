import Dispatch

/// Main-actor handlers by name, superseded by the isolated forms of `subscribe` and
/// `route` (see ``DominoNode/subscribe(_:phase:isolation:_:)-(_,_,_,(E)->Void)``), which
/// need no separate name: a handler written in main-actor code runs on the main
/// actor. Kept, deprecated, for one release.
///
/// ```swift
/// @MainActor final class BadgeViewController {
///     let domino = DominoNode(label: "badge")
///     var count = 0
///
///     func viewDidLoad() {
///         domino.subscribeOnMainActor(UnreadCountDidChange.self, owner: self) { controller, event in
///             controller.count = event.count     // main-actor state, no warning
///         }
///     }
/// }
/// ```
///
/// Delivery is on the main actor: synchronously when the event is posted on the
/// main thread, else enqueued on the main queue (in posting order). The delivery
/// mode is always ``DeliveryMode/mainThread``.
extension DominoNode {
    /// Subscribes a main-actor handler to events of type `E` posted here or below.
    @discardableResult
    @available(*, deprecated, message: "Call subscribe(_:) from main-actor code: a handler written there runs on the main actor (see Domino in main-actor app code).")
    public func subscribeOnMainActor<E: Event>(
        _ type: E.Type,
        phase: Phase = .bubble,
        _ handler: @escaping @MainActor @Sendable (E) -> Void
    ) -> Subscription {
        add(MainActorReceiver<E>(handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes a main-actor handler on behalf of `owner` (a main-actor class, for
    /// example), held weakly and passed in; the subscription ends with the owner.
    @discardableResult
    @available(*, deprecated, message: "Call subscribe(_:) from main-actor code: a handler written there runs on the main actor (see Domino in main-actor app code).")
    public func subscribeOnMainActor<E: Event, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        phase: Phase = .bubble,
        _ handler: @escaping @MainActor @Sendable (Owner, E) -> Void
    ) -> Subscription {
        add(OwnedMainActorReceiver<E, Owner>(owner: owner, handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes a main-actor handler to the named event `name`.
    @discardableResult
    @available(*, deprecated, message: "Call subscribe(_:) from main-actor code: a handler written there runs on the main actor (see Domino in main-actor app code).")
    public func subscribeOnMainActor(
        _ name: EventName,
        phase: Phase = .bubble,
        _ handler: @escaping @MainActor @Sendable (NamedEvent) -> Void
    ) -> Subscription {
        add(MainActorReceiver<NamedEvent>(handler), for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Subscribes a main-actor handler to the named event `name` on behalf of `owner`.
    @discardableResult
    @available(*, deprecated, message: "Call subscribe(_:) from main-actor code: a handler written there runs on the main actor (see Domino in main-actor app code).")
    public func subscribeOnMainActor<Owner: AnyObject & Sendable>(
        _ name: EventName,
        owner: Owner,
        phase: Phase = .bubble,
        _ handler: @escaping @MainActor @Sendable (Owner, NamedEvent) -> Void
    ) -> Subscription {
        add(OwnedMainActorReceiver<NamedEvent, Owner>(owner: owner, handler), for: SlotKey.name(name.rawValue).in(phase))
    }

    /// Routes named events to main-actor methods of `owner`, as ``route(_:to:on:)``
    /// does for nonisolated ones: the responder-chain blog's name-to-selector table
    /// for a `@MainActor` view controller. Each method runs on the main actor, in
    /// place when the event is posted there, else soon after on the main queue.
    ///
    /// ```swift
    /// domino.routeOnMainActor([
    ///     "SelectLimit": FundViewController.didSelectLimit,
    ///     "SelectMinBuyAmount": FundViewController.didSelectMinBuyAmount,
    /// ], to: self)
    /// ```
    ///
    /// - Returns: One subscription per name, in the order of the names' raw values.
    @discardableResult
    @available(*, deprecated, message: "Call route(_:to:) from main-actor code: methods routed there run on the main actor (see Domino in main-actor app code).")
    public func routeOnMainActor<Owner: AnyObject & Sendable>(
        _ routes: [EventName: @MainActor @Sendable (Owner) -> (NamedEvent) -> Void],
        to owner: Owner
    ) -> [Subscription] {
        routes.sorted { $0.key.rawValue < $1.key.rawValue }.map { name, method in
            add(OwnedMainActorReceiver<NamedEvent, Owner>(owner: owner) { owner, event in method(owner)(event) }, for: SlotKey.name(name.rawValue).in(.bubble))
        }
    }
}

/// Runs a main-actor closure. The walk calls `receive` only on the main thread (its
/// mode is `.mainThread`: run in place when posted there, else scheduled on the main
/// queue), which is where the main actor runs, so asserting the isolation is sound.
final class MainActorReceiver<Payload: Sendable>: Receiver<Payload>, @unchecked Sendable {
    let body: @MainActor @Sendable (Payload) -> Void

    init(_ body: @escaping @MainActor @Sendable (Payload) -> Void) {
        self.body = body
        super.init(delivery: .mainThread)
    }

    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        MainActor.assumeIsolated { body(value) }
        return true
    }
}

final class OwnedMainActorReceiver<Payload: Sendable, Owner: AnyObject & Sendable>: Receiver<Payload>, @unchecked Sendable {
    weak var owner: Owner?
    let body: @MainActor @Sendable (Owner, Payload) -> Void

    init(owner: Owner, _ body: @escaping @MainActor @Sendable (Owner, Payload) -> Void) {
        self.owner = owner
        self.body = body
        super.init(delivery: .mainThread)
        #if DEBUG
        InstanceTracker.track(owner, "owner \(type(of: owner))")
        #endif
    }

    override var isOrphaned: Bool { owner == nil }

    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        guard let owner else { return false }
        MainActor.assumeIsolated { body(owner, value) }
        return true
    }
}

/// Runs `body` on the main actor: in place on the main thread (where the main actor
/// runs), else queued on the main queue. For callbacks whose delivery mode should
/// already have brought them to the main thread, so that a changed mode costs a
/// hop instead of a failed isolation check.
@usableFromInline
func runOnMainActor(_ body: @escaping @MainActor @Sendable () -> Void) {
    if DeliveryMode.mainThread.isCurrent(ThreadState.current) {
        MainActor.assumeIsolated(body)
    } else {
        DispatchQueue.main.async { MainActor.assumeIsolated(body) }
    }
}
