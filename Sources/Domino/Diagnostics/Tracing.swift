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
        /// A subscriber or protocol target at `node` received the event on the
        /// posting thread.
        case delivered
        /// A subscriber at `node` was handed the event on another thread or queue, or
        /// enqueued on its actor.
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

    /// The line ``Tracing/printRecord(_:)`` prints.
    public var description: String {
        let (line, value) = parts
        return "[Domino] " + line + (value ?? "")
    }

    /// The description without its prefix, and the end that describes an event value
    /// or an answer: the unified log keeps that part private.
    var parts: (line: String, value: String?) {
        switch kind {
        case .posted: return ("post \(event) at \(node)", nil)
        case .broadcast: return ("broadcast \(event) from \(node)", nil)
        case .raised: return ("raise \(event) at \(node)", nil)
        case .delivered: return ("  -> \(event) delivered at \(node)", nil)
        case .scheduled: return ("  -> \(event) scheduled at \(node)", nil)
        case .reformed(let from, let to): return ("  ~ \(event) reformed at \(node): ", "\(from) => \(to)")
        case .stopped(let reason): return ("  x \(event) stopped at \(node) by \(reason)", nil)
        case .unhandled: return ("  . \(event) from \(node) reached no handler", nil)
        case .requested: return ("request \(event) at \(node)", nil)
        case .answered(let answer): return ("  <- \(event) answered at \(node): ", answer)
        case .unanswered: return ("  . \(event) from \(node) was not answered", nil)
        }
    }
}

/// Domino's debug mode: structured records of where events go.
///
/// Turn tracing on for one node (``DominoNode/isTracing``) or for all of them
/// (``Tracing/isEnabledForAllNodes``). A traced node reports every walk that starts
/// there in full, up or down the graph, whether or not the nodes it reaches are
/// traced; of the walks that start elsewhere it reports what happens at it
/// (delivered, scheduled, reformed, stopped, answered). Records go to one global
/// sink, ``defaultSink(_:)`` unless ``setSink(_:)`` replaces it: the unified log on
/// Apple platforms, one printed line per record elsewhere. A traced post or request
/// is also a signpost interval, which Instruments shows (see the article Debugging
/// and tracing). When tracing is off, a post pays one flag test per node that has
/// handlers, nothing else.
///
/// ```swift
/// contentNode.isTracing = true
/// contentNode.post(ContentDidLoad(itemCount: 12))
/// // [Domino] post ContentDidLoad at content
/// // [Domino]   -> ContentDidLoad delivered at container
/// ```
public enum Tracing {
    private static let sink = Mutex<@Sendable (TraceRecord) -> Void>(Tracing.defaultSink)

    @TaskLocal static var collector: Collector?

    /// Traces every node, whatever its own ``DominoNode/isTracing`` flag says, and
    /// makes each ``Signal`` fire a signpost interval.
    public static var isEnabledForAllNodes: Bool {
        get { graphLock.withShared { GraphSettings.traceAll } }
        set {
            graphLock.withExclusive { _ in
                GraphSettings.traceAll = newValue
                withUnsafeMutablePointer(to: &firesTraced) { word in
                    // Writers are serialized by the lock: the swap always succeeds.
                    var expected = word.pointee
                    _ = _stdlib_atomicCompareExchangeStrongPtr(
                        object: word,
                        expected: &expected,
                        desired: newValue ? UnsafeRawPointer(bitPattern: 1) : nil
                    )
                }
            }
        }
    }

    /// ``isEnabledForAllNodes``, for signal fires: they are outside the graph, and
    /// read it on every fire without the graph lock, as one acquiring load.
    @inline(__always)
    static var tracesFires: Bool {
        withUnsafeMutablePointer(to: &firesTraced) { word in
            // The primitive is typed for class references: it loads the word's bit
            // pattern, without retaining or dereferencing it (see ObserverFlags).
            let target = UnsafeMutableRawPointer(word).assumingMemoryBound(to: FlagWord?.self)
            return _stdlib_atomicAcquiringLoadARCRef(object: target) != nil
        }
    }

    /// Non-nil while ``isEnabledForAllNodes`` is on; only accessed atomically. A
    /// global with a constant initial value: no lazy initialization (a `static let`
    /// would cost a `swift_once` call on every fire).
    @exclusivity(unchecked) nonisolated(unsafe) private static var firesTraced: UnsafeRawPointer?

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

    /// Restores the default sink, ``defaultSink(_:)``.
    public static func resetSink() {
        setSink(defaultSink)
    }

    /// Runs `body` and returns the records that its posts and requests traced on the
    /// current task or thread, instead of sending them to the global sink.
    public static func capture(_ body: () throws -> Void) rethrows -> [TraceRecord] {
        let collector = Collector()
        try $collector.withValue(collector) { try body() }
        return collector.records
    }

    /// The default sink. On Apple platforms (iOS 14, macOS 11, tvOS 14, watchOS 7 and
    /// later) it logs each record at the info level in the unified log, subsystem
    /// `Domino`, category `tracing`, with the event values it describes (answers,
    /// reformed values) private; elsewhere it prints it (``printRecord(_:)``).
    ///
    /// ```swift
    /// Tracing.setSink { record in
    ///     Tracing.defaultSink(record)
    ///     if case .unhandled = record.kind { unhandled.append(record.event) }
    /// }
    /// ```
    @Sendable
    public static func defaultSink(_ record: TraceRecord) {
        let (line, value) = record.parts
        if UnifiedLogging.log(trace: line, value: value) { return }
        printRecord(record)
    }

    /// Prints the record on its own line (`[Domino] post ContentDidLoad at content`).
    /// The default sink where the unified log is not available.
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
