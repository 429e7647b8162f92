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

/// What became of a reported error (see ``DominoNode/report(_:isolation:)``).
public struct ErrorReport: Sendable, CustomStringConvertible {
    /// The error as the last handler left it: the reported one, or what a
    /// transform made of it.
    public let error: any Error
    /// The node whose handler handled or caught the error; nil when nobody did.
    public let handledAt: String?
    /// The type of the event a ``DominoNode/catch(_:isolation:_:)`` handler turned the
    /// error into; nil when no handler caught it.
    public let caughtAs: String?
    /// The number of nodes the error reached, the reporting node included.
    public let nodesVisited: Int

    /// True when a handler handled or caught the error.
    public var isHandled: Bool { handledAt != nil }

    /// "handled at screen", "caught as ShowBanner at screen", or "unhandled".
    public var description: String {
        guard let handledAt else { return "\(error) unhandled after \(nodesVisited) node(s)" }
        if let caughtAs { return "\(error) caught as \(caughtAs) at \(handledAt)" }
        return "\(error) handled at \(handledAt)"
    }
}

/// The slot that holds a node's error handlers, in the order they were added.
enum ReportedErrors {}

/// What one error handler did.
enum ErrorStep {
    /// The handler does not take this error (another type, or its owner is gone).
    case passed
    case handled
    case transformed(any Error)
    /// Handled, and turned into an event posted from the handler's node.
    case caught(eventType: String)
}

extension DominoNode {
    /// Reports `error` up the route: the error handlers on the route, in route order,
    /// handle it, pass it on, transform it or catch it into an event, synchronously,
    /// before `report` returns.
    ///
    /// ```swift
    /// cellNode.report(NetworkError(message: "offline"))
    /// ```
    ///
    /// Handlers that decide (``receive(_:isolation:_:)``, ``transform(_:isolation:_:)``,
    /// ``catch(_:isolation:_:)``) run in place, so a handler written in main-actor code
    /// decides only for errors reported on the main thread; reported elsewhere, it is
    /// passed by and ``Diagnostic/Code/errorHandlerSkipped`` says so. A
    /// ``handle(_:isolation:_:)`` handler handles the error wherever it is reported: its
    /// body runs where it was written, enqueued there if need be.
    ///
    /// - Parameters:
    ///   - error: The error.
    ///   - isolation: The caller's isolation; read from `#isolation`, never passed.
    /// - Returns: Where the error was handled, and what it became; an error nobody
    ///   handled is also reported as ``Diagnostic/Code/unhandledError``.
    @discardableResult
    public func report(_ error: any Error, isolation: isolated (any Actor)? = #isolation) -> ErrorReport {
        reportError(error, from: isolation)
    }

    /// Walks `error` up the route for a caller isolated to `isolation` (which decides
    /// which deciding handlers may run here).
    @discardableResult
    func reportError(_ error: any Error, from isolation: (any Actor)?) -> ErrorReport {
        let thread = ThreadState.current
        guard enterNesting(thread, what: "Reporting \(type(of: error))") else {
            return ErrorReport(error: error, handledAt: nil, caughtAs: nil, nodesVisited: 0)
        }
        defer { thread.pointee.nesting -= 1 }

        var plan = Plan()
        collect(.of(ReportedErrors.self), into: &plan, thread: thread)
        let traced = plan.originTraced
        if traced {
            Tracing.emit(TraceRecord(kind: .reported, event: Self.errorName(error), node: description))
        }
        var current = error
        var orphans: [Subscription] = []
        var skipped: [String] = []
        defer {
            if !orphans.isEmpty { Self.purge(orphans) }
            // After the walk, before the unhandled report: in the order they happened.
            if !skipped.isEmpty { reportSkippedErrorHandlers(error, skipped) }
        }

        for index in 0..<plan.stages.count {
            let stage = plan.stages[index]
            var outcome: ErrorStep = .passed
            stage.withTable { table in
                HandlerTable.forEachBorrowed(in: table.subscribers) { handler in
                    let errorHandler = unsafeDowncast(handler, to: ErrorHandler.self)
                    if thread.pointee.writes != plan.writes, !errorHandler.isAttached { return true }
                    if errorHandler.isOrphaned {
                        Self.keep(handler, in: &orphans)
                        return true
                    }
                    guard errorHandler.takes(current) else { return true }
                    let step: ErrorStep
                    if errorHandler.decidesInPlace {
                        guard errorHandler.livesHere(thread, isolation: isolation) else {
                            skipped.append(errorHandler.placeName)
                            return true
                        }
                        step = errorHandler.run(current)
                    } else {
                        step = errorHandler.handle(current, thread: thread, isolation: isolation)
                    }
                    switch step {
                    case .passed:
                        return true
                    case .transformed(let replacement):
                        if traced || stage.traced {
                            Tracing.emit(TraceRecord(kind: .transformed(from: Self.errorName(current), to: Self.errorName(replacement)), event: Self.errorName(current), node: stage.nodeName))
                        }
                        current = replacement
                        return true
                    case .handled, .caught:
                        outcome = step
                        return false
                    }
                }
            }
            switch outcome {
            case .handled, .caught:
                if traced || stage.traced {
                    Tracing.emit(TraceRecord(kind: .handled, event: Self.errorName(current), node: stage.nodeName))
                }
                var caughtAs: String?
                if case .caught(let eventType) = outcome { caughtAs = eventType }
                return ErrorReport(error: current, handledAt: stage.nodeName, caughtAs: caughtAs, nodesVisited: plan.nodesVisited)
            case .passed, .transformed:
                continue
            }
        }
        if traced {
            Tracing.emit(TraceRecord(kind: .unhandled, event: Self.errorName(current), node: description))
        }
        if !skipped.isEmpty {
            reportSkippedErrorHandlers(error, skipped)
            skipped = []
        }
        let route = Self.routeNames(from: self)
        Diagnostics.emit(
            .unhandledError,
            "\(Self.errorName(current)) reported at \(self) went up \(route.count) node(s) (\(route.joined(separator: " → "))) and no handler took it. Handle it at a node on that route: handle(\(type(of: current)).self) { error in … }."
        )
        return ErrorReport(error: current, handledAt: nil, caughtAs: nil, nodesVisited: plan.nodesVisited)
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

    private func reportSkippedErrorHandlers(_ error: any Error, _ places: [String]) {
        let whereTheyLive = Array(Set(places)).sorted().joined(separator: ", ")
        Diagnostics.emit(
            .errorHandlerSkipped,
            "\(Self.errorName(error)) was reported at \(self) and passed by \(places.count) error handler(s) that decide only where they live (\(whereTheyLive)). Report it from there, or handle it with handle(_:), which runs wherever the error is reported."
        )
    }
}
