/// The name of a named event (Domino's SimpleEvent), usable as a string literal.
///
/// ```swift
/// extension EventName {
///     static let statistics: EventName = "ContentViewControllerStatisticsEvent"
/// }
/// node.post(.statistics, ["msg": "did load"])
/// ```
///
/// **Matching.** A post reaches the subscribers of an equal name, and names are equal
/// as Swift strings are: by Unicode canonical equivalence, case-sensitively. So
/// `"Caf\u{E9}"` (é as one scalar) and `"Cafe\u{301}"` (e and a combining accent)
/// are one name, as text typed on different keyboards or read from different files
/// may spell it, while `"tapped"` is not `"Tapped"`. NotificationCenter on Apple
/// platforms compares names literally instead. Equal names cost no more than a byte
/// comparison, whatever their script, and so do different ASCII names; a post of a
/// non-ASCII name that passes a subscriber for another name at the same node pays
/// for a normalized comparison there (about 130 instructions per such name, measured
/// on the `named.post.local.1` scenario).
public struct EventName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The string behind the name.
    public let rawValue: String

    /// Creates a name from a string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a name from a string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a name from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The raw name.
    public var description: String { rawValue }
}

/// A named event as its subscribers receive it: the name and its parameters.
///
/// Parameters are a `[String: any Sendable]` dictionary, like a notification's
/// user info. An optional value is stored as it is, so a key whose value is nil
/// stays in the dictionary (the responder-chain blog's nil-safe parameters):
///
/// ```swift
/// let phone: String? = nil
/// node.post("SelectFund", ["code": "F001", "phone": phone as any Sendable])
/// // a subscriber sees event.contains("phone") == true, event.value("phone", as: String.self) == nil
/// ```
public struct NamedEvent: Sendable, CustomStringConvertible {
    /// The event's name.
    public let name: EventName
    /// The parameters; interceptors may rewrite them (see ``DominoNode/reform(_:_:)-(EventName,_)``).
    public var parameters: [String: any Sendable]
    /// Positional arguments, in the order of the handling method's parameters (the
    /// responder-chain blog's parameter list). A nil argument keeps its place, so the
    /// arguments after it are not lost as they were with a nil-terminated `va_list`.
    public var arguments: [(any Sendable)?]

    /// Creates a named event.
    public init(name: EventName, parameters: [String: any Sendable] = [:], arguments: [(any Sendable)?] = []) {
        self.name = name
        self.parameters = parameters
        self.arguments = arguments
    }

    /// The positional argument at `index`, or nil when it is nil, missing (an index
    /// past the end is not an error: a handler may take fewer or more arguments than
    /// were posted), or of another type. Optionals are looked through.
    ///
    /// ```swift
    /// let code = event.argument(0, as: String.self)
    /// ```
    public func argument<T>(_ index: Int, as type: T.Type = T.self) -> T? {
        guard arguments.indices.contains(index), let stored = arguments[index] else { return nil }
        return Self.unwrap(stored) as? T
    }

    /// The parameter under `key`, or nil when it is missing, nil, or of another type.
    ///
    /// Optionals are looked through: a stored `String?` is read with `as: String.self`.
    public func value<T>(_ key: String, as type: T.Type = T.self) -> T? {
        guard let stored = parameters[key] else { return nil }
        return Self.unwrap(stored) as? T
    }

    /// True when the parameters hold `key`, even with a nil value.
    public func contains(_ key: String) -> Bool {
        parameters[key] != nil
    }

    /// True when `key` is present and its value is nil.
    public func isNil(_ key: String) -> Bool {
        guard let stored = parameters[key] else { return false }
        return Self.unwrap(stored) == nil
    }

    /// The parameter under `key`, as stored.
    public subscript(key: String) -> (any Sendable)? {
        get { parameters[key] }
        set { parameters[key] = newValue }
    }

    /// `name(argument, ...)[key: value, ...]`, keys sorted, nil values shown as `nil`;
    /// either part is left out when empty.
    public var description: String {
        func show(_ value: Any?) -> String { value.flatMap { Self.unwrap($0) }.map { "\($0)" } ?? "nil" }
        var text = name.rawValue
        if !arguments.isEmpty {
            text += "(" + arguments.map { show($0) }.joined(separator: ", ") + ")"
        }
        if !parameters.isEmpty || arguments.isEmpty {
            let pairs = parameters.keys.sorted().map { "\($0): \(show(parameters[$0]))" }
            text += "[" + pairs.joined(separator: ", ") + "]"
        }
        return text
    }

    /// Strips any number of Optional layers from a stored value.
    private static func unwrap(_ value: Any) -> Any? {
        var current: Any = value
        while let optional = current as? any OptionalProtocol {
            guard let wrapped = optional.wrappedAny else { return nil }
            current = wrapped
        }
        return current
    }
}

private protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    fileprivate var wrappedAny: Any? {
        switch self {
        case .some(let value): return value
        case .none: return nil
        }
    }
}
