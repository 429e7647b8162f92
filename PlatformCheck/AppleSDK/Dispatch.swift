// Stand-in for the declarations of Apple's Dispatch overlay that Domino uses, with
// the SDK's types, isolation, Sendable conformances and availability (everything
// here predates Domino's deployment targets except where marked). Typecheck only:
// bodies never run. The SDK's closures are `@convention(block)`, which needs the
// Objective-C interop this typecheck leaves off; callers pass closures the same way.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.
@_exported import Darwin

/// `open class DispatchObject`.
open class DispatchObject {}

/// `public struct DispatchQoS : Equatable`.
public struct DispatchQoS: Equatable, Sendable {
    public enum QoSClass: Sendable {
        case background, utility, `default`, userInitiated, userInteractive, unspecified
    }
    public let qosClass: QoSClass
    public let relativePriority: Int
    public init(qosClass: QoSClass, relativePriority: Int) { fatalError() }
    public static let background = DispatchQoS(qosClass: .background, relativePriority: 0)
    public static let utility = DispatchQoS(qosClass: .utility, relativePriority: 0)
    public static let `default` = DispatchQoS(qosClass: .default, relativePriority: 0)
    public static let userInitiated = DispatchQoS(qosClass: .userInitiated, relativePriority: 0)
    public static let userInteractive = DispatchQoS(qosClass: .userInteractive, relativePriority: 0)
    public static let unspecified = DispatchQoS(qosClass: .unspecified, relativePriority: 0)
}

/// `public struct DispatchWorkItemFlags : OptionSet, RawRepresentable`.
public struct DispatchWorkItemFlags: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let barrier = DispatchWorkItemFlags(rawValue: 0x1)
}

/// `public class DispatchWorkItem`.
public class DispatchWorkItem: @unchecked Sendable {
    public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], block: @escaping @Sendable () -> Void) { fatalError() }
    public func perform() { fatalError() }
    public func cancel() { fatalError() }
    public var isCancelled: Bool { fatalError() }
}

/// `public struct DispatchTime : Comparable`.
public struct DispatchTime: Comparable, Sendable {
    public let rawValue: UInt64
    public static func now() -> DispatchTime { fatalError() }
    public static let distantFuture = DispatchTime(uptimeNanoseconds: 0)
    public init(uptimeNanoseconds: UInt64) { fatalError() }
    public var uptimeNanoseconds: UInt64 { fatalError() }
    public static func < (lhs: DispatchTime, rhs: DispatchTime) -> Bool { fatalError() }
}

/// `public enum DispatchTimeInterval : Equatable`.
public enum DispatchTimeInterval: Equatable, Sendable {
    case seconds(Int)
    case milliseconds(Int)
    case microseconds(Int)
    case nanoseconds(Int)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
    case never
}

public func + (time: DispatchTime, interval: DispatchTimeInterval) -> DispatchTime { fatalError() }
public func + (time: DispatchTime, seconds: Double) -> DispatchTime { fatalError() }

/// `final public class DispatchSpecificKey<T>`.
final public class DispatchSpecificKey<T> {
    public init() {}
}

extension DispatchSpecificKey: Sendable where T: Sendable {}

/// `open class DispatchQueue : DispatchObject, @unchecked Sendable`.
open class DispatchQueue: DispatchObject, @unchecked Sendable {
    public struct Attributes: OptionSet, Sendable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        public static let concurrent = Attributes(rawValue: 1 << 1)
        @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
        public static let initiallyInactive = Attributes(rawValue: 1 << 2)
    }

    public enum AutoreleaseFrequency: Sendable {
        case inherit
        @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
        case workItem
        @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
        case never
    }

    public class var main: DispatchQueue { fatalError() }
    public class func global(qos: DispatchQoS.QoSClass = .default) -> DispatchQueue { fatalError() }
    public convenience init(label: String, qos: DispatchQoS = .unspecified, attributes: Attributes = [], autoreleaseFrequency: AutoreleaseFrequency = .inherit, target: DispatchQueue? = nil) { fatalError() }
    public var label: String { fatalError() }

    public func async(group: DispatchGroup? = nil, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], execute work: @escaping @Sendable () -> Void) { fatalError() }
    public func async(execute workItem: DispatchWorkItem) { fatalError() }
    public func asyncAfter(deadline: DispatchTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], execute work: @escaping @Sendable () -> Void) { fatalError() }
    public func asyncAfter(deadline: DispatchTime, execute: DispatchWorkItem) { fatalError() }
    public func sync(execute block: () -> Void) { fatalError() }
    public func sync<T>(execute work: () throws -> T) rethrows -> T { fatalError() }
    public func sync<T>(flags: DispatchWorkItemFlags, execute work: () throws -> T) rethrows -> T { fatalError() }

    public func getSpecific<T>(key: DispatchSpecificKey<T>) -> T? { fatalError() }
    public func setSpecific<T>(key: DispatchSpecificKey<T>, value: T?) { fatalError() }
    public class func getSpecific<T>(key: DispatchSpecificKey<T>) -> T? { fatalError() }
}

/// `open class DispatchGroup : DispatchObject, @unchecked Sendable`.
open class DispatchGroup: DispatchObject, @unchecked Sendable {
    public override init() {}
    public func enter() { fatalError() }
    public func leave() { fatalError() }
    public func wait() { fatalError() }
}

/// `open class DispatchSemaphore : DispatchObject, @unchecked Sendable`.
open class DispatchSemaphore: DispatchObject, @unchecked Sendable {
    public init(value: Int) { fatalError() }
    public func signal() -> Int { fatalError() }
    public func wait() { fatalError() }
}

/// `public enum DispatchPredicate`.
public enum DispatchPredicate {
    case onQueue(DispatchQueue)
    case onQueueAsBarrier(DispatchQueue)
    case notOnQueue(DispatchQueue)
}

@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func dispatchPrecondition(condition: @autoclosure () -> DispatchPredicate) { fatalError() }
