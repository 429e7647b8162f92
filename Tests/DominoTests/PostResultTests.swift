import Testing
@testable import Domino

/// `PostResult.nodesVisited` counts the nodes a walk reached, not the nodes it
/// collected: a walk stopped early reports where it got to.
@Suite("PostResult: nodes visited", .checksLeaks)
struct PostResultTests {
    // MARK: Up the route

    @Test func postThatGoesTheWholeRouteVisitsEveryNodeEvenThoseWithoutHandlers() {
        let nodes = makeChain(5)
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        let result = nodes[0].post(Ping(value: 1))
        #expect(result.nodesVisited == 5)
        #expect(result.stopReason == nil)
    }

    @Test func postStoppedByAnInterceptorAtTheSecondNodeVisitsTwo() {
        let nodes = makeChain(5)
        nodes[1].intercept(Ping.self) { _ in .stop }
        nodes[4].subscribe(Ping.self, on: .postingThread) { _ in }
        let result = nodes[0].post(Ping(value: 1))
        #expect(result.nodesVisited == 2)
        #expect(result.stoppedAt == "n1")
    }

    @Test func postStoppedByASubscriberAtTheThirdNodeVisitsThree() {
        let nodes = makeChain(5)
        nodes[2].subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        nodes[3].subscribe(Ping.self, on: .postingThread) { _ in }
        let result = nodes[0].post(Ping(value: 1))
        #expect(result.nodesVisited == 3)
        #expect(result.stopReason == .subscriber)
    }

    @Test func postStoppedByTheOnlySubscriberOnItsRouteReportsItsNodeAndPlace() {
        // The common post (one stage, nothing else) takes a path of its own.
        let nodes = makeChain(5)
        nodes[2].subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stopImmediately() }
        let result = nodes[0].post(Ping(value: 1))
        #expect(result.deliveries == 1)
        #expect(result.nodesVisited == 3)
        #expect(result.stopReason == .subscriberImmediately)
        #expect(result.stoppedAt == "n2")
    }

    @Test func postThatNobodyHandlesVisitsTheWholeRouteAndDeliversNothing() {
        let nodes = makeChain(4)
        let result = nodes[0].post(Ping(value: 1))
        #expect(result.deliveries == 0)
        #expect(result.nodesVisited == 4)
        #expect(result.stopReason == nil)
        #expect(!result.wasDelivered)
    }

    @Test func postStoppedInTheCapturePhaseVisitsTheNodesFromTheOutermostDown() {
        let nodes = makeChain(5)
        nodes[3].subscribe(Ping.self, phase: .capture, on: .postingThread) { _, propagation in propagation.stop() }
        nodes[0].subscribe(Ping.self, on: .postingThread) { _ in }
        // Outermost first: n4, then n3, which stops it.
        #expect(nodes[0].post(Ping(value: 1)).nodesVisited == 2)
    }

    @Test func namedEventStoppedByAnInterceptorVisitsTheNodesUpToIt() {
        let nodes = makeChain(4)
        nodes[2].intercept("Saved") { _ in .stop }
        #expect(nodes[0].post("Saved").nodesVisited == 3)
    }

    @Test func protocolEventStoppedByAnInterceptorVisitsTheNodesUpToIt() {
        let nodes = makeChain(5)
        let log = Log<String>()
        let target = ContentTarget("t", log: log)
        nodes[4].subscribe(ContentEvents.self, target: target, on: .postingThread)
        nodes[1].intercept(protocol: ContentEvents.self) { _ in .stop }
        let result = nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }
        #expect(result.nodesVisited == 2)
        #expect(result.stopReason == .interceptor)
        #expect(log.entries.isEmpty)
    }

    @Test func protocolEventThatGoesTheWholeRouteVisitsEveryNode() {
        let nodes = makeChain(5)
        let log = Log<String>()
        let target = ContentTarget("t", log: log)
        nodes[1].subscribe(ContentEvents.self, target: target, on: .postingThread)
        #expect(nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }.nodesVisited == 5)
    }

    // MARK: Down the tree

    /// root > [a > [a1, a2], b > [b1]]; pre-order: root, a, a1, a2, b, b1.
    private struct Tree {
        let root = DominoNode(label: "root")
        let a = DominoNode(label: "a")
        let a1 = DominoNode(label: "a1")
        let a2 = DominoNode(label: "a2")
        let b = DominoNode(label: "b")
        let b1 = DominoNode(label: "b1")

        init() {
            a.mount(at: root)
            b.mount(at: root)
            a1.mount(at: a)
            a2.mount(at: a)
            b1.mount(at: b)
        }
    }

    @Test func broadcastLeavesOutTheSubtreeAnInterceptorKeptTheEventOutOf() {
        let tree = Tree()
        tree.a.intercept(Ping.self) { _ in .stop }
        let result = tree.root.broadcast(Ping(value: 1))
        #expect(result.nodesVisited == 4)     // root, a, b, b1
        #expect(result.stopReason == nil)
    }

    @Test func broadcastInterceptedAtTheTopVisitsOnlyIt() {
        let tree = Tree()
        tree.root.intercept(Ping.self) { _ in .stop }
        tree.a.intercept(Ping.self) { _ in .stop }
        #expect(tree.root.broadcast(Ping(value: 1)).nodesVisited == 1)
    }

    @Test func broadcastConsumedBySubscriberVisitsTheNodesUpToItInPreOrder() {
        let tree = Tree()
        tree.a1.subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        #expect(tree.root.broadcast(Ping(value: 1)).nodesVisited == 3)     // root, a, a1
    }

    @Test func broadcastConsumedAfterAnInterceptedSubtreeCountsNeither() {
        let tree = Tree()
        tree.a.intercept(Ping.self) { _ in .stop }
        tree.b1.subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        #expect(tree.root.broadcast(Ping(value: 1)).nodesVisited == 4)     // root, a, b, b1
    }

    @Test func raiseConsumedOnTheWayUpVisitsTheNodesUpToIt() {
        let nodes = makeChain(4)
        nodes[1].subscribe(Ping.self, phase: .raise, on: .postingThread) { _, propagation in propagation.stop() }
        #expect(nodes[0].raise(Ping(value: 1)).nodesVisited == 2)
    }

    @Test func raiseCountsTheWayUpAndTheWayDownToWhereItIsConsumed() {
        let nodes = makeChain(3)
        nodes[1].subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        // Up: n0, n1, n2; down from n2: n2, n1, which consumes it.
        #expect(nodes[0].raise(Ping(value: 1)).nodesVisited == 5)
    }
}
