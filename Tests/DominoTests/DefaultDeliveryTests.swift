import Foundation
import Testing
@testable import Domino

/// The default delivery mode. The process-wide value is shared state, so these tests
/// change it only with `DeliveryMode.withDefault`, for their own posts; they still run
/// one at a time, with the one in IsolatedHandlerTests.swift, which extends this suite
/// and relies on the process-wide value being the posting thread.
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
        // From another thread while the main actor waits for it: with the posting-
        // thread default this would run before post returns; with the main-thread
        // default it is queued on the main queue, which cannot run it meanwhile. The
        // default is scoped to that thread's post, so no other test sees it.
        let (result, seenBeforeReturn) = onAnotherThread { () -> (PostResult, Int) in
            let result = DeliveryMode.withDefault(.mainThread) { node.post(Ping(value: 1)) }
            return (result, counter.value)
        }
        #expect(seenBeforeReturn == 0)
        #expect(result.deliveries == 1)
        #expect(result.scheduled == 1)
        await mainQueueHasRunWhatWasQueuedBefore()
        #expect(counter.value == 1)
    }
}
