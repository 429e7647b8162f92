import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: Results

/// One row of the report: a scenario, a ratio derived from two of them, or a cost
/// fitted over several.
struct ResultRow {
    let name: String
    let nanosPerOperation: Double?
    let baseline: String?
    /// Median over rounds of (ours / baseline) in the same round; nil without a
    /// baseline (or when the baseline was filtered out).
    let ratio: Double?
    let target: Target?

    /// nil when there is no target or no ratio to judge.
    var met: Bool? {
        guard let target, let ratio else { return nil }
        return target.isMet(by: ratio)
    }
}

enum Results {
    /// Turns measurements into report rows: medians, per-round ratios, verdicts.
    ///
    /// A ratio is the median of the per-round ratios rather than the ratio of the
    /// medians: both numbers of a round ran back to back, so a slow patch of the
    /// machine cancels out of each round's ratio. It can differ slightly from
    /// dividing the two ns/op columns.
    static func rows(_ measurements: [Measurement], derived: [DerivedRatio], fits: [LinearFit]) -> [ResultRow] {
        let byName = Dictionary(uniqueKeysWithValues: measurements.map { ($0.scenario.name, $0) })
        var rows: [ResultRow] = []
        for measurement in measurements {
            let scenario = measurement.scenario
            let base = scenario.baseline.flatMap { byName[$0] }
            rows.append(ResultRow(
                name: scenario.name,
                nanosPerOperation: measurement.median,
                baseline: scenario.baseline,
                ratio: base.map { roundRatio(measurement, $0) * scenario.ratioScale },
                target: scenario.target
            ))
            // A derived row follows its numerator.
            for ratio in derived where ratio.numerator == scenario.name {
                guard let denominator = byName[ratio.denominator] else { continue }
                rows.append(ResultRow(
                    name: ratio.name,
                    nanosPerOperation: nil,
                    baseline: ratio.denominator,
                    ratio: roundRatio(measurement, denominator),
                    target: ratio.target
                ))
            }
            // Fitted rows follow the last of their scenarios, when all of them ran.
            for fit in fits where fit.points.last?.scenario == scenario.name {
                let points = fit.points.compactMap { point in byName[point.scenario].map { (x: point.x, y: $0.median) } }
                guard points.count == fit.points.count, let line = LinearFit.fit(points) else { continue }
                let depths = fit.points.map { Format.trim($0.x) }.joined(separator: ", ")
                rows.append(ResultRow(
                    name: "\(fit.name).per_level", nanosPerOperation: line.slope,
                    baseline: "fit of \(depths)", ratio: nil, target: nil
                ))
                rows.append(ResultRow(
                    name: "\(fit.name).intercept", nanosPerOperation: line.intercept,
                    baseline: "fit of \(depths)", ratio: nil, target: nil
                ))
            }
        }
        return rows
    }

    private static func roundRatio(_ ours: Measurement, _ base: Measurement) -> Double {
        Statistics.median(zip(ours.samples, base.samples).map { $0 / $1 })
    }
}

// MARK: Machine

/// What the figures were measured on, printed first so a table is never read
/// without it.
struct Machine: Encodable {
    let architecture: String
    let cpu: String
    let cores: Int

    static func current() -> Machine {
        Machine(architecture: unameMachine(), cpu: cpuModel(), cores: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// `uname -m`.
    private static func unameMachine() -> String {
        #if canImport(Glibc)
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        return withUnsafeBytes(of: &names.machine) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        #else
        return "unknown"
        #endif
    }

    /// The first "model name" of /proc/cpuinfo (x86), else its "Hardware" or
    /// "CPU part" line (Arm), else "unknown".
    private static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for key in ["model name", "Hardware", "CPU part"] {
            for line in text.split(separator: "\n") where line.hasPrefix(key) {
                if let colon = line.firstIndex(of: ":") {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return "unknown"
    }
}

// MARK: Markdown

enum Format {
    /// A number without trailing zeros: 0.75, 8, 1.2.
    static func trim(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func nanos(_ value: Double) -> String {
        String(format: value < 100 ? "%.2f" : "%.1f", value)
    }

    /// Seconds to three significant digits: 0.0193, 1.81, 181.
    static func seconds(_ value: Double) -> String {
        "\(significant(value)) s"
    }

    /// Three significant digits, without an exponent.
    static func significant(_ value: Double) -> String {
        guard value > 0 else { return "0" }
        let decimals = max(0, 2 - Int(log10(value).rounded(.down)))
        return String(format: "%.\(decimals)f", value)
    }

    static func ratio(_ value: Double) -> String {
        String(format: value < 10 ? "%.3f" : "%.2f", value)
    }

    static func verdict(_ met: Bool?) -> String {
        switch met {
        case .some(true): return "met"
        case .some(false): return "missed"
        case .none: return ""
        }
    }

    /// A markdown table with its columns padded to line up in a terminal.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}

enum Markdown {
    static func machine(_ machine: Machine, mode: String, plan: Plan) -> String {
        """
        # Domino benchmarks

        machine: \(machine.architecture), \(machine.cpu), \(machine.cores) cores
        mode: \(mode): \(plan.samples) samples per scenario of ~\(Format.trim(plan.sampleNanos / 1_000_000)) ms each, interleaved; ns/op is the median sample
        """
    }

    static func results(_ rows: [ResultRow]) -> String {
        Format.table(
            ["scenario", "ns/op", "baseline", "ratio", "target", "verdict"],
            rows.map { row in
                [
                    row.name,
                    row.nanosPerOperation.map(Format.nanos) ?? "",
                    row.baseline ?? "",
                    row.ratio.map(Format.ratio) ?? "",
                    row.target?.description ?? "",
                    row.target != nil && row.ratio == nil ? "n/a (baseline not run)" : Format.verdict(row.met),
                ]
            }
        )
    }

    static func scale(_ rows: [ScaleRow]) -> String {
        func value(_ value: Double, _ unit: ScaleRow.Unit) -> String {
            unit == .factor ? "x\(Format.significant(value))" : "\(Format.significant(value)) \(unit.rawValue)"
        }
        return Format.table(
            ["scale", "value", "ns/op", "detail", "target", "verdict"],
            rows.map { row in
                var verdict = Format.verdict(row.met)
                if row.value == nil, let predicted = row.predicted, row.met == false {
                    verdict += " (predicted \(value(predicted, row.unit)))"
                }
                return [
                    row.name,
                    row.value.map { value($0, row.unit) } ?? "",
                    row.nanosPerOperation.map(Format.nanos) ?? "",
                    row.detail,
                    row.target.map { row.unit == .factor ? "≤ x\(Format.trim($0))" : "≤ \(Format.trim($0)) \(row.unit.rawValue)" } ?? "",
                    verdict,
                ]
            }
        )
    }

    static func memory(_ figures: MemoryFigures) -> String {
        func row(_ name: String, _ value: Double?, _ limit: Double) -> [String] {
            [name, value.map { String(format: "%.1f", $0) } ?? "n/a", "≤ \(Format.trim(limit))", Format.verdict(value.map { $0 <= limit })]
        }
        return Format.table(
            ["memory", "bytes", "target", "verdict"],
            [
                row("bytes_per_idle_node", figures.bytesPerIdleNode, MemoryFigures.idleNodeTarget),
                row("bytes_per_single_subscription", figures.bytesPerSingleSubscription, MemoryFigures.singleSubscriptionTarget),
                row("bytes_per_subscription", figures.bytesPerSubscription, MemoryFigures.subscriptionTarget),
            ]
        )
    }
}

// MARK: JSON

/// The `--json` file. `results` and `memory` are the documented schema; a value
/// that does not apply is written as null, never left out. `target`, `met`,
/// `samples_ns`, `machine` and `mode` are extra context for a reader. `scale` holds
/// the scale and stall rows: `value` in `unit` (`s`, `µs`, or `x` for growth per
/// 10x N), null when skipped, with `predicted` then; `target` is in `unit` too, and
/// `samples` are the seconds of each batch.
struct JSONReport: Encodable {
    let results: [ResultRow]
    let scale: [ScaleRow]
    let memory: MemoryFigures?
    let samples: [String: [Double]]
    let machine: Machine
    let mode: String

    enum Keys: String, CodingKey {
        case results, scale, memory, machine, mode
    }

    enum ScaleKeys: String, CodingKey {
        case name, value, unit, ns_per_op, detail, target, met, predicted, samples
    }

    enum RowKeys: String, CodingKey {
        case name, ns_per_op, baseline, ratio, target, met, samples_ns
    }

    enum MemoryKeys: String, CodingKey {
        case bytes_per_idle_node, bytes_per_single_subscription, bytes_per_subscription
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var list = container.nestedUnkeyedContainer(forKey: .results)
        for row in results {
            var item = list.nestedContainer(keyedBy: RowKeys.self)
            try item.encode(row.name, forKey: .name)
            // Encoding the optionals themselves (not encodeIfPresent) writes null.
            try item.encode(row.nanosPerOperation.map { rounded($0, 2) }, forKey: .ns_per_op)
            try item.encode(row.baseline, forKey: .baseline)
            try item.encode(row.ratio.map { rounded($0, 4) }, forKey: .ratio)
            try item.encode(row.target?.description, forKey: .target)
            try item.encode(row.met, forKey: .met)
            try item.encode(samples[row.name]?.map { rounded($0, 2) }, forKey: .samples_ns)
        }
        var scaleList = container.nestedUnkeyedContainer(forKey: .scale)
        for row in scale {
            var item = scaleList.nestedContainer(keyedBy: ScaleKeys.self)
            try item.encode(row.name, forKey: .name)
            try item.encode(row.value.map { rounded($0, 6) }, forKey: .value)
            try item.encode(row.unit.rawValue, forKey: .unit)
            try item.encode(row.nanosPerOperation.map { rounded($0, 2) }, forKey: .ns_per_op)
            try item.encode(row.detail, forKey: .detail)
            try item.encode(row.target, forKey: .target)
            try item.encode(row.met, forKey: .met)
            try item.encode(row.predicted.map { rounded($0, 6) }, forKey: .predicted)
            try item.encode(row.samples.map { rounded($0, 6) }, forKey: .samples)
        }
        var memoryItem = container.nestedContainer(keyedBy: MemoryKeys.self, forKey: .memory)
        try memoryItem.encode(memory?.bytesPerIdleNode.map { rounded($0, 1) }, forKey: .bytes_per_idle_node)
        try memoryItem.encode(memory?.bytesPerSingleSubscription.map { rounded($0, 1) }, forKey: .bytes_per_single_subscription)
        try memoryItem.encode(memory?.bytesPerSubscription.map { rounded($0, 1) }, forKey: .bytes_per_subscription)
        try container.encode(machine, forKey: .machine)
        try container.encode(mode, forKey: .mode)
    }

    private func rounded(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
