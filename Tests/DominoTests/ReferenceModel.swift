import Foundation
@testable import Domino

// The reference model of ModelBasedTests and of the fuzzer (`Fuzz/`), which compiles
// this file with its harness: no Testing here.

struct ModelEvent: Event { var value: Int }
struct ModelError: Error { var value: Int }
struct ModelAsk: Request {
    typealias Response = String
    var value: Int
}

/// The protocol of protocol targets: not class-bound, so that an object target sits
/// in an opaque existential (the library keeps a copy of it; see `TargetReceiver`).
protocol ModelEvents: Sendable {
    func bump(_ value: Int)
}

/// SplitMix64: small, fast, and the same on every platform.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One operation of a sequence.
enum ModelOperation: CustomStringConvertible {
    case addNode
    case mount(Int, Int)
    case unmount(Int, Int)
    case subscribe(node: Int, capture: Bool, stops: Bool)
    case reform(node: Int, delta: Int, request: Bool)
    case intercept(node: Int, modulus: Int, request: Bool)
    case respond(node: Int, modulus: Int)
    case cancel(Int)
    case post(node: Int, value: Int)
    case request(node: Int, value: Int)
    case broadcast(node: Int, value: Int)
    case errorHandler(node: Int, kind: ModelErrorHandling)
    case report(node: Int, value: Int)
    case deallocate(Int)
    case raise(node: Int, value: Int)
    /// A subscriber on behalf of an owner that the sequence may let die.
    case subscribeOwned(node: Int)
    case ownerDies(Int)
    /// A subscriber that, when it runs, cancels another subscriber.
    case subscribeCanceller(node: Int, cancels: Int)
    case observeSignal
    case fire(value: Int)
    case subscribeTarget(node: Int)
    case targetDies(Int)
    case protocolPost(node: Int, value: Int)

    var description: String {
        switch self {
        case .addNode: return "addNode"
        case let .mount(a, b): return "mount(\(a) at \(b))"
        case let .unmount(a, b): return "unmount(\(a) from \(b))"
        case let .subscribe(node, capture, stops): return "subscribe(at \(node)\(capture ? ", capture" : "")\(stops ? ", stops" : ""))"
        case let .reform(node, delta, request): return "reform(at \(node), +\(delta)\(request ? ", request" : ""))"
        case let .intercept(node, modulus, request): return "intercept(at \(node), %\(modulus)\(request ? ", request" : ""))"
        case let .respond(node, modulus): return "respond(at \(node), %\(modulus))"
        case let .cancel(id): return "cancel(\(id))"
        case let .post(node, value): return "post(\(value) at \(node))"
        case let .request(node, value): return "request(\(value) at \(node))"
        case let .broadcast(node, value): return "broadcast(\(value) from \(node))"
        case let .errorHandler(node, kind): return "errorHandler(at \(node), \(kind))"
        case let .report(node, value): return "report(\(value) at \(node))"
        case let .deallocate(node): return "deallocate(\(node))"
        case let .raise(node, value): return "raise(\(value) at \(node))"
        case let .subscribeOwned(node): return "subscribeOwned(at \(node))"
        case let .ownerDies(id): return "ownerDies(\(id))"
        case let .subscribeCanceller(node, cancels): return "subscribeCanceller(at \(node), cancels \(cancels))"
        case .observeSignal: return "observeSignal"
        case let .fire(value): return "fire(\(value))"
        case let .subscribeTarget(node): return "subscribeTarget(at \(node))"
        case let .targetDies(id): return "targetDies(\(id))"
        case let .protocolPost(node, value): return "protocolPost(\(value) at \(node))"
        }
    }
}

/// What an error handler of the model does with a `ModelError`.
enum ModelErrorHandling: CustomStringConvertible {
    case handle
    /// Handles errors whose value is a multiple of the modulus.
    case receive(modulus: Int)
    case transform(delta: Int)
    /// Catches into a `ModelEvent` with the error's value, posted from its node.
    case catchIntoEvent

    var description: String {
        switch self {
        case .handle: return "handle"
        case let .receive(modulus): return "receive %\(modulus)"
        case let .transform(delta): return "transform +\(delta)"
        case .catchIntoEvent: return "catch"
        }
    }
}

/// The reference model: plain arrays, recursion-free walks, no locks, no cleverness.
struct ReferenceModel {
    struct Handler {
        enum Kind { case subscriber(capture: Bool, stops: Bool), reformer(Int, request: Bool), interceptor(Int, request: Bool), responder(Int), errorHandler(ModelErrorHandling), target }
        let id: Int
        let node: Int
        let kind: Kind
    }

    var alive: Set<Int> = []
    var parents: [Int: [Int]] = [:]
    var children: [Int: [Int]] = [:]
    var handlers: [Handler] = []   // in subscription order
    /// Subscribers that cancel another subscriber when they run: id -> the other's id.
    var cancelsOnRun: [Int: Int] = [:]
    /// The signal's observers, in subscription order.
    var observers: [Int] = []

    mutating func addNode(_ id: Int) {
        alive.insert(id)
        parents[id] = []
        children[id] = []
    }

    mutating func mount(_ child: Int, at parent: Int) {
        guard child != parent, !parents[child]!.contains(parent) else { return }
        parents[child]!.append(parent)
        children[parent]!.append(child)
    }

    mutating func unmount(_ child: Int, from parent: Int) {
        parents[child]!.removeAll { $0 == parent }
        children[parent]!.removeAll { $0 == child }
    }

    mutating func deallocate(_ node: Int) {
        for parent in parents[node]! { children[parent]!.removeAll { $0 == node } }
        for child in children[node]! { parents[child]!.removeAll { $0 == node } }
        alive.remove(node)
        parents[node] = nil
        children[node] = nil
        handlers.removeAll { $0.node == node }
    }

    mutating func cancel(_ id: Int) {
        handlers.removeAll { $0.id == id }
        observers.removeAll { $0 == id }
    }

    func isPresent(_ id: Int) -> Bool { handlers.contains { $0.id == id } }

    /// A subscriber's delivery: logged, then what it does to the graph while it runs
    /// (a cancel takes effect for the rest of the walk: the library re-checks the
    /// handlers after a handler on its thread changed the graph).
    mutating func deliver(_ handler: Handler, _ value: Int, into log: inout [String]) {
        log.append("\(handler.id):\(value)")
        if let other = cancelsOnRun[handler.id] { cancel(other) }
    }

    /// The signal's observers, each called with `value`.
    func fire(_ value: Int) -> [String] { observers.map { "s\($0):\(value)" } }

    /// A protocol post: every target on the route, in route order and at each node in
    /// subscription order (a dead target is gone from `handlers`, as its
    /// subscription ended with it).
    func protocolPost(_ value: Int, at start: Int) -> [String] {
        route(from: start).flatMap { node in
            handlers(at: node).compactMap { handler -> String? in
                if case .target = handler.kind { return "t\(handler.id):\(value)" }
                return nil
            }
        }
    }

    /// The posting node, then its ancestors depth-first, parents in mount order, once each.
    func route(from start: Int) -> [Int] {
        var result: [Int] = []
        var visited: Set<Int> = []
        var stack = [start]
        while let node = stack.popLast() {
            guard visited.insert(node).inserted else { continue }
            result.append(node)
            for parent in parents[node]!.reversed() where !visited.contains(parent) { stack.append(parent) }
        }
        return result
    }

    func handlers(at node: Int) -> [Handler] { handlers.filter { $0.node == node } }

    /// (subscription, value) in delivery order.
    mutating func post(_ value: Int, at start: Int) -> [String] {
        var log: [String] = []
        let route = route(from: start)
        // Capture: outermost first, with the value as posted; a stop ends the post
        // after its node.
        for node in route.reversed() {
            var stopped = false
            for handler in handlers(at: node) where isPresent(handler.id) {
                if case let .subscriber(capture: true, stops) = handler.kind {
                    deliver(handler, value, into: &log)
                    if stops { stopped = true }
                }
            }
            if stopped { return log }
        }
        var value = value
        for node in route {
            let here = handlers(at: node)
            for handler in here { if case let .reformer(delta, false) = handler.kind { value += delta } }
            var stopped = false
            for handler in here where isPresent(handler.id) {
                if case let .subscriber(false, stops) = handler.kind {
                    deliver(handler, value, into: &log)
                    if stops { stopped = true }
                }
            }
            if stopped { break }
            if here.contains(where: { if case let .interceptor(m, false) = $0.kind { return value % m == 0 }; return false }) { break }
        }
        return log
    }

    func request(_ value: Int, at start: Int) -> String? {
        var value = value
        for node in route(from: start) {
            let here = handlers(at: node)
            for handler in here { if case let .reformer(delta, true) = handler.kind { value += delta } }
            for handler in here { if case let .responder(m) = handler.kind, value % m == 0 { return "r\(handler.id)" } }
            if here.contains(where: { if case let .interceptor(m, true) = $0.kind { return value % m == 0 }; return false }) { return nil }
        }
        return nil
    }

    /// (handler, value) for each error handler that took the error, in order, then the
    /// deliveries of the event a catch posted; whether someone handled it.
    mutating func report(_ value: Int, at start: Int) -> (log: [String], handled: Bool) {
        var log: [String] = []
        var value = value
        for node in route(from: start) {
            for handler in handlers(at: node) {
                guard case let .errorHandler(kind) = handler.kind else { continue }
                log.append("e\(handler.id):\(value)")
                switch kind {
                case .handle:
                    return (log, true)
                case let .receive(modulus):
                    if value % modulus == 0 { return (log, true) }
                case let .transform(delta):
                    value += delta
                case .catchIntoEvent:
                    let delivered = post(value, at: node)
                    return (log + delivered, true)
                }
            }
        }
        return (log, false)
    }

    /// The node and its descendants, pre-order, children in mount order, once each;
    /// reformers rewrite for their subtree, interceptors keep the event out of their
    /// subtree, a stopping subscriber ends everything.
    mutating func broadcast(_ value: Int, from start: Int) -> [String] {
        broadcast(value, from: [start])
    }

    /// EventsTree's raise, for a model without raise-phase handlers: down from the
    /// tops of the route, in route order (see `tops`).
    mutating func raise(_ value: Int, at start: Int) -> [String] {
        broadcast(value, from: tops(of: start))
    }

    /// Where a raise turns down: each node of the route that cannot go further up
    /// without coming back (a root, or a cycle with no way out), one per such group,
    /// the one last on the route; in route order.
    func tops(of start: Int) -> [Int] {
        let route = route(from: start)
        func up(_ node: Int) -> Set<Int> { Set(self.route(from: node)) }
        var tops: [Int] = []
        var groups: [Set<Int>] = []
        for node in route {
            let reach = up(node)
            // A top group: every node it reaches reaches it back.
            guard reach.allSatisfy({ up($0).contains(node) }) else { continue }
            if let index = groups.firstIndex(of: reach) {
                tops.removeAll { reach.contains($0) }
                groups.remove(at: index)
            }
            groups.append(reach)
            tops.append(node)
        }
        return route.filter { tops.contains($0) }
    }

    /// `broadcast` from several starts in order, each node once across them.
    mutating func broadcast(_ value: Int, from starts: [Int]) -> [String] {
        // The walk's tree first (first visit wins), then delivery along it.
        var order: [(node: Int, parent: Int?)] = []
        var visited: Set<Int> = []
        for start in starts {
            var stack: [(Int, Int?)] = [(start, nil)]
            while let (node, parent) = stack.popLast() {
                guard visited.insert(node).inserted else { continue }
                order.append((node, parent))
                for child in children[node]!.reversed() { stack.append((child, node)) }
            }
        }
        var log: [String] = []
        var valueAt: [Int: Int] = [:]
        var pruned: Set<Int> = []
        for (node, parent) in order {
            if let parent, pruned.contains(parent) { pruned.insert(node); continue }
            var current = parent.flatMap { valueAt[$0] } ?? value
            let here = handlers(at: node)
            for handler in here { if case let .reformer(delta, false) = handler.kind { current += delta } }
            valueAt[node] = current
            var stopped = false
            for handler in here where isPresent(handler.id) {
                if case let .subscriber(false, stops) = handler.kind {
                    deliver(handler, current, into: &log)
                    if stops { stopped = true }
                }
            }
            if stopped { return log }
            if here.contains(where: { if case let .interceptor(m, false) = $0.kind { return current % m == 0 }; return false }) {
                pruned.insert(node)
            }
        }
        return log
    }
}

/// The library, driven the same way.
final class LibraryUnderTest {
    final class Recorder: @unchecked Sendable {
        var log: [String] = []   // written on the posting thread only
    }

    var nodes: [Int: DominoNode] = [:]
    var subscriptions: [Int: Subscription] = [:]
    let recorder = Recorder()
    /// Owners of owner-bound subscribers and signal observers, by subscription id:
    /// removing one lets it die.
    var owners: [Int: ModelOwner] = [:]
    /// Protocol targets, by subscription id: removing one lets it die.
    var targets: [Int: ModelTarget] = [:]
    /// The signal: a `Signal<Int>`, typed `AnyObject` for the availability of its
    /// type. Its subscriptions are in `subscriptions` too.
    var signal: AnyObject?

    /// A subscriber that cancels `other` when it runs.
    func subscribeCanceller(_ id: Int, at node: Int, cancels other: Subscription?) {
        let recorder = self.recorder
        subscriptions[id] = nodes[node]!.subscribe(ModelEvent.self, on: .postingThread) { event in
            recorder.log.append("\(id):\(event.value)")
            other?.cancel()
        }
    }

    func subscribeOwned(_ id: Int, at node: Int) {
        let recorder = self.recorder
        let owner = ModelOwner()
        owners[id] = owner
        subscriptions[id] = nodes[node]!.subscribe(ModelEvent.self, owner: owner, on: .postingThread) { _, event in
            recorder.log.append("\(id):\(event.value)")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func observeSignal(_ id: Int) {
        let signal = (self.signal as? Signal<Int>) ?? Signal<Int>()
        self.signal = signal
        let recorder = self.recorder
        let owner = ModelOwner()
        owners[id] = owner
        subscriptions[id] = signal.subscribe(owner, on: .postingThread) { _, value in
            recorder.log.append("s\(id):\(value)")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func fire(_ value: Int) -> [String] {
        guard let signal = signal as? Signal<Int> else { return [] }
        return run { signal.fire(value) }
    }

    func subscribeTarget(_ id: Int, at node: Int) {
        let target = ModelTarget(id: id, recorder: recorder)
        targets[id] = target
        subscriptions[id] = nodes[node]!.subscribe(ModelEvents.self, target: target, on: .postingThread)
    }

    func subscribe(_ id: Int, at node: Int, capture: Bool, stops: Bool) {
        let recorder = self.recorder
        subscriptions[id] = nodes[node]!.subscribe(ModelEvent.self, phase: capture ? .capture : .bubble, on: .postingThread) { event, propagation in
            recorder.log.append("\(id):\(event.value)")
            if stops { propagation.stop() }
        }
    }

    func addErrorHandler(_ id: Int, at node: Int, _ kind: ModelErrorHandling) {
        let recorder = self.recorder
        let target = nodes[node]!
        switch kind {
        case .handle:
            subscriptions[id] = target.handle(ModelError.self, on: .postingThread) { error in
                recorder.log.append("e\(id):\(error.value)")
            }
        case let .receive(modulus):
            subscriptions[id] = target.receive(ModelError.self, on: .postingThread) { error in
                recorder.log.append("e\(id):\(error.value)")
                return error.value % modulus == 0 ? .handled : .notHandled
            }
        case let .transform(delta):
            subscriptions[id] = target.transform(ModelError.self, on: .postingThread) { error in
                recorder.log.append("e\(id):\(error.value)")
                return ModelError(value: error.value + delta)
            }
        case .catchIntoEvent:
            subscriptions[id] = target.catch(ModelError.self, on: .postingThread) { error in
                recorder.log.append("e\(id):\(error.value)")
                return ModelEvent(value: error.value)
            }
        }
    }

    func run(_ operation: () -> Void) -> [String] {
        recorder.log = []
        operation()
        return recorder.log
    }
}

/// Runs one sequence of operations drawn from `random` against the library and the
/// model; returns a description of the first divergence. The tests draw from a seeded
/// generator, the fuzzer (`Fuzz/`) from its input's bytes.
///
/// - Parameter keepingWalksWithoutALock: True to draw no mount that closes a cycle
///   (a post takes its place): one would make walks take their stripe for the rest
///   of the process (see `GraphLock.walkGate`), so sequences drawn this way
///   exercise posts, requests and reports that collect without a lock.
func modelDivergence<Random: RandomNumberGenerator>(using random: inout Random, keepingWalksWithoutALock: Bool = false) -> String? {
    var model = ReferenceModel()
    let library = LibraryUnderTest()
    var history: [ModelOperation] = []
    var nextNode = 0
    var nextHandler = 0
    var owned: [Int] = []
    var targeted: [Int] = []
    let length = Int.random(in: 1...40, using: &random)

    func pickNode() -> Int? { model.alive.sorted().randomElement(using: &random) }
    /// A subscriber that is still subscribed, for a canceller to cancel.
    func pickSubscriber() -> Int? {
        model.handlers.filter { if case .subscriber = $0.kind { return true }; return false }.map(\.id).randomElement(using: &random)
    }

    for _ in 0..<length {
        let operation: ModelOperation
        let roll = Int.random(in: 0..<128, using: &random)
        guard let node = pickNode(), let other = pickNode(), roll >= 8 else {
            operation = .addNode
            history.append(operation)
            model.addNode(nextNode)
            library.nodes[nextNode] = DominoNode(label: "\(nextNode)")
            nextNode += 1
            continue
        }
        switch roll {
        case 8..<22:
            if keepingWalksWithoutALock && (node == other || model.route(from: other).contains(node)) {
                operation = .post(node: node, value: Int.random(in: 0..<100, using: &random))
            } else {
                operation = .mount(node, other)
            }
        case 22..<27: operation = .unmount(node, other)
        case 27..<40:
            operation = .subscribe(node: node, capture: Bool.random(using: &random) && Bool.random(using: &random), stops: Int.random(in: 0..<6, using: &random) == 0)
        case 40..<45: operation = .reform(node: node, delta: Int.random(in: 1...9, using: &random), request: Bool.random(using: &random))
        case 45..<50: operation = .intercept(node: node, modulus: Int.random(in: 2...5, using: &random), request: Bool.random(using: &random))
        case 50..<55: operation = .respond(node: node, modulus: Int.random(in: 1...4, using: &random))
        case 55..<60: operation = .cancel(Int.random(in: 0..<max(1, nextHandler), using: &random))
        case 60..<75: operation = .post(node: node, value: Int.random(in: 0..<100, using: &random))
        case 75..<83: operation = .request(node: node, value: Int.random(in: 0..<100, using: &random))
        case 83..<89: operation = .broadcast(node: node, value: Int.random(in: 0..<100, using: &random))
        case 89..<92:
            let kinds: [ModelErrorHandling] = [.handle, .receive(modulus: Int.random(in: 2...4, using: &random)), .transform(delta: Int.random(in: 1...9, using: &random)), .catchIntoEvent]
            operation = .errorHandler(node: node, kind: kinds.randomElement(using: &random)!)
        case 92..<95: operation = .report(node: node, value: Int.random(in: 0..<100, using: &random))
        case 95..<100: operation = .deallocate(node)
        case 100..<104: operation = .raise(node: node, value: Int.random(in: 0..<100, using: &random))
        case 104..<107: operation = .subscribeOwned(node: node)
        case 107..<109: operation = owned.isEmpty ? .subscribeOwned(node: node) : .ownerDies(owned.remove(at: Int.random(in: 0..<owned.count, using: &random)))
        case 109..<112: operation = pickSubscriber().map { .subscribeCanceller(node: node, cancels: $0) } ?? .subscribe(node: node, capture: false, stops: false)
        case 112..<115: operation = .observeSignal
        case 115..<120: operation = .fire(value: Int.random(in: 0..<100, using: &random))
        case 120..<123: operation = .subscribeTarget(node: node)
        case 123..<125:
            operation = targeted.isEmpty ? .subscribeTarget(node: node) : .targetDies(targeted.remove(at: Int.random(in: 0..<targeted.count, using: &random)))
        default: operation = .protocolPost(node: node, value: Int.random(in: 0..<100, using: &random))
        }
        history.append(operation)

        func diverged(_ library: String, _ model: String) -> String {
            "after \(history.map(\.description).joined(separator: "; "))\n  library: \(library)\n  model:   \(model)"
        }

        switch operation {
        case .addNode:
            break
        case let .mount(a, b):
            model.mount(a, at: b)
            Diagnostics.capture { library.nodes[a]!.mount(at: library.nodes[b]!) }
        case let .unmount(a, b):
            model.unmount(a, from: b)
            Diagnostics.capture { library.nodes[a]!.unmount(from: library.nodes[b]!) }
        case let .subscribe(node, capture, stops):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .subscriber(capture: capture, stops: stops)))
            library.subscribe(nextHandler, at: node, capture: capture, stops: stops)
            nextHandler += 1
        case let .reform(node, delta, request):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .reformer(delta, request: request)))
            library.subscriptions[nextHandler] = request
                ? library.nodes[node]!.reform(ModelAsk.self) { $0.value += delta }
                : library.nodes[node]!.reform(ModelEvent.self) { $0.value += delta }
            nextHandler += 1
        case let .intercept(node, modulus, request):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .interceptor(modulus, request: request)))
            library.subscriptions[nextHandler] = request
                ? library.nodes[node]!.intercept(ModelAsk.self) { $0.value % modulus == 0 ? .stop : .proceed }
                : library.nodes[node]!.intercept(ModelEvent.self) { $0.value % modulus == 0 ? .stop : .proceed }
            nextHandler += 1
        case let .respond(node, modulus):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .responder(modulus)))
            let id = nextHandler
            library.subscriptions[id] = library.nodes[node]!.respond(to: ModelAsk.self, on: .postingThread) { $0.value % modulus == 0 ? "r\(id)" : nil }
            nextHandler += 1
        case let .cancel(id):
            model.cancel(id)
            library.subscriptions[id]?.cancel()
        case let .post(node, value):
            let expected = model.post(value, at: node)
            let origin = library.nodes[node]!
            var result: PostResult?
            let got = library.run { result = origin.post(ModelEvent(value: value)) }
            if got != expected { return diverged("\(got)", "\(expected)") }
            if result?.deliveries != expected.count { return diverged("deliveries \(result?.deliveries ?? -1)", "\(expected.count)") }
        case let .request(node, value):
            let expected = model.request(value, at: node)
            let got = library.nodes[node]!.request(ModelAsk(value: value))
            if got != expected { return diverged(got ?? "nil", expected ?? "nil") }
        case let .broadcast(node, value):
            let expected = model.broadcast(value, from: node)
            let origin = library.nodes[node]!
            let got = library.run { origin.broadcast(ModelEvent(value: value)) }
            if got != expected { return diverged("\(got)", "\(expected)") }
        case let .errorHandler(node, kind):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .errorHandler(kind)))
            library.addErrorHandler(nextHandler, at: node, kind)
            nextHandler += 1
        case let .report(node, value):
            let expected = model.report(value, at: node)
            let origin = library.nodes[node]!
            var report: ErrorReport?
            var codes: [Diagnostic.Code] = []
            let got = library.run {
                codes = Diagnostics.capture { report = origin.report(ModelError(value: value)) }.map(\.code)
            }
            if got != expected.log { return diverged("\(got)", "\(expected.log)") }
            if report?.isHandled != expected.handled { return diverged("handled \(report?.isHandled ?? false)", "\(expected.handled)") }
            if codes != (expected.handled ? [] : [.unhandledError]) { return diverged("diagnostics \(codes)", "handled \(expected.handled)") }
        case let .deallocate(node):
            model.deallocate(node)
            library.nodes[node] = nil
        case let .raise(node, value):
            let expected = model.raise(value, at: node)
            let origin = library.nodes[node]!
            let got = library.run { origin.raise(ModelEvent(value: value)) }
            if got != expected { return diverged("\(got)", "\(expected)") }
        case let .subscribeOwned(node):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .subscriber(capture: false, stops: false)))
            library.subscribeOwned(nextHandler, at: node)
            owned.append(nextHandler)
            nextHandler += 1
        case let .ownerDies(id):
            model.cancel(id)
            library.owners[id] = nil
        case let .subscribeCanceller(node, other):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .subscriber(capture: false, stops: false)))
            model.cancelsOnRun[nextHandler] = other
            library.subscribeCanceller(nextHandler, at: node, cancels: library.subscriptions[other])
            nextHandler += 1
        case .observeSignal:
            guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { break }
            model.observers.append(nextHandler)
            library.observeSignal(nextHandler)
            nextHandler += 1
        case let .fire(value):
            guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { break }
            let expected = model.fire(value)
            let got = library.fire(value)
            if got != expected { return diverged("\(got)", "\(expected)") }
        case let .subscribeTarget(node):
            model.handlers.append(.init(id: nextHandler, node: node, kind: .target))
            library.subscribeTarget(nextHandler, at: node)
            targeted.append(nextHandler)
            nextHandler += 1
        case let .targetDies(id):
            model.cancel(id)
            library.targets[id] = nil
        case let .protocolPost(node, value):
            let expected = model.protocolPost(value, at: node)
            let origin = library.nodes[node]!
            var result: PostResult?
            let got = library.run { result = origin.post(ModelEvents.self) { $0.bump(value) } }
            if got != expected { return diverged("\(got)", "\(expected)") }
            if result?.deliveries != expected.count { return diverged("deliveries \(result?.deliveries ?? -1)", "\(expected.count)") }
        }
    }
    return nil
}

/// An owner the sequence can let die.
final class ModelOwner: Sendable {}

/// A protocol target the sequence can let die; logs its calls as `t<id>:<value>`.
final class ModelTarget: ModelEvents, @unchecked Sendable {
    let id: Int
    let recorder: LibraryUnderTest.Recorder
    init(id: Int, recorder: LibraryUnderTest.Recorder) {
        self.id = id
        self.recorder = recorder
    }
    func bump(_ value: Int) { recorder.log.append("t\(id):\(value)") }
}
