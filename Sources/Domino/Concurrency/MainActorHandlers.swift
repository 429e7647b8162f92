import Dispatch

/// True on the main thread, or on the main queue wherever it runs (on Linux it may
/// be drained by another thread): where ``DeliveryMode/mainThread`` runs a callback
/// in place, and where main-actor code runs. A function of its own, not a static
/// member, so that inlinable callers do not look up a type's metadata to call it.
@usableFromInline
func isOnMainThread() -> Bool {
    DeliveryMode.mainThread.isCurrent(ThreadState.current)
}

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
