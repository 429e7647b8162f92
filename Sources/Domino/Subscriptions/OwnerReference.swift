/// How a handler holds the object it is bound to (an owner-bound handler's owner, a
/// protocol target that is an object): as a signal holds an observer
/// (`ObserverReference`: on Linux, without giving the object a side table, which made
/// every retain and release of it, the app's own too, take the slow path; on Apple
/// platforms, `weak`), plus the object's identity, which outlives it (the duplicate
/// check and diagnostics name the object by it).
struct OwnerReference: @unchecked Sendable {
    private let reference: ObserverReference
    #if canImport(ObjectiveC)
    /// The owner's identity: a weak reference forgets its object.
    let identity: ObjectIdentifier
    #endif

    init(_ owner: AnyObject) {
        reference = ObserverReference(owner)
        #if canImport(ObjectiveC)
        identity = ObjectIdentifier(owner)
        #endif
    }

    #if !canImport(ObjectiveC)
    /// The owner's identity (its memory stays allocated while this reference exists,
    /// so no other object takes its address).
    var identity: ObjectIdentifier { reference.identity }
    #endif

    /// The owner, retained, or nil once its deinit has begun.
    @inline(__always)
    func load<Owner: AnyObject>(as type: Owner.Type) -> Owner? {
        guard let object = reference.load() else { return nil }
        return unsafeDowncast(object, to: Owner.self)
    }

    /// The owner with a reference of the caller's to release (kept for exactly as
    /// long as the caller says, which a strong reference's last use does not), or
    /// nil once its deinit has begun.
    @inline(__always)
    func retained() -> Unmanaged<AnyObject>? {
        reference.retained()
    }

    /// True once the owner's deinit has begun.
    var isGone: Bool { reference.load() == nil }
}
