import Foundation
import Testing
@testable import Domino

/// What the stress test's events carry: which post delivered them.
struct StressEvent: Event { var post: Int }
struct StressAsk: Request {
    typealias Response = Int
    var post: Int
}

/// Thread-safe records of a stress run, in ticket order.
private final class StressLedger: @unchecked Sendable {
    struct Walk { let id: Int; let anchor: Int; let down: Bool; let start: Int; let end: Int }
    struct Listener { let id: Int; let anchor: Int; let subscribed: Int; var cancelCalled: Int?; var cancelReturned: Int? }

    private let lock = NSLock()
    private var clock = 0
    private var nextID = 0
    private(set) var walks: [Walk] = []
    private(set) var listeners: [Int: Listener] = [:]
    private(set) var deliveries: [Int: [Int: Int]] = [:]   // listener -> post -> count
    private var weakObjects: [WeakBox<AnyObject>] = []

    func tick() -> Int { lock.withLock { clock += 1; return clock } }
    func newID() -> Int { lock.withLock { nextID += 1; return nextID } }
    func record(_ walk: Walk) { lock.withLock { walks.append(walk) } }
    func record(_ listener: Listener) { lock.withLock { listeners[listener.id] = listener } }
    func cancelCalled(_ id: Int, at tick: Int) { lock.withLock { listeners[id]?.cancelCalled = tick } }
    func cancelReturned(_ id: Int, at tick: Int) { lock.withLock { listeners[id]?.cancelReturned = tick } }
    func delivered(_ listener: Int, post: Int) { lock.withLock { deliveries[listener, default: [:]][post, default: 0] += 1 } }
    func watch(_ object: AnyObject) { lock.withLock { weakObjects.append(WeakBox(object)) } }
    var survivors: Int { lock.withLock { weakObjects.filter { $0.value != nil }.count } }
    var watched: Int { lock.withLock { weakObjects.count } }
}

@Suite("Stress: mixed operations from four threads on one graph", .checksLeaks)
struct StressTests {
    static let threads = 4
    static let operationsPerThread = 25_000
    /// `DOMINO_STRESS_SECONDS=600 swift test --filter Stress` runs each thread for that
    /// long instead of `operationsPerThread` operations, for local soaks.
    static let seconds = ProcessInfo.processInfo.environment["DOMINO_STRESS_SECONDS"].flatMap(Double.init)
    static let anchorCount = 8

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func mixedOperationsKeepEveryInvariant() {
        let ledger = StressLedger()
        run(into: ledger)
        check(ledger)
        // Nothing is kept alive by the library: anchors, floating and transient nodes, owners.
        #expect(ledger.survivors == 0, "\(ledger.survivors) of \(ledger.watched) objects still alive")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private func run(into ledger: StressLedger) {
        // The anchors: a chain a0 (bottom) ... a7 (top) that no operation remounts, so
        // that who must receive a post is known; everything else comes and goes.
        let shared = (0..<Self.anchorCount).map { DominoNode(label: "a\($0)") }
        for index in 0..<(Self.anchorCount - 1) { shared[index].mount(at: shared[index + 1]) }
        shared[Self.anchorCount - 1].respond(to: StressAsk.self, on: .postingThread) { $0.post }
        for anchor in shared { ledger.watch(anchor) }
        let failures = Counter()
        // A signal fired from every thread, with one observer for the whole run and
        // short-lived ones coming and going.
        let signal = IntegerSignal()
        let steady = Host("steady observer")
        ledger.watch(steady)
        let fires = Counter(), heard = Counter()
        signal.subscribe(steady, on: .postingThread) { _, _ in heard.increment() }

        // Deliveries queued here outlive the nodes and owners that posted them.
        let queue = DispatchQueue(label: "stress.queued")

        runConcurrently(Self.threads) { worker in
            var random = SeededGenerator(seed: 0x57_0000 + UInt64(worker))
            var mine: [(id: Int, subscription: Subscription)] = []
            let floating = DominoNode(label: "floating\(worker)")
            ledger.watch(floating)
            // A subscriber that follows the floating node's mode, which others swap.
            floating.subscribe(StressEvent.self, on: nil) { _ in }
            let deadline = Self.seconds.map { Date().addingTimeInterval($0) }
            var done = 0
            while deadline.map({ Date() < $0 }) ?? (done < Self.operationsPerThread) {
                done += 1
                let anchor = Int.random(in: 0..<Self.anchorCount, using: &random)
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<30:
                    let id = ledger.newID()
                    let start = ledger.tick()
                    shared[anchor].post(StressEvent(post: id))
                    ledger.record(.init(id: id, anchor: anchor, down: false, start: start, end: ledger.tick()))
                case 30..<38:
                    let id = ledger.newID()
                    if shared[anchor].request(StressAsk(post: id)) != id { failures.increment() }
                case 38..<53:
                    let id = ledger.newID()
                    let subscription = shared[anchor].subscribe(StressEvent.self, on: .postingThread) { event in
                        ledger.delivered(id, post: event.post)
                    }
                    ledger.record(.init(id: id, anchor: anchor, subscribed: ledger.tick()))
                    mine.append((id, subscription))
                case 53..<65 where !mine.isEmpty:
                    let (id, subscription) = mine.remove(at: Int.random(in: 0..<mine.count, using: &random))
                    ledger.cancelCalled(id, at: ledger.tick())
                    subscription.cancel()
                    ledger.cancelReturned(id, at: ledger.tick())
                case 65..<73:
                    let id = ledger.newID()
                    let start = ledger.tick()
                    shared[anchor].broadcast(StressEvent(post: id))
                    ledger.record(.init(id: id, anchor: anchor, down: true, start: start, end: ledger.tick()))
                case 73..<83:
                    // A node that lives for one operation: mounted, subscribed by an
                    // owner, posted from, dropped.
                    let node = DominoNode(label: "transient")
                    let owner = Host("owner")
                    ledger.watch(node)
                    ledger.watch(owner)
                    node.mount(at: shared[anchor])
                    node.subscribe(StressEvent.self, owner: owner, on: .postingThread) { _, _ in }
                    node.post(StressEvent(post: ledger.newID()))
                case 83..<92:
                    if Bool.random(using: &random) {
                        floating.mount(at: shared[anchor])
                    } else {
                        floating.unmountFromAll()
                    }
                case 92..<95:
                    signal.fire(anchor)
                    fires.increment()
                case 95..<96:
                    let observer = Host("signal observer")
                    ledger.watch(observer)
                    let observation = signal.subscribe(observer, on: .postingThread) { _, _ in }
                    if Bool.random(using: &random) { observation.cancel() }
                case 96..<97:
                    if Bool.random(using: &random) {
                        // An owner and a node that die while their delivery is queued.
                        let node = DominoNode(label: "queued")
                        let owner = Host("queued owner")
                        ledger.watch(node)
                        ledger.watch(owner)
                        node.mount(at: shared[anchor])
                        node.subscribe(StressEvent.self, owner: owner, on: .queue(queue)) { _, _ in }
                        node.post(StressEvent(post: ledger.newID()))
                    } else {
                        // A stream started, looped over and dropped while others walk
                        // its node: the iterator takes the subscription over and ends it.
                        var iterator: EventStream<StressEvent>.Iterator? = shared[anchor].stream(of: StressEvent.self).makeAsyncIterator()
                        _ = iterator
                        iterator = nil
                    }
                case 97..<98:
                    // The mode of a node that others post through, swapped mid-run.
                    floating.deliveryMode = Bool.random(using: &random) ? .queue(queue) : nil
                    floating.post(StressEvent(post: ledger.newID()))
                case 98..<99:
                    // An awaited request, from a task, across the same graph.
                    let id = ledger.newID()
                    let answered = Counter()
                    let finished = DispatchSemaphore(value: 0)
                    Task.detached {
                        if (try? await shared[anchor].request(StressAsk(post: id))) == id { answered.increment() }
                        finished.signal()
                    }
                    finished.wait()
                    if answered.value != 1 { failures.increment() }
                default:
                    // An owner that deallocates right away: the next walk purges it.
                    let owner = Host("short-lived")
                    ledger.watch(owner)
                    shared[anchor].subscribe(StressEvent.self, owner: owner, on: .postingThread) { _, _ in }
                }
                if mine.count > 24 {
                    let (id, subscription) = mine.removeFirst()
                    ledger.cancelCalled(id, at: ledger.tick())
                    subscription.cancel()
                    ledger.cancelReturned(id, at: ledger.tick())
                }
            }
            for (id, subscription) in mine {
                ledger.cancelCalled(id, at: ledger.tick())
                subscription.cancel()
                ledger.cancelReturned(id, at: ledger.tick())
            }
        }

        queue.sync {}                          // the queued deliveries have run
        #expect(failures.value == 0, "requests answered wrongly")
        #expect(heard.value == fires.value, "the steady observer heard every fire exactly once")
        #expect(fires.value > 1_000)
        withExtendedLifetime(steady) {}
    }

    /// Checks the invariants over the records.
    private func check(_ ledger: StressLedger) {
        let walks = ledger.walks.sorted { $0.start < $1.start }
        let walkByID = Dictionary(uniqueKeysWithValues: walks.map { ($0.id, $0) })
        var lateDeliveries = 0, missed = 0, duplicated = 0, owed = 0
        for listener in ledger.listeners.values {
            let received = ledger.deliveries[listener.id] ?? [:]
            for (post, count) in received {
                if count > 1 { duplicated += 1 }
                // A walk that started after cancel() returned must not reach the handler.
                if let returned = listener.cancelReturned, let walk = walkByID[post], walk.start > returned {
                    lateDeliveries += 1
                }
            }
            // Every walk that started after the subscription and ended before its
            // cancel, on a route through its anchor, reached it exactly once.
            let closing = listener.cancelCalled ?? .max
            var low = 0, high = walks.count
            while low < high {
                let middle = (low + high) / 2
                if walks[middle].start <= listener.subscribed { low = middle + 1 } else { high = middle }
            }
            for walk in walks[low...] {
                if walk.start >= closing { break }
                guard walk.end < closing else { continue }
                // Posts go up from their anchor; broadcasts go down from theirs.
                let onRoute = walk.down ? listener.anchor <= walk.anchor : listener.anchor >= walk.anchor
                guard onRoute else { continue }
                owed += 1
                if received[walk.id] != 1 { missed += 1 }
            }
        }
        #expect(lateDeliveries == 0, "deliveries from walks that started after cancel() returned")
        #expect(duplicated == 0, "walks that reached a handler twice")
        #expect(missed == 0, "walks that ran inside a subscription's lifetime and missed it (of \(owed))")
        #expect(owed > 10_000, "the run exercised the exactly-once invariant only \(owed) times")
        #expect(walks.count + ledger.listeners.count > 30_000)
    }
}
