import Dispatch
import Testing
import Domino
import DominoTesting

@Suite("DominoTesting: the event recorder", .checksLeaks)
struct EventRecorderTests {
    @Test func recordsWhichNodesAnEventReachedInOrderWithTheValueEachSaw() {
        let nodes = makeChain(3)
        nodes[1].reform(Ping.self) { $0.value += 10 }
        let recorder = EventRecorder().record(Ping.self, at: nodes)
        nodes[0].post(Ping(value: 1))
        #expect(recorder.nodes == ["n0", "n1", "n2"])
        #expect(recorder.values(of: Ping.self).map(\.value) == [1, 11, 11])
        #expect(recorder.entries.first?.event == "Ping")
    }

    @Test func recordsNamedEventsAndTellsThemApartFromTypedOnes() {
        let node = DominoNode(label: "n")
        let recorder = EventRecorder()
            .record("Statistics", at: node)
            .record(Ping.self, at: node)
        node.post("Statistics", ["msg": "did load"])
        node.post(Ping(value: 2))
        #expect(recorder.entries.map(\.event) == ["\"Statistics\"", "Ping"])
        #expect(recorder.nodes(reachedBy: NamedEvent.self) == ["n"])
        #expect(recorder.values(of: NamedEvent.self).first?.value("msg", as: String.self) == "did load")
    }

    @Test func stoppedRecorderRecordsNothingMoreAndLeavesNoSubscription() {
        let node = DominoNode(label: "n")
        let recorder = EventRecorder().record(Ping.self, at: node)
        node.post(Ping(value: 1))
        recorder.stop()
        node.post(Ping(value: 2))
        #expect(recorder.values(of: Ping.self).map(\.value) == [1])
        #expect(node.subscriptionCount == 0)
    }

    @Test func deallocatedRecorderEndsItsSubscriptions() {
        let node = DominoNode(label: "n")
        var recorder: EventRecorder? = EventRecorder().record(Ping.self, at: node)
        #expect(node.subscriptionCount == 1)
        recorder = nil
        #expect(node.subscriptionCount == 0)
        _ = recorder
    }

    @Test func resetForgetsWhatWasRecorded() {
        let node = DominoNode(label: "n")
        let recorder = EventRecorder().record(Ping.self, at: node)
        node.post(Ping(value: 1))
        recorder.reset()
        node.post(Ping(value: 2))
        #expect(recorder.values(of: Ping.self).map(\.value) == [2])
    }

    @Test func waitsForEventsPostedFromOtherThreads() async {
        let node = DominoNode(label: "n")
        let recorder = EventRecorder().record(Ping.self, at: node)
        DispatchQueue.global().async { for value in 0..<3 { node.post(Ping(value: value)) } }
        #expect(await recorder.waitFor(count: 3))
        #expect(recorder.values(of: Ping.self).map(\.value) == [0, 1, 2])
    }

    @Test func traceTellsWhereTheEventWentAndWhereItStopped() {
        let nodes = makeChain(3)
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        nodes[1].intercept(Ping.self) { _ in .stop }
        let trace = EventRecorder.trace(tracing: nodes) { nodes[0].post(Ping(value: 1)) }
        #expect(trace.map(\.kind) == [.posted, .delivered, .stopped(.interceptor)])
        #expect(trace.map(\.node) == ["n0", "n1", "n1"])
        #expect(nodes.allSatisfy { !$0.isTracing })
    }
}
