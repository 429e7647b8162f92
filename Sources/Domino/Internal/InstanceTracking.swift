#if DEBUG
/// Debug builds only: the objects Domino was handed (nodes, owners, targets) while
/// a tracker is installed for the current task, so that a test can check, once it is
/// done, that every one of them deallocated (the library kept none alive).
///
/// Release builds compile none of this.
final class InstanceTracker: @unchecked Sendable {
    private struct Entry {
        weak var object: AnyObject?
        let description: String
    }

    // Guarded by its own mutex; entries hold their objects weakly.
    private let entries = Mutex<[Entry]>([])

    @TaskLocal static var current: InstanceTracker?

    /// Records `object` for the current task's tracker, if there is one.
    static func track(_ object: AnyObject, _ description: @autoclosure () -> String) {
        guard let tracker = current else { return }
        let entry = Entry(object: object, description: description())
        tracker.entries.withLock { $0.append(entry) }
    }

    /// What is still alive, described.
    var survivors: [String] {
        // Strong references are taken and dropped outside the mutex: a last release
        // may run a deinit that creates more objects.
        let alive: [(AnyObject, String)] = entries.withLock { entries in
            entries.compactMap { entry in entry.object.map { ($0, entry.description) } }
        }
        return alive.map(\.1)
    }

    /// How many objects were tracked.
    var count: Int { entries.withLock { $0.count } }
}
#endif
