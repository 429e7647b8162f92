import Foundation
import Testing
@testable import Domino

/// The process-wide default is shared state: these tests run one at a time and
/// restore it. Every other test names its modes (or uses a handler's isolation), so
/// only the tests of this suite see the default, including the one in
/// IsolatedHandlerTests.swift, which extends this suite to be serialized with them.
@Suite("Global default delivery mode", .serialized, .checksLeaks)
struct DefaultDeliveryTests {
    @Test func defaultStartsAsThePostingThread() {
        guard case .postingThread = DeliveryMode.default else {
            Issue.record("expected .postingThread, got \(DeliveryMode.default)")
            return
        }
    }

    @Test @MainActor func changingTheDefaultAppliesToSubscriptionsThatNameNoMode() async {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Ping.self, on: nil) { _ in counter.increment() }   // names no mode
        DeliveryMode.default = .mainThread
        defer { DeliveryMode.default = .postingThread }
        // From another thread while the main actor waits for it: with the posting-
        // thread default this would run before post returns; with the main-thread
        // default it is queued on the main queue, which cannot run it meanwhile.
        let (result, seenBeforeReturn) = onAnotherThread { () -> (PostResult, Int) in
            let result = node.post(Ping(value: 1))
            return (result, counter.value)
        }
        #expect(seenBeforeReturn == 0)
        #expect(result.deliveries == 1)
        #expect(result.scheduled == 1)
        await mainQueueHasRunWhatWasQueuedBefore()
        #expect(counter.value == 1)
    }
}
