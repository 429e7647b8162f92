import Domino

// A headless stand-in for UIKit's responder chain, so the demo runs anywhere:
// a view's next responder is its controller when it is that controller's root view,
// else its superview; a controller's is its view's superview.
// On iOS, `UIResponder` conforms to `DominoResponder` and has `dominoNode` already.
//
// As UIKit's, these classes are main-actor state: their chain is read on the main
// thread only (`readsChainOnMainThreadOnly` keeps its default, true).

@MainActor class Responder: DominoResponder {
    let name: String
    init(_ name: String) { self.name = name }

    var nextDominoResponder: (any DominoResponder)? { nil }

    /// Created on first use, as the UIKit glue's `dominoNode` is.
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
    private(set) var children: [ViewController] = []

    override init(_ name: String) {
        view = View(name + ".view")
        super.init(name)
        view.controller = self
    }

    override var nextDominoResponder: (any DominoResponder)? { view.superview }

    func addChild(_ child: ViewController) {
        children.append(child)
        view.addSubview(child.view)
    }
}
