// domino-bench: Domino's performance against closures, OpenCombine and
// NotificationCenter, measured in one process so the ratios hold on a noisy machine.
//
//   swift run -c release --package-path Benchmarks domino-bench [options]
//
// The report (a markdown table) goes to standard output; progress goes to
// standard error. See `Options.usage`.

import Foundation

/// Command-line options.
struct Options {
    var quick = false
    var jsonPath: String?
    /// Only scenarios (and memory figures) whose names contain this run.
    var filter: String?
    var samples: Int?
    var ops: Int?

    static let usage = """
    usage: domino-bench [--quick] [--json PATH] [--filter TEXT] [--samples N] [--ops N]

      --quick         a smoke run (3 samples of ~5 ms each; scale rows up to 10,000
                      and only where a batch takes under 0.5 s)
      --json PATH     also write the results as JSON to PATH
      --filter TEXT   run only scenarios whose names contain TEXT (TEXT$: whose
                      names end in TEXT); a ratio needs its baseline to run too.
                      The memory figures run only when TEXT is part of "memory"
      --samples N     sample rounds (default 15, or 3 with --quick)
      --ops N         operations per sample instead of a timed calibration, for
                      profilers (valgrind --tool=callgrind); each scenario then
                      runs 8 + N x (samples + 1) operations in all (a check run,
                      a warm-up round, the samples)
    """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(for flag: String) -> String {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--json": options.jsonPath = value(for: argument)
            case "--filter": options.filter = value(for: argument)
            case "--samples":
                guard let samples = Int(value(for: argument)), samples > 0 else { fail("--samples needs a positive number") }
                options.samples = samples
            case "--ops":
                guard let ops = Int(value(for: argument)), ops > 0 else { fail("--ops needs a positive number") }
                options.ops = ops
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        return options
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("domino-bench: \(message)\n\(usage)\n".utf8))
        exit(2)
    }

    var measuresMemory: Bool {
        guard let filter else { return true }
        return "memory".contains(filter)
    }
}

let start = monotonicNanos()
let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
var plan = options.quick ? Plan.quick : Plan.full
if let samples = options.samples { plan.samples = samples }
plan.fixedCount = options.ops
let mode = options.quick ? "quick" : "full"
let machine = Machine.current()

#if DEBUG
FileHandle.standardError.write(Data("warning: a debug build; run with -c release for meaningful figures\n".utf8))
#endif

print(Markdown.machine(machine, mode: mode, plan: plan))
print()

let scenarios = Scenarios.all(filter: options.filter)
// The responder rows after the others, in a group of their own: see
// ResponderScenarios.swift.
let measurements = Harness(plan: plan).measure(scenarios)
    + Harness(plan: plan).measure(Scenarios.responders(filter: options.filter))
    + Harness(plan: plan).measure(Scenarios.isolated(filter: options.filter))
let rows = Results.rows(measurements, derived: Scenarios.derived, fits: Scenarios.fits)
if !rows.isEmpty {
    print(Markdown.results(rows))
    print()
    print("ratio = ours / baseline, the median of per-round ratios; verdicts compare it with the target.")
    print()
}

// After the interleaved rounds, so the big batches they make and free do not
// reshape the heap under the per-operation scenarios.
var scaleRows = ScaleRunner(plan: options.quick ? .quick : .full).measure(Scenarios.scale(filter: options.filter))
if options.filter.map({ filter in Stall.rowNames.contains { Scenarios.matches($0, filter) } }) ?? true {
    scaleRows += Stall.measure(seconds: options.quick ? 0.2 : 1) { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
if !scaleRows.isEmpty {
    print(Markdown.scale(scaleRows))
    print()
    print("growth = a phase's time per 10x N (linear 10, quadratic 100); a skipped size's verdict uses its predicted time.")
    print()
}

// Last, so the 100,000 nodes it makes and frees do not reshape the heap under
// the timed scenarios.
let memory = options.measuresMemory ? MemoryFigures.measure() : nil
if let memory {
    print(Markdown.memory(memory))
    print()
}

if let path = options.jsonPath {
    let report = JSONReport(
        results: rows,
        scale: scaleRows,
        memory: memory,
        samples: Dictionary(uniqueKeysWithValues: measurements.map { ($0.scenario.name, $0.samples) }),
        machine: machine,
        mode: mode
    )
    do {
        try report.write(to: path)
    } catch {
        FileHandle.standardError.write(Data("domino-bench: cannot write \(path): \(error)\n".utf8))
        exit(1)
    }
}

print("total time: \(Format.trim(Double(monotonicNanos() - start) / 1e9)) s")
