/// The route of a post: the posting node, then its ancestors, depth-first pre-order,
/// the responder-chain successor first and then the parents in mount order, each node
/// at most once.
///
/// Must be called under `graphLock` (shared or exclusive). Iterative, so a
/// 100,000-deep chain does not overflow the stack. Nodes are borrowed, never
/// retained (see `NodeLink`).
enum Route {
    /// Set under the exclusive lock when a mount closes a cycle; sticky, because a
    /// conservative flag only costs the slow path, never a wrong answer.
    @exclusivity(unchecked) nonisolated(unsafe) static var graphMayHaveCycles = false

    @inline(__always)
    static func walk(from start: DominoNode, _ visit: (DominoNode) -> Void) {
        if graphMayHaveCycles {
            walkGeneral(from: NodeLink(start), visit)
            return
        }
        // Fast path: a plain chain (every node has one way up at most: a parent or
        // a responder-chain successor) in a graph without cycles cannot revisit a
        // node, so it needs no visited set. Each node's parent list is read once (a
        // word: several links, or the one).
        guard case .one(var next) = wayUp(from: start) else {
            walkGeneral(from: NodeLink(start), visit)
            return
        }
        visit(start)
        while let link = next {
            let branches = link.withNode { node -> Bool in
                guard case .one(let above) = wayUp(from: node) else { return true }
                visit(node)
                next = above
                return false
            }
            if branches {
                walkGeneral(from: link, visit)
                return
            }
        }
    }

    /// Where a walk up goes from a node: nowhere or one node, or several ways.
    enum WayUp {
        case one(NodeLink?)
        case several
    }

    /// The way up from `node`: its parents and its responder-chain successor. Lock
    /// held.
    @inline(__always)
    static func wayUp(from node: DominoNode) -> WayUp {
        let parents = node.parentLinks.shape
        if parents.isMultiple { return .several }
        guard let successor = node.responderLink?.successor else { return .one(parents.only) }
        return parents.only == nil ? .one(successor) : .several
    }

    /// Depth-first pre-order with a visited set, for DAGs and cycles. `start` is the
    /// first node not yet visited. When the fast path hands over mid-chain, the nodes
    /// it already visited need no marking: without cycles, no ancestor of `start` is
    /// below it.
    @inline(never)
    static func walkGeneral(from start: NodeLink, _ visit: (DominoNode) -> Void) {
        var visited = Set<NodeLink>()
        var stack: [NodeLink] = [start]
        while let link = stack.popLast() {
            guard visited.insert(link).inserted else { continue }
            link.withNode { node in
                visit(node)
                node.parentLinks.forEachLinkReversed { parent in
                    if !visited.contains(parent) { stack.append(parent) }
                }
                // Pushed last so that it is visited first: the responder chain leads.
                if let successor = node.responderLink?.successor, !visited.contains(successor) {
                    stack.append(successor)
                }
            }
        }
    }

    /// `walkGeneral` from `start`, except that a node other than `start` for which
    /// `prunes` is true is neither visited nor walked past: a refresh going no
    /// further up than the part of its route that was read before. Lock held.
    static func walk(from start: DominoNode, pruning prunes: (DominoNode) -> Bool, _ visit: (DominoNode) -> Void) {
        let first = NodeLink(start)
        var visited = Set<NodeLink>()
        var stack: [NodeLink] = [first]
        while let link = stack.popLast() {
            guard visited.insert(link).inserted else { continue }
            link.withNode { node in
                if link != first && prunes(node) { return }
                visit(node)
                node.parentLinks.forEachLinkReversed { parent in
                    if !visited.contains(parent) { stack.append(parent) }
                }
                if let successor = node.responderLink?.successor, !visited.contains(successor) {
                    stack.append(successor)
                }
            }
        }
    }

    /// Walks down from `starts`: each start, then its descendants, depth-first
    /// pre-order, children in mount order and then the nodes whose responder chain
    /// leads here, each node once across all starts (`visited` starts empty).
    /// `visit` gets each node and its depth below its start.
    ///
    /// Iterative, so a 100,000-deep chain does not overflow the stack. Only nodes
    /// that can be reached twice go into `visited`: the starts when there are
    /// several, every node once the graph may have cycles, and nodes with more than
    /// one way up (without a cycle, a node reached twice has two ways up: a start
    /// is a root, or the only start). Lock held.
    static func walkDown(from starts: [NodeLink], visited: inout Set<NodeLink>, _ visit: (DominoNode, Int) -> Void) {
        var stack = ScratchList<DownStep>()
        defer { stack.deallocate() }
        starts.withUnsafeBufferPointer { starts in
            walkDown(from: starts, visited: &visited, stack: &stack) { node, depth, _ in
                visit(node, depth)
                return 0
            }
        }
    }

    /// A node a walk down is to visit: its depth below its start, and what its
    /// parent in the walk handed down to it.
    typealias DownStep = (link: NodeLink, depth: Int, inherited: Int)

    /// `walkDown` with its stack given, so that a walk can reuse one (left empty),
    /// and with a value handed down the walk's tree: `visit` gets what the node's
    /// parent in the walk returned (-1 for a start) and returns what the node's own
    /// children get. (What walks down need per node, the nearest ancestor stage,
    /// without a stack of open stages to pop at each node: measured, 35
    /// instructions a node of a broadcast.)
    static func walkDown(
        from starts: UnsafeBufferPointer<NodeLink>, visited: inout Set<NodeLink>, stack: inout ScratchList<DownStep>,
        _ visit: (DominoNode, Int, Int) -> Int
    ) {
        for start in starts.reversed() { stack.append((start, 0, -1)) }
        // With a cycle, a start can be reached again from below: mark everything.
        let markAll = graphMayHaveCycles
        // Without one, a lone start cannot (marking it cost every broadcast and
        // raise a hash, an insertion and emptying the set: 160 instructions).
        let markStarts = starts.count > 1
        while let (link, depth, inherited) = stack.popLast() {
            link.withNode { node in
                // Plain ifs, no `||` or `&&` whose right side names `node`: the
                // operator's autoclosure captures it, which a debug build retains, and
                // a node whose last other reference goes meanwhile would then be
                // released here, its deinit waiting for the stripe this walk holds
                // (a deadlock, seen in LockFreePostTests' racing broadcasts).
                var reachableTwice = markAll || (depth == 0 && markStarts)
                if !reachableTwice { reachableTwice = node.parentLinks.isMultiple }
                if !reachableTwice, node.responderLink?.successor != nil {
                    reachableTwice = !node.parentLinks.isEmpty
                }
                if reachableTwice && !visited.insert(link).inserted { return }
                let handedDown = visit(node, depth, inherited)
                // Pushed in reverse so that they pop in order: mounted children, then followers.
                node.responderLink?.followers.forEachLinkReversed { stack.append(($0, depth + 1, handedDown)) }
                node.childLinks.forEachLinkReversed { stack.append(($0, depth + 1, handedDown)) }
            }
        }
    }

    /// Where a raise from `start` turns down: each node of the route with no way
    /// further up (a root), and, for each cycle of the route with no way out further
    /// up, the node of that cycle that comes last on the route; in route order. Lock
    /// held.
    ///
    /// These are the route's strongly connected components that no link leaves
    /// (Tarjan's algorithm, iterative, linear in the route): without cycles, exactly
    /// its roots. Only graphs that may have cycles need it.
    static func tops(from start: DominoNode) -> [NodeLink] {
        var place: [NodeLink: Int] = [:]       // route order, from 0
        var links: [NodeLink] = []
        var ups: [[NodeLink]] = []             // by place: the successor, then the parents
        var low: [Int] = []
        var component: [Int] = []              // by place: the component's first place, or -1
        var stack: [Int] = []
        var frames: [(place: Int, next: Int)] = []
        var tops: [Int] = []

        func open(_ link: NodeLink) {
            let index = links.count
            place[link] = index
            links.append(link)
            ups.append(link.withNode { node in
                var up: [NodeLink] = []
                if let successor = node.responderLink?.successor { up.append(successor) }
                up.append(contentsOf: node.parentLinks.links)
                return up
            })
            low.append(index)
            component.append(-1)
            stack.append(index)
            frames.append((index, 0))
        }

        open(NodeLink(start))
        while let (node, next) = frames.last {
            if next < ups[node].count {
                frames[frames.count - 1].next += 1
                let up = ups[node][next]
                if let seen = place[up] {
                    // Still on the stack (no component yet): part of this one.
                    if component[seen] < 0 { low[node] = min(low[node], seen) }
                } else {
                    open(up)
                }
                continue
            }
            frames.removeLast()
            if let caller = frames.last { low[caller.place] = min(low[caller.place], low[node]) }
            guard low[node] == node else { continue }
            // `node` closes a component: the stack down to it.
            var members: [Int] = []
            while let member = stack.popLast() {
                component[member] = node
                members.append(member)
                if member == node { break }
            }
            let closed = members.allSatisfy { member in
                ups[member].allSatisfy { up in place[up].map { component[$0] == node } ?? false }
            }
            if closed, let last = members.max() { tops.append(last) }
        }
        return tops.sorted().map { links[$0] }
    }

    /// True when mounting `child` at `parent` would close a cycle, that is when
    /// `parent` is `child` or one of its descendants. Exclusive lock held.
    ///
    /// Searches up from `parent` and down from `child` in lockstep, one link per
    /// step, and stops as soon as either side runs out, so the cost is bounded by the
    /// links of the smaller side: O(1) when a hierarchy is built top-down (the child
    /// is a new leaf) or bottom-up (the parent is a new root), and O(1) per mount when
    /// a node with many children is mounted at many parents with short routes.
    static func wouldCloseCycle(mounting child: DominoNode, at parent: DominoNode) -> Bool {
        if child === parent { return true }
        if child.childLinks.isEmpty && (child.responderLink?.followers.isEmpty ?? true) { return false }
        if parent.parentLinks.isEmpty && parent.responderLink?.successor == nil { return false }
        var up = Search(start: NodeLink(parent), target: NodeLink(child), upward: true)
        var down = Search(start: NodeLink(child), target: NodeLink(parent), upward: false)
        while true {
            switch up.step() {
            case .found: return true
            case .exhausted: return false
            case .searching: break
            }
            switch down.step() {
            case .found: return true
            case .exhausted: return false
            case .searching: break
            }
        }
    }

    /// A depth-first search for `target` that takes one link per step. A node's
    /// links are read where they are stored, one at a time, rather than copied: a
    /// node with N links would otherwise cost O(N) in the step that reaches it,
    /// whatever the other side's size.
    private struct Search {
        enum Outcome { case found, exhausted, searching }

        /// A node whose links are being followed, and how far.
        struct Frame {
            let link: NodeLink
            /// Within the node's parents (children), then its responder links.
            var cursor = 0
            var inResponderLinks = false
        }

        let target: NodeLink
        let upward: Bool
        var frames: [Frame]
        var visited: Set<NodeLink>

        init(start: NodeLink, target: NodeLink, upward: Bool) {
            self.target = target
            self.upward = upward
            frames = [Frame(link: start)]
            visited = [start]
        }

        mutating func step() -> Outcome {
            guard var frame = frames.popLast() else { return .exhausted }
            guard let next = frame.link.withNode({ nextLink(of: $0, after: &frame) }) else {
                return .searching
            }
            frames.append(frame)
            if next == target { return .found }
            if visited.insert(next).inserted { frames.append(Frame(link: next)) }
            return .searching
        }

        /// Upward: the parents, then the responder-chain successor. Downward: the
        /// children, then the responder-chain followers.
        private func nextLink(of node: DominoNode, after frame: inout Frame) -> NodeLink? {
            if !frame.inResponderLinks {
                let mounted = upward ? node.parentLinks.next(after: &frame.cursor) : node.childLinks.next(after: &frame.cursor)
                if let mounted { return mounted }
                frame.inResponderLinks = true
                frame.cursor = 0
            }
            guard let responderLink = node.responderLink else { return nil }
            if !upward { return responderLink.followers.next(after: &frame.cursor) }
            guard frame.cursor == 0 else { return nil }
            frame.cursor = 1
            return responderLink.successor
        }
    }
}

extension DominoNode {
    /// This node's parent list as a reader pinned without a lock finds it
    /// (`GraphLock.pinWithoutLock`). Reads only the list's word, which stays readable
    /// after the node's deinit while such a reader may hold its address (see
    /// `keepMemoryForReadersLocked`): empty then.
    @inline(__always)
    var publishedParents: NodeList.Shape {
        parentLinks.publishedShape
    }

    /// This node's child list as a reader pinned without a lock finds it (see
    /// `publishedParents`).
    @inline(__always)
    var publishedChildren: NodeList.Shape {
        childLinks.publishedShape
    }

    /// This node's slot store as a reader pinned without a lock finds it, or nil when
    /// the node has no handlers (or has deinitialized); read it with
    /// `SlotStore.publishedTable(for:)`.
    @inline(__always)
    var publishedSlots: Unmanaged<SlotStore>? {
        slots.published
    }

    /// The table of `key` here, as a reader pinned without a lock finds it.
    @inline(__always)
    func publishedTable(for key: SlotKey) -> Unmanaged<HandlerTable>? {
        slots.publishedTable(for: key)
    }

    /// `publishedTable(for:)`'s table word, `Slot.rarerTag` included; 0 for none.
    @inline(__always)
    func publishedTableWord(for key: SlotKey) -> UInt {
        slots.publishedTableWord(for: key)
    }
}

extension Route {
    /// The walk up of a reader pinned without a lock (performance round 3's posts;
    /// see Maintainers/ReadsWithoutALock.md): this node, then its ancestors through
    /// mounted parents, depth-first pre-order, parents in mount order, each node
    /// once, reading every list with `publishedParents`. Responder chains are not
    /// followed: routes through responders are walked under a stripe.
    ///
    /// The caller is pinned without a lock from before it loads `start`'s first list
    /// until it stops using the links `visit` gets; it reads nodes through them only
    /// as `publishedParents` and `publishedSlots` do (a node met here may have
    /// deinitialized: its memory is kept, its lists and slots are empty). Changes
    /// made meanwhile may or may not be seen, each link as some write left it.
    static func walkPublished(from start: NodeLink, _ visit: (NodeLink) -> Void) {
        _ = walkPublished(from: start, checking: nil) { link in
            visit(link)
            return link.withNode { $0.publishedParents }
        }
    }

    /// `walkPublished` for a walk that may stop: `visit` reads each node and returns
    /// the parents it read, or nil to stop the walk (the result is then false). With
    /// `checking` (the link sequence's word and the value the walk began with), the
    /// parents a node gave are followed only while the sequence still holds that
    /// value, so that links of different times never lead the walk on (see
    /// `GraphLock.linkSequence`); the walk is false as soon as it does not.
    static func walkPublished(
        from start: NodeLink, checking sequence: (word: UnsafeMutableRawPointer, value: UInt)?,
        _ visit: (NodeLink) -> NodeList.Shape?
    ) -> Bool {
        var visited = Set<NodeLink>()
        var stack: [NodeLink] = [start]
        var parents: [NodeLink] = []
        while let link = stack.popLast() {
            guard visited.insert(link).inserted else { continue }
            guard let shape = visit(link) else { return false }
            if let sequence, AtomicWord.load(sequence.word) != sequence.value { return false }
            parents.removeAll(keepingCapacity: true)
            shape.forEachPublishedLink { parents.append($0) }
            for parent in parents.reversed() where !visited.contains(parent) { stack.append(parent) }
        }
        return true
    }
}
