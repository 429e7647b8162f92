/// A signal's fires as an `AsyncSequence`.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal {
    /// The values of each fire from now on, as an async sequence (a tuple for
    /// several values, the value itself for one).
    ///
    /// ```swift
    /// for await (data, error) in request.onResult.stream() {
    ///     show(data, error)
    ///     if data != nil { break }   // ends the subscription
    /// }
    /// ```
    ///
    /// It subscribes at once, on the firing thread, so nothing fired after the call
    /// is missed; the subscription ends when the loop ends, or when the signal
    /// deallocates (see ``EventStream``). Fires that arrive while the consumer is
    /// busy are buffered, by default without bound; pass `.bufferingNewest(n)` or
    /// `.bufferingOldest(n)` to cap the buffer.
    public func stream(
        bufferingPolicy: AsyncStream<(repeat each Value)>.Continuation.BufferingPolicy = .unbounded
    ) -> EventStream<(repeat each Value)> {
        // Weak: the sequence must not keep the signal alive; a loop started after the
        // signal went finishes at once.
        EventStream { [weak self] in
            guard let self else { return .ended }
            let (values, subscription) = self.subscribeStream(bufferingPolicy: bufferingPolicy)
            // Weak, for the same reason as in `subscribeStream`.
            return StreamFeed(values) { [weak subscription] in subscription?.cancel() }
        }
    }

    /// Subscribes a callback that yields into a new `AsyncStream`; the stream
    /// finishes when the subscription ends, and the subscription ends when the
    /// stream's consumer is cancelled or the stream and its iterators are released.
    private func subscribeStream(
        bufferingPolicy: AsyncStream<(repeat each Value)>.Continuation.BufferingPolicy
    ) -> (values: AsyncStream<(repeat each Value)>, subscription: SignalSubscription) {
        let (values, continuation) = AsyncStream<(repeat each Value)>.makeStream(bufferingPolicy: bufferingPolicy)
        // The observer object. Only the callback holds it, so it goes (and finishes
        // the stream) when the subscription's callback is released: on cancel, on
        // removal, or when the signal deallocates and drops its subscriptions.
        let token = StreamEnd { continuation.finish() }
        let subscription = subscribe(token, on: .postingThread) { (_: StreamEnd, value: repeat each Value) in
            withExtendedLifetime(token) {
                _ = continuation.yield((repeat each value))
            }
        }
        // Weak: the stream's storage must not keep the subscription (and so the
        // token) alive once the signal let it go.
        continuation.onTermination = { [weak subscription] _ in subscription?.cancel() }
        return (values, subscription)
    }
}

/// Calls `onEnd` when deallocated.
final class StreamEnd: Sendable {
    private let onEnd: @Sendable () -> Void
    init(_ onEnd: @escaping @Sendable () -> Void) { self.onEnd = onEnd }
    deinit { onEnd() }
}
