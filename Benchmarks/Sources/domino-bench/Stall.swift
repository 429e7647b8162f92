import Domino
import Foundation

// The stall rows (issue 19: "a post on an unrelated node while another thread
// subscribes and cancels on a 10k-handler node: never more than 1 ms, a UI frame is
// 8-16 ms"). One thread posts at a quiet node and times every post on its own; another
// subscribes and cancels, again and again, at a busy node of 10,000 handlers that no
// post reaches. The figures are the longest post and the 99th percentile, in µs.
//
// The same posting loop runs first with no writer (`stall.idle.*`): what the machine
// alone costs, since a post preempted by another process also looks like a stall.
//
// Then the same from the leaf of a responder chain, 10 responder nodes deep
// (`stall.responder.*`, issue 28, session 40): a post there took its thread's stripe
// of the graph lock until posts along a route their thread had read before, with no
// link changed, read it without a lock.

/// Latencies in a histogram of 10 ns buckets up to 1 ms, and the longer ones kept
/// exactly, so a second of posts needs no array of millions of samples.
struct LatencyHistogram {
    private static let bucketNanos: UInt64 = 10
    private static let bucketCount = 100_000
    private var buckets = [Int](repeating: 0, count: LatencyHistogram.bucketCount)
    private var long: [UInt64] = []
    private(set) var count = 0
    private(set) var maximum: UInt64 = 0

    /// How many latencies were over 1 ms.
    var overOneMillisecond: Int { long.count { $0 > 1_000_000 } }

    @inline(__always)
    mutating func record(_ nanos: UInt64) {
        count += 1
        if nanos > maximum { maximum = nanos }
        let bucket = nanos / Self.bucketNanos
        if bucket < UInt64(Self.bucketCount) {
            buckets[Int(bucket)] += 1
        } else {
            long.append(nanos)
        }
    }

    /// The latency that `fraction` of the samples do not exceed (to the bucket's
    /// upper edge below 1 ms), in ns.
    func percentile(_ fraction: Double) -> UInt64 {
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (bucket, inBucket) in buckets.enumerated() where inBucket > 0 {
            seen += inBucket
            if seen >= rank { return UInt64(bucket + 1) * Self.bucketNanos }
        }
        let sorted = long.sorted()
        return sorted[min(rank - seen, sorted.count) - 1]
    }
}

enum Stall {
    /// Handlers at the node the writer changes.
    static let busyHandlers = 10_000

    /// The row names, for `--filter`.
    static let rowNames = [
        "stall.idle.max", "stall.idle.p99", "stall.max", "stall.p99",
        "stall.responder.idle.max", "stall.responder.idle.p99", "stall.responder.max", "stall.responder.p99",
    ]

    /// Posts for `seconds` without a writer, then for `seconds` with one, and reports both.
    static func measure(seconds: Double, log: (String) -> Void) -> [ScaleRow] {
        let counter = Counter()
        let quiet = DominoNode(label: "stall.quiet")
        quiet.subscribe(Ping.self, on: .postingThread) { event in counter.bump(lane: event.lane) }
        let busy = DominoNode(label: "stall.busy")
        let setupStart = monotonicNanos()
        for _ in 0..<busyHandlers {
            busy.subscribe(Ping.self, on: .postingThread) { _ in }
        }
        log("stall: \(busyHandlers) handlers subscribed at the busy node in \(Format.seconds(Double(monotonicNanos() - setupStart) / 1e9))")

        // The harness runs on the main thread, where views' chains are read.
        let (responders, leaf) = MainActor.assumeIsolated { () -> ([ViewResponder], DominoNode) in
            var responders = [ViewResponder(next: nil)]
            for _ in 0..<10 { responders.append(ViewResponder(next: responders.last)) }
            return (responders, responders[10].domino)
        }
        let heardUp = Counter()
        MainActor.assumeIsolated { responders[0].domino }.subscribe(Ping.self, on: .postingThread) { event in heardUp.bump(lane: event.lane) }

        let idle = postLoop(at: quiet, counter: counter, seconds: seconds)
        let responderIdle = postLoop(at: leaf, counter: heardUp, seconds: seconds)
        let writer = Writer(busy: busy)
        writer.start()
        let contended = postLoop(at: quiet, counter: counter, seconds: seconds)
        let responderContended = postLoop(at: leaf, counter: heardUp, seconds: seconds)
        let writes = writer.stop()
        log("stall: \(contended.count) posts, then \(responderContended.count) up 10 responder nodes, timed while the writer made \(writes) subscribe-and-cancel pairs")
        // Checked after the loops: every post delivered to its handler.
        let expected = idle.count + contended.count
        let expectedUp = responderIdle.count + responderContended.count
        guard counter.total == expected, heardUp.total == expectedUp else {
            log("error: stall: the handlers ran \(counter.total) and \(heardUp.total) times for \(expected) and \(expectedUp) posts")
            exit(1)
        }
        withExtendedLifetime(responders) {}

        func micros(_ nanos: UInt64) -> Double { Double(nanos) / 1_000 }
        let idleDetail = "\(idle.count) posts, \(idle.overOneMillisecond) over 1 ms; no writer"
        let detail = "\(contended.count) posts, \(contended.overOneMillisecond) over 1 ms; writer: \(writes) subscribe+cancel at \(busyHandlers) handlers"
        let upIdleDetail = "\(responderIdle.count) posts up 10 responder nodes, \(responderIdle.overOneMillisecond) over 1 ms; no writer"
        let upDetail = "\(responderContended.count) posts up 10 responder nodes, \(responderContended.overOneMillisecond) over 1 ms; writer as above"
        return [
            ScaleRow(name: "stall.idle.max", value: micros(idle.maximum), unit: .microseconds, nanosPerOperation: nil, detail: idleDetail, target: nil),
            ScaleRow(name: "stall.idle.p99", value: micros(idle.percentile(0.99)), unit: .microseconds, nanosPerOperation: nil, detail: idleDetail, target: nil),
            ScaleRow(name: "stall.max", value: micros(contended.maximum), unit: .microseconds, nanosPerOperation: nil, detail: detail, target: 1_000),
            ScaleRow(name: "stall.p99", value: micros(contended.percentile(0.99)), unit: .microseconds, nanosPerOperation: nil, detail: detail, target: nil),
            ScaleRow(name: "stall.responder.idle.max", value: micros(responderIdle.maximum), unit: .microseconds, nanosPerOperation: nil, detail: upIdleDetail, target: nil),
            ScaleRow(name: "stall.responder.idle.p99", value: micros(responderIdle.percentile(0.99)), unit: .microseconds, nanosPerOperation: nil, detail: upIdleDetail, target: nil),
            ScaleRow(name: "stall.responder.max", value: micros(responderContended.maximum), unit: .microseconds, nanosPerOperation: nil, detail: upDetail, target: nil),
            ScaleRow(name: "stall.responder.p99", value: micros(responderContended.percentile(0.99)), unit: .microseconds, nanosPerOperation: nil, detail: upDetail, target: nil),
        ]
    }

    /// Posts at `node` for `seconds`, timing each post alone.
    private static func postLoop(at node: DominoNode, counter: Counter, seconds: Double) -> LatencyHistogram {
        var histogram = LatencyHistogram()
        let end = monotonicNanos() + UInt64(seconds * 1e9)
        while true {
            let start = monotonicNanos()
            blackhole(node.post(Ping(lane: 0)))
            let finish = monotonicNanos()
            histogram.record(finish - start)
            if finish >= end { return histogram }
        }
    }

    /// A thread that subscribes a handler at `busy` and cancels it, again and again,
    /// until stopped.
    private final class Writer: @unchecked Sendable {
        let busy: DominoNode
        private let lock = NSLock()
        private var stopping = false
        private var writes = 0
        private let started = DispatchSemaphore(value: 0)
        private let finished = DispatchSemaphore(value: 0)

        init(busy: DominoNode) {
            self.busy = busy
        }

        /// Returns once the thread made its first write, so the posts timed after it
        /// all overlap writing.
        func start() {
            let thread = Thread { [self] in
                var count = 0
                while true {
                    let subscription = busy.subscribe(Ping.self, on: .postingThread) { _ in }
                    subscription.cancel()
                    count += 1
                    if count == 1 { started.signal() }
                    let stop = lock.withLock { () -> Bool in
                        writes = count
                        return stopping
                    }
                    if stop { break }
                }
                finished.signal()
            }
            thread.name = "domino-bench.stall.writer"
            thread.start()
            started.wait()
        }

        /// Stops the thread; returns how many subscribe-and-cancel pairs it made.
        func stop() -> Int {
            lock.withLock { stopping = true }
            finished.wait()
            return lock.withLock { writes }
        }
    }
}
