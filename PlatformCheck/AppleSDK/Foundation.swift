// Stand-in for the declarations of Apple's Foundation that Domino, DominoTesting, the
// other stand-ins and the small apps use, with the SDK's types, Sendable conformances
// and availability. Foundation re-exports Darwin, Dispatch and the Objective-C
// runtime, and (through CoreGraphics and CoreFoundation) CGFloat, CGPoint, CGSize and
// CGRect; so does this. Typecheck only: bodies never run.
//
// `NSLocking.withLock(_:)` carries no availability: the SDK marks it
// `@_alwaysEmitIntoClient`, so it works on every OS version (its documentation's
// "iOS 16" is a known documentation error).
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.
@_exported import Darwin
@_exported import Dispatch
@_exported import ObjectiveC

public typealias TimeInterval = Double

/// `public struct Date : ReferenceConvertible, Comparable, Hashable, Sendable`.
public struct Date: Comparable, Hashable, Sendable {
    public init() { fatalError() }
    public init(timeIntervalSinceNow: TimeInterval) { fatalError() }
    public var timeIntervalSinceNow: TimeInterval { fatalError() }
    public func addingTimeInterval(_ timeInterval: TimeInterval) -> Date { fatalError() }
    public func timeIntervalSince(_ date: Date) -> TimeInterval { fatalError() }
    public static func < (lhs: Date, rhs: Date) -> Bool { fatalError() }
    public static let distantFuture = Date()
    public static let distantPast = Date()
}

/// `public struct Data : ..., Sendable` (its collection conformances left out).
public struct Data: Hashable, Sendable, Codable {
    public init() {}
    public init(_ bytes: [UInt8]) { fatalError() }
    public var count: Int { fatalError() }
    public var isEmpty: Bool { fatalError() }
}

/// `open class NSNotification : NSObject, NSCopying, NSCoding, @unchecked Sendable`.
open class NSNotification: NSObject, @unchecked Sendable {
    /// `public struct NSNotification.Name : Hashable, Equatable, RawRepresentable, Sendable`.
    public struct Name: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

/// `public struct Notification : ReferenceConvertible, Equatable, Hashable, Sendable`.
public struct Notification: Hashable, @unchecked Sendable {
    public typealias Name = NSNotification.Name
    public var name: Notification.Name
    public var object: Any? { fatalError() }
    public var userInfo: [AnyHashable: Any]? { fatalError() }
    public init(name: Notification.Name, object: Any? = nil, userInfo: [AnyHashable: Any]? = nil) { fatalError() }
    public static func == (lhs: Notification, rhs: Notification) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

/// `open class NotificationCenter : NSObject, @unchecked Sendable`.
open class NotificationCenter: NSObject, @unchecked Sendable {
    open class var `default`: NotificationCenter { fatalError() }
    open func post(_ notification: Notification) { fatalError() }
    open func post(name aName: NSNotification.Name, object anObject: Any?, userInfo aUserInfo: [AnyHashable: Any]? = nil) { fatalError() }
    open func removeObserver(_ observer: Any) { fatalError() }
    @available(macOS 10.6, iOS 4.0, *)
    open func addObserver(forName name: NSNotification.Name?, object obj: Any?, queue: OperationQueue?, using block: @escaping @Sendable (Notification) -> Void) -> any NSObjectProtocol { fatalError() }
}

/// `public protocol NSLocking`.
public protocol NSLocking {
    func lock()
    func unlock()
}

extension NSLocking {
    public func withLock<R>(_ body: () throws -> R) rethrows -> R { fatalError() }
}

/// `open class NSLock : NSObject, NSLocking, @unchecked Sendable`.
open class NSLock: NSObject, NSLocking, @unchecked Sendable {
    open func lock() { fatalError() }
    open func unlock() { fatalError() }
    open func `try`() -> Bool { fatalError() }
    open var name: String?
}

/// `open class NSRecursiveLock : NSObject, NSLocking, @unchecked Sendable`.
open class NSRecursiveLock: NSObject, NSLocking, @unchecked Sendable {
    open func lock() { fatalError() }
    open func unlock() { fatalError() }
}

/// `open class Thread : NSObject, @unchecked Sendable`.
open class Thread: NSObject, @unchecked Sendable {
    open class var current: Thread { fatalError() }
    open class var isMainThread: Bool { fatalError() }
    open class var main: Thread { fatalError() }
    open var isMainThread: Bool { fatalError() }
    open var name: String?
    open class func sleep(forTimeInterval ti: TimeInterval) { fatalError() }
    @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
    public convenience init(block: @escaping @Sendable () -> Void) { fatalError() }
    open func start() { fatalError() }
}

/// `open class Operation : NSObject, @unchecked Sendable`.
open class Operation: NSObject, @unchecked Sendable {}

/// `open class OperationQueue : NSObject, ProgressReporting, @unchecked Sendable`.
open class OperationQueue: NSObject, @unchecked Sendable {
    open class var current: OperationQueue? { fatalError() }
    open class var main: OperationQueue { fatalError() }
    open var maxConcurrentOperationCount: Int
    open var name: String?
    @available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, *)
    open var underlyingQueue: DispatchQueue?
    open func addOperation(_ op: Operation) { fatalError() }
    open func addOperation(_ block: @escaping @Sendable () -> Void) { fatalError() }
    open func waitUntilAllOperationsAreFinished() { fatalError() }
    public override init() { maxConcurrentOperationCount = -1 }
}

/// `open class NSCoder : NSObject`.
open class NSCoder: NSObject {}

/// `open class Bundle : NSObject, @unchecked Sendable`.
open class Bundle: NSObject, @unchecked Sendable {
    open class var main: Bundle { fatalError() }
}

/// `open class ProcessInfo : NSObject, @unchecked Sendable`.
open class ProcessInfo: NSObject, @unchecked Sendable {
    open class var processInfo: ProcessInfo { fatalError() }
    open var environment: [String: String] { fatalError() }
    open var arguments: [String] { fatalError() }
}

extension StringProtocol {
    public func replacingOccurrences<Target: StringProtocol, Replacement: StringProtocol>(of target: Target, with replacement: Replacement) -> String { fatalError() }
    public func components<T: StringProtocol>(separatedBy separator: T) -> [String] { fatalError() }
    public func trimmingCharacters(in set: CharacterSet) -> String { fatalError() }
    public func contains<T: StringProtocol>(_ other: T) -> Bool { fatalError() }
    public func hasPrefix<T: StringProtocol>(_ prefix: T) -> Bool { fatalError() }
}

/// `public struct CharacterSet : ReferenceConvertible, Equatable, Hashable, SetAlgebra` (its algebra left out).
public struct CharacterSet: Hashable, Sendable {
    public static let whitespaces = CharacterSet()
    public static let whitespacesAndNewlines = CharacterSet()
    public static let newlines = CharacterSet()
}

// CoreGraphics' geometry, which Foundation re-exports.

#if os(macOS)
/// AppKit's geometry names, which Foundation declares on macOS (NSGeometry.h).
public typealias NSRect = CGRect
public typealias NSPoint = CGPoint
public typealias NSSize = CGSize
public let NSZeroRect = CGRect()
#endif

/// `@frozen public struct CGFloat` (CoreGraphics' overlay; 64-bit here).
@frozen public struct CGFloat: Sendable, Hashable, Comparable, Codable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, AdditiveArithmetic, CustomStringConvertible {
    public var native: Double
    public init() { native = 0 }
    public init(_ value: Double) { native = value }
    public init(_ value: Int) { native = Double(value) }
    public init(floatLiteral value: Double) { native = value }
    public init(integerLiteral value: Int) { native = Double(value) }
    public static func < (lhs: CGFloat, rhs: CGFloat) -> Bool { lhs.native < rhs.native }
    public static func + (lhs: CGFloat, rhs: CGFloat) -> CGFloat { CGFloat(lhs.native + rhs.native) }
    public static func - (lhs: CGFloat, rhs: CGFloat) -> CGFloat { CGFloat(lhs.native - rhs.native) }
    public static func * (lhs: CGFloat, rhs: CGFloat) -> CGFloat { CGFloat(lhs.native * rhs.native) }
    public static func / (lhs: CGFloat, rhs: CGFloat) -> CGFloat { CGFloat(lhs.native / rhs.native) }
    public static var zero: CGFloat { CGFloat(0.0) }
    public var description: String { native.description }
}

extension Double {
    public init(_ value: CGFloat) { self = value.native }
}

/// `public struct CGPoint`.
public struct CGPoint: Sendable, Hashable, Codable {
    public var x: CGFloat
    public var y: CGFloat
    public init() { x = 0; y = 0 }
    public init(x: CGFloat, y: CGFloat) { self.x = x; self.y = y }
    public init(x: Double, y: Double) { self.x = CGFloat(x); self.y = CGFloat(y) }
    public init(x: Int, y: Int) { self.x = CGFloat(x); self.y = CGFloat(y) }
    public static var zero: CGPoint { CGPoint() }
}

/// `public struct CGSize`.
public struct CGSize: Sendable, Hashable, Codable {
    public var width: CGFloat
    public var height: CGFloat
    public init() { width = 0; height = 0 }
    public init(width: CGFloat, height: CGFloat) { self.width = width; self.height = height }
    public init(width: Double, height: Double) { self.width = CGFloat(width); self.height = CGFloat(height) }
    public init(width: Int, height: Int) { self.width = CGFloat(width); self.height = CGFloat(height) }
    public static var zero: CGSize { CGSize() }
}

/// `public struct CGRect`.
public struct CGRect: Sendable, Hashable, Codable {
    public var origin: CGPoint
    public var size: CGSize
    public init() { origin = .zero; size = .zero }
    public init(origin: CGPoint, size: CGSize) { self.origin = origin; self.size = size }
    public init(x: CGFloat, y: CGFloat, width: CGFloat, height: CGFloat) { origin = CGPoint(x: x, y: y); size = CGSize(width: width, height: height) }
    public init(x: Double, y: Double, width: Double, height: Double) { origin = CGPoint(x: x, y: y); size = CGSize(width: width, height: height) }
    public init(x: Int, y: Int, width: Int, height: Int) { origin = CGPoint(x: x, y: y); size = CGSize(width: width, height: height) }
    public static var zero: CGRect { CGRect() }
    public var width: CGFloat { size.width }
    public var height: CGFloat { size.height }
}
