import Dispatch
import Foundation
import Testing
@testable import Domino

@Suite("Delivery modes", .checksLeaks)
struct DeliveryModeTests {
    @Test func postingThreadModeRunsSynchronouslyBeforePostReturns() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        node.post(Ping(value: 1))
        #expect(counter.value == 1)
    }

    @Test func mainThreadModeDeliversOnTheMainThreadWhenPostedElsewhere() async {
        let node = DominoNode()
        let log = Log<Bool>()
        let key = DispatchSpecificKey<Int>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        node.subscribe(Ping.self, on: .mainThread) { _ in log.append(DispatchQueue.getSpecific(key: key) == 1) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                node.post(Ping(value: 1))
                done.resume()
            }
        }
        #expect(await eventually { log.count == 1 })
        #expect(log.entries == [true])
    }

    @Test @MainActor func mainThreadModeIsSynchronousWhenPostedOnTheMainThread() {
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Ping.self, on: .mainThread) { _ in counter.increment() }
        node.post(Ping(value: 1))
        #expect(counter.value == 1)
    }

    @Test func dispatchQueueModeDeliversOnThatQueue() async {
        let queue = DispatchQueue(label: "test.delivery")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let node = DominoNode()
        let log = Log<Int?>()
        node.subscribe(Ping.self, on: .queue(queue)) { _ in log.append(DispatchQueue.getSpecific(key: key)) }
        let result = node.post(Ping(value: 1))
        #expect(result.deliveries == 1)
        #expect(await eventually { log.count == 1 })
        #expect(log.entries == [7])
    }

    @Test func dispatchQueueModeIsSynchronousWhenPostedOnThatQueue() {
        let queue = DispatchQueue(label: "test.sync")
        let node = DominoNode()
        let counter = Counter()
        node.subscribe(Ping.self, on: .queue(queue)) { _ in counter.increment() }
        let seenBeforeReturn = queue.sync { () -> Int in
            node.post(Ping(value: 1))
            return counter.value
        }
        #expect(seenBeforeReturn == 1)
    }

    @Test func operationQueueModeDeliversOnThatQueue() async {
        let queue = OperationQueue()
        queue.name = "test.operations"
        let node = DominoNode()
        let log = Log<Bool>()
        node.subscribe(Ping.self, on: .operationQueue(queue)) { _ in log.append(OperationQueue.current === queue) }
        node.post(Ping(value: 1))
        #expect(await eventually { log.count == 1 })
        #expect(log.entries == [true])
    }

    @Test func backgroundModeDeliversOffThePostingThreadInPostingOrder() async {
        let node = DominoNode()
        let log = Log<Int>()
        node.subscribe(Ping.self, on: .background) { log.append($0.value) }
        for value in 0..<50 { node.post(Ping(value: value)) }
        #expect(await eventually { log.count == 50 })
        #expect(log.entries == Array(0..<50))
    }

    @Test func nodeDeliveryModeAppliesToSubscriptionsThatNameNone() {
        let node = DominoNode()
        node.deliveryMode = .postingThread
        let counter = Counter()
        node.subscribe(Ping.self, on: nil) { _ in counter.increment() }
        node.post(Ping(value: 1))
        #expect(counter.value == 1)
    }

    @Test func subscriptionModeWinsOverNodeMode() async {
        let queue = DispatchQueue(label: "test.override")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let node = DominoNode()
        node.deliveryMode = .postingThread
        let log = Log<Int?>()
        node.subscribe(Ping.self, on: .queue(queue)) { _ in log.append(DispatchQueue.getSpecific(key: key)) }
        node.post(Ping(value: 1))
        #expect(await eventually { log.count == 1 })
        #expect(log.entries == [1])
    }

    @Test func queuedDeliveryIsDroppedWhenCancelledBeforeItRuns() async {
        let queue = DispatchQueue(label: "test.cancel")
        let node = DominoNode()
        let counter = Counter()
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }                     // hold the queue
        let subscription = node.subscribe(Ping.self, on: .queue(queue)) { _ in counter.increment() }
        node.post(Ping(value: 1))
        subscription.cancel()
        gate.signal()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
        #expect(counter.value == 0)
    }

    @Test func requestsIgnoreTheNodeDeliveryMode() {
        let node = DominoNode()
        node.deliveryMode = .queue(DispatchQueue(label: "unused"))
        node.respond(to: Ask.self, on: .postingThread) { _ in "sync" }
        #expect(node.request(Ask(question: "q")) == "sync")
    }
}
