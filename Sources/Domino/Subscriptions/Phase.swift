/// When a subscriber hears an event on its way through the graph, as the DOM's
/// event phases and EventsTree's stages.
///
/// | operation | phases it runs, in order |
/// |---|---|
/// | ``DominoNode/post(_:)-(E)`` | ``capture`` handlers down the route, outermost first; then ``bubble`` handlers up the route |
/// | ``DominoNode/broadcast(_:)-(E)`` | ``bubble`` handlers at the node and every node below it |
/// | ``DominoNode/raise(_:)-(E)`` | ``raise`` handlers up the route to the root(s); then ``bubble`` (EventsTree's *propagate*) handlers from the root(s) down to every node |
///
/// ```swift
/// // Sees every tap in the window before the views it was posted from.
/// windowNode.subscribe(Tap.self, phase: .capture, on: .postingThread) { tap, propagation in
///     if isModalPresented { propagation.stop() }
/// }
/// ```
public enum Phase: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// The default: up a post's route from the posting node, and down a broadcast or
    /// a raise's propagation.
    case bubble = 0
    /// Down a post's route from its outermost node to the posting node, before the
    /// bubble phase (the DOM's capture phase).
    case capture = 1
    /// Up a raise's route to the root(s), before the event propagates down
    /// (EventsTree's raise stage).
    case raise = 2

    /// EventsTree's propagate stage, which is the bubble phase: a raise runs
    /// ``bubble`` handlers on its way down from the root(s).
    @available(*, deprecated, renamed: "bubble")
    public static var propagate: Phase { .bubble }

    /// The phase's name.
    public var description: String {
        switch self {
        case .bubble: return "bubble"
        case .capture: return "capture"
        case .raise: return "raise"
        }
    }
}
