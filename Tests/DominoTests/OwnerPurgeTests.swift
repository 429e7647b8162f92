import Dispatch
import Testing
@testable import Domino

/// An owner that holds nothing: only its lifetime matters here.
private final class Owner: Sendable {}

/// A main-actor owner, as a view controller is.
@MainActor private final class Screen {
    var seen = 0
}

/// Owner-bound handlers whose owner is gone are removed whatever their delivery mode:
/// a queued mode used to keep them, and queue an empty delivery for each, forever.
@Suite("Dead owners are purged under every delivery mode", .checksLeaks)
struct OwnerPurgeTests {
    @Test func deadOwnersUnderAQueueModeArePurgedByTheNextPostInsteadOfQueued() {
        let node = DominoNode(label: "queued")
        let queue = DispatchQueue(label: "purge.queued")
        var owners = (0..<2_000).map { _ in Owner() }
        for owner in owners {
            node.subscribe(Ping.self, owner: owner, on: .queue(queue)) { _, _ in }
        }
        #expect(node.subscriptionCount == 2_000)
        owners.removeAll()
        let result = node.post(Ping(value: 1))
        #expect(result.deliveries == 0)
        #expect(result.scheduled == 0)
        #expect(node.subscriptionCount == 0)
        queue.sync {}
    }

    @Test func anOwnerThatDiesWhileItsDeliveryIsQueuedIsPurgedWhenTheDeliveryRuns() {
        let node = DominoNode(label: "dies while queued")
        let queue = DispatchQueue(label: "purge.later")
        var owner: Owner? = Owner()
        let heard = Counter()
        node.subscribe(Ping.self, owner: owner!, on: .queue(queue)) { _, _ in heard.increment() }
        queue.suspend()
        #expect(node.post(Ping(value: 1)).scheduled == 1)
        owner = nil
        queue.resume()
        queue.sync {}                          // the queued delivery has run
        #expect(heard.value == 0)
        #expect(node.subscriptionCount == 0)
    }

    @Test @MainActor func aMainActorOwnerGoneBeforeABackgroundPostIsPurgedNotScheduled() async {
        let node = DominoNode(label: "main-actor owner")
        var screen: Screen? = Screen()
        node.subscribe(Ping.self, owner: screen!) { screen, _ in screen.seen += 1 }
        screen = nil
        let result = onAnotherThread { node.post(Ping(value: 1)) }
        #expect(result.scheduled == 0)
        #expect(node.subscriptionCount == 0)
    }
}
