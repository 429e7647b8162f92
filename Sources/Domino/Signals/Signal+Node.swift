@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Signal {
    /// Feeds the signal into the node graph: each fire posts the event that
    /// `makeEvent` builds from the fired values at `node`, on the firing thread.
    ///
    /// ```swift
    /// struct DownloadProgressed: Event {
    ///     var fraction: Double
    /// }
    ///
    /// request.onProgress.connect(to: screen.domino) { fraction in
    ///     DownloadProgressed(fraction: fraction)
    /// }
    /// // Every subscriber on the route from `screen.domino` up now hears it.
    /// ```
    ///
    /// The node is the connection's observer: it is held weakly, and the connection
    /// ends when the node deallocates. The node's subscribers then receive the event
    /// as for any ``DominoNode/post(_:)-(E)``, in their own delivery modes.
    ///
    /// - Parameters:
    ///   - node: Where the events are posted.
    ///   - makeEvent: Builds the event from the fired values.
    /// - Returns: The connection's handle; ``SignalSubscription/cancel()`` disconnects.
    @discardableResult
    public func connect<E: Event>(
        to node: DominoNode,
        _ makeEvent: @escaping @Sendable (repeat each Value) -> E
    ) -> SignalSubscription {
        subscribe(node, on: .postingThread) { (node: DominoNode, value: repeat each Value) in
            node.post(makeEvent(repeat each value))
        }
    }
}
