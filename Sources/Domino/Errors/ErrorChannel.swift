/// Errors up the chain: a node reports an error, and the nodes on its route handle
/// it, pass it on, transform it, or catch it into an event (HierarchyResponder's
/// `reportError`, `handleError`, `receiveError`, `transformError`, `catchError`).
///
/// ```swift
/// // A cell deep in the screen reports; the screen above decides.
/// screenNode.handle(NetworkError.self) { error in
///     banner.show(error.message)
/// }
/// cellNode.report(NetworkError(message: "offline"))
/// ```
///
/// An error takes the same route as a post from the same node, and meets the error
/// handlers of each node in route order, each node's in the order they were added.
/// Each handler names the type of error it takes (`(any Error).self` takes every
/// error); an error of another type passes it by. What a handler does:
///
/// | handler | does |
/// |---|---|
/// | ``DominoNode/handle(_:isolation:_:)`` | handles the error: it goes no further |
/// | ``DominoNode/receive(_:isolation:_:)`` | decides: ``ErrorHandling/handled`` stops it, ``ErrorHandling/notHandled`` lets it go on |
/// | ``DominoNode/transform(_:isolation:_:)`` | replaces it, for the handlers after it and the nodes above |
/// | ``DominoNode/catch(_:isolation:_:)`` | handles it and posts the event it returns, from its own node |
///
/// An error nobody handles is reported as ``Diagnostic/Code/unhandledError``, with the
/// error, the node it was reported at and the route it took.
public enum ErrorHandling: Sendable, Equatable {
    /// The error is handled: it goes no further.
    case handled
    /// The error goes on up the route, to the next handler.
    case notHandled
}

/// What became of a reported error (see ``DominoNode/report(_:isolation:)``), as far as
/// the reporter can know when `report` returns.
///
/// ```swift
/// let report = cellNode.report(SyncFailed(itemID: 5, isRetryable: true))
/// switch report.outcome {
/// case .handled(let node), .enqueued(let node, _): print("handled at \(node)")
/// case .caught(let event, let node): print("caught as \(event) at \(node)")
/// case .continues(let node, let place): print("decided later at \(node), on \(place)")
/// case .unhandled: print("nobody took it")
/// }
/// ```
public struct ErrorReport: Sendable, CustomStringConvertible {
    /// How the walk of a reported error ended, or where it went on.
    public enum Outcome: Sendable, CustomStringConvertible {
        /// A handler at the node (its label) handled the error in place.
        case handled(at: String)
        /// A ``DominoNode/handle(_:isolation:_:)`` handler at the node took the error;
        /// it lives elsewhere (`on`, such as "the main actor"), so its body was enqueued
        /// there and runs after `report` returns. The error goes no further.
        case enqueued(at: String, on: String)
        /// A ``DominoNode/catch(_:isolation:_:)`` handler at the node turned the error
        /// into `event`, which it posted from there.
        case caught(as: any Event, at: String)
        /// A handler that decides (`receive`, `transform`, `catch`) at the node lives
        /// elsewhere (`on`), so the rest of the walk moved there: that handler and the
        /// ones after it run there, in route order, after `report` returns. What they
        /// decide shows in their effects, in traces, and as
        /// ``Diagnostic/Code/unhandledError`` if nobody takes the error.
        case continues(at: String, on: String)
        /// No handler on the route took the error; it was reported as
        /// ``Diagnostic/Code/unhandledError``.
        case unhandled

        /// "handled at screen", "caught as ShowBanner(…) at screen", "continues at
        /// inbox on the main actor", or "unhandled".
        public var description: String {
            switch self {
            case .handled(let node): return "handled at \(node)"
            case .enqueued(let node, let place): return "enqueued at \(node) on \(place)"
            case .caught(let event, let node): return "caught as \(event) at \(node)"
            case .continues(let node, let place): return "continues at \(node) on \(place)"
            case .unhandled: return "unhandled"
            }
        }
    }

    /// The error as the last handler before `report` returned left it: the reported
    /// one, or what a transform made of it.
    public let error: any Error
    /// The number of nodes on the error's route, the reporting node included.
    public let nodesVisited: Int
    /// The outcome, stored flat, with what only some outcomes have out of line: an
    /// enum with payloads cost every report a call to its outlined copy and destroy
    /// (measured: 500 instructions a report).
    private let kind: Kind
    private let node: String?
    private let details: Details?

    private enum Kind { case handled, enqueued, caught, continues, unhandled }

    /// Where an enqueued handler or a moved walk runs, or the event caught.
    private final class Details: Sendable {
        let place: String
        let event: (any Event)?
        init(place: String = "", event: (any Event)? = nil) {
            self.place = place
            self.event = event
        }
    }

    /// A report of an error a handler at `node` handled in place: the common case,
    /// made without an `Outcome` (whose copy the optimizer kept).
    init(error: any Error, handledAt node: String, nodesVisited: Int) {
        self.error = error
        self.nodesVisited = nodesVisited
        kind = .handled
        self.node = node
        details = nil
    }

    init(error: any Error, outcome: Outcome, nodesVisited: Int) {
        self.error = error
        self.nodesVisited = nodesVisited
        switch outcome {
        case .handled(let node): (kind, self.node, details) = (.handled, node, nil)
        case .enqueued(let node, let place): (kind, self.node, details) = (.enqueued, node, Details(place: place))
        case .caught(let event, let node): (kind, self.node, details) = (.caught, node, Details(event: event))
        case .continues(let node, let place): (kind, self.node, details) = (.continues, node, Details(place: place))
        case .unhandled: (kind, node, details) = (.unhandled, nil, nil)
        }
    }

    /// How the walk ended, or where it went on.
    public var outcome: Outcome {
        let node = node ?? ""
        switch kind {
        case .handled: return .handled(at: node)
        case .enqueued: return .enqueued(at: node, on: details?.place ?? "")
        case .caught: return .caught(as: details.unsafelyUnwrapped.event.unsafelyUnwrapped, at: node)
        case .continues: return .continues(at: node, on: details?.place ?? "")
        case .unhandled: return .unhandled
        }
    }

    /// True when a handler took the error before `report` returned: it handled or
    /// caught it, or its body was enqueued where it lives. False for an unhandled
    /// error and for a walk that ``Outcome/continues(at:on:)`` elsewhere, whose end
    /// `report` cannot know.
    public var isHandled: Bool {
        switch kind {
        case .handled, .enqueued, .caught: return true
        case .continues, .unhandled: return false
        }
    }

    /// The label of the node whose handler took the error; nil when none did before
    /// `report` returned.
    public var handledAt: String? { isHandled ? node : nil }

    /// The error and its outcome, such as `SyncFailed(…) handled at inbox`.
    public var description: String {
        if case .unhandled = kind { return "\(error) unhandled after \(nodesVisited) node(s)" }
        return "\(error) \(outcome)"
    }
}

/// The slot that holds a node's error handlers, in the order they were added.
enum ReportedErrors {}

/// What one error handler did.
///
/// Every payload is one reference, so that a step is copied and destroyed inline
/// (payloads of other sizes made every report call outlined copies: 200 instructions).
enum ErrorStep {
    /// The handler does not take this error (another type, or its owner is gone).
    case passed
    case handled
    /// This `handle` handler lives elsewhere and took the error; its body runs there,
    /// later.
    case enqueued(ErrorHandler)
    case transformed(any Error)
    /// Handled, and turned into this event, posted from the handler's node.
    case caught(CaughtEvent)
    /// This handler decides and lives elsewhere: the walk moves there.
    case moves
}

/// The event a `catch` handler turned an error into.
final class CaughtEvent {
    let event: any Event
    init(_ event: any Event) { self.event = event }
}

/// Where an error's walk stopped to move to a handler that decides where it lives:
/// before `pending[0]`, which lives elsewhere; `pending` is the rest of stage
/// `stage`, in order.
struct ErrorWalkMove {
    var stage: Int
    var pending: [ErrorHandler]
}

/// The rest of an error's walk, moved to where a deciding handler lives (see
/// ``ErrorReport/Outcome/continues(at:on:)``).
///
/// Invariant (for `@unchecked Sendable`): one thread at a time owns it: the walk that
/// made it, then the place it was enqueued on, which may move it on again.
final class MovedErrorWalk: @unchecked Sendable {
    let origin: DominoNode
    /// The error as reported, for diagnostics.
    let reported: any Error
    var current: any Error
    /// The plan, holding its tables (`holdTables()`), not pinned.
    var plan: Plan
    var stage: Int
    var pending: [ErrorHandler]

    init(origin: DominoNode, reported: any Error, current: any Error, plan: consuming Plan, stage: Int, pending: [ErrorHandler]) {
        self.origin = origin
        self.reported = reported
        self.current = current
        self.plan = plan
        self.stage = stage
        self.pending = pending
    }

    /// Enqueues the walk where `pending[0]` lives. When that is an actor that went
    /// away meanwhile, the walk goes on here, where the handler counts as orphaned.
    func moveOn() {
        if pending[0].move(to: pending[0].runsIn, { [self] isolation in resume(isolation: isolation) }) { return }
        resume(isolation: nil)
    }

    /// Goes on with the walk where it was enqueued, for a caller isolated to
    /// `isolation`.
    private func resume(isolation: (any Actor)?) {
        let thread = ThreadState.current
        guard origin.enterNesting(thread, what: "Reporting \(type(of: reported))") else { return }
        defer { thread.pointee.nesting -= 1 }
        var move: ErrorWalkMove?
        _ = origin.walkErrors(&plan, from: stage, pending: pending, error: &current, thread: thread, isolation: isolation, move: &move)
        guard let move else { return }
        stage = move.stage
        pending = move.pending
        moveOn()
    }
}

extension DominoNode {
    /// Reports `error` up the route: the error handlers on the route, in route order,
    /// handle it, pass it on, transform it or catch it into an event.
    ///
    /// ```swift
    /// cellNode.report(NetworkError(message: "offline"))
    /// ```
    ///
    /// Each handler runs where it lives. A handler written in main-actor code runs on
    /// the main actor: in place when the error is reported there, else
    ///
    /// - a ``handle(_:isolation:_:)`` handler is enqueued on the main actor, and the
    ///   error stops at it;
    /// - a handler that decides (``receive(_:isolation:_:)``,
    ///   ``transform(_:isolation:_:)``, ``catch(_:isolation:_:)``) takes the rest of
    ///   the walk with it: the walk moves to the main actor and goes on from that
    ///   handler, in route order, after `report` returns
    ///   (``ErrorReport/Outcome/continues(at:on:)``).
    ///
    /// The same holds for an actor's handlers and for handlers with a mode.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - isolation: The caller's isolation; read from `#isolation`, never passed.
    /// - Returns: What became of the error before `report` returned; an error nobody
    ///   handles is also reported as ``Diagnostic/Code/unhandledError``.
    @discardableResult
    public func report(_ error: any Error, isolation: isolated (any Actor)? = #isolation) -> ErrorReport {
        reportError(error, from: isolation)
    }

    /// Walks `error` up the route for a caller isolated to `isolation` (which decides
    /// which handlers run here).
    @discardableResult
    func reportError(_ error: any Error, from isolation: (any Actor)?) -> ErrorReport {
        let thread = ThreadState.current
        guard enterNesting(thread, what: "Reporting \(type(of: error))") else {
            return ErrorReport(error: error, outcome: .unhandled, nodesVisited: 0)
        }
        defer { thread.pointee.nesting -= 1 }

        var plan = Plan()
        collect(.of(ReportedErrors.self), into: &plan, thread: thread)
        if plan.originTraced {
            Tracing.emit(TraceRecord(kind: .reported, event: Self.errorName(error), node: description))
        }
        var current = error
        var move: ErrorWalkMove?
        if let report = walkErrors(&plan, from: 0, pending: nil, error: &current, thread: thread, isolation: isolation, move: &move) {
            return report
        }
        return moveErrorWalk(plan, move.unsafelyUnwrapped, reported: error, current: current)
    }

    /// Moves the rest of an error's walk to where the handler it stopped at lives.
    @inline(never)
    private func moveErrorWalk(_ plan: consuming Plan, _ move: ErrorWalkMove, reported: any Error, current: any Error) -> ErrorReport {
        let nodesVisited = plan.nodesVisited
        let stageName = plan.stages[move.stage].nodeName
        let place = move.pending[0].placeName
        plan.holdTables()
        let moved = MovedErrorWalk(origin: self, reported: reported, current: current, plan: plan, stage: move.stage, pending: move.pending)
        moved.moveOn()
        return ErrorReport(error: current, outcome: .continues(at: stageName, on: place), nodesVisited: nodesVisited)
    }

    /// Walks the error handlers of `plan` from stage `start` (whose handlers are
    /// `pending` when given: the rest of a stage a moved walk resumes), until a
    /// handler takes the error, the route ends, or a handler that decides lives
    /// elsewhere. Returns the report, or nil with `move` set when the walk moves.
    @inline(__always)
    func walkErrors(
        _ plan: inout Plan, from start: Int, pending: [ErrorHandler]?, error current: inout any Error,
        thread: UnsafeMutablePointer<ThreadState>, isolation: (any Actor)?, move: inout ErrorWalkMove?
    ) -> ErrorReport? {
        let traced = plan.originTraced
        let writes = plan.writes
        let resuming = pending != nil
        var orphans = Orphans()
        defer { orphans.purge() }

        for index in start..<plan.stages.count {
            let stage = plan.stages[index]
            var outcome: ErrorStep = .passed
            var moving: [ErrorHandler]?
            if index == start, let pending {
                for (position, handler) in pending.enumerated() {
                    let step = Self.errorTurn(handler, error: &current, stage: stage, traced: traced, checkAttached: true, thread: thread, isolation: isolation, orphans: &orphans)
                    switch step {
                    case .passed, .transformed: continue
                    case .moves: moving = Array(pending[position...])
                    case .handled, .enqueued, .caught: outcome = step
                    }
                    break
                }
            } else {
                stage.withTable { table in
                    HandlerTable.forEachSubscriber(of: table) { handler in
                        let errorHandler = unsafeDowncast(handler, to: ErrorHandler.self)
                        if moving != nil {
                            moving!.append(errorHandler)
                            return true
                        }
                        let check = resuming || thread.pointee.writes != writes
                        let step = Self.errorTurn(errorHandler, error: &current, stage: stage, traced: traced, checkAttached: check, thread: thread, isolation: isolation, orphans: &orphans)
                        switch step {
                        case .passed, .transformed:
                            return true
                        case .moves:
                            moving = [errorHandler]
                            return true
                        case .handled, .enqueued, .caught:
                            outcome = step
                            return false
                        }
                    }
                }
            }
            if let moving {
                move = ErrorWalkMove(stage: index, pending: moving)
                return nil
            }
            switch outcome {
            case .handled, .enqueued, .caught:
                let node = stage.nodeName
                if traced || stage.traced {
                    Tracing.emit(TraceRecord(kind: .handled, event: Self.errorName(current), node: node))
                }
                switch outcome {
                case .enqueued(let handler): return ErrorReport(error: current, outcome: .enqueued(at: node, on: handler.placeName), nodesVisited: plan.nodesVisited)
                case .caught(let caught): return ErrorReport(error: current, outcome: .caught(as: caught.event, at: node), nodesVisited: plan.nodesVisited)
                default: return ErrorReport(error: current, handledAt: node, nodesVisited: plan.nodesVisited)
                }
            case .passed, .transformed, .moves:
                continue
            }
        }
        if traced {
            Tracing.emit(TraceRecord(kind: .unhandled, event: Self.errorName(current), node: description))
        }
        let route = Self.routeNames(from: self)
        Diagnostics.emit(
            .unhandledError,
            "\(Self.errorName(current)) reported at \(self) went up \(route.count) node(s) (\(route.joined(separator: " → "))) and no handler took it. Handle it at a node on that route: handle(\(type(of: current)).self) { error in … }."
        )
        return ErrorReport(error: current, outcome: .unhandled, nodesVisited: plan.nodesVisited)
    }

    /// One error handler's turn at `error`: passed, run here (a transform replaces
    /// `error`, and the walk goes on), enqueued where it lives (`handle`), or
    /// `.moves` for a handler that decides and lives elsewhere.
    @inline(__always)
    static func errorTurn(
        _ handler: ErrorHandler, error current: inout any Error, stage: Stage, traced: Bool, checkAttached: Bool,
        thread: UnsafeMutablePointer<ThreadState>, isolation: (any Actor)?, orphans: inout Orphans
    ) -> ErrorStep {
        if checkAttached, !handler.isAttached { return .passed }
        if handler.isOrphaned {
            orphans.append(handler)
            return .passed
        }
        guard handler.takes(current) else { return .passed }
        let step: ErrorStep
        if handler.decidesInPlace {
            guard handler.livesHere(thread, isolation: isolation) else { return .moves }
            step = handler.run(current)
        } else {
            step = handler.handle(current, thread: thread, isolation: isolation)
        }
        if case .transformed(let replacement) = step {
            if traced || stage.traced {
                Tracing.emit(TraceRecord(kind: .transformed(from: errorName(current), to: errorName(replacement)), event: errorName(current), node: stage.nodeName))
            }
            current = replacement
        }
        return step
    }

    /// `NetworkError.offline`, or the type alone when the description says nothing more.
    static func errorName(_ error: any Error) -> String {
        let typeName = String(describing: type(of: error))
        let text = String(describing: error)
        return text.hasPrefix(typeName) || text == typeName ? text : "\(typeName)(\(text))"
    }

    /// The labels of the nodes on the route from `start`, for diagnostics.
    static func routeNames(from start: DominoNode) -> [String] {
        var names: [String] = []
        graphLock.withShared {
            Route.walk(from: start) { names.append($0.description) }
        }
        return names
    }
}
