import Testing
@testable import Domino

@Suite("Requests", .checksLeaks)
struct RequestTests {
    @Test func firstNonNilAnswerOnTheRouteWins() {
        let nodes = makeChain(4)
        let asked = Log<String>()
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in asked.append("n1"); return nil }
        nodes[2].respond(to: Ask.self, on: .postingThread) { request in asked.append("n2"); return "answer to \(request.question)" }
        nodes[3].respond(to: Ask.self, on: .postingThread) { _ in asked.append("n3"); return "too late" }
        let answer = nodes[0].request(Ask(question: "q"))
        #expect(answer == "answer to q")
        #expect(asked.entries == ["n1", "n2"])
    }

    @Test func unansweredRequestReturnsNil() {
        let nodes = makeChain(3)
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in nil }
        #expect(nodes[0].request(Ask(question: "q")) == nil)
    }

    @Test func unansweredRequestIsReportedWhenStrictChecksAreOn() {
        // Scoped to this test's own requests: the process-wide switch would reach the
        // requests of tests running in parallel (a runaway recursion test saw 64).
        let node = DominoNode(label: "strict")
        let diagnostics = Diagnostics.capture {
            Diagnostics.withUnansweredRequestsReported {
                _ = node.request(Ask(question: "q"))
                _ = node.request(ContentEvents.self, method: "fetchChannelID") { $0.fetchChannelID() }
            }
        }
        #expect(diagnostics.map(\.code) == [.unansweredRequest, .unansweredRequest])
        #expect(diagnostics.first?.message.contains("strict") == true)
        #expect(diagnostics.last?.message.contains("ContentEvents.fetchChannelID") == true)
    }

    @Test func requestsRunSynchronouslyWhateverTheDeliveryMode() {
        let node = DominoNode()
        node.deliveryMode = .background
        node.respond(to: Ask.self, on: .postingThread) { _ in "now" }
        #expect(node.request(Ask(question: "q")) == "now")
    }

    @Test func ownerBoundResponderPassesTheOwnerAndEndsWithIt() {
        let node = DominoNode()
        do {
            let owner = Host("owner")
            owner.received = [5]
            node.respond(to: Ask.self, owner: owner, on: .postingThread) { owner, _ in "\(owner.received)" }
            #expect(node.request(Ask(question: "q")) == "[5]")
        }
        #expect(node.request(Ask(question: "q")) == nil)
        #expect(node.subscriptionCount == 0)
    }

    @Test func interceptorCanStopARequest() {
        let nodes = makeChain(3)
        nodes[1].intercept(Ask.self) { _ in .stop }
        nodes[2].respond(to: Ask.self, on: .postingThread) { _ in "unreachable" }
        #expect(nodes[0].request(Ask(question: "q")) == nil)
    }

    @Test func reformerRewritesTheRequestForNodesFurtherUp() {
        let nodes = makeChain(2)
        nodes[0].reform(Ask.self) { $0.question = "reformed" }
        nodes[1].respond(to: Ask.self, on: .postingThread) { $0.question }
        #expect(nodes[0].request(Ask(question: "original")) == "reformed")
    }

    @Test func respondersAndSubscribersOfTheSameTypeDoNotMix() {
        struct Both: Event, Request { typealias Response = Int }
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Both.self, on: .postingThread) { _ in counter.increment() }
        node.respond(to: Both.self, on: .postingThread) { _ in 7 }
        #expect(node.request(Both()) == 7)
        #expect(counter.value == 0)
        node.post(Both())
        #expect(counter.value == 1)
    }

    @Test func aSlotsRespondersOutliveItsSubscribersAndItsSubscribersItsResponders() {
        // One slot holds both lists; a table keeps one inline (the subscribers while
        // it has any) and the other out of line, and the roles swap places as they
        // empty and fill.
        struct Both: Event, Request { typealias Response = Int }
        let node = DominoNode()
        let counter = Counter()
        let responder = node.respond(to: Both.self, on: .postingThread) { _ in 1 }
        let subscriber = node.subscribe(Both.self, on: .postingThread) { _ in counter.increment() }
        node.respond(to: Both.self, on: .postingThread) { _ in nil }
        subscriber.cancel()
        #expect(node.request(Both()) == 1)
        node.post(Both())
        #expect(counter.value == 0)
        node.subscribe(Both.self, on: .postingThread) { _ in counter.increment() }
        responder.cancel()
        #expect(node.request(Both()) == nil)
        node.post(Both())
        #expect(counter.value == 1)
        #expect(node.subscriptionCount == 2)
    }
}
