/// True on the main thread, or on the main queue wherever it runs (on Linux it may
/// be drained by another thread): where ``DeliveryMode/mainThread`` runs a callback
/// in place, and where main-actor code runs. A function of its own, not a static
/// member, so that inlinable callers do not look up a type's metadata to call it.
@usableFromInline
func isOnMainThread() -> Bool {
    DeliveryMode.mainThread.isCurrent(ThreadState.current)
}
