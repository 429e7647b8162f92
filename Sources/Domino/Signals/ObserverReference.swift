/// How a signal holds an observer object: without keeping it alive, yet able to
/// retain it for the length of a callback if it still lives.
///
/// A `weak` reference gives the object a side table, and on the machines this
/// project measures, retaining and releasing an object with a side table costs
/// about three times as much as without one, for the observer's own code too, not
/// only for signals. Where every object is a native Swift object (no Objective-C
/// runtime), the reference is instead an `UnownedReference` (Liveness.swift): an
/// `unowned` one, which keeps only the object's memory (not the object) from being
/// freed, plus its address, which `tryRetain` turns into a strong reference unless
/// the object's deinit has begun. With the Objective-C runtime the observer may be an
/// Objective-C object, whose reference counts the Swift runtime's `tryRetain` does
/// not know, so the reference is `weak`.
///
/// Either way a dead observer's entry is purged by the next fire, count or removal
/// that finds it; until then the native variant keeps the dead object's memory (not
/// its properties, which its deinit released) allocated.
///
/// `@unchecked Sendable`: the reference is written once, at init, and only loaded
/// afterwards, which the runtime makes safe from any thread. The observer object
/// itself need not be `Sendable`: as with owner-bound subscriptions at nodes, it is
/// handed to a `@Sendable` callback that the user chose to run where the observer
/// may be used.
#if canImport(ObjectiveC)
@usableFromInline
struct ObserverReference: @unchecked Sendable {
    // Written once, in init; the runtime makes concurrent loads safe.
    private weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }

    /// The observer, retained, or nil once its deinit has begun.
    @usableFromInline
    func load() -> AnyObject? {
        object
    }

    /// The observer with a reference of the caller's to release, or nil once its
    /// deinit has begun.
    func retained() -> Unmanaged<AnyObject>? {
        object.map { Unmanaged.passRetained($0) }
    }

    /// True when this refers to `other` (nil-safe: a dead observer refers to nothing).
    func refers(to other: AnyObject) -> Bool {
        object === other
    }
}
#else
@usableFromInline
struct ObserverReference: @unchecked Sendable {
    private let reference: UnownedReference

    init(_ object: AnyObject) {
        reference = UnownedReference(object)
    }

    /// The observer, retained, or nil once its deinit has begun.
    @usableFromInline
    func load() -> AnyObject? {
        reference.retained()?.takeRetainedValue()
    }

    /// The observer with a reference of the caller's to release, or nil once its
    /// deinit has begun.
    func retained() -> Unmanaged<AnyObject>? {
        reference.retained()
    }

    /// The object's identity, which outlives it (see `UnownedReference.identity`).
    var identity: ObjectIdentifier { reference.identity }

    /// True when this refers to `other`. A dead observer's memory stays allocated
    /// while this reference exists, so no new object can take its address.
    func refers(to other: AnyObject) -> Bool {
        reference.refers(to: other)
    }
}
#endif
