import Testing
@_spi(DominoTesting) @testable import Domino

@Suite("Tracing", .checksLeaks)
struct TracingTests {
    @Test func tracedNodeReportsPostDeliveryReformAndStop() {
        let nodes = makeChain(3)
        nodes[0].isTracing = true
        nodes[1].isTracing = true
        nodes[0].subscribe(Ping.self, on: .postingThread) { _ in }
        nodes[1].reform(Ping.self) { $0.value = 2 }
        nodes[1].intercept(Ping.self) { _ in .stop }
        nodes[2].subscribe(Ping.self, on: .postingThread) { _ in }
        let records = Tracing.capture { nodes[0].post(Ping(value: 1)) }
        #expect(records == [
            TraceRecord(kind: .posted, event: "Ping", node: "n0"),
            TraceRecord(kind: .delivered, event: "Ping", node: "n0"),
            TraceRecord(kind: .reformed(from: "Ping(value: 1)", to: "Ping(value: 2)"), event: "Ping", node: "n1"),
            TraceRecord(kind: .stopped(.interceptor), event: "Ping", node: "n1"),
        ])
    }

    @Test func untracedNodesReportNothing() {
        let nodes = makeChain(2)
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        let records = Tracing.capture { nodes[0].post(Ping(value: 1)) }
        #expect(records.isEmpty)
    }

    @Test func unhandledPostIsTraced() {
        let node = DominoNode(label: "lonely")
        node.isTracing = true
        let records = Tracing.capture { node.post("Nobody") }
        #expect(records == [
            TraceRecord(kind: .posted, event: "\"Nobody\"", node: "lonely"),
            TraceRecord(kind: .unhandled, event: "\"Nobody\"", node: "lonely"),
        ])
    }

    @Test func requestAnswerIsTracedWithTheAnsweringNode() {
        let nodes = makeChain(2)
        nodes[0].isTracing = true
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in "yes" }
        let records = Tracing.capture { _ = nodes[0].request(Ask(question: "q")) }
        #expect(records == [
            TraceRecord(kind: .requested, event: "Ask", node: "n0"),
            TraceRecord(kind: .answered("yes"), event: "Ask", node: "n1"),
        ])
    }

    @Test func scheduledDeliveryIsTracedAsScheduled() {
        let node = DominoNode(label: "bg")
        node.isTracing = true
        node.subscribe(Ping.self, on: .background) { _ in }
        let records = Tracing.capture { node.post(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.posted, .scheduled])
    }

    @Test func defaultSinkPrintsOneReadableLinePerRecord() {
        let record = TraceRecord(kind: .delivered, event: "Ping", node: "container")
        #expect(record.description == "[Domino]   -> Ping delivered at container")
    }
}
