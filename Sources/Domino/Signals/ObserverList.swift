/// The observers of a signal at one moment, in the order they were added.
///
/// A list never changes: every add or removal makes a new one, so a fire can
/// iterate the list it started with, without the lock, while other threads (or its
/// own callbacks) change the signal.
///
/// Fires retain neither the list nor its entries. On the machines this project
/// measures, a retain and release of a shared object cost about three times a lock
/// round trip, and a fire takes the signal's lock anyway. So a fire instead counts
/// itself in as a reader under that lock, and out again under it when done; a list
/// replaced while it has readers is parked in `SignalCore.retired` until its last
/// reader leaves. That keeps a list alive while fires use it, and the list keeps
/// its entries alive: it holds a strong reference to each, stored as `Unmanaged`
/// in memory of its own so that reading one is a plain load (an array element
/// would be retained by the reader).
///
/// Invariant (for `@unchecked Sendable`): `count` and the references at `base` are
/// written once, before the list is published under the core's lock; `readers` is
/// read and written only under that lock.
@usableFromInline
final class ObserverList: @unchecked Sendable {
    @usableFromInline let count: Int
    /// `count` retained references, released by deinit.
    @usableFromInline let base: UnsafeMutablePointer<Unmanaged<SignalObserver>>
    /// Once replaced, how many fires still iterate this list (while current, the
    /// core counts them). Guarded by the core's lock.
    @exclusivity(unchecked) var readers = 0

    init(_ entries: [SignalObserver]) {
        count = entries.count
        base = .allocate(capacity: count)
        var slot = base
        for entry in entries {
            slot.initialize(to: .passRetained(entry))
            slot += 1
        }
    }

    deinit {
        for index in 0..<count {
            base[index].release()
        }
        base.deallocate()
    }

    /// The entries as an array (retaining each), for everything but fires.
    var entries: [SignalObserver] {
        (0..<count).map { base[$0].takeUnretainedValue() }
    }
}
