@_spi(DominoSwiftUI) import Domino

/// The Domino node that a SwiftUI view posts through: its own, when it has one
/// (`.dominoNode(_:)`), else the nearest one above it. SwiftUI carries it down the
/// view hierarchy in the environment, as `EnvironmentValues.domino`; it plays the
/// part of HierarchyResponder's `triggerEvent` and `reportError`.
///
/// ```swift
/// struct BuyButton: View {
///     @Environment(\.domino) private var domino
///     let sku: String
///
///     var body: some View {
///         Button("Buy") { domino.post(BuyTapped(sku: sku)) }
///     }
/// }
/// ```
///
/// Without a node above the view (no `.dominoNode(_:)`, no `.dominoRoot(_:)`),
/// nothing is delivered, and ``Diagnostic/Code/noNodeInScope`` says so.
public struct DominoScope: Sendable {
    /// The node posts start from; nil when no view above has one.
    public let node: DominoNode?

    /// A scope whose posts start from `node`: what `.dominoRoot(_:)` puts into the
    /// environment of a hosted hierarchy.
    public init(_ node: DominoNode?) {
        self.node = node
    }

    /// Posts `event` up the route from this scope's node (see `DominoNode.post(_:)`).
    @discardableResult
    public func post<E: Event>(_ event: E) -> PostResult {
        start("post \(E.self)").post(event)
    }

    /// Posts a named event up the route from this scope's node.
    @discardableResult
    public func post(_ name: EventName, _ parameters: [String: any Sendable] = [:]) -> PostResult {
        start("post \(name)").post(name, parameters)
    }

    /// Asks the route from this scope's node for an answer: the first responder that
    /// answers wins; nil when nobody did.
    public func request<R: Request>(_ request: R) throws(R.Failure) -> R.Response? {
        try start("request \(R.self)").request(request)
    }

    /// Reports `error` up the route from this scope's node, to the views and objects
    /// above that handle, receive, transform or catch it.
    @discardableResult
    public func report(_ error: any Error, isolation: isolated (any Actor)? = #isolation) -> ErrorReport {
        start("report \(type(of: error))").report(error)
    }

    /// Broadcasts `event` down from this scope's node to every node below it.
    @discardableResult
    public func broadcast<E: Event>(_ event: E) -> PostResult {
        start("broadcast \(E.self)").broadcast(event)
    }

    /// Raises `event` from this scope's node: up to the roots, then down to every
    /// node below them.
    @discardableResult
    public func raise<E: Event>(_ event: E) -> PostResult {
        start("raise \(E.self)").raise(event)
    }

    /// Embeds an object's node in this scope, so that its routes continue up into
    /// the SwiftUI view that embeds it: for a UIKit view or controller shown with a
    /// representable, call it from `updateUIView(_:context:)` with
    /// `context.environment.domino`.
    ///
    /// ```swift
    /// func updateUIView(_ mapView: MapView, context: Context) {
    ///     context.environment.domino.embed(mapView.dominoNode)
    /// }
    /// ```
    ///
    /// A responder's node stops following its responder chain
    /// (``DominoNode/followsResponderChain``), which would lead past the SwiftUI
    /// views to the hosting controller first; the responders inside it still lead
    /// to it. The node is mounted at this scope's node only: embedded again in
    /// another scope, it moves there.
    public func embed(_ embedded: DominoNode) {
        // Called on each update of the representable: change only what changed.
        if embedded.followsResponderChain { embedded.followsResponderChain = false }
        guard let node else {
            Diagnostics.emitFromUILayer(.noNodeInScope, "\(embedded) was embedded in a SwiftUI view with no Domino node above it; its routes end at it. Give a view above it a node with .dominoNode(_:), or host the hierarchy with .dominoRoot(_:).")
            return
        }
        if embedded.parents.contains(where: { $0 === node }) && embedded.parents.count == 1 { return }
        embedded.unmountFromAll()
        embedded.mount(at: node)
    }

    /// The node to start from: this scope's, else a detached one, reported.
    private func start(_ what: String) -> DominoNode {
        if let node { return node }
        Diagnostics.emitFromUILayer(.noNodeInScope, "A SwiftUI view tried to \(what) with no Domino node above it; nothing was delivered. Give a view above it a node with .dominoNode(_:), or host the hierarchy with .dominoRoot(_:).")
        return DominoNode(label: "no node in scope")
    }
}
