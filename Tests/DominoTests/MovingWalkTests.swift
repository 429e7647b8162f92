import Dispatch
import Foundation
import Testing
@testable import Domino

// Walks that move to where a handler lives: an error reported off the main thread
// that meets a main-actor `receive` or `catch`, and a protocol post to every target.

private let placeKey = DispatchSpecificKey<String>()

/// A serial queue that names itself, so a handler can say where it ran.
private func namedQueue(_ name: String) -> DispatchQueue {
    let queue = DispatchQueue(label: name)
    queue.setSpecific(key: placeKey, value: name)
    return queue
}

/// Marks the main queue, which on Linux a thread other than the first may drain.
private let mainQueueNamed: Void = DispatchQueue.main.setSpecific(key: placeKey, value: "main")

/// The name of the queue running now ("main" for the main queue), or "elsewhere".
func currentPlace() -> String {
    mainQueueNamed
    return DispatchQueue.getSpecific(key: placeKey) ?? (Thread.isMainThread ? "main" : "elsewhere")
}

/// An actor whose `receive` handler decides in its isolation.
private actor SyncCoordinator {
    private(set) var decided: [Int] = []

    func install(at node: DominoNode) {
        node.receive(SyncFailed.self) { error in
            self.decided.append(error.itemID)
            return .handled
        }
    }
}

@Suite("Errors move to the handlers that decide", .checksLeaks)
struct MovingErrorWalkTests {
    @MainActor @Test func errorsArticleInboxRetriesAndCatchesErrorsReportedFromABackgroundTask() async {
        let app = DominoNode(label: "app")
        let inbox = InboxViewController()
        inbox.viewDidLoad()
        inbox.domino.mount(at: app)
        let row = DominoNode(label: "row")
        row.mount(at: inbox.domino)
        let log = Log<String>()
        installLastResort(at: app) { log.append($0) }
        let reports = await Task.detached {
            [row.report(SyncFailed(itemID: 5, isRetryable: true)), row.report(SyncFailed(itemID: 6, isRetryable: false))]
        }.value
        #expect(await eventuallyOnMainActor { inbox.retried == [5] && inbox.banners == ["Item 6 did not sync"] })
        #expect(reports.map(\.outcome.description) == ["continues at inbox on the main actor", "continues at inbox on the main actor"])
        #expect(log.entries.isEmpty)
    }

    @MainActor @Test func errorWalkMeetsHandlersOnQueuesAndTheMainActorInRouteOrder() async {
        let nodes = makeChain(4)
        let log = Log<String>()
        nodes[0].receive(NetworkError.self, on: .queue(namedQueue("a"))) { _ in
            log.append("n0 receive on \(currentPlace())")
            return .notHandled
        }
        nodes[1].receive(NetworkError.self) { _ in
            log.append("n1 receive on \(currentPlace())")
            return .notHandled
        }
        nodes[2].transform(NetworkError.self, on: .queue(namedQueue("b"))) { error in
            log.append("n2 transform on \(currentPlace())")
            return AppError(reason: error.message)
        }
        nodes[3].handle(AppError.self, on: .postingThread) { error in log.append("n3 handle \(error.reason) on \(currentPlace())") }
        let bottom = nodes[0]
        _ = await Task.detached { bottom.report(NetworkError(message: "offline")) }.value
        #expect(await eventuallyOnMainActor { log.count == 4 })
        #expect(log.entries == ["n0 receive on a", "n1 receive on main", "n2 transform on b", "n3 handle offline on b"])
    }

    @Test func actorsReceiveHandlerDecidesAnErrorReportedElsewhereOnItsActor() async {
        let coordinator = SyncCoordinator()
        let node = DominoNode(label: "sync")
        await coordinator.install(at: node)
        let report = node.report(SyncFailed(itemID: 9, isRetryable: true))
        #expect(report.outcome.description == "continues at sync on actor SyncCoordinator")
        var decided: [Int] = []
        for _ in 0..<2_000 where decided.isEmpty {
            decided = await coordinator.decided
            if decided.isEmpty { try? await Task.sleep(nanoseconds: 5_000_000) }
        }
        #expect(decided == [9])
    }

    @MainActor @Test func deciderCancelledBeforeTheMovedWalkReachesItIsPassedBy() async {
        let nodes = makeChain(2)
        let log = Log<String>()
        let decider = nodes[0].receive(NetworkError.self) { _ in
            log.append("cancelled decider ran")
            return .handled
        }
        nodes[1].handle(NetworkError.self, on: .postingThread) { _ in log.append("above") }
        let bottom = nodes[0]
        let report = onAnotherThread { bottom.report(NetworkError(message: "x")) }
        // The walk is on the main queue, behind this test: cancelling now must win.
        decider.cancel()
        #expect(await eventuallyOnMainActor { log.count == 1 })
        #expect(log.entries == ["above"])
        #expect(report.handledAt == nil)
    }

    @MainActor @Test func everyErrorReportedFromBackgroundThreadsIsDecidedExactlyOnce() async {
        let node = DominoNode(label: "screen")
        let top = DominoNode(label: "top")
        node.mount(at: top)
        var decided: [Int] = []
        node.receive(SyncFailed.self) { error in
            decided.append(error.itemID)
            return error.isRetryable ? .handled : .notHandled
        }
        let passedOn = Log<Int>()
        top.handle(SyncFailed.self, on: .postingThread) { passedOn.append($0.itemID) }
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            node.report(SyncFailed(itemID: index, isRetryable: index % 2 == 0))
        }
        #expect(await eventuallyOnMainActor { decided.count == 200 })
        try? await Task.sleep(nanoseconds: 20_000_000)
        #expect(decided.sorted() == Array(0..<200))
        #expect(passedOn.entries.sorted() == Array(stride(from: 1, to: 200, by: 2)))
    }

    @MainActor @Test func walksMovedFromOneThreadToTheMainActorRunInTheOrderTheyWereReported() async {
        let node = DominoNode(label: "screen")
        var decided: [Int] = []
        node.receive(SyncFailed.self) { error in
            decided.append(error.itemID)
            return .handled
        }
        onAnotherThread {
            for itemID in 0..<50 { node.report(SyncFailed(itemID: itemID, isRetryable: true)) }
        }
        #expect(await eventuallyOnMainActor { decided.count == 50 })
        #expect(decided == Array(0..<50))
    }
}

// MARK: - Protocol posts to every target

/// A protocol whose methods may be called from anywhere, with `Sendable` targets.
protocol TransferEvents: AnyObject, Sendable {
    func transferDidProgress(_ percent: Int) throws
}

/// A target that records where it was called.
final class TransferTarget: TransferEvents {
    let name: String
    let log: Log<String>
    init(_ name: String, log: Log<String>) {
        self.name = name
        self.log = log
    }

    func transferDidProgress(_ percent: Int) throws {
        log.append("\(name) \(percent)% on \(currentPlace())")
        if percent < 0 { throw NetworkError(message: "\(name) refused \(percent)") }
    }
}

@Suite("Protocol posts to every target", .checksLeaks)
struct ProtocolPostToEveryTargetTests {
    @MainActor @Test func postToEveryTargetFromABackgroundThreadCallsAMainThreadTargetOnTheMainThread() async {
        let log = Log<String>()
        let node = DominoNode(label: "screen")
        let target = TransferTarget("screen", log: log)
        node.subscribe(TransferEvents.self, target: target, on: .mainThread)
        let result = onAnotherThread { node.post(TransferEvents.self, to: .everyTarget) { try $0.transferDidProgress(40) } }
        #expect(result.ran == 0)
        #expect(result.continuesAt == "screen on the main thread")
        #expect(await eventuallyOnMainActor { log.count == 1 })
        #expect(log.entries == ["screen 40% on main"])
        withExtendedLifetime(target) {}
    }

    @MainActor @Test func postToEveryTargetCallsTargetsInRouteOrderEachWhereItLives() async {
        let log = Log<String>()
        let nodes = makeChain(4)
        let targets = [
            TransferTarget("n0", log: log), TransferTarget("n1", log: log),
            TransferTarget("n2", log: log), TransferTarget("n3", log: log),
        ]
        nodes[0].subscribe(TransferEvents.self, target: targets[0], on: .queue(namedQueue("a")))
        nodes[1].subscribe(TransferEvents.self, target: targets[1], on: .mainThread)
        nodes[2].subscribe(TransferEvents.self, target: targets[2], on: .postingThread)
        nodes[3].subscribe(TransferEvents.self, target: targets[3], on: .queue(namedQueue("b")))
        let bottom = nodes[0]
        _ = onAnotherThread { bottom.post(TransferEvents.self, to: .everyTarget) { try $0.transferDidProgress(70) } }
        #expect(await eventuallyOnMainActor { log.count == 4 })
        #expect(log.entries == ["n0 70% on a", "n1 70% on main", "n2 70% on main", "n3 70% on b"])
        withExtendedLifetime(targets) {}
    }

    @MainActor @Test func postToEveryTargetFromWhereTheTargetsLiveCallsThemInPlace() {
        let log = Log<String>()
        let nodes = makeChain(2)
        let targets = [TransferTarget("n0", log: log), TransferTarget("n1", log: log)]
        nodes[0].subscribe(TransferEvents.self, target: targets[0], on: .mainThread)
        nodes[1].subscribe(TransferEvents.self, target: targets[1], on: .postingThread)
        let result = nodes[0].post(TransferEvents.self, to: .everyTarget) { try $0.transferDidProgress(10) }
        #expect(log.entries == ["n0 10% on main", "n1 10% on main"])
        #expect(result.ran == 2)
        #expect(result.continuesAt == nil)
        withExtendedLifetime(targets) {}
    }

    @Test func postToEveryTargetReachesAnActorsTargetFromElsewhere() async {
        let counter = TickCounter()
        await counter.subscribe()
        let node = counter.domino
        let result = node.post(ActorEvents.self, to: .everyTarget) { $0.didTick(4) }
        #expect(result.continuesAt == "ticks on actor TickCounter")
        var total = 0
        for _ in 0..<2_000 where total == 0 {
            total = await counter.total
            if total == 0 { try? await Task.sleep(nanoseconds: 5_000_000) }
        }
        #expect(total == 4)
    }

    @MainActor @Test func targetDeallocatedBeforeTheMovedWalkReachesItIsNotCalled() async {
        let log = Log<String>()
        let nodes = makeChain(2)
        var gone: TransferTarget? = TransferTarget("gone", log: log)
        let stays = TransferTarget("stays", log: log)
        nodes[0].subscribe(TransferEvents.self, target: gone!, on: .mainThread)
        nodes[1].subscribe(TransferEvents.self, target: stays, on: .postingThread)
        let bottom = nodes[0]
        _ = onAnotherThread { bottom.post(TransferEvents.self, to: .everyTarget) { try $0.transferDidProgress(1) } }
        gone = nil
        #expect(await eventuallyOnMainActor { log.count == 1 })
        #expect(log.entries == ["stays 1% on main"])
        withExtendedLifetime(stays) {}
    }

    @MainActor @Test func interceptorStopsAMovedWalkAtItsNode() async {
        let log = Log<String>()
        let nodes = makeChain(2)
        let targets = [TransferTarget("n0", log: log), TransferTarget("n1", log: log)]
        nodes[0].subscribe(TransferEvents.self, target: targets[0], on: .mainThread)
        nodes[0].intercept(protocol: TransferEvents.self) { _ in .stop }
        nodes[1].subscribe(TransferEvents.self, target: targets[1], on: .postingThread)
        let bottom = nodes[0]
        _ = onAnotherThread { bottom.post(TransferEvents.self, to: .everyTarget) { try $0.transferDidProgress(5) } }
        #expect(await eventuallyOnMainActor { log.count == 1 })
        try? await Task.sleep(nanoseconds: 20_000_000)
        #expect(log.entries == ["n0 5% on main"])
        withExtendedLifetime(targets) {}
    }

    @MainActor @Test func errorThrownByATargetOfAMovedWalkGoesUpFromItsNode() async {
        let log = Log<String>()
        let nodes = makeChain(2)
        let target = TransferTarget("n0", log: log)
        nodes[0].subscribe(TransferEvents.self, target: target, on: .mainThread)
        nodes[1].handle(NetworkError.self, on: .postingThread) { error in log.append("caught \(error.message)") }
        let bottom = nodes[0]
        _ = onAnotherThread { bottom.post(TransferEvents.self, to: .everyTarget) { try $0.transferDidProgress(-1) } }
        #expect(await eventuallyOnMainActor { log.count == 2 })
        #expect(log.entries == ["n0 -1% on main", "caught n0 refused -1"])
        withExtendedLifetime(target) {}
    }

    @MainActor @Test func postInPlaceOffTheMainThreadNamesThePostToEveryTargetInItsDiagnostic() {
        let log = Log<String>()
        let node = DominoNode(label: "screen")
        let target = TransferTarget("screen", log: log)
        node.subscribe(TransferEvents.self, target: target, on: .mainThread)
        let diagnostics = onAnotherThread {
            Diagnostics.capture { node.post(TransferEvents.self) { try $0.transferDidProgress(1) } }
        }
        #expect(diagnostics.map(\.code) == [.targetSkipped])
        #expect(diagnostics.first?.message.contains("post(TransferEvents.self, to: .everyTarget)") == true)
        #expect(log.entries.isEmpty)
        withExtendedLifetime(target) {}
    }

    @MainActor @Test func manyPostsToEveryTargetFromManyThreadsCallEachTargetOncePerPost() async {
        let log = Log<String>()
        let nodes = makeChain(3)
        let targets = [TransferTarget("n0", log: log), TransferTarget("n1", log: log), TransferTarget("n2", log: log)]
        nodes[0].subscribe(TransferEvents.self, target: targets[0], on: .queue(namedQueue("a")))
        nodes[1].subscribe(TransferEvents.self, target: targets[1], on: .mainThread)
        nodes[2].subscribe(TransferEvents.self, target: targets[2], on: .background)
        let bottom = nodes[0]
        DispatchQueue.concurrentPerform(iterations: 100) { index in
            bottom.post(TransferEvents.self, to: .everyTarget) { try $0.transferDidProgress(index) }
        }
        #expect(await eventuallyOnMainActor { log.count == 300 })
        try? await Task.sleep(nanoseconds: 20_000_000)
        for name in ["n0", "n1", "n2"] {
            let percents = log.entries.filter { $0.hasPrefix(name + " ") }.map { Int($0.split(separator: " ")[1].dropLast())! }
            #expect(percents.sorted() == Array(0..<100), "\(name)")
        }
        // Each post reaches n0, then n1, then n2.
        for index in 0..<100 {
            let order = log.entries.filter { $0.split(separator: " ")[1] == "\(index)%" }.map { String($0.prefix(2)) }
            #expect(order == ["n0", "n1", "n2"])
        }
        withExtendedLifetime(targets) {}
    }
}

// MARK: - From another actor, and to main-actor targets of a nonisolated protocol

/// A nonisolated protocol, which a main-actor screen conforms to in its isolation.
protocol SyncEvents: AnyObject {
    func syncDidFinish(count: Int)
}

@MainActor final class SyncScreen: @MainActor SyncEvents {
    let domino = DominoNode(label: "sync screen")
    var finished: [Int] = []

    init() { domino.subscribe(SyncEvents.self, target: self) }

    func syncDidFinish(count: Int) { finished.append(count) }
}

/// An actor that reports and posts from its own isolation.
private actor SyncEngine {
    func finish(at node: DominoNode, count: Int) -> PostResult {
        node.post(SyncEvents.self, to: .everyTarget) { $0.syncDidFinish(count: count) }
    }

    func fail(at node: DominoNode, itemID: Int) -> ErrorReport {
        node.report(SyncFailed(itemID: itemID, isRetryable: true))
    }
}

@Suite("Walks that move, from an actor", .checksLeaks)
struct MovingWalkFromAnActorTests {
    @MainActor @Test func postToEveryTargetFromAnActorCallsAMainActorTargetOnTheMainActor() async {
        let screen = SyncScreen()
        let result = await SyncEngine().finish(at: screen.domino, count: 12)
        #expect(result.continuesAt == "sync screen on the main actor")
        #expect(await eventuallyOnMainActor { screen.finished == [12] })
    }

    @MainActor @Test func errorReportedFromAnActorIsDecidedByTheInboxOnTheMainActor() async {
        let inbox = InboxViewController()
        inbox.viewDidLoad()
        let report = await SyncEngine().fail(at: inbox.domino, itemID: 4)
        #expect(report.outcome.description == "continues at inbox on the main actor")
        #expect(await eventuallyOnMainActor { inbox.retried == [4] })
    }

    @MainActor @Test func errorReportedFromAQueueIsDecidedByTheInboxOnTheMainActor() async {
        let inbox = InboxViewController()
        inbox.viewDidLoad()
        let node = inbox.domino
        DispatchQueue(label: "sync").async { node.report(SyncFailed(itemID: 8, isRetryable: true)) }
        #expect(await eventuallyOnMainActor { inbox.retried == [8] })
    }
}

// MARK: - Stress

/// What the moved-walk stress run saw: per handler, when it was subscribed and when
/// its cancel returned, and which walks reached it.
private final class MovedWalkLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var clock = 0
    private var nextID = 0
    private(set) var cancelledAt: [Int: Int] = [:]
    private(set) var reached: [Int: [Int: Int]] = [:]   // handler -> walk -> times
    private(set) var started: [Int: Int] = [:]         // walk -> tick it started

    func tick() -> Int { lock.withLock { clock += 1; return clock } }
    func newID() -> Int { lock.withLock { nextID += 1; return nextID } }
    func start(_ walk: Int) { lock.withLock { clock += 1; started[walk] = clock } }
    func cancelled(_ handler: Int) { lock.withLock { clock += 1; cancelledAt[handler] = clock } }
    func reach(_ handler: Int, walk: Int) { lock.withLock { reached[handler, default: [:]][walk, default: 0] += 1 } }
}

/// The walk's id, carried by its error or by its post's closure.
private struct StressFailure: Error { var walk: Int }

protocol StressTargetEvents: AnyObject, Sendable {
    func reach(walk: Int)
}

private final class StressTarget: StressTargetEvents {
    let id: Int
    let ledger: MovedWalkLedger
    init(id: Int, ledger: MovedWalkLedger) {
        self.id = id
        self.ledger = ledger
    }
    func reach(walk: Int) { ledger.reach(id, walk: walk) }
}

@Suite("Stress: walks that move, racing cancels and deallocations", .checksLeaks)
struct MovedWalkStressTests {
    @Test func movedWalksNeverReachAHandlerTwiceOrAfterItsCancelReturned() {
        let ledger = MovedWalkLedger()
        let queues = (0..<2).map { DispatchQueue(label: "moved.stress.\($0)") }
        let chain = makeChain(6, prefix: "m")
        chain[5].handle(StressFailure.self, on: .postingThread) { _ in }
        runConcurrently(4) { worker in
            var random = SeededGenerator(seed: 0x4D_0000 + UInt64(worker))
            var deciders: [(id: Int, subscription: Subscription)] = []
            var targets: [(id: Int, target: StressTarget, subscription: Subscription)] = []
            for _ in 0..<4_000 {
                let node = chain[Int.random(in: 0..<5, using: &random)]
                let queue = queues[Int.random(in: 0..<2, using: &random)]
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<25:
                    let walk = ledger.newID()
                    ledger.start(walk)
                    node.report(StressFailure(walk: walk))
                case 25..<50:
                    let walk = ledger.newID()
                    ledger.start(walk)
                    node.post(StressTargetEvents.self, to: .everyTarget) { $0.reach(walk: walk) }
                case 50..<62:
                    let id = ledger.newID()
                    let subscription = node.receive(StressFailure.self, on: .queue(queue)) { failure in
                        ledger.reach(id, walk: failure.walk)
                        return .notHandled
                    }
                    deciders.append((id, subscription))
                case 62..<74:
                    let id = ledger.newID()
                    let target = StressTarget(id: id, ledger: ledger)
                    let subscription = node.subscribe(StressTargetEvents.self, target: target, on: .queue(queue))
                    targets.append((id, target, subscription))
                case 74..<87 where !deciders.isEmpty:
                    let (id, subscription) = deciders.remove(at: Int.random(in: 0..<deciders.count, using: &random))
                    subscription.cancel()
                    ledger.cancelled(id)
                case 87..<100 where !targets.isEmpty:
                    // Half cancelled, half dropped: a target that deallocates ends too.
                    let (id, _, subscription) = targets.remove(at: Int.random(in: 0..<targets.count, using: &random))
                    if Bool.random(using: &random) { subscription.cancel() }
                    ledger.cancelled(id)
                default:
                    break
                }
            }
            for (_, subscription) in deciders { subscription.cancel() }
            for (_, _, subscription) in targets { subscription.cancel() }
        }
        // A walk may move from one queue to the other and back: drain both until two
        // rounds in a row reach nobody new.
        var quiet = 0, total = -1
        while quiet < 2 {
            for queue in queues { queue.sync {} }
            let now = ledger.reached.values.reduce(0) { $0 + $1.values.reduce(0, +) }
            quiet = now == total ? quiet + 1 : 0
            total = now
        }

        var twice = 0, afterCancel = 0
        for (handler, walks) in ledger.reached {
            for (walk, times) in walks {
                if times > 1 { twice += 1 }
                if let cancelled = ledger.cancelledAt[handler], let started = ledger.started[walk], started > cancelled {
                    afterCancel += 1
                }
            }
        }
        #expect(twice == 0, "handlers reached twice by one walk")
        #expect(afterCancel == 0, "walks that started after a cancel returned reached the handler")
        #expect(ledger.reached.values.reduce(0) { $0 + $1.count } > 1_000, "the run moved walks to handlers")
    }
}

/// The global diagnostics handler is shared: a test that installs it joins the
/// suite whose other tests replace it, which runs one test at a time (run beside
/// them, another test's reset dropped this one's diagnostic in a CI run).
extension LockReleaseTests {
    @MainActor @Test func unhandledErrorOfAMovedWalkIsReportedWhereTheWalkEnds() async {
        let nodes = makeChain(2, prefix: "moved-unhandled")
        nodes[0].receive(NetworkError.self) { _ in .notHandled }
        let bottom = nodes[0]
        // The walk ends on the main queue, outside any capture: the global handler
        // hears it. Other tests' diagnostics are told apart by the node's label.
        let codes = Log<Diagnostic.Code>()
        Diagnostics.setHandler { diagnostic in
            if diagnostic.message.contains("moved-unhandled0") { codes.append(diagnostic.code) }
        }
        defer { Diagnostics.resetHandler() }
        _ = onAnotherThread { bottom.report(NetworkError(message: "x")) }
        #expect(await eventuallyOnMainActor { codes.count == 1 })
        #expect(codes.entries == [.unhandledError])
    }
}
