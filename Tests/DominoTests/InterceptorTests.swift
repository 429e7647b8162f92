import Testing
@testable import Domino

@Suite("Interceptors and propagation control", .checksLeaks)
struct InterceptorTests {
    @Test func reformedValueReachesNodesFurtherUpButNotNodesAlreadyPassed() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[0].subscribe(Ping.self, on: .postingThread) { log.append("n0:\($0.value)") }
        nodes[1].reform(Ping.self) { $0.value *= 10 }
        nodes[1].subscribe(Ping.self, on: .postingThread) { log.append("n1:\($0.value)") }
        nodes[2].subscribe(Ping.self, on: .postingThread) { log.append("n2:\($0.value)") }
        nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["n0:1", "n1:10", "n2:10"])
    }

    @Test func interceptorStopsTheEventAfterItsNodesSubscribersRan() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[1].intercept(Ping.self) { _ in .stop }
        for node in nodes { record(Ping.self, at: node, into: log) }
        let result = nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["n0", "n1"])
        #expect(result.stopReason == .interceptor)
        #expect(result.stoppedAt == "n1")
    }

    @Test func interceptorThatProceedsLetsTheEventThrough() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].intercept(Ping.self) { $0.value > 5 ? .stop : .proceed }
        record(Ping.self, at: nodes[1], into: log)
        nodes[0].post(Ping(value: 1))
        nodes[0].post(Ping(value: 9))
        #expect(log.entries == ["n1"])
    }

    @Test func namedEventParametersCanBeReformed() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].reform("Stats") { $0.parameters["msg"] = "hook!!!" }
        nodes[0].subscribe("Stats", on: .postingThread) { log.append("n0:" + ($0.value("msg", as: String.self) ?? "")) }
        nodes[1].subscribe("Stats", on: .postingThread) { log.append("n1:" + ($0.value("msg", as: String.self) ?? "")) }
        nodes[0].post("Stats", ["msg": "did load"])
        // The reformer runs before the node's own subscribers.
        #expect(log.entries == ["n0:hook!!!", "n1:hook!!!"])
    }

    @Test func namedEventInterceptorStopsIt() {
        let nodes = makeChain(2)
        let counter = Counter()
        nodes[0].intercept("Stats") { _ in .stop }
        nodes[1].subscribe("Stats", on: .postingThread) { _ in counter.increment() }
        nodes[0].post("Stats")
        #expect(counter.value == 0)
    }

    @Test func subscriberStopAfterNodeLetsSiblingsRunButNotParents() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].subscribe(Ping.self, on: .postingThread) { _, propagation in
            log.append("first")
            propagation.stop()
        }
        record(Ping.self, at: nodes[0], into: log, tag: "second")
        record(Ping.self, at: nodes[1], into: log, tag: "parent")
        let result = nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["first", "second"])
        #expect(result.stopReason == .subscriber)
        #expect(result.stoppedAt == "n0")
    }

    @Test func subscriberStopImmediatelySkipsTheRestOfItsNode() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].subscribe(Ping.self, on: .postingThread) { _, propagation in
            log.append("first")
            propagation.stopImmediately()
        }
        record(Ping.self, at: nodes[0], into: log, tag: "second")
        record(Ping.self, at: nodes[1], into: log, tag: "parent")
        let result = nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["first"])
        #expect(result.stopReason == .subscriberImmediately)
    }

    @Test func subscriberStopSkipsTheNodesInterceptors() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        node.intercept(Ping.self) { _ in counter.increment(); return .proceed }
        node.post(Ping(value: 1))
        #expect(counter.value == 0)
    }

    @Test func ownerBoundSubscriberCanStopPropagation() {
        let nodes = makeChain(2)
        let host = Host("h")
        let counter = Counter()
        nodes[0].subscribe(Ping.self, owner: host, on: .postingThread) { _, _, propagation in propagation.stop() }
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        nodes[0].post(Ping(value: 1))
        #expect(counter.value == 0)
    }

    @Test func cancellingAnInterceptorRemovesIt() {
        let nodes = makeChain(2)
        let counter = Counter()
        let interceptor = nodes[0].intercept(Ping.self) { _ in .stop }
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        nodes[0].post(Ping(value: 1))
        interceptor.cancel()
        nodes[0].post(Ping(value: 2))
        #expect(counter.value == 1)
    }
}
