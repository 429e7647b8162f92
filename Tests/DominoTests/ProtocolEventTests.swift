import Dispatch
import Foundation
import Testing
@testable import Domino

/// Events declared as a protocol, as Domino's SelectorEvents are.
protocol ContentEvents: AnyObject, Sendable {
    func contentDidLoad(itemCount: Int)
    func fetchChannelID() -> String?
}

extension ContentEvents {
    // Defaults make the methods optional, as `@optional` did.
    func contentDidLoad(itemCount: Int) {}
    func fetchChannelID() -> String? { nil }
}

/// A target that logs its calls and answers with a fixed channel, or declines.
final class ContentTarget: ContentEvents, @unchecked Sendable {
    let name: String
    let log: Log<String>
    let channel: String?

    init(_ name: String, log: Log<String>, channel: String? = nil) {
        self.name = name
        self.log = log
        self.channel = channel
    }

    func contentDidLoad(itemCount: Int) { log.append("\(name):\(itemCount)") }

    func fetchChannelID() -> String? {
        log.append("\(name):asked")
        return channel
    }
}

/// A protocol target that is a value, which cannot be held weakly.
protocol Counting: Sendable { func count() }
struct CountingValue: Counting {
    let counter: Counter
    func count() { counter.increment() }
}

@Suite("Protocol events", .checksLeaks)
struct ProtocolEventTests {
    @Test func voidMethodNotifiesEveryTargetOnTheRouteInRouteOrder() {
        let nodes = makeChain(3)
        let log = Log<String>()
        let targets = (0..<3).map { ContentTarget("t\($0)", log: log) }
        for index in [2, 0, 1] {
            nodes[index].subscribe(ContentEvents.self, target: targets[index], on: .postingThread)
        }
        let result = nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 12) }
        #expect(log.entries == ["t0:12", "t1:12", "t2:12"])
        #expect(result.deliveries == 3)
    }

    @Test func valueReturningMethodIsAnsweredByTheFirstTargetWithANonNilAnswerAndGoesNoFurther() {
        let nodes = makeChain(3)
        let log = Log<String>()
        let decliner = ContentTarget("low", log: log, channel: nil)
        let answerer = ContentTarget("mid", log: log, channel: "channel-7")
        let top = ContentTarget("top", log: log, channel: "channel-top")
        nodes[0].subscribe(ContentEvents.self, target: decliner, on: .postingThread)
        nodes[1].subscribe(ContentEvents.self, target: answerer, on: .postingThread)
        nodes[2].subscribe(ContentEvents.self, target: top, on: .postingThread)
        let channel = nodes[0].request(ContentEvents.self) { $0.fetchChannelID() }
        #expect(channel == "channel-7")
        #expect(log.entries == ["low:asked", "mid:asked"])
    }

    @Test func valueReturningMethodWithoutAnAnswerReturnsNil() {
        let nodes = makeChain(2)
        let log = Log<String>()
        let decliner = ContentTarget("low", log: log)
        nodes[1].subscribe(ContentEvents.self, target: decliner, on: .postingThread)
        #expect(nodes[0].request(ContentEvents.self) { $0.fetchChannelID() } == nil)
        #expect(log.entries == ["low:asked"])
    }

    @Test func valueReturningMethodPassesByATargetWhoseModeRunsElsewhereAndReportsIt() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let target = ContentTarget("t", log: log, channel: "c")
        node.subscribe(ContentEvents.self, target: target, on: .queue(DispatchQueue(label: "elsewhere")))
        var answer: String?
        let diagnostics = Diagnostics.capture {
            answer = node.request(ContentEvents.self) { $0.fetchChannelID() }
        }
        #expect(answer == nil)
        #expect(log.entries.isEmpty)
        #expect(diagnostics.map(\.code) == [.targetSkipped])
    }

    @Test func targetsAreHeldWeaklyAndDropOutWhenTheyDeallocate() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        var target: ContentTarget? = ContentTarget("t", log: log)
        let weakTarget = WeakBox(target)
        let subscription = node.subscribe(ContentEvents.self, target: target!, on: .postingThread)
        node.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }
        target = nil
        #expect(weakTarget.value == nil)
        #expect(!subscription.isActive)
        let result = node.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 2) }
        #expect(log.entries == ["t:1"])
        #expect(result.deliveries == 0)
        #expect(node.subscriptionCount == 0)
    }

    @Test func targetIsRetainedForTheDurationOfItsCall() {
        let node = DominoNode(label: "n")
        final class SelfDropping: ContentEvents, @unchecked Sendable {
            var keeper: StrongBox<SelfDropping>?
            let alive = Log<Bool>()
            func contentDidLoad(itemCount: Int) {
                let weakSelf = WeakBox(self)
                keeper?.value = nil          // the last outside reference goes away
                alive.append(weakSelf.value != nil)
            }
        }
        var target: SelfDropping? = SelfDropping()
        let box = StrongBox(target)
        target!.keeper = box
        let log = target!.alive
        let weakTarget = WeakBox(target)
        node.subscribe(ContentEvents.self, target: target!, on: .postingThread)
        target = nil
        node.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }
        #expect(log.entries == [true])
        #expect(weakTarget.value == nil)
    }

    /// An object whose protocol is not class-bound: the protocol's existential is
    /// an opaque container, with the object's reference in its buffer.
    final class CountingObject: Counting, @unchecked Sendable {
        let counter: Counter
        init(counter: Counter) { self.counter = counter }
        func count() { counter.increment() }
    }

    @Test func objectTargetOfAProtocolThatIsNotClassBoundIsCalledAndHeldWeakly() {
        let node = DominoNode(label: "n")
        let counter = Counter()
        var target: CountingObject? = CountingObject(counter: counter)
        let weakTarget = WeakBox(target)
        let diagnostics = Diagnostics.capture {
            node.subscribe(Counting.self, target: target!, on: .postingThread)
        }
        #expect(diagnostics.isEmpty)
        node.post(Counting.self) { $0.count() }
        node.post(Counting.self) { $0.count() }
        #expect(counter.value == 2)
        target = nil
        #expect(weakTarget.value == nil)
        #expect(node.post(Counting.self) { $0.count() }.deliveries == 0)
        #expect(counter.value == 2)
    }

    /// A subclass adopts the protocol through its superclass and overrides a method.
    class BaseContentTarget: ContentEvents, @unchecked Sendable {
        let log: Log<String>
        init(log: Log<String>) { self.log = log }
        func contentDidLoad(itemCount: Int) { log.append("base:\(itemCount)") }
    }

    final class DerivedContentTarget: BaseContentTarget, @unchecked Sendable {
        override func contentDidLoad(itemCount: Int) { log.append("derived:\(itemCount)") }
    }

    @Test func subclassTargetIsCalledThroughItsOwnOverrideOfTheProtocolMethod() {
        let nodes = makeChain(2)
        let log = Log<String>()
        let derived = DerivedContentTarget(log: log)
        let base = BaseContentTarget(log: log)
        nodes[0].subscribe(ContentEvents.self, target: derived, on: .postingThread)
        nodes[1].subscribe(ContentEvents.self, target: base, on: .postingThread)
        nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 3) }
        #expect(log.entries == ["derived:3", "base:3"])
    }

    @Test func targetOfAProtocolCompositionIsCalledThroughBothProtocols() {
        final class Both: ContentEvents, Counting, @unchecked Sendable {
            let log: Log<String>
            init(log: Log<String>) { self.log = log }
            func contentDidLoad(itemCount: Int) { log.append("loaded:\(itemCount)") }
            func count() { log.append("counted") }
        }
        typealias Composition = ContentEvents & Counting
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let target = Both(log: log)
        node.subscribe(Composition.self, target: target, on: .postingThread)
        node.post(Composition.self) { $0.contentDidLoad(itemCount: 4); $0.count() }
        #expect(log.entries == ["loaded:4", "counted"])
        #expect(node.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 5) }.deliveries == 0)
    }

    /// A target that records its death in `ledger` and, when called, whether it was
    /// already dead (its memory outlives its deinit while its subscription holds
    /// it, so the check itself reads only a plain word).
    final class MortalTarget: Counting, @unchecked Sendable {
        let id: Int
        let ledger: MortalLedger
        init(id: Int, ledger: MortalLedger) {
            self.id = id
            self.ledger = ledger
        }
        deinit { ledger.died(id) }
        func count() { ledger.called(id) }
    }

    final class MortalLedger: @unchecked Sendable {
        private let lock = NSLock()
        private var dead = Set<Int>()
        private(set) var calls = 0
        private(set) var callsAfterDeath = 0
        func died(_ id: Int) { lock.withLock { _ = dead.insert(id) } }
        func called(_ id: Int) {
            lock.withLock {
                calls += 1
                if dead.contains(id) { callsAfterDeath += 1 }
            }
        }
        var totals: (calls: Int, afterDeath: Int) { lock.withLock { (calls, callsAfterDeath) } }
    }

    @Test func protocolPostsRacingTargetsThatDieOnAnotherThreadNeverCallADeadOne() {
        let nodes = makeChain(4)
        let (bottom, top) = (nodes[0], nodes[3])
        let ledger = MortalLedger()
        let targets = 400
        let churned = DispatchSemaphore(value: 0)
        let posters = 2
        let started = DispatchSemaphore(value: 0)
        let posted = DispatchSemaphore(value: 0)
        let done = Counter()
        // One thread subscribes targets at the top and lets each die two later (its
        // last reference is the thread's), while two threads post up the chain. The
        // posters start once the first target is in and it has been called (so the
        // race has calls to check), and each stops after a bounded number of posts:
        // posting without end only took the cores from the subscribing thread.
        Thread.detachNewThread {
            var alive: [MortalTarget] = []
            for id in 0..<targets {
                let target = MortalTarget(id: id, ledger: ledger)
                top.subscribe(Counting.self, target: target, on: .postingThread)
                alive.append(target)
                if alive.count > 2 { alive.removeFirst() }
                if id == 0 {
                    for _ in 0..<posters { started.signal() }
                    while ledger.totals.calls == 0 { usleep(50) }
                }
            }
            alive.removeAll()
            done.increment()
            churned.signal()
        }
        for _ in 0..<posters {
            Thread.detachNewThread {
                started.wait()
                var posts = 0
                while done.value == 0 && posts < 20_000 {
                    bottom.post(Counting.self) { $0.count() }
                    posts += 1
                }
                posted.signal()
            }
        }
        churned.wait()
        for _ in 0..<posters { posted.wait() }
        let totals = ledger.totals
        #expect(totals.afterDeath == 0)
        #expect(totals.calls > 0)
        // Every target is dead now: a post calls none, and purges what is left.
        #expect(bottom.post(Counting.self) { $0.count() }.deliveries == 0)
        #expect(top.subscriptionCount == 0)
    }

    @Test func protocolInterceptorStopsEveryMethodOfTheProtocol() {
        let nodes = makeChain(3)
        let log = Log<String>()
        let top = ContentTarget("top", log: log, channel: "c")
        let middle = ContentTarget("mid", log: log, channel: nil)
        nodes[1].subscribe(ContentEvents.self, target: middle, on: .postingThread)
        nodes[2].subscribe(ContentEvents.self, target: top, on: .postingThread)
        nodes[1].intercept(protocol: ContentEvents.self) { _ in .stop }
        let result = nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 3) }
        let answer = nodes[0].request(ContentEvents.self) { $0.fetchChannelID() }
        #expect(result.stopReason == .interceptor)
        #expect(result.stoppedAt == "n1")
        #expect(answer == nil)
        #expect(log.entries == ["mid:3", "mid:asked"])
    }

    @Test func protocolInterceptorSeesTheMethodNameTheSenderGave() {
        let nodes = makeChain(2)
        let log = Log<String>()
        let top = ContentTarget("top", log: log)
        nodes[1].subscribe(ContentEvents.self, target: top, on: .postingThread)
        let seen = Log<String>()
        nodes[0].intercept(protocol: ContentEvents.self) { call in
            seen.append(call.description)
            return call.method == "contentDidLoad" ? .stop : .proceed
        }
        nodes[0].post(ContentEvents.self, method: "contentDidLoad") { $0.contentDidLoad(itemCount: 1) }
        nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 2) }
        #expect(log.entries == ["top:2"])
        #expect(seen.entries == ["ContentEvents.contentDidLoad", "ContentEvents"])
    }

    @Test func voidMethodCallsATargetWhoseModeIsAQueueWhenPostedOnThatQueue() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let target = ContentTarget("t", log: log)
        let queue = DispatchQueue(label: "targets")
        let onQueue = Log<Bool>()
        queue.setSpecific(key: queueKey, value: 1)
        node.subscribe(ContentEvents.self, target: target, on: .queue(queue))
        let result = queue.sync {
            node.post(ContentEvents.self) { target in
                onQueue.append(DispatchQueue.getSpecific(key: queueKey) == 1)
                target.contentDidLoad(itemCount: 5)
            }
        }
        #expect(log.entries == ["t:5"])
        #expect(onQueue.entries == [true])
        #expect(result.ran == 1)
    }

    @Test func voidMethodPassesByATargetWhoseModeRunsElsewhereCallsTheRestAndReportsIt() {
        let nodes = makeChain(2)
        let log = Log<String>()
        let elsewhere = ContentTarget("elsewhere", log: log)
        let here = ContentTarget("here", log: log)
        nodes[0].subscribe(ContentEvents.self, target: elsewhere, on: .queue(DispatchQueue(label: "elsewhere")))
        nodes[1].subscribe(ContentEvents.self, target: here, on: .postingThread)
        var result: PostResult?
        let diagnostics = Diagnostics.capture {
            result = nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 2) }
        }
        #expect(log.entries == ["here:2"])
        #expect(result?.ran == 1)
        #expect(result?.scheduled == 0)
        #expect(diagnostics.map(\.code) == [.targetSkipped])
        #expect(diagnostics.first?.message.contains("1 target(s)") == true)
    }

    @Test func voidMethodResultCountsTheTargetsCalledAndTheInterceptorThatStopped() {
        let nodes = makeChain(3)
        let log = Log<String>()
        let targets = nodes.indices.map { ContentTarget("t\($0)", log: log) }
        for (node, target) in zip(nodes, targets) {
            node.subscribe(ContentEvents.self, target: target, on: .postingThread)
        }
        nodes[1].intercept(protocol: ContentEvents.self) { _ in .stop }
        let result = nodes[0].post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }
        #expect(log.entries == ["t0:1", "t1:1"])
        #expect(result.ran == 2)
        #expect(result.stopReason == .interceptor)
        #expect(result.stoppedAt == nodes[1].description)
    }

    @Test func valueTargetIsKeptStronglyAndReported() {
        let node = DominoNode(label: "n")
        let counter = Counter()
        let diagnostics = Diagnostics.capture {
            node.subscribe(Counting.self, target: CountingValue(counter: counter), on: .postingThread)
        }
        node.post(Counting.self) { $0.count() }
        #expect(diagnostics.map(\.code) == [.targetNotAnObject])
        #expect(counter.value == 1)
    }

    @Test func unsubscribingTheProtocolRemovesItsTargetsAndInterceptors() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let target = ContentTarget("t", log: log)
        node.subscribe(ContentEvents.self, target: target, on: .postingThread)
        node.intercept(protocol: ContentEvents.self) { _ in .stop }
        node.unsubscribe(protocol: ContentEvents.self)
        node.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }
        #expect(log.entries.isEmpty)
        #expect(node.subscriptionCount == 0)
    }

    @Test func cancellingATargetsSubscriptionStopsItsCalls() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let target = ContentTarget("t", log: log, channel: "c")
        let subscription = node.subscribe(ContentEvents.self, target: target, on: .postingThread)
        subscription.cancel()
        node.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) }
        #expect(node.request(ContentEvents.self) { $0.fetchChannelID() } == nil)
        #expect(log.entries.isEmpty)
    }

    /// Targets a, b and c subscribed in that order at one node, b's subscription
    /// cancelled: its entry stays in the list's storage, marked removed.
    private func threeTargetsWithTheMiddleOneCancelled() -> (node: DominoNode, log: Log<String>, targets: [ContentTarget]) {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let targets = ["a", "b", "c"].map { ContentTarget($0, log: log) }
        let subscriptions = targets.map { node.subscribe(ContentEvents.self, target: $0, on: .postingThread) }
        subscriptions[1].cancel()
        return (node, log, targets)
    }

    @Test func aCancelledTargetAmongSeveralAtANodeIsSkippedAndTheOthersAreCalledInOrder() {
        let (node, log, targets) = threeTargetsWithTheMiddleOneCancelled()
        // Targets are held weakly: kept alive for the post.
        let result = withExtendedLifetime(targets) { node.post(ContentEvents.self) { $0.contentDidLoad(itemCount: 1) } }
        #expect(log.entries == ["a:1", "c:1"])
        #expect(result.deliveries == 2)
    }

    @Test func aPostToEveryTargetSkipsACancelledTargetAmongSeveralAtANode() {
        let (node, log, targets) = threeTargetsWithTheMiddleOneCancelled()
        let result = withExtendedLifetime(targets) { node.post(ContentEvents.self, to: .everyTarget) { $0.contentDidLoad(itemCount: 2) } }
        #expect(log.entries == ["a:2", "c:2"])
        #expect(result.deliveries == 2)
    }

    @Test func tracesNameTheProtocolAndMethod() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        let target = ContentTarget("t", log: log)
        node.subscribe(ContentEvents.self, target: target, on: .postingThread)
        node.isTracing = true
        let records = Tracing.capture {
            node.post(ContentEvents.self, method: "contentDidLoad") { $0.contentDidLoad(itemCount: 1) }
        }
        #expect(records.map(\.event) == ["ContentEvents.contentDidLoad", "ContentEvents.contentDidLoad"])
        #expect(records.map(\.kind) == [.posted, .delivered])
    }
}

private let queueKey = DispatchSpecificKey<Int>()
