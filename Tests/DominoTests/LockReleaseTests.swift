import Dispatch
import Foundation
import Testing
@testable import Domino
import DominoTesting

/// Runs `body` on a thread of its own and waits for it at most `seconds`: false when
/// it did not return in time (a deadlock), so the test fails instead of hanging.
private func completesWithoutDeadlock(within seconds: Double = 10, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body()
        done.signal()
    }
    return done.wait(timeout: .now() + seconds) == .success
}

/// Calls `onDeinit` when it goes: the user object a setting or a record held.
private final class DeinitProbe: Sendable {
    private let onDeinit: @Sendable () -> Void
    init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// An operation queue whose deinit posts: what a delivery mode holds.
private final class PostingQueue: OperationQueue, @unchecked Sendable {
    let node: DominoNode
    init(posting node: DominoNode) {
        self.node = node
        super.init()
    }
    deinit { node.post(Ping(value: 1)) }
}

private struct Carrier: Event {
    let probe: DeinitProbe
}

/// Nothing a user can observe is released under one of Domino's locks: each setting
/// or record whose old value may run user code in its deinit (a queue, a handler's
/// captures, an event's payload) lets go of it after unlocking. Each test would
/// deadlock, and so fail here, if its lock held the release again. Serialized:
/// the diagnostics handler and the trace sink are process-wide.
@Suite("Nothing is released under a lock", .serialized, .checksLeaks)
struct LockReleaseTests {
    @Test func replacingANodesDeliveryModeWhoseQueuePostsFromItsDeinitDoesNotDeadlock() {
        #expect(completesWithoutDeadlock {
            let node = DominoNode(label: "mode")
            node.deliveryMode = .operationQueue(PostingQueue(posting: node))
            node.deliveryMode = nil            // releases the queue, whose deinit posts
        })
    }

    // It sets the process-wide default to a queue's mode for a moment: a post made by
    // another test meanwhile (one whose handler names no mode) would be scheduled on
    // that queue instead of running in place, as a responder-chain test's once was
    // under the address sanitizer. So it runs only in a process of its own, as CI runs
    // it: `DOMINO_PROCESS_DEFAULTS=1 swift test --filter LockReleaseTests`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DOMINO_PROCESS_DEFAULTS"] == "1"))
    func replacingTheDefaultDeliveryModeWhoseQueuePostsFromItsDeinitDoesNotDeadlock() {
        #expect(completesWithoutDeadlock {
            let node = DominoNode(label: "default")
            let previous = DeliveryMode.default
            DeliveryMode.default = .operationQueue(PostingQueue(posting: node))
            DeliveryMode.default = previous    // releases the queue, whose deinit posts
        })
    }

    @Test func replacingADiagnosticsHandlerWhoseCapturesReportFromTheirDeinitDoesNotDeadlock() {
        #expect(completesWithoutDeadlock {
            let probe = DeinitProbe {
                let node = DominoNode(label: "self-mounted")
                node.mount(at: node)           // reported: takes the handler's lock
            }
            Diagnostics.setHandler { [probe] _ in _ = probe }
            Diagnostics.resetHandler()         // releases the handler, and the probe
        })
    }

    @Test func replacingATraceSinkWhoseCapturesPostOnATracedNodeDoesNotDeadlock() {
        #expect(completesWithoutDeadlock {
            let probe = DeinitProbe {
                let node = DominoNode(label: "traced")
                node.isTracing = true
                node.post(Ping(value: 2))      // traced: emits through the sink's lock
            }
            Tracing.setSink { [probe] _ in _ = probe }
            Tracing.resetSink()                // releases the sink, and the probe
        })
    }

    @Test func resettingAnEventRecorderWhoseRecordedEventPostsFromItsDeinitDoesNotDeadlock() {
        #expect(completesWithoutDeadlock {
            let node = DominoNode(label: "recorded")
            let recorder = EventRecorder().record(Carrier.self, at: node).record(Ping.self, at: node)
            node.post(Carrier(probe: DeinitProbe { node.post(Ping(value: 3)) }))
            recorder.reset()                   // releases the carrier: it posts, recorded
            recorder.stop()
        })
    }

    @Test func stopFromAnAsynchronousHandlerIsReportedAndIgnored() async {
        let queue = DispatchQueue(label: "test.stop")
        let nodes = makeChain(2)
        let parentCounter = Counter()
        let reported = Log<Diagnostic.Code>()
        nodes[0].subscribe(Ping.self, on: .queue(queue)) { _, propagation in propagation.stop() }
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in parentCounter.increment() }
        // The diagnostic is raised on the queue, outside any capture scope: install a
        // handler that only records diagnostics about this test's node.
        Diagnostics.setHandler { diagnostic in
            if diagnostic.message.contains("at n0 was delivered") { reported.append(diagnostic.code) }
        }
        defer { Diagnostics.resetHandler() }
        nodes[0].post(Ping(value: 1))
        #expect(parentCounter.value == 1)
        #expect(await eventually { reported.count == 1 })
        #expect(reported.entries == [.stopIgnored])
    }

}
