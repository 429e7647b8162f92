/// One step of an event's journey, as reported to the trace sink.
public struct TraceRecord: Sendable, Equatable, CustomStringConvertible {
    /// What happened: one of the static members below.
    ///
    /// A struct rather than an enum, so that a kind added in a later version does not
    /// break a `switch` in your code: compare with `==`, or switch with a `default`,
    /// and read what the kinds that carry values say with ``stopReason``,
    /// ``answer`` and ``reformedValues``.
    ///
    /// ```swift
    /// switch record.kind {
    /// case .posted, .requested: print("start", record.event)
    /// case .delivered: print("  at", record.node)
    /// default:
    ///     if let reason = record.kind.stopReason { print("  stopped by", reason) }
    /// }
    /// ```
    public struct Kind: Sendable, Equatable, CustomStringConvertible {
        private enum Storage: Equatable {
            case posted, broadcast, raised, delivered, scheduled
            case reformed(from: String, to: String)
            case stopped(PostResult.StopReason)
            case unhandled, requested
            case answered(String)
            case unanswered
            case reported
            case transformed(from: String, to: String)
            case handled
        }

        private let storage: Storage

        private init(_ storage: Storage) { self.storage = storage }

        /// The event was posted at `node`.
        public static var posted: Kind { Kind(.posted) }
        /// The event was broadcast from `node` down its subtree.
        public static var broadcast: Kind { Kind(.broadcast) }
        /// The event was raised at `node` (up to the roots, then down every tree).
        public static var raised: Kind { Kind(.raised) }
        /// A subscriber or protocol target at `node` received the event on the
        /// posting thread.
        public static var delivered: Kind { Kind(.delivered) }
        /// A subscriber at `node` was handed the event on another thread or queue, or
        /// enqueued on its actor.
        public static var scheduled: Kind { Kind(.scheduled) }
        /// A reformer at `node` rewrote the value; `from` and `to` describe it.
        public static func reformed(from: String, to: String) -> Kind { Kind(.reformed(from: from, to: to)) }
        /// The walk stopped at `node`.
        public static func stopped(_ reason: PostResult.StopReason) -> Kind { Kind(.stopped(reason)) }
        /// The walk ended without reaching any handler.
        public static var unhandled: Kind { Kind(.unhandled) }
        /// A request was made at `node`.
        public static var requested: Kind { Kind(.requested) }
        /// A responder at `node` answered; `answer` describes the response.
        public static func answered(_ answer: String) -> Kind { Kind(.answered(answer)) }
        /// A request ended unanswered.
        public static var unanswered: Kind { Kind(.unanswered) }
        /// An error was reported at `node` (``DominoNode/report(_:isolation:)``).
        public static var reported: Kind { Kind(.reported) }
        /// An error handler at `node` replaced the error; `from` and `to` describe it.
        public static func transformed(from: String, to: String) -> Kind { Kind(.transformed(from: from, to: to)) }
        /// An error handler at `node` handled or caught the error.
        public static var handled: Kind { Kind(.handled) }

        /// Why the walk stopped, for a ``stopped(_:)`` record; else nil.
        public var stopReason: PostResult.StopReason? {
            if case .stopped(let reason) = storage { return reason }
            return nil
        }

        /// The response, described, for an ``answered(_:)`` record; else nil.
        public var answer: String? {
            if case .answered(let answer) = storage { return answer }
            return nil
        }

        /// The value before and after, described, for a ``reformed(from:to:)``
        /// record; else nil.
        public var reformedValues: (from: String, to: String)? {
            if case .reformed(let from, let to) = storage { return (from, to) }
            return nil
        }

        /// The error before and after, described, for a ``transformed(from:to:)``
        /// record; else nil.
        public var transformedErrors: (from: String, to: String)? {
            if case .transformed(let from, let to) = storage { return (from, to) }
            return nil
        }

        /// The kind's name: `posted`, `stopped`, `answered`...
        public var description: String {
            switch storage {
            case .posted: return "posted"
            case .broadcast: return "broadcast"
            case .raised: return "raised"
            case .delivered: return "delivered"
            case .scheduled: return "scheduled"
            case .reformed: return "reformed"
            case .stopped: return "stopped"
            case .unhandled: return "unhandled"
            case .requested: return "requested"
            case .answered: return "answered"
            case .unanswered: return "unanswered"
            case .reported: return "reported"
            case .transformed: return "transformed"
            case .handled: return "handled"
            }
        }

        /// The line the default sink prints for a record of this kind, without its
        /// `[Domino] ` prefix, and the end of it that describes an event value or an
        /// answer, which the unified log keeps private.
        func parts(event: String, node: String) -> (line: String, value: String?) {
            switch storage {
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
            case .reported: return ("report \(event) at \(node)", nil)
            case .transformed(let from, let to): return ("  ~ \(event) transformed at \(node): ", "\(from) => \(to)")
            case .handled: return ("  <- \(event) handled at \(node)", nil)
            }
        }
    }

    /// What happened.
    public let kind: Kind
    /// The event: its type for typed events and requests, its quoted name for named events.
    public let event: String
    /// The node where it happened: its label, or a generated description.
    public let node: String

    /// Creates a record. Domino makes them; to make one in a test, import
    /// DominoTesting and use `TraceRecord.forTesting(_:event:node:)`.
    @_spi(DominoTesting)
    public init(kind: Kind, event: String, node: String) {
        self.kind = kind
        self.event = event
        self.node = node
    }

    /// The line the default sink prints (`[Domino] post ContentDidLoad at content`).
    public var description: String {
        let (line, value) = parts
        return "[Domino] " + line + (value ?? "")
    }

    /// The description without its prefix, and the end that describes an event value
    /// or an answer: the unified log keeps that part private.
    var parts: (line: String, value: String?) { kind.parts(event: event, node: node) }
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
///
/// `withAllNodesTraced(_:_:)` and ``capture(_:)`` set a value for the code
/// they run, and win over the process-wide one there. The value is task-local: it
/// holds on the calling thread or task and in the child tasks it creates, but not in
/// code that runs later on a dispatch queue, another thread or a detached task.
public enum Tracing {
    private static let sink = Mutex<@Sendable (TraceRecord) -> Void>(Tracing.defaultSink)

    @TaskLocal static var collector: Collector?
    /// A scoped override of ``isEnabledForAllNodes``.
    @TaskLocal static var scopedAllNodes: Bool?

    /// Traces every node, whatever its own ``DominoNode/isTracing`` flag says, and
    /// makes each ``Signal`` fire a signpost interval.
    ///
    /// Inside `withAllNodesTraced(_:_:)` the scoped value applies instead,
    /// and reading this property returns it (signal fires follow the process-wide
    /// value only).
    public static var isEnabledForAllNodes: Bool {
        get { scopedAllNodes ?? graphLock.withShared { GraphSettings.traceAllNodes } }
        set {
            graphLock.withExclusive { _ in
                GraphSettings.traceAllNodes = newValue
                GraphSettings.refreshTraceAll()
                AtomicWord.store(UnsafeMutableRawPointer(firesTraced), newValue ? 1 : 0)
            }
        }
    }

    /// ``isEnabledForAllNodes``, for signal fires: they are outside the graph, and
    /// read it on every fire without the graph lock, as one acquiring load of
    /// `word`, which each signal's core keeps a copy of (``firesTraced``), so that a
    /// fire neither runs a lazy global's initialization check nor touches a Swift
    /// variable that another thread writes.
    @inline(__always)
    static func tracesFires(_ word: UnsafeMutablePointer<UnsafeRawPointer?>) -> Bool {
        AtomicWord.load(UnsafeMutableRawPointer(word)) != 0
    }

    /// Non-nil while ``isEnabledForAllNodes`` is on; only accessed atomically. Never
    /// freed.
    nonisolated(unsafe) static let firesTraced: UnsafeMutablePointer<UnsafeRawPointer?> = {
        let word = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: 1)
        word.initialize(to: nil)
        return word
    }()

    /// Runs `body` with every node traced (or, with `false`, only the nodes whose
    /// ``DominoNode/isTracing`` is on) for the posts it makes on the current task or
    /// thread, whatever ``isEnabledForAllNodes`` says; returns what `body` returns.
    ///
    /// ```swift
    /// let records = Tracing.capture {
    ///     Tracing.withAllNodesTraced { contentNode.post(ContentDidLoad(itemCount: 12)) }
    /// }
    /// ```
    ///
    /// While any such scope runs, every post in the process reads the task-local
    /// value (a few dozen nanoseconds): a tool for tests and debugging sessions.
    @discardableResult
    public static func withAllNodesTraced<Result>(_ isOn: Bool = true, _ body: () throws -> Result) rethrows -> Result {
        enterScope()
        defer { leaveScope() }
        return try $scopedAllNodes.withValue(isOn) { try body() }
    }

    /// Runs the async `body` with every node traced (or not, with `false`) for the
    /// posts it makes on the current task, across its awaits.
    @discardableResult
    public static func withAllNodesTraced<Result>(
        _ isOn: Bool = true,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        enterScope()
        defer { leaveScope() }
        return try await $scopedAllNodes.withValue(isOn, operation: body)
    }

    private static func enterScope() {
        graphLock.withExclusive { _ in
            GraphSettings.traceScopes += 1
            GraphSettings.refreshTraceAll()
        }
    }

    private static func leaveScope() {
        graphLock.withExclusive { _ in
            GraphSettings.traceScopes -= 1
            GraphSettings.refreshTraceAll()
        }
    }

    /// True when a walk starting now on this thread traces every node. Lock held.
    ///
    /// One flag test while no scope runs and tracing all nodes is off; the
    /// task-local is read only when one of them is on.
    @inline(__always)
    static var tracesAllNodes: Bool {
        GraphSettings.traceAll && tracesAllNodesSlowly()
    }

    @inline(never)
    private static func tracesAllNodesSlowly() -> Bool {
        scopedAllNodes ?? GraphSettings.traceAllNodes
    }

    /// The sink that Domino starts with. On Apple platforms (iOS 14, macOS 11, tvOS
    /// 14, watchOS 7 and later) it logs each record at the info level in the unified
    /// log, subsystem `Domino`, category `tracing`, with the event values it describes
    /// (answers, reformed values) private; elsewhere it prints each record's
    /// ``TraceRecord/description`` on its own line. Call it from your own sink to
    /// keep that:
    ///
    /// ```swift
    /// Tracing.setSink { record in
    ///     Tracing.defaultSink(record)
    ///     if record.kind == .unhandled { unhandled.append(record.event) }
    /// }
    /// ```
    @Sendable
    public static func defaultSink(_ record: TraceRecord) {
        let (line, value) = record.parts
        if UnifiedLogging.log(trace: line, value: value) { return }
        print(record)
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
    /// What walks test first: true when every node is traced, or when a scope may
    /// say so (`Tracing.tracesAllNodes` then asks the scope). Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var traceAll = false
    /// The process-wide `Tracing.isEnabledForAllNodes`. Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var traceAllNodes = false
    /// How many `Tracing.withAllNodesTraced` scopes run. Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var traceScopes = 0
    /// What walks read for nodes without a mode: the process-wide default, or, while
    /// a `DeliveryMode.withDefault` scope runs, `DeliveryMode.scopedDefaultMarker`
    /// (walks then ask the scope). Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var defaultDelivery: DeliveryMode = .postingThread
    /// The process-wide `DeliveryMode.default`. Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var processDefaultDelivery: DeliveryMode = .postingThread
    /// How many `DeliveryMode.withDefault` scopes run. Guarded by `graphLock`.
    @exclusivity(unchecked) nonisolated(unsafe) static var deliveryScopes = 0
    /// Set under the exclusive lock by the first group interceptor ever added; sticky,
    /// so walks in programs that never use groups skip looking for them.
    @exclusivity(unchecked) nonisolated(unsafe) static var groupsExist = false
    /// Set under the exclusive lock by the first capture-phase subscription; sticky,
    /// like `groupsExist`.
    @exclusivity(unchecked) nonisolated(unsafe) static var capturesExist = false

    /// Recomputes `traceAll`. Exclusive lock held.
    static func refreshTraceAll() {
        traceAll = traceAllNodes || traceScopes > 0
        refreshWalkGate()
    }

    /// Recomputes `defaultDelivery`. Exclusive lock held.
    static func refreshDefaultDelivery() {
        defaultDelivery = deliveryScopes > 0 ? DeliveryMode.scopedDefaultMarker : processDefaultDelivery
        refreshWalkGate()
    }

    /// Recomputes `GraphLock.walkGate` from the settings that only walks under a
    /// stripe handle. Exclusive lock held; called by each writer of one of them.
    static func refreshWalkGate() {
        let code = DeliveryMode.Code.published(defaultDelivery)
        if traceAll || Route.graphMayHaveCycles || code == 0 {
            graphLock.setWalkGate(0)
        } else {
            graphLock.setWalkGate(code | (groupsExist ? GraphLock.gateGroups : 0) | (capturesExist ? GraphLock.gateCaptures : 0))
        }
    }
}
