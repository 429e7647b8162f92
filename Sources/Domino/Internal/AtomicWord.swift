/// Word-sized atomics on raw memory: the one place that calls the standard
/// library's primitives for them.
///
/// `Synchronization.Atomic` would be the natural type, but it needs iOS 18 /
/// macOS 15 and the core deploys to iOS 13. The standard library's own word-sized
/// primitives are `@_transparent` / `@_alwaysEmitIntoClient`: they compile to one
/// instruction each (an acquiring load, a sequentially consistent
/// compare-and-swap) on every OS version, need nothing from the runtime, and the
/// thread sanitizer sees them as the atomics they are. They are typed for class
/// references; these functions only move the word's bit pattern through them,
/// never retaining or dereferencing it.
@usableFromInline
enum AtomicWord {
    /// An acquiring load of the word at `word`.
    @inlinable @inline(__always)
    static func load(_ word: UnsafeMutableRawPointer) -> UInt {
        let target = word.assumingMemoryBound(to: FlagWord?.self)
        return UInt(bitPattern: _stdlib_atomicAcquiringLoadARCRef(object: target)?.toOpaque())
    }

    /// Stores `desired` if the word holds `expected` (sequentially consistent);
    /// otherwise `expected` becomes what it holds. True when it stored.
    @inlinable @inline(__always)
    static func compareExchange(_ word: UnsafeMutableRawPointer, expected: inout UInt, desired: UInt) -> Bool {
        var current = UnsafeRawPointer(bitPattern: expected)
        let won = _stdlib_atomicCompareExchangeStrongPtr(
            object: word.assumingMemoryBound(to: UnsafeRawPointer?.self),
            expected: &current,
            desired: UnsafeRawPointer(bitPattern: desired)
        )
        expected = UInt(bitPattern: current)
        return won
    }

    /// Adds `delta` to the word at `word`, which holds an `Int`; returns the sum.
    @inline(__always)
    static func add(_ word: UnsafeMutableRawPointer, _ delta: Int) -> Int {
        var expected = load(word)
        while !compareExchange(word, expected: &expected, desired: UInt(bitPattern: Int(bitPattern: expected) &+ delta)) {}
        return Int(bitPattern: expected) &+ delta
    }
}

/// Only names the type the atomic load primitive wants; never instantiated.
@usableFromInline
final class FlagWord {}
