import Foundation
import Testing
@testable import Domino

/// Posts up responder chains that read their route without a lock
/// (`DominoNode.collectAlongKnownChainsWithoutALock`): once a thread keeps the census
/// of a route and no link changed since, a post along it reads the route, the
/// stages and the links' successors pinned without a lock, and so never waits for a
/// writer.
///
/// Walks read without a lock only while the process has never made a cycle, traced
/// every node or set a default mode with a queue (see `GraphLock.walkGate`), so these
/// tests run in the process of `StripedWalkTests`, where responder nodes exist and no
/// test closes the gate: CI runs them with `DOMINO_STRIPED_WALKS=1 swift test
/// --filter "StripedWalkTests|ResponderWalkDownTests|ResponderWalkUpTests"` (and
/// under the thread and address sanitizers), and the model-based responder tests in
/// a process of their own with the gate open too (`ResponderModelTests`, whose posts
/// then read their routes without a lock whenever the census holds). In the whole
/// suite's run these are skipped. On the main actor, as the other suites of that
/// process are: their tests count the chains a walk down reads, which is every
/// responder node's in the process, so these make theirs only between those tests.
@Suite(
    "Walks up through responder nodes, without a lock",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["DOMINO_STRIPED_WALKS"] == "1")
)
@MainActor struct ResponderWalkUpTests {
    /// Model objects whose chain any thread reads, leaf → middle → top, each with a
    /// node; the middle's and the top's subscribe to `Ping`.
    private struct Chain {
        let top = AnyThreadModelView(), middle = AnyThreadModelView(), leaf = AnyThreadModelView()
        let topNode: DominoNode, middleNode: DominoNode, leafNode: DominoNode
        let heard = Log<String>()

        init() {
            middle.next = top
            leaf.next = middle
            topNode = DominoNode(label: "top", responder: top)
            middleNode = DominoNode(label: "middle", responder: middle)
            leafNode = DominoNode(label: "leaf", responder: leaf)
            topNode.subscribe(Ping.self, on: .postingThread) { [heard] ping in heard.append("top \(ping.value)") }
            middleNode.subscribe(Ping.self, on: .postingThread) { [heard] ping in heard.append("middle \(ping.value)") }
        }

        /// Posts from the leaf until a post finds its route's census kept (the first
        /// resolves the links, the next takes the census): true then.
        func warmUp() -> Bool {
            for _ in 0..<100 {
                let taken = ThreadState.current.pointee.routeCensusesTaken
                leafNode.post(Ping(value: 0))
                if ThreadState.current.pointee.routeCensusesTaken == taken { return true }
            }
            return false
        }

        /// Warms up, then posts `Ping(value: 1)` from the leaf while a writer holds
        /// the exclusive lock. Another suite of this process may change a link (any
        /// link: a census describes them all) between the warm-up and the writer's
        /// lock: tried again until none did, for up to 60 s (no result then).
        func postWhileAWriterHoldsTheLock() -> (result: PostResult?, waitedForTheWriter: Bool) {
            var attempt: (result: PostResult?, waitedForTheWriter: Bool) = (nil, false)
            let deadline = ContinuousClock.now + .seconds(60)
            while attempt.result == nil, ContinuousClock.now < deadline {
                guard warmUp() else { continue }
                let written = ResponderRegistry.linksWritten
                attempt = whileAWriterHoldsTheLock {
                    // The writer holds the lock: no link changes while this runs.
                    ResponderRegistry.linksWritten == written ? leafNode.post(Ping(value: 1)) : nil
                }
            }
            return attempt
        }
    }

    @Test func aPostUpAResponderChainWhoseLinksDidNotChangeIsDeliveredWhileAWriterHoldsTheLock() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks take their stripe")
        let chain = Chain()
        let attempt = chain.postWhileAWriterHoldsTheLock()
        let delivered = try #require(attempt.result, "a link changed between every warm-up and the writer's lock")
        #expect(!attempt.waitedForTheWriter, "the post waited for the writer that held the lock")
        #expect(delivered.deliveries == 2)
        #expect(delivered.nodesVisited == 3)
        #expect(chain.heard.entries.suffix(2) == ["middle 1", "top 1"])
    }

    @Test func aPostUpAResponderChainThroughANodeWithAModeWithoutAQueueIsDeliveredInThatModeWhileAWriterHoldsTheLock() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks take their stripe")
        // The mode is in the node's published word (a responder node's code is 4
        // more than a plain node's); before session 41 a responder node with a mode
        // of its own sent the post to its stripe (fails so: it waits 60 s).
        let chain = Chain()
        let inMode = Counter()
        chain.middleNode.subscribe(Ping.self, on: nil) { _ in inMode.increment() }
        chain.middleNode.deliveryMode = .background
        let attempt = chain.postWhileAWriterHoldsTheLock()
        let delivered = try #require(attempt.result, "a link changed between every warm-up and the writer's lock")
        #expect(!attempt.waitedForTheWriter, "the post waited for the writer that held the lock")
        #expect(delivered.deliveries == 3)
        // The handler that names no mode, on the background queue.
        #expect(delivered.scheduled == 1)
        #expect(chain.heard.entries.suffix(2) == ["middle 1", "top 1"])
        let warmUps = chain.heard.entries.count / 2
        #expect(waitBackingOff { inMode.value == warmUps })
    }

    @Test func aPostWhoseChainChangedSinceTheCensusFollowsTheNewChain() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks take their stripe")
        let chain = Chain()
        _ = chain.warmUp()
        // The leaf now leads straight to the top: the census still describes the
        // route as the links are, so the post reads the chains, finds the leaf's
        // changed, and resolves it.
        chain.leaf.next = chain.top
        let result = chain.leafNode.post(Ping(value: 1))
        #expect(result.deliveries == 1)
        #expect(result.nodesVisited == 2)
        #expect(chain.heard.entries.last == "top 1")
        #expect(chain.leafNode.resolvedSuccessor === chain.topNode)
    }

    @Test func theNextPostAfterOneThatResolvedItsChainIsDeliveredWhileAWriterHoldsTheLock() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks take their stripe")
        // A post that resolved a link of its route leaves the route's census for the
        // links as they are (before session 42 the next post took its stripe to
        // take it, and waited 60 s for the writer here). Another suite of this
        // process may change a link between the two posts: tried again until none
        // did, for up to 60 s.
        let chain = Chain()
        var attempt: (result: PostResult?, waitedForTheWriter: Bool) = (nil, false)
        var expected = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while attempt.result == nil, ContinuousClock.now < deadline {
            // The leaf leads straight to the top, then through the middle again.
            let straight = chain.leafNode.resolvedSuccessor !== chain.topNode
            chain.leaf.next = straight ? chain.top : chain.middle
            expected = straight ? 1 : 2
            let resolutions = ThreadState.current.pointee.responderResolutions
            chain.leafNode.post(Ping(value: 0))
            guard ThreadState.current.pointee.responderResolutions > resolutions else { continue }
            let written = ResponderRegistry.linksWritten
            attempt = whileAWriterHoldsTheLock {
                ResponderRegistry.linksWritten == written ? chain.leafNode.post(Ping(value: 1)) : nil
            }
        }
        let delivered = try #require(attempt.result, "a link changed between every two posts")
        #expect(!attempt.waitedForTheWriter, "the post after the one that resolved the chain waited for the writer")
        #expect(delivered.deliveries == expected)
        #expect(chain.heard.entries.last == "top 1")
    }

    @Test func aPostWhoseRouteBranchesAtAMountedResponderNodeReachesItsChainThenItsParent() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks take their stripe")
        // The middle's node is also mounted at a plain node: the route branches
        // there (successor first, then parents), which the walk without a lock leaves
        // to the stripe.
        let chain = Chain()
        let outside = DominoNode(label: "outside")
        outside.subscribe(Ping.self, on: .postingThread) { [heard = chain.heard] ping in heard.append("outside \(ping.value)") }
        chain.middleNode.mount(at: outside)
        _ = chain.warmUp()
        let result = chain.leafNode.post(Ping(value: 1))
        #expect(result.deliveries == 3)
        #expect(chain.heard.entries.suffix(3) == ["middle 1", "top 1", "outside 1"])
    }

    @Test func postsUpAChainWhoseMiddleIsReplacedAndReleasedMeanwhileMeetNoFreedMemoryAndReachTheTopExactlyOnce() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks take their stripe")
        // The reclamation boundary of walks up without a lock: two threads post from
        // a leaf whose chain leads through a middle view to the top, while this
        // thread puts a new middle (view and node) in the chain and releases the old
        // one, whose node deinitializes under the posts (its link retired while any
        // of them is pinned). Only the top subscribes. A post that met a freed link
        // would crash under the address sanitizer (CI runs this suite under both
        // sanitizers); one that followed links of two moments could reach the top
        // twice. At every moment the leaf's chain leads to the top, so every post
        // reaches it: before a node's deinit linked its followers to its successor,
        // about 1 in 500 reached nothing (a post that had resolved the leaf's link
        // found it cut by the old middle's deinit, and does not resolve it twice).
        let top = AnyThreadModelView(), leaf = AnyThreadModelView()
        let topNode = DominoNode(label: "top", responder: top)
        let leafNode = DominoNode(label: "leaf", responder: leaf)
        let heard = Counter()
        topNode.subscribe(Ping.self, on: .postingThread) { _ in heard.increment() }
        var middle: (view: AnyThreadModelView, node: DominoNode)? = {
            let view = AnyThreadModelView()
            view.next = top
            return (view, DominoNode(label: "middle", responder: view))
        }()
        leaf.next = middle!.view
        let stop = Flag()
        let posts = Counter(), twice = Counter(), none = Counter(), delivered = Counter()
        let posters = 2
        let finished = DispatchSemaphore(value: 0), posting = DispatchSemaphore(value: 0)
        for _ in 0..<posters {
            Thread.detachNewThread {
                var count = 0, more = 0, missed = 0, reached = 0
                while !stop.isSet {
                    if count == 1 { posting.signal() }
                    let deliveries = leafNode.post(Ping(value: count)).deliveries
                    if deliveries > 1 { more += 1 }
                    if deliveries == 0 { missed += 1 }
                    reached += deliveries
                    count += 1
                }
                posts.add(count)
                twice.add(more)
                none.add(missed)
                delivered.add(reached)
                finished.signal()
            }
        }
        for _ in 0..<posters { posting.wait() }
        for round in 0..<2_000 {
            let view = AnyThreadModelView()
            view.next = top
            let node = DominoNode(label: "middle \(round)", responder: view)
            leaf.next = view
            middle = (view, node)   // the old middle's view and node are released here
        }
        stop.set()
        for _ in 0..<posters { finished.wait() }
        withExtendedLifetime((middle, topNode, leafNode)) {}
        #expect(posts.value > 0)
        #expect(twice.value == 0, "\(twice.value) of \(posts.value) posts reached the top more than once")
        #expect(none.value == 0, "\(none.value) of \(posts.value) posts reached no handler")
        #expect(heard.value == delivered.value)
        // Once the chain stays, posts reach the top again.
        #expect(leafNode.post(Ping(value: -1)).deliveries == 1)
    }

    @Test(arguments: [Array(0..<40), [0], [0, 1]])
    func postsUpAResponderChainIntoPlainNodesWhoseTopIsMountedBelowAndBackMeanwhileEndAndPassEachNodeAtMostOnce(subscribed: [Int]) throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks take their stripe")
        // Ten responder nodes (r0, the leaf, up to r9, along their chain), r9 mounted
        // at p0 of 30 plain nodes (p0 up to p29). A writer moves between two shapes,
        // neither with a cycle: the plain chain whole, and p5 cut from p6 with p29
        // mounted at p5. No responder link changes, so each posting thread keeps its
        // route's census and reads the route without a lock; read at two moments,
        // the links make a loop of 25 levels (p5 > p6 ... p29 > p5 ...). The walk
        // checks the link sequence every 16 levels and once after the walk, as walks
        // of plain nodes do: each post must end, reach the leaf once and pass no node
        // twice (without the check after the walk: a post passed more than 40 nodes,
        // or a node heard a post twice, in 3 runs of 3).
        let responders = (0..<10).map { _ in AnyThreadModelView() }
        for index in 0..<9 { responders[index].next = responders[index + 1] }
        let responderNodes = responders.enumerated().map { DominoNode(label: "r\($0.offset)", responder: $0.element) }
        let plain = (0..<30).map { DominoNode(label: "p\($0)") }
        #expect(responderNodes[9].mount(at: plain[0]))
        for index in 0..<29 { #expect(plain[index].mount(at: plain[index + 1])) }
        let nodes = responderNodes + plain
        let log = Log<Int>()
        for index in subscribed {
            nodes[index].subscribe(Ping.self, on: .postingThread) { ping in log.append(ping.value &* 64 &+ index) }
        }
        // More posts where they are cheap: a post meets a moved shape less often.
        let (cut, below, top) = (plain[5], plain[6], plain[29])
        let leaf = responderNodes[0]
        walksWhileAWriterMovesBetweenTwoShapes(
            walksPerReader: subscribed.count > 2 ? 20_000 : 100_000, heardAt: 0, of: 40, log: log,
            move: { cut.unmount(from: below); top.mount(at: cut); top.unmount(from: cut); cut.mount(at: below) },
            walk: { leaf.post(Ping(value: $0)).nodesVisited }
        )
        withExtendedLifetime(responders) {}
    }
}
