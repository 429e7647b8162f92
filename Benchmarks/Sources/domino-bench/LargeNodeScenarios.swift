import Domino

// Posts at nodes that hold many keys (issue 19: "a post at a node with 10,000
// named-event names", "a post passing a node that holds 1,000 / 10,000 event types",
// each at most 2x the same post with one). These are ordinary per-operation
// scenarios, measured in the interleaved rounds, with the one-key node as baseline.

extension Scenarios {
    /// The large-node scenarios, in report order.
    static func largeNodes() -> [(String, () -> Scenario)] {
        [
            ("names.1", { names(1) }),
            ("names.10000", { names(10_000) }),
            ("types.1", { types(1) }),
            ("types.1000", { types(1_000) }),
            ("types.10000", { types(10_000) }),
        ]
    }

    /// A named event posted at a node that has a subscriber for each of `count`
    /// names. The name posted is the one subscribed last (the far end for a table
    /// scanned in order); the others' handlers never run.
    static func names(_ count: Int) -> Scenario {
        let counter = Counter()
        let others = Counter()
        let node = DominoNode(label: "names\(count)")
        for index in 0..<(count - 1) {
            node.subscribe(EventName("domino-bench.name.\(index)"), on: .postingThread) { _ in others.bump() }
        }
        let posted = EventName("domino-bench.name.\(count - 1)")
        node.subscribe(posted, on: .postingThread) { _ in counter.bump() }
        return Scenario(
            name: "names.\(count)",
            baseline: count == 1 ? nil : "names.1", target: count == 1 ? nil : .atMost(2),
            deliveriesPerOperation: 1, counter: counter, keepAlive: [node, others]
        ) { iterations in
            for _ in 0..<iterations { blackhole(node.post(posted)) }
            return iterations
        }
    }

    /// A typed event posted below a node that holds subscriptions to `count` other
    /// event types, on its way to the one subscriber above it (a chain of three:
    /// the posting node, the crowded node, the subscriber's node).
    static func types(_ count: Int) -> Scenario {
        let counter = Counter()
        let others = Counter()
        let chain = Chain(depth: 2, label: "types\(count)")
        for index in 0..<count {
            subscribeProbe(TypeSeed.self, spelling: index, digits: probeDigits, at: chain.nodes[1], others)
        }
        chain.top.subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
        let bottom = chain.bottom
        return Scenario(
            name: "types.\(count)",
            baseline: count == 1 ? nil : "types.1", target: count == 1 ? nil : .atMost(2),
            deliveriesPerOperation: 1, counter: counter, keepAlive: chain.nodes + [others]
        ) { iterations in
            for _ in 0..<iterations { blackhole(bottom.post(Ping(lane: 0))) }
            return iterations
        }
    }

    /// Binary digits of a probe type: 2^14 = 16,384 distinct types.
    private static let probeDigits = 14

    /// Subscribes at `node` to `Probe<T>`, where `T` spells `index` in binary, one
    /// `Digit0` or `Digit1` per digit around `TypeSeed`: a distinct event type for
    /// each index, made at run time (Swift instantiates the generic types as the
    /// recursion reaches them).
    private static func subscribeProbe<T>(_: T.Type, spelling index: Int, digits: Int, at node: DominoNode, _ counter: Counter) {
        if digits == 0 {
            node.subscribe(Probe<T>.self, on: .postingThread) { _ in counter.bump() }
        } else if index & 1 == 0 {
            subscribeProbe(Digit0<T>.self, spelling: index >> 1, digits: digits - 1, at: node, counter)
        } else {
            subscribeProbe(Digit1<T>.self, spelling: index >> 1, digits: digits - 1, at: node, counter)
        }
    }
}

/// The event types of the `types.N` scenarios: `Probe<Digit1<Digit0<...<TypeSeed>>>>`.
struct Probe<Tag>: Event {}
enum TypeSeed {}
enum Digit0<Rest> {}
enum Digit1<Rest> {}
