import Foundation

// Scale rows: how an operation's cost grows with N (issue 19's "nothing quadratic").
//
// A scale row does one batch of N operations on fresh objects (subscribe N closures to
// one node, then cancel them all), so it cannot loop like a per-operation scenario:
// every sample builds its objects untimed, times its phases, checks what they did,
// and tears down. Sizes run smallest first, and a size whose batch would take longer
// than the budget (predicted from the sizes before it) is skipped with the reason,
// so today's quadratic rows stay affordable and the bigger sizes run by themselves
// once the library is linear.

/// One step of a scale batch.
enum ScaleStep {
    /// Timed: reported as the row `"\(phase).\(N)"`.
    case timed(_ phase: String, () -> Void)
    /// Untimed: returns what went wrong (a handler that ran too often or not at all,
    /// a subscription left behind), or nil.
    case check(() -> String?)
}

/// A set of scale rows measured together: each size builds a batch whose timed
/// phases are the rows (`scale.subscribe` then `scale.cancel` on the same node).
struct ScaleFamily {
    /// The timed phases, in the order the batch runs them.
    let phases: [String]
    let sizes: [Int]
    /// A phase's own target: at most this many seconds at this size (issue 19:
    /// 100,000 subscribes in under half a second), or nil.
    var secondsTarget: (_ phase: String, _ size: Int) -> Double? = { _, _ in nil }
    /// Makes a batch of `size` operations per phase; ns/op is a phase's time / size.
    let build: (_ size: Int) -> [ScaleStep]

    /// The row names this family can report, for `--filter`.
    var rowNames: [String] {
        phases.flatMap { phase in
            sizes.map { "\(phase).\($0)" } + zip(sizes, sizes.dropFirst()).map { ScaleRows.growthName(phase, $0, $1) }
        }
    }
}

/// How much time the scale rows may take.
struct ScalePlan {
    /// A size is skipped when one batch of it (setup and teardown included) is
    /// predicted to take longer than this.
    var batchBudgetSeconds: Double
    /// More samples of a size are taken while its batches took less than this in all.
    var sampleSeconds: Double
    var maximumSamples: Int
    /// Sizes above this are left out (`--quick` drops 100,000).
    var largestSize: Int

    static let full = ScalePlan(batchBudgetSeconds: 20, sampleSeconds: 1, maximumSamples: 5, largestSize: .max)
    static let quick = ScalePlan(batchBudgetSeconds: 0.5, sampleSeconds: 0.1, maximumSamples: 3, largestSize: 10_000)

    /// Linear growth per 10x N is 10, N log N about 13 from 1,000 to 10,000,
    /// quadratic 100; up to 20 passes as linear, which leaves room for the caches
    /// a 10x bigger batch outgrows.
    static let linearGrowth = 20.0
}

/// One row of the scale table: a time, a growth factor or a latency.
struct ScaleRow {
    enum Unit: String {
        case seconds = "s"
        case microseconds = "µs"
        /// Growth of a phase's time per 10x N.
        case factor = "x"
    }

    let name: String
    /// nil when the row was skipped.
    let value: Double?
    let unit: Unit
    let nanosPerOperation: Double?
    /// What the value is about: the sizes of a growth row, why a size was skipped, ...
    let detail: String
    /// The value must be at most this, in `unit`.
    let target: Double?
    /// For a skipped row: what it was predicted to take.
    var predicted: Double?
    /// The time of each sample, for the JSON report.
    var samples: [Double] = []

    /// nil without a target, or when a skipped row's prediction would meet it.
    var met: Bool? {
        guard let target else { return nil }
        if let value { return value <= target }
        if let predicted, predicted > target { return false }
        return nil
    }
}

enum ScaleRows {
    static func growthName(_ phase: String, _ from: Int, _ to: Int) -> String {
        "\(phase).growth.\(from)-\(to)"
    }

    /// A phase's time per 10x N between two sizes: (t2 / t1) ^ (1 / log10(N2 / N1)),
    /// so sizes 1,000 and 4,000 read on the same scale as 1,000 and 10,000.
    static func growthPer10x(from small: (size: Int, seconds: Double), to large: (size: Int, seconds: Double)) -> Double {
        pow(large.seconds / small.seconds, 1 / log10(Double(large.size) / Double(small.size)))
    }
}

/// Runs scale families size by size and turns them into rows.
struct ScaleRunner {
    let plan: ScalePlan
    var log: (String) -> Void = { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    func measure(_ families: [ScaleFamily]) -> [ScaleRow] {
        families.flatMap(measure)
    }

    private func measure(_ family: ScaleFamily) -> [ScaleRow] {
        let sizes = family.sizes.filter { $0 <= plan.largestSize }
        // Per size run: each phase's samples, and the median wall time of a batch.
        var measured: [(size: Int, phases: [String: [Double]], wall: Double)] = []
        var skipped: [(size: Int, reason: String)] = []
        for size in sizes {
            if let (predicted, growth) = predictWall(of: size, from: measured.map { ($0.size, $0.wall) }),
               predicted > plan.batchBudgetSeconds {
                let reason = "skipped: one batch would take about \(Format.seconds(predicted))"
                    + (growth.map { " (growing x\(Format.trim(($0 * 10).rounded() / 10)) per 10x N)" } ?? " (assumed quadratic)")
                    + ", over the \(Format.trim(plan.batchBudgetSeconds)) s budget of this run"
                log("\(family.phases.joined(separator: " + ")).\(size): \(reason)")
                // Bigger sizes would take longer still.
                skipped = sizes.drop { $0 != size }.map { ($0, $0 == size ? reason : "skipped, as \(size) was") }
                break
            }
            var phases: [String: [Double]] = [:]
            var walls: [Double] = []
            repeat {
                let start = monotonicNanos()
                for (phase, seconds) in runBatch(family, size: size) { phases[phase, default: []].append(seconds) }
                walls.append(Double(monotonicNanos() - start) / 1e9)
            } while walls.count < plan.maximumSamples && walls.reduce(0, +) < plan.sampleSeconds
            log("measured \(family.phases.joined(separator: " + ")).\(size): \(walls.count) batches of \(Format.seconds(Statistics.median(walls)))")
            measured.append((size, phases, Statistics.median(walls)))
        }
        return rows(family, measured: measured, skipped: skipped)
    }

    /// What one batch of `size` would take, from the sizes already run: the growth
    /// between the last two, or quadratic after a single one; nil before any.
    private func predictWall(of size: Int, from runs: [(size: Int, wall: Double)]) -> (seconds: Double, growthPer10x: Double?)? {
        guard let last = runs.last else { return nil }
        var growth: Double?
        if runs.count >= 2 {
            let before = runs[runs.count - 2]
            // Clamped: a tiny first batch can look flat (or falling) from noise alone.
            growth = min(max(ScaleRows.growthPer10x(from: (before.size, before.wall), to: (last.size, last.wall)), 10), 1_000)
        }
        let exponent = log10(growth ?? 100)
        return (last.wall * pow(Double(size) / Double(last.size), exponent), growth)
    }

    /// Builds, runs and tears down one batch; returns each timed phase's seconds.
    private func runBatch(_ family: ScaleFamily, size: Int) -> [(String, Double)] {
        var times: [(String, Double)] = []
        // In its own scope so the batch's objects are torn down (and the teardown
        // counted in the wall time) before the next batch.
        do {
            let steps = family.build(size)
            for step in steps {
                switch step {
                case .timed(let phase, let body):
                    let start = monotonicNanos()
                    body()
                    times.append((phase, Double(monotonicNanos() - start) / 1e9))
                case .check(let check):
                    if let failure = check() {
                        log("error: \(family.phases.joined(separator: " + ")).\(size): \(failure)")
                        exit(1)
                    }
                }
            }
        }
        return times
    }

    private func rows(
        _ family: ScaleFamily,
        measured: [(size: Int, phases: [String: [Double]], wall: Double)],
        skipped: [(size: Int, reason: String)]
    ) -> [ScaleRow] {
        var rows: [ScaleRow] = []
        for phase in family.phases {
            for run in measured {
                let samples = run.phases[phase] ?? []
                let seconds = Statistics.median(samples)
                rows.append(ScaleRow(
                    name: "\(phase).\(run.size)", value: seconds, unit: .seconds,
                    nanosPerOperation: seconds * 1e9 / Double(run.size),
                    detail: samples.count == 1 ? "1 batch" : "median of \(samples.count) batches",
                    target: family.secondsTarget(phase, run.size), samples: samples
                ))
            }
            for skip in skipped {
                var row = ScaleRow(
                    name: "\(phase).\(skip.size)", value: nil, unit: .seconds, nanosPerOperation: nil,
                    detail: skip.reason, target: family.secondsTarget(phase, skip.size)
                )
                row.predicted = predictSeconds(of: phase, at: skip.size, from: measured)
                rows.append(row)
            }
            for (small, large) in zip(measured, measured.dropFirst()) {
                guard let smallSeconds = median(small.phases[phase]), let largeSeconds = median(large.phases[phase]) else { continue }
                rows.append(ScaleRow(
                    name: ScaleRows.growthName(phase, small.size, large.size),
                    value: ScaleRows.growthPer10x(from: (small.size, smallSeconds), to: (large.size, largeSeconds)),
                    unit: .factor, nanosPerOperation: nil,
                    detail: "time per 10x N, \(small.size) to \(large.size); linear 10, quadratic 100",
                    target: ScalePlan.linearGrowth
                ))
            }
        }
        return rows
    }

    /// A skipped size's time for one phase, grown from the last size run as that
    /// phase grew between the last two (quadratic after a single size), so that a
    /// target on a skipped size (100,000 subscribes in 0.5 s) still gets a verdict.
    private func predictSeconds(of phase: String, at size: Int, from measured: [(size: Int, phases: [String: [Double]], wall: Double)]) -> Double? {
        guard let last = measured.last, let lastSeconds = median(last.phases[phase]) else { return nil }
        var growth = 100.0
        if measured.count >= 2, let before = median(measured[measured.count - 2].phases[phase]) {
            growth = min(max(ScaleRows.growthPer10x(from: (measured[measured.count - 2].size, before), to: (last.size, lastSeconds)), 10), 1_000)
        }
        return lastSeconds * pow(Double(size) / Double(last.size), log10(growth))
    }

    private func median(_ samples: [Double]?) -> Double? {
        guard let samples, !samples.isEmpty else { return nil }
        return Statistics.median(samples)
    }
}
