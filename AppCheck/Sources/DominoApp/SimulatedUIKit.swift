import Domino

// A few UIKit classes, simulated: in this module every declaration is main-actor
// isolated by default, exactly as UIKit's are. The chain is UIKit's: a view's next
// responder is the controller whose root view it is, else its superview; a
// controller's is its view's superview, else its parent.

class Responder: DominoResponder {
    let name: String
    init(_ name: String) { self.name = name }

    // A plain main-actor property satisfies the protocol: no nonisolated, no
    // assumeIsolated.
    var nextDominoResponder: (any DominoResponder)? { nil }

    /// As the UIKit glue's `dominoNode`: created on first use, following the chain.
    lazy var dominoNode = DominoNode(label: name, responder: self)
}

class View: Responder {
    weak var superview: View?
    weak var controller: ViewController?
    private(set) var subviews: [View] = []

    override var nextDominoResponder: (any DominoResponder)? { controller ?? superview }

    func addSubview(_ view: View) {
        subviews.append(view)
        view.superview = self
    }
}

final class Window: View {}

class ViewController: Responder {
    let view: View
    weak var parent: ViewController?

    override init(_ name: String) {
        view = View(name + ".view")
        super.init(name)
        view.controller = self
    }

    override var nextDominoResponder: (any DominoResponder)? { view.superview ?? parent }

    func addChild(_ child: ViewController) {
        child.parent = self
        view.addSubview(child.view)
    }
}
