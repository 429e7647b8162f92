// Stand-in for the `os` declarations that Domino's unified-log glue and a small app
// use, mirroring the SDK's Swift interface (Xcode 26 SDKs): `Logger`, `OSLogType`,
// `OSLogMessage` and its interpolation with `OSLogPrivacy`, `OSSignposter`,
// `OSSignpostID`, `OSSignpostIntervalState`, with the SDK's availability (Logger and
// the message types iOS 14 / macOS 11 / tvOS 14 / watchOS 7; OSSignposter and its
// interval state iOS 15 / macOS 12 / tvOS 15 / watchOS 8; OSSignpostID iOS 12 /
// macOS 10.14) and `Sendable` where the SDK declares it (`Logger` and `OSSignposter`
// as `@unchecked Sendable`, `OSSignpostID`), nowhere else. On Linux the compiler does
// not enforce iOS or macOS availability: check.sh also typechecks the glue against
// this module for iOS 13 (embedded Swift's iOS standard library), where it does.
//
// Not mirrored, as nothing here uses them: `OSLog` and what takes one
// (`Logger.init(_:)`, `OSSignposter.init(logHandle:)`, `OSSignpostID.init(log:)`),
// `os_log`, `os_signpost`, the integer, floating-point, Boolean, object and metatype
// interpolations, and `OSSignpostIntervalState`'s `Codable` conformance. The
// compiler's check that a message is a literal (`@_semantics("oslog...")`) is not
// reproducible outside the SDK: the glue writes literals, as it must there.
//
// Behaviour, in place of the unified log: standard output, one line per message
// (`os_log Domino/diagnostics error: ...`) or signpost (`os_signpost Domino/tracing
// begin post 0x...: ...`). A value whose privacy is private, sensitive, or auto for a
// string or a description is written `<private>`, as Console shows it on a device
// without a debugger attached; public values are written out.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.

// MARK: - OSLogType

/// `os_log_type_t`, as Swift imports it from C, with the overlay's levels.
public struct OSLogType: Equatable, Hashable, RawRepresentable, Sendable {
    public var rawValue: UInt8
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public init(rawValue: UInt8) { self.rawValue = rawValue }
}

@available(macOS 10.12, iOS 10.0, watchOS 3.0, tvOS 10.0, *)
extension OSLogType {
    public static let `default` = OSLogType(0x00)
    public static let info = OSLogType(0x01)
    public static let debug = OSLogType(0x02)
    public static let error = OSLogType(0x10)
    public static let fault = OSLogType(0x11)

    var name: String {
        switch self {
        case .info: return "info"
        case .debug: return "debug"
        case .error: return "error"
        case .fault: return "fault"
        default: return "default"
        }
    }
}

// MARK: - Privacy and alignment

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public struct OSLogPrivacy: Equatable {
    public enum Mask: Equatable {
        case hash
        case none
    }

    enum Level: Equatable { case `public`, `private`, sensitive, auto }
    let level: Level
    let mask: Mask

    public static var `public`: OSLogPrivacy { OSLogPrivacy(level: .public, mask: .none) }
    public static var `private`: OSLogPrivacy { OSLogPrivacy(level: .private, mask: .none) }
    public static func `private`(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { OSLogPrivacy(level: .private, mask: mask) }
    public static var sensitive: OSLogPrivacy { OSLogPrivacy(level: .sensitive, mask: .none) }
    public static func sensitive(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { OSLogPrivacy(level: .sensitive, mask: mask) }
    public static var auto: OSLogPrivacy { OSLogPrivacy(level: .auto, mask: .none) }
    public static func auto(mask: OSLogPrivacy.Mask) -> OSLogPrivacy { OSLogPrivacy(level: .auto, mask: mask) }

    /// How Console shows a string or a description with this privacy.
    func render(_ text: String) -> String {
        level == .public ? text : "<private>"
    }
}

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public struct OSLogStringAlignment {
    let columns: Int
    public static var none: OSLogStringAlignment { OSLogStringAlignment(columns: 0) }
    public static func right(columns: @autoclosure @escaping () -> Int) -> OSLogStringAlignment { OSLogStringAlignment(columns: columns()) }
    public static func left(columns: @autoclosure @escaping () -> Int) -> OSLogStringAlignment { OSLogStringAlignment(columns: -columns()) }
}

// MARK: - Messages

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public struct OSLogInterpolation: StringInterpolationProtocol {
    /// The literal parts and each argument, rendered when the message is logged.
    var parts: [() -> String] = []

    public init(literalCapacity: Int, interpolationCount: Int) {}

    public mutating func appendLiteral(_ literal: String) {
        parts.append { literal }
    }

    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String,
        align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        parts.append { privacy.render(argumentString()) }
    }

    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String,
        align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto,
        attributes: String
    ) {
        parts.append { privacy.render(argumentString()) }
    }

    public mutating func appendInterpolation<T>(
        _ value: @autoclosure @escaping () -> T,
        align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) where T: CustomStringConvertible {
        parts.append { privacy.render(value().description) }
    }

    public mutating func appendInterpolation<T>(
        _ value: @autoclosure @escaping () -> T,
        align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto,
        attributes: String
    ) where T: CustomStringConvertible {
        parts.append { privacy.render(value().description) }
    }
}

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public let interpolation: OSLogInterpolation

    public init(stringInterpolation: OSLogInterpolation) {
        interpolation = stringInterpolation
    }

    public init(stringLiteral value: String) {
        var interpolation = OSLogInterpolation(literalCapacity: value.utf8.count, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.interpolation = interpolation
    }

    var rendered: String {
        interpolation.parts.map { $0() }.joined()
    }
}

// MARK: - Logger

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public struct Logger: @unchecked Sendable {
    let subsystem: String
    let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    public init() {
        self.init(subsystem: "", category: "")
    }

    public func log(_ message: OSLogMessage) { write(.default, message) }
    public func log(level: OSLogType, _ message: OSLogMessage) { write(level, message) }
    public func trace(_ message: OSLogMessage) { write(.debug, message) }
    public func debug(_ message: OSLogMessage) { write(.debug, message) }
    public func info(_ message: OSLogMessage) { write(.info, message) }
    public func notice(_ message: OSLogMessage) { write(.default, message) }
    public func warning(_ message: OSLogMessage) { write(.error, message) }
    public func error(_ message: OSLogMessage) { write(.error, message) }
    public func critical(_ message: OSLogMessage) { write(.fault, message) }
    public func fault(_ message: OSLogMessage) { write(.fault, message) }

    private func write(_ level: OSLogType, _ message: OSLogMessage) {
        print("os_log \(subsystem)/\(category) \(level.name): \(message.rendered)")
    }
}

// MARK: - Signposts

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct OSSignpostID: Sendable {
    public let rawValue: UInt64

    public static let exclusive = OSSignpostID(0xEEEE_B0B5_B2B2_EEEE)
    public static let invalid = OSSignpostID(~0)
    public static let null = OSSignpostID(0)

    public init(_ value: UInt64) {
        rawValue = value
    }
}

@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
extension OSSignpostID: Comparable {
    public static func < (a: OSSignpostID, b: OSSignpostID) -> Bool { a.rawValue < b.rawValue }
    public static func == (a: OSSignpostID, b: OSSignpostID) -> Bool { a.rawValue == b.rawValue }
}

@available(macOS 12.0, iOS 15.0, watchOS 8.0, tvOS 15.0, *)
public typealias SignpostMetadata = OSLogMessage

/// The state of one interval. The SDK's also remembers whether the interval ended,
/// to report a second end instead of emitting it; not mirrored (it takes a lock).
@available(macOS 12.0, iOS 15.0, watchOS 8.0, tvOS 15.0, *)
public class OSSignpostIntervalState: @unchecked Sendable {
    let signpostID: OSSignpostID

    init(id: OSSignpostID) {
        signpostID = id
    }

    public static func beginState(id: OSSignpostID) -> OSSignpostIntervalState {
        OSSignpostIntervalState(id: id)
    }
}

@available(macOS 12.0, iOS 15.0, watchOS 8.0, tvOS 15.0, *)
public struct OSSignposter: @unchecked Sendable {
    let subsystem: String
    let category: String
    private let enabled: Bool

    private init(subsystem: String, category: String, enabled: Bool) {
        self.subsystem = subsystem
        self.category = category
        self.enabled = enabled
    }

    public init(subsystem: String, category: String) {
        self.init(subsystem: subsystem, category: category, enabled: true)
    }

    public init(logger: Logger) {
        self.init(subsystem: logger.subsystem, category: logger.category)
    }

    public init() {
        self.init(subsystem: "", category: "")
    }

    public static var disabled: OSSignposter { OSSignposter(subsystem: "", category: "", enabled: false) }

    public var isEnabled: Bool { enabled }

    public func makeSignpostID() -> OSSignpostID {
        OSSignpostID(UInt64.random(in: 1..<OSSignpostID.exclusive.rawValue))
    }

    public func makeSignpostID(from object: AnyObject) -> OSSignpostID {
        OSSignpostID(UInt64(UInt(bitPattern: ObjectIdentifier(object).hashValue)))
    }

    public func emitEvent(_ name: StaticString, id: OSSignpostID = .exclusive, _ message: SignpostMetadata) {
        write("event", name, id, message.rendered)
    }

    public func emitEvent(_ name: StaticString, id: OSSignpostID = .exclusive) {
        write("event", name, id, "")
    }

    public func beginInterval(_ name: StaticString, id: OSSignpostID = .exclusive, _ message: SignpostMetadata) -> OSSignpostIntervalState {
        write("begin", name, id, message.rendered)
        return OSSignpostIntervalState(id: id)
    }

    public func beginInterval(_ name: StaticString, id: OSSignpostID = .exclusive) -> OSSignpostIntervalState {
        write("begin", name, id, "")
        return OSSignpostIntervalState(id: id)
    }

    public func endInterval(_ name: StaticString, _ state: OSSignpostIntervalState, _ message: SignpostMetadata) {
        write("end", name, state.signpostID, message.rendered)
    }

    public func endInterval(_ name: StaticString, _ state: OSSignpostIntervalState) {
        write("end", name, state.signpostID, "")
    }

    public func withIntervalSignpost<T>(
        _ name: StaticString,
        id: OSSignpostID = .exclusive,
        _ message: SignpostMetadata,
        around task: () throws -> T
    ) rethrows -> T {
        let state = beginInterval(name, id: id, message)
        defer { endInterval(name, state) }
        return try task()
    }

    public func withIntervalSignpost<T>(
        _ name: StaticString,
        id: OSSignpostID = .exclusive,
        around task: () throws -> T
    ) rethrows -> T {
        let state = beginInterval(name, id: id)
        defer { endInterval(name, state) }
        return try task()
    }

    private func write(_ kind: String, _ name: StaticString, _ id: OSSignpostID, _ message: String) {
        guard enabled else { return }
        let hex = String(id.rawValue, radix: 16)
        print("os_signpost \(subsystem)/\(category) \(kind) \(name) 0x\(hex): \(message)")
    }
}
