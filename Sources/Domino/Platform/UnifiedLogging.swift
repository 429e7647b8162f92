// Domino in Apple's unified log: the default diagnostics handler and trace sink write
// through `os.Logger` (iOS 14, macOS 11), and traced posts, requests and fires are
// `OSSignposter` intervals (iOS 15, macOS 12) that Instruments shows. Without `os`, or
// on older OS versions, the log calls return false (the callers print instead) and
// the intervals are not emitted.
//
// Self-contained on purpose (strings and integers in, nothing of Domino's): besides
// the PlatformCheck builds, PlatformCheck/check.sh typechecks this file alone for
// iOS 13, the one build where the SDK's availability is enforced on Linux.

#if canImport(os)
import os
#endif

/// Domino's subsystem and categories in the unified log, and the calls that write there.
enum UnifiedLogging {
    /// The subsystem of every message and signpost Domino writes.
    static let subsystem = "Domino"
    /// The category of diagnostics (misuse Domino survived), logged as errors.
    static let diagnosticsCategory = "diagnostics"
    /// The category of trace records, logged as info, and of the signpost intervals.
    static let tracingCategory = "tracing"

    /// What a signpost interval spans; its name in Instruments is the case name.
    enum Interval: Sendable, Equatable {
        case post, request, fire
    }

    #if canImport(os)
    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    private static let diagnostics = Logger(subsystem: subsystem, category: diagnosticsCategory)
    @available(macOS 11, iOS 14, tvOS 14, watchOS 7, *)
    private static let tracing = Logger(subsystem: subsystem, category: tracingCategory)
    @available(macOS 12, iOS 15, tvOS 15, watchOS 8, *)
    private static let signposter = OSSignposter(subsystem: subsystem, category: tracingCategory)

    /// Logs a diagnostic as an error. Its message names nodes and types, never event
    /// values, so it is public (readable in Console without a debugger attached).
    /// False when `Logger` is unavailable.
    static func log(diagnostic code: String, _ message: String) -> Bool {
        guard #available(macOS 11, iOS 14, tvOS 14, watchOS 7, *) else { return false }
        diagnostics.error("[\(code, privacy: .public)] \(message, privacy: .public)")
        return true
    }

    /// Logs a trace record as info: `line` (event, node, what happened) is public,
    /// `value` (a description of an event value or an answer) private.
    /// False when `Logger` is unavailable.
    static func log(trace line: String, value: String?) -> Bool {
        guard #available(macOS 11, iOS 14, tvOS 14, watchOS 7, *) else { return false }
        if let value {
            tracing.info("\(line, privacy: .public)\(value, privacy: .private)")
        } else {
            tracing.info("\(line, privacy: .public)")
        }
        return true
    }

    /// Begins the signpost interval `id` (what it is: `label`, public).
    static func begin(_ interval: Interval, id: UInt64, _ label: String) {
        guard #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) else { return }
        let id = OSSignpostID(id)
        // The names must be literals (`StaticString`), hence one call per case.
        switch interval {
        case .post: _ = signposter.beginInterval("post", id: id, "\(label, privacy: .public)")
        case .request: _ = signposter.beginInterval("request", id: id, "\(label, privacy: .public)")
        case .fire: _ = signposter.beginInterval("fire", id: id, "\(label, privacy: .public)")
        }
    }

    /// Ends the signpost interval `id` (how it went: `outcome`, public).
    static func end(_ interval: Interval, id: UInt64, _ outcome: String) {
        guard #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) else { return }
        // The state the begin returned holds nothing but the ID: made again here, so
        // that callers keep nothing between the two.
        let state = OSSignpostIntervalState.beginState(id: OSSignpostID(id))
        switch interval {
        case .post: signposter.endInterval("post", state, "\(outcome, privacy: .public)")
        case .request: signposter.endInterval("request", state, "\(outcome, privacy: .public)")
        case .fire: signposter.endInterval("fire", state, "\(outcome, privacy: .public)")
        }
    }
    #else
    /// Without `os`: false, the caller prints.
    static func log(diagnostic code: String, _ message: String) -> Bool { false }
    /// Without `os`: false, the caller prints.
    static func log(trace line: String, value: String?) -> Bool { false }
    /// Without `os`: nothing.
    static func begin(_ interval: Interval, id: UInt64, _ label: String) {}
    /// Without `os`: nothing.
    static func end(_ interval: Interval, id: UInt64, _ outcome: String) {}
    #endif
}
