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

    // MARK: A traced origin traces its whole walk (Domino: either end in debug mode)

    @Test func tracedPostingNodeTracesDeliveriesReformsAndStopsAtUntracedNodesAbove() {
        let nodes = makeChain(3)
        nodes[0].isTracing = true
        nodes[1].reform(Ping.self) { $0.value = 2 }
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        nodes[2].subscribe(Ping.self, on: .background) { _ in }
        nodes[2].intercept(Ping.self) { _ in .stop }
        let records = Tracing.capture { nodes[0].post(Ping(value: 1)) }
        #expect(records == [
            TraceRecord(kind: .posted, event: "Ping", node: "n0"),
            TraceRecord(kind: .reformed(from: "Ping(value: 1)", to: "Ping(value: 2)"), event: "Ping", node: "n1"),
            TraceRecord(kind: .delivered, event: "Ping", node: "n1"),
            TraceRecord(kind: .scheduled, event: "Ping", node: "n2"),
            TraceRecord(kind: .stopped(.interceptor), event: "Ping", node: "n2"),
        ])
    }

    @Test func tracedPostingNodeTracesCaptureHandlersAndTheirStop() {
        let nodes = makeChain(3)
        nodes[0].isTracing = true
        nodes[2].subscribe(Ping.self, phase: .capture, on: .postingThread) { _, propagation in propagation.stop() }
        let records = Tracing.capture { nodes[0].post(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.posted, .delivered, .stopped(.subscriber)])
        #expect(records.map(\.node) == ["n0", "n2", "n2"])
    }

    @Test func tracedPostingNodeTracesNamedEventsUpTheRoute() {
        let nodes = makeChain(2)
        nodes[0].isTracing = true
        nodes[1].subscribe("Saved", on: .postingThread) { _ in }
        let records = Tracing.capture { nodes[0].post("Saved") }
        #expect(records == [
            TraceRecord(kind: .posted, event: "\"Saved\"", node: "n0"),
            TraceRecord(kind: .delivered, event: "\"Saved\"", node: "n1"),
        ])
    }

    @Test func tracedRequestingNodeTracesReformsAndAnswersAbove() {
        let nodes = makeChain(3)
        nodes[0].isTracing = true
        nodes[1].reform(Ask.self) { $0.question = "reformed" }
        nodes[2].respond(to: Ask.self, on: .postingThread) { $0.question }
        let records = Tracing.capture { _ = nodes[0].request(Ask(question: "q")) }
        #expect(records.map(\.kind) == [.requested, .reformed(from: "Ask(question: \"q\")", to: "Ask(question: \"reformed\")"), .answered("reformed")])
        #expect(records.map(\.node) == ["n0", "n1", "n2"])
    }

    @Test func tracedRequestingNodeTracesAnAwaitedRequestsReformsAndInterceptorAbove() async throws {
        let nodes = makeChain(3)
        nodes[0].isTracing = true
        nodes[1].reform(Ask.self) { $0.question = "reformed" }
        nodes[1].intercept(Ask.self) { _ in .stop }
        nodes[2].respond(to: Ask.self) { _ async in "never" }
        let collector = Tracing.Collector()
        let answer = try await Tracing.$collector.withValue(collector) {
            try await nodes[0].request(Ask(question: "q"))
        }
        #expect(answer == nil)
        #expect(collector.records.map(\.kind) == [.requested, .reformed(from: "Ask(question: \"q\")", to: "Ask(question: \"reformed\")"), .stopped(.interceptor)])
        #expect(collector.records.map(\.node) == ["n0", "n1", "n1"])
    }

    @Test func tracedPostingNodeTracesProtocolEventTargetsAndInterceptorAbove() {
        let nodes = makeChain(3)
        let log = Log<String>()
        let target = ContentTarget("t", log: log, channel: "c")
        nodes[1].subscribe(ContentEvents.self, target: target, on: .postingThread)
        nodes[1].intercept(protocol: ContentEvents.self) { _ in .stop }
        nodes[0].isTracing = true
        let records = Tracing.capture {
            nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }
            _ = nodes[0].request(ContentEvents.self) { $0.fetchChannelID() }
        }
        #expect(records.map(\.kind) == [.posted, .delivered, .stopped(.interceptor), .requested, .answered("c")])
        #expect(records.map(\.node) == ["n0", "n1", "n1", "n0", "n1"])
    }

    @Test func tracedBroadcastingNodeTracesDeliveriesAndInterceptorsBelow() {
        let nodes = makeChain(3)
        nodes[2].isTracing = true
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        nodes[1].intercept(Ping.self) { _ in .stop }
        nodes[0].subscribe(Ping.self, on: .postingThread) { _ in }
        let records = Tracing.capture { nodes[2].broadcast(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.broadcast, .delivered, .stopped(.interceptor)])
        #expect(records.map(\.node) == ["n2", "n1", "n1"])
    }

    @Test func tracedRaisingNodeTracesTheWayUpAndTheWayDown() {
        let nodes = makeChain(3)
        nodes[0].isTracing = true
        nodes[2].subscribe(Ping.self, phase: .raise, on: .postingThread) { _ in }
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        let records = Tracing.capture { nodes[0].raise(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.raised, .delivered, .delivered])
        #expect(records.map(\.node) == ["n0", "n2", "n1"])
    }

    @Test func tracedBroadcastThatNoNodeHandlesIsTracedAsUnhandled() {
        let nodes = makeChain(3)
        nodes[2].isTracing = true
        let records = Tracing.capture { nodes[2].broadcast(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.broadcast, .unhandled])
        #expect(records.map(\.node) == ["n2", "n2"])
    }

    @Test func tracedRaiseConsumedOnTheWayDownIsTracedAsStoppedWhereItWasConsumed() {
        let nodes = makeChain(3)
        nodes[0].isTracing = true
        nodes[1].subscribe(Ping.self, on: .postingThread) { _, propagation in propagation.stop() }
        nodes[0].subscribe(Ping.self, on: .postingThread) { _ in }
        let records = Tracing.capture { nodes[0].raise(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.raised, .delivered, .stopped(.subscriber)])
        #expect(records.map(\.node) == ["n0", "n1", "n1"])
    }

    @Test func tracedNodeTracesDeliveryToTheDeepestSubscriberBelow() {
        let nodes = makeChain(3)
        nodes[2].isTracing = true
        nodes[0].subscribe(Ping.self, on: .postingThread) { _ in }
        let records = Tracing.capture { nodes[2].deliverToDeepestSubscriber(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.posted, .delivered])
        #expect(records.map(\.node) == ["n2", "n0"])
    }

    @Test func tracedNodeOnTheWayReportsOnlyWhatHappensThere() {
        let nodes = makeChain(3)
        nodes[1].isTracing = true
        for node in nodes { node.subscribe(Ping.self, on: .postingThread) { _ in } }
        let records = Tracing.capture { nodes[0].post(Ping(value: 1)) }
        #expect(records == [TraceRecord(kind: .delivered, event: "Ping", node: "n1")])
    }

    @Test func handlerEnqueuedOnItsActorIsTracedAsScheduled() async {
        actor Store {
            func watch(_ node: DominoNode, _ ran: Counter) { node.subscribe(Ping.self) { _ in ran.increment() } }
        }
        let store = Store()
        let node = DominoNode(label: "n")
        let ran = Counter()
        await store.watch(node, ran)
        node.isTracing = true
        let records = Tracing.capture { node.post(Ping(value: 1)) }
        #expect(records.map(\.kind) == [.posted, .scheduled])
        #expect(await eventually { ran.value == 1 })
    }

    @Test func defaultSinkPrintsOneReadableLinePerRecord() {
        let record = TraceRecord(kind: .delivered, event: "Ping", node: "container")
        #expect(record.description == "[Domino]   -> Ping delivered at container")
    }
}
