import Testing
@testable import Domino

/// Long lists of links: a parent with many children, a child mounted at many parents.
/// Past `LinkStore.indexedCount` links a list finds links through an index and
/// removal leaves holes, squeezed out later; order must hold through all of it.
@Suite("Node graph: long lists of parents and children", .checksLeaks)
struct NodeListTests {
    /// Well past the length at which a list gets its index.
    static let long = 100

    private func labels(_ nodes: [DominoNode]) -> [String] {
        nodes.map { $0.label ?? "?" }
    }

    @Test func aLinksIdentityIsItsNodesObjectIdentifier() {
        let nodes = (0..<4).map { DominoNode(label: "n\($0)") }
        for node in nodes { #expect(NodeLink(node).id == ObjectIdentifier(node)) }
        #expect(Set(nodes.map { NodeLink($0).id }).count == nodes.count)
        // Unlabelled nodes are described by the same identity.
        let unlabelled = DominoNode()
        #expect(unlabelled.description == DominoNode.describe(label: nil, id: ObjectIdentifier(unlabelled)))
    }

    @Test func unmountingChildrenFromTheMiddleOfALongListKeepsTheOthersInMountOrder() {
        let parent = DominoNode(label: "parent")
        let children = (0..<Self.long).map { DominoNode(label: "c\($0)") }
        for child in children { child.mount(at: parent) }
        let removed = Set(stride(from: 1, to: Self.long - 1, by: 3))
        for index in removed.sorted() { children[index].unmount(from: parent) }
        let kept = children.indices.filter { !removed.contains($0) }.map { "c\($0)" }
        #expect(labels(parent.children) == kept)
        let log = Log<String>()
        for child in children { record(Ping.self, at: child, into: log) }
        parent.broadcast(Ping(value: 0))
        #expect(log.entries == kept)
    }

    @Test func unmountingALongListFromTheFrontKeepsTheRestInMountOrderAtEveryStep() {
        let parent = DominoNode(label: "parent")
        let children = (0..<Self.long).map { DominoNode(label: "c\($0)") }
        for child in children { child.mount(at: parent) }
        for (index, child) in children.enumerated() {
            child.unmount(from: parent)
            #expect(labels(parent.children) == children[(index + 1)...].map { $0.label! })
        }
    }

    @Test func unmountingALongListFromTheBackKeepsTheRestInMountOrder() {
        let parent = DominoNode(label: "parent")
        let children = (0..<Self.long).map { DominoNode(label: "c\($0)") }
        for child in children { child.mount(at: parent) }
        for child in children[50...].reversed() { child.unmount(from: parent) }
        #expect(labels(parent.children) == (0..<50).map { "c\($0)" })
    }

    @Test func childrenMountedAfterRemovalsComeLastInALongList() {
        let parent = DominoNode(label: "parent")
        let children = (0..<Self.long).map { DominoNode(label: "c\($0)") }
        for child in children { child.mount(at: parent) }
        for child in children[10..<90] { child.unmount(from: parent) }
        for child in children[40..<45] { child.mount(at: parent) }
        let expected = (0..<10).map { "c\($0)" } + (90..<100).map { "c\($0)" } + (40..<45).map { "c\($0)" }
        #expect(labels(parent.children) == expected)
    }

    @Test func deallocatedChildrenLeaveALongListWithTheOthersInMountOrder() {
        let parent = DominoNode(label: "parent")
        var children: [DominoNode?] = (0..<Self.long).map { DominoNode(label: "c\($0)") }
        for child in children { child!.mount(at: parent) }
        for index in stride(from: 0, to: Self.long, by: 2) { children[index] = nil }
        #expect(labels(parent.children) == stride(from: 1, to: Self.long, by: 2).map { "c\($0)" })
    }

    @Test func childMountedAtManyParentsRoutesThroughTheRemainingOnesInMountOrder() {
        let child = DominoNode(label: "child")
        let parents = (0..<Self.long).map { DominoNode(label: "p\($0)") }
        for parent in parents { child.mount(at: parent) }
        let removed = Set([0, 1, 17, 50, 51, 52, 98])
        for index in removed.sorted() { child.unmount(from: parents[index]) }
        let kept = parents.indices.filter { !removed.contains($0) }.map { "p\($0)" }
        #expect(labels(child.parents) == kept)
        #expect(labels(child.routeNodes) == ["child"] + kept)
        let log = Log<String>()
        for parent in parents { record(Ping.self, at: parent, into: log) }
        child.post(Ping(value: 0))
        #expect(log.entries == kept)
    }

    @Test func mountingAgainAtAParentDeepInALongListKeepsOneLink() {
        let child = DominoNode(label: "child")
        let parents = (0..<Self.long).map { DominoNode(label: "p\($0)") }
        for parent in parents { child.mount(at: parent) }
        #expect(!child.mount(at: parents[73]))
        #expect(child.parents.count == Self.long)
        #expect(parents[73].children.count == 1)
    }

    @Test func unmountingFromANodeMissingFromALongListIsReportedAndChangesNothing() {
        let child = DominoNode(label: "child")
        let parents = (0..<Self.long).map { DominoNode(label: "p\($0)") }
        for parent in parents { child.mount(at: parent) }
        child.unmount(from: parents[30])
        let diagnostics = Diagnostics.capture { child.unmount(from: parents[30]) }
        #expect(diagnostics.map(\.code) == [.notMounted])
        #expect(child.parents.count == Self.long - 1)
    }

    @Test func mountingANodeWithManyChildrenBelowOneOfThemIsReportedAsACycle() {
        let hub = DominoNode(label: "hub")
        let children = (0..<Self.long).map { DominoNode(label: "c\($0)") }
        for child in children { child.mount(at: hub) }
        let grandchild = DominoNode(label: "grandchild")
        grandchild.mount(at: children[Self.long - 1])
        let top = DominoNode(label: "top")
        grandchild.mount(at: top)
        let diagnostics = Diagnostics.capture { hub.mount(at: grandchild) }
        #expect(diagnostics.map(\.code) == [.mountCycle])
        #expect(hub.parents.map(\.label) == ["grandchild"])
    }

    @Test func mountingANodeWithManyChildrenAtManyParentsIsNoCycle() {
        let hub = DominoNode(label: "hub")
        let children = (0..<Self.long).map { DominoNode(label: "c\($0)") }
        for child in children { child.mount(at: hub) }
        let top = DominoNode(label: "top")
        let parents = (0..<Self.long).map { DominoNode(label: "p\($0)") }
        for parent in parents { parent.mount(at: top) }
        let diagnostics = Diagnostics.capture {
            for parent in parents { hub.mount(at: parent) }
        }
        #expect(diagnostics.isEmpty)
        #expect(labels(hub.parents) == labels(parents))
    }

    @Test func longListsOfParentsAndChildrenMatchAModelThroughRandomMountsAndUnmounts() {
        // One hub, mounted at some nodes and with others mounted at it: both of its
        // lists grow past the index length, shrink (holes, compaction) and grow again.
        var generator = SeededGenerator(seed: 19)
        let hub = DominoNode(label: "hub")
        let others = (0..<90).map { DominoNode(label: "o\($0)") }
        var parents: [Int] = []
        var children: [Int] = []
        for _ in 0..<3_000 {
            let other = Int.random(in: 0..<others.count, using: &generator)
            let asParent = Bool.random(using: &generator)
            if asParent, !children.contains(other) {
                if let index = parents.firstIndex(of: other) {
                    hub.unmount(from: others[other])
                    parents.remove(at: index)
                } else {
                    hub.mount(at: others[other])
                    parents.append(other)
                }
            } else if !asParent, !parents.contains(other) {
                if let index = children.firstIndex(of: other) {
                    others[other].unmount(from: hub)
                    children.remove(at: index)
                } else {
                    others[other].mount(at: hub)
                    children.append(other)
                }
            }
            #expect(labels(hub.parents) == parents.map { "o\($0)" })
            #expect(labels(hub.children) == children.map { "o\($0)" })
        }
    }

    @Test func aListShrunkToOneLinkHoldsThatLinkAlone() {
        let nodes = (0..<40).map { DominoNode(label: "n\($0)") }
        var list = NodeList()
        var graveyard = Graveyard()
        let (isMultiple, first, links, only) = list.withRef { list in
            for node in nodes { list.append(node, &graveyard) }
            for node in nodes.dropLast() { list.remove(node, &graveyard) }
            return (list.isMultiple, list.links.first, list.links, list.shape.only)
        }
        #expect(!isMultiple)
        #expect(first == NodeLink(nodes[39]))
        #expect(links == [NodeLink(nodes[39])])
        #expect(only == NodeLink(nodes[39]))
    }

    @Test func firstLinkOfAnIndexedListFollowsRemovalsFromTheFront() {
        let nodes = (0..<40).map { DominoNode(label: "n\($0)") }
        var list = NodeList()
        var graveyard = Graveyard()
        let (found, wrongFirsts, links) = list.withRef { list in
            for node in nodes { list.append(node, &graveyard) }
            let found = list.contains(nodes[0])  // a search: the list is indexed from here
            var wrongFirsts = 0
            for index in 0..<30 {
                list.remove(nodes[index], &graveyard)
                if list.links.first != NodeLink(nodes[index + 1]) { wrongFirsts += 1 }
            }
            return (found, wrongFirsts, list.links)
        }
        #expect(found)
        #expect(wrongFirsts == 0)
        #expect(links == nodes[30...].map(NodeLink.init))
    }
}
