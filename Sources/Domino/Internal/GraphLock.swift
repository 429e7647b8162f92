/// The lock that guards the whole node graph: links, handler tables and settings.
///
/// It is a "big-reader" lock: one mutex per stripe, each on its own cache lines.
/// A post (a reader) locks only its thread's stripe, so threads posting at the same
/// time neither wait for each other nor bounce a shared cache line; a mutation (a
/// writer: mount, subscribe, cancel, node deinit) locks every stripe in order.
/// Posts vastly outnumber mutations in event-driven code, so this trades a slower
/// write for the cheapest read a portable mutex allows.
///
/// Invariant: no user code (handler, deinit of a user object) ever runs while any
/// stripe is held. Writers hand what they remove back to the caller, which drops it
/// after unlocking (see `Graveyard`).
final class GraphLock: @unchecked Sendable {
    static let stripeCount = 8
    /// Two cache lines per stripe keep adjacent-line prefetching from coupling them.
    private static let stripeStride = 128

    private let base: UnsafeMutableRawPointer

    init() {
        precondition(PlatformMutex.size <= Self.stripeStride)
        base = .allocate(byteCount: Self.stripeCount * Self.stripeStride, alignment: Self.stripeStride)
        for stripe in 0..<Self.stripeCount {
            PlatformMutex.initialize(base + stripe * Self.stripeStride)
        }
    }

    @inline(__always)
    func lockShared(stripe: Int) {
        PlatformMutex.lock(base + stripe * Self.stripeStride)
    }

    @inline(__always)
    func unlockShared(stripe: Int) {
        PlatformMutex.unlock(base + stripe * Self.stripeStride)
    }

    func lockExclusive() {
        for stripe in 0..<Self.stripeCount {
            PlatformMutex.lock(base + stripe * Self.stripeStride)
        }
    }

    func unlockExclusive() {
        for stripe in (0..<Self.stripeCount).reversed() {
            PlatformMutex.unlock(base + stripe * Self.stripeStride)
        }
    }

    /// Runs `body` as a reader on the calling thread's stripe.
    @inline(__always)
    func withShared<R>(_ body: () throws -> R) rethrows -> R {
        let stripe = ThreadState.current.pointee.stripe
        lockShared(stripe: stripe)
        defer { unlockShared(stripe: stripe) }
        return try body()
    }

    /// Runs `body` as the only writer. Whatever `body` puts in the graveyard is
    /// released after the lock is dropped, so no deinit runs under the lock.
    @inline(__always)
    func withExclusive<R>(_ body: (inout Graveyard) throws -> R) rethrows -> R {
        var graveyard = Graveyard()
        ThreadState.current.pointee.writes &+= 1
        lockExclusive()
        let result: R
        do {
            result = try body(&graveyard)
        } catch {
            unlockExclusive()
            throw error
        }
        unlockExclusive()
        graveyard.bury()
        return result
    }
}

/// Objects removed under the graph lock, released only after it is dropped.
///
/// Releasing a handler can release the last reference to a user object whose deinit
/// touches Domino (for example a host whose node then unmounts), which would deadlock
/// if it happened under the lock.
///
/// It also tells subscriptions that ended under the lock, once the lock is dropped,
/// so that one feeding a stream can finish it (which runs the stream's termination
/// handler, which may cancel, which takes the lock).
struct Graveyard {
    private var bodies: [AnyObject] = []
    private var ended: [Subscription] = []

    mutating func add(_ object: AnyObject) {
        bodies.append(object)
    }

    /// Marks `subscription` as ended (no longer registered at a node). Lock held.
    mutating func end(_ subscription: Subscription) {
        subscription.home = nil
        ended.append(subscription)
    }

    mutating func bury() {
        for subscription in ended { subscription.didEnd() }
        ended.removeAll()
        bodies.removeAll()
    }
}

/// The one lock of the graph.
let graphLock = GraphLock()
