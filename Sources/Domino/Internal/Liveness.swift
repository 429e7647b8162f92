internal import _DominoShims

/// Retains an object unless its deinit has begun, atomically.
///
/// This is the Swift runtime's own entry point behind weak references (part of its
/// stable ABI), called directly through the C shim (`_DominoShims`): Swift reserves
/// runtime names for the runtime, and looking the symbol up at run time put a
/// lazily initialized global (a `swift_once`) on every signal fire. Domino needs it
/// for the APIs that hand nodes out of the graph (`parents`, `children`,
/// `routeNodes`; links are raw pointers, see `NodeLink`, and a node may sit between
/// its last release and its deinit taking the graph lock, when a plain retain would
/// resurrect a dying object) and for a signal's weakly held observers. Walks never
/// call it; they borrow nodes without retaining them.
@inline(__always)
func tryRetain(_ object: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    _domino_try_retain(object)
}

/// `body`'s result while `tryRetain` holds the object at `address`, released after
/// it; nil once the object's deinit has begun. `address` must stay allocated
/// meanwhile (an `unowned` reference to the object keeps it so).
@inline(__always)
func whileRetained<Result>(_ address: UnsafeMutableRawPointer, _ body: () -> Result) -> Result? {
    guard let retained = tryRetain(address) else { return nil }
    defer { Unmanaged<AnyObject>.fromOpaque(retained).release() }
    return body()
}

/// An object held without keeping it alive and without a side table: an `unowned`
/// reference, which keeps only the object's memory from being freed, plus its
/// address, which `tryRetain` turns into a strong reference unless the object's
/// deinit has begun. For native Swift objects only (an Objective-C object's counts
/// are not the Swift runtime's). A `weak` reference would give the object a side
/// table, where its reference counts then live, and every retain and release of it,
/// Domino's and the app's own, would take the runtime's slow path.
///
/// A dead object's memory (not its state, which its deinit released) stays
/// allocated while this reference exists, so no live object can have its address:
/// identities are compared by address, loading nothing. A holder that needs the
/// object as an existential keeps an `unowned(unsafe)` copy of it beside this and
/// reads it only inside `whileAlive` (`WeakActor`; `WeakResponder` keeps the same
/// words in a form that a loop reads without copying, `UnretainedResponder`); one that
/// needs an `AnyObject` takes `retained()` (`ObserverReference`).
struct UnownedReference: @unchecked Sendable {
    // Never read: holding it is what keeps `address` pointing at the object's
    // memory, deinitialized or not, so that `tryRetain` on it is always sound.
    private unowned let keeper: AnyObject
    private let address: UnsafeMutableRawPointer

    init(_ object: AnyObject) {
        keeper = object
        address = Unmanaged.passUnretained(object).toOpaque()
    }

    /// `body`'s result, run while the object is held alive, or nil once its deinit
    /// has begun.
    @inline(__always)
    func whileAlive<Result>(_ body: () -> Result) -> Result? {
        whileRetained(address, body)
    }

    /// The object with a reference of the caller's to release (the one `tryRetain`
    /// took), or nil once its deinit has begun.
    @inline(__always)
    func retained() -> Unmanaged<AnyObject>? {
        tryRetain(address).map { Unmanaged<AnyObject>.fromOpaque($0) }
    }

    /// The object's identity, which outlives it: its memory stays allocated while
    /// this reference exists. Made from the address, never from a reference, which
    /// would retain an object whose deinit may have run.
    var identity: ObjectIdentifier { unsafeBitCast(address, to: ObjectIdentifier.self) }

    /// True once the object's deinit has begun.
    @inline(__always)
    var isGone: Bool {
        whileAlive { () } == nil
    }

    /// True when this refers to `other` (alive, since the caller holds it).
    @inline(__always)
    func refers(to other: AnyObject) -> Bool {
        address == Unmanaged.passUnretained(other).toOpaque()
    }
}
