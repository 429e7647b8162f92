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
/// (``DominoNode/post(_:method:isolation:_:)``). A method returning a value is a chain
/// of responsibility: the first target that answers non-nil wins and the walk ends
/// there (``DominoNode/request(_:method:isolation:_:)``). Both run synchronously, in
/// the caller's isolation, and call the targets that live there. From elsewhere (a
/// download callback, a queue), ``DominoNode/post(_:method:to:isolation:_:)`` posts
/// to every target, each called where it lives.
///
/// Arguments are captured by the closure, so there is nothing to reform; to let
/// nodes on the way rewrite arguments (Domino's
/// `reformDominoParams:forSelectorEvent:`), declare that event as a typed ``Event``
/// and ``DominoNode/reform(_:_:)-(E.Type,_)`` it, or subscribe the intermediate node
/// as a target that stops the call and posts a rewritten one.
public struct ProtocolEvent<Target>: Sendable, CustomStringConvertible {
    /// The method's name as the poster gave it (`method:`), for interceptors and
    /// traces; nil when the poster gave none.
    public let method: String?
    /// True for value-returning calls (``DominoNode/request(_:method:isolation:_:)``).
    let isRequest: Bool

    init(method: String?, isRequest: Bool) {
        self.method = method
        self.isRequest = isRequest
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
    /// Subscribes `target` to the protocol events of `protocol` posted here or below;
    /// it is called in the caller's isolation (on the main actor from main-actor code),
    /// which is where posts and requests reach it.
    ///
    /// The target is held weakly: its subscription ends when it deallocates. It is
    /// held strongly for the duration of each call.
    ///
    /// ```swift
    /// containerNode.subscribe(ContentEvents.self, target: self)
    /// ```
    ///
    /// From nonisolated code, subscribe a `Sendable` target with a mode instead:
    /// ``subscribe(_:target:on:)``.
    ///
    /// - Parameters:
    ///   - protocol: The protocol whose methods are the events, such as
    ///     `ContentEvents.self`.
    ///   - target: The object that implements it. A value that is not a class instance
    ///     cannot be held weakly: it is kept strongly and reported as
    ///     ``Diagnostic/Code/targetNotAnObject``.
    ///   - isolation: The caller's isolation, where the target lives; read from
    ///     `#isolation`, never passed.
    /// - Returns: A handle that can cancel; the subscription lives on without it.
    @discardableResult
    public func subscribe<Target>(
        _ protocol: Target.Type,
        target: Target,
        isolation: isolated (any Actor) = #isolation
    ) -> Subscription {
        addTarget(TargetReceiver<Target>(isolation: HandlerIsolation(isolation), target: target))
    }

    /// Subscribes a `Sendable` target that may be called wherever `mode` runs: posts
    /// and requests made there reach it (always, for ``DeliveryMode/postingThread``).
    ///
    /// ```swift
    /// playerNode.subscribe(PlayerEvents.self, target: audioEngine, on: .postingThread)
    /// ```
    ///
    /// - Parameters:
    ///   - protocol: A protocol whose existential is `Sendable` (one that refines
    ///     `Sendable`), since its targets are called from other threads.
    ///   - target: The object that implements it, held weakly.
    ///   - mode: Where the target may be called. A post to every target
    ///     (``post(_:method:to:isolation:_:)``) made elsewhere moves there to call
    ///     it; a post in place or a request made where `mode` does not run passes it
    ///     by and reports ``Diagnostic/Code/targetSkipped``.
    @discardableResult
    public func subscribe<Target: Sendable>(
        _ protocol: Target.Type,
        target: Target,
        on mode: DeliveryMode
    ) -> Subscription {
        addTarget(TargetReceiver<Target>(mode: mode, target: target))
    }

    private func addTarget<Target>(_ receiver: TargetReceiver<Target>) -> Subscription {
        if receiver.holdsStrongly {
            Diagnostics.emit(
                .targetNotAnObject,
                "The target subscribed to \(ProtocolEvent<Target>(method: nil, isRequest: false)) at \(self) is a \(receiver.targetTypeName), not a class instance, so it cannot be held weakly; it is kept strongly until cancelled. Subscribe an object to have it held weakly."
            )
        }
        return add(receiver, for: .ofProtocol(Target.self))
    }

    /// Posts a void protocol event: calls `method` on every target of `protocol` on the
    /// route, in route order, synchronously, in the caller's isolation.
    ///
    /// ```swift
    /// contentNode.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 12) }
    /// ```
    ///
    /// The closure is the poster's own code, so it runs only where the poster runs:
    /// a target is called when it lives there (a main-actor target, posted on the
    /// main thread; an actor's target, posted from that actor; a `Sendable` target
    /// whose mode runs here). Targets that live elsewhere are passed by and reported
    /// as ``Diagnostic/Code/targetSkipped``; post from where they live, or post to
    /// every target with ``post(_:method:to:isolation:_:)``, which calls each one
    /// where it lives.
    ///
    /// - Parameters:
    ///   - protocol: The protocol declaring the event.
    ///   - method: A name for the call that interceptors (``ProtocolEvent/method``)
    ///     and traces see, such as `"contentDidLoad"`; optional.
    ///   - isolation: The caller's isolation, where `call` runs; read from
    ///     `#isolation`, never passed.
    ///   - call: Calls the method on one target, once per target, before `post`
    ///     returns. An error it throws for a target is reported up the route from
    ///     that target's node (see ``report(_:isolation:)``), and the post goes on
    ///     to the next target.
    /// - Returns: The targets called and the nodes the walk visited; a
    ///   protocol event is never scheduled.
    @discardableResult
    public func post<Target>(
        _ protocol: Target.Type,
        method: String? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ call: (Target) throws -> Void
    ) -> PostResult {
        var none: Never?
        return callTargets(ProtocolEvent<Target>(method: method, isRequest: false), from: isolation, into: &none) { target, receiver, _ in
            do { try call(target) } catch { receiver.reportThrown(error, isolation: isolation) }
            return false
        }
    }

    /// Posts a void protocol event to every target of `protocol` on the route, each
    /// called where it lives, in route order: from a background thread, a queue or
    /// an actor, main-actor targets are still called, on the main actor.
    ///
    /// ```swift
    /// // In a network callback:
    /// playerNode.post(PlayerEvents.self, to: .everyTarget) { $0.playerDidStart(trackID: 7) }
    /// ```
    ///
    /// Targets that live where `post` is called are called in place. At the first
    /// target that lives elsewhere (the main actor, an actor, a mode's queue), the rest
    /// of the walk moves there: that target is called there, and the walk goes on
    /// from it, moving again whenever the next target lives elsewhere, so targets
    /// are called one at a time, in route order, as ``post(_:method:isolation:_:)``
    /// calls them. Interceptors decide after their node's targets, wherever the walk
    /// is. A target cancelled, or whose object deallocated, before the walk reaches
    /// it is not called.
    ///
    /// `call` runs wherever a target lives, so it is `@Sendable`: its captures are
    /// `Sendable` and it calls methods that may be called from there, those of a
    /// protocol that is not tied to one actor. For a `@MainActor` protocol, post
    /// from the main actor with ``post(_:method:isolation:_:)``.
    ///
    /// - Parameters:
    ///   - protocol: The protocol declaring the event.
    ///   - method: A name for the call that interceptors and traces see; optional.
    ///   - reach: ``TargetReach/everyTarget``.
    ///   - isolation: The caller's isolation, whose targets are called in place; read
    ///     from `#isolation`, never passed.
    ///   - call: Calls the method on one target, once per target. An error it throws
    ///     for a target is reported up the route from that target's node, and the
    ///     walk goes on to the next target.
    /// - Returns: The targets called before `post` returned, and where the walk went on
    ///   (``PostResult/continuesAt``) if it moved.
    @discardableResult
    public func post<Target>(
        _ protocol: Target.Type,
        method: String? = nil,
        to reach: TargetReach,
        isolation: isolated (any Actor)? = #isolation,
        _ call: @escaping @Sendable (Target) throws -> Void
    ) -> PostResult {
        let event = ProtocolEvent<Target>(method: method, isRequest: false)
        let thread = ThreadState.current
        guard enterNesting(thread, what: "Posting \(event)") else {
            return PostResult(deliveries: 0, nodesVisited: 0, stopReason: .nestingLimit, stoppedAt: description)
        }
        defer { thread.pointee.nesting -= 1 }

        var plan = Plan()
        collect(.ofProtocol(Target.self), into: &plan, thread: thread)
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .posted, event: event.description, node: description))
        }
        let walk = TargetWalk(event: event, call: call)
        let end = walk.run(&plan, from: 0, pending: nil, origin: self, thread: thread, isolation: isolation)
        guard case .moves(let stage, let pending) = end.next else { return end.result }
        let stageName = plan.stages[stage].nodeName
        let place = unsafeDowncast(pending[0], to: TargetReceiver<Target>.self).placeName
        plan.holdTables()
        let moved = MovedTargetWalk(origin: self, walk: walk, plan: plan, stage: stage, pending: pending, calls: end.result.deliveries)
        moved.moveOn()
        return PostResult(deliveries: end.result.deliveries, nodesVisited: end.result.nodesVisited, continuesAt: "\(stageName) on \(place)")
    }

    /// Posts a value-returning protocol event: the first target of `protocol` on the
    /// route whose answer is non-nil wins, and the walk ends there (chain of
    /// responsibility). Synchronous, in the caller's isolation: targets that live
    /// elsewhere are passed by as ``post(_:method:isolation:_:)`` describes.
    ///
    /// ```swift
    /// let channel = contentNode.request(ContentEvents.self) { $0.fetchChannelID() }
    /// ```
    ///
    /// An error `call` throws ends the request: `request` rethrows it, and the
    /// targets further up are not asked.
    ///
    /// - Returns: The first non-nil answer, or nil when no target answered (reported
    ///   when ``Diagnostics/reportsUnansweredRequests`` is on).
    public func request<Target, Answer>(
        _ protocol: Target.Type,
        method: String? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ call: (Target) throws -> Answer?
    ) rethrows -> Answer? {
        var answer: Answer?
        _ = try callTargets(ProtocolEvent<Target>(method: method, isRequest: true), from: isolation, into: &answer) { target, _, answer in
            answer = try call(target)
            return answer != nil
        }
        return answer
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
        add(Interceptor<ProtocolEvent<Target>>(body: decide), for: .ofProtocol(Target.self))
    }

    /// Walks the route for a protocol event, calling each target that lives where
    /// the caller runs: for a void method every one (`Answer` is `Never`), for a
    /// value-returning one until a target answers; a stage's interceptors run after
    /// its targets.
    ///
    /// `call` writes a target's answer into `answer` (nil on entry) and says
    /// whether it answered: the walk never tests an `Answer?` itself, which in this
    /// unspecialized code cost a look-up of its metadata per call.
    private func callTargets<Target, Answer>(
        _ event: ProtocolEvent<Target>,
        from isolation: (any Actor)?,
        into answer: inout Answer?,
        _ call: (Target, TargetReceiver<Target>, inout Answer?) throws -> Bool
    ) rethrows -> PostResult {
        let thread = ThreadState.current
        guard enterNesting(thread, what: "\(event.isRequest ? "Requesting" : "Posting") \(event)") else {
            return PostResult(deliveries: 0, nodesVisited: 0, stopReason: .nestingLimit, stoppedAt: description)
        }
        defer { thread.pointee.nesting -= 1 }

        var plan = Plan()
        collect(.ofProtocol(Target.self), into: &plan, thread: thread)
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: event.isRequest ? .requested : .posted, event: event.description, node: description))
        }
        var orphans = Orphans()
        var skipped: [String] = []
        var calls = 0
        defer {
            orphans.purge()
            if !skipped.isEmpty { reportSkippedTargets(event, skipped) }
        }

        for index in 0..<plan.stages.count {
            let stage = plan.stages[index]
            // Each handler lent, not retained: the walk's pin keeps the list.
            var handlers = HandlerTable.subscriberCursor(of: stage.handlers)
            while let handler = handlers.next() {
                let answered = try handler._withUnsafeGuaranteedRef { handler -> Bool in
                    let receiver = unsafeDowncast(handler, to: TargetReceiver<Target>.self)
                    if thread.pointee.writes != plan.writes, !receiver.isAttached { return false }
                    guard receiver.livesHere(thread, isolation: isolation) else {
                        if receiver.isOrphaned { orphans.append(receiver) } else { skipped.append(receiver.placeName) }
                        return false
                    }
                    var answered = false
                    let alive = try receiver.withTarget { target in
                        calls += 1
                        answered = try call(target, receiver, &answer)
                    }
                    guard alive else {
                        orphans.append(receiver)
                        return false
                    }
                    if !event.isRequest, stage.traced {
                        Tracing.emit(TraceRecord(kind: .delivered, event: event.description, node: stage.nodeName))
                    }
                    return answered
                }
                if answered {
                    if stage.traced {
                        Tracing.emit(TraceRecord(kind: .answered(Self.describeAnswer(answer)), event: event.description, node: stage.nodeName))
                    }
                    return PostResult(deliveries: calls, nodesVisited: stage.position, stopReason: nil, stoppedAt: nil)
                }
            }
            if plan.mayIntercept(at: index), Self.requestIntercepted(event, at: index, of: plan, eventName: event.description) {
                return PostResult(deliveries: calls, nodesVisited: stage.position, stopReason: .interceptor, stoppedAt: stage.nodeName)
            }
        }
        if event.isRequest {
            wentUnanswered(event.description, plan: plan)
        } else if calls == 0 && plan.originTraced {
            Tracing.emit(TraceRecord(kind: .unhandled, event: event.description, node: description))
        }
        return PostResult(deliveries: calls, nodesVisited: plan.nodesVisited, stopReason: nil, stoppedAt: nil, routeCutShort: plan.routeCutShort)
    }

    private func reportSkippedTargets<Target>(_ event: ProtocolEvent<Target>, _ places: [String]) {
        let whereTheyLive = Array(Set(places)).sorted().joined(separator: ", ")
        Diagnostics.emit(
            .targetSkipped,
            event.isRequest
                ? "\(event) was requested at \(self) and passed by \(places.count) target(s) that live elsewhere (\(whereTheyLive)); a request's closure runs only where it was made, since its answer is needed there. Request it from there."
                : "\(event) was posted at \(self) and passed by \(places.count) target(s) that live elsewhere (\(whereTheyLive)); this post's closure runs only where it was posted. Post it with to: .everyTarget and a @Sendable closure, which calls each target where it lives: post(\(String(describing: Target.self).replacingAnyPrefix()).self, to: .everyTarget) { … }."
        )
    }
}

/// Which protocol targets a post reaches (see ``DominoNode/post(_:method:to:isolation:_:)``).
public enum TargetReach: Sendable {
    /// Every target on the route, each called where it lives: the walk moves to a
    /// target's isolation or queue when it is not where the walk is.
    case everyTarget
}

/// How a stretch of a protocol walk to every target ended: done, or at a target that
/// lives elsewhere, where the walk goes on.
struct TargetWalkEnd {
    enum Next {
        case done
        /// The walk stopped before `pending[0]`, which lives elsewhere; `pending` is
        /// the rest of stage `stage`, in order.
        case moves(stage: Int, pending: [Subscription])
    }
    var result: PostResult
    var next: Next
}

/// A protocol post to every target: the event and the poster's call, which may run
/// wherever a target lives.
struct TargetWalk<Target>: Sendable {
    let event: ProtocolEvent<Target>
    let call: @Sendable (Target) throws -> Void

    /// Calls the targets of `plan` from stage `start` (whose targets are `pending`
    /// when given: the rest of a stage a moved walk resumes) that live here, until
    /// the route ends, an interceptor stops it, or a target lives elsewhere.
    func run(
        _ plan: inout Plan, from start: Int, pending: [Subscription]?, calls before: Int = 0, origin: DominoNode,
        thread: UnsafeMutablePointer<ThreadState>, isolation: (any Actor)?
    ) -> TargetWalkEnd {
        let resuming = pending != nil
        let writes = plan.writes
        var orphans = Orphans()
        var calls = before
        defer { orphans.purge() }

        for index in start..<plan.stages.count {
            let stage = plan.stages[index]
            var moving: [Subscription]?
            /// One target's turn.
            func visit(_ handler: Subscription) {
                if moving != nil {
                    moving!.append(handler)
                    return
                }
                let receiver = unsafeDowncast(handler, to: TargetReceiver<Target>.self)
                if resuming || thread.pointee.writes != writes, !receiver.isAttached { return }
                if receiver.isOrphaned {
                    orphans.append(receiver)
                    return
                }
                guard receiver.livesHere(thread, isolation: isolation) else {
                    moving = [handler]
                    return
                }
                let alive = receiver.withTarget { target in
                    calls += 1
                    do { try call(target) } catch { receiver.reportThrown(error, isolation: isolation) }
                }
                guard alive else {
                    orphans.append(receiver)
                    return
                }
                if stage.traced {
                    Tracing.emit(TraceRecord(kind: .delivered, event: event.description, node: stage.nodeName))
                }
            }
            if index == start, let pending {
                pending.forEach(visit)
            } else {
                var handlers = HandlerTable.subscriberCursor(of: stage.handlers)
                while let handler = handlers.next() { handler._withUnsafeGuaranteedRef(visit) }
            }
            if let moving {
                let result = PostResult(deliveries: calls, nodesVisited: plan.nodesVisited, stopReason: nil, stoppedAt: nil)
                return TargetWalkEnd(result: result, next: .moves(stage: index, pending: moving))
            }
            if plan.mayIntercept(at: index), DominoNode.requestIntercepted(event, at: index, of: plan, eventName: event.description) {
                let result = PostResult(deliveries: calls, nodesVisited: stage.position, stopReason: .interceptor, stoppedAt: stage.nodeName)
                return TargetWalkEnd(result: result, next: .done)
            }
        }
        if calls == 0 && plan.originTraced {
            Tracing.emit(TraceRecord(kind: .unhandled, event: event.description, node: origin.description))
        }
        return TargetWalkEnd(result: PostResult(deliveries: calls, nodesVisited: plan.nodesVisited, stopReason: nil, stoppedAt: nil, routeCutShort: plan.routeCutShort), next: .done)
    }
}

/// The rest of a protocol post to every target, moved to where a target lives.
///
/// Invariant (for `@unchecked Sendable`): one thread at a time owns it: the walk that
/// made it, then the place it was enqueued on, which may move it on again.
final class MovedTargetWalk<Target>: @unchecked Sendable {
    let origin: DominoNode
    let walk: TargetWalk<Target>
    /// The plan, holding its tables (`holdTables()`), not pinned.
    var plan: Plan
    var stage: Int
    var pending: [Subscription]
    /// Targets called so far, for traces of a walk that called none.
    var calls: Int

    init(origin: DominoNode, walk: TargetWalk<Target>, plan: consuming Plan, stage: Int, pending: [Subscription], calls: Int) {
        self.origin = origin
        self.walk = walk
        self.plan = plan
        self.stage = stage
        self.pending = pending
        self.calls = calls
    }

    /// Enqueues the walk where `pending[0]` lives. When that is an actor that went
    /// away meanwhile, the walk goes on here, where the target counts as orphaned.
    func moveOn() {
        let receiver = unsafeDowncast(pending[0], to: TargetReceiver<Target>.self)
        if receiver.move(to: receiver.runsIn, { [self] isolation in resume(isolation: isolation) }) { return }
        resume(isolation: nil)
    }

    /// Goes on with the walk where it was enqueued, for a caller isolated to
    /// `isolation`.
    private func resume(isolation: (any Actor)?) {
        let thread = ThreadState.current
        guard origin.enterNesting(thread, what: "Posting \(walk.event)") else { return }
        defer { thread.pointee.nesting -= 1 }
        let end = walk.run(&plan, from: stage, pending: pending, calls: calls, origin: origin, thread: thread, isolation: isolation)
        guard case .moves(let stage, let pending) = end.next else { return }
        self.stage = stage
        self.pending = pending
        calls = end.result.deliveries
        moveOn()
    }
}

/// A protocol target that is a value, held strongly by its receiver.
final class TargetBox<Target>: @unchecked Sendable {
    let value: Target
    init(_ value: Target) { self.value = value }
}

/// A protocol target: an object held weakly (or, for a value, strongly) and called
/// through the protocol, only where it lives (see `livesHere`). Never delivered by
/// the generic walk: protocol events have a walk of their own, in place.
final class TargetReceiver<Target>: Receiver<ProtocolEvent<Target>>, @unchecked Sendable {
    /// The object, held as owners are (`OwnerReference`: on Linux without a `weak`
    /// reference's side table, which made every retain and release of the target
    /// slower, the walk's and the app's own), with its identity; nil for a value.
    private let object: OwnerReference?
    /// Set only for targets that are not class instances (see `holdsStrongly`). In
    /// a box, so that testing and reading it costs no look-up of `Target?`'s
    /// metadata in the unspecialized walk.
    private let valueBox: TargetBox<Target>?
    /// The isolation of the code that subscribed it; nil for a `Sendable` target with
    /// a mode.
    private let isolation: HandlerIsolation?
    /// For an object, the target as a `Target` (the object with its protocol's
    /// witness table, in `Target`'s own layout) copied bitwise when it was
    /// subscribed, without a reference of its own: read only while `object` is
    /// loaded strongly, which keeps the object it names alive (see `withTarget`).
    /// Recovering the witness table with `object as? Target` at every call cost a
    /// dynamic cast, about 860 instructions (a protocol post up 10 levels 2,699).
    /// Nil for a value.
    private let template: UnsafeMutableRawPointer?

    /// A target subscribed from isolated code: it lives in that isolation.
    init(isolation: HandlerIsolation, target: Target) {
        self.isolation = isolation
        (object, valueBox, template) = Self.hold(target)
        super.init(delivery: isolation.delivery)
        track()
    }

    /// A `Sendable` target that lives wherever `mode` runs.
    init(mode: DeliveryMode, target: Target) {
        isolation = nil
        (object, valueBox, template) = Self.hold(target)
        super.init(delivery: mode)
        track()
    }

    deinit {
        // Never deinitialized: the copy holds no reference to give back.
        template?.deallocate()
    }

    /// How `target` is held: an object by reference and template; a value in a box.
    private static func hold(_ target: Target) -> (OwnerReference?, TargetBox<Target>?, UnsafeMutableRawPointer?) {
        guard type(of: target as Any) is AnyClass else { return (nil, TargetBox(target), nil) }
        let object = target as AnyObject
        let template = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<Target>.size, alignment: MemoryLayout<Target>.alignment)
        // The copy retains the object (a class instance sits in an existential as its
        // reference); that reference is given back at once, so the template holds the
        // object no more than `object` does.
        template.initializeMemory(as: Target.self, repeating: target, count: 1)
        Unmanaged.passUnretained(object).release()
        return (OwnerReference(object), nil, template)
    }

    private func track() {
        #if DEBUG
        if let object = object?.load(as: AnyObject.self) { InstanceTracker.track(object, "target \(type(of: object))") }
        #endif
    }

    /// True when the target is a value, which cannot be held weakly.
    var holdsStrongly: Bool { valueBox != nil }

    var targetTypeName: String { valueBox.map { "\(type(of: $0.value as Any))" } ?? "\(Target.self)" }

    override var payloadName: String { "\(Target.self)" }

    override var isOrphaned: Bool { object?.isGone == true || (isolation?.isGone ?? false) }
    override var boundObject: ObjectIdentifier? { object?.identity }
    override var boundObjectName: String { object?.load(as: AnyObject.self).map { "The target \(type(of: $0))" } ?? "A target" }

    /// True when a caller on `thread`, isolated to `isolation`, may call the target:
    /// it is in the target's isolation, or where the target's mode runs.
    func livesHere(_ thread: UnsafeMutablePointer<ThreadState>, isolation caller: (any Actor)?) -> Bool {
        lives(in: isolation, on: thread, caller: caller)
    }

    /// Where the target lives, for diagnostics.
    var placeName: String {
        placeName(of: isolation)
    }

    /// Where the target lives: `isolation`, or its mode when nil.
    var runsIn: HandlerIsolation? { isolation }

    /// Calls `body` with the target; false, without calling it, when the target is
    /// gone. Outside the lock: the weak load may release the last reference. (Not a
    /// `Target?` property: in the unspecialized walk, each optional
    /// target cost a look-up of its metadata, about 320 instructions a call.)
    func withTarget(_ body: (borrowing Target) throws -> Void) rethrows -> Bool {
        if let valueBox {
            try body(valueBox.value)
            return true
        }
        guard let template, let retained = object?.retained() else { return false }
        // The reference keeps the object alive for the call, and with it the object
        // the template names, which the body borrows in place. (Passed on, a copy
        // read through the template cost the unspecialized walk the value witnesses'
        // copy and destroy and a retain and a release; moving the reference into a
        // copy made bitwise cost more: 2,057 instructions. Released by hand, not
        // through `withExtendedLifetime`, which the unspecialized walk called.)
        defer { retained.release() }
        try body(template.assumingMemoryBound(to: Target.self).pointee)
        return true
    }

    /// Never called: protocol events are not delivered by the generic walk.
    override func receive(_ event: ProtocolEvent<Target>, _ propagation: inout Propagation) -> Bool {
        assertionFailure("protocol targets are called by the protocol walk")
        return true
    }
}
