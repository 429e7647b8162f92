import Dispatch
import Testing
@testable import Domino

/// Protocol targets whose methods throw.
protocol SavingEvents: AnyObject, Sendable {
    func save(_ id: Int) throws
    func draft(_ id: Int) throws -> String?
}

final class Saver: SavingEvents, @unchecked Sendable {
    let name: String
    let fails: Bool
    let log: Log<String>

    init(_ name: String, fails: Bool, log: Log<String>) {
        self.name = name
        self.fails = fails
        self.log = log
    }

    func save(_ id: Int) throws {
        log.append("\(name) saves \(id)")
        if fails { throw StorageError(code: id) }
    }

    func draft(_ id: Int) throws -> String? {
        log.append("\(name) drafts \(id)")
        if fails { throw StorageError(code: id) }
        return "\(name) draft \(id)"
    }
}

@Suite("Throwing handlers", .checksLeaks)
struct ThrowingHandlerTests {
    @Test func errorThrownByASubscriberGoesUpTheRouteFromItsNodeAndTheEventGoesOn() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[0].handle(StorageError.self, on: .postingThread) { _ in log.append("error seen below the thrower") }
        nodes[1].subscribe(Ping.self, on: .postingThread) { event in
            log.append("n1 throws")
            throw StorageError(code: event.value)
        }
        nodes[2].subscribe(Ping.self, on: .postingThread) { _ in log.append("n2 heard the event") }
        nodes[2].handle(StorageError.self, on: .postingThread) { error in log.append("n2 handled \(error.code)") }
        let result = nodes[0].post(Ping(value: 4))
        #expect(log.entries == ["n1 throws", "n2 handled 4", "n2 heard the event"])
        #expect(result.deliveries == 2)
    }

    @Test func errorThrownByAnOwnerBoundSubscriberIsReported() {
        final class Owner: Sendable {}
        let node = DominoNode(label: "n")
        let owner = Owner()
        let log = Log<String>()
        node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, event in throw StorageError(code: event.value) }
        node.handle(StorageError.self, on: .postingThread) { error in log.append("handled \(error.code)") }
        node.post(Ping(value: 9))
        #expect(log.entries == ["handled 9"])
        withExtendedLifetime(owner) {}
    }

    @Test func errorNobodyHandlesIsReportedAsUnhandled() {
        let node = DominoNode(label: "n")
        node.subscribe(Ping.self, on: .postingThread) { _ in throw StorageError(code: 1) }
        let diagnostics = Diagnostics.capture { node.post(Ping(value: 1)) }
        #expect(diagnostics.map(\.code) == [.unhandledError])
    }

    @Test func errorThrownByAQueuedSubscriberIsReportedFromItsNodeWhenItRuns() async {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].subscribe(Ping.self, on: .queue(DispatchQueue(label: "work"))) { event in
            throw StorageError(code: event.value)
        }
        nodes[1].handle(StorageError.self, on: .postingThread) { error in log.append("handled \(error.code)") }
        let result = nodes[0].post(Ping(value: 3))
        #expect(result.scheduled == 1)
        #expect(await eventually { log.entries == ["handled 3"] })
    }

    @MainActor @Test func errorThrownByAMainActorSubscriberIsReportedAndCaughtOnTheMainActor() {
        let screen = ErrorScreen()
        let cell = DominoNode(label: "cell")
        cell.mount(at: screen.domino)
        cell.subscribe(Ping.self) { event in throw NetworkError(message: "ping \(event.value)") }
        cell.post(Ping(value: 2))
        #expect(screen.banners == ["ping 2"])
    }

    @Test func errorThrownByAnActorsSubscriberIsReportedFromItsNode() async {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        node.handle(StorageError.self, on: .postingThread) { error in log.append("handled \(error.code)") }
        let thrower = Thrower()
        await thrower.subscribe(at: node)
        node.post(Ping(value: 6))
        #expect(await eventually { log.entries == ["handled 6"] })
        withExtendedLifetime(thrower) {}
    }

    @Test func protocolTargetThatThrowsReportsFromItsNodeAndTheNextTargetIsStillCalled() {
        let nodes = makeChain(3)
        let log = Log<String>()
        let failing = Saver("failing", fails: true, log: log)
        let working = Saver("working", fails: false, log: log)
        nodes[0].subscribe(SavingEvents.self, target: failing, on: .postingThread)
        nodes[1].subscribe(SavingEvents.self, target: working, on: .postingThread)
        nodes[1].handle(StorageError.self, on: .postingThread) { error in log.append("handled \(error.code)") }
        let result = nodes[0].post(SavingEvents.self) { try $0.save(5) }
        #expect(log.entries == ["failing saves 5", "handled 5", "working saves 5"])
        #expect(result.ran == 2)
    }

    @Test func protocolRequestRethrowsWhatATargetThrowsAndAsksNoFurther() {
        let nodes = makeChain(2)
        let log = Log<String>()
        let failing = Saver("failing", fails: true, log: log)
        let working = Saver("working", fails: false, log: log)
        nodes[0].subscribe(SavingEvents.self, target: failing, on: .postingThread)
        nodes[1].subscribe(SavingEvents.self, target: working, on: .postingThread)
        #expect(throws: StorageError(code: 8)) {
            try nodes[0].request(SavingEvents.self) { try $0.draft(8) }
        }
        #expect(log.entries == ["failing drafts 8"])
    }

    @Test func protocolRequestWithoutThrowingCallsNeedsNoTry() {
        let node = DominoNode(label: "n")
        let saver = Saver("s", fails: false, log: Log<String>())
        node.subscribe(SavingEvents.self, target: saver, on: .postingThread)
        let answer: String? = node.request(SavingEvents.self) { _ in "no try needed" }
        #expect(answer == "no try needed")
    }
}

/// An actor whose handler throws.
private actor Thrower {
    func subscribe(at node: DominoNode) {
        node.subscribe(Ping.self) { event in throw StorageError(code: event.value) }
    }
}

@Suite("Throwing signal callbacks", .checksLeaks)
struct ThrowingSignalCallbackTests {
    final class Observer: Sendable {}

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func errorThrownByACallbackGoesUpFromTheSignalsErrorNodeAndTheFireGoesOn() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[1].handle(StorageError.self, on: .postingThread) { error in log.append("handled \(error.code)") }
        let signal = Signal<Int>()
        signal.errorNode = nodes[0]
        let first = Observer(), second = Observer()
        signal.subscribe(first, on: .postingThread) { _, value in throw StorageError(code: value) }
        signal.subscribe(second, on: .postingThread) { _, value in log.append("second got \(value)") }
        signal.fire(7)
        #expect(log.entries == ["handled 7", "second got 7"])
        withExtendedLifetime((first, second)) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func errorThrownByACallbackOfASignalWithoutAnErrorNodeIsReportedAsUnhandled() {
        let signal = Signal<Int>()
        let observer = Observer()
        signal.subscribe(observer, on: .postingThread) { _, value in throw StorageError(code: value) }
        let diagnostics = Diagnostics.capture { signal.fire(1) }
        #expect(diagnostics.map(\.code) == [.unhandledError])
        #expect(diagnostics.first?.message.contains("errorNode") == true)
        withExtendedLifetime(observer) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor @Test func errorThrownByAMainActorCallbackIsCaughtIntoAnEventOnTheMainActor() {
        let screen = ErrorScreen()
        let signal = Signal<String>()
        signal.errorNode = screen.domino
        signal.subscribe(screen) { _, text in throw NetworkError(message: text) }
        signal.fire("offline")
        #expect(screen.banners == ["offline"])
    }
}

enum ProfileError: Error, Equatable { case notSignedIn, offline }

/// A request that can fail: its responders may throw `ProfileError`.
struct FetchProfile: Request {
    typealias Response = String
    typealias Failure = ProfileError
}

/// A main-actor screen that answers `FetchProfile`, or fails it.
@MainActor final class ProfileScreenController {
    let domino = DominoNode(label: "profile")
    var signedIn = false

    init() {
        domino.respond(to: FetchProfile.self, owner: self) { screen, _ throws(ProfileError) in
            guard screen.signedIn else { throw .notSignedIn }
            return "Ann"
        }
    }
}

@Suite("Throwing responders", .checksLeaks)
struct ThrowingResponderTests {
    @Test func responderThatThrowsEndsTheRequestWithItsError() {
        let nodes = makeChain(2)
        let askedAbove = Counter()
        nodes[0].respond(to: FetchProfile.self, on: .postingThread) { _ throws(ProfileError) in throw .offline }
        nodes[1].respond(to: FetchProfile.self, on: .postingThread) { _ in
            askedAbove.increment()
            return "from above"
        }
        #expect(throws: ProfileError.offline) { try nodes[0].request(FetchProfile()) }
        #expect(askedAbove.value == 0)
    }

    @Test func responderThatDeclinesLetsAFailableRequestGoOnUp() throws {
        let nodes = makeChain(2)
        nodes[0].respond(to: FetchProfile.self, on: .postingThread) { _ in nil }
        nodes[1].respond(to: FetchProfile.self, on: .postingThread) { _ in "from above" }
        #expect(try nodes[0].request(FetchProfile()) == "from above")
    }

    @MainActor @Test func mainActorResponderFailsOrAnswersFromItsState() throws {
        let screen = ProfileScreenController()
        #expect(throws: ProfileError.notSignedIn) { try screen.domino.request(FetchProfile()) }
        screen.signedIn = true
        #expect(try screen.domino.request(FetchProfile()) == "Ann")
    }

    @Test func asyncResponderThatThrowsEndsTheAwaitedRequest() async {
        let node = DominoNode(label: "n")
        node.respond(to: FetchProfile.self) { _ async throws(ProfileError) in throw .offline }
        await #expect(throws: ProfileError.offline) { try await node.request(FetchProfile()) }
    }

    @MainActor @Test func awaitedRequestFromAnotherTaskHopsToAMainActorResponderThatThrows() async {
        let screen = ProfileScreenController()
        let node = screen.domino
        let outcome = await Task.detached { () -> String in
            do { return try await node.request(FetchProfile()) ?? "nil" } catch { return "\(error)" }
        }.value
        #expect(outcome == "notSignedIn")
    }

    @Test func cancelledTaskGetsCancellationNotTheResponderAnswer() async {
        let node = DominoNode(label: "n")
        let started = AsyncStream<Void>.makeStream()
        node.respond(to: FetchProfile.self) { _ async throws(ProfileError) in
            started.continuation.yield()
            try? await Task.sleep(nanoseconds: 5_000_000_000)
            return "late"
        }
        let task = Task { try await node.request(FetchProfile()) }
        for await _ in started.stream { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func requestThatCannotFailNeedsNoTry() {
        let node = DominoNode(label: "n")
        node.respond(to: Ask.self, on: .postingThread) { ask in "re: \(ask.question)" }
        let answer: String? = node.request(Ask(question: "q"))
        #expect(answer == "re: q")
    }
}

@Suite("Throwing responders: other errors", .checksLeaks)
struct ThrowingResponderOtherErrorTests {
    @Test func errorThatIsNotTheRequestsFailureGoesUpTheRouteAndTheRequestGoesOn() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].respond(to: Ask.self, on: .postingThread) { _ in throw StorageError(code: 2) }
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in "from above" }
        nodes[1].handle(StorageError.self, on: .postingThread) { error in log.append("handled \(error.code)") }
        let answer = nodes[0].request(Ask(question: "q"))
        #expect(answer == "from above")
        #expect(log.entries == ["handled 2"])
    }

    @Test func awaitedRequestReportsAnotherErrorAndGoesOn() async throws {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].respond(to: Ask.self) { _ async throws in throw StorageError(code: 3) }
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in "from above" }
        nodes[1].handle(StorageError.self, on: .postingThread) { error in log.append("handled \(error.code)") }
        let answer = try await nodes[0].request(Ask(question: "q"))
        #expect(answer == "from above")
        #expect(log.entries == ["handled 3"])
    }
}
