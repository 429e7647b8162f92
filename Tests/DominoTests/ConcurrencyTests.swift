import Dispatch
import Foundation
import Testing
@testable import Domino

/// Runs `body(worker)` on `workers` threads at once and waits for all of them.
func runConcurrently(_ workers: Int, _ body: @escaping @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: workers) { body($0) }
}

@Suite("Thread safety and reentrancy", .checksLeaks)
struct ConcurrencyTests {
    @Test func concurrentPostsDeliverEveryEventExactlyOnce() {
        let nodes = makeChain(10)
        let counter = Counter()
        nodes[9].subscribe(Ping.self, on: .postingThread) { _ in counter.increment() }
        runConcurrently(4) { _ in
            for value in 0..<5_000 { nodes[0].post(Ping(value: value)) }
        }
        #expect(counter.value == 20_000)
    }

    @Test func noPostStartedAfterCancelReturnedReachesTheHandler() {
        // Every post takes a ticket before it starts; each subscription remembers the
        // last ticket handed out when its cancel() returned. A delivery carrying a
        // later ticket came from a post that started after the cancel: a violation.
        let node = DominoNode()
        let tickets = Ticketer()
        let violations = Counter()
        let deliveries = Counter()
        runConcurrently(4) { worker in
            if worker == 0 {
                for _ in 0..<2_000 {
                    let cancelMark = Ticketer.Mark()
                    let subscription = node.subscribe(Ping.self, on: .postingThread) { ping in
                        deliveries.increment()
                        if let mark = cancelMark.value, ping.value > mark { violations.increment() }
                    }
                    node.post(Ping(value: tickets.next()))
                    subscription.cancel()
                    cancelMark.value = tickets.current
                    node.post(Ping(value: tickets.next()))
                }
            } else {
                for _ in 0..<10_000 { node.post(Ping(value: tickets.next())) }
            }
        }
        #expect(violations.value == 0)
        #expect(deliveries.value >= 2_000)   // each subscription saw at least its own first post
        #expect(node.subscriptionCount == 0)
    }

    @Test func mixedMutationsAndPostsFromManyThreadsKeepTheGraphConsistent() {
        let root = DominoNode(label: "root")
        let total = Counter()
        root.subscribe(Ping.self, on: .postingThread) { _ in total.increment() }
        let posts = Counter()
        runConcurrently(4) { worker in
            var local: [DominoNode] = []
            for step in 0..<3_000 {
                switch step % 6 {
                case 0:
                    let node = DominoNode(label: "w\(worker)-\(step)")
                    node.mount(at: local.last ?? root)
                    local.append(node)
                case 1:
                    local.last?.subscribe(Pong.self, on: .postingThread) { _ in }
                case 2:
                    (local.last ?? root).post(Ping(value: step))
                    posts.increment()
                case 3:
                    local.last?.clearAllSubscribers()
                case 4:
                    if local.count > 3 { local.removeFirst() }   // deallocate a node mid-chain
                default:
                    (local.last ?? root).post(Pong(text: "x"))
                }
            }
        }
        // Every node still mounted reaches root; removed middle nodes cut chains,
        // so root saw at most one delivery per post.
        #expect(total.value <= posts.value)
        #expect(total.value > 0)
    }

    @Test func handlerMayPostSubscribeMountAndUnmountOnTheSameNodesWithoutDeadlock() {
        let nodes = makeChain(3)
        let log = Log<String>()
        let extra = DominoNode(label: "extra")
        // Unowned: a node's handler that captured its own node strongly would be a
        // retain cycle (as in any app), which the leak check would report.
        nodes[1].subscribe(Ping.self, on: .postingThread) { [unowned extra, unowned n0 = nodes[0], unowned n1 = nodes[1], unowned n2 = nodes[2]] ping in
            let nodes = [n0, n1, n2]
            guard ping.value == 0 else { return }
            nodes[0].post(Pong(text: "nested"))
            nodes[1].subscribe(Pong.self, on: .postingThread) { _ in log.append("late") }
            extra.mount(at: nodes[1])
            extra.unmount(from: nodes[1])
            nodes[0].unmount(from: nodes[1])
            nodes[0].mount(at: nodes[1])
            _ = nodes[2].request(Ask(question: "q"))
            log.append("handled")
        }
        nodes[2].subscribe(Pong.self, on: .postingThread) { _ in log.append("pong") }
        nodes[0].post(Ping(value: 0))
        #expect(log.entries == ["pong", "handled"])
        nodes[0].post(Pong(text: "after"))
        #expect(log.entries == ["pong", "handled", "late", "pong"])
    }

    @Test func subscriptionAddedDuringAPostIsNotCalledByThatPost() {
        let node = DominoNode()
        let log = Log<String>()
        node.subscribe(Ping.self, on: .postingThread) { [unowned node] _ in
            node.subscribe(Ping.self, on: .postingThread) { _ in log.append("new") }
            log.append("old")
        }
        node.post(Ping(value: 1))
        #expect(log.entries == ["old"])
    }

    /// The walk reads the later node's table before the first handler runs; the
    /// cancel on another thread meanwhile leaves this thread's write count as it
    /// was, so only the handler's own removed mark can keep the walk from calling
    /// it (a handler alone on its node: no storage entry carries the mark).
    @Test(arguments: [false, true], [DeliveryMode.postingThread, nil])
    func aHandlerAloneOnItsNodeCancelledOnAnotherThreadMidWalkIsNotCalledByThatWalk(broadcast: Bool, mode: DeliveryMode?) {
        let parent = DominoNode(label: "parent")
        let child = DominoNode(label: "child")
        child.mount(at: parent)
        let (first, later) = broadcast ? (parent, child) : (child, parent)
        let inHandler = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let heard = Counter()
        first.subscribe(Ping.self, on: mode) { _ in
            inHandler.signal()
            resume.wait()
        }
        let cancelled = later.subscribe(Ping.self, on: mode) { _ in heard.increment() }
        Thread.detachNewThread {
            inHandler.wait()
            cancelled.cancel()
            resume.signal()
        }
        let result = broadcast ? first.broadcast(Ping(value: 1)) : first.post(Ping(value: 1))
        #expect(heard.value == 0)
        #expect(result.deliveries == 1)
    }

    @Test func hostDeallocatedInsideAHandlerIsSafe() {
        let parent = DominoNode(label: "parent")
        let box = StrongBox<Host>(Host("child"))
        box.value!.domino.mount(at: parent)
        let log = Log<String>()
        parent.subscribe(Ping.self, on: .postingThread) { _ in
            box.value = nil            // the child host and its node go away mid-walk
            log.append("parent")
        }
        box.value!.domino.subscribe(Ping.self, on: .postingThread) { _ in log.append("child") }
        let child = WeakBox(box.value!.domino)
        child.value?.post(Ping(value: 1))
        #expect(log.entries == ["child", "parent"])
        #expect(child.value == nil)
        #expect(parent.children.isEmpty)
    }

    @Test func runawayRecursivePostingIsCutOffAndReported() {
        let node = DominoNode(label: "recursive")
        let depth = Counter()
        node.subscribe(Ping.self, on: .postingThread) { [unowned node] ping in
            depth.increment()
            node.post(Ping(value: ping.value + 1))
        }
        let diagnostics = Diagnostics.capture { node.post(Ping(value: 0)) }
        #expect(depth.value == DominoNode.maximumNestingDepth)
        #expect(diagnostics.map(\.code) == [.nestingLimitExceeded])
        // The thread is usable afterwards: nesting unwound.
        let after = DominoNode()
        after.subscribe(Pong.self, on: .postingThread) { _ in depth.increment() }
        after.post(Pong(text: "ok"))
        #expect(depth.value == DominoNode.maximumNestingDepth + 1)
    }

    @Test func concurrentSubscribeAndCancelLeavesNoSubscriptions() {
        let node = DominoNode()
        runConcurrently(4) { _ in
            for _ in 0..<2_000 {
                let subscription = node.subscribe(Ping.self, on: .postingThread) { _ in }
                node.post(Ping(value: 0))
                subscription.cancel()
            }
        }
        #expect(node.subscriptionCount == 0)
    }

    @Test func nodesCreatedAndDestroyedOnManyThreadsDoNotLeak() {
        let root = DominoNode()
        let weakNodes = Log<WeakBox<DominoNode>>()
        runConcurrently(4) { _ in
            for _ in 0..<1_000 {
                let node = DominoNode()
                node.mount(at: root)
                node.subscribe(Ping.self, on: .postingThread) { _ in }
                node.post(Ping(value: 0))
                weakNodes.append(WeakBox(node))
            }
        }
        #expect(weakNodes.entries.allSatisfy { $0.value == nil })
        #expect(root.children.isEmpty)
    }
}
