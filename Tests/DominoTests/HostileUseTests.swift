import Foundation
import Testing
@testable import Domino

/// A host that posts from its deinit, as a screen reporting that it closed.
private final class ClosingScreen {
    let domino = DominoNode(label: "closing")
    deinit {
        domino.post(Pong(text: "closed"))
    }
}

/// A responder whose chain any thread may read, whose deinit posts from its node,
/// and whose next read of its chain on a given thread first runs a hook (`onRead(on:
/// _:)`). The hook is guarded by a lock and kept for that thread: once the responder
/// has a node, any test's walk down reads its chain, on any thread (a read on
/// another thread once took the hook, and the test's own read then ran none).
private final class ClosingResponder: DominoResponder, @unchecked Sendable {
    let next: (any DominoResponder)?
    private let lock = NSLock()
    private var storedOnRead: (thread: pthread_t, body: () -> Void)?

    /// Runs `body` at the next read of this responder's chain on `thread`.
    func onRead(on thread: pthread_t, _ body: @escaping () -> Void) {
        lock.withLock { storedOnRead = (thread, body) }
    }
    private(set) lazy var domino = DominoNode(label: "closing responder", responder: self)

    init(next: (any DominoResponder)?) {
        self.next = next
    }

    nonisolated var nextDominoResponder: (any DominoResponder)? {
        let read = lock.withLock { () -> (() -> Void)? in
            guard let stored = storedOnRead, pthread_equal(stored.thread, pthread_self()) != 0 else { return nil }
            storedOnRead = nil
            return stored.body
        }
        read?()
        return next
    }

    nonisolated static var readsChainOnMainThreadOnly: Bool { false }

    deinit {
        domino.post(Pong(text: "closed"))
    }
}

@Suite("Hostile use", .checksLeaks)
struct HostileUseTests {
    @Test func runawayRecursiveRequestIsCutOffAndReported() {
        let node = DominoNode(label: "asking")
        let depth = Counter()
        node.respond(to: Ask.self, on: .postingThread) { [unowned node] ask in
            depth.increment()
            return node.request(Ask(question: ask.question + "?"))
        }
        var answer: String?
        let diagnostics = Diagnostics.capture { answer = node.request(Ask(question: "q")) }
        #expect(answer == nil)
        #expect(depth.value == DominoNode.maximumNestingDepth)
        #expect(diagnostics.map(\.code) == [.nestingLimitExceeded])
    }

    @Test func runawayRecursiveBroadcastIsCutOffAndReported() {
        let node = DominoNode(label: "echo")
        let depth = Counter()
        node.subscribe(Ping.self, on: .postingThread) { [unowned node] ping in
            depth.increment()
            node.broadcast(Ping(value: ping.value + 1))
        }
        let diagnostics = Diagnostics.capture { node.broadcast(Ping(value: 0)) }
        #expect(depth.value == DominoNode.maximumNestingDepth)
        #expect(diagnostics.map(\.code) == [.nestingLimitExceeded])
    }

    @Test func hostPostingFromItsDeinitReachesTheNodesAbove() {
        let parent = DominoNode(label: "parent")
        let log = Log<String>()
        parent.subscribe(Pong.self, on: .postingThread) { log.append($0.text) }
        var screen: ClosingScreen? = ClosingScreen()
        screen!.domino.mount(at: parent)
        screen = nil
        #expect(log.entries == ["closed"])
        #expect(parent.children.isEmpty)
    }

    @Test func hostPostingFromItsDeinitInsideAWalkIsSafe() {
        let parent = DominoNode(label: "parent")
        let log = Log<String>()
        let box = StrongBox<ClosingScreen>(ClosingScreen())
        box.value!.domino.mount(at: parent)
        parent.subscribe(Pong.self, on: .postingThread) { log.append($0.text) }
        parent.subscribe(Ping.self, on: .postingThread) { _ in box.value = nil }   // the deinit posts, nested
        box.value!.domino.post(Ping(value: 1))
        #expect(log.entries == ["closed"])
    }

    @Test func aResponderWhoseLastReferenceAWalksChecksHoldPostsFromItsDeinitAndBothPostsArrive() {
        let top = ClosingResponder(next: nil)
        let log = Log<String>()
        let poster = pthread_self()
        top.domino.subscribe(Pong.self, on: .postingThread) { pong in
            log.append(pthread_equal(pthread_self(), poster) != 0 ? pong.text : "\(pong.text) elsewhere")
        }
        top.domino.subscribe(Ping.self, on: .postingThread) { _ in log.append("ping") }
        let box = StrongBox<ClosingResponder>(ClosingResponder(next: top))
        let bottom = box.value!.domino
        bottom.mount(at: top.domino)          // its deinit's post goes up without its chain
        bottom.post(Ping(value: 0))           // resolves the link: the next post checks it
        // Reading the chain drops the last reference but the check's own: the check
        // releases it once it has read the chain, and the deinit posts, nested.
        box.value!.onRead(on: poster) { box.value = nil }
        bottom.post(Ping(value: 1))
        // Another test's walk down (which reads every responder node's chain, holding
        // each responder meanwhile, on its own thread) may hold the responder when
        // this thread lets it go: its deinit, and its post, then run there.
        #expect(waitBackingOff { log.entries.count == 3 })
        if log.entries.contains("closed elsewhere") {
            #expect(log.entries.filter { $0 == "ping" }.count == 2)
        } else {
            #expect(log.entries == ["ping", "closed", "ping"])
        }
        withExtendedLifetime(top) {}
    }

    @Test func hugeParameterDictionaryIsDeliveredAndReformedWhole() {
        let nodes = makeChain(2)
        var parameters: [String: any Sendable] = [:]
        for index in 0..<100_000 { parameters["key\(index)"] = index }
        let sizes = Log<Int>()
        nodes[1].reform("Bulk") { $0.parameters["reformed"] = true }
        nodes[1].subscribe("Bulk", on: .postingThread) { sizes.append($0.parameters.count) }
        nodes[0].post("Bulk", parameters)
        #expect(sizes.entries == [100_001])
    }

    @Test func thousandsOfSubscriptionsOnOneNodeAreCalledInOrderAndCancelled() {
        let node = DominoNode(label: "crowded")
        let order = Log<Int>()
        var subscriptions = (0..<5_000).map { index in
            node.subscribe(Ping.self, on: .postingThread) { _ in order.append(index) }
        }
        let result = node.post(Ping(value: 1))
        #expect(result.deliveries == 5_000)
        #expect(order.entries == Array(0..<5_000))
        var random = SeededGenerator(seed: 7)
        subscriptions.shuffle(using: &random)
        for subscription in subscriptions { subscription.cancel() }
        #expect(node.subscriptionCount == 0)
        #expect(!node.post(Ping(value: 2)).wasDelivered)
    }

    @Test func parentWithTenThousandChildrenOutlivesThemAndTheyOutliveIt() {
        let parent = DominoNode(label: "list")
        var children = (0..<10_000).map { DominoNode(label: "cell\($0)") }
        for child in children { child.mount(at: parent) }
        let counter = Counter()
        for child in children { child.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() } }
        parent.broadcast(Ping(value: 1))
        #expect(counter.value == 10_000)
        children.removeAll()                       // cells go first
        #expect(parent.children.isEmpty)
        var orphans = (0..<10_000).map { _ in DominoNode() }
        var list: DominoNode? = DominoNode(label: "second list")
        for child in orphans { child.mount(at: list!) }
        list = nil                                 // the list goes first
        #expect(orphans.allSatisfy { $0.parents.isEmpty })
        orphans.removeAll()
    }

    @Test func mountingEveryNodeOfAChainAtItsBottomIsSurvived() {
        let nodes = makeChain(50)
        let log = Log<String>()
        for node in nodes { record(Ping.self, at: node, into: log) }
        let diagnostics = Diagnostics.capture {
            for node in nodes.dropFirst() { node.mount(at: nodes[0]) }
        }
        nodes[0].post(Ping(value: 1))
        #expect(diagnostics.count == 49)
        #expect(diagnostics.allSatisfy { $0.code == .mountCycle })
        #expect(log.count == 50)                   // each node once
    }
}

/// Awaited requests are limited per task, across awaits, as synchronous ones are per
/// thread.
@Suite("Hostile use: awaited recursion", .checksLeaks)
struct AsyncRecursionTests {
    @Test func aResponderAwaitingItsOwnRequestWithoutEndIsCutOffAndReported() async throws {
        let node = DominoNode(label: "recursive")
        let levels = Counter()
        node.respond(to: Ask.self) { @Sendable (ask: Ask) async -> String? in
            levels.increment()
            // Asks again: reaches itself, without end. (Past 1,000 levels it gives up
            // by itself, so that a missing limit fails this test rather than the
            // machine.)
            if levels.value > 1_000 { return "gave up" }
            return try? await node.request(ask)
        }
        var answer: String?? = nil
        let diagnostics = await Diagnostics.capture { answer = try? await node.request(Ask(question: "again")) }
        #expect(answer == .some(nil))
        #expect(levels.value == DominoNode.maximumNestingDepth)
        #expect(diagnostics.map(\.code) == [.nestingLimitExceeded])
        node.clearAllSubscribers()
    }
}
