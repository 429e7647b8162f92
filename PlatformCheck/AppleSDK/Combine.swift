// Stand-in for the declarations of Apple's Combine that Domino's glue
// (Sources/Domino/Platform/Combine.swift) and its documented usage call, with the
// SDK's generic signatures and availability: all of Combine is macOS 10.15, iOS 13,
// tvOS 13 and watchOS 6, Domino's deployment targets. Typecheck only: bodies never
// run. (The Linux build of the glue uses OpenCombine instead: ../Sources/Combine.)
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.
import Dispatch

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Cancellable {
    func cancel()
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
final public class AnyCancellable: Cancellable, Hashable {
    public init(_ cancel: @escaping () -> Void) { fatalError() }
    public init<C: Cancellable>(_ canceller: C) { fatalError() }
    final public func cancel() { fatalError() }
    final public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable { fatalError() }
    final public func store(in set: inout Set<AnyCancellable>) { fatalError() }
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { fatalError() }
    final public func hash(into hasher: inout Hasher) { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum Subscribers {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers {
    public enum Completion<Failure: Error> {
        case finished
        case failure(Failure)
    }

    @frozen public struct Demand: Equatable, Hashable, Sendable {
        public static let unlimited = Demand()
        public static let none = Demand()
        public static func max(_ value: Int) -> Demand { fatalError() }
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers.Completion: Equatable where Failure: Equatable {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subscribers.Completion: Sendable where Failure: Sendable {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subscription: Cancellable {
    func request(_ demand: Subscribers.Demand)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subscriber<Input, Failure> {
    associatedtype Input
    associatedtype Failure: Error
    func receive(subscription: any Subscription)
    func receive(_ input: Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Failure>)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    func receive<S>(subscriber: S) where S: Subscriber, Failure == S.Failure, Output == S.Input
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    func send(_ value: Output)
    func send(completion: Subscribers.Completion<Failure>)
    func send(subscription: any Subscription)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Subject where Output == Void {
    public func send() { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
final public class PassthroughSubject<Output, Failure: Error>: Subject {
    public init() {}
    final public func send(subscription: any Subscription) { fatalError() }
    final public func receive<S>(subscriber: S) where Output == S.Input, Failure == S.Failure, S: Subscriber { fatalError() }
    final public func send(_ input: Output) { fatalError() }
    final public func send(completion: Subscribers.Completion<Failure>) { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
@frozen public struct AnyPublisher<Output, Failure: Error>: CustomStringConvertible, CustomPlaygroundDisplayConvertible {
    public var description: String { fatalError() }
    public var playgroundDescription: Any { fatalError() }
    public init<P>(_ publisher: P) where Output == P.Output, Failure == P.Failure, P: Publisher { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension AnyPublisher: Publisher {
    public func receive<S>(subscriber: S) where Output == S.Input, Failure == S.Failure, S: Subscriber { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    public typealias Output = DeferredPublisher.Output
    public typealias Failure = DeferredPublisher.Failure
    public let createPublisher: () -> DeferredPublisher
    public init(createPublisher: @escaping () -> DeferredPublisher) { self.createPublisher = createPublisher }
    public func receive<S>(subscriber: S) where S: Subscriber, Failure == S.Failure, Output == S.Input { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public struct Empty<Output, Failure: Error>: Publisher, Equatable {
    public init() {}
    public init(completeImmediately: Bool) {}
    public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {}
    public let completeImmediately: Bool = true
    public func receive<S>(subscriber: S) where Output == S.Input, Failure == S.Failure, S: Subscriber { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum Publishers {}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publishers {
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public func receive<S>(subscriber: S) where S: Subscriber, Upstream.Failure == S.Failure, Upstream.Output == S.Input { fatalError() }
    }

    public struct Map<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let transform: (Upstream.Output) -> Output
        public func receive<S>(subscriber: S) where Output == S.Input, S: Subscriber, Upstream.Failure == S.Failure { fatalError() }
    }

    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let scheduler: Context
        public func receive<S>(subscriber: S) where S: Subscriber, Upstream.Failure == S.Failure, Upstream.Output == S.Input { fatalError() }
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { fatalError() }
    public func handleEvents(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> { fatalError() }
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> { fatalError() }
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> { fatalError() }
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.ReceiveOn<Self, S> { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publishers {
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let keyPath: KeyPath<Upstream.Output, Output>
        public func receive<S>(subscriber: S) where Output == S.Input, S: Subscriber, Upstream.Failure == S.Failure { fatalError() }
    }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher where Failure == Never {
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable { fatalError() }
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension Publisher {
    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void, receiveValue: @escaping (Output) -> Void) -> AnyCancellable { fatalError() }
}

@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)
extension Publisher where Failure == Never {
    public var values: AsyncPublisher<Self> { fatalError() }
}

@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    public typealias Element = P.Output
    public struct Iterator: AsyncIteratorProtocol {
        public mutating func next() async -> P.Output? { fatalError() }
    }
    public func makeAsyncIterator() -> Iterator { fatalError() }
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol SchedulerTimeIntervalConvertible {
    static func seconds(_ s: Int) -> Self
    static func seconds(_ s: Double) -> Self
    static func milliseconds(_ ms: Int) -> Self
    static func microseconds(_ us: Int) -> Self
    static func nanoseconds(_ ns: Int) -> Self
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Scheduler<SchedulerTimeType> {
    associatedtype SchedulerTimeType: Strideable where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
    associatedtype SchedulerOptions
    var now: SchedulerTimeType { get }
    var minimumTolerance: SchedulerTimeType.Stride { get }
    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension DispatchQueue: Scheduler {
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        public var dispatchTime: DispatchTime { fatalError() }
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral, Hashable, Codable, Sendable {
            public var magnitude: Int
            public init(integerLiteral value: Int) { fatalError() }
            public init(floatLiteral value: Double) { fatalError() }
            public init?<T: BinaryInteger>(exactly source: T) { fatalError() }
            public static func seconds(_ s: Int) -> Stride { fatalError() }
            public static func seconds(_ s: Double) -> Stride { fatalError() }
            public static func milliseconds(_ ms: Int) -> Stride { fatalError() }
            public static func microseconds(_ us: Int) -> Stride { fatalError() }
            public static func nanoseconds(_ ns: Int) -> Stride { fatalError() }
            public static func < (lhs: Stride, rhs: Stride) -> Bool { fatalError() }
            public static func + (lhs: Stride, rhs: Stride) -> Stride { fatalError() }
            public static func - (lhs: Stride, rhs: Stride) -> Stride { fatalError() }
            public static func * (lhs: Stride, rhs: Stride) -> Stride { fatalError() }
            public static func += (lhs: inout Stride, rhs: Stride) { fatalError() }
            public static func -= (lhs: inout Stride, rhs: Stride) { fatalError() }
            public static func *= (lhs: inout Stride, rhs: Stride) { fatalError() }
        }
        public func distance(to other: SchedulerTimeType) -> Stride { fatalError() }
        public func advanced(by n: Stride) -> SchedulerTimeType { fatalError() }
    }
    public struct SchedulerOptions: Sendable {}
    public var now: SchedulerTimeType { fatalError() }
    public var minimumTolerance: SchedulerTimeType.Stride { fatalError() }
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) { fatalError() }
}
