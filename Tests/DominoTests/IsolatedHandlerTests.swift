import Dispatch
import Foundation
import Testing
@testable import Domino

// Where a handler runs is decided by the code it is written in: a `subscribe`,
// `respond` or `route` that names no mode runs its handler in the caller's isolation
// (the main actor, from main-actor code; an actor, from that actor's code); one that
// names a mode with `on:` takes a `@Sendable` handler and runs it where the mode says.

/// A view controller: main-actor state, mutated by the handlers it subscribes.
@MainActor private final class CounterViewController {
    let domino = DominoNode(label: "counter")
    let title = "Inbox"
    private(set) var count = 0
    private(set) var selections: [String] = []
    /// Whether each handler call found itself on the main queue.
    let ranOnMain = Log<Bool>()

    func viewDidLoad() {
        domino.subscribe(Ping.self, owner: self) { controller, event in
            controller.ranOnMain.append(isOnMainQueue())
            controller.count += event.value
        }
        domino.respond(to: Ask.self, owner: self) { controller, ask in
            controller.ranOnMain.append(isOnMainQueue())
            return "\(controller.title): \(ask.question)"
        }
    }

    func routeSelections() {
        domino.route([
            "SelectLimit": CounterViewController.didSelectLimit,
            "SelectFund": CounterViewController.didSelectFund,
        ], to: self)
    }

    func didSelectLimit(_ event: NamedEvent) {
        ranOnMain.append(isOnMainQueue())
        selections.append("limit \(event.argument(0, as: Int.self) ?? 0)")
    }

    func didSelectFund(_ event: NamedEvent) {
        ranOnMain.append(isOnMainQueue())
        selections.append("fund \(event.argument(0, as: String.self) ?? "?")")
    }
}

/// An actor that subscribes from its own code: its handler runs on it.
private actor Tally {
    let domino = DominoNode(label: "tally")
    private(set) var total = 0
    /// Each total, as the handler left it: a stream, which the test can await.
    let totals: AsyncStream<Int>
    private let totalsSink: AsyncStream<Int>.Continuation

    init() {
        (totals, totalsSink) = AsyncStream.makeStream()
    }

    private var subscription: Subscription?

    func start() {
        // Written in the actor's code: the handler is isolated to it and may touch
        // its state. It captures the actor (a `weak` capture would lose the
        // isolation), so `stop()` ends it.
        subscription = domino.subscribe(Ping.self) { event in
            self.preconditionIsolated("an actor's handler runs on that actor")
            self.total += event.value
            self.totalsSink.yield(self.total)
        }
    }

    func stop() {
        subscription?.cancel()
        subscription = nil           // the handle holds the handler, which holds the actor
        totalsSink.finish()
    }
}

/// An actor that subscribes on its own behalf: the owner form hands the handler the
/// actor as its isolated parameter, held weakly, so there is no cycle to break.
private actor OwnedTally {
    let domino = DominoNode(label: "owned-tally")
    private(set) var total = 0
    let totals: AsyncStream<Int>
    private let totalsSink: AsyncStream<Int>.Continuation

    init() {
        (totals, totalsSink) = AsyncStream.makeStream()
    }

    func start() {
        domino.subscribe(Ping.self, owner: self) { tally, event in
            tally.preconditionIsolated("an actor owner's handler runs on that actor")
            tally.total += event.value
            tally.totalsSink.yield(tally.total)
        }
    }
}

@Suite("Isolated handlers: they run where they were written", .checksLeaks)
struct IsolatedHandlerTests {
    // MARK: Main-actor subscribers

    @Test @MainActor func ownerBoundMainActorSubscriberRunsInPlaceWhenPostedFromTheMainActor() {
        let controller = CounterViewController()
        controller.viewDidLoad()
        let result = controller.domino.post(Ping(value: 2))
        #expect(controller.count == 2)
        #expect(result.deliveries == 1)
        #expect(result.ran == 1)
        #expect(result.scheduled == 0)
        #expect(result.description == "delivered to 1 handler(s) over 1 node(s)")
        #expect(controller.ranOnMain.entries == [true])
    }

    @Test @MainActor func aMainActorOwnerBoundSubscriberEndsWhenItsOwnerDeallocates() {
        let node = DominoNode()
        let counter = Counter()
        weak var weakOwner: Host?
        var subscription: Subscription?
        do {
            let owner = Host("owner")
            weakOwner = owner
            // Main-actor code, no mode: the handler is the main actor's.
            subscription = node.subscribe(Ping.self, owner: owner) { _, _ in counter.increment() }
            node.post(Ping(value: 1))
        }
        #expect(weakOwner == nil)
        #expect(subscription?.isActive == false)
        let result = node.post(Ping(value: 2))
        #expect(counter.value == 1)
        #expect(!result.wasDelivered)
        // The dead subscription is purged by the post that found it.
        #expect(node.subscriptionCount == 0)
    }

    @Test @MainActor func aMainActorOwnerBoundResponderDoesNotAnswerOnceItsOwnerIsGone() {
        let node = DominoNode()
        var subscription: Subscription?
        do {
            let owner = Host("owner")
            // Main-actor code, no mode: the responder is the main actor's.
            subscription = node.respond(to: Ask.self, owner: owner) { _, ask in "answer to \(ask.question)" }
            #expect(node.request(Ask(question: "one")) == "answer to one")
        }
        #expect(subscription?.isActive == false)
        #expect(node.request(Ask(question: "two")) == nil)
        // The request that found it gone took it out.
        #expect(node.subscriptionCount == 0)
    }

    @Test @MainActor func mainActorSubscriberPostedFromABackgroundThreadIsScheduledAndRunsLaterOnTheMainActor() async {
        let controller = CounterViewController()
        controller.viewDidLoad()
        let node = controller.domino
        // The main actor waits for the post, so the delivery cannot have run yet.
        let result = onAnotherThread { node.post(Ping(value: 5)) }
        #expect(result.deliveries == 1)
        #expect(result.scheduled == 1)
        #expect(result.ran == 0)
        #expect(result.description == "delivered to 1 handler(s) (1 scheduled) over 1 node(s)")
        #expect(controller.count == 0)
        await mainQueueHasRunWhatWasQueuedBefore()
        #expect(controller.count == 5)
        #expect(controller.ranOnMain.entries == [true])
    }

    @Test @MainActor func aQueuedMainActorDeliveryIsDroppedWhenItsOwnerIsGoneByItsTurn() async {
        let node = DominoNode(label: "n")
        let counter = Counter()
        var owner: Host? = Host("owner")
        let subscription = node.subscribe(Ping.self, owner: owner!) { _, _ in counter.increment() }
        let result = onAnotherThread { node.post(Ping(value: 1)) }
        #expect(result.scheduled == 1)
        owner = nil                           // before the main queue gets to the delivery
        await mainQueueHasRunWhatWasQueuedBefore()
        #expect(counter.value == 0)
        #expect(!subscription.isActive)
    }

    @Test @MainActor func cancellingAnIsolatedSubscriptionBeforeItsQueuedDeliveryRunsDropsIt() async {
        let node = DominoNode(label: "n")
        let counter = Counter()
        let subscription = node.subscribe(Ping.self) { _ in counter.increment() }
        let result = onAnotherThread { node.post(Ping(value: 1)) }
        #expect(result.scheduled == 1)
        subscription.cancel()                 // before the main queue gets to the delivery
        await mainQueueHasRunWhatWasQueuedBefore()
        #expect(counter.value == 0)
    }

    @Test @MainActor func routeFromAMainActorControllerRunsItsMainActorMethodsOnTheMainActor() async {
        let controller = CounterViewController()
        controller.routeSelections()
        let node = controller.domino
        let inPlace = node.post("SelectLimit", arguments: 500)
        #expect(inPlace.ran == 1)
        #expect(controller.selections == ["limit 500"])
        let queued = onAnotherThread { node.post("SelectFund", arguments: "F001") }
        #expect(queued.scheduled == 1)
        #expect(controller.selections == ["limit 500"])
        await mainQueueHasRunWhatWasQueuedBefore()
        #expect(controller.selections == ["limit 500", "fund F001"])
        #expect(controller.ranOnMain.entries == [true, true])
    }

    // MARK: Main-actor responders

    @Test @MainActor func mainActorResponderAnswersASynchronousRequestMadeOnTheMainActor() {
        let controller = CounterViewController()
        controller.viewDidLoad()
        let cell = DominoNode(label: "cell")
        cell.mount(at: controller.domino)
        var answer: String?
        let diagnostics = Diagnostics.capture { answer = cell.request(Ask(question: "unread?")) }
        #expect(answer == "Inbox: unread?")
        #expect(diagnostics.isEmpty)
        #expect(controller.ranOnMain.entries == [true])
    }

    @Test @MainActor func synchronousRequestFromABackgroundThreadPassesAMainActorResponderByAndReportsIt() async {
        let controller = CounterViewController()
        controller.viewDidLoad()
        let node = controller.domino
        let (answer, codes) = await Task.detached { () -> (String?, [Diagnostic.Code]) in
            var answer: String?
            let diagnostics = Diagnostics.capture { answer = node.request(Ask(question: "q")) }
            return (answer, diagnostics.map(\.code))
        }.value
        #expect(answer == nil)
        #expect(codes == [.isolatedResponderSkipped])
        #expect(controller.ranOnMain.entries.isEmpty)   // the responder never ran
    }

    @Test @MainActor func backgroundRequestAnsweredPastAMainActorResponderStillReportsThePassBy() async {
        let root = DominoNode(label: "root")
        root.respond(to: Ask.self, on: .postingThread) { _ in "from the root" }
        let controller = CounterViewController()
        controller.viewDidLoad()
        controller.domino.mount(at: root)
        let node = controller.domino
        let (answer, diagnostics) = await Task.detached { () -> (String?, [Diagnostic]) in
            var answer: String?
            let diagnostics = Diagnostics.capture { answer = node.request(Ask(question: "q")) }
            return (answer, diagnostics)
        }.value
        #expect(answer == "from the root")
        #expect(diagnostics.map(\.code) == [.isolatedResponderSkipped])
        #expect(diagnostics.first?.message.contains("answered further up, at root") == true)
        #expect(controller.ranOnMain.entries.isEmpty)
    }

    @Test @MainActor func awaitedRequestFromABackgroundTaskReachesAMainActorResponder() async throws {
        let controller = CounterViewController()
        controller.viewDidLoad()
        let node = controller.domino
        let answer = try await Task.detached { try await node.request(Ask(question: "q")) }.value
        #expect(answer == "Inbox: q")
        #expect(controller.ranOnMain.entries == [true])
    }

    // MARK: Nonisolated code names a mode

    @Test func responderOnTheMainThreadModeIsPassedByABackgroundSyncRequestAndAnsweredByAnAsyncOne() async throws {
        let node = DominoNode(label: "n")
        node.respond(to: Ask.self, on: .mainThread) { _ in isOnMainQueue() ? "on main" : "elsewhere" }
        // This test runs on the cooperative pool, not on the main thread.
        let (answer, codes) = await Task.detached { () -> (String?, [Diagnostic.Code]) in
            var answer: String?
            let diagnostics = Diagnostics.capture { answer = node.request(Ask(question: "q")) }
            return (answer, diagnostics.map(\.code))
        }.value
        #expect(answer == nil)
        #expect(codes == [.isolatedResponderSkipped])
        #expect(try await Task.detached { try await node.request(Ask(question: "q")) }.value == "on main")
    }

    // MARK: Other actors

    @Test func handlerSubscribedInsideAnActorRunsOnThatActorAndCountsAsScheduled() async {
        let tally = Tally()
        await tally.start()
        var totals = tally.totals.makeAsyncIterator()
        let first = tally.domino.post(Ping(value: 4))
        #expect(first.deliveries == 1)
        #expect(first.scheduled == 1)
        #expect(first.ran == 0)
        #expect(await totals.next() == 4)
        tally.domino.post(Ping(value: 3))
        #expect(await totals.next() == 7)
        #expect(await tally.total == 7)
        await tally.stop()
    }

    @Test func actorOwnerBoundHandlerRunsOnTheActorWithItsStateAsTheIsolatedParameter() async {
        let tally = OwnedTally()
        await tally.start()
        var totals = tally.totals.makeAsyncIterator()
        let first = tally.domino.post(Ping(value: 4))
        #expect(first.scheduled == 1)
        #expect(await totals.next() == 4)
        tally.domino.post(Ping(value: 3))
        #expect(await totals.next() == 7)
        #expect(await tally.total == 7)
    }

    @Test func actorOwnerBoundSubscriptionEndsWithTheActor() async {
        let node = DominoNode(label: "outlives the actor")
        var tally: OwnedTally? = OwnedTally()
        weak let gone = tally
        tally!.domino.mount(at: node)
        let subscription = node.subscribe(Ping.self, owner: tally!) { tally, event in tally.preconditionIsolated() }
        tally = nil
        #expect(gone == nil)                       // held weakly: no cycle through the node
        #expect(node.post(Ping(value: 1)).deliveries == 0)
        #expect(!subscription.isActive)
    }

    // MARK: The responder chain

    @Test @MainActor func mainActorClassConformsToDominoResponderWithAPlainNextResponder() {
        let parent = MainActorPanel("parent"), child = MainActorPanel("child")
        child.parent = parent
        let log = Log<String>()
        parent.domino.subscribe(Ping.self) { _ in log.append("parent") }
        let result = child.domino.post(Ping(value: 1))
        #expect(log.entries == ["parent"])
        #expect(result.nodesVisited == 2)
    }

    @Test @MainActor func backgroundPostNeverReadsAMainThreadOnlyResponderOffTheMainThread() {
        // Synchronous, holding the main actor throughout: a walk down on the main
        // thread in another test reads every chain, this one's too.
        // coordinator (any thread, node) > screen (main thread only, no node) > application (node)
        let application = SimApplication("app")
        let screen = MainOnlyScreen()
        screen.next = application
        let coordinator = Coordinator(next: screen)
        let coordinatorNode = DominoNode(label: "coordinator", responder: coordinator)
        let log = Log<String>()
        application.dominoNode.subscribe(Ping.self, on: .postingThread) { _ in log.append("app") }
        func postInBackground() -> PostResult {
            onAnotherThread { coordinatorNode.post(Ping(value: 1)) }
        }
        // Before any main-thread read, a background post cannot pass the screen.
        #expect(postInBackground().deliveries == 0)
        // A main-thread post reads the screen's link and reaches the application.
        #expect(coordinatorNode.post(Ping(value: 2)).deliveries == 1)
        // Later background posts follow the links read there.
        #expect(postInBackground().deliveries == 1)
        #expect(postInBackground().deliveries == 1)
        #expect(log.entries == ["app", "app", "app"])
        #expect(!screen.reads.entries.isEmpty)
        #expect(screen.reads.entries.allSatisfy { $0 }, "nextDominoResponder was read off the main thread")
        withExtendedLifetime((application, coordinator)) {}
    }
}

extension DefaultDeliveryTests {
    // Here rather than in IsolatedHandlerTests, so that it is serialized with the
    // tests that change the process-wide default.
    @Test func sendableSubscriberThatNamesNoModeRunsOnThePostingThreadByDefault() async {
        let node = DominoNode(label: "n")
        let handlerThreads = Log<ObjectIdentifier>()
        node.subscribe(Ping.self, on: nil) { _ in handlerThreads.append(ObjectIdentifier(Thread.current)) }
        let (poster, result) = await withCheckedContinuation { (done: CheckedContinuation<(ObjectIdentifier, PostResult), Never>) in
            Thread.detachNewThread {
                let poster = ObjectIdentifier(Thread.current)
                done.resume(returning: (poster, node.post(Ping(value: 1))))
            }
        }
        #expect(result.ran == 1)
        #expect(result.scheduled == 0)
        #expect(handlerThreads.entries == [poster])
    }
}

/// A `@MainActor` class conforms as it is: a plain `var nextDominoResponder`.
@MainActor private final class MainActorPanel: DominoResponder {
    let name: String
    weak var parent: MainActorPanel?
    init(_ name: String) { self.name = name }
    var nextDominoResponder: (any DominoResponder)? { parent }
    lazy var domino = DominoNode(label: name, responder: self)
}

/// A screen without a node whose chain only the main thread may read; it records
/// where each read happened.
@MainActor private final class MainOnlyScreen: DominoResponder {
    weak var next: (any DominoResponder)?
    let reads = Log<Bool>()
    var nextDominoResponder: (any DominoResponder)? {
        reads.append(isOnMainQueue())
        return next
    }
}

/// Not a view: a coordinator whose own link any thread may read; it leads to a
/// main-thread-only screen.
private final class Coordinator: DominoResponder, Sendable {
    let next: MainOnlyScreen
    init(next: MainOnlyScreen) { self.next = next }
    nonisolated var nextDominoResponder: (any DominoResponder)? { next }
    nonisolated static var readsChainOnMainThreadOnly: Bool { false }
}

/// An actor whose handler captures nothing of it.
private actor Listener {
    let log: Log<Int>
    init(log: Log<Int>) { self.log = log }
    func listen(at node: DominoNode) {
        let log = log
        node.subscribe(Ping.self) { event in log.append(event.value) }
    }
}

@Suite("Isolated handlers: lifetime", .checksLeaks)
struct IsolatedHandlerLifetimeTests {
    @Test func actorsHandlerDoesNotKeepTheActorAliveAndIsRemovedWhenItGoes() async {
        let node = DominoNode(label: "n")
        weak var released: Listener?
        do {
            let listener = Listener(log: Log<Int>())
            await listener.listen(at: node)
            released = listener
        }
        #expect(released == nil)
        node.post(Ping(value: 1))
        #expect(node.subscriptionCount == 0)
    }

    @Test func anActorReferenceLoadsTheActorWhileItLivesAndNothingOnceItIsGone() {
        var listener: Listener? = Listener(log: Log<Int>())
        let other = Listener(log: Log<Int>())
        let reference = WeakActor(listener!)
        #expect(reference.value === listener)
        #expect(reference.refers(to: listener!))
        #expect(!reference.refers(to: other))
        #expect(reference.typeName == "Listener")
        listener = nil
        #expect(reference.value == nil)
        #expect(!reference.refers(to: other))
        #expect(reference.typeName == "Listener")
    }
}
