import Foundation
import Testing
@testable import Domino
import DominoTesting

/// window > root (controller) > root.view > panel > content (controller) > content.view > card > button
private struct Screen {
    let application = SimApplication("app")
    let window = SimWindow("window")
    let root = SimViewController("root")
    let panel = SimView("panel")
    let content = SimViewController("content")
    let card = SimView("card")
    let button = SimView("button")

    init() {
        window.application = application
        window.rootViewController = root
        root.view.addSubview(panel)
        root.addChild(content, into: panel)
        content.view.addSubview(card)
        card.addSubview(button)
    }
}

@Suite("Responder chain", .checksLeaks)
struct ResponderChainTests {
    @Test func eventFromADeepViewReachesItsControllersWithoutMounting() {
        let screen = Screen()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: screen.content.domino)
        recorder.record(Ping.self, at: screen.root.domino)
        recorder.record(Ping.self, at: screen.window.domino)
        let result = screen.button.domino.post(Ping(value: 1))
        #expect(recorder.nodes == ["content", "root", "window"])
        // Responders without a node (card, panel, the controllers' views) are skipped.
        #expect(result.nodesVisited == 4)
    }

    @Test func routeListsTheResponderNodesInChainOrder() {
        let screen = Screen()
        _ = screen.card.domino
        _ = screen.root.domino
        _ = screen.application.domino
        #expect(screen.button.domino.route.map(\.description) == ["button", "card", "root", "app"])
    }

    @Test func responderSuccessorComesBeforeMountedParents() {
        let screen = Screen()
        let manager = DominoNode(label: "manager")
        let recorder = EventRecorder()
        let analytics = DominoNode(label: "analytics")
        screen.card.domino.mount(at: analytics)
        recorder.record(Ping.self, at: analytics)
        recorder.record(Ping.self, at: screen.content.domino)
        recorder.record(Ping.self, at: screen.root.domino)
        manager.mount(at: screen.card.domino)
        manager.post(Ping(value: 1))
        // manager > card, then card's responder chain (content, root) before its mount.
        #expect(recorder.nodes == ["content", "root", "analytics"])
        #expect(manager.route.map(\.description) == ["manager", "card", "content", "root", "analytics"])
    }

    @Test func nodeReachedBothByTheChainAndByAMountIsDeliveredOnce() {
        let screen = Screen()
        let recorder = EventRecorder()
        screen.button.domino.mount(at: screen.content.domino)
        screen.button.domino.mount(at: screen.root.domino)
        recorder.record(Ping.self, at: screen.content.domino)
        recorder.record(Ping.self, at: screen.root.domino)
        let result = screen.button.domino.post(Ping(value: 1))
        #expect(recorder.nodes == ["content", "root"])
        #expect(result.deliveries == 2)
    }

    @Test func routeFollowsTheChainAsItIsWhenPosting() {
        let screen = Screen()
        let other = SimViewController("other")
        screen.root.addChild(other, into: screen.root.view)
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: screen.content.domino)
        recorder.record(Ping.self, at: other.domino)
        screen.button.domino.post(Ping(value: 1))
        other.view.addSubview(screen.button)     // the button moves to another screen
        screen.button.domino.post(Ping(value: 2))
        #expect(recorder.nodes == ["content", "other"])
        #expect(screen.button.domino.responderSuccessor === other.domino)
    }

    @Test func managerMountedAtAControllerContinuesUpThatControllersChain() {
        // Domino's README scene: a manager outside the responder chain is mounted at
        // the content controller and its events reach the root controller.
        let screen = Screen()
        let manager = DominoNode(label: "DDDManager")
        manager.mount(at: screen.content.domino)
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: screen.root.domino)
        manager.post(Ping(value: 1))
        #expect(recorder.nodes == ["root"])
    }

    @Test func requestsAndProtocolEventsFollowTheChain() {
        let screen = Screen()
        let log = Log<String>()
        let target = ContentTarget("root", log: log, channel: "channel-9")
        screen.root.domino.subscribe(ContentEvents.self, target: target, on: .postingThread)
        screen.window.domino.respond(to: Ask.self) { "window:\($0.question)" }
        screen.button.domino.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 4) }
        #expect(screen.button.domino.request(ContentEvents.self) { $0.fetchChannelID() } == "channel-9")
        #expect(screen.button.domino.request(Ask(question: "size")) == "window:size")
        #expect(log.entries == ["root:4", "root:asked"])
    }

    @Test func nodesOfTheChainAreChildrenOfTheNodeTheyLeadTo() {
        let screen = Screen()
        let mounted = DominoNode(label: "mounted")
        mounted.mount(at: screen.content.domino)
        screen.button.domino.refreshResponderChain()
        #expect(screen.content.domino.children.map(\.description) == ["mounted", "button"])
        #expect(screen.button.domino.parents.isEmpty)
        #expect(screen.button.domino.responderSuccessor === screen.content.domino)
    }

    @Test func responderNodesDoNotKeepTheirHostsAlive() {
        var screen: Screen? = Screen()
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: screen!.root.domino)
        screen!.button.domino.post(Ping(value: 1))
        let weakButton = WeakBox(screen!.button)
        let weakRoot = WeakBox(screen!.root)
        let weakWindow = WeakBox(screen!.window)
        screen = nil
        #expect(weakButton.value == nil)
        #expect(weakRoot.value == nil)
        #expect(weakWindow.value == nil)
        #expect(recorder.nodes == ["root"])
    }

    @Test func deallocatedSuccessorDropsOutOfTheRoute() {
        let screen = Screen()
        var other: SimViewController? = SimViewController("other")
        other!.view.addSubview(screen.button)
        let recorder = EventRecorder()
        recorder.record(Ping.self, at: other!.domino)
        screen.button.domino.post(Ping(value: 1))
        other = nil                              // the button's only superview chain is gone
        let result = screen.button.domino.post(Ping(value: 2))
        #expect(recorder.nodes == ["other"])
        #expect(result.nodesVisited == 1)
        #expect(screen.button.domino.responderSuccessor == nil)
    }

    @Test func cycleInTheResponderChainIsReportedAndCutOff() {
        final class Loop: DominoResponder, @unchecked Sendable {
            weak var next: Loop?
            var nextDominoResponder: (any DominoResponder)? { next }
        }
        let first = Loop(), second = Loop()
        first.next = second
        second.next = first
        final class Entry: DominoResponder, @unchecked Sendable {
            let into: Loop
            init(_ into: Loop) { self.into = into }
            var nextDominoResponder: (any DominoResponder)? { into }
        }
        let entry = Entry(first)
        let node = DominoNode(label: "entry", responder: entry)
        let diagnostics = Diagnostics.capture {
            let result = node.post(Ping(value: 1))
            #expect(result.nodesVisited == 1)
        }
        #expect(diagnostics.map(\.code) == [.responderChainTooLong])
    }

    @Test func chainLeadingBackBelowANodeIsVisitedOnce() {
        let screen = Screen()
        // The root controller's node is mounted below the button: a cycle through the chain.
        let recorder = EventRecorder()
        for node in [screen.button.domino, screen.content.domino, screen.root.domino] {
            recorder.record(Ping.self, at: node)
        }
        let diagnostics = Diagnostics.capture {
            screen.root.domino.mount(at: screen.button.domino)
            screen.button.domino.post(Ping(value: 1))
        }
        #expect(recorder.nodes == ["button", "content", "root"])
        #expect(diagnostics.map(\.code).contains(.mountCycle))
    }
}

/// A responder whose next responder another thread may swap at any time.
private final class SwappableResponder: DominoResponder, @unchecked Sendable {
    private let lock = NSLock()
    private var next: (any DominoResponder)?

    var nextDominoResponder: (any DominoResponder)? {
        lock.lock()
        defer { lock.unlock() }
        return next
    }

    func setNext(_ responder: (any DominoResponder)?) {
        lock.lock()
        next = responder
        lock.unlock()
    }
}

private final class PlainResponder: DominoResponder, @unchecked Sendable {
    var nextDominoResponder: (any DominoResponder)? { nil }
}

@Suite("Responder chain under concurrency", .checksLeaks)
struct ResponderChainConcurrencyTests {
    @Test func chainSwappedWhileThreadsPostDeliversEachPostExactlyOnce() {
        let first = PlainResponder(), second = PlainResponder()
        let firstNode = DominoNode(label: "first", responder: first)
        let secondNode = DominoNode(label: "second", responder: second)
        let view = SwappableResponder()
        view.setNext(first)
        let viewNode = DominoNode(label: "view", responder: view)
        let deliveries = Counter()
        let wrong = Counter()
        firstNode.subscribe(Ping.self, on: .postingThread) { _ in deliveries.increment() }
        secondNode.subscribe(Ping.self, on: .postingThread) { _ in deliveries.increment() }
        let posts = 3 * 3_000
        runConcurrently(4) { worker in
            if worker == 0 {
                for round in 0..<3_000 { view.setNext(round % 2 == 0 ? second : first) }
            } else {
                for value in 0..<3_000 {
                    if viewNode.post(Ping(value: value)).deliveries != 1 { wrong.increment() }
                }
            }
        }
        #expect(deliveries.value == posts)
        #expect(wrong.value == 0)
        withExtendedLifetime((first, second, firstNode, secondNode)) {}
    }

    @Test func firstPostsRacingOnAFreshResponderNodeEachReachTheResolvedSuccessor() {
        // Both threads find the link unresolved; the one that installs it second must
        // still walk the route again instead of delivering along the stale empty one.
        let wrong = Counter()
        for _ in 0..<3_000 {
            let parent = PlainResponder()
            let parentNode = DominoNode(label: "parent", responder: parent)
            parentNode.subscribe(Ping.self, on: .postingThread) { _ in }
            let view = SwappableResponder()
            view.setNext(parent)
            let viewNode = DominoNode(label: "view", responder: view)
            runConcurrently(2) { _ in
                if viewNode.post(Ping(value: 0)).deliveries != 1 { wrong.increment() }
            }
            withExtendedLifetime((parent, parentNode, view)) {}
        }
        #expect(wrong.value == 0)
    }
}
