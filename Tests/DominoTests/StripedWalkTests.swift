import Foundation
import Testing
@testable import Domino

/// Walks down through responder nodes that collect under their stripe without plans
/// (`DominoNode.deliverDownStriped`), and the walks that still go along plans.
///
/// Which way a walk down goes depends on what the process has ever used (a cycle, a
/// default mode with a queue, tracing of all nodes: see `GraphLock.walkGate`), so
/// these tests run in a process of their own, where no other test used them: CI runs
/// them with `DOMINO_STRIPED_WALKS=1 swift test --filter
/// "StripedWalkTests|ResponderWalkDownTests|ResponderWalkUpTests"` (and under the
/// thread and address sanitizers), beside what those walks deliver
/// (`ResponderWalkDownTests`, which the whole suite's run runs too) and the walks up
/// that read without a lock (`ResponderWalkUpTests`). In the whole suite's run these
/// are skipped.
@Suite(
    "Walks down through responder nodes, without plans",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["DOMINO_STRIPED_WALKS"] == "1")
)
@MainActor struct StripedWalkTests {
    /// window > root (controller) > root.view > card > (button, label); a node for
    /// each but the root's view, each with a subscriber.
    @MainActor private struct Window {
        let window = SimWindow("window")
        let root = SimViewController("root")
        let card = SimView("card")
        let button = SimView("button")
        let label = SimView("label")
        let heard = Counter()

        init() {
            window.rootViewController = root
            root.view.addSubview(card)
            card.addSubview(button)
            card.addSubview(label)
            for node in nodes { node.subscribe(Ping.self, on: nil) { [heard] _ in heard.increment() } }
        }

        var nodes: [DominoNode] { [window, root, card, button, label].map(\.dominoNode) }
    }

    /// How many walks down this thread took along plans while `body` ran.
    private func walksAlongPlans(_ body: () -> Void) -> Int {
        let before = ThreadState.current.pointee.walksDownAlongPlans
        body()
        return ThreadState.current.pointee.walksDownAlongPlans - before
    }

    @Test func broadcastsAndRaisesThroughViewsWithNodesGoWithoutPlans() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks go along plans")
        let window = Window()
        var results: [PostResult] = []
        let alongPlans = walksAlongPlans {
            results.append(window.window.dominoNode.broadcast(Ping(value: 1)))
            results.append(window.card.dominoNode.broadcast(Ping(value: 2)))
            results.append(window.button.dominoNode.raise(Ping(value: 3)))
        }
        #expect(alongPlans == 0)
        #expect(results.map(\.deliveries) == [5, 3, 5])
        #expect(window.heard.value == 13)
    }

    @Test func aBroadcastThatMeetsAViewWhoseNodeHasAModeWithAQueueGoesAlongPlansReadingEachChainOnce() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks go along plans")
        let window = Window()
        let root = window.window.dominoNode
        var readsWithout = 0, readsAlong = 0
        let alongPlansBefore = walksAlongPlans {
            readsWithout = responderReads { root.broadcast(Ping(value: 1)) }
        }
        // Run in place all the same: the queue is this thread's own (the main one).
        window.card.dominoNode.deliveryMode = .queue(.main)
        let alongPlansAfter = walksAlongPlans {
            readsAlong = responderReads { root.broadcast(Ping(value: 2)) }
        }
        #expect(alongPlansBefore == 0)
        #expect(alongPlansAfter == 1)
        // The walk that declined read every chain; the walk along plans it handed
        // over to read none again.
        #expect(readsAlong == readsWithout)
        #expect(window.heard.value == 10)
    }

    @Test func aBroadcastThatMeetsAViewWhoseNodeHasAModeWithoutAQueueGoesWithoutPlansAndRunsItsHandlersInThatMode() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks go along plans")
        // The mode is in the node's published word (a responder node's code is 4
        // more than a plain node's); before session 41 any mode of a responder
        // node's own sent the walk along plans.
        let window = Window()
        window.card.dominoNode.deliveryMode = .background
        var result: PostResult?
        let alongPlans = walksAlongPlans { result = window.window.dominoNode.broadcast(Ping(value: 1)) }
        #expect(alongPlans == 0)
        #expect(result?.deliveries == 5)
        // The card's handler, which names no mode, on the background queue.
        #expect(result?.scheduled == 1)
        #expect(waitBackingOff { window.heard.value == 5 })
    }

    @Test func aBroadcastThatMeetsAnInterceptorGoesAlongPlansUntilTheInterceptorIsGone() throws {
        try #require(walkGateIsOpen, "this process used a cycle, tracing of all nodes or a default mode with a queue: walks go along plans")
        let window = Window()
        let root = window.window.dominoNode
        let interception = window.card.dominoNode.intercept(Ping.self) { _ in .stop }
        var deliveries: [Int] = []
        func broadcast(_ value: Int) -> Int {
            walksAlongPlans { deliveries.append(root.broadcast(Ping(value: value)).deliveries) }
        }
        // The first finds the interceptor's table and hands over; the second goes
        // along plans straight away (the thread remembers the walk).
        let withInterceptor: [Int] = [broadcast(1), broadcast(2)]
        #expect(withInterceptor == [1, 1])
        interception.cancel()
        // The first finds the tree plain again and forgets the walk; the next goes
        // without plans.
        let withoutIt: [Int] = [broadcast(3), broadcast(4)]
        #expect(withoutIt == [1, 0])
        #expect(deliveries == [3, 3, 5, 5])
    }
}
