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
