import Testing
@_spi(DominoTesting) @testable import Domino

/// The signpost intervals of traced posts and requests (Instruments shows them on
/// Apple platforms; here they are captured). Signal fires are signposted only under
/// ``Tracing/isEnabledForAllNodes``, a process-wide switch that tests running in
/// parallel must not flip: PlatformCheck's apps check fires (PlatformCheck/check.sh).
@Suite("Signposts", .checksLeaks)
struct SignpostTests {
    @Test func tracedPostIsOneIntervalEndedWithItsResult() {
        let nodes = makeChain(2)
        nodes[0].isTracing = true
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        let marks = Signposts.capture { nodes[0].post(Ping(value: 1)) }
        #expect(marks.map(\.interval) == [.post, .post])
        #expect(marks.map(\.isBegin) == [true, false])
        #expect(marks.first?.text == "Ping at n0")
        #expect(marks.last?.text == "delivered to 1 handler(s) over 2 node(s)")
        #expect(marks.first?.id == marks.last?.id)
    }

    @Test func untracedPostMakesNoSignpost() {
        let nodes = makeChain(2)
        nodes[1].isTracing = true    // traced further up, but the post starts untraced
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        let marks = Signposts.capture { nodes[0].post(Ping(value: 1)) }
        #expect(marks.isEmpty)
    }

    @Test func unhandledTracedPostStillEndsItsInterval() {
        let node = DominoNode(label: "lonely")
        node.isTracing = true
        let marks = Signposts.capture { node.post("Nobody") }
        #expect(marks.map(\.isBegin) == [true, false])
        #expect(marks.last?.text == "delivered to 0 handler(s) over 1 node(s)")
    }

    @Test func postStoppedByAnInterceptorEndsItsInterval() {
        let nodes = makeChain(2)
        nodes[0].isTracing = true
        nodes[0].intercept(Ping.self) { _ in .stop }
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        let marks = Signposts.capture { nodes[0].post(Ping(value: 1)) }
        #expect(marks.map(\.isBegin) == [true, false])
        #expect(marks.last?.text.contains("stopped") == true)
    }

    @Test func nestedPostsHaveTheirOwnIntervalsClosedInnerFirst() {
        let node = DominoNode(label: "nest")
        node.isTracing = true
        node.subscribe(Ping.self, on: .postingThread) { [unowned node] _ in node.post(Pong(text: "inner")) }
        node.subscribe(Pong.self, on: .postingThread) { _ in }
        let marks = Signposts.capture { node.post(Ping(value: 1)) }
        #expect(marks.map(\.isBegin) == [true, true, false, false])
        #expect(marks.map(\.text).first == "Ping at nest")
        #expect(marks[1].text == "Pong at nest")
        // Open at the same time: different IDs; each end matches its begin.
        #expect(marks[0].id != marks[1].id)
        #expect(marks[2].id == marks[1].id)
        #expect(marks[3].id == marks[0].id)
    }

    @Test func postsOnDifferentThreadsUseDifferentIDs() {
        let node = DominoNode(label: "shared")
        node.isTracing = true
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        let here = Signposts.capture { node.post(Ping(value: 1)) }
        let there = onAnotherThread { Signposts.capture { node.post(Ping(value: 2)) } }
        #expect(here.count == 2 && there.count == 2)
        #expect(here.first?.id != there.first?.id)
    }

    @Test func answeredRequestEndsItsIntervalWithTheAnsweringNode() {
        let nodes = makeChain(2)
        nodes[0].isTracing = true
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in "yes" }
        let marks = Signposts.capture { _ = nodes[0].request(Ask(question: "q")) }
        #expect(marks.map(\.interval) == [.request, .request])
        #expect(marks.first?.text == "Ask at n0")
        #expect(marks.last?.text == "answered at n1")
        #expect(marks.first?.id == marks.last?.id)
    }

    @Test func unansweredRequestEndsItsInterval() {
        let node = DominoNode(label: "asker")
        node.isTracing = true
        let marks = Signposts.capture { _ = node.request(Ask(question: "q")) }
        #expect(marks.map(\.isBegin) == [true, false])
        #expect(marks.last?.text == "unanswered")
    }

    @Test func interceptedRequestEndsItsInterval() {
        let nodes = makeChain(2)
        nodes[0].isTracing = true
        nodes[0].intercept(Ask.self) { _ in .stop }
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in "yes" }
        let marks = Signposts.capture { _ = nodes[0].request(Ask(question: "q")) }
        #expect(marks.map(\.isBegin) == [true, false])
        #expect(marks.last?.text == "stopped at n0 by an interceptor")
    }

    @Test func untracedRequestMakesNoSignpost() {
        let nodes = makeChain(2)
        nodes[1].respond(to: Ask.self, on: .postingThread) { _ in "yes" }
        let marks = Signposts.capture { _ = nodes[0].request(Ask(question: "q")) }
        #expect(marks.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func signalFiresAreNotSignpostedWhileTracingAllNodesIsOff() {
        let signal = Signal<Int>()
        let counter = Counter()
        signal.subscribe(counter, on: .postingThread) { counter, _ in counter.increment() }
        let marks = Signposts.capture { signal.fire(1) }
        #expect(marks.isEmpty)
        #expect(counter.value == 1)
    }

    @Test func signpostIDsAreNeverZeroAndDifferByNestingLevel() {
        let thread = ThreadState.current
        let outer = ThreadState.signpostID(thread)
        thread.pointee.nesting += 1
        let inner = ThreadState.signpostID(thread)
        thread.pointee.nesting -= 1
        #expect(outer != inner)
        #expect(inner != 0)
    }

    @Test func traceRecordKeepsItsDescriptionAndSplitsOffTheValue() {
        let answered = TraceRecord(kind: .answered("channel-42"), event: "FetchChannelID", node: "root")
        #expect(answered.description == "[Domino]   <- FetchChannelID answered at root: channel-42")
        #expect(answered.parts.value == "channel-42")
        let reformed = TraceRecord(kind: .reformed(from: "a", to: "b"), event: "Ping", node: "n1")
        #expect(reformed.description == "[Domino]   ~ Ping reformed at n1: a => b")
        #expect(reformed.parts.value == "a => b")
        let posted = TraceRecord(kind: .posted, event: "Ping", node: "n0")
        #expect(posted.parts == ("post Ping at n0", nil))
    }
}
