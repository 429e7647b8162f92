// The fuzzer's entry point: each input is decoded into one sequence of operations
// (the reference model's driver draws every choice from the input's bytes), run
// against the library and the model, then into a sequence of the responder model's
// (the same bytes drawn again); a divergence stops the run with the sequence.
// Built and run by `Fuzz/run.sh`; see Fuzz/README.md.

import Foundation

/// The input's bytes as the driver's random numbers: one byte a draw, so that a
/// mutation of one byte changes one choice.
struct InputBytes: RandomNumberGenerator {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    /// Past the input's end: a fixed sequence, never stuck on a value that a bounded
    /// draw rejects (zero is, for most bounds).
    var tail: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> UInt64 {
        guard offset < bytes.count else {
            tail = tail &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return tail
        }
        let byte = UInt64(bytes[offset])
        offset += 1
        // The byte in every lane: a bounded draw reads the high bits, and the low
        // bits are never all zero (which a draw rejects and draws again).
        return byte &* 0x0101_0101_0101_0101 | 1
    }
}

/// Set by `Fuzz/run.sh` for its first half: sequences without cycles, so that walks
/// keep collecting without a lock all run long (a cycle closes `GraphLock.walkGate`
/// for the rest of the process).
let keepingWalksWithoutALock = ProcessInfo.processInfo.environment["DOMINO_FUZZ_LOCK_FREE"] == "1"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var input = InputBytes(bytes: bytes)
    if let divergence = modelDivergence(using: &input, keepingWalksWithoutALock: keepingWalksWithoutALock) {
        fatalError("the library diverged from the reference model \(divergence)")
    }
    // In the second half, the same bytes again as a sequence of views linked, moved
    // and released (ResponderModel.swift): the routes along responder chains, with
    // chains read on the main thread only or (an odd length) on any thread. Not in the
    // first: once a responder node exists, every walk down takes its stripe for the
    // rest of the process (`GraphLock.respondersExist`), and the general model's
    // walks down then run through responder nodes' code, which this half wants too.
    guard !keepingWalksWithoutALock else { return 0 }
    var again = InputBytes(bytes: bytes)
    if let divergence = responderModelDivergence(using: &again, anyThread: size % 2 == 1) {
        fatalError("the library diverged from the responder model \(divergence)")
    }
    return 0
}
