// The signal shapes Uber Signals predefines, for code that reads like it. Any other
// shape is just `Signal<...>` with its value types: there is no declaration step
// like `CreateSignalType`.

/// A signal that fires no values: `onTap.fire()`.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias EmptySignal = Signal< >

/// A signal that fires an `Int` (Uber's `IntegerSignal`, an `NSNumber` there).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias IntegerSignal = Signal<Int>

/// A signal that fires a `Float` (Uber's `FloatSignal`).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias FloatSignal = Signal<Float>

/// A signal that fires a `Double` (Uber's `DoubleSignal`).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias DoubleSignal = Signal<Double>

/// A signal that fires a `Bool` (Uber's `BooleanSignal`).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias BooleanSignal = Signal<Bool>

/// A signal that fires a `String` (Uber's `StringSignal`).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias StringSignal = Signal<String>

/// A signal that fires an array of any values (Uber's `ArraySignal` and
/// `MutableArraySignal`: a Swift array is a value, so one shape serves both).
/// Prefer a typed shape such as `Signal<[Track]>` when the element type is known.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias ArraySignal = Signal<[any Sendable]>

/// A signal that fires a dictionary of any values by string keys (Uber's
/// `DictionarySignal` and `MutableDictionarySignal`), like a notification's user
/// info.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public typealias DictionarySignal = Signal<[String: any Sendable]>
