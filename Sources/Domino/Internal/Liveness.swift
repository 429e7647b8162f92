#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Android)
@preconcurrency import Android
#endif

/// Retains an object unless its deinit has begun, atomically.
///
/// This is the Swift runtime's own entry point behind weak references (part of its
/// stable ABI). Domino needs it only for the few APIs that hand nodes out of the
/// graph (`parents`, `children`, `routeNodes`): links are raw pointers (see `NodeLink`),
/// and a node may sit between its last release and its deinit taking the graph lock,
/// when a plain retain would resurrect a dying object. Walks never call it; they
/// borrow nodes without retaining them.
///
/// The symbol is looked up at run time because the compiler reserves runtime names
/// for direct references. Should it ever be missing, dying and live nodes alike are
/// left out of those inspection results, which is safe.
@inline(__always)
func tryRetain(_ object: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    var bits = withUnsafeMutablePointer(to: &tryRetainBits) { AtomicWord.load(UnsafeMutableRawPointer($0)) }
    if bits == 0 { bits = lookUpTryRetain() }
    guard bits != tryRetainMissing else { return nil }
    return unsafeBitCast(bits, to: TryRetainFunction.self)(object)
}

private typealias TryRetainFunction = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?

/// The address of `swift_tryRetain`, `tryRetainMissing` when the runtime has none,
/// or 0 before the first look-up: a global with a constant initializer, which the
/// compiler initializes statically, so that reading it costs no `swift_once` (a
/// `let` of the looked-up function cost every signal fire one, about 8
/// instructions with its call). Only ever accessed atomically; every thread that
/// looks the symbol up stores the same value.
@exclusivity(unchecked) nonisolated(unsafe) private var tryRetainBits: UInt = 0
private let tryRetainMissing: UInt = 1

/// Looks `swift_tryRetain` up and records it in `tryRetainBits`.
@inline(never)
private func lookUpTryRetain() -> UInt {
    #if canImport(Darwin)
    let handle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
    #else
    let handle = dlopen(nil, RTLD_NOW)
    #endif
    let bits = dlsym(handle, "swift_tryRetain").map { UInt(bitPattern: $0) } ?? tryRetainMissing
    withUnsafeMutablePointer(to: &tryRetainBits) { AtomicWord.storeReleasing(UnsafeMutableRawPointer($0), bits) }
    return bits
}
