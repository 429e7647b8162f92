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
public enum Phase: Sendable, CaseIterable, CustomStringConvertible {
    /// The default: up a post's route from the posting node, and down a broadcast or
    /// a raise's propagation.
    case bubble
    /// Down a post's route from its outermost node to the posting node, before the
    /// bubble phase (the DOM's capture phase).
    case capture
    /// Up a raise's route to the root(s), before the event propagates down
    /// (EventsTree's raise stage).
    case raise

    /// The phase's two bits in a slot key.
    var bits: UInt8 {
        switch self {
        case .bubble: return 0
        case .capture: return 1
        case .raise: return 2
        }
    }

    /// The phase whose ``bits`` are `bits`, if any.
    init?(bits: UInt8) {
        switch bits {
        case 0: self = .bubble
        case 1: self = .capture
        case 2: self = .raise
        default: return nil
        }
    }

    /// The phase's name.
    public var description: String {
        switch self {
        case .bubble: return "bubble"
        case .capture: return "capture"
        case .raise: return "raise"
        }
    }
}
