import Foundation
import Testing
@testable import Domino

/// Collects what a task consumed, readable from the test.
private func consume<S: AsyncSequence & Sendable>(_ stream: S, into log: Log<String>, limit: Int = .max) -> Task<Void, Never> where S.Element: Sendable {
    Task {
        var count = 0
        do {
            for try await element in stream {
                log.append("\(element)")
                count += 1
                if count == limit { break }
            }
        } catch {
            log.append("error")
        }
        log.append("end")
    }
}

struct LoadProfile: Request {
    typealias Response = String
    var user: String
}

@Suite("Swift concurrency: async sequences, async requests, main-actor handlers", .checksLeaks)
struct SwiftConcurrencyTests {
    // MARK: Async sequences

    @Test func streamYieldsTheEventsThatReachTheNodeInPostingOrder() async {
        let nodes = makeChain(2)
        let stream = nodes[1].stream(of: Ping.self)
        let log = Log<String>()
        let task = consume(stream, into: log, limit: 3)
        for value in 1...3 { nodes[0].post(Ping(value: value)) }
        await task.value
        #expect(log.entries == ["Ping(value: 1)", "Ping(value: 2)", "Ping(value: 3)", "end"])
    }

    @Test func streamEndsWhenTheNodeDeallocates() async {
        var node: DominoNode? = DominoNode(label: "n")
        let log = Log<String>()
        let task = consume(node!.stream(of: Ping.self), into: log)
        node!.post(Ping(value: 1))
        let weakNode = WeakBox(node)
        node = nil
        await task.value
        #expect(weakNode.value == nil)
        #expect(log.entries == ["Ping(value: 1)", "end"])
    }

    @Test func cancellingTheConsumingTaskEndsTheStreamAndRemovesItsSubscription() async {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let task = consume(node.stream(of: Ping.self), into: log)
        #expect(node.subscriptionCount == 1)
        task.cancel()
        await task.value
        #expect(await eventually { node.subscriptionCount == 0 })
        #expect(log.entries == ["end"])
    }

    @Test func droppingAStreamRemovesItsSubscription() async {
        let node = DominoNode(label: "n")
        do {
            let stream = node.stream(of: Ping.self)
            #expect(node.subscriptionCount == 1)
            _ = stream
        }
        #expect(await eventually { node.subscriptionCount == 0 })
    }

    @Test func leavingTheLoopEndsTheSubscriptionWhileTheSequenceIsStillInScope() async {
        let node = DominoNode(label: "n")
        let changes = node.stream(of: Ping.self)
        node.post(Ping(value: 1))
        for await _ in changes { break }
        #expect(node.subscriptionCount == 0)
        #expect(node.post(Ping(value: 2)).deliveries == 0)
        withExtendedLifetime(changes) {}
    }

    @Test func theFirstLoopReceivesWhatWasPostedSinceTheSequenceWasMade() async {
        let node = DominoNode(label: "n")
        let stream = node.stream(of: Ping.self)
        node.post(Ping(value: 1))
        #expect(node.subscriptionCount == 1)
        var iterator = stream.makeAsyncIterator()
        #expect(node.subscriptionCount == 1)
        #expect(await iterator.next()?.value == 1)
    }

    @Test func aLaterLoopOverTheSameSequenceSubscribesAnewWhenItStarts() async {
        let node = DominoNode(label: "n")
        let stream = node.stream(of: Ping.self)
        node.post(Ping(value: 0))
        for await _ in stream { break }
        node.post(Ping(value: 1))   // between the loops: nobody listens
        var iterator = stream.makeAsyncIterator()
        #expect(node.subscriptionCount == 1)
        node.post(Ping(value: 2))
        #expect(await iterator.next()?.value == 2)
    }

    @Test func twoLoopsAtOnceEachReceiveEveryEvent() async {
        let node = DominoNode(label: "n")
        let stream = node.stream(of: Ping.self)
        var first = stream.makeAsyncIterator()
        var second = stream.makeAsyncIterator()
        #expect(node.subscriptionCount == 2)
        node.post(Ping(value: 1))
        #expect(await first.next()?.value == 1)
        #expect(await second.next()?.value == 1)
    }

    @Test func loopsStartedOnManyThreadsAtOnceEachOwnOneSubscription() {
        for _ in 0..<300 {
            let node = DominoNode(label: "n")
            let stream = node.stream(of: Ping.self)
            let iterators = Mutex<[EventStream<Ping>.Iterator]>([])
            runConcurrently(4) { _ in
                let iterator = stream.makeAsyncIterator()
                iterators.withLock { $0.append(iterator) }
            }
            // One took over the subscription the stream made, three subscribed anew:
            // none shared it, none left it behind.
            #expect(node.subscriptionCount == 4)
            iterators.withLock { $0.removeAll() }
            #expect(node.subscriptionCount == 0)
        }
    }

    @Test func aLoopStartedAfterTheNodeDeallocatedEndsAtOnce() async {
        var node: DominoNode? = DominoNode(label: "n")
        let stream = node!.stream(of: Ping.self)
        node!.post(Ping(value: 0))
        for await _ in stream { break }
        node = nil
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test func unsubscribingEndsTheStream() async {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let task = consume(node.stream(of: Ping.self), into: log)
        node.unsubscribe(Ping.self)
        await task.value
        #expect(log.entries == ["end"])
    }

    @Test func unboundedBufferKeepsEveryEventPostedBeforeTheConsumerStarts() async {
        let node = DominoNode(label: "n")
        let stream = node.stream(of: Ping.self)
        for value in 1...100 { node.post(Ping(value: value)) }
        var seen: [Int] = []
        for await event in stream {
            seen.append(event.value)
            if seen.count == 100 { break }
        }
        #expect(seen == Array(1...100))
    }

    @Test func bufferingNewestKeepsOnlyTheLatestEvents() async {
        let node = DominoNode(label: "n")
        let stream = node.stream(of: Ping.self, bufferingPolicy: .bufferingNewest(2))
        for value in 1...5 { node.post(Ping(value: value)) }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.value == 4)
        #expect(await iterator.next()?.value == 5)
    }

    @Test func namedEventStreamYieldsNamedEvents() async {
        let node = DominoNode(label: "n")
        let stream = node.stream(named: "Statistics")
        node.post("Statistics", ["msg": "did load"])
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.value("msg", as: String.self) == "did load")
    }

    @Test func streamsFromManyThreadsReceiveEveryEvent() async {
        let node = DominoNode(label: "n")
        let stream = node.stream(of: Ping.self)
        runConcurrently(4) { worker in
            for value in 0..<1_000 { node.post(Ping(value: worker * 1_000 + value)) }
        }
        var seen = Set<Int>()
        for await event in stream {
            seen.insert(event.value)
            if seen.count == 4_000 { break }
        }
        #expect(seen.count == 4_000)
    }

    // MARK: A signal's fires

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func signalStreamYieldsEachFireInOrder() async {
        let signal = Signal<String, Int?>()
        var seen: [String] = []
        do {
            let firings = signal.stream()
            signal.fire("a", 1)
            signal.fire("b", nil)
            for await (text, number) in firings {
                seen.append("\(text):\(number.map(String.init) ?? "nil")")
                if seen.count == 2 { break }
            }
        }
        // The loop is over: its subscription was removed.
        #expect(seen == ["a:1", "b:nil"])
        #expect(await eventually { signal.subscriptionCount == 0 })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func leavingTheLoopOverASignalStreamEndsItsSubscriptionWhileTheSequenceIsStillInScope() async {
        let signal = IntegerSignal()
        let fires = signal.stream()
        signal.fire(1)
        for await _ in fires { break }
        #expect(signal.subscriptionCount == 0)
        withExtendedLifetime(fires) {}
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func signalStreamEndsWhenTheSignalDeallocates() async {
        var signal: IntegerSignal? = IntegerSignal()
        let firings = signal!.stream()
        signal!.fire(1)
        let weakSignal = WeakBox(signal)
        signal = nil
        var seen: [Int] = []
        for await value in firings { seen.append(value) }
        #expect(seen == [1])
        #expect(weakSignal.value == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func cancellingTheConsumerOfASignalRemovesItsObservation() async {
        let signal = IntegerSignal()
        let log = Log<String>()
        let task = consume(signal.stream(), into: log)
        #expect(signal.subscriptionCount == 1)
        task.cancel()
        await task.value
        #expect(await eventually { signal.subscriptionCount == 0 })
    }

    // MARK: Async requests

    @Test func asyncRequestWaitsForAnAsyncResponder() async throws {
        let nodes = makeChain(3)
        nodes[2].respond(to: LoadProfile.self) { request async in
            try? await Task.sleep(nanoseconds: 1_000_000)
            return "profile of \(request.user)"
        }
        #expect(try await nodes[0].request(LoadProfile(user: "ann")) == "profile of ann")
    }

    @Test func asyncRequestTakesTheFirstAnswerInRouteOrderFromSyncAndAsyncResponders() async throws {
        let nodes = makeChain(3)
        let asked = Log<String>()
        nodes[0].respond(to: LoadProfile.self) { _ async in asked.append("n0 async"); return nil }
        nodes[1].respond(to: LoadProfile.self, on: .postingThread) { _ in asked.append("n1 sync"); return "n1" }
        nodes[2].respond(to: LoadProfile.self) { _ async in asked.append("n2 async"); return "n2" }
        #expect(try await nodes[0].request(LoadProfile(user: "ann")) == "n1")
        #expect(asked.entries == ["n0 async", "n1 sync"])
    }

    @Test func cancellingTheAwaitingTaskEndsTheAsyncRequestWithCancellationError() async {
        let node = DominoNode(label: "n")
        let started = Counter()
        node.respond(to: LoadProfile.self) { _ async in
            started.increment()
            try? await Task.sleep(nanoseconds: 60_000_000_000)   // cut short by the cancel
            return "too late"
        }
        let task = Task { try await node.request(LoadProfile(user: "ann")) }
        #expect(await eventually { started.value == 1 })
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func synchronousRequestSkipsAsyncRespondersAndReportsIt() {
        let node = DominoNode(label: "n")
        node.respond(to: LoadProfile.self) { _ async in "async answer" }
        var answer: String?
        let diagnostics = Diagnostics.capture {
            answer = syncRequest(node, LoadProfile(user: "ann"))
        }
        #expect(answer == nil)
        #expect(diagnostics.map(\.code) == [.asyncResponderSkipped])
    }

    @Test func ownerBoundAsyncResponderEndsWithItsOwner() async throws {
        final class Account: Sendable {
            let name = "account"
        }
        let node = DominoNode(label: "n")
        var account: Account? = Account()
        node.respond(to: LoadProfile.self, owner: account!) { account, request async in "\(account.name):\(request.user)" }
        #expect(try await node.request(LoadProfile(user: "ann")) == "account:ann")
        let weakAccount = WeakBox(account)
        account = nil
        #expect(weakAccount.value == nil)
        #expect(try await node.request(LoadProfile(user: "ann")) == nil)
        #expect(node.subscriptionCount == 0)
    }

    // MARK: Main-actor handlers (the isolated forms, written in main-actor code)

    @Test @MainActor func mainActorHandlerRunsInPlaceWhenPostedOnTheMainActor() {
        let node = DominoNode(label: "n")
        let screen = MainScreen()
        node.subscribe(Ping.self) { event in screen.values.append(event.value) }
        let result = node.post(Ping(value: 7))
        #expect(screen.values == [7])
        #expect(result.ran == 1)
    }

    @Test @MainActor func mainActorOwnerIsPassedToItsHandlerAndEndsTheSubscription() {
        let node = DominoNode(label: "n")
        var screen: MainScreen? = MainScreen()
        node.subscribe(Ping.self, owner: screen!) { screen, event in screen.values.append(event.value) }
        node.subscribe("Title", owner: screen!) { screen, event in
            screen.title = event.value("text", as: String.self) ?? ""
        }
        node.post(Ping(value: 1))
        node.post("Title", ["text": "Inbox"])
        #expect(screen!.values == [1])
        #expect(screen!.title == "Inbox")
        let weakScreen = WeakBox(screen)
        screen = nil
        #expect(weakScreen.value == nil)
        node.post(Ping(value: 2))
        node.post("Title", ["text": "Sent"])
        #expect(node.subscriptionCount == 0)
    }

    @Test @MainActor func namedEventsRouteToMainActorMethodsOfTheirOwner() {
        let node = DominoNode(label: "fund")
        var screen: FundScreen? = FundScreen()
        let subscriptions = node.route([
            "SelectLimit": FundScreen.didSelectLimit,
            "SelectMinBuyAmount": FundScreen.didSelectMinBuyAmount,
        ], to: screen!)
        node.post("SelectLimit", arguments: 500)
        node.post("SelectMinBuyAmount", arguments: nil)
        #expect(screen!.log == ["limit 500", "minimum none"])
        #expect(subscriptions.count == 2)
        let weakScreen = WeakBox(screen)
        screen = nil
        #expect(weakScreen.value == nil)
        #expect(subscriptions.allSatisfy { !$0.isActive })
        node.post("SelectLimit", arguments: 1)
        node.post("SelectMinBuyAmount", arguments: 1)
        #expect(node.subscriptionCount == 0)
    }

    @Test @MainActor func mainActorHandlerPostedFromAnotherThreadRunsOnTheMainActor() async {
        let node = DominoNode(label: "n")
        let screen = MainScreen()
        let delivered = Counter()
        node.subscribe(Ping.self, owner: screen) { screen, event in
            screen.values.append(event.value)      // main-actor state
            delivered.increment()
        }
        let result = await withCheckedContinuation { (done: CheckedContinuation<PostResult, Never>) in
            DispatchQueue.global().async { done.resume(returning: node.post(Ping(value: 3))) }
        }
        #expect(result.scheduled == 1)
        // Queued on the main queue; the main actor's own jobs are not ordered with it
        // (another priority), so wait for it rather than assume it ran first.
        #expect(await eventuallyOnMainActor { delivered.value == 1 })
        #expect(screen.values == [3])
    }
}

/// Main-actor state, as a view controller's.
@MainActor final class MainScreen {
    var values: [Int] = []
    var title = ""
}

/// A main-actor view controller whose methods named events are routed to.
@MainActor final class FundScreen {
    var log: [String] = []

    func didSelectLimit(_ event: NamedEvent) {
        log.append("limit \(event.argument(0, as: Int.self).map(String.init) ?? "none")")
    }

    func didSelectMinBuyAmount(_ event: NamedEvent) {
        log.append("minimum \(event.argument(0, as: Int.self).map(String.init) ?? "none")")
    }
}

/// The synchronous request, called from a synchronous context.
private func syncRequest(_ node: DominoNode, _ request: LoadProfile) -> String? {
    node.request(request)
}
