/// Protocol events (Domino's SelectorEvents): events declared as the methods of a
/// protocol, posted by calling a method on the route, received by the objects that
/// subscribed as targets for the protocol.
///
/// ```swift
/// protocol ContentEvents: AnyObject {
///     func contentDidLoad(itemCount: Int)
///     func fetchChannelID() -> String?
/// }
/// extension ContentEvents {
///     // Defaults make methods optional, as `@optional` did in Objective-C.
///     func contentDidLoad(itemCount: Int) {}
///     func fetchChannelID() -> String? { nil }
/// }
///
/// containerNode.subscribe(ContentEvents.self, target: containerViewController)
/// contentNode.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 12) }
/// let channel = contentNode.request(ContentEvents.self) { $0.fetchChannelID() }
/// ```
///
/// A method returning nothing notifies every target on the route, in route order
/// (``DominoNode/post(_:method:_:)``). A method returning a value is a chain of
/// responsibility: the first target that answers non-nil wins and the walk ends there
/// (``DominoNode/request(_:method:_:)``), synchronously on the caller's thread.
///
/// Arguments are captured by the closure, so there is nothing to reform; to let
/// nodes on the way rewrite arguments (Domino's
/// `reformDominoParams:forSelectorEvent:`), declare that event as a typed ``Event``
/// and ``DominoNode/reform(_:_:)-(T.Type,_)`` it, or subscribe the intermediate node
/// as a target that stops the call and posts a rewritten one.
public struct ProtocolEvent<Target>: Sendable, CustomStringConvertible {
    /// The method's name as the poster gave it (`method:`), for interceptors and
    /// traces; nil when the poster gave none.
    public let method: String?
    /// True for value-returning calls (``DominoNode/request(_:method:_:)``).
    public let returnsValue: Bool
    /// Calls the method on one target; a no-op for requests, whose closure is not kept.
    let invoke: @Sendable (Target) -> Void

    init(method: String?, returnsValue: Bool, invoke: @escaping @Sendable (Target) -> Void) {
        self.method = method
        self.returnsValue = returnsValue
        self.invoke = invoke
    }

    /// `Protocol.method`, or the protocol alone when the poster named no method.
    public var description: String {
        let protocolName = String(describing: Target.self).replacingAnyPrefix()
        guard let method else { return protocolName }
        return protocolName + "." + method
    }
}

extension ProtocolEvent: TraceNamed {
    var traceName: String { description }
}

/// A value that names itself in traces better than its type does.
protocol TraceNamed {
    var traceName: String { get }
}

extension String {
    /// `ContentEvents` for `any ContentEvents`.
    fileprivate func replacingAnyPrefix() -> String {
        hasPrefix("any ") ? String(dropFirst(4)) : self
    }
}

extension DominoNode {
    /// Subscribes `target` to the protocol events of `protocol` posted here or below.
    ///
    /// The target is held weakly: its subscription ends when it deallocates. It is
    /// held strongly for the duration of each call.
    ///
    /// ```swift
    /// containerNode.subscribe(ContentEvents.self, target: self)
    /// ```
    ///
    /// - Parameters:
    ///   - protocol: The protocol whose methods are the events, such as
    ///     `ContentEvents.self`.
    ///   - target: The object that implements it. A value that is not a class instance
    ///     cannot be held weakly: it is kept strongly and reported as
    ///     ``Diagnostic/Code/targetNotAnObject``.
    ///   - mode: Where void methods run; nil uses the node's, else the global,
    ///     default. Value-returning methods always run on the caller's thread.
    /// - Returns: A handle that can cancel; the subscription lives on without it.
    @discardableResult
    public func subscribe<Target>(
        _ protocol: Target.Type,
        target: Target,
        on mode: DeliveryMode? = nil
    ) -> Subscription {
        let receiver = TargetReceiver<Target>(delivery: mode, target: target)
        if receiver.holdsStrongly {
            Diagnostics.report(
                .targetNotAnObject,
                "The target subscribed to \(ProtocolEvent<Target>(method: nil, returnsValue: false) { _ in }) at \(self) is a \(type(of: target as Any)), not a class instance, so it cannot be held weakly; it is kept strongly until cancelled."
            )
        }
        return add(receiver, for: .of(ProtocolEvent<Target>.self))
    }

    /// Posts a void protocol event: calls `method` on every target of `protocol` on the
    /// route, in route order, each on its delivery mode.
    ///
    /// ```swift
    /// contentNode.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 12) }
    /// ```
    ///
    /// - Parameters:
    ///   - protocol: The protocol declaring the event.
    ///   - method: A name for the call that interceptors (``ProtocolEvent/method``)
    ///     and traces see, such as `"contentDidLoad"`; optional.
    ///   - call: Calls the method on one target. It may run on other threads, once
    ///     per target.
    @discardableResult
    public func post<Target>(
        _ protocol: Target.Type,
        method: String? = nil,
        _ call: @escaping @Sendable (Target) -> Void
    ) -> PostResult {
        deliver(ProtocolEvent(method: method, returnsValue: false, invoke: call), key: .of(ProtocolEvent<Target>.self))
    }

    /// Posts a value-returning protocol event: the first target of `protocol` on the
    /// route whose answer is non-nil wins, and the walk ends there (chain of
    /// responsibility). Synchronous on the caller's thread.
    ///
    /// ```swift
    /// let channel = contentNode.request(ContentEvents.self) { $0.fetchChannelID() }
    /// ```
    ///
    /// - Returns: The first non-nil answer, or nil when no target answered (reported
    ///   when ``Diagnostics/reportsUnansweredRequests`` is on).
    public func request<Target, Answer>(
        _ protocol: Target.Type,
        method: String? = nil,
        _ call: (Target) -> Answer?
    ) -> Answer? {
        withoutActuallyEscaping(call) { call in
            askTargets(ProtocolEvent<Target>(method: method, returnsValue: true) { _ in }, call)
        }
    }

    /// Decides whether protocol events of `protocol` go further up from this node,
    /// after this node's targets ran: every method of the protocol at once (Domino's
    /// `DominoProtocolContainSelector` check), or some, by ``ProtocolEvent/method``.
    ///
    /// ```swift
    /// rootNode.intercept(protocol: ContentEvents.self) { call in
    ///     call.method == "contentDidScroll" ? .stop : .proceed
    /// }
    /// ```
    @discardableResult
    public func intercept<Target>(
        protocol: Target.Type,
        _ decide: @escaping @Sendable (ProtocolEvent<Target>) -> Interception
    ) -> Subscription {
        add(Interceptor<ProtocolEvent<Target>>(body: decide), for: .of(ProtocolEvent<Target>.self))
    }

    /// Walks the route for a value-returning protocol event: targets until one
    /// answers, then interceptors, node by node.
    private func askTargets<Target, Answer>(_ event: ProtocolEvent<Target>, _ call: (Target) -> Answer?) -> Answer? {
        let thread = ThreadState.current
        guard enterNesting(thread, what: "Requesting \(event)") else { return nil }
        defer { thread.pointee.nesting -= 1 }

        var plan = Plan()
        collect(.of(ProtocolEvent<Target>.self), into: &plan, thread: thread)
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .requested, event: event.description, node: description))
        }
        var orphans: [Subscription] = []
        defer { if !orphans.isEmpty { Self.purge(orphans) } }

        for index in 0..<plan.stages.count {
            let stage = plan.stages[index]
            for handler in stage.table.subscribers {
                let receiver = unsafeDowncast(handler, to: TargetReceiver<Target>.self)
                if thread.pointee.writes != plan.writes, !receiver.isAttached { continue }
                guard let target = receiver.target else {
                    orphans.append(receiver)
                    continue
                }
                if let answer = call(target) {
                    if stage.traced || plan.originTraced {
                        Tracing.emit(TraceRecord(kind: .answered(String(describing: answer)), event: event.description, node: stage.nodeName))
                    }
                    return answer
                }
            }
            if Self.requestIntercepted(event, at: index, of: plan, eventName: event.description) { return nil }
        }
        wentUnanswered(event.description, plan: plan)
        return nil
    }
}

/// A protocol target: an object held weakly (or, for a value, strongly) and called
/// through the protocol.
final class TargetReceiver<Target>: Receiver<ProtocolEvent<Target>>, @unchecked Sendable {
    private weak var object: AnyObject?
    /// Set only for targets that are not class instances (see `holdsStrongly`).
    private let value: Target?

    init(delivery: DeliveryMode?, target: Target) {
        if type(of: target as Any) is AnyClass {
            object = target as AnyObject
            value = nil
        } else {
            value = target
        }
        super.init(delivery: delivery)
        #if DEBUG
        if let object { InstanceTracker.track(object, "target \(type(of: object))") }
        #endif
    }

    /// True when the target is a value, which cannot be held weakly.
    var holdsStrongly: Bool { value != nil }

    override var payloadName: String { "\(Target.self)" }

    override var isOrphaned: Bool { value == nil && object == nil }

    /// A strong reference to the target, or nil once it deallocated. Outside the lock:
    /// the weak load may release the last reference.
    var target: Target? {
        if let value { return value }
        guard let object else { return nil }
        // The object was stored as a `Target`, so the cast only recovers the witness table.
        return object as? Target
    }

    override func receive(_ event: ProtocolEvent<Target>, _ propagation: inout Propagation) -> Bool {
        guard let target else { return false }
        event.invoke(target)
        return true
    }
}
