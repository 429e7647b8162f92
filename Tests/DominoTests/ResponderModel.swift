import Foundation
@testable import Domino

// Model-based testing of routes along responder chains: random sequences of views
// made, linked, moved and released, nodes made for them (or plain, and mounted),
// other views' nodes made and released (cells coming and going),
// subscriptions, posts, broadcasts and raises, against a model that computes each
// responder node's successor from the views as they are now (the node of the nearest
// view up the chain that has one). A post must reach exactly the model's route, in
// its order; a broadcast or raise exactly the model's nodes below, each once (in some
// order: the order of a node's followers depends on when the library found them).
//
// What it guards: the checks that let walks trust a link without resolving it again
// (each thread's census of its routes, the census of every responder node, a host
// read from the responder the read before it returned), which must notice every move.
// Views link only to views made after them and nodes mount only at nodes made after
// them, so no route has a cycle (cycles have their own tests).
//
// ResponderModelTests runs it from seeds; the fuzzer (Fuzz/), which compiles this file
// with its harness, from its inputs: no Testing here.

/// A view: its chain any `next` view, held weakly, as UIKit's superview is; read on
/// the main thread only, as UIKit's is. `next` is guarded by a lock: walks down in
/// other tests read every responder node's chain.
class ModelView: DominoResponder, @unchecked Sendable {
    private let lock = NSLock()
    private weak var storedNext: ModelView?
    var next: ModelView? {
        get { lock.withLock { storedNext } }
        set { lock.withLock { storedNext = newValue } }
    }
    nonisolated var nextDominoResponder: (any DominoResponder)? { next }
    nonisolated class var readsChainOnMainThreadOnly: Bool { true }

    /// A view of the kind `anyThread` says.
    static func make(anyThread: Bool) -> ModelView { anyThread ? AnyThreadModelView() : ModelView() }
}

/// A view whose chain any thread reads (a model object's, say).
final class AnyThreadModelView: ModelView, @unchecked Sendable {
    nonisolated override class var readsChainOnMainThreadOnly: Bool { false }
}

/// Drops `object`'s last reference here and waits until it is gone: true then, false
/// after 30 seconds. A walk on another thread (another test's) may hold it meanwhile:
/// a walk down retains every responder node while it reads their chains, and a
/// chain's read holds each responder while its getter runs.
func releaseAndWait<Object: AnyObject>(_ object: inout Object?) -> Bool {
    weak let released = object
    object = nil
    return waitBackingOff { released == nil }
}

/// Waits until the registry lists no dying responder node for `host`: true then,
/// false after 30 seconds. The last reference to a responder node may be another
/// thread's (a walk down holds every responder node while it reads their chains);
/// its deinit then runs there, and until it takes the exclusive lock the node is
/// still linked, and walks may pass it. The deinit unlinks it, and removes it from
/// the registry, in one exclusive section.
func waitUntilNoDyingNode(for host: ObjectIdentifier) -> Bool {
    waitBackingOff {
        let (listed, alive) = graphLock.withShared { () -> (Bool, DominoNode?) in
            let link = ResponderRegistry.nodes[host]
            return (link != nil, link?.retainIfAlive())
        }
        // Listed for a live node: another view's, at a dead one's address.
        return !listed || alive != nil
    }
}

/// Waits until `done()` is true: true then, false after 30 seconds. Sleeps 50 µs at
/// first, twice as long after each try up to 10 ms, to leave the processor to the
/// thread it waits for (a loaded machine under the thread sanitizer once took over
/// 5 s with 50 µs sleeps throughout).
func waitBackingOff(_ done: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    var pause: UInt32 = 50
    while !done() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(pause)
        pause = min(pause * 2, 10_000)
    }
    return true
}

/// The model: which views and nodes exist, and how they link.
struct ResponderModel {
    var views: Set<Int> = []
    var next: [Int: Int] = [:]
    /// Nodes that exist; a responder node's view is the view of its own number.
    var nodes: Set<Int> = []
    var responderNodes: Set<Int> = []
    /// Responder nodes set not to follow their chain (`followsResponderChain` false).
    var notFollowing: Set<Int> = []
    var parents: [Int: [Int]] = [:]
    var children: [Int: [Int]] = [:]
    /// (subscription, node) in subscription order.
    var subscriptions: [(id: Int, node: Int)] = []

    /// The node the chain of `node`'s view leads to: the first view up the chain
    /// that exists and has a node. A released view links nowhere (held weakly); a
    /// node that does not follow its chain has none (the chains below still lead to
    /// it).
    func successor(of node: Int) -> Int? {
        guard responderNodes.contains(node), views.contains(node), !notFollowing.contains(node) else { return nil }
        var view = next[node]
        while let current = view, views.contains(current) {
            if responderNodes.contains(current) { return current }
            view = next[current]
        }
        return nil
    }

    /// The successor first, then the mounted parents in mount order.
    func routeParents(of node: Int) -> [Int] {
        var result = successor(of: node).map { [$0] } ?? []
        for parent in parents[node] ?? [] where !result.contains(parent) { result.append(parent) }
        return result
    }

    /// The mounted children, then the nodes whose chains lead here.
    func childrenBelow(_ node: Int) -> [Int] {
        var result = children[node] ?? []
        for follower in responderNodes.sorted() where successor(of: follower) == node && !result.contains(follower) {
            result.append(follower)
        }
        return result
    }

    /// The posting node, then its ancestors depth-first, once each.
    func route(from start: Int) -> [Int] {
        var result: [Int] = []
        var visited: Set<Int> = []
        var stack = [start]
        while let node = stack.popLast() {
            guard visited.insert(node).inserted else { continue }
            result.append(node)
            for parent in routeParents(of: node).reversed() where !visited.contains(parent) { stack.append(parent) }
        }
        return result
    }

    /// The nodes below `starts` (themselves included), each once.
    func nodesBelow(_ starts: [Int]) -> Set<Int> {
        var visited: Set<Int> = []
        var stack = starts
        while let node = stack.popLast() {
            guard visited.insert(node).inserted else { continue }
            stack.append(contentsOf: childrenBelow(node))
        }
        return visited
    }

    func deliveries(at nodes: [Int], value: Int) -> [String] {
        nodes.flatMap { node in subscriptions.filter { $0.node == node }.map { "\($0.id):\(value)" } }
    }

    func post(_ value: Int, at node: Int) -> [String] {
        deliveries(at: route(from: node), value: value)
    }

    func broadcast(_ value: Int, from node: Int) -> [String] {
        deliveries(at: nodesBelow([node]).sorted(), value: value).sorted()
    }

    /// Down from the route's tops (no cycles: the nodes without parents).
    func raise(_ value: Int, at node: Int) -> [String] {
        let tops = route(from: node).filter { routeParents(of: $0).isEmpty }
        return deliveries(at: nodesBelow(tops).sorted(), value: value).sorted()
    }
}

/// How many slots a sequence's views and nodes take.
let responderModelSlots = 7

/// Runs one sequence of 80 operations drawn from `random` (after a start drawn from it
/// too), on views whose chains `anyThread` says any thread reads, from this thread;
/// returns the first divergence.
func responderModelDivergence<Random: RandomNumberGenerator>(using random: inout Random, anyThread: Bool) -> String? {
    var model = ResponderModel()
    var views: [Int: ModelView] = [:]
    var nodes: [Int: DominoNode] = [:]
    var subscriptions: [Int: Subscription] = [:]
    /// Each responder node's host's identity, as the registry keys it.
    var hosts: [Int: ObjectIdentifier] = [:]
    let recorder = LibraryUnderTest.Recorder()
    var done: [String] = []
    var nextSubscription = 0
    var value = 0

    func pick(_ set: some Collection<Int>) -> Int? { set.sorted().randomElement(using: &random) }
    /// Runs `walk` with the next value and compares what it delivered (sorted with
    /// `anyOrder`) with what `expected` says; the divergence, or nil.
    func check(
        _ name: String, at slot: Int, anyOrder: Bool, _ walk: (ModelEvent) -> Void, expected: (Int) -> [String]
    ) -> String? {
        value += 1
        done.append("\(name) \(value) at \(slot)")
        recorder.log.removeAll()
        walk(ModelEvent(value: value))
        let library = anyOrder ? recorder.log.sorted() : recorder.log
        let wanted = expected(value)
        guard library != wanted else { return nil }
        return "after \(done.joined(separator: ", ")):\n  library \(library)\n  model   \(wanted)"
    }

    /// A node for the view of `slot`, or a plain one where there is none.
    func makeNode(at slot: Int) {
        if let view = views[slot] {
            nodes[slot] = DominoNode(label: "v\(slot)", responder: view)
            hosts[slot] = ObjectIdentifier(view)
            model.responderNodes.insert(slot)
            model.notFollowing.remove(slot)
            done.append("node for view \(slot)")
        } else {
            nodes[slot] = DominoNode(label: "n\(slot)")
            done.append("node \(slot)")
        }
        model.nodes.insert(slot)
    }
    func subscribe(at slot: Int) {
        let id = nextSubscription
        nextSubscription += 1
        subscriptions[id] = nodes[slot]!.subscribe(ModelEvent.self, on: .postingThread) { event in
            recorder.log.append("\(id):\(event.value)")
        }
        model.subscriptions.append((id, slot))
        done.append("subscribe \(id) at \(slot)")
    }
    // A start with most views made, linked up, and given nodes that hear.
    for slot in 0..<responderModelSlots where Int.random(in: 0..<4, using: &random) != 0 {
        views[slot] = ModelView.make(anyThread: anyThread)
        model.views.insert(slot)
        done.append("view \(slot)")
    }
    for slot in 0..<responderModelSlots {
        guard let view = views[slot], let target = (slot + 1..<responderModelSlots).filter({ views[$0] != nil }).randomElement(using: &random) else { continue }
        view.next = views[target]
        model.next[slot] = target
        done.append("next \(slot) -> \(target)")
    }
    for slot in 0..<responderModelSlots where Int.random(in: 0..<3, using: &random) != 0 {
        makeNode(at: slot)
        subscribe(at: slot)
    }

    for _ in 0..<80 {
        let slot = Int.random(in: 0..<responderModelSlots, using: &random)
        switch Int.random(in: 0..<19, using: &random) {
        case 0, 1:
            guard views[slot] == nil, nodes[slot] == nil else { continue }
            views[slot] = ModelView.make(anyThread: anyThread)
            model.views.insert(slot)
            model.next[slot] = nil
            done.append("view \(slot)")
        case 2, 3, 4:
            // Linked only to a view made for a later slot: no cycle.
            guard let view = views[slot] else { continue }
            let target = slot + 1 < responderModelSlots ? Int.random(in: (slot + 1)...responderModelSlots, using: &random) : responderModelSlots
            view.next = views[target]
            model.next[slot] = views[target] == nil ? nil : target
            done.append("next \(slot) -> \(views[target] == nil ? "nil" : String(target))")
        case 5, 6:
            guard nodes[slot] == nil else { continue }
            makeNode(at: slot)
        case 16:
            guard let node = nodes[slot], model.responderNodes.contains(slot) else { continue }
            let follows = model.notFollowing.contains(slot)
            node.followsResponderChain = follows
            if follows { model.notFollowing.remove(slot) } else { model.notFollowing.insert(slot) }
            done.append("\(slot) follows its chain: \(follows)")
        case 18:
            // Views elsewhere and their nodes made and released (a list's cells):
            // change nothing the model sees. One or a few leave every remembered
            // path checked against the registrations since, one by one; more than
            // 16, against the registry.
            let count = [1, 3, 20].randomElement(using: &random)!
            for _ in 0..<count { _ = DominoNode(label: "cell", responder: ModelView.make(anyThread: anyThread)) }
            done.append("\(count) cells came and went")
        case 17:
            // Reads the chain now: changes nothing the model sees.
            guard let node = nodes[slot] else { continue }
            node.refreshResponderChain()
            done.append("refresh \(slot)")
        case 7:
            guard let node = nodes[slot], let parent = pick(model.nodes.filter({ $0 > slot })),
                  !(model.parents[slot] ?? []).contains(parent) else { continue }
            node.mount(at: nodes[parent]!)
            model.parents[slot, default: []].append(parent)
            model.children[parent, default: []].append(slot)
            done.append("mount \(slot) at \(parent)")
        case 8:
            guard let node = nodes[slot], let parent = pick(model.parents[slot] ?? []) else { continue }
            node.unmount(from: nodes[parent]!)
            model.parents[slot]!.removeAll { $0 == parent }
            model.children[parent]!.removeAll { $0 == slot }
            done.append("unmount \(slot) from \(parent)")
        case 9:
            guard nodes[slot] != nil else { continue }
            subscribe(at: slot)
        case 10:
            guard views[slot] != nil, Int.random(in: 0..<3, using: &random) == 0 else { continue }
            guard releaseAndWait(&views[slot]) else { return "view \(slot) outlived its last reference by 30 s" }
            model.views.remove(slot)
            // Held weakly: every link to it is gone with it.
            for (view, target) in model.next where target == slot { model.next[view] = nil }
            done.append("release view \(slot)")
        case 11:
            guard nodes[slot] != nil, Int.random(in: 0..<3, using: &random) == 0 else { continue }
            for id in model.subscriptions.filter({ $0.node == slot }).map(\.id) { subscriptions[id] = nil }
            guard releaseAndWait(&nodes[slot]) else { return "node \(slot) outlived its last reference by 30 s" }
            guard hosts[slot].map(waitUntilNoDyingNode(for:)) ?? true else {
                return "node \(slot) was still registered 30 s after its last reference went"
            }
            hosts[slot] = nil
            model.nodes.remove(slot)
            model.responderNodes.remove(slot)
            model.notFollowing.remove(slot)
            model.subscriptions.removeAll { $0.node == slot }
            for parent in model.parents[slot] ?? [] { model.children[parent]!.removeAll { $0 == slot } }
            for child in model.children[slot] ?? [] { model.parents[child]!.removeAll { $0 == slot } }
            model.parents[slot] = nil
            model.children[slot] = nil
            done.append("release node \(slot)")
        case 12, 13:
            guard let node = nodes[slot] else { continue }
            let model = model
            if let divergence = check("post", at: slot, anyOrder: false, { _ = node.post($0) }, expected: { model.post($0, at: slot) }) {
                return divergence
            }
        case 14:
            guard let node = nodes[slot] else { continue }
            let model = model
            if let divergence = check("broadcast", at: slot, anyOrder: true, { _ = node.broadcast($0) }, expected: { model.broadcast($0, from: slot) }) {
                return divergence
            }
        default:
            guard let node = nodes[slot] else { continue }
            let model = model
            if let divergence = check("raise", at: slot, anyOrder: true, { _ = node.raise($0) }, expected: { model.raise($0, at: slot) }) {
                return divergence
            }
        }
    }
    withExtendedLifetime((views, subscriptions)) {}
    return nil
}
