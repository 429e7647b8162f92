import Domino

// The platform-neutral logic behind the SwiftUI modifiers (DominoSwiftUI.swift):
// what a view's state holds and what it does each time SwiftUI evaluates the view.
// Linux tests drive these types the way SwiftUI does.

/// The node of one view (`.dominoNode(_:)`), held by the view's state, so that it
/// lives as long as the view's identity. Each evaluation attaches it to the scope
/// from the environment: a different scope above (the view moved) moves the node.
@MainActor
final class ViewNode {
    /// Made on the first attach, not when SwiftUI makes (and may discard) the state:
    /// SwiftUI makes a view's state each time it makes the view, and keeps the first.
    private(set) lazy var node = DominoNode(label: makeLabel())
    private let makeLabel: () -> String
    private weak var parent: DominoNode?

    init(label: @escaping @autoclosure () -> String) {
        makeLabel = label
    }

    /// Mounts the node at `scope`'s node, unmounting it from the one it was
    /// mounted at before, and returns the scope for the view's content.
    func attach(to scope: DominoScope) -> DominoScope {
        let node = self.node
        if scope.node !== parent {
            if let parent { node.unmount(from: parent) }
            if let above = scope.node { node.mount(at: above) }
            parent = scope.node
        }
        return DominoScope(node)
    }
}

/// One handler modifier: a node of its own between the view and the scope above,
/// with one subscription that calls the handler of the latest evaluation, so that
/// SwiftUI's modifier order is the order handlers run in (the modifier nearest the
/// view first), and the handler goes when the view does.
@MainActor
final class HandlerLayer<Handler> {
    private let viewNode: ViewNode
    private let box: HandlerBox<Handler>
    private let install: @MainActor (DominoNode, HandlerBox<Handler>) -> Subscription
    private var subscription: Subscription?

    init(label: @escaping @autoclosure () -> String, handler: Handler, install: @escaping @MainActor (DominoNode, HandlerBox<Handler>) -> Subscription) {
        viewNode = ViewNode(label: label())
        box = HandlerBox(handler)
        self.install = install
    }

    /// Takes the latest `handler`, attaches under `scope`, and returns the scope for
    /// the view inside the modifier.
    func attach(to scope: DominoScope, handler: Handler) -> DominoScope {
        box.handler = handler
        let inner = viewNode.attach(to: scope)
        if subscription == nil { subscription = install(viewNode.node, box) }
        return inner
    }
}

/// The latest handler of a layer. The subscription holds it, not the layer, so that
/// the node never holds what holds the node.
@MainActor
final class HandlerBox<Handler> {
    var handler: Handler

    init(_ handler: Handler) {
        self.handler = handler
    }
}

/// The handler layers of the SwiftUI modifiers, one per kind; the closures are
/// written in main-actor code, so the handlers run on the main actor.
@MainActor
enum ViewHandlers {
    static func subscribe<E: Event>(_ handler: @escaping (E, inout Propagation) -> Void) -> HandlerLayer<(E, inout Propagation) -> Void> {
        HandlerLayer(label: "subscribe(\(E.self))", handler: handler) { node, box in
            node.subscribe(E.self) { event, propagation in box.handler(event, &propagation) }
        }
    }

    static func subscribe(_ name: EventName, _ handler: @escaping (NamedEvent, inout Propagation) -> Void) -> HandlerLayer<(NamedEvent, inout Propagation) -> Void> {
        HandlerLayer(label: "subscribe(\(name))", handler: handler) { node, box in
            node.subscribe(name) { event, propagation in box.handler(event, &propagation) }
        }
    }

    static func respond<R: Request>(to type: R.Type, _ answer: @escaping (R) throws -> R.Response?) -> HandlerLayer<(R) throws -> R.Response?> {
        HandlerLayer(label: "respond(\(R.self))", handler: answer) { node, box in
            node.respond(to: R.self) { request in try box.handler(request) }
        }
    }

    static func handle<F: Error>(_ type: F.Type, _ handler: @escaping (F) -> Void) -> HandlerLayer<(F) -> Void> {
        HandlerLayer(label: "handle(\(F.self))", handler: handler) { node, box in
            node.handle(F.self) { error in box.handler(error) }
        }
    }

    static func receive<F: Error>(_ type: F.Type, _ handler: @escaping (F) -> ErrorHandling) -> HandlerLayer<(F) -> ErrorHandling> {
        HandlerLayer(label: "receive(\(F.self))", handler: handler) { node, box in
            node.receive(F.self) { error in box.handler(error) }
        }
    }

    static func transform<F: Error>(_ type: F.Type, _ transform: @escaping (F) -> any Error) -> HandlerLayer<(F) -> any Error> {
        HandlerLayer(label: "transform(\(F.self))", handler: transform) { node, box in
            node.transform(F.self) { error in box.handler(error) }
        }
    }

    static func `catch`<F: Error, E: Event>(_ type: F.Type, _ convert: @escaping (F) -> E) -> HandlerLayer<(F) -> E> {
        HandlerLayer(label: "catch(\(F.self))", handler: convert) { node, box in
            node.catch(F.self) { error in box.handler(error) }
        }
    }
}
