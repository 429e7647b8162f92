// Combine interop where Combine exists. Linux CI cannot compile this file; the
// receiver it uses is the one behind `events(of:)`, which the tests exercise.
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
    /// containerNode.publisher(for: ContentDidLoad.self)
    ///     .map(\.itemCount)
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { count in badge.count = count }
    ///     .store(in: &cancellables)
    /// ```
    public func publisher<E: Event>(for type: E.Type, phase: Phase = .bubble) -> AnyPublisher<E, Never> {
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
