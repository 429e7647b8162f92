#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif

/// A misuse or anomaly that Domino noticed and survived.
///
/// Domino never crashes on misuse: it reports a `Diagnostic` through ``Diagnostics``
/// and carries on with a documented outcome. The `message` says what happened and
/// what to do about it.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong: one of the static members below.
    ///
    /// A struct rather than an enum, so that a code added in a later version does not
    /// break a `switch` in your code: compare with `==`, or switch with a `default`.
    ///
    /// ```swift
    /// switch diagnostic.code {
    /// case .nestingLimitExceeded: assertionFailure(diagnostic.message)
    /// case .unansweredRequest: logger.notice("\(diagnostic)")
    /// default: logger.warning("\(diagnostic)")
    /// }
    /// ```
    public struct Code: Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The code's name, as printed between brackets (`mountAtSelf`).
        public let rawValue: String

        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The code's name.
        public var description: String { rawValue }

        /// `mount(at:)` was asked to mount a node at itself. The mount is refused.
        public static var mountAtSelf: Code { Code("mountAtSelf") }
        /// A mount closed a cycle. The mount is kept; routes visit each node once.
        public static var mountCycle: Code { Code("mountCycle") }
        /// `unmount(from:)` named a node that is not a parent. Nothing changes.
        public static var notMounted: Code { Code("notMounted") }
        /// Posts, requests or signal fires nested deeper than
        /// ``DominoNode/maximumNestingDepth`` on one thread (a handler posting, or an
        /// observer firing its own signal, without end), or awaited requests nested
        /// deeper than that in one task (a responder awaiting a request that reaches
        /// it again). The innermost one is dropped; the outer ones complete.
        public static var nestingLimitExceeded: Code { Code("nestingLimitExceeded") }
        /// A handler delivered asynchronously tried to stop propagation. The walk had
        /// already moved on; the stop is ignored.
        public static var stopIgnored: Code { Code("stopIgnored") }
        /// A request reached the end of its route unanswered while
        /// ``Diagnostics/reportsUnansweredRequests`` is on. The request returns nil.
        public static var unansweredRequest: Code { Code("unansweredRequest") }
        /// A protocol target that is not a class instance was subscribed. It cannot be
        /// held weakly, so it is kept strongly until its subscription is cancelled.
        public static var targetNotAnObject: Code { Code("targetNotAnObject") }
        /// A responder chain was longer than ``DominoNode/maximumResponderChainLength``
        /// responders without reaching a node (a cycle in `nextDominoResponder`?). The
        /// route stops following it there.
        public static var responderChainTooLong: Code { Code("responderChainTooLong") }
        /// A synchronous request went unanswered past async responders, which only
        /// an async request (`try await node.request(...)`) waits for. It returns nil.
        public static var asyncResponderSkipped: Code { Code("asyncResponderSkipped") }
        /// A synchronous request passed responders that answer only elsewhere: a
        /// main-actor responder asked off the main thread, another actor's responder,
        /// or one whose mode names a queue the request was not made on. Reported
        /// whether a responder further up answered (the message says where) or
        /// nobody did (the request returns nil), since the same request made where
        /// those responders run could have had another answer. Make the request
        /// there, or `try await` it, which goes to each responder.
        public static var isolatedResponderSkipped: Code { Code("isolatedResponderSkipped") }
        /// An error reported with ``DominoNode/report(_:isolation:)`` went up its whole
        /// route and no handler took it. The message names the error, the node it was
        /// reported at and the route. Handle it at a node on that route.
        public static var unhandledError: Code { Code("unhandledError") }
        /// A protocol event was posted with ``DominoNode/post(_:method:isolation:_:)``
        /// or requested where some of its targets do not live: a main-actor target off
        /// the main thread, another actor's target, or a `Sendable` target whose mode
        /// runs elsewhere. That closure runs only where it was written, so those
        /// targets were not called; the others were. Post it to every target with
        /// ``DominoNode/post(_:method:to:isolation:_:)``, which moves to where each
        /// target lives; a request has to be made where its targets live.
        public static var targetSkipped: Code { Code("targetSkipped") }
        /// A post, request or report made off the main thread reached a node whose
        /// responder chain has never been read on the main thread (UIKit's chains may
        /// only be read there), so its route stops there: the nodes that chain leads
        /// to were not reached (``PostResult/routeCutShort``). Reported once per node.
        /// Call ``DominoNode/refreshResponderChain()`` on that node on the main thread
        /// once it is in its hierarchy, or post from the main thread first.
        public static var responderChainUnread: Code { Code("responderChainUnread") }
        /// A ``Signal`` got more live subscriptions than its ``Signal/maxSubscriptions``,
        /// or the limit was lowered below their count (a leak, or an object subscribing
        /// again?). Nothing is refused or removed: every subscription stays.
        public static var observerLimitExceeded: Code { Code("observerLimitExceeded") }
        /// The same owner (or protocol target) was subscribed twice at one node, for
        /// the same event or request in the same phase, while its first subscription
        /// is still active. Both stay, so it hears each post twice (a responder: the
        /// second never answers). Usually a subscribe that runs more than once, as in
        /// `viewWillAppear`.
        public static var duplicateSubscription: Code { Code("duplicateSubscription") }
        /// A SwiftUI view posted, requested, reported or broadcast through the
        /// environment (DominoSwiftUI's `domino` value) with no Domino node above it:
        /// nothing was delivered. Give a view above it a node with `.dominoNode(_:)`,
        /// or host it with a root node.
        public static var noNodeInScope: Code { Code("noNodeInScope") }

        /// Every code this version of Domino reports. Later versions may add codes.
        public static var allCases: [Code] {
            [
                .mountAtSelf, .mountCycle, .notMounted, .nestingLimitExceeded, .stopIgnored,
                .unansweredRequest, .targetNotAnObject, .responderChainTooLong,
                .asyncResponderSkipped, .isolatedResponderSkipped, .targetSkipped,
                .observerLimitExceeded, .duplicateSubscription, .unhandledError,
                .noNodeInScope, .responderChainUnread,
            ]
        }
    }

    /// What went wrong.
    public let code: Code
    /// Sentences for people: what happened, where, what Domino did about it, and what
    /// to do.
    public let message: String
    /// How many more times the same diagnostic (same code, same message) was reported
    /// right after the last one handed on: 0 for a diagnostic as it happens; more for
    /// the one line that stands for a burst of repeats (see ``Diagnostics``).
    public let repeats: Int

    /// Creates a diagnostic. Domino makes them; to make one in a test, import
    /// DominoTesting and use `Diagnostic.forTesting(_:message:repeats:)`.
    @_spi(DominoTesting)
    public init(_ code: Code, message: String, repeats: Int = 0) {
        self.code = code
        self.message = message
        self.repeats = repeats
    }

    /// `Domino [code]: message`, as the default handler prints it, followed by
    /// `(repeated N more times)` for a burst.
    public var description: String {
        let line = "Domino [\(code.rawValue)]: \(message)"
        return repeats == 0 ? line : line + " (repeated \(repeats) more time\(repeats == 1 ? "" : "s"))"
    }

    /// This diagnostic standing for `count` repeats of itself.
    func repeated(_ count: Int) -> Diagnostic {
        Diagnostic(code, message: message, repeats: count)
    }
}

/// The one hook through which Domino reports misuse.
///
/// By default each diagnostic is printed to standard error. Install your own handler
/// to route them to your logger or to fail loudly in debug builds, and forward to
/// ``defaultHandler(_:)`` to keep the printed line:
///
/// ```swift
/// Diagnostics.setHandler { diagnostic in
///     logger.warning("\(diagnostic)")
///     Diagnostics.defaultHandler(diagnostic)
/// }
/// ```
///
/// Tests capture the diagnostics raised by their own code, without touching the
/// global handler (and so without disturbing tests that run in parallel):
///
/// ```swift
/// let diagnostics = Diagnostics.capture { node.mount(at: node) }
/// #expect(diagnostics.map(\.code) == [.mountAtSelf])
/// ```
///
/// ### Bursts
///
/// A handler is not flooded by one mistake repeated in a loop: when the same
/// diagnostic (same code, same message) is reported again right after itself, the
/// handler gets the first one at once, and then one diagnostic whose
/// ``Diagnostic/repeats`` counts the others, when a different diagnostic comes, when
/// the handler is replaced, when a `withHandler(_:_:)` scope ends, or after
/// every 1,000 repeats. ``capture(_:)-1oj64`` is not coalesced: it returns every
/// diagnostic, as raised.
///
/// ### Scoped settings
///
/// `withHandler(_:_:)`, ``capture(_:)-1oj64`` and
/// `withUnansweredRequestsReported(_:_:)` set a value for the code they run,
/// and win over the process-wide one there. The value is task-local: it holds on
/// the calling thread or task and in the child tasks it creates, but not in code
/// that runs later on a dispatch queue, another thread or a detached task.
public enum Diagnostics {
    /// The global handler and its burst state.
    private static let global = Mutex(Dispatcher(handler: Diagnostics.defaultHandler))

    /// The innermost scope (capture or scoped handler) of the current task or thread.
    @TaskLocal static var scope: Scope?
    /// A scoped override of ``reportsUnansweredRequests``.
    @TaskLocal static var scopedUnansweredRequests: Bool?

    /// The handler that Domino starts with. On Apple platforms (iOS 14, macOS 11,
    /// tvOS 14, watchOS 7 and later) it logs the diagnostic as an error in the unified
    /// log, subsystem `Domino`, category `diagnostics`, its message public (messages
    /// name nodes and types, never event values); elsewhere it prints its
    /// ``Diagnostic/description`` to standard error. Call it from your own handler to
    /// keep that:
    ///
    /// ```swift
    /// Diagnostics.setHandler { diagnostic in
    ///     Diagnostics.defaultHandler(diagnostic)
    ///     assertionFailure(diagnostic.message)
    /// }
    /// ```
    @Sendable
    public static func defaultHandler(_ diagnostic: Diagnostic) {
        if UnifiedLogging.log(diagnostic: diagnostic.code.rawValue, diagnostic.message) { return }
        writeToStandardError(diagnostic)
    }

    /// Replaces the global diagnostics handler.
    ///
    /// A burst of repeats still pending for the old handler is handed to it first.
    public static func setHandler(_ newHandler: @escaping @Sendable (Diagnostic) -> Void) {
        // The old handler is called and released after the lock: its captures' deinit
        // may report (which takes this lock) or use Domino.
        let (previous, pending) = global.withLock { dispatcher in
            defer { dispatcher = Dispatcher(handler: newHandler) }
            return (dispatcher.handler, dispatcher.burst.end())
        }
        if let pending { previous(pending) }
        withExtendedLifetime(previous) {}
    }

    /// Restores the default handler, ``defaultHandler(_:)``.
    public static func resetHandler() {
        setHandler(defaultHandler)
    }

    /// Runs `body` with `handler` receiving the diagnostics it raises on the current
    /// task or thread, instead of the global handler; returns what `body` returns.
    ///
    /// ```swift
    /// Diagnostics.withHandler({ diagnostic in failures.append(diagnostic) }) {
    ///     runScenario()
    /// }
    /// ```
    ///
    /// Bursts are coalesced for `handler` as for the global handler, and a pending
    /// one is handed on before this returns.
    @discardableResult
    public static func withHandler<Result>(
        _ handler: @escaping @Sendable (Diagnostic) -> Void,
        _ body: () throws -> Result
    ) rethrows -> Result {
        let scope = Scope(handler: handler)
        defer { scope.end() }
        return try $scope.withValue(scope) { try body() }
    }

    /// Runs the async `body` with `handler` receiving the diagnostics it raises on
    /// the current task, across its awaits, instead of the global handler.
    @discardableResult
    public static func withHandler<Result>(
        _ handler: @escaping @Sendable (Diagnostic) -> Void,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let scope = Scope(handler: handler)
        defer { scope.end() }
        return try await $scope.withValue(scope, operation: body)
    }

    /// When true, a request that nobody on its route answers is reported as
    /// ``Diagnostic/Code/unansweredRequest``. Off by default.
    ///
    /// Inside `withUnansweredRequestsReported(_:_:)` the scoped value applies
    /// instead, and reading this property returns it.
    public static var reportsUnansweredRequests: Bool {
        get { scopedUnansweredRequests ?? GraphLock.strictRequests }
        set { GraphLock.strictRequests = newValue }
    }

    /// Runs `body` with ``reportsUnansweredRequests`` set to `isOn` for the requests
    /// it makes on the current task or thread, whatever the process-wide value.
    ///
    /// ```swift
    /// let diagnostics = Diagnostics.capture {
    ///     Diagnostics.withUnansweredRequestsReported {
    ///         _ = node.request(FetchChannelID())
    ///     }
    /// }
    /// ```
    @discardableResult
    public static func withUnansweredRequestsReported<Result>(
        _ isOn: Bool = true,
        _ body: () throws -> Result
    ) rethrows -> Result {
        try $scopedUnansweredRequests.withValue(isOn) { try body() }
    }

    /// Runs the async `body` with ``reportsUnansweredRequests`` set to `isOn` for
    /// the requests it makes on the current task, across its awaits.
    @discardableResult
    public static func withUnansweredRequestsReported<Result>(
        _ isOn: Bool = true,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await $scopedUnansweredRequests.withValue(isOn, operation: body)
    }

    /// Runs `body` and returns the diagnostics it raised on the current task or
    /// thread, every one as raised, instead of passing them to the global handler.
    @discardableResult
    public static func capture(_ body: () throws -> Void) rethrows -> [Diagnostic] {
        let scope = Scope(handler: nil)
        try $scope.withValue(scope) { try body() }
        return scope.records
    }

    /// Runs the async `body` and returns the diagnostics it raised on the current
    /// task, across its awaits, instead of passing them to the global handler.
    ///
    /// ```swift
    /// let diagnostics = await Diagnostics.capture {
    ///     _ = try? await node.request(LoadProfile())
    /// }
    /// ```
    @discardableResult
    public static func capture(_ body: () async throws -> Void) async rethrows -> [Diagnostic] {
        let scope = Scope(handler: nil)
        try await $scope.withValue(scope) { try await body() }
        return scope.records
    }

    /// Reports a diagnostic of Domino's own UI layers (DominoSwiftUI), which are
    /// part of Domino; not for apps.
    @_spi(DominoSwiftUI)
    public static func emitFromUILayer(_ code: Diagnostic.Code, _ message: String) {
        emit(code, message)
    }

    /// Reports a diagnostic: to the innermost scope of the current task or thread,
    /// else to the global handler (coalescing bursts).
    static func emit(_ code: Diagnostic.Code, _ message: String) {
        let diagnostic = Diagnostic(code, message: message)
        if let scope {
            scope.receive(diagnostic)
            return
        }
        let (handler, summary, pass) = global.withLock { dispatcher in
            let (summary, pass) = dispatcher.burst.admit(diagnostic)
            return (dispatcher.handler, summary, pass)
        }
        // Outside the lock: a handler may report, or use Domino.
        if let summary { handler(summary) }
        if let pass { handler(pass) }
    }

    @Sendable
    static func writeToStandardError(_ diagnostic: Diagnostic) {
        let line = diagnostic.description + "\n"
        _ = line.withCString { fputs($0, stderr) }
    }

    /// The global handler with the burst it is in.
    struct Dispatcher {
        let handler: @Sendable (Diagnostic) -> Void
        var burst = Burst()
    }

    /// Coalesces a burst of identical diagnostics: the first goes on, the repeats
    /// are counted, and one diagnostic carrying the count goes on when the burst
    /// ends (a different diagnostic, or `end()`), or every `summaryInterval` repeats.
    struct Burst {
        /// How many repeats a summary stands for at most, so that a loop that never
        /// ends still shows up, a thousand times less often.
        static let summaryInterval = 1_000

        private var last: Diagnostic?
        private var repeats = 0

        /// What to hand on for `diagnostic`: a summary of the burst it ends, if
        /// any, then the diagnostic itself, unless it is a repeat.
        mutating func admit(_ diagnostic: Diagnostic) -> (summary: Diagnostic?, pass: Diagnostic?) {
            if let last, last.code == diagnostic.code, last.message == diagnostic.message {
                repeats += 1
                guard repeats == Self.summaryInterval else { return (nil, nil) }
                repeats = 0
                return (last.repeated(Self.summaryInterval), nil)
            }
            let summary = end()
            last = diagnostic
            return (summary, diagnostic)
        }

        /// Ends the burst: the summary of its repeats, if there were any.
        mutating func end() -> Diagnostic? {
            defer { last = nil; repeats = 0 }
            guard let last, repeats > 0 else { return nil }
            return last.repeated(repeats)
        }
    }

    /// A scope set by `capture` (which records every diagnostic) or `withHandler`
    /// (which hands them, coalesced, to its handler). Diagnostics may come from the
    /// scope's child tasks, on other threads: hence the lock.
    final class Scope: Sendable {
        private let handler: (@Sendable (Diagnostic) -> Void)?
        private let state = Mutex<(records: [Diagnostic], burst: Burst)>(([], Burst()))

        init(handler: (@Sendable (Diagnostic) -> Void)?) {
            self.handler = handler
        }

        func receive(_ diagnostic: Diagnostic) {
            guard let handler else {
                state.withLock { $0.records.append(diagnostic) }
                return
            }
            let (summary, pass) = state.withLock { $0.burst.admit(diagnostic) }
            if let summary { handler(summary) }
            if let pass { handler(pass) }
        }

        /// Hands on a burst still pending when the scope ends.
        func end() {
            guard let handler, let pending = state.withLock({ $0.burst.end() }) else { return }
            handler(pending)
        }

        var records: [Diagnostic] { state.withLock { $0.records } }
    }
}
