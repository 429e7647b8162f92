import Foundation
import Testing
@testable import Domino

/// What `Subscription.cancel()` guarantees for deliveries queued on another thread or
/// queue: one queued before the cancel is dropped when its turn comes after it, and a
/// cancel made where the handler runs (its serial queue, the main actor) leaves none
/// to run. (A delivery already under way on another thread when `cancel()` is called
/// may still run: that part is documented, not guaranteed.)
@Suite("Cancel and queued deliveries", .checksLeaks)
struct CancelQueuedDeliveryTests {
    /// State touched only on one serial queue, which orders every access.
    final class QueueConfined: @unchecked Sendable {
        var cancelled = false
        var ranOnce = false
    }

    @Test func cancelOnTheHandlersSerialQueueLeavesNoQueuedDeliveryToRun() {
        let queue = DispatchQueue(label: "test.cancel.serial")
        let node = DominoNode(label: "n")
        let ran = Counter()
        let violations = Counter()
        for _ in 0..<300 {
            let state = QueueConfined()
            let firstRan = DispatchSemaphore(value: 0)
            let subscription = node.subscribe(Ping.self, on: .queue(queue)) { _ in
                ran.increment()
                if state.cancelled { violations.increment() }
                if !state.ranOnce {
                    state.ranOnce = true
                    firstRan.signal()
                }
            }
            let posted = DispatchSemaphore(value: 0)
            for _ in 0..<2 {
                Thread.detachNewThread {
                    for value in 0..<100 { node.post(Ping(value: value)) }
                    posted.signal()
                }
            }
            // Cancelled on the handler's queue once deliveries run there, between
            // the ones queued before it and those of posts still under way.
            firstRan.wait()
            queue.async {
                subscription.cancel()
                state.cancelled = true
            }
            posted.wait()
            posted.wait()
            queue.sync {}    // every delivery queued has had its turn
        }
        #expect(violations.value == 0)
        #expect(ran.value >= 300)
        #expect(node.subscriptionCount == 0)
    }

    /// Main-actor state of the test below.
    @MainActor final class MainState {
        var cancelled = false
        var ran = 0
        var violations = 0
    }

    @Test @MainActor func cancelOnTheMainActorLeavesNoQueuedMainActorDeliveryToRun() async {
        let node = DominoNode(label: "n")
        let state = MainState()
        for _ in 0..<100 {
            state.cancelled = false
            // Written here, in main-actor code: runs on the main actor, queued there
            // when posted from another thread.
            let subscription = node.subscribe(Ping.self) { _ in
                state.ran += 1
                if state.cancelled { state.violations += 1 }
            }
            let posted = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                for value in 0..<100 { node.post(Ping(value: value)) }
                posted.signal()
            }
            let before = state.ran
            while state.ran == before {                     // some deliveries run first
                await mainQueueHasRunWhatWasQueuedBefore()
            }
            subscription.cancel()
            state.cancelled = true
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    posted.wait()
                    done.resume()
                }
            }
            await mainQueueHasRunWhatWasQueuedBefore()     // every delivery queued has had its turn
        }
        #expect(state.violations == 0)
        #expect(state.ran >= 100)
    }
}
