// Stand-in for the declarations of Apple's ObjectiveC module that Domino, the other
// stand-ins and the small apps use: NSObject (objc/NSObject.h, as Swift imports it)
// and associated objects (objc/runtime.h). Typecheck only: bodies never run.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.
@_exported import Darwin

/// `public protocol NSObjectProtocol` (its requirements left out).
public protocol NSObjectProtocol: AnyObject {}

/// `open class NSObject : NSObjectProtocol` (macOS 10.0, iOS 2.0).
open class NSObject: NSObjectProtocol, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public init() {}
    open func isEqual(_ object: Any?) -> Bool { fatalError() }
    open var hash: Int { fatalError() }
    open var description: String { fatalError() }
    open var debugDescription: String { fatalError() }
    public static func == (lhs: NSObject, rhs: NSObject) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// objc_AssociationPolicy: ../Sources/ObjCRuntime/AssociationPolicy.swift, compiled into
// this module by apple-targets.sh.

@available(macOS 10.6, iOS 3.1, *)
public func objc_getAssociatedObject(_ object: Any, _ key: UnsafeRawPointer) -> Any? { fatalError() }

@available(macOS 10.6, iOS 3.1, *)
public func objc_setAssociatedObject(_ object: Any, _ key: UnsafeRawPointer, _ value: Any?, _ policy: objc_AssociationPolicy) { fatalError() }

@available(macOS 10.6, iOS 3.1, *)
public func objc_removeAssociatedObjects(_ object: Any) { fatalError() }
