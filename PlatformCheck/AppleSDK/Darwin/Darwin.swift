// Stand-in for the Swift overlay of Apple's Darwin module, over the C declarations
// of Darwin.h (built with -import-underlying-module, as the SDK's overlay is over its
// C module). The overlay spells the C library's standard streams as Swift variables:
// the C headers define `stderr` as a macro for `__stderrp`, which Swift does not import.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.

public var stdin: UnsafeMutablePointer<FILE> {
    get { __stdinp }
    set { __stdinp = newValue }
}

public var stdout: UnsafeMutablePointer<FILE> {
    get { __stdoutp }
    set { __stdoutp = newValue }
}

public var stderr: UnsafeMutablePointer<FILE> {
    get { __stderrp }
    set { __stderrp = newValue }
}
