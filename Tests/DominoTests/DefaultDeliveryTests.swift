import Foundation
import Testing
@testable import Domino

/// The process-wide default is shared state: these tests run one at a time, restore
/// it, and only ever switch it to `.postingThread`, which keeps every other test
/// (they name their modes, or post on the main actor) behaving the same.
@Suite("Global default delivery mode", .serialized, .checksLeaks)
struct DefaultDeliveryTests {
    @Test func defaultStartsAsTheMainThreadLikeDomino() {
        guard case .mainThread = DeliveryMode.default else {
            Issue.record("expected .mainThread, got \(DeliveryMode.default)")
            return
        }
    }

    @Test func changingTheDefaultAppliesToSubscriptionsThatNameNoMode() async {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Ping.self) { _ in counter.increment() }   // names no mode
        DeliveryMode.default = .postingThread
        defer { DeliveryMode.default = .mainThread }
        // From a plain thread: with the main-thread default this would be queued on
        // the main queue; with the posting-thread default it runs before post returns.
        let seenBeforeReturn = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            Thread.detachNewThread {
                node.post(Ping(value: 1))
                done.resume(returning: counter.value)
            }
        }
        #expect(seenBeforeReturn == 1)
    }
}
