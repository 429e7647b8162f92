/// A typed event: a value that every subscriber on its route is notified of.
///
/// Declare events as small value types; the type is the event's identity, its stored
/// properties are the parameters.
///
/// ```swift
/// struct ContentDidLoad: Event {
///     var itemCount: Int
/// }
///
/// containerNode.subscribe(ContentDidLoad.self) { event in
///     print("content loaded \(event.itemCount) items")
/// }
/// contentNode.post(ContentDidLoad(itemCount: 12))
/// ```
///
/// Events are `Sendable` because a subscriber may ask for delivery on another thread
/// (see ``DeliveryMode``).
public protocol Event: Sendable {}

/// A typed request: a question the first willing node on the route answers
/// (chain of responsibility, like Domino's value-returning selector events).
///
/// ```swift
/// struct FetchChannelID: Request {
///     typealias Response = String
/// }
///
/// rootNode.respond(to: FetchChannelID.self) { _ in "channel-42" }
/// let channel = contentNode.request(FetchChannelID())   // "channel-42"
/// ```
///
/// Requests always run synchronously on the caller's thread, whatever the delivery mode.
public protocol Request: Sendable {
    /// What an answer to this request is.
    associatedtype Response: Sendable
    /// How answering can fail: `Never` (the default) for a request that gets an
    /// answer or nil, so that asking it needs no `try`.
    ///
    /// Declare a failure type and a responder that throws it ends the request: the
    /// requester gets the error instead of an answer, and `request(_:)` is called
    /// with `try`. Any other error a responder throws (every error, for a request
    /// that cannot fail) goes up the route from the responder's node as a reported
    /// error (see ``DominoNode/report(_:isolation:)``), and the request goes on as if
    /// that responder declined.
    ///
    /// ```swift
    /// struct LoadProfile: Request {
    ///     typealias Response = Profile
    ///     typealias Failure = ProfileError
    /// }
    ///
    /// screenNode.respond(to: LoadProfile.self) { _ in
    ///     guard let profile = cache.profile else { throw ProfileError.notSignedIn }
    ///     return profile
    /// }
    /// let profile = try cellNode.request(LoadProfile())
    /// ```
    associatedtype Failure: Error = Never
}

/// What an interceptor decides after a node's subscribers ran.
public enum Interception: Sendable, Equatable {
    /// Let the event or request go on up the route.
    case proceed
    /// End the walk here: no node further up sees it.
    case stop
}

/// Lets a subscriber stop an event from travelling further, as in the DOM.
///
/// Subscribers that take a `Propagation` get one per node:
///
/// ```swift
/// node.subscribe(Tap.self) { tap, propagation in
///     if tap.isHandledHere { propagation.stop() }
/// }
/// ```
///
/// Only subscribers that run synchronously during the walk can stop it; a handler
/// delivered on another thread or queue gets a detached `Propagation`, and stopping
/// it is reported through ``Diagnostics``.
public struct Propagation: Sendable {
    /// How far a stop reaches.
    public enum Stop: Sendable, Equatable {
        /// The remaining subscribers at this node still run; nodes further up do not.
        case afterThisNode
        /// The remaining subscribers at this node are skipped too.
        case immediately
    }

    /// The stop requested so far, if any.
    public private(set) var requestedStop: Stop?

    /// True once a handler asked to stop.
    public var isStopped: Bool { requestedStop != nil }

    init() {}

    /// Stops the event after this node: its other subscribers still run.
    public mutating func stop() {
        if requestedStop == nil { requestedStop = .afterThisNode }
    }

    /// Stops the event now: the remaining subscribers at this node are skipped too.
    public mutating func stopImmediately() {
        requestedStop = .immediately
    }
}
