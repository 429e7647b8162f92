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
        add(MainActorForwarding.receiver(handler), for: SlotKey.of(E.self).in(phase))
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
        add(MainActorForwarding.receiver(owner: owner, handler), for: SlotKey.of(E.self).in(phase))
    }

    /// Subscribes a main-actor handler to the named event `name`.
    @discardableResult
    @available(*, deprecated, message: "Call subscribe(_:) from main-actor code: a handler written there runs on the main actor (see Domino in main-actor app code).")
    public func subscribeOnMainActor(
        _ name: EventName,
        phase: Phase = .bubble,
        _ handler: @escaping @MainActor @Sendable (NamedEvent) -> Void
    ) -> Subscription {
        add(MainActorForwarding.receiver(handler), for: SlotKey.name(name.rawValue).in(phase))
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
        add(MainActorForwarding.receiver(owner: owner, handler), for: SlotKey.name(name.rawValue).in(phase))
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
            add(MainActorForwarding.receiver(owner: owner) { owner, event in method(owner)(event) }, for: SlotKey.name(name.rawValue).in(.bubble))
        }
    }
}

/// The deprecated forms are forwarders: a handler typed `@MainActor` is an isolated
/// receiver of the main actor, as one written in main-actor code is.
enum MainActorForwarding {
    static func receiver<Payload: Sendable>(
        _ handler: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> IsolatedReceiver<Payload> {
        // The receiver calls its body on the main thread only (see `IsolatedReceiver`).
        IsolatedReceiver(isolation: MainActor.shared, owner: nil) { _, value, _ in
            MainActor.assumeIsolated { handler(value) }
        }
    }

    static func receiver<Payload: Sendable, Owner: AnyObject & Sendable>(
        owner: Owner,
        _ handler: @escaping @MainActor @Sendable (Owner, Payload) -> Void
    ) -> IsolatedReceiver<Payload> {
        IsolatedReceiver(isolation: MainActor.shared, owner: owner) { owner, value, _ in
            let owner = unsafeDowncast(owner.unsafelyUnwrapped, to: Owner.self)
            MainActor.assumeIsolated { handler(owner, value) }
        }
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
