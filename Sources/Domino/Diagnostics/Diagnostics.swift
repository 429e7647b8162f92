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
/// and carries on with a documented outcome (the `message` says which).
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// `mount(at:)` was asked to mount a node at itself. The mount is refused.
        case mountAtSelf
        /// A mount closed a cycle. The mount is kept; routes visit each node once.
        case mountCycle
        /// `unmount(from:)` named a node that is not a parent. Nothing changes.
        case notMounted
        /// Posts, requests or signal fires nested deeper than
        /// ``DominoNode/maximumNestingDepth`` on one thread (a handler posting, or an
        /// observer firing its own signal, without end), or awaited requests nested
        /// deeper than that in one task (a responder awaiting a request that reaches
        /// it again). The innermost one is dropped; the outer ones complete.
        case nestingLimitExceeded
        /// A handler delivered asynchronously tried to stop propagation. The walk had
        /// already moved on; the stop is ignored.
        case stopIgnored
        /// A request reached the end of its route unanswered while
        /// ``Diagnostics/reportsUnansweredRequests`` is on. The request returns nil.
        case unansweredRequest
        /// A protocol target that is not a class instance was subscribed. It cannot be
        /// held weakly, so it is kept strongly until its subscription is cancelled.
        case targetNotAnObject
        /// A responder chain was longer than ``DominoNode/maximumResponderChainLength``
        /// responders without reaching a node (a cycle in `nextDominoResponder`?). The
        /// route stops following it there.
        case responderChainTooLong
        /// A synchronous request went unanswered past async responders, which only
        /// an async request (`try await node.request(...)`) waits for. It returns nil.
        case asyncResponderSkipped
        /// A synchronous request passed responders that answer only elsewhere: a
        /// main-actor responder asked off the main thread, another actor's responder,
        /// or one whose mode names a queue the request was not made on. Reported
        /// whether a responder further up answered (the message says where) or
        /// nobody did (the request returns nil), since the same request made where
        /// those responders run could have had another answer. Make the request
        /// there, or `try await` it, which goes to each responder.
        case isolatedResponderSkipped
        /// A protocol event was posted or requested where some of its targets do not
        /// live: a main-actor target off the main thread, another actor's target, or
        /// a `Sendable` target whose mode runs elsewhere. The poster's closure runs
        /// only where it was written, so those targets were not called; the others
        /// were. Post it where they live, or make it a typed event, whose handlers are
        /// delivered across threads.
        case targetSkipped
        /// A ``Signal`` got more live subscriptions than its ``Signal/maxSubscriptions``,
        /// or the limit was lowered below their count (a leak, or an object subscribing
        /// again?). Nothing is refused or removed: every subscription stays.
        case observerLimitExceeded
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people: what happened, where, and what Domino did about it.
    public let message: String

    /// Creates a diagnostic.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `Domino [code]: message`, as the default handler prints it.
    public var description: String { "Domino [\(code.rawValue)]: \(message)" }
}

/// The one hook through which Domino reports misuse.
///
/// By default each diagnostic is printed to standard error. Install your own handler
/// to route them to your logger or to fail loudly in debug builds:
///
/// ```swift
/// Diagnostics.setHandler { diagnostic in
///     logger.warning("\(diagnostic)")
///     assertionFailure(diagnostic.message)
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
public enum Diagnostics {
    private static let handler = Mutex<@Sendable (Diagnostic) -> Void>(Diagnostics.printToStandardError)

    @TaskLocal static var collector: Collector?

    /// Replaces the global diagnostics handler.
    public static func setHandler(_ newHandler: @escaping @Sendable (Diagnostic) -> Void) {
        // The old handler is released after the lock: its captures' deinit may
        // report (which takes this lock) or use Domino.
        let previous = handler.withLock { current in
            defer { current = newHandler }
            return current
        }
        withExtendedLifetime(previous) {}
    }

    /// Restores the default handler, which prints to standard error.
    public static func resetHandler() {
        setHandler(printToStandardError)
    }

    /// When true, a request that nobody on its route answers is reported as
    /// ``Diagnostic/Code/unansweredRequest``. Off by default.
    public static var reportsUnansweredRequests: Bool {
        get { graphLock.withShared { GraphSettings.strictRequests } }
        set { graphLock.withExclusive { _ in GraphSettings.strictRequests = newValue } }
    }

    /// Runs `body` and returns the diagnostics it raised on the current task or
    /// thread, instead of passing them to the global handler.
    @discardableResult
    public static func capture(_ body: () throws -> Void) rethrows -> [Diagnostic] {
        let collector = Collector()
        try $collector.withValue(collector) { try body() }
        return collector.records
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
        let collector = Collector()
        try await $collector.withValue(collector) { try await body() }
        return collector.records
    }

    /// Reports a diagnostic to the capturing scope, or else to the global handler.
    public static func report(_ code: Diagnostic.Code, _ message: String) {
        let diagnostic = Diagnostic(code: code, message: message)
        if let collector {
            collector.append(diagnostic)
            return
        }
        let current = handler.withLock { $0 }
        current(diagnostic)
    }

    /// The default handler.
    @Sendable
    public static func printToStandardError(_ diagnostic: Diagnostic) {
        let line = diagnostic.description + "\n"
        _ = line.withCString { fputs($0, stderr) }
    }

    final class Collector: @unchecked Sendable {
        private let storage = Mutex<[Diagnostic]>([])
        func append(_ diagnostic: Diagnostic) { storage.withLock { $0.append(diagnostic) } }
        var records: [Diagnostic] { storage.withLock { $0 } }
    }
}
