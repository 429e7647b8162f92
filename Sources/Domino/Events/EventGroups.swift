/// Group interceptors: one interceptor for every event that belongs to a group,
/// the Swift counterpart of Domino's `DominoProtocolContainSelector` check.
///
/// A group is a protocol the events conform to, such as a marker protocol that one
/// module's events adopt:
///
/// ```swift
/// protocol CheckoutEvent: Event {}
/// struct PaymentFailed: CheckoutEvent { var reason: String }
/// struct CartEmptied: CheckoutEvent {}
///
/// // Nothing of the checkout module's goes past the checkout screen.
/// checkoutNode.intercept(every: (any CheckoutEvent).self) { _ in .stop }
/// ```
///
/// For protocol events the group is the protocol itself: see
/// ``DominoNode/intercept(protocol:_:)``.
extension DominoNode {
    /// Decides whether any event or request whose value is a `Group` goes further up
    /// from this node, after this node's subscribers and its own interceptors ran.
    ///
    /// Works for typed events, requests and named events alike (`Any.self` matches
    /// everything); the check is a dynamic cast per value and interceptor, paid only
    /// at nodes that have group interceptors.
    ///
    /// ```swift
    /// rootNode.intercept(every: (any AnalyticsEvent).self) { event in
    ///     analytics.isEnabled ? .proceed : .stop
    /// }
    /// ```
    @discardableResult
    public func intercept<Group>(
        every group: Group.Type,
        _ decide: @escaping @Sendable (Group) -> Interception
    ) -> Subscription {
        graphLock.withExclusive { _ in
            GraphSettings.groupsExist = true
            GraphSettings.refreshWalkGate()
        }
        return add(GroupInterceptorOf<Group>(body: decide), for: .group)
    }

    /// Removes this node's group interceptors.
    public func unsubscribeGroups() {
        removeSlot(.group)
    }
}

/// A group interceptor, whatever its group: walks call it with values of any type.
class GroupInterceptor: Subscription, @unchecked Sendable {
    init() {
        super.init(role: .interceptor, delivery: nil)
    }

    /// The decision for `value`, or `.proceed` when it is not in the group.
    func decide<Payload>(_ value: Payload) -> Interception {
        preconditionFailure("abstract")
    }
}

final class GroupInterceptorOf<Group>: GroupInterceptor, @unchecked Sendable {
    let body: @Sendable (Group) -> Interception

    init(body: @escaping @Sendable (Group) -> Interception) {
        self.body = body
    }

    override var payloadName: String { "every \(Group.self)" }

    override func decide<Payload>(_ value: Payload) -> Interception {
        guard let member = value as? Group else { return .proceed }
        return body(member)
    }
}
