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
    guard let function = runtimeTryRetain.function else { return nil }
    return function(object)
}

private struct RuntimeTryRetain: @unchecked Sendable {
    typealias Function = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
    let function: Function?

    init() {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2) // RTLD_DEFAULT
        #else
        let handle = dlopen(nil, RTLD_NOW)
        #endif
        if let symbol = dlsym(handle, "swift_tryRetain") {
            function = unsafeBitCast(symbol, to: Function.self)
        } else {
            function = nil
        }
    }
}

private let runtimeTryRetain = RuntimeTryRetain()
