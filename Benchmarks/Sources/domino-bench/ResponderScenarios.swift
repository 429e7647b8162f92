import Domino

// Rows for programs that use the responder chain (every UIKit or AppKit app whose
// views and controllers have `dominoNode`s): measured in a group of their own,
// after the other scenarios, since making a responder node switches the responder
// registry on for the rest of the process, which changes how every walk collects.

/// A main-actor responder whose next responder changes, as a view moved to another
/// superview.
@MainActor final class MovableResponder: DominoResponder {
    var next: ViewResponder
    lazy var domino = DominoNode(label: "moving view", responder: self)

    init(next: ViewResponder) {
        self.next = next
    }

    var nextDominoResponder: (any DominoResponder)? { next }
}

/// A main-actor responder, as `UIView` and `UIViewController` are: its chain is read
/// on the main thread only (the default), and the harness posts there.
@MainActor final class ViewResponder: DominoResponder {
    let next: ViewResponder?
    lazy var domino = DominoNode(label: "view", responder: self)

    init(next: ViewResponder?) {
        self.next = next
    }

    var nextDominoResponder: (any DominoResponder)? { next }
}

extension Scenarios {
    /// The responder scenarios, in report order, built only when their names match
    /// `filter` (all when nil). Run after `all(filter:)`'s.
    static func responders(filter: String?) -> [Scenario] {
        let builders: [(String, () -> Scenario)] = [
            ("responder.post.depth10", { responderPost(depth: 10) }),
            ("responder.post.mode.depth10", { responderPost(depth: 10, .modeAt(5)) }),
            ("responder.broadcast.tree111", { responderBroadcastTree111() }),
            ("responder.post.inturn2.depth10", { responderPostInTurn(leaves: 2, depth: 10) }),
            ("responder.post.inturn5.depth10", { responderPostInTurn(leaves: 5, depth: 10) }),
            ("responder.post.afterchurn.depth10", { responderPost(depth: 10, .afterChurn) }),
            ("responder.post.aftermove.depth10", { responderPost(depth: 10, .afterMove) }),
        ]
        return build(builders, filter: filter)
    }

    /// Scenarios that change the process for every scenario after them, built only
    /// when `filter` names them (never in a full run): the counters run each in a
    /// process of its own.
    static func isolated(filter: String?) -> [Scenario] {
        guard let filter else { return [] }
        let builders: [(String, () -> Scenario)] = [
            ("responder.broadcast.among1000", { responderBroadcastAmong(others: 1000) }),
            ("responder.broadcast.moved.among1000", { responderBroadcastAfterAMove(others: 1000) }),
            ("responder.raise.tree111", { responderRaiseTree111() }),
        ]
        return build(builders.filter { name, _ in filter.hasPrefix(name) }, filter: filter)
    }

    /// What `responderPost(depth:_:)` does besides the post.
    enum ResponderPostVariant {
        /// The post alone.
        case plain
        /// The node that many levels below the top has a delivery mode of its own
        /// (`.postingThread`, as the subscriber's: nothing else changes), which until
        /// session 41 sent every post through it to its stripe (3,096 instructions
        /// against 2,708 without the mode).
        case modeAt(Int)
        /// Before each post, another view and its node, elsewhere, are made and
        /// released (a screen's cells or controllers coming and going between posts).
        /// Until session 42 every node made or released anywhere staled every link's
        /// remembered path, so each post resolved every link of its route again
        /// (about 37,600 instructions an operation, 30,400 of them the post's
        /// resolution, against 2,705 for the post alone); now a path stays valid
        /// while no responder on it gets a node, and the post takes its route's
        /// census again and checks it (about 11,000, 4,300 of them making and
        /// releasing the other view and node).
        case afterChurn
        /// The bottom responder is moved, before each post, between the two above it
        /// (a view re-parented in a chain read before): the first post after a link
        /// changed, which resolves the route's links again. Session 42: about 40,000
        /// instructions, every link above the leaf resolved again (about 2,700 each)
        /// and the resolution loop's route walks and sets; the post after it reads
        /// without a lock (the census kept by the first). A row to bring down.
        case afterMove
    }

    /// A typed event posted on the main thread at the node of a responder `depth`
    /// responders below the only subscriber, each responder with a node and no
    /// mounting: the route is the responder chain, read as the post passes it.
    static func responderPost(depth: Int, _ variant: ResponderPostVariant = .plain) -> Scenario {
        let counter = Counter()
        var moves = false
        if case .afterMove = variant { moves = true }
        // The harness builds and runs scenarios on the main thread. The bottom
        // responder is one that can move when the variant moves it.
        let (responders, leaf, nodes) = MainActor.assumeIsolated { () -> ([ViewResponder], MovableResponder?, [DominoNode]) in
            var responders = [ViewResponder(next: nil)]
            for _ in 0..<(moves ? depth - 1 : depth) { responders.append(ViewResponder(next: responders.last)) }
            let leaf = moves ? MovableResponder(next: responders[depth - 1]) : nil
            return (responders, leaf, responders.map(\.domino) + (leaf.map { [$0.domino] } ?? []))
        }
        nodes[0].subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
        let name: String
        switch variant {
        case .plain:
            name = "responder.post.depth\(depth)"
        case .modeAt(let level):
            nodes[level].deliveryMode = .postingThread
            name = "responder.post.mode.depth\(depth)"
        case .afterChurn:
            name = "responder.post.afterchurn.depth\(depth)"
        case .afterMove:
            name = "responder.post.aftermove.depth\(depth)"
        }
        let bottom = nodes[depth]
        return Scenario(
            name: name,
            baseline: nil, target: nil,
            deliveriesPerOperation: 1, counter: counter, keepAlive: responders + nodes + (leaf.map { [$0] } ?? [])
        ) { iterations in
            switch variant {
            case .afterChurn:
                for _ in 0..<iterations {
                    MainActor.assumeIsolated { blackhole(ViewResponder(next: nil).domino) }
                    blackhole(bottom.post(Ping(lane: 0)))
                }
            case .afterMove:
                let places = (responders[depth - 1], responders[depth - 2])
                MainActor.assumeIsolated {
                    for _ in 0..<iterations {
                        leaf.unsafelyUnwrapped.next = leaf.unsafelyUnwrapped.next === places.0 ? places.1 : places.0
                        blackhole(bottom.post(Ping(lane: 0)))
                    }
                }
            case .plain, .modeAt:
                for _ in 0..<iterations { blackhole(bottom.post(Ping(lane: 0))) }
            }
            return iterations
        }
    }

    /// `responderPost(depth:)` from `leaves` sibling responders in turn, one post an
    /// operation: each post's route differs from the one before it on the thread.
    /// A thread keeps the censuses of its last eight routes' links (four until
    /// session 40, when five leaves took each route's census again at every post):
    /// with two or five leaves every post finds its route's, and reads the route
    /// without a lock.
    static func responderPostInTurn(leaves: Int, depth: Int) -> Scenario {
        let counter = Counter()
        let (responders, nodes) = MainActor.assumeIsolated { () -> ([ViewResponder], [DominoNode]) in
            var responders = [ViewResponder(next: nil)]
            for _ in 1..<depth { responders.append(ViewResponder(next: responders.last)) }
            let parent = responders[depth - 1]
            for _ in 0..<leaves { responders.append(ViewResponder(next: parent)) }
            return (responders, responders.map(\.domino))
        }
        nodes[0].subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
        let senders = Array(nodes[depth...])
        return Scenario(
            name: "responder.post.inturn\(leaves).depth\(depth)",
            baseline: nil, target: nil,
            deliveriesPerOperation: 1, counter: counter, keepAlive: responders + nodes
        ) { iterations in
            var sender = 0
            for _ in 0..<iterations {
                blackhole(senders[sender].post(Ping(lane: 0)))
                sender = sender == senders.count - 1 ? 0 : sender + 1
            }
            return iterations
        }
    }

    /// One typed event broadcast on the main thread from the root of a tree of 111
    /// responders (fan-out 10, depth 2), every node subscribed, each responder's next
    /// responder its parent: the tree is the responder chains, no mounting. ns/op is
    /// per broadcast.
    static func responderBroadcastTree111() -> Scenario {
        responderWalkTree111(raising: false)
    }

    /// One typed event raised on the main thread from a leaf of the tree of
    /// `responder.broadcast.tree111`: up the leaf's chain to the root (no raise-phase
    /// handler), then down to every node. ns/op is per raise.
    static func responderRaiseTree111() -> Scenario {
        responderWalkTree111(raising: true)
    }

    /// A broadcast from the root of the tree of 111 responders, or a raise from its
    /// last leaf.
    private static func responderWalkTree111(raising: Bool) -> Scenario {
        let counter = Counter()
        let (responders, nodes) = responderTree111(counter: counter)
        let start = raising ? nodes[nodes.count - 1] : nodes[0]
        return Scenario(
            name: raising ? "responder.raise.tree111" : "responder.broadcast.tree111",
            baseline: nil, target: nil,
            deliveriesPerOperation: nodes.count, counter: counter, keepAlive: responders + nodes
        ) { iterations in
            for _ in 0..<iterations {
                blackhole(raising ? start.raise(Ping(lane: 0)) : start.broadcast(Ping(lane: 0)))
            }
            return iterations
        }
    }

    /// The tree of 111 responders with a node each, every node subscribed (bumping
    /// `counter`), every chain read once: the root first.
    private static func responderTree111(counter: Counter) -> ([ViewResponder], [DominoNode]) {
        let (responders, nodes) = MainActor.assumeIsolated { () -> ([ViewResponder], [DominoNode]) in
            var responders = [ViewResponder(next: nil)]
            var level = [responders[0]]
            for _ in 1...2 {
                var next: [ViewResponder] = []
                for parent in level {
                    for _ in 0..<10 { next.append(ViewResponder(next: parent)) }
                }
                responders += next
                level = next
            }
            let nodes = responders.map(\.domino)
            // Read every chain once, as UIKit's views would be by a first post.
            for node in nodes { node.refreshResponderChain() }
            return (responders, nodes)
        }
        for node in nodes {
            node.subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
        }
        return (responders, nodes)
    }

    /// One typed event broadcast on the main thread from a leaf responder node with
    /// one subscriber, whose next responder is a window with a node, beside `others`
    /// other responder nodes (the window's other views, each with a node and no
    /// subscriber): what a walk down pays for the responder nodes of the whole
    /// program, whose chains it reads since any of them could lead into its tree.
    static func responderBroadcastAmong(others: Int) -> Scenario {
        let counter = Counter()
        let (responders, nodes) = MainActor.assumeIsolated { () -> ([ViewResponder], [DominoNode]) in
            let window = ViewResponder(next: nil)
            let leaf = ViewResponder(next: window)
            let views = (0..<others).map { _ in ViewResponder(next: window) }
            let responders = [window, leaf] + views
            let nodes = responders.map(\.domino)
            for node in nodes { node.refreshResponderChain() }
            return (responders, nodes)
        }
        nodes[1].subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
        let leaf = nodes[1]
        return Scenario(
            name: "responder.broadcast.among\(others)",
            baseline: nil, target: nil,
            deliveriesPerOperation: 1, counter: counter, keepAlive: responders + nodes
        ) { iterations in
            for _ in 0..<iterations { blackhole(leaf.broadcast(Ping(lane: 0))) }
            return iterations
        }
    }

    /// A leaf responder node with one subscriber moved between two panels of a
    /// window (each with a node) before each broadcast from the panel it moved to,
    /// beside `others` other responder nodes under the window: what a walk down pays
    /// after the app moved a view (the moved view's link found changed and resolved
    /// again, and the census of every link taken anew).
    static func responderBroadcastAfterAMove(others: Int) -> Scenario {
        let counter = Counter()
        let (responders, nodes, leaf) = MainActor.assumeIsolated { () -> ([ViewResponder], [DominoNode], MovableResponder) in
            let window = ViewResponder(next: nil)
            let panels = [ViewResponder(next: window), ViewResponder(next: window)]
            let leaf = MovableResponder(next: panels[0])
            let views = (0..<others).map { _ in ViewResponder(next: window) }
            let responders = [window] + panels + views
            let nodes = responders.map(\.domino) + [leaf.domino]
            for node in nodes { node.refreshResponderChain() }
            return (responders, nodes, leaf)
        }
        nodes[nodes.count - 1].subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
        let panels = [responders[1], responders[2]]
        let panelNodes = [nodes[1], nodes[2]]
        return Scenario(
            name: "responder.broadcast.moved.among\(others)",
            baseline: nil, target: nil,
            deliveriesPerOperation: 1, counter: counter, keepAlive: responders + nodes + [leaf]
        ) { iterations in
            MainActor.assumeIsolated {
                var place = leaf.next === panels[0] ? 0 : 1
                for _ in 0..<iterations {
                    place = 1 - place
                    leaf.next = panels[place]
                    blackhole(panelNodes[place].broadcast(Ping(lane: 0)))
                }
            }
            return iterations
        }
    }
}
