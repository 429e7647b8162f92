/// The signpost intervals of traced posts, requests and signal fires: Instruments shows
/// them on Apple platforms (see `UnifiedLogging`); tests see them through `capture`.
///
/// Called only where a walk already branches on tracing, so untraced posts pay nothing.
/// An interval's ID comes from the thread and the nesting level it runs at
/// (`ThreadState.signpostID`): the end finds it again without the caller keeping it.
enum Signposts {
    /// One begin or end, as `capture` returns it.
    struct Mark: Sendable, Equatable {
        let interval: UnifiedLogging.Interval
        let isBegin: Bool
        let id: UInt64
        /// The begin's label, or the end's outcome.
        let text: String
    }

    @TaskLocal static var collector: Collector?

    /// Begins interval `id`; `label` says what it is (`ContentDidLoad at content`).
    static func begin(_ interval: UnifiedLogging.Interval, id: UInt64, _ label: String) {
        collector?.append(Mark(interval: interval, isBegin: true, id: id, text: label))
        UnifiedLogging.begin(interval, id: id, label)
    }

    /// Ends interval `id`; `outcome` says how it went (`delivered to 2 handler(s) over 3 node(s)`).
    static func end(_ interval: UnifiedLogging.Interval, id: UInt64, _ outcome: String) {
        collector?.append(Mark(interval: interval, isBegin: false, id: id, text: outcome))
        UnifiedLogging.end(interval, id: id, outcome)
    }

    /// Runs `body` and returns the marks it made on the current task or thread (they
    /// still go to the unified log).
    static func capture(_ body: () throws -> Void) rethrows -> [Mark] {
        let collector = Collector()
        try $collector.withValue(collector) { try body() }
        return collector.records
    }

    final class Collector: @unchecked Sendable {
        private let storage = Mutex<[Mark]>([])
        func append(_ mark: Mark) { storage.withLock { $0.append(mark) } }
        var records: [Mark] { storage.withLock { $0 } }
    }
}
