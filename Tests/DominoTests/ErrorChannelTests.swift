import Dispatch
import Testing
@testable import Domino

struct NetworkError: Error, Equatable { var message: String }
struct StorageError: Error, Equatable { var code: Int }
struct AppError: Error, Equatable { var reason: String }
struct ShowBanner: Event { var text: String }

@Suite("Errors up the chain", .checksLeaks)
struct ErrorChannelTests {
    @Test func reportedErrorIsHandledByTheFirstHandlerOfItsTypeUpTheRouteAndGoesNoFurther() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[1].handle(NetworkError.self, on: .postingThread) { error in log.append("n1:\(error.message)") }
        nodes[2].handle(NetworkError.self, on: .postingThread) { error in log.append("n2:\(error.message)") }
        let report = nodes[0].report(NetworkError(message: "offline"))
        #expect(log.entries == ["n1:offline"])
        #expect(report.handledAt == nodes[1].description)
        #expect(report.isHandled)
    }

    @Test func handlerOfAnotherErrorTypeIsPassedBy() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].handle(StorageError.self, on: .postingThread) { _ in log.append("storage") }
        nodes[1].handle(NetworkError.self, on: .postingThread) { _ in log.append("network") }
        nodes[0].report(NetworkError(message: "x"))
        #expect(log.entries == ["network"])
    }

    @Test func anyErrorHandlerTakesEveryError() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        node.handle((any Error).self, on: .postingThread) { error in log.append("\(type(of: error))") }
        node.report(NetworkError(message: "x"))
        node.report(StorageError(code: 1))
        #expect(log.entries == ["NetworkError", "StorageError"])
    }

    @Test func handlersAtOneNodeRunInTheOrderTheyWereAdded() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        node.receive(NetworkError.self, on: .postingThread) { _ in log.append("first"); return .notHandled }
        node.receive(NetworkError.self, on: .postingThread) { _ in log.append("second"); return .handled }
        node.receive(NetworkError.self, on: .postingThread) { _ in log.append("third"); return .handled }
        node.report(NetworkError(message: "x"))
        #expect(log.entries == ["first", "second"])
    }

    @Test func receiveThatDoesNotHandleLetsTheErrorGoOnUp() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].receive(NetworkError.self, on: .postingThread) { _ in log.append("saw"); return .notHandled }
        nodes[1].handle(NetworkError.self, on: .postingThread) { _ in log.append("handled above") }
        let report = nodes[0].report(NetworkError(message: "x"))
        #expect(log.entries == ["saw", "handled above"])
        #expect(report.handledAt == nodes[1].description)
    }

    @Test func transformReplacesTheErrorForTheHandlersAfterItAndTheNodesAbove() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].transform(NetworkError.self, on: .postingThread) { error in AppError(reason: "network: \(error.message)") }
        nodes[0].handle(NetworkError.self, on: .postingThread) { _ in log.append("network handler") }
        nodes[1].handle(AppError.self, on: .postingThread) { error in log.append(error.reason) }
        let report = nodes[0].report(NetworkError(message: "offline"))
        #expect(log.entries == ["network: offline"])
        #expect(report.error as? AppError == AppError(reason: "network: offline"))
    }

    @Test func transformsChainUpTheRoute() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[0].transform(StorageError.self, on: .postingThread) { error in NetworkError(message: "disk \(error.code)") }
        nodes[1].transform(NetworkError.self, on: .postingThread) { error in AppError(reason: error.message) }
        nodes[2].handle(AppError.self, on: .postingThread) { error in log.append(error.reason) }
        nodes[0].report(StorageError(code: 28))
        #expect(log.entries == ["disk 28"])
    }

    @Test func catchTurnsTheErrorIntoAnEventPostedFromItsOwnNode() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[1].catch(NetworkError.self, on: .postingThread) { error in ShowBanner(text: error.message) }
        for (index, node) in nodes.enumerated() {
            node.subscribe(ShowBanner.self, on: .postingThread) { event in log.append("n\(index):\(event.text)") }
        }
        nodes[2].handle(NetworkError.self, on: .postingThread) { _ in log.append("error went on") }
        let report = nodes[0].report(NetworkError(message: "offline"))
        #expect(log.entries == ["n1:offline", "n2:offline"])
        #expect((report.caughtEvent as? ShowBanner)?.text == "offline")
        #expect(report.handledAt == nodes[1].description)
    }

    @Test func twoScreensNeverSeeEachOthersErrors() {
        let app = DominoNode(label: "app")
        let inbox = DominoNode(label: "inbox"), settings = DominoNode(label: "settings")
        inbox.mount(at: app)
        settings.mount(at: app)
        let log = Log<String>()
        inbox.handle(NetworkError.self, on: .postingThread) { error in log.append("inbox:\(error.message)") }
        settings.handle(NetworkError.self, on: .postingThread) { error in log.append("settings:\(error.message)") }
        let inboxCell = DominoNode(label: "inbox cell"), settingsCell = DominoNode(label: "settings cell")
        inboxCell.mount(at: inbox)
        settingsCell.mount(at: settings)
        inboxCell.report(NetworkError(message: "a"))
        settingsCell.report(NetworkError(message: "b"))
        #expect(log.entries == ["inbox:a", "settings:b"])
    }

    @Test func unhandledErrorIsReportedWithTheErrorItsNodeAndItsRoute() {
        let nodes = makeChain(3)
        nodes[1].handle(StorageError.self, on: .postingThread) { _ in }
        var report: ErrorReport?
        let diagnostics = Diagnostics.capture {
            report = nodes[0].report(NetworkError(message: "offline"))
        }
        #expect(report?.isHandled == false)
        #expect(report?.nodesVisited == 3)
        #expect(diagnostics.map(\.code) == [.unhandledError])
        let message = diagnostics.first?.message ?? ""
        #expect(message.contains("NetworkError(message: \"offline\")"))
        #expect(message.contains("reported at \(nodes[0])"))
        #expect(message.contains("\(nodes[0]) → \(nodes[1]) → \(nodes[2])"))
    }

    @Test func errorReportedInsideAnErrorHandlerIsANestedReportAndARunawayIsCutOff() {
        let node = DominoNode(label: "n")
        let count = Counter()
        node.handle(NetworkError.self, on: .postingThread) { [weak node] error in
            count.increment()
            node?.report(error)
        }
        let diagnostics = Diagnostics.capture { node.report(NetworkError(message: "loop")) }
        #expect(count.value == DominoNode.maximumNestingDepth)
        #expect(diagnostics.map(\.code) == [.nestingLimitExceeded])
    }

    @Test func cancelledHandlerNoLongerTakesErrors() {
        let node = DominoNode(label: "n")
        let subscription = node.handle(NetworkError.self, on: .postingThread) { _ in Issue.record("cancelled handler ran") }
        subscription.cancel()
        let diagnostics = Diagnostics.capture { node.report(NetworkError(message: "x")) }
        #expect(diagnostics.map(\.code) == [.unhandledError])
    }

    @Test func ownerBoundHandlerEndsWithItsOwner() {
        final class Owner: Sendable {}
        let node = DominoNode(label: "n")
        var owner: Owner? = Owner()
        node.handle(NetworkError.self, owner: owner!, on: .postingThread) { _, _ in Issue.record("the owner is gone") }
        owner = nil
        let diagnostics = Diagnostics.capture { node.report(NetworkError(message: "x")) }
        #expect(diagnostics.map(\.code) == [.unhandledError])
        #expect(node.subscriptionCount == 0)
    }

    @Test func tracedReportRecordsTheReportTheTransformAndTheHandling() {
        let nodes = makeChain(2)
        nodes[0].transform(NetworkError.self, on: .postingThread) { _ in AppError(reason: "r") }
        nodes[1].handle(AppError.self, on: .postingThread) { _ in }
        nodes[0].isTracing = true
        nodes[1].isTracing = true
        let records = Tracing.capture { nodes[0].report(NetworkError(message: "m")) }
        #expect(records.map(\.kind) == [.reported, .transformed(from: "NetworkError(message: \"m\")", to: "AppError(reason: \"r\")"), .handled])
        #expect(records.last?.node == nodes[1].description)
    }

    @Test func handlerOnAQueueHandlesAnErrorReportedElsewhereAndRunsOnItsQueue() async {
        let node = DominoNode(label: "n")
        let queue = DispatchQueue(label: "errors")
        let ranOnQueue = Log<Bool>()
        queue.setSpecific(key: errorQueueKey, value: 1)
        node.handle(NetworkError.self, on: .queue(queue)) { _ in ranOnQueue.append(DispatchQueue.getSpecific(key: errorQueueKey) == 1) }
        let report = node.report(NetworkError(message: "x"))
        #expect(report.isHandled)
        #expect(await eventually { ranOnQueue.count == 1 })
        #expect(ranOnQueue.entries == [true])
    }

    @Test func receiveOnAQueueDecidesAnErrorReportedElsewhereOnItsQueue() async {
        let nodes = makeChain(2)
        let log = Log<String>()
        let queue = DispatchQueue(label: "elsewhere")
        queue.setSpecific(key: errorQueueKey, value: 2)
        nodes[0].receive(NetworkError.self, on: .queue(queue)) { error in
            log.append(DispatchQueue.getSpecific(key: errorQueueKey) == 2 ? "decided on its queue" : "decided elsewhere")
            return error.message == "retry" ? .handled : .notHandled
        }
        nodes[1].handle(NetworkError.self, on: .postingThread) { error in log.append("above: \(error.message)") }
        let retried = nodes[0].report(NetworkError(message: "retry"))
        #expect(await eventually { log.count == 1 })
        nodes[0].report(NetworkError(message: "give up"))
        #expect(await eventually { log.count == 3 })
        #expect(log.entries == ["decided on its queue", "decided on its queue", "above: give up"])
        guard case .continues(let node, let place) = retried.outcome else {
            Issue.record("expected the walk to move, got \(retried.outcome)")
            return
        }
        #expect(node == nodes[0].description)
        #expect(place == "queue elsewhere")
        #expect(!retried.isHandled)
    }
}

private let errorQueueKey = DispatchSpecificKey<Int>()

extension ErrorReport {
    /// The event a `catch` handler turned the error into, for tests.
    var caughtEvent: (any Event)? {
        if case .caught(let event, _) = outcome { return event }
        return nil
    }
}

/// A main-actor screen that handles, receives and catches its errors with
/// main-actor state, as app code does.
@MainActor final class ErrorScreen {
    let domino = DominoNode(label: "screen")
    var banners: [String] = []
    var handled: [String] = []

    init() {
        domino.handle(StorageError.self, owner: self) { screen, error in
            screen.handled.append("storage \(error.code)")
        }
        domino.catch(NetworkError.self) { error in ShowBanner(text: error.message) }
        domino.subscribe(ShowBanner.self, owner: self) { screen, event in
            screen.banners.append(event.text)
        }
    }
}

@Suite("Errors up the chain in main-actor code", .checksLeaks)
struct MainActorErrorTests {
    @MainActor @Test func mainActorHandlersHandleAndCatchInPlaceWhenReportedOnTheMainActor() {
        let screen = ErrorScreen()
        let cell = DominoNode(label: "cell")
        cell.mount(at: screen.domino)
        cell.report(StorageError(code: 5))
        let report = cell.report(NetworkError(message: "offline"))
        #expect(screen.handled == ["storage 5"])
        #expect(screen.banners == ["offline"])
        #expect(report.caughtEvent is ShowBanner)
    }

    @MainActor @Test func mainActorHandleRunsOnTheMainActorWhenReportedFromAnotherThread() async {
        let screen = ErrorScreen()
        let node = screen.domino
        let report = await Task.detached { node.report(StorageError(code: 7)) }.value
        #expect(report.isHandled)
        #expect(await eventuallyOnMainActor { screen.handled == ["storage 7"] })
    }

    @MainActor @Test func mainActorCatchCatchesAnErrorReportedFromAnotherThreadOnTheMainActor() async {
        let screen = ErrorScreen()
        let node = screen.domino
        let (report, codes) = await Task.detached {
            var report: ErrorReport?
            let codes = Diagnostics.capture { report = node.report(NetworkError(message: "offline")) }.map(\.code)
            return (report, codes)
        }.value
        #expect(codes.isEmpty)
        #expect(report?.outcome.description == "continues at screen on the main actor")
        #expect(await eventuallyOnMainActor { screen.banners == ["offline"] })
    }
}
