import Testing
@testable import Domino

/// Checks, after each test, that every node, owner, target and responder that the
/// test handed to Domino deallocated: the library kept none alive.
///
/// Domino records those objects (weakly, in debug builds) for the tracker of the
/// current task; deliveries still queued on other threads get a moment to finish.
/// Objects created on threads outside the test's task (inside `runConcurrently`)
/// are not tracked; the stress tests check theirs themselves.
struct LeakCheck: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else {
            try await function()
            return
        }
        let tracker = InstanceTracker()
        try await InstanceTracker.$current.withValue(tracker) {
            try await function()
        }
        var survivors = tracker.survivors
        var waits = 0
        while !survivors.isEmpty && waits < 400 {
            try await Task.sleep(nanoseconds: 5_000_000)
            survivors = tracker.survivors
            waits += 1
        }
        if !survivors.isEmpty {
            Issue.record("Still alive after the test (kept by Domino?): \(survivors.joined(separator: ", "))")
        }
    }
}

extension Trait where Self == LeakCheck {
    /// Checks that every object the test handed to Domino deallocated.
    static var checksLeaks: LeakCheck { LeakCheck() }
}

@Suite("Leak check")
struct LeakCheckTests {
    @Test func trackerSeesNodesAndOwnersAndForgetsThemWhenTheyDeallocate() {
        let tracker = InstanceTracker()
        var host: Host? = nil
        InstanceTracker.$current.withValue(tracker) {
            host = Host("host")
            host!.domino.subscribe(Ping.self, owner: host!, on: .postingThread) { _, _ in }
        }
        #expect(tracker.count == 2)
        #expect(tracker.survivors.count == 2)
        host = nil
        #expect(tracker.survivors.isEmpty)
    }

    @Test func trackerReportsAnObjectKeptAlive() {
        let tracker = InstanceTracker()
        let kept = InstanceTracker.$current.withValue(tracker) { DominoNode(label: "kept") }
        #expect(tracker.survivors == ["node kept"])
        withExtendedLifetime(kept) {}
    }
}
