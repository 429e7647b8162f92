/// One step of an event's journey, as reported to the trace sink.
public struct TraceRecord: Sendable, Equatable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The event was posted at `node`.
        case posted
        /// The event was broadcast from `node` down its subtree.
        case broadcast
        /// The event was raised at `node` (up to the roots, then down every tree).
        case raised
        /// A subscriber at `node` received the event on the posting thread.
        case delivered
        /// A subscriber at `node` was handed the event on another thread or queue.
        case scheduled
        /// A reformer at `node` rewrote the value; `from` and `to` describe it.
        case reformed(from: String, to: String)
        /// The walk stopped at `node`.
        case stopped(PostResult.StopReason)
        /// The walk ended without reaching any handler.
        case unhandled
        /// A request was made at `node`.
        case requested
        /// A responder at `node` answered; `answer` describes the response.
        case answered(String)
        /// A request ended unanswered.
        case unanswered
        /// An error was reported at `node` (``DominoNode/report(_:isolation:)``).
        case reported
        /// An error handler at `node` replaced the error; `from` and `to` describe it.
        case transformed(from: String, to: String)
        /// An error handler at `node` handled or caught the error.
        case handled
    }

    /// What happened.
    public let kind: Kind
    /// The event: its type for typed events and requests, its quoted name for named events.
    public let event: String
    /// The node where it happened: its label, or a generated description.
    public let node: String

    /// Creates a record.
    public init(kind: Kind, event: String, node: String) {
        self.kind = kind
        self.event = event
        self.node = node
    }

    /// The line the default sink prints.
    public var description: String {
        switch kind {
        case .posted: return "[Domino] post \(event) at \(node)"
        case .broadcast: return "[Domino] broadcast \(event) from \(node)"
        case .raised: return "[Domino] raise \(event) at \(node)"
        case .delivered: return "[Domino]   -> \(event) delivered at \(node)"
        case .scheduled: return "[Domino]   -> \(event) scheduled at \(node)"
        case .reformed(let from, let to): return "[Domino]   ~ \(event) reformed at \(node): \(from) => \(to)"
        case .stopped(let reason): return "[Domino]   x \(event) stopped at \(node) by \(reason)"
        case .unhandled: return "[Domino]   . \(event) from \(node) reached no handler"
        case .requested: return "[Domino] request \(event) at \(node)"
        case .answered(let answer): return "[Domino]   <- \(event) answered at \(node): \(answer)"
        case .unanswered: return "[Domino]   . \(event) from \(node) was not answered"
        case .reported: return "[Domino] report \(event) at \(node)"
        case .transformed(let from, let to): return "[Domino]   ~ \(event) transformed at \(node): \(from) => \(to)"
        case .handled: return "[Domino]   <- \(event) handled at \(node)"
        }
    }
}

/// Domino's debug mode: structured records of where events go.
///
/// Turn tracing on for one node (``DominoNode/isTracing``) or for all of them
/// (``Tracing/isEnabledForAllNodes``). Records go to one global sink, which by default
/// prints one line per record. When tracing is off, a post pays one flag test per
/// node that has handlers, nothing else.
///
/// ```swift
/// contentNode.isTracing = true
/// contentNode.post(ContentDidLoad(itemCount: 12))
/// // [Domino] post ContentDidLoad at content
/// // [Domino]   -> ContentDidLoad delivered at container
/// ```
public enum Tracing {
    private static let sink = Mutex<@Sendable (TraceRecord) -> Void>(Tracing.printRecord)

    @TaskLocal static var collector: Collector?

    /// Traces every node, whatever its own ``DominoNode/isTracing`` flag says.
    public static var isEnabledForAllNodes: Bool {
        get { graphLock.withShared { GraphSettings.traceAll } }
        set { graphLock.withExclusive { _ in GraphSettings.traceAll = newValue } }
    }

    /// Replaces the global sink.
    public static func setSink(_ newSink: @escaping @Sendable (TraceRecord) -> Void) {
        // The old sink is released after the lock: its captures' deinit may post on a
        // traced node (which emits through this lock).
        let previous = sink.withLock { current in
            defer { current = newSink }
            return current
        }
        withExtendedLifetime(previous) {}
    }

    /// Restores the default sink, which prints each record on its own line.
    public static func resetSink() {
        setSink(printRecord)
    }

    /// Runs `body` and returns the records that its posts and requests traced on the
    /// current task or thread, instead of sending them to the global sink.
    public static func capture(_ body: () throws -> Void) rethrows -> [TraceRecord] {
        let collector = Collector()
        try $collector.withValue(collector) { try body() }
        return collector.records
    }

    /// The default sink.
    @Sendable
    public static func printRecord(_ record: TraceRecord) {
        print(record)
    }

    static func emit(_ record: TraceRecord) {
        if let collector {
            collector.append(record)
            return
        }
        let current = sink.withLock { $0 }
        current(record)
    }

    final class Collector: @unchecked Sendable {
        private let storage = Mutex<[TraceRecord]>([])
        func append(_ record: TraceRecord) { storage.withLock { $0.append(record) } }
        var records: [TraceRecord] { storage.withLock { $0 } }
    }
}

/// Process-wide settings that walks read under the shared graph lock.
enum GraphSettings {
    /// Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var traceAll = false
    /// Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var defaultDelivery: DeliveryMode = .postingThread
    /// Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var strictRequests = false
    /// Set under the exclusive lock by the first group interceptor ever added; sticky,
    /// so walks in programs that never use groups skip looking for them.
    @exclusivity(unchecked) nonisolated(unsafe) static var groupsExist = false
    /// Set under the exclusive lock by the first capture-phase subscription; sticky,
    /// like `groupsExist`.
    @exclusivity(unchecked) nonisolated(unsafe) static var capturesExist = false
}
