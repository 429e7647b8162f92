import Dispatch
import Foundation

// MARK: Keeping work alive

/// Consumes a value so the optimiser cannot prove it unused and delete the work
/// that produced it. Not inlined and not optimised, so it costs one plain call.
@inline(never)
@_optimize(none)
func blackhole<T>(_ value: T) {}

/// What every handler in every scenario does: one increment, so handlers cost the
/// same trivial amount whichever library calls them.
///
/// The counts live in raw memory behind a `let` pointer, so an increment is one
/// add with no reference counting and no exclusivity check (a `var` stored property
/// of a class would get a runtime access check that would inflate the closure floor).
/// Each lane sits on its own pair of cache lines, so two threads counting on
/// different lanes do not make the counter itself the contended resource.
final class Counter: @unchecked Sendable {
    static let lanes = 2
    private static let laneStride = 128 / MemoryLayout<Int>.stride

    private let base: UnsafeMutablePointer<Int>

    init() {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: Self.lanes * 128, alignment: 128)
        base = raw.bindMemory(to: Int.self, capacity: Self.lanes * Self.laneStride)
        base.initialize(repeating: 0, count: Self.lanes * Self.laneStride)
    }

    deinit {
        base.deallocate()
    }

    @inline(__always)
    func bump(lane: Int = 0) {
        base[lane &* Self.laneStride] &+= 1
    }

    /// The sum over lanes; read only while no thread is counting.
    var total: Int {
        (0..<Self.lanes).reduce(0) { $0 + base[$1 * Self.laneStride] }
    }
}

// MARK: Scenarios

/// A ratio a scenario must reach against its baseline.
enum Target: Sendable, CustomStringConvertible {
    /// Ours / baseline at most this.
    case atMost(Double)
    /// Ours / baseline within these bounds (inclusive).
    case within(Double, Double)

    func isMet(by ratio: Double) -> Bool {
        switch self {
        case .atMost(let limit): return ratio <= limit
        case .within(let low, let high): return ratio >= low && ratio <= high
        }
    }

    var description: String {
        switch self {
        case .atMost(let limit): return "≤ \(Format.trim(limit))"
        case .within(let low, let high): return "\(Format.trim(low))–\(Format.trim(high))"
        }
    }

    /// The bound a JSON reader compares against (the upper one for a range).
    var upperBound: Double {
        switch self {
        case .atMost(let limit): return limit
        case .within(_, let high): return high
        }
    }
}

/// One measured operation, with everything it needs already built.
struct Scenario {
    let name: String
    /// The scenario whose per-round times divide ours to make the ratio.
    let baseline: String?
    let target: Target?
    /// How many times handlers run per operation; checked once before timing so a
    /// scenario that silently delivers nothing (or to the wrong thread) fails loudly.
    let deliveriesPerOperation: Int
    let counter: Counter
    /// Objects that must outlive the runs: Domino's graph holds no strong
    /// references, so intermediate nodes of a chain would otherwise deallocate.
    let keepAlive: [AnyObject]
    /// Runs `count` operations and returns how many ran in total (the contended
    /// scenario runs `count` on each of its threads).
    let run: (Int) -> Int
    /// Multiplies the ratio to the baseline, when one operation of ours does more
    /// work than one of the baseline (a broadcast to 1,111 nodes is compared per 10
    /// nodes with 10 closure calls).
    var ratioScale: Double = 1
}

/// A ratio between two scenarios that is reported as its own row.
struct DerivedRatio {
    let name: String
    let numerator: String
    let denominator: String
    let target: Target
}

/// A straight line `intercept + slope x` fitted by least squares to the medians of
/// several scenarios, each at its own `x` (a depth), reported as two rows:
/// `NAME.per_level` (the slope) and `NAME.intercept`, both in ns.
struct LinearFit {
    let name: String
    let points: [(scenario: String, x: Double)]

    /// The fitted intercept and slope; nil with fewer than two distinct `x`.
    static func fit(_ points: [(x: Double, y: Double)]) -> (intercept: Double, slope: Double)? {
        let count = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / count
        let meanY = points.reduce(0) { $0 + $1.y } / count
        let sxx = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        guard sxx > 0 else { return nil }
        let sxy = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
        let slope = sxy / sxx
        return (meanY - slope * meanX, slope)
    }
}

// MARK: Measuring

/// How long and how often to measure.
struct Plan {
    /// Sample rounds; every scenario runs once per round.
    var samples: Int
    /// How long one sample of one scenario should take.
    var sampleNanos: Double
    /// Calibration doubles the loop until one run takes at least this.
    var calibrationNanos: Double
    /// Operations per sample chosen by hand instead of by calibration.
    var fixedCount: Int?

    static let full = Plan(samples: 15, sampleNanos: 30_000_000, calibrationNanos: 4_000_000)
    static let quick = Plan(samples: 3, sampleNanos: 5_000_000, calibrationNanos: 1_000_000)
}

/// The timings of one scenario: ns/op of each round, in round order.
struct Measurement {
    let scenario: Scenario
    let iterations: Int
    var samples: [Double] = []

    var median: Double { Statistics.median(samples) }
}

enum Statistics {
    static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty)
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

@inline(__always)
func monotonicNanos() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// Runs the scenarios in interleaved rounds so a slow patch of the machine hits
/// ours and the baselines alike, and ratios are taken within a round.
struct Harness {
    let plan: Plan
    /// Printed as progress to standard error, so standard output stays the report.
    var log: (String) -> Void = { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    func measure(_ scenarios: [Scenario]) -> [Measurement] {
        var measurements: [Measurement] = []
        for scenario in scenarios {
            verify(scenario)
            let iterations = calibrate(scenario)
            log("calibrated \(scenario.name): \(iterations) ops per sample")
            measurements.append(Measurement(scenario: scenario, iterations: iterations))
        }
        // One unrecorded round first: on the machines seen so far the first round
        // after calibration ran up to 2x slow across the board (a CPU or VM still
        // ramping up), which with --quick's 3 samples would move the medians.
        for measurement in measurements {
            _ = sample(measurement.scenario, iterations: measurement.iterations)
        }
        for round in 0..<plan.samples {
            // Rotating the start keeps any effect of running order from always
            // landing on the same scenario.
            for offset in 0..<measurements.count {
                let index = (round + offset) % measurements.count
                measurements[index].samples.append(sample(measurements[index].scenario, iterations: measurements[index].iterations))
            }
            log("round \(round + 1)/\(plan.samples) done")
        }
        return measurements
    }

    /// Runs a few operations and checks the handlers ran as often as they should.
    private func verify(_ scenario: Scenario) {
        let before = scenario.counter.total
        let ran = scenario.run(8)
        let delivered = scenario.counter.total - before
        let expected = ran * scenario.deliveriesPerOperation
        guard delivered == expected else {
            log("error: \(scenario.name) ran its handlers \(delivered) times for \(ran) operations; expected \(expected)")
            exit(1)
        }
    }

    /// Finds a loop count whose run lasts about `plan.sampleNanos`; doubles as
    /// warm-up. The first estimate comes from a short run, which on a cold cache or
    /// a CPU still clocking up overestimates the cost, so it is refined once with a
    /// run of the estimated length. `plan.fixedCount` (for profilers, whose slowdown
    /// would skew a timed calibration) skips all of it.
    private func calibrate(_ scenario: Scenario) -> Int {
        if let fixed = plan.fixedCount { return fixed }
        var count = 1
        while true {
            let (elapsed, ran) = timed(scenario, count)
            if elapsed >= plan.calibrationNanos || count >= 1 << 32 {
                count = estimate(elapsed: elapsed, ran: ran, count: count)
                break
            }
            count *= 2
        }
        let (elapsed, ran) = timed(scenario, count)
        return estimate(elapsed: elapsed, ran: ran, count: count)
    }

    private func estimate(elapsed: Double, ran: Int, count: Int) -> Int {
        let nanosPerOperation = max(elapsed / Double(ran), 0.01)
        let operationsPerCount = Double(ran) / Double(count)
        return max(1, Int(plan.sampleNanos / nanosPerOperation / operationsPerCount))
    }

    private func timed(_ scenario: Scenario, _ count: Int) -> (nanos: Double, ran: Int) {
        let start = monotonicNanos()
        let ran = scenario.run(count)
        return (Double(monotonicNanos() - start), ran)
    }

    /// One timed run: nanoseconds per operation.
    private func sample(_ scenario: Scenario, iterations: Int) -> Double {
        let (elapsed, ran) = timed(scenario, iterations)
        return elapsed / Double(ran)
    }
}

// MARK: Threads for the contended scenario

/// Two long-lived threads that run a job together when told, so a contended sample
/// pays for two semaphore wake-ups rather than two thread creations.
///
/// The job gets the thread's lane (0 or 1) and the operation count. The caller
/// blocks until both lanes finished, so its timing is the wall time of the pair.
final class WorkerPair: @unchecked Sendable {
    typealias Job = @Sendable (_ lane: Int, _ count: Int) -> Void

    private let go = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
    private let done = DispatchSemaphore(value: 0)
    // Written before `go` is signalled and read after it is waited on: the
    // semaphores order the accesses.
    private var job: Job?
    private var count = 0

    init() {
        for lane in 0..<2 {
            let thread = Thread { [self] in
                while true {
                    go[lane].wait()
                    job?(lane, count)
                    done.signal()
                }
            }
            thread.name = "domino-bench.worker\(lane)"
            thread.start()
        }
    }

    /// Runs `job` on both threads at once with `count` operations each; returns
    /// the total operation count.
    func run(count: Int, _ job: @escaping Job) -> Int {
        self.job = job
        self.count = count
        go[0].signal()
        go[1].signal()
        done.wait()
        done.wait()
        return 2 * count
    }
}
