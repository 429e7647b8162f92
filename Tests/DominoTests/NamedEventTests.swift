import Testing
@testable import Domino

extension EventName {
    static let statistics: EventName = "Statistics"
}

@Suite("Named events", .checksLeaks)
struct NamedEventTests {
    @Test func namedEventReachesSubscribersUpTheRouteWithItsParameters() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[1].subscribe(.statistics, on: .postingThread) { event in
            log.append("\(event.name): \(event.value("msg", as: String.self) ?? "-")")
        }
        nodes[0].post(.statistics, ["msg": "did load"])
        #expect(log.entries == ["Statistics: did load"])
    }

    @Test func stringLiteralsNameEvents() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe("Tapped", on: .postingThread) { _ in counter.increment() }
        node.post("Tapped")
        node.post("Other")
        #expect(counter.value == 1)
    }

    @Test func namesMatchByCanonicalEquivalenceAsSwiftStringsCompare() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe("Caf\u{E9}", on: .postingThread) { _ in counter.increment() }   // é, one scalar
        node.post("Cafe\u{301}")   // e and a combining acute accent
        #expect(counter.value == 1)
        #expect(EventName("Caf\u{E9}") == EventName("Cafe\u{301}"))
    }

    @Test func namesDifferingOnlyInCaseDoNotMatch() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe("Tapped", on: .postingThread) { _ in counter.increment() }
        node.post("tapped")
        #expect(counter.value == 0)
    }

    @Test func optionalNilParametersSurviveTheTrip() {
        let node = DominoNode()
        let log = Log<String>()
        node.subscribe("SelectFund", on: .postingThread) { event in
            log.append("contains=\(event.contains("phone")) isNil=\(event.isNil("phone")) code=\(event.value("code", as: String.self) ?? "-")")
        }
        let phone: String? = nil
        node.post("SelectFund", ["code": "F001", "phone": phone as any Sendable])
        #expect(log.entries == ["contains=true isNil=true code=F001"])
    }

    @Test func optionalNonNilParametersAreReadThroughTheOptional() {
        let node = DominoNode()
        let log = Log<String>()
        node.subscribe("SelectFund", on: .postingThread) { event in
            log.append(event.value("phone", as: String.self) ?? "missing")
        }
        let phone: String? = "555-0100"
        node.post("SelectFund", ["phone": phone as any Sendable])
        #expect(log.entries == ["555-0100"])
    }

    @Test func ownerBoundNamedSubscriptionEndsWithTheOwner() {
        let node = DominoNode()
        let counter = Counter()
        do {
            let owner = Host("owner")
            node.subscribe("Tick", owner: owner, on: .postingThread) { _, _ in counter.increment() }
            node.post("Tick")
        }
        node.post("Tick")
        #expect(counter.value == 1)
    }

    @Test func unsubscribeByNameRemovesAllHandlersOfThatName() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe("A", on: .postingThread) { _ in counter.increment() }
        node.subscribe("A", on: .postingThread) { _ in counter.increment() }
        node.subscribe("B", on: .postingThread) { _ in counter.increment() }
        node.unsubscribe("A")
        node.post("A")
        node.post("B")
        #expect(counter.value == 1)
    }

    @Test func namedAndTypedEventsDoNotShareSubscribers() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe("Ping", on: .postingThread) { _ in counter.increment() }
        node.post(Ping(value: 1))
        #expect(counter.value == 0)
    }

    @Test func namedEventDescriptionListsParametersInKeyOrder() {
        let event = NamedEvent(name: "E", parameters: ["b": 2, "a": "x", "n": Optional<Int>.none as any Sendable])
        #expect(event.description == "E[a: x, b: 2, n: nil]")
    }
}
