import Dispatch

/// Runs `body` on the main actor: in place on the main thread (where the main actor
/// runs), else queued on the main queue. For callbacks whose delivery mode should
/// already have brought them to the main thread, so that a changed mode costs a
/// hop instead of a failed isolation check.
@usableFromInline
func runOnMainActor(_ body: @escaping @MainActor @Sendable () -> Void) {
    if DeliveryMode.mainThread.isCurrent(ThreadState.current) {
        MainActor.assumeIsolated(body)
    } else {
        DispatchQueue.main.async { MainActor.assumeIsolated(body) }
    }
}
