import Testing
@testable import Domino
import DominoTesting

/// root > [a > [a1, a2], b > [b1]]
private struct Tree {
    let root = DominoNode(label: "root")
    let a = DominoNode(label: "a")
    let b = DominoNode(label: "b")
    let a1 = DominoNode(label: "a1")
    let a2 = DominoNode(label: "a2")
    let b1 = DominoNode(label: "b1")

    init() {
        a.mount(at: root)
        b.mount(at: root)
        a1.mount(at: a)
        a2.mount(at: a)
        b1.mount(at: b)
    }

    var all: [DominoNode] { [root, a, b, a1, a2, b1] }
}

@Suite("Event tree: broadcast, raise, capture, deepest subscriber", .checksLeaks)
struct TreeTests {
    // MARK: Broadcast

    @Test func broadcastReachesEveryDescendantInPreOrderWithChildrenInMountOrder() {
        let tree = Tree()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all)
        let result = tree.root.broadcast(Ping(value: 1))
        #expect(recorder.nodes == ["root", "a", "a1", "a2", "b", "b1"])
        #expect(result.deliveries == 6)
        #expect(result.nodesVisited == 6)
    }

    @Test func broadcastFromAHandlerOfABroadcastReachesEveryNodeAndSoDoesTheOuterOne() {
        let tree = Tree()
        let log = Log<String>()
        let root = WeakBox(tree.root)
        for node in tree.all {
            let label = node.label ?? "?"
            node.subscribe(Ping.self, on: .postingThread) { ping in
                log.append("\(label):\(ping.value)")
                // Once, from the middle of the outer walk: the inner walk needs its
                // own scratch space while the outer one holds the thread's.
                if ping.value == 1 && label == "a1" { root.value?.broadcast(Ping(value: 2)) }
            }
        }
        tree.root.broadcast(Ping(value: 1))
        tree.root.broadcast(Ping(value: 3))
        #expect(log.entries == [
            "root:1", "a:1", "a1:1",
            "root:2", "a:2", "a1:2", "a2:2", "b:2", "b1:2",
            "a2:1", "b:1", "b1:1",
            "root:3", "a:3", "a1:3", "a2:3", "b:3", "b1:3",
        ])
    }

    @Test func aWalkDownStoppedByAHandlerThatCancelsItselfNamesTheNodeWhereItStopped() {
        // The handler's cancel replaces its node's table; the walk's delivery pin is
        // all that keeps the old one, through which the result names the node (read
        // after the pin went back, it was memory already freed: the address
        // sanitizer's run saw it).
        let tree = Tree()
        let held = Held<Subscription>()
        func subscribeStoppingAndCancellingItself(at node: DominoNode) {
            held.value = node.subscribe(Ping.self, on: .postingThread) { _, propagation in
                held.value?.cancel()
                propagation.stop()
            }
        }
        subscribeStoppingAndCancellingItself(at: tree.a)
        let broadcast = tree.root.broadcast(Ping(value: 1))
        #expect(broadcast.stoppedAt == "a")
        #expect(broadcast.deliveries == 1)
        subscribeStoppingAndCancellingItself(at: tree.a1)
        let raise = tree.a1.raise(Ping(value: 2))
        #expect(raise.stoppedAt == "a1")
        #expect(raise.deliveries == 1)
        // The handle and its handler's closure hold each other.
        held.value = nil
    }

    @Test func broadcastToATreeLargerThanWhatAThreadKeepsLeavesNoScratchOnTheThread() {
        let root = DominoNode(label: "wide")
        let children = (0..<(DownScratch.keptCapacity + 1)).map { DominoNode(label: "c\($0)") }
        for child in children { child.mount(at: root) }
        let counter = Counter()
        for child in children { child.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() } }
        let thread = ThreadState.current
        root.broadcast(Ping(value: 1))
        #expect(counter.value == children.count)
        #expect(thread.pointee.downScratch == nil)
        // A small one afterwards is kept for the next walk.
        DominoNode(label: "small").broadcast(Ping(value: 2))
        #expect(thread.pointee.downScratch != nil)
    }

    @Test func broadcastFromAnInnerNodeStaysInItsSubtree() {
        let tree = Tree()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all)
        tree.a.broadcast(Ping(value: 1))
        #expect(recorder.nodes == ["a", "a1", "a2"])
    }

    @Test func broadcastReachesANodeBelowTwoParentsOnce() {
        let tree = Tree()
        let shared = DominoNode(label: "shared")
        shared.mount(at: tree.a1)
        shared.mount(at: tree.b1)
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all + [shared])
        tree.root.broadcast(Ping(value: 1))
        #expect(recorder.nodes == ["root", "a", "a1", "shared", "a2", "b", "b1"])
    }

    @Test func broadcastThroughACycleReachesEachNodeOnce() {
        let tree = Tree()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all)
        Diagnostics.capture { tree.root.mount(at: tree.b1) }
        tree.a.broadcast(Ping(value: 1))
        tree.root.broadcast(Ping(value: 2))
        #expect(recorder.nodes == ["a", "a1", "a2", "root", "a", "a1", "a2", "b", "b1"])
    }

    @Test func childrenAreHeldWeaklyAndDropOutWhenTheyDeallocate() {
        let root = DominoNode(label: "root")
        var child: DominoNode? = DominoNode(label: "child")
        child!.mount(at: root)
        let weakChild = WeakBox(child)
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: child!)
        root.broadcast(Ping(value: 1))
        #expect(root.children.map(\.description) == ["child"])
        child = nil
        #expect(weakChild.value == nil)
        #expect(root.children.isEmpty)
        #expect(root.broadcast(Ping(value: 2)).nodesVisited == 1)
        #expect(recorder.nodes == ["child"])
    }

    @Test func broadcastInterceptorKeepsTheEventOutOfItsSubtreeOnly() {
        let tree = Tree()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all)
        tree.a.intercept(Ping.self) { _ in .stop }
        let result = tree.root.broadcast(Ping(value: 1))
        #expect(recorder.nodes == ["root", "a", "b", "b1"])
        #expect(result.stopReason == nil)
    }

    @Test func broadcastStopConsumesTheEventForEveryNodeNotYetReached() {
        let tree = Tree()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all)
        tree.a1.subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        let result = tree.root.broadcast(Ping(value: 1))
        #expect(recorder.nodes == ["root", "a", "a1"])
        #expect(result.stopReason == .subscriber)
        #expect(result.stoppedAt == "a1")
    }

    @Test func broadcastStopImmediatelySkipsTheRemainingHandlersAtItsNode() {
        let tree = Tree()
        let log = Log<String>()
        tree.a.subscribe(Ping.self, on: .postingThread) { _, propagation in
            log.append("first")
            propagation.stopImmediately()
        }
        record(Ping.self, at: tree.a, into: log, tag: "second")
        record(Ping.self, at: tree.a1, into: log)
        let result = tree.root.broadcast(Ping(value: 1))
        #expect(log.entries == ["first"])
        #expect(result.stopReason == .subscriberImmediately)
    }

    @Test func broadcastReformerRewritesTheValueForItsSubtreeOnly() {
        let tree = Tree()
        let log = Log<String>()
        for node in tree.all {
            let label = node.label!
            node.subscribe(Ping.self, on: .postingThread) { log.append("\(label):\($0.value)") }
        }
        tree.a.reform(Ping.self) { $0.value *= 10 }
        tree.root.broadcast(Ping(value: 1))
        #expect(log.entries == ["root:1", "a:10", "a1:10", "a2:10", "b:1", "b1:1"])
    }

    @Test func broadcastReformerDoesNotLeakIntoASiblingBranchThroughANodeWithoutHandlers() {
        // Found by the model-based test: a reformer at a1 must not reach b1 through b,
        // which has no handlers of its own.
        let tree = Tree()
        let log = Log<String>()
        tree.a1.reform(Ping.self) { $0.value += 100 }
        tree.a.intercept(Ping.self) { _ in .proceed }
        tree.a1.intercept(Ping.self) { _ in .stop }
        let below = DominoNode(label: "below")
        below.mount(at: tree.a1)
        for node in [tree.a1, tree.b1, below] {
            let label = node.label!
            node.subscribe(Ping.self, on: .postingThread) { log.append("\(label):\($0.value)") }
        }
        tree.root.broadcast(Ping(value: 1))
        #expect(log.entries == ["a1:101", "b1:1"])
    }

    @Test func broadcastOfANamedEventReachesItsSubscribers() {
        let tree = Tree()
        let log = Log<String>()
        for node in tree.all {
            let label = node.label!
            node.subscribe("Theme", on: .postingThread) { log.append("\(label):\($0.value("name", as: String.self) ?? "")") }
        }
        tree.b.broadcast("Theme", ["name": "dark"])
        #expect(log.entries == ["b:dark", "b1:dark"])
    }

    @Test @MainActor func broadcastFollowsTheResponderChainDownToo() {
        let window = SimWindow("window")
        let controller = SimViewController("controller")
        window.rootViewController = controller
        let cell = SimView("cell")
        controller.view.addSubview(cell)
        let controllerNode = controller.dominoNode   // nodes exist before the chain is read
        cell.dominoNode.refreshResponderChain()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: cell.dominoNode)
        controllerNode.broadcast(Ping(value: 1))
        #expect(recorder.nodes == ["cell"])
    }

    // MARK: Raise and propagate

    @Test func raiseRunsRaiseHandlersUpToTheRootThenPropagatesDownToEveryNode() {
        let tree = Tree()
        let log = Log<String>()
        for node in tree.all {
            let label = node.label!
            node.subscribe(Ping.self, phase: .raise, on: .postingThread) { _ in log.append("raise:\(label)") }
            node.subscribe(Ping.self, phase: .bubble, on: .postingThread) { _ in log.append("down:\(label)") }
        }
        let result = tree.a2.raise(Ping(value: 1))
        #expect(log.entries == [
            "raise:a2", "raise:a", "raise:root",
            "down:root", "down:a", "down:a1", "down:a2", "down:b", "down:b1",
        ])
        #expect(result.deliveries == 9)
    }

    @Test func raisePropagatesDownFromEveryRootOfTheRoute() {
        let left = DominoNode(label: "left"), right = DominoNode(label: "right")
        let leaf = DominoNode(label: "leaf"), sibling = DominoNode(label: "sibling")
        leaf.mount(at: left)
        leaf.mount(at: right)
        sibling.mount(at: right)
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: [left, right, leaf, sibling])
        leaf.raise(Ping(value: 1))
        #expect(recorder.nodes == ["left", "leaf", "right", "sibling"])
    }

    @Test func raiseConsumedOnTheWayUpReachesNoOtherHandler() {
        let tree = Tree()
        let log = Log<String>()
        for node in tree.all { record(Ping.self, at: node, into: log) }
        tree.a.subscribe(Ping.self, phase: .raise, on: .postingThread) { _, propagation in
            log.append("raise:a")
            propagation.stop()
        }
        tree.root.subscribe(Ping.self, phase: .raise, on: .postingThread) { _ in log.append("raise:root") }
        let result = tree.a1.raise(Ping(value: 1))
        #expect(log.entries == ["raise:a"])
        #expect(result.stoppedAt == "a")
    }

    @Test func raiseConsumedDuringPropagationStopsTheNodesAfter() {
        let tree = Tree()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all)
        tree.a2.subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        tree.b1.raise(Ping(value: 1))
        #expect(recorder.nodes == ["root", "a", "a1", "a2"])
    }

    @Test func raiseInACycleWithoutARootTurnsDownAtTheRaisingNodesOutermostAncestor() {
        let a = DominoNode(label: "a"), b = DominoNode(label: "b")
        let diagnostics = Diagnostics.capture {
            a.mount(at: b)
            b.mount(at: a)
        }
        #expect(diagnostics.map(\.code) == [.mountCycle])
        let log = Log<String>()
        for node in [a, b] {
            let label = node.label!
            node.subscribe(Ping.self, phase: .raise, on: .postingThread) { _ in log.append("raise:\(label)") }
            node.subscribe(Ping.self, on: .postingThread) { _ in log.append("down:\(label)") }
        }
        let result = a.raise(Ping(value: 1))
        #expect(log.entries == ["raise:a", "raise:b", "down:b", "down:a"])
        #expect(result.deliveries == 4)
    }

    @Test func raiseTurnsDownAtEachRootAndAtEachRootlessCycleOfTheRoute() {
        // leaf > [root, b]; b and c are mounted at each other, with no way further up.
        let leaf = DominoNode(label: "leaf"), root = DominoNode(label: "root")
        let b = DominoNode(label: "b"), c = DominoNode(label: "c")
        leaf.mount(at: root)
        leaf.mount(at: b)
        Diagnostics.capture {
            b.mount(at: c)
            c.mount(at: b)
        }
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: [leaf, root, b, c])
        leaf.raise(Ping(value: 1))
        // The route is leaf, root, b, c: down from root, then from c (the cycle's last).
        #expect(recorder.nodes == ["root", "leaf", "c", "b"])
    }

    @Test func raiseThroughACycleWithAWayFurtherUpTurnsDownAtTheRootOnly() {
        // a > b; b and c are mounted at each other; c is also mounted at root.
        let a = DominoNode(label: "a"), b = DominoNode(label: "b")
        let c = DominoNode(label: "c"), root = DominoNode(label: "root")
        a.mount(at: b)
        b.mount(at: c)
        c.mount(at: root)
        Diagnostics.capture { c.mount(at: b) }
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: [a, b, c, root])
        a.raise(Ping(value: 1))
        #expect(recorder.nodes == ["root", "c", "b", "a"])
    }

    @Test func raiseOfANamedEventRunsBothStages() {
        let tree = Tree()
        let log = Log<String>()
        tree.root.subscribe("Expired", phase: .raise, on: .postingThread) { _ in log.append("raise:root") }
        tree.b1.subscribe("Expired", on: .postingThread) { _ in log.append("down:b1") }
        tree.a1.raise("Expired")
        #expect(log.entries == ["raise:root", "down:b1"])
    }

    // MARK: Capture phase of a post

    @Test func captureHandlersRunOutermostFirstBeforeTheBubblePhase() {
        let nodes = makeChain(3)
        let log = Log<String>()
        for node in nodes {
            let label = node.label!
            node.subscribe(Ping.self, phase: .capture, on: .postingThread) { _ in log.append("capture:\(label)") }
            node.subscribe(Ping.self, on: .postingThread) { _ in log.append("bubble:\(label)") }
        }
        let result = nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["capture:n2", "capture:n1", "capture:n0", "bubble:n0", "bubble:n1", "bubble:n2"])
        #expect(result.deliveries == 6)
    }

    @Test func captureStopEndsThePostAfterItsNode() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[1].subscribe(Ping.self, phase: .capture, on: .postingThread) { _, propagation in
            log.append("capture:n1")
            propagation.stop()
        }
        nodes[1].subscribe(Ping.self, phase: .capture, on: .postingThread) { _ in log.append("capture:n1:second") }
        nodes[0].subscribe(Ping.self, phase: .capture, on: .postingThread) { _ in log.append("capture:n0") }
        for node in nodes { record(Ping.self, at: node, into: log) }
        let result = nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["capture:n1", "capture:n1:second"])
        #expect(result.stopReason == .subscriber)
        #expect(result.stoppedAt == "n1")
    }

    @Test func captureStopImmediatelySkipsTheRestOfItsNode() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[1].subscribe(Ping.self, phase: .capture, on: .postingThread) { _, propagation in
            log.append("first")
            propagation.stopImmediately()
        }
        nodes[1].subscribe(Ping.self, phase: .capture, on: .postingThread) { _ in log.append("second") }
        let result = nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["first"])
        #expect(result.stopReason == .subscriberImmediately)
    }

    @Test func bubbleStopAfterACapturePhaseStillEndsTheWalk() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[2].subscribe(Ping.self, phase: .capture, on: .postingThread) { _ in log.append("capture:n2") }
        nodes[0].subscribe(Ping.self, on: .postingThread) { _, propagation in
            log.append("bubble:n0")
            propagation.stop()
        }
        record(Ping.self, at: nodes[1], into: log)
        nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["capture:n2", "bubble:n0"])
    }

    @Test func unsubscribingATypeRemovesItsHandlersInEveryPhase() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        node.subscribe(Ping.self, phase: .capture, on: .postingThread) { _ in log.append("capture") }
        node.subscribe(Ping.self, phase: .raise, on: .postingThread) { _ in log.append("raise") }
        record(Ping.self, at: node, into: log)
        node.unsubscribe(Ping.self)
        node.post(Ping(value: 1))
        node.raise(Ping(value: 1))
        #expect(log.entries.isEmpty)
        #expect(node.subscriptionCount == 0)
    }

    // MARK: The deepest subscriber

    @Test func deepestSubscriberBelowTheNodeGetsTheEventAndNobodyElse() {
        let tree = Tree()
        let deep = DominoNode(label: "deep")
        deep.mount(at: tree.a1)
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: tree.all + [deep])
        let result = tree.root.deliverToDeepestSubscriber(Ping(value: 1))
        #expect(recorder.nodes == ["deep"])
        #expect(result.deliveries == 1)
    }

    @Test func deepestAmongEquallyDeepNodesIsInTheMostRecentlyMountedBranch() {
        let tree = Tree()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: [tree.a1, tree.a2, tree.b1])
        tree.root.deliverToDeepestSubscriber(Ping(value: 1))
        tree.a.deliverToDeepestSubscriber(Ping(value: 2))
        #expect(recorder.nodes == ["b1", "a2"])
    }

    @Test func deepestDeliveryGoesToTheMostRecentSubscriberAtThatNode() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        record(Ping.self, at: node, into: log, tag: "older")
        record(Ping.self, at: node, into: log, tag: "newer")
        node.deliverToDeepestSubscriber(Ping(value: 1))
        #expect(log.entries == ["newer"])
    }

    @Test func deepestDeliverySkipsASubscriberWhoseOwnerIsGone() {
        let tree = Tree()
        let log = Log<String>()
        record(Ping.self, at: tree.a, into: log)
        var owner: Host? = Host("owner")
        tree.a1.subscribe(Ping.self, owner: owner!, on: .postingThread) { _, _ in log.append("a1") }
        owner = nil
        let result = tree.root.deliverToDeepestSubscriber(Ping(value: 1))
        #expect(log.entries == ["a"])
        #expect(result.deliveries == 1)
        #expect(tree.a1.subscriptionCount == 0)
    }

    @Test func deepestDeliveryWithoutSubscribersDeliversNothing() {
        let tree = Tree()
        #expect(!tree.root.deliverToDeepestSubscriber(Ping(value: 1)).wasDelivered)
    }

    // MARK: Inspection

    @Test func subtreeDescriptionListsEveryNodeWithItsHandlers() {
        let tree = Tree()
        tree.a.subscribe(Ping.self, on: .postingThread) { _ in }
        tree.a.subscribe(Ping.self, on: .postingThread) { _ in }
        tree.a.intercept(Ping.self) { _ in .proceed }
        tree.b1.respond(to: Ask.self, on: .postingThread) { _ in nil }
        tree.root.subscribe(Ping.self, phase: .capture, on: .postingThread) { _ in }
        tree.b.subscribe("Theme", on: .postingThread) { _ in }
        #expect(tree.root.subtreeDescription == """
        root  [Ping (capture): 1 subscriber]
          a  [Ping: 2 subscribers, 1 interceptor]
            a1
            a2
          b  ["Theme": 1 subscriber]
            b1  [Ask: 1 responder]
        """)
    }

    // MARK: Large trees

    @Test func broadcastIntoAHundredThousandNodesReachesThemAll() {
        // Fan-out 10: 1 + 10 + 100 + 1,000 + 10,000 + 88,889 nodes.
        var nodes = [DominoNode(label: "root")]
        var parent = 0
        while nodes.count < 100_000 {
            let node = DominoNode()
            node.mount(at: nodes[parent])
            nodes.append(node)
            if nodes.count % 10 == 1 { parent += 1 }
        }
        let counter = Counter()
        for node in nodes { node.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() } }
        let result = nodes[0].broadcast(Ping(value: 1))
        #expect(counter.value == 100_000)
        #expect(result.nodesVisited == 100_000)
    }

    @Test func broadcastAndRaiseThroughAHundredThousandDeepChainDoNotOverflowTheStack() {
        let nodes = makeChain(100_000)
        let counter = Counter()
        nodes[0].subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        nodes[99_999].subscribe(Ping.self, phase: .raise, on: .postingThread) { _ in counter.increment() }
        let broadcast = nodes[99_999].broadcast(Ping(value: 1))
        let raised = nodes[0].raise(Ping(value: 2))
        #expect(broadcast.nodesVisited == 100_000)
        #expect(raised.nodesVisited == 200_000)
        #expect(counter.value == 3)
    }
}

/// A subscription its own handler can reach (to cancel itself).
private final class Held<Value: AnyObject>: @unchecked Sendable {
    var value: Value?
}
