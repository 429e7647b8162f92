/// Events as `AsyncSequence`s: `for await` the events that reach a node.
///
/// ```swift
/// let task = Task {
///     for await event in containerNode.events(of: ContentDidLoad.self) {
///         print("loaded \(event.itemCount)")
///     }
///     // Ends when the node deallocates.
/// }
/// // ...
/// task.cancel()   // ends the loop and removes the subscription
/// ```
///
/// Each call subscribes once; the stream receives what a subscriber at that node
/// would, in the same order, on the posting thread (never a queue hop before
/// buffering). The stream **ends** when the node deallocates, when the subscription
/// is removed (``DominoNode/unsubscribe(_:)-(E.Type)``,
/// ``DominoNode/clearAllSubscribers()``), or when the consuming task is cancelled or
/// drops the stream; its subscription is removed then.
///
/// **Buffering.** Events posted while the consumer is busy are buffered, by default
/// without bound (`.unbounded`), so that no event is lost. Pass
/// `.bufferingNewest(n)` to keep only the latest `n` (for state-like events such as
/// scroll offsets) or `.bufferingOldest(n)` to drop new ones when full.
extension DominoNode {
    /// The typed events of type `E` that reach this node, as an async sequence.
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - phase: Which phase to listen in (see ``Phase``).
    ///   - bufferingPolicy: What to keep while the consumer is busy; unbounded by default.
    public func events<E: Event>(
        of type: E.Type,
        phase: Phase = .bubble,
        bufferingPolicy: AsyncStream<E>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<E> {
        stream(key: SlotKey.of(E.self).in(phase), bufferingPolicy: bufferingPolicy)
    }

    /// The named events `name` that reach this node, as an async sequence.
    ///
    /// ```swift
    /// for await event in node.events(named: "Statistics") { log(event.parameters) }
    /// ```
    public func events(
        named name: EventName,
        phase: Phase = .bubble,
        bufferingPolicy: AsyncStream<NamedEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<NamedEvent> {
        stream(key: SlotKey.name(name.rawValue).in(phase), bufferingPolicy: bufferingPolicy)
    }

    private func stream<Payload: Sendable>(
        key: SlotKey,
        bufferingPolicy: AsyncStream<Payload>.Continuation.BufferingPolicy
    ) -> AsyncStream<Payload> {
        let (stream, continuation) = AsyncStream<Payload>.makeStream(bufferingPolicy: bufferingPolicy)
        let receiver = ForwardingReceiver<Payload>(
            forward: { continuation.yield($0) },
            onEnd: { continuation.finish() }
        )
        // Runs when the consumer is cancelled, drops the stream, or the stream finished.
        // Set before subscribing: nobody can cancel a stream not yet returned.
        continuation.onTermination = { _ in receiver.cancel() }
        _ = add(receiver, for: key)
        return stream
    }
}

/// A receiver that forwards each value on the posting thread and says when it ended.
final class ForwardingReceiver<Payload: Sendable>: Receiver<Payload>, @unchecked Sendable {
    let forward: @Sendable (Payload) -> Void
    let onEnd: @Sendable () -> Void

    init(forward: @escaping @Sendable (Payload) -> Void, onEnd: @escaping @Sendable () -> Void) {
        self.forward = forward
        self.onEnd = onEnd
        super.init(delivery: .postingThread)
    }

    override func receive(_ value: Payload, _ propagation: inout Propagation) -> Bool {
        forward(value)
        return true
    }

    override func didEnd() {
        onEnd()
    }
}
