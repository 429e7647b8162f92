import Domino

/// A stand-in for UIKit's responder tree, so that Linux tests exercise the same
/// protocol that `UIResponder` conforms to on Apple platforms: a view's next
/// responder is its view controller when it is that controller's root view, else its
/// superview; a controller's is its view's superview (or its parent controller);
/// a window's is the application.
///
/// As UIKit's, it is main-actor state: its chain is read on the main thread only
/// (``DominoResponder/readsChainOnMainThreadOnly`` keeps its default, true), and a
/// post from another thread follows the links Domino last read on the main thread.
@MainActor class SimResponder: DominoResponder {
    let name: String
    init(_ name: String) { self.name = name }

    var nextDominoResponder: (any DominoResponder)? { nil }

    /// Created on first use, as the UIKit glue's associated `dominoNode` is.
    lazy var dominoNode = DominoNode(label: name, responder: self)
}

final class SimApplication: SimResponder {}

class SimView: SimResponder {
    weak var superview: SimView?
    weak var controller: SimViewController?
    private(set) var subviews: [SimView] = []

    override var nextDominoResponder: (any DominoResponder)? { controller ?? superview }

    func addSubview(_ view: SimView) {
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
    }

    func removeFromSuperview() {
        superview?.subviews.removeAll { $0 === self }
        superview = nil
    }
}

final class SimWindow: SimView {
    weak var application: SimApplication?
    var rootViewController: SimViewController? {
        didSet { rootViewController.map { addSubview($0.view) } }
    }

    override var nextDominoResponder: (any DominoResponder)? { application }
}

class SimViewController: SimResponder {
    let view: SimView
    weak var parent: SimViewController?
    private(set) var children: [SimViewController] = []

    override init(_ name: String) {
        view = SimView(name + ".view")
        super.init(name)
        view.controller = self
    }

    override var nextDominoResponder: (any DominoResponder)? { view.superview ?? parent }

    func viewDidLoad() {}

    func addChild(_ child: SimViewController, into container: SimView? = nil) {
        children.append(child)
        child.parent = self
        (container ?? view).addSubview(child.view)
    }
}
