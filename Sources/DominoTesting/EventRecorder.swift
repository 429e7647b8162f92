import Domino
import Foundation

/// Records which events reached which nodes, in order, for assertions in your tests
/// (like swift-log's `InMemoryLogging`, for events).
///
/// ```swift
/// import DominoTesting
///
/// @Test func contentLoadReachesTheContainerThenTheRoot() {
///     let recorder = EventRecorder()
///     recorder.record(ContentDidLoad.self, at: containerNode)
///     recorder.record(ContentDidLoad.self, at: rootNode)
///
///     contentNode.post(ContentDidLoad(itemCount: 3))
///
///     #expect(recorder.nodes == ["container", "root"])
///     #expect(recorder.values(of: ContentDidLoad.self).map(\.itemCount) == [3, 3])
/// }
/// ```
///
/// The recorder subscribes on the posting thread, so a synchronous post is recorded
/// when it returns. It does not keep nodes alive; ``stop()`` (or deallocating the
/// recorder) ends its subscriptions. ``trace(tracing:_:)`` tells what Domino's trace
/// said about a piece of code.
public final class EventRecorder: @unchecked Sendable {
    /// One event as it reached one node.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The label (or description) of the node it reached.
        public let node: String
        /// The event: the type name for typed events, the quoted name for named ones.
        public let event: String
        /// The value as it arrived there (after the reformers below and at that node).
        public let value: any Sendable

        /// `node: value`.
        public var description: String { "\(node): \(value)" }
    }

    // Guarded by `lock`: entries come from whichever thread posted.
    private let lock = NSLock()
    private var recorded: [Entry] = []
    private var subscriptions: [Subscription] = []

    /// Creates an empty recorder.
    public init() {}

    deinit {
        for subscription in subscriptions { subscription.cancel() }
    }

    /// Records the typed events of type `E` that reach `node`.
    @discardableResult
    public func record<E: Event>(_ type: E.Type, at node: DominoNode, phase: Phase = .bubble) -> Self {
        let label = node.description
        let subscription = node.subscribe(type, phase: phase, on: .postingThread) { [weak self] event in
            self?.append(Entry(node: label, event: String(describing: E.self), value: event))
        }
        lock.withLock { subscriptions.append(subscription) }
        return self
    }

    /// Records the named events `name` that reach `node`.
    @discardableResult
    public func record(_ name: EventName, at node: DominoNode, phase: Phase = .bubble) -> Self {
        let label = node.description
        let subscription = node.subscribe(name, phase: phase, on: .postingThread) { [weak self] event in
            self?.append(Entry(node: label, event: "\"\(name.rawValue)\"", value: event))
        }
        lock.withLock { subscriptions.append(subscription) }
        return self
    }

    /// Records `type` at each of `nodes`.
    @discardableResult
    public func record<E: Event>(_ type: E.Type, at nodes: [DominoNode], phase: Phase = .bubble) -> Self {
        for node in nodes { record(type, at: node, phase: phase) }
        return self
    }

    /// Everything recorded, in order.
    public var entries: [Entry] { lock.withLock { recorded } }

    /// The nodes reached, in order (one per delivery).
    public var nodes: [String] { entries.map(\.node) }

    /// The values of type `E` recorded, in order.
    public func values<E>(of type: E.Type) -> [E] {
        entries.compactMap { $0.value as? E }
    }

    /// The nodes that `E` reached, in order.
    public func nodes<E>(reachedBy type: E.Type) -> [String] {
        entries.filter { $0.value is E }.map(\.node)
    }

    /// Forgets what was recorded; keeps recording.
    public func reset() {
        // The recorded values are released after the lock: an event holding an
        // object whose deinit posts to a recorded node would otherwise deadlock.
        let previous = lock.withLock { () -> [Entry] in
            defer { recorded.removeAll() }
            return recorded
        }
        withExtendedLifetime(previous) {}
    }

    /// Ends every subscription of the recorder.
    public func stop() {
        let ended = lock.withLock { () -> [Subscription] in
            defer { subscriptions.removeAll() }
            return subscriptions
        }
        for subscription in ended { subscription.cancel() }
    }

    /// Waits until at least `count` entries are recorded (for deliveries on queues),
    /// polling for up to `timeout` seconds.
    ///
    /// - Returns: True when they arrived in time.
    public func waitFor(count: Int, timeout: TimeInterval = 5) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while entries.count < count {
            if Date() > deadline { return false }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return true
    }

    /// Runs `body` with tracing on for `nodes` and returns what Domino's trace said
    /// about the walks `body` made on this task, without touching the global sink or
    /// other tests' nodes.
    ///
    /// Tracing the posting node traces its whole walk: its start and end, and what
    /// happens at every node it reaches. Trace other nodes to see what happens at
    /// them in walks that start elsewhere.
    ///
    /// ```swift
    /// let trace = EventRecorder.trace(tracing: [contentNode]) {
    ///     contentNode.post(ContentDidScroll(offset: 10))
    /// }
    /// #expect(trace.map(\.kind) == [.posted, .delivered, .stopped(.interceptor)])
    /// ```
    public static func trace(tracing nodes: [DominoNode], _ body: () -> Void) -> [TraceRecord] {
        let previous = nodes.map(\.isTracing)
        for node in nodes { node.isTracing = true }
        defer { for (node, wasTracing) in zip(nodes, previous) { node.isTracing = wasTracing } }
        return Tracing.capture(body)
    }

    private func append(_ entry: Entry) {
        lock.withLock { recorded.append(entry) }
    }
}
