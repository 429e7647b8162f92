// SwiftUI's view hierarchy as a Domino chain: a thin layer over ViewNodes.swift and
// DominoScope.swift, which Linux tests exercise. Linux CI typechecks this file
// against a stand-in SwiftUI module that mirrors Apple's declarations
// (PlatformCheck/Sources/SwiftUI).
#if canImport(SwiftUI)
import Domino
import SwiftUI

private struct DominoScopeKey: EnvironmentKey {
    static let defaultValue = DominoScope(nil)
}

extension EnvironmentValues {
    /// The Domino node this view posts through: its own (`.dominoNode(_:)`), else
    /// the nearest one above it. Post, request, report, broadcast and raise with it.
    ///
    /// ```swift
    /// @Environment(\.domino) private var domino
    /// ...
    /// Button("Buy") { domino.post(BuyTapped(sku: sku)) }
    /// ```
    public var domino: DominoScope {
        get { self[DominoScopeKey.self] }
        set { self[DominoScopeKey.self] = newValue }
    }
}

/// Gives the view a node, held by its state, mounted at the node above.
private struct DominoNodeModifier: ViewModifier {
    @Environment(\.domino) private var scope
    @State private var viewNode: ViewNode

    init(label: String) {
        _viewNode = State(initialValue: ViewNode(label: label))
    }

    func body(content: Content) -> some View {
        content.environment(\.domino, viewNode.attach(to: scope))
    }
}

/// One handler, on a node of its own between the view and the node above.
private struct DominoHandlerModifier<Handler>: ViewModifier {
    @Environment(\.domino) private var scope
    @State private var layer: HandlerLayer<Handler>
    private let handler: Handler

    init(_ layer: HandlerLayer<Handler>, handler: Handler) {
        _layer = State(initialValue: layer)
        self.handler = handler
    }

    func body(content: Content) -> some View {
        content.environment(\.domino, layer.attach(to: scope, handler: handler))
    }
}

extension View {
    /// Gives this view a Domino node, labelled `label`, that lives as long as the
    /// view: mounted at the nearest node above, and the node its content posts
    /// through. The handler modifiers written after it hear what it posts.
    ///
    /// ```swift
    /// CartView().dominoNode("cart")
    /// ```
    public func dominoNode(_ label: String) -> some View {
        modifier(DominoNodeModifier(label: label))
    }

    /// Makes `node` the node this hierarchy posts through at its top: a hosting
    /// controller's `dominoNode`, so that routes go on up the UIKit responder chain,
    /// or any node of the app.
    public func dominoRoot(_ node: DominoNode) -> some View {
        environment(\.domino, DominoScope(node))
    }

    /// Subscribes to events of type `E` posted by this view and the views inside
    /// it; `handler` runs on the main actor, and ends with the view.
    ///
    /// ```swift
    /// CartView().subscribe(BuyTapped.self) { event in cart.add(event.sku) }
    /// ```
    public func subscribe<E: Event>(_ type: E.Type, _ handler: @escaping (E) -> Void) -> some View {
        subscribe(type) { event, _ in handler(event) }
    }

    /// Subscribes to events of type `E` with a handler that may stop them
    /// (HierarchyResponder's `receiveEvent`: `propagation.stop()` is `.handled`).
    public func subscribe<E: Event>(_ type: E.Type, _ handler: @escaping (E, inout Propagation) -> Void) -> some View {
        modifier(DominoHandlerModifier(ViewHandlers.subscribe(handler), handler: handler))
    }

    /// Subscribes to the named event `name` posted by this view and the views
    /// inside it; `handler` runs on the main actor, and may stop it.
    public func subscribe(_ name: EventName, _ handler: @escaping (NamedEvent, inout Propagation) -> Void) -> some View {
        modifier(DominoHandlerModifier(ViewHandlers.subscribe(name, handler), handler: handler))
    }

    /// Answers requests of type `R` made by this view and the views inside it;
    /// return nil to let the views above answer. Throwing the request's `Failure`
    /// ends the request with it; another error goes up from here as a report, and
    /// the request goes on (as the core's `respond(to:_:)` does).
    public func respond<R: Request>(to type: R.Type, _ answer: @escaping (R) throws -> R.Response?) -> some View {
        modifier(DominoHandlerModifier(ViewHandlers.respond(to: type, answer), handler: answer))
    }

    /// Handles errors of type `F` reported by this view and the views inside it:
    /// they go no further (HierarchyResponder's `handleError`).
    public func handle<F: Error>(_ type: F.Type, _ handler: @escaping (F) -> Void) -> some View {
        modifier(DominoHandlerModifier(ViewHandlers.handle(type, handler), handler: handler))
    }

    /// Receives errors of type `F` and decides: `.handled` stops them,
    /// `.notHandled` lets them go on up (HierarchyResponder's `receiveError`).
    public func receive<F: Error>(_ type: F.Type, _ handler: @escaping (F) -> ErrorHandling) -> some View {
        modifier(DominoHandlerModifier(ViewHandlers.receive(type, handler), handler: handler))
    }

    /// Replaces errors of type `F` with another error, which the views above see
    /// (HierarchyResponder's `transformError`).
    public func transform<F: Error>(_ type: F.Type, _ transform: @escaping (F) -> any Error) -> some View {
        modifier(DominoHandlerModifier(ViewHandlers.transform(type, transform), handler: transform))
    }

    /// Catches errors of type `F` into an event posted from here up
    /// (HierarchyResponder's `catchError`).
    public func `catch`<F: Error, E: Event>(_ type: F.Type, _ convert: @escaping (F) -> E) -> some View {
        modifier(DominoHandlerModifier(ViewHandlers.catch(type, convert), handler: convert))
    }
}

#if canImport(UIKit) && !os(watchOS)
import UIKit

/// The root view of a hosting controller made with
/// `UIHostingController(dominoRootView:)`: `content`, posting through the hosting
/// controller's `dominoNode`, whose routes go on up the UIKit responder chain.
public struct DominoHostedRoot<Content: View>: View {
    /// The view the hosting controller shows.
    public var content: Content
    /// The node at the top of the hierarchy: the hosting controller's.
    public var node: DominoNode?

    /// The content, posting through `node`.
    public var body: some View {
        content.environment(\.domino, DominoScope(node))
    }
}

extension UIHostingController {
    /// A hosting controller whose SwiftUI hierarchy posts through the controller's
    /// `dominoNode`: routes from its views go on up the UIKit responder chain (the
    /// parent controller, the window, the application).
    ///
    /// ```swift
    /// let host = UIHostingController(dominoRootView: CartView())
    /// addChild(host)
    /// ```
    public convenience init<Root: View>(dominoRootView root: Root) where Content == DominoHostedRoot<Root> {
        self.init(rootView: DominoHostedRoot(content: root, node: nil))
        rootView.node = dominoNode
    }
}
#endif
#endif
