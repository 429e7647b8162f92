// Stand-in for Apple's Combine: OpenCombine, which reimplements Combine's API
// under the same names, re-exported as a module named Combine, so that
// `#if canImport(Combine)` holds and `import Combine` finds Publisher,
// AnyPublisher, Deferred, PassthroughSubject and the operators.
//
// Rule: never add declarations here to make Domino compile; if Domino needs
// something OpenCombine lacks or declares differently from Combine, report it.
@_exported import OpenCombine
