import Testing
@testable import Domino
@testable import DominoSwiftUI

// The platform-neutral logic behind DominoSwiftUI's modifiers, driven the way SwiftUI
// drives it: each modifier attaches to the scope of the environment it is in (the
// outermost modifier first) and hands its own scope to the content inside it.

private struct Broke: Error, Equatable { var reason: String }
private struct Failed: Error, Equatable { var code: Int }
private struct CaughtBanner: Event, Equatable { var text: String }

private func labels(_ nodes: [DominoNode]) -> [String] {
    nodes.map { $0.label ?? "?" }
}

@Suite("SwiftUI layer: nodes through the environment", .checksLeaks)
@MainActor struct SwiftUIScopeTests {
    @Test func aViewNodeIsMountedAtTheNodeAboveAndIsTheScopeOfItsContent() {
        let screen = DominoNode(label: "screen")
        let list = ViewNode(label: "list")
        let scope = list.attach(to: DominoScope(screen))
        #expect(scope.node === list.node)
        #expect(labels(list.node.routeNodes) == ["list", "screen"])
    }

    @Test func aViewWithoutItsOwnNodePostsThroughTheNearestOneAbove() {
        let screen = DominoNode(label: "screen")
        let list = ViewNode(label: "list")
        // A row without `.dominoNode` gets its environment's scope unchanged.
        let rowScope = list.attach(to: DominoScope(screen))
        let log = Log<String>()
        record(Ping.self, at: list.node, into: log)
        record(Ping.self, at: screen, into: log)
        rowScope.post(Ping(value: 1))
        #expect(log.entries == ["list", "screen"])
    }

    @Test func aViewNodeLivesAsLongAsTheViewState() {
        let screen = DominoNode(label: "screen")
        var list: ViewNode? = ViewNode(label: "list")
        _ = list?.attach(to: DominoScope(screen))
        weak let node = list?.node
        #expect(node != nil && screen.children.count == 1)
        list = nil
        #expect(node == nil)
        #expect(screen.children.isEmpty)
    }

    @Test func evaluatingAViewAgainUnderTheSameScopeMountsNothingNew() {
        let screen = DominoNode(label: "screen")
        let list = ViewNode(label: "list")
        for _ in 0..<3 { _ = list.attach(to: DominoScope(screen)) }
        #expect(list.node.parents.count == 1)
        #expect(screen.children.count == 1)
    }

    @Test func movingAViewUnderAnotherNodeMovesItsNode() {
        let sidebar = DominoNode(label: "sidebar")
        let detail = DominoNode(label: "detail")
        let card = ViewNode(label: "card")
        _ = card.attach(to: DominoScope(sidebar))
        _ = card.attach(to: DominoScope(detail))
        #expect(labels(card.node.routeNodes) == ["card", "detail"])
        #expect(sidebar.children.isEmpty)
    }

    @Test func aPostWithNoNodeInScopeIsReportedAndDeliversNothing() {
        var result: PostResult?
        let diagnostics = Diagnostics.capture {
            result = DominoScope(nil).post(Ping(value: 1))
        }
        #expect(diagnostics.map(\.code) == [.noNodeInScope])
        #expect(result?.deliveries == 0)
    }

    @Test func aBroadcastFromAScopeReachesTheViewsBelow() {
        let screen = ViewNode(label: "screen")
        let top = screen.attach(to: DominoScope(nil))
        let row = ViewNode(label: "row")
        _ = row.attach(to: top)
        let log = Log<String>()
        record(Ping.self, at: row.node, into: log)
        top.broadcast(Ping(value: 1))
        #expect(log.entries == ["row"])
    }
}

@Suite("SwiftUI layer: handler modifiers", .checksLeaks)
@MainActor struct SwiftUIHandlerTests {
    @Test func handlersRunInModifierOrderTheOneNearestTheViewFirst() {
        // view.subscribe(Ping) { "first" }.subscribe(Ping) { "second" }
        let screen = DominoNode(label: "screen")
        var heard: [String] = []
        let second = ViewHandlers.subscribe { (_: Ping, _: inout Propagation) in heard.append("second") }
        let first = ViewHandlers.subscribe { (_: Ping, _: inout Propagation) in heard.append("first") }
        let outer = second.attach(to: DominoScope(screen), handler: { _, _ in heard.append("second") })
        let inner = first.attach(to: outer, handler: { _, _ in heard.append("first") })
        inner.post(Ping(value: 1))
        #expect(heard == ["first", "second"])
    }

    @Test func theHandlerOfTheLatestEvaluationRunsOnce() {
        let layer = ViewHandlers.subscribe { (_: Ping, _: inout Propagation) in }
        var heard: [Int] = []
        for generation in 1...3 {
            let scope = layer.attach(to: DominoScope(nil), handler: { event, _ in heard.append(generation * 10 + event.value) })
            if generation == 3 { scope.post(Ping(value: 1)) }
        }
        #expect(heard == [31])
    }

    @Test func aHandlerEndsWithTheView() {
        let screen = DominoNode(label: "screen")
        var heard = 0
        var layer: HandlerLayer? = ViewHandlers.subscribe { (_: Ping, _: inout Propagation) in heard += 1 }
        _ = layer?.attach(to: DominoScope(screen), handler: { _, _ in heard += 1 })
        screen.broadcast(Ping(value: 1))
        layer = nil
        screen.broadcast(Ping(value: 2))
        #expect(heard == 1)
        #expect(screen.children.isEmpty)
    }

    @Test func aHandlerThatStopsTheEventKeepsItFromTheViewsAbove() {
        let screen = DominoNode(label: "screen")
        let log = Log<String>()
        record(Ping.self, at: screen, into: log)
        let layer = ViewHandlers.subscribe { (_: Ping, propagation: inout Propagation) in propagation.stop() }
        let scope = layer.attach(to: DominoScope(screen), handler: { _, propagation in propagation.stop() })
        let result = scope.post(Ping(value: 1))
        #expect(result.wasStopped)
        #expect(log.entries.isEmpty)
    }

    @Test func aNamedEventHandlerHearsTheViewsInside() {
        let name: EventName = "cart.cleared"
        var heard: [String] = []
        let layer = ViewHandlers.subscribe(name) { _, _ in }
        let scope = layer.attach(to: DominoScope(nil), handler: { event, _ in heard.append(event.name.rawValue) })
        scope.post(name)
        #expect(heard == ["cart.cleared"])
    }

    @Test func aViewAnswersARequestAndANilAnswerLetsTheViewsAboveAnswer() {
        let screen = DominoNode(label: "screen")
        screen.respond(to: Ask.self, on: .postingThread) { _ in "screen" }
        let layer = ViewHandlers.respond(to: Ask.self) { _ in nil }
        let scope = layer.attach(to: DominoScope(screen), handler: { ask in ask.question == "mine" ? "view" : nil })
        #expect(scope.request(Ask(question: "mine")) == "view")
        #expect(scope.request(Ask(question: "other")) == "screen")
    }

    @Test func handleStopsAnErrorFromTheViewsInside() {
        let screen = DominoNode(label: "screen")
        var handled: [Broke] = []
        let layer = ViewHandlers.handle(Broke.self) { _ in }
        let scope = layer.attach(to: DominoScope(screen), handler: { handled.append($0) })
        let report = scope.report(Broke(reason: "offline"))
        #expect(handled == [Broke(reason: "offline")])
        #expect(report.handledAt == "handle(Broke)")
    }

    @Test func receiveDecidesWhetherAnErrorGoesOnUp() {
        let screen = DominoNode(label: "screen")
        var atScreen: [String] = []
        screen.handle(Broke.self) { atScreen.append($0.reason) }
        let layer = ViewHandlers.receive(Broke.self) { _ in .notHandled }
        let scope = layer.attach(to: DominoScope(screen), handler: { $0.reason == "mine" ? .handled : .notHandled })
        scope.report(Broke(reason: "mine"))
        scope.report(Broke(reason: "theirs"))
        #expect(atScreen == ["theirs"])
    }

    @Test func transformGivesTheViewsAboveAnotherError() {
        let screen = DominoNode(label: "screen")
        var atScreen: [Failed] = []
        screen.handle(Failed.self) { atScreen.append($0) }
        let layer = ViewHandlers.transform(Broke.self) { _ in Failed(code: 0) }
        let scope = layer.attach(to: DominoScope(screen), handler: { _ in Failed(code: 503) })
        scope.report(Broke(reason: "offline"))
        #expect(atScreen == [Failed(code: 503)])
    }

    @Test func catchTurnsAnErrorIntoAnEventPostedFromTheView() {
        let screen = DominoNode(label: "screen")
        var banners: [String] = []
        screen.subscribe(CaughtBanner.self) { banners.append($0.text) }
        let layer = ViewHandlers.catch(Broke.self) { _ in CaughtBanner(text: "") }
        let scope = layer.attach(to: DominoScope(screen), handler: { CaughtBanner(text: $0.reason) })
        let report = scope.report(Broke(reason: "offline"))
        #expect(banners == ["offline"])
        #expect(report.caughtEvent is CaughtBanner)
    }
}

/// parent (controller) > parent.view > host (hosting controller) > host.view >
/// [SwiftUI: place] > map (a UIKit view shown by a representable) > pin
@MainActor private struct MixedScreen {
    let parent = SimViewController("parent")
    let host = SimViewController("host")
    let map = SimView("map")
    let pin = SimView("pin")
    let place = ViewNode(label: "place")

    init() {
        parent.addChild(host)
        // UIKit sees the representable's view somewhere inside the hosting view.
        host.view.addSubview(map)
        map.addSubview(pin)
        // Nodes made on first use, as the glue's are; these objects use theirs.
        for responder in [parent, host, map, pin] as [SimResponder] { _ = responder.dominoNode }
    }

    /// What `.dominoRoot(host.dominoNode)` and `.dominoNode("place")` do.
    func placeScope() -> DominoScope {
        place.attach(to: DominoScope(host.dominoNode))
    }
}

@Suite("SwiftUI layer: UIKit interop", .checksLeaks)
@MainActor struct SwiftUIInteropTests {
    @Test func aHostedViewPostsOnUpTheHostingControllersResponderChain() {
        let screen = MixedScreen()
        let scope = screen.placeScope()
        #expect(labels(scope.node!.routeNodes) == ["place", "host", "parent"])
    }

    @Test func anEmbeddedUIKitViewContinuesIntoTheSwiftUIViewThatEmbedsIt() {
        let screen = MixedScreen()
        let scope = screen.placeScope()
        #expect(labels(screen.pin.dominoNode.routeNodes) == ["pin", "map", "host", "parent"])
        scope.embed(screen.map.dominoNode)
        #expect(labels(screen.pin.dominoNode.routeNodes) == ["pin", "map", "place", "host", "parent"])
        #expect(screen.map.dominoNode.followsResponderChain == false)
    }

    @Test func handlersOfTheEmbeddingViewHearTheEmbeddedViewBeforeTheHost() {
        let screen = MixedScreen()
        let layer = ViewHandlers.subscribe { (_: Ping, _: inout Propagation) in }
        var heard: [String] = []
        let scope = layer.attach(to: screen.placeScope(), handler: { _, _ in heard.append("place") })
        screen.host.dominoNode.subscribe(Ping.self) { _ in heard.append("host") }
        scope.embed(screen.map.dominoNode)
        screen.pin.dominoNode.post(Ping(value: 1))
        #expect(heard == ["place", "host"])
    }

    @Test func anEmbeddedViewEmbeddedAgainMovesToTheNewScope() {
        let screen = MixedScreen()
        let other = DominoNode(label: "other")
        screen.placeScope().embed(screen.map.dominoNode)
        DominoScope(other).embed(screen.map.dominoNode)
        #expect(labels(screen.map.dominoNode.routeNodes) == ["map", "other"])
    }

    @Test func followingTheResponderChainAgainRestoresTheUIKitRoute() {
        let screen = MixedScreen()
        screen.map.dominoNode.followsResponderChain = false
        #expect(labels(screen.map.dominoNode.routeNodes) == ["map"])
        screen.map.dominoNode.followsResponderChain = true
        #expect(labels(screen.map.dominoNode.routeNodes) == ["map", "host", "parent"])
    }

    @Test func aNodeThatStopsFollowingItsChainIsCutOffForPostsFromOtherThreadsToo() {
        let screen = MixedScreen()
        let log = Log<String>()
        record(Ping.self, at: screen.host.dominoNode, into: log)
        screen.map.dominoNode.post(Ping(value: 1))
        screen.map.dominoNode.followsResponderChain = false
        let map = screen.map.dominoNode
        _ = onAnotherThread { map.post(Ping(value: 2)) }
        #expect(log.entries == ["host"])
    }

    @Test func aNodeWithoutAResponderNeverFollowsAChain() {
        let node = DominoNode(label: "plain")
        node.followsResponderChain = true
        #expect(node.followsResponderChain == false)
    }
}
