// Combine interop where Combine exists. Linux CI typechecks this file against a
// stand-in Combine (PlatformCheck/); the receiver it uses is the one behind
// `stream(of:)`, which the tests exercise.
#if canImport(Combine)
import Combine

extension DominoNode {
    /// A publisher of the typed events of type `E` that reach this node.
    ///
    /// Each subscriber of the publisher subscribes once at the node and receives on
    /// the posting thread (add `.receive(on:)` to hop). It finishes when the node
    /// deallocates or the subscription is removed; cancelling it unsubscribes.
    ///
    /// ```swift
    /// containerNode.publisher(of: ContentDidLoad.self)
    ///     .map(\.itemCount)
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { count in badge.count = count }
    ///     .store(in: &cancellables)
    /// ```
    public func publisher<E: Event>(of type: E.Type, phase: Phase = .bubble) -> AnyPublisher<E, Never> {
        Deferred { [weak self] () -> AnyPublisher<E, Never> in
            guard let self else { return Empty().eraseToAnyPublisher() }
            let subject = SubjectBox<E>()
            let receiver = ForwardingReceiver<E>(forward: { subject.send($0) }, onEnd: { subject.finish() })
            _ = self.add(receiver, for: SlotKey.of(E.self).in(phase))
            return subject.subject
                .handleEvents(receiveCancel: { receiver.cancel() })
                .eraseToAnyPublisher()
        }
        .eraseToAnyPublisher()
    }

}

/// A subject that handlers on any thread may feed. `PassthroughSubject` serializes
/// `send` internally; it is only not annotated as `Sendable`.
final class SubjectBox<Output>: @unchecked Sendable {
    let subject = PassthroughSubject<Output, Never>()
    func send(_ value: Output) { subject.send(value) }
    func finish() { subject.send(completion: .finished) }
}
#endif

#if canImport(Combine)
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal {
    /// A publisher of this signal's fires (a tuple for several values).
    ///
    /// Each subscriber of the publisher subscribes to the signal once, on the firing
    /// thread; cancelling ends that subscription, and the publisher finishes when the
    /// signal deallocates.
    ///
    /// ```swift
    /// request.onProgress.publisher()
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { fraction in bar.progress = fraction }
    ///     .store(in: &cancellables)
    /// ```
    public func publisher() -> AnyPublisher<(repeat each Value), Never> {
        Deferred { [weak self] () -> AnyPublisher<(repeat each Value), Never> in
            guard let self else { return Empty().eraseToAnyPublisher() }
            let subject = SubjectBox<(repeat each Value)>()
            let token = StreamEnd { subject.finish() }
            let subscription = self.subscribe(token, on: .postingThread) { (_: StreamEnd, value: repeat each Value) in
                withExtendedLifetime(token) { subject.send((repeat each value)) }
            }
            return subject.subject
                .handleEvents(receiveCancel: { [weak subscription] in subscription?.cancel() })
                .eraseToAnyPublisher()
        }
        .eraseToAnyPublisher()
    }
}
#endif
