/// Events as `AsyncSequence`s: `for await` the events that reach a node.
///
/// ```swift
/// let task = Task {
///     for await event in containerNode.stream(of: ContentDidLoad.self) {
///         print("loaded \(event.itemCount)")
///     }
///     // Ends when the node deallocates.
/// }
/// // ...
/// task.cancel()   // ends the loop and removes the subscription
/// ```
///
/// Each loop is one subscription; it receives what a subscriber at that node would,
/// in the same order, on the posting thread (never a queue hop before buffering), and
/// ends with the loop (see ``EventStream`` for exactly when).
extension DominoNode {
    /// The typed events of type `E` that reach this node, as an async sequence.
    ///
    /// ```swift
    /// for await change in inboxNode.stream(of: UnreadCountDidChange.self) {
    ///     badge.count = change.count
    /// }
    /// ```
    ///
    /// It subscribes at once, so nothing posted after the call is missed; the
    /// subscription ends when the loop ends (see ``EventStream``).
    ///
    /// - Parameters:
    ///   - type: The event type.
    ///   - phase: Which phase to listen in (see ``Phase``).
    ///   - bufferingPolicy: What to keep while the consumer is busy; unbounded by default.
    @inlinable
    public func stream<E: Event>(
        of type: E.Type,
        phase: Phase = .bubble,
        bufferingPolicy: AsyncStream<E>.Continuation.BufferingPolicy = .unbounded
    ) -> EventStream<E> {
        // The closure that yields is made here, in the caller's module, where `E` is
        // known: made in the library, unspecialized, it looked up the metadata of
        // `AsyncStream<E>.Continuation` at every event (measured: about 1,100 of the
        // 6,100 instructions an event into a loop cost).
        stream(of: type, phase: phase, bufferingPolicy: bufferingPolicy) { continuation in
            { event in continuation.yield(event) }
        }
    }

    /// `stream(of:phase:bufferingPolicy:)` with the closure that forwards an event
    /// into a new stream's continuation, made by the caller.
    @usableFromInline
    func stream<E: Event>(
        of type: E.Type,
        phase: Phase,
        bufferingPolicy: AsyncStream<E>.Continuation.BufferingPolicy,
        forwarding: @escaping @Sendable (AsyncStream<E>.Continuation) -> @Sendable (E) -> Void
    ) -> EventStream<E> {
        stream(key: SlotKey.of(E.self).in(phase), bufferingPolicy: bufferingPolicy, forwarding: forwarding)
    }

    /// The named events `name` that reach this node, as an async sequence.
    ///
    /// ```swift
    /// for await event in node.stream(named: "Statistics") { log(event.parameters) }
    /// ```
    ///
    /// It subscribes at once, so nothing posted after the call is missed; the
    /// subscription ends when the loop ends (see ``EventStream``).
    public func stream(
        named name: EventName,
        phase: Phase = .bubble,
        bufferingPolicy: AsyncStream<NamedEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> EventStream<NamedEvent> {
        stream(key: SlotKey.name(name.rawValue).in(phase), bufferingPolicy: bufferingPolicy) { continuation in
            { event in continuation.yield(event) }
        }
    }

    private func stream<Payload: Sendable>(
        key: SlotKey,
        bufferingPolicy: AsyncStream<Payload>.Continuation.BufferingPolicy,
        forwarding: @escaping @Sendable (AsyncStream<Payload>.Continuation) -> @Sendable (Payload) -> Void
    ) -> EventStream<Payload> {
        // Weak: the sequence must not keep the node alive; a loop started after the
        // node went finishes at once.
        EventStream { [weak self] in
            guard let self else { return .ended }
            let (values, receiver) = self.subscribeStream(key: key, bufferingPolicy: bufferingPolicy, forwarding: forwarding)
            return StreamFeed(values) { receiver.cancel() }
        }
    }

    /// Subscribes a receiver that yields into a new `AsyncStream`. The subscription
    /// ends when the receiver is cancelled, when the stream's consumer is cancelled or
    /// the stream and its iterators are released, or when the subscription is
    /// removed or the node goes (which finishes the stream).
    private func subscribeStream<Payload: Sendable>(
        key: SlotKey,
        bufferingPolicy: AsyncStream<Payload>.Continuation.BufferingPolicy,
        forwarding: (AsyncStream<Payload>.Continuation) -> @Sendable (Payload) -> Void
    ) -> (values: AsyncStream<Payload>, receiver: ForwardingReceiver<Payload>) {
        let (values, continuation) = AsyncStream<Payload>.makeStream(bufferingPolicy: bufferingPolicy)
        let receiver = ForwardingReceiver<Payload>(
            forward: forwarding(continuation),
            onEnd: { continuation.finish() }
        )
        // Runs when the consumer is cancelled, drops the stream, or the stream finished.
        // Set before subscribing: nobody can cancel a stream not yet returned.
        continuation.onTermination = { _ in receiver.cancel() }
        _ = add(receiver, for: key)
        return (values, receiver)
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
