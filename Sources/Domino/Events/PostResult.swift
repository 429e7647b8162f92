/// What happened to a post: how many handlers it reached and whether, where and
/// why it was stopped.
///
/// `post` returns it discardably; use it in tests and diagnostics:
///
/// ```swift
/// let result = node.post(ContentDidLoad(itemCount: 3))
/// if !result.wasDelivered { print("nobody listens for ContentDidLoad") }
/// ```
public struct PostResult: Sendable, Equatable, CustomStringConvertible {
    /// Why a walk ended before the end of its route.
    public enum StopReason: Sendable, Equatable {
        /// An interceptor returned ``Interception/stop``.
        case interceptor
        /// A subscriber called ``Propagation/stop()``.
        case subscriber
        /// A subscriber called ``Propagation/stopImmediately()``.
        case subscriberImmediately
        /// The post was nested deeper than ``DominoNode/maximumNestingDepth`` and was
        /// dropped before reaching anyone (reported through ``Diagnostics``).
        case nestingLimit
    }

    /// Handlers reached: the ones that ran before the post returned, plus the ones
    /// ``scheduled`` to run later.
    public let deliveries: Int
    /// Handlers enqueued to run later, where their mode or isolation says (the main
    /// queue for a main-actor handler posted to from another thread, a queue, an
    /// actor). They run once that queue or actor gets to them.
    public let scheduled: Int
    /// Handlers that ran before the post returned, on the posting thread.
    public var ran: Int { deliveries - scheduled }
    /// Nodes the walk reached, the starting node included: the whole route (or
    /// subtree) when nothing stopped it, else the nodes up to the one where it
    /// stopped (for a capture-phase stop, from the outermost node down to it).
    ///
    /// A broadcast leaves out the subtrees that interceptors kept the event out of,
    /// and the nodes after a consuming stop in pre-order; a raise counts its way up
    /// and then its way down, so a node on both counts twice. A delivery to the
    /// deepest subscriber counts every node it searched.
    public let nodesVisited: Int
    /// Why the walk stopped early, or nil when it went the whole route.
    public let stopReason: StopReason?
    /// The description (label) of the node where the walk stopped.
    public var stoppedAt: String? { stopReason == nil ? nil : place }
    /// Where the rest of the walk went on after `post` returned, such as
    /// `"inbox on the main actor"`: a protocol post to every target
    /// (``DominoNode/post(_:method:to:isolation:_:)``) that met a target living
    /// elsewhere moves there and goes on from it. Nil when the walk ended before
    /// `post` returned.
    public var continuesAt: String? { stopReason == nil ? place : nil }
    /// True when the route was cut short: the post was made off the main thread, and
    /// a node on its route has a responder chain that has never been read on the main
    /// thread (UIKit's chains may only be read there), so the nodes that chain leads
    /// to were not reached. Reported once per node as
    /// ``Diagnostic/Code/responderChainUnread``; call
    /// ``DominoNode/refreshResponderChain()`` on that node on the main thread (see
    /// <doc:TheResponderChain>).
    public let routeCutShort: Bool
    /// Where the walk stopped, or where it went on: one field for both, since a walk
    /// that stopped did not go on (a second field cost every post a release).
    private let place: String?

    /// True when at least one handler received the event.
    public var wasDelivered: Bool { deliveries > 0 }
    /// True when something stopped the event before the end of its route.
    public var wasStopped: Bool { stopReason != nil }

    init(deliveries: Int, scheduled: Int = 0, nodesVisited: Int, stopReason: StopReason?, stoppedAt: String?, routeCutShort: Bool = false) {
        self.deliveries = deliveries
        self.scheduled = scheduled
        self.nodesVisited = nodesVisited
        self.stopReason = stopReason
        place = stoppedAt
        self.routeCutShort = routeCutShort
    }

    /// A walk that went on elsewhere after `post` returned.
    init(deliveries: Int, nodesVisited: Int, continuesAt: String) {
        self.deliveries = deliveries
        scheduled = 0
        self.nodesVisited = nodesVisited
        stopReason = nil
        place = continuesAt
        routeCutShort = false
    }

    /// A one-line summary, such as `delivered to 2 handler(s) over 3 node(s)`, or
    /// `delivered to 2 handler(s) (1 scheduled) over 3 node(s)`, or for a walk that
    /// moved, `delivered to 1 handler(s) over 3 node(s), continues at inbox on the main actor`.
    public var description: String {
        var text = "delivered to \(deliveries) handler(s)"
        if scheduled > 0 { text += " (\(scheduled) scheduled)" }
        text += " over \(nodesVisited) node(s)"
        if let stopReason {
            text += ", stopped (\(stopReason)) at \(stoppedAt ?? "?")"
        }
        if let continuesAt { text += ", continues at \(continuesAt)" }
        if routeCutShort { text += ", route cut short at a responder chain not yet read on the main thread" }
        return text
    }
}
