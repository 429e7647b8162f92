import Testing
@testable import Domino

@Suite("Node graph: mounting, routes, deallocation", .checksLeaks)
struct GraphTests {
    @Test func postTravelsFromPostingNodeUpToTheRoot() {
        let nodes = makeChain(4)
        let log = Log<String>()
        for node in nodes { record(Ping.self, at: node, into: log) }
        nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["n0", "n1", "n2", "n3"])
    }

    @Test func postFromTheMiddleDoesNotReachNodesBelow() {
        let nodes = makeChain(3)
        let log = Log<String>()
        for node in nodes { record(Ping.self, at: node, into: log) }
        nodes[1].post(Ping(value: 1))
        #expect(log.entries == ["n1", "n2"])
    }

    @Test func multipleParentsAreVisitedDepthFirstInMountOrder() {
        // leaf -> a -> a2 ; leaf -> b
        let leaf = DominoNode(label: "leaf"), a = DominoNode(label: "a"), a2 = DominoNode(label: "a2"), b = DominoNode(label: "b")
        leaf.mount(at: a)
        leaf.mount(at: b)
        a.mount(at: a2)
        #expect(leaf.routeNodes.map(\.label) == ["leaf", "a", "a2", "b"])
        let log = Log<String>()
        for node in [leaf, a, a2, b] { record(Ping.self, at: node, into: log) }
        leaf.post(Ping(value: 0))
        #expect(log.entries == ["leaf", "a", "a2", "b"])
    }

    @Test func diamondDeliversToTheSharedAncestorOnce() {
        let leaf = DominoNode(label: "leaf"), left = DominoNode(label: "left"), right = DominoNode(label: "right"), top = DominoNode(label: "top")
        leaf.mount(at: left)
        leaf.mount(at: right)
        left.mount(at: top)
        right.mount(at: top)
        let log = Log<String>()
        for node in [leaf, left, right, top] { record(Ping.self, at: node, into: log) }
        let result = leaf.post(Ping(value: 0))
        #expect(log.entries == ["leaf", "left", "top", "right"])
        #expect(result.nodesVisited == 4)
    }

    @Test func chainBelowADiamondVisitsEachNodeOnce() {
        // bottom -> leaf; leaf -> left -> top; leaf -> right -> top
        let bottom = DominoNode(label: "bottom"), leaf = DominoNode(label: "leaf")
        let left = DominoNode(label: "left"), right = DominoNode(label: "right"), top = DominoNode(label: "top")
        bottom.mount(at: leaf)
        leaf.mount(at: left)
        leaf.mount(at: right)
        left.mount(at: top)
        right.mount(at: top)
        #expect(bottom.routeNodes.map(\.label) == ["bottom", "leaf", "left", "top", "right"])
    }

    @Test func cycleNeverLoopsAndDeliversOncePerNode() {
        let a = DominoNode(label: "a"), b = DominoNode(label: "b"), c = DominoNode(label: "c")
        a.mount(at: b)
        b.mount(at: c)
        let diagnostics = Diagnostics.capture { c.mount(at: a) }
        #expect(diagnostics.map(\.code) == [.mountCycle])
        let log = Log<String>()
        for node in [a, b, c] { record(Ping.self, at: node, into: log) }
        b.post(Ping(value: 0))
        #expect(log.entries == ["b", "c", "a"])
    }

    @Test func mountingAtItselfIsRefusedWithADiagnostic() {
        let node = DominoNode(label: "self-mounted")
        var mounted = true
        let diagnostics = Diagnostics.capture { mounted = node.mount(at: node) }
        #expect(!mounted)
        #expect(diagnostics.map(\.code) == [.mountAtSelf])
        #expect(node.parents.isEmpty)
    }

    @Test func mountingTwiceAtTheSameParentKeepsOneLink() {
        let child = DominoNode(), parent = DominoNode()
        #expect(child.mount(at: parent))
        #expect(!child.mount(at: parent))
        #expect(child.parents.count == 1)
        #expect(parent.children.count == 1)
    }

    @Test func unmountRemovesTheParentFromTheRoute() {
        let nodes = makeChain(3)
        nodes[0].unmount(from: nodes[1])
        #expect(nodes[0].routeNodes.map(\.label) == ["n0"])
        #expect(nodes[1].children.isEmpty)
    }

    @Test func unmountFromANonParentIsReportedAndChangesNothing() {
        let nodes = makeChain(2)
        let stranger = DominoNode(label: "stranger")
        let diagnostics = Diagnostics.capture { nodes[0].unmount(from: stranger) }
        #expect(diagnostics.map(\.code) == [.notMounted])
        #expect(nodes[0].parents.count == 1)
    }

    @Test func unmountFromAllDetachesEveryParent() {
        let child = DominoNode(), p1 = DominoNode(), p2 = DominoNode()
        child.mount(at: p1)
        child.mount(at: p2)
        child.unmountFromAll()
        #expect(child.parents.isEmpty)
        #expect(p1.children.isEmpty && p2.children.isEmpty)
    }

    @Test func hostsAndNodesDeallocateWhileMounted() {
        weak var weakHost: Host?
        weak var weakNode: DominoNode?
        let parent = Host("parent")
        do {
            let child = Host("child")
            child.domino.mount(at: parent.domino)
            child.domino.subscribe(Ping.self, owner: child, on: .postingThread) { host, _ in host.received.append(1) }
            weakHost = child
            weakNode = child.domino
            #expect(parent.domino.children.count == 1)
        }
        #expect(weakHost == nil)
        #expect(weakNode == nil)
        #expect(parent.domino.children.isEmpty)
    }

    @Test func deadParentDropsOutOfTheRoute() {
        let child = DominoNode(label: "child")
        let top = DominoNode(label: "top")
        weak var weakMiddle: DominoNode?
        let log = Log<String>()
        record(Ping.self, at: top, into: log)
        do {
            let middle = DominoNode(label: "middle")
            child.mount(at: middle)
            middle.mount(at: top)
            record(Ping.self, at: middle, into: log)
            weakMiddle = middle
            child.post(Ping(value: 1))
        }
        #expect(weakMiddle == nil)
        #expect(child.routeNodes.map(\.label) == ["child"])
        child.post(Ping(value: 2))
        #expect(log.entries == ["middle", "top"])
    }

    @Test func parentDoesNotKeepChildAliveAndChildDoesNotKeepParentAlive() {
        weak var weakParent: DominoNode?
        weak var weakChild: DominoNode?
        do {
            let parent = DominoNode()
            let child = DominoNode()
            child.mount(at: parent)
            weakParent = parent
            weakChild = child
        }
        #expect(weakParent == nil)
        #expect(weakChild == nil)
    }

    @Test func labelsAndGeneratedNamesDescribeNodes() {
        #expect(DominoNode(label: "content").description == "content")
        #expect(DominoNode().description.hasPrefix("DominoNode(0x"))
    }

    @Test func hundredThousandDeepChainPostsWithoutStackOverflow() {
        let nodes = makeChain(100_000)
        let counter = Counter()
        nodes[99_999].subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        let result = nodes[0].post(Ping(value: 1))
        #expect(counter.value == 1)
        #expect(result.nodesVisited == 100_000)
    }
}
