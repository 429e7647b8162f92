import Domino

// Errors and protocol events from background work, written as an app target would:
// the module's default isolation is the main actor.

struct SyncFailed: Error {
    var itemID: Int
    var isRetryable: Bool
}

/// A screen that retries what can be retried, on the main actor, whatever thread
/// the error was reported on.
final class InboxViewController {
    let domino = DominoNode(label: "inbox")
    var retried: [Int] = []

    init() {
        domino.receive(SyncFailed.self) { [weak self] error in
            guard error.isRetryable, let self else { return .notHandled }
            retried.append(error.itemID)
            return .handled
        }
    }
}

/// A protocol whose targets may be called from any thread: nonisolated, Sendable.
nonisolated protocol DownloadProgress: AnyObject, Sendable {
    func downloadDidProgress(percent: Int)
}

/// A target that lives on the main thread; its state is main-actor state, reached
/// from its nonisolated method.
nonisolated final class ProgressBadge: DownloadProgress {
    let show: @Sendable (Int) -> Void
    init(show: @escaping @Sendable (Int) -> Void) { self.show = show }
    func downloadDidProgress(percent: Int) { show(percent) }
}

/// Background work: a download callback that reports and posts.
nonisolated func downloadCallback(row: DominoNode, percent: Int, failedItem: Int?) {
    row.post(DownloadProgress.self, to: .everyTarget) { $0.downloadDidProgress(percent: percent) }
    if let failedItem { row.report(SyncFailed(itemID: failedItem, isRetryable: true)) }
}
