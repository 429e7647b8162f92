/// A signal's fires as an `AsyncSequence`.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal {
    /// The values of each fire from now on, as an async sequence (a tuple for
    /// several values, the value itself for one).
    ///
    /// ```swift
    /// let results = request.onResult.firings()
    /// for await (data, error) in results {
    ///     show(data, error)
    /// }
    /// // Ends when the signal deallocates.
    /// ```
    ///
    /// It observes at once, on the firing thread, so nothing fired after the call is
    /// missed. It ends when the signal deallocates, or when the consuming task is
    /// cancelled, leaves the loop or drops the stream; its observation is removed then.
    /// Fires that arrive while the consumer is busy are buffered, by default without
    /// bound; pass `.bufferingNewest(n)` or `.bufferingOldest(n)` to cap the buffer.
    public func firings(
        bufferingPolicy: AsyncStream<(repeat each Value)>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<(repeat each Value)> {
        let (stream, continuation) = AsyncStream<(repeat each Value)>.makeStream(bufferingPolicy: bufferingPolicy)
        // The observer object. Only the callback holds it, so it goes (and finishes
        // the stream) when the observation's callback is released: on cancel, on
        // removal, or when the signal deallocates and drops its observations.
        let token = StreamEnd { continuation.finish() }
        let observation = addObserver(token, on: .postingThread) { (_: StreamEnd, value: repeat each Value) in
            withExtendedLifetime(token) {
                _ = continuation.yield((repeat each value))
            }
        }
        // Weak: the stream's storage must not keep the observation (and so the
        // token) alive once the signal let it go.
        continuation.onTermination = { [weak observation] _ in observation?.cancel() }
        return stream
    }
}

/// Calls `onEnd` when deallocated.
final class StreamEnd: Sendable {
    private let onEnd: @Sendable () -> Void
    init(_ onEnd: @escaping @Sendable () -> Void) { self.onEnd = onEnd }
    deinit { onEnd() }
}
