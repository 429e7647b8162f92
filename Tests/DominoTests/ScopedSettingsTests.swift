import Dispatch
import Testing
@testable import Domino

/// The scoped forms of the process-wide settings: each holds for the code its block
/// runs on this task or thread, and nowhere else, so tests that use them run in
/// parallel without seeing each other's settings.
@Suite("Scoped settings", .checksLeaks)
struct ScopedSettingsTests {
    // MARK: Unanswered requests

    @Test func unansweredRequestsAreReportedInsideTheScopeOnly() {
        let node = DominoNode(label: "strict")
        let diagnostics = Diagnostics.capture {
            Diagnostics.withUnansweredRequestsReported {
                _ = node.request(Ask(question: "inside"))
                _ = node.request(ContentEvents.self, method: "fetchChannelID") { $0.fetchChannelID() }
            }
            _ = node.request(Ask(question: "outside"))
        }
        #expect(diagnostics.map(\.code) == [.unansweredRequest, .unansweredRequest])
        #expect(diagnostics.first?.message.contains("strict") == true)
        #expect(diagnostics.last?.message.contains("ContentEvents.fetchChannelID") == true)
    }

    @Test func theScopedValueIsWhatReportsUnansweredRequestsReadsInside() {
        Diagnostics.withUnansweredRequestsReported {
            #expect(Diagnostics.reportsUnansweredRequests)
            Diagnostics.withUnansweredRequestsReported(false) {
                #expect(!Diagnostics.reportsUnansweredRequests)
            }
        }
    }

    @Test func scopedStrictChecksDoNotReachAnotherThread() {
        let node = DominoNode()
        let elsewhere = Diagnostics.withUnansweredRequestsReported {
            onAnotherThread { Diagnostics.capture { _ = node.request(Ask(question: "q")) }.count }
        }
        #expect(elsewhere == 0)
    }

    @Test func scopedStrictChecksHoldAcrossAwaitsAndInChildTasks() async {
        let node = DominoNode()
        let diagnostics = await Diagnostics.capture {
            await Diagnostics.withUnansweredRequestsReported {
                await Task.yield()
                askSynchronously(node, "after an await")
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { askSynchronously(node, "in a child task") }
                }
            }
        }
        #expect(diagnostics.map(\.code) == [.unansweredRequest, .unansweredRequest])
    }

    // MARK: Default delivery mode

    @Test func scopedDefaultAppliesToSubscriptionsThatNameNoModeInsideTheScopeOnly() {
        let node = DominoNode()
        let queue = DispatchQueue(label: "scoped.default")
        node.subscribe(Ping.self, on: nil) { _ in }
        let inside = DeliveryMode.withDefault(.queue(queue)) { node.post(Ping(value: 1)) }
        let outside = node.post(Ping(value: 2))
        #expect(inside.scheduled == 1)
        #expect(outside.scheduled == 0)
        queue.sync {}
    }

    @Test func theScopedModeIsWhatDefaultReadsInside() {
        DeliveryMode.withDefault(.background) {
            guard case .background = DeliveryMode.default else {
                Issue.record("expected .background, got \(DeliveryMode.default)")
                return
            }
        }
        guard case .postingThread = DeliveryMode.default else {
            Issue.record("expected .postingThread after the scope, got \(DeliveryMode.default)")
            return
        }
    }

    @Test func aNodesModeAndASubscriptionsModeWinOverTheScopedDefault() {
        let node = DominoNode()
        let queue = DispatchQueue(label: "scoped.node")
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        let named = DeliveryMode.withDefault(.queue(queue)) { node.post(Ping(value: 1)) }
        #expect(named.scheduled == 0)

        let other = DominoNode()
        other.deliveryMode = .postingThread
        other.subscribe(Ping.self, on: nil) { _ in }
        let nodeMode = DeliveryMode.withDefault(.queue(queue)) { other.post(Ping(value: 1)) }
        #expect(nodeMode.scheduled == 0)
        queue.sync {}
    }

    @Test func scopedDefaultDoesNotReachAnotherThread() {
        let node = DominoNode()
        let queue = DispatchQueue(label: "scoped.thread")
        node.subscribe(Ping.self, on: nil) { _ in }
        let elsewhere = DeliveryMode.withDefault(.queue(queue)) {
            onAnotherThread { node.post(Ping(value: 1)).scheduled }
        }
        #expect(elsewhere == 0)
        queue.sync {}
    }

    @Test func scopedDefaultHoldsAcrossAwaits() async {
        let node = DominoNode()
        let queue = DispatchQueue(label: "scoped.await")
        node.subscribe(Ping.self, on: nil) { _ in }
        let scheduled = await DeliveryMode.withDefault(.queue(queue)) {
            await Task.yield()
            return node.post(Ping(value: 1)).scheduled
        }
        #expect(scheduled == 1)
        queue.sync {}
    }

    // MARK: Tracing every node

    @Test func everyNodeIsTracedInsideTheScopeOnly() {
        let nodes = makeChain(2)
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in }
        let inside = Tracing.capture {
            Tracing.withAllNodesTraced { _ = nodes[0].post(Ping(value: 1)) }
        }
        let outside = Tracing.capture { nodes[0].post(Ping(value: 2)) }
        #expect(inside.map(\.kind) == [.posted, .delivered])
        #expect(outside.isEmpty)
    }

    @Test func theScopedValueIsWhatIsEnabledForAllNodesReadsInside() {
        Tracing.withAllNodesTraced {
            #expect(Tracing.isEnabledForAllNodes)
            Tracing.withAllNodesTraced(false) { #expect(!Tracing.isEnabledForAllNodes) }
        }
    }

    @Test func scopedTracingDoesNotReachAnotherThread() {
        let node = DominoNode()
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        let elsewhere = Tracing.withAllNodesTraced {
            onAnotherThread { Tracing.capture { node.post(Ping(value: 1)) }.count }
        }
        #expect(elsewhere == 0)
    }
}

/// Scopes on many tasks at once, half of them setting a value and half not: each task
/// sees its own setting only.
@Suite("Stress: scoped settings on parallel tasks", .checksLeaks)
struct ScopedSettingsStressTests {
    static let tasks = 400

    @Test func parallelScopesSeeOnlyTheirOwnStrictChecks() async {
        let node = DominoNode()
        let wrong = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<Self.tasks {
                group.addTask {
                    let strict = index.isMultiple(of: 2)
                    let reported = Diagnostics.capture {
                        Diagnostics.withUnansweredRequestsReported(strict) { _ = node.request(Ask(question: "\(index)")) }
                    }
                    if reported.count != (strict ? 1 : 0) { wrong.increment() }
                }
            }
        }
        #expect(wrong.value == 0)
    }

    @Test func parallelScopesSeeOnlyTheirOwnDefaultMode() async {
        let node = DominoNode()
        let queue = DispatchQueue(label: "stress.scoped")
        node.subscribe(Ping.self, on: nil) { _ in }
        let wrong = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<Self.tasks {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        let result = DeliveryMode.withDefault(.queue(queue)) { node.post(Ping(value: index)) }
                        if result.scheduled != 1 { wrong.increment() }
                    } else {
                        if node.post(Ping(value: index)).scheduled != 0 { wrong.increment() }
                    }
                }
            }
        }
        queue.sync {}
        #expect(wrong.value == 0)
    }

    @Test func parallelScopesSeeOnlyTheirOwnTracing() async {
        let node = DominoNode()
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        let wrong = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<Self.tasks {
                group.addTask {
                    let traced = index.isMultiple(of: 2)
                    let records = Tracing.capture {
                        Tracing.withAllNodesTraced(traced) { _ = node.post(Ping(value: index)) }
                    }
                    if records.count != (traced ? 2 : 0) { wrong.increment() }
                }
            }
        }
        #expect(wrong.value == 0)
    }
}

/// A synchronous request, which async code would otherwise make as an awaited one.
private func askSynchronously(_ node: DominoNode, _ question: String) {
    _ = node.request(Ask(question: question))
}
