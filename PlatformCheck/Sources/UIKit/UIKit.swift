// Stand-in for the UIKit declarations that Domino's glue and a small app use,
// mirroring the SDK's Swift interface (iOS 17/18): every class is `@MainActor` and
// `open`, initializers are the designated ones UIKit declares, and `next` is a
// read-only open property. Behaviour follows UIKit's documentation of `next`.
// The SDK's protocol conformances (NSCoding, UIAppearance, ...) are not mirrored:
// nothing here uses them.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.

// UIKit re-exports Foundation, and through it the Objective-C runtime.
@_exported import Foundation
@_exported import ObjCRuntime

// MARK: - UIResponder

/// `@MainActor open class UIResponder : NSObject`.
@MainActor
open class UIResponder: NSObject {
    /// The next responder in the responder chain, or nil. UIResponder does not
    /// store one: subclasses override this (UIView, UIViewController, UIWindow do).
    open var next: UIResponder? { nil }
}

// MARK: - UIView

/// `@MainActor open class UIView : UIResponder`.
@MainActor
open class UIView: UIResponder {
    open var frame: CGRect

    /// The view controller whose root view this is (UIKit keeps it privately).
    weak var owningViewController: UIViewController?
    private weak var _superview: UIView?
    private var _subviews: [UIView] = []

    public init(frame: CGRect) {
        self.frame = frame
        super.init()
    }

    public required init?(coder: NSCoder) {
        frame = .zero
        super.init()
    }

    /// `UIView()`: `init(frame: .zero)`, as `-[UIView init]` does.
    public convenience override init() {
        self.init(frame: .zero)
    }

    open var superview: UIView? { _superview }

    open var subviews: [UIView] { _subviews }

    open var window: UIWindow? {
        var view: UIView? = self
        while let current = view {
            if let window = current as? UIWindow { return window }
            view = current.superview
        }
        return nil
    }

    open func addSubview(_ view: UIView) {
        if view._superview === self {
            _subviews.removeAll { $0 === view }
            _subviews.append(view)
            return
        }
        view.removeFromSuperview()
        _subviews.append(view)
        view._superview = self
    }

    open func removeFromSuperview() {
        guard let superview = _superview else { return }
        superview._subviews.removeAll { $0 === self }
        _superview = nil
    }

    /// "UIView implements this method and returns the UIViewController object that
    /// manages it (if it has one) or its superview (if it doesn't)."
    open override var next: UIResponder? {
        owningViewController ?? superview
    }
}

// MARK: - UIViewController

/// `@MainActor open class UIViewController : UIResponder`.
@MainActor
open class UIViewController: UIResponder {
    private var _view: UIView?
    private weak var _parent: UIViewController?
    private var _children: [UIViewController] = []
    private let _nibName: String?
    private let _nibBundle: Bundle?

    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) {
        _nibName = nibNameOrNil
        _nibBundle = nibBundleOrNil
        super.init()
    }

    public required init?(coder: NSCoder) {
        _nibName = nil
        _nibBundle = nil
        super.init()
    }

    /// `UIViewController()`: `init(nibName: nil, bundle: nil)`, as `-init` does.
    public convenience override init() {
        self.init(nibName: nil, bundle: nil)
    }

    open var nibName: String? { _nibName }

    open var nibBundle: Bundle? { _nibBundle }

    /// Loaded on first access (`loadView`, then `viewDidLoad`); setting nil unloads.
    open var view: UIView! {
        get {
            if _view == nil {
                loadView()
                viewDidLoad()
            }
            return _view
        }
        set {
            _view?.owningViewController = nil
            _view = newValue
            newValue?.owningViewController = self
        }
    }

    open var viewIfLoaded: UIView? { _view }

    open var isViewLoaded: Bool { _view != nil }

    /// Without a nib, a plain `UIView`, as UIKit does.
    open func loadView() {
        view = UIView()
    }

    open func loadViewIfNeeded() {
        _ = view
    }

    open func viewDidLoad() {}

    open var parent: UIViewController? { _parent }

    open var children: [UIViewController] { _children }

    open func addChild(_ childController: UIViewController) {
        if childController._parent === self { return }
        childController.removeFromParent()
        childController.willMove(toParent: self)
        _children.append(childController)
        childController._parent = self
    }

    open func removeFromParent() {
        guard let parent = _parent else { return }
        parent._children.removeAll { $0 === self }
        _parent = nil
    }

    open func willMove(toParent parent: UIViewController?) {}

    open func didMove(toParent parent: UIViewController?) {}

    /// "UIViewController ... returns its view's superview"; a controller whose view
    /// is not in a hierarchy leads to its parent (presenters are not mirrored).
    open override var next: UIResponder? {
        viewIfLoaded?.superview ?? parent
    }
}

// MARK: - UIWindow

/// `@MainActor open class UIWindow : UIView`.
@MainActor
open class UIWindow: UIView {
    private var _rootViewController: UIViewController?

    public override init(frame: CGRect) {
        super.init(frame: frame)
    }

    public required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    /// Setting it makes the controller's view the window's content.
    open var rootViewController: UIViewController? {
        get { _rootViewController }
        set {
            if let old = _rootViewController, old !== newValue { old.viewIfLoaded?.removeFromSuperview() }
            _rootViewController = newValue
            if let view = newValue?.view { addSubview(view) }
        }
    }

    open var isKeyWindow: Bool { UIApplication.shared.keyWindowForStandIn === self }

    open func makeKeyAndVisible() {
        UIApplication.shared.keyWindowForStandIn = self
    }

    /// "UIWindow returns the application object." (With scenes, UIKit puts the
    /// window's UIWindowScene in between; scenes are not mirrored.)
    open override var next: UIResponder? {
        UIApplication.shared
    }
}

// MARK: - UIApplication

/// `@MainActor open class UIApplication : UIResponder`.
@MainActor
open class UIApplication: UIResponder {
    private static var sharedInstance: UIApplication?

    /// The app's singleton, created on first use here (by UIApplicationMain on iOS).
    open class var shared: UIApplication {
        if let app = sharedInstance { return app }
        let app = UIApplication()
        sharedInstance = app
        return app
    }

    weak var keyWindowForStandIn: UIWindow?

    // `next` is UIResponder's nil: app delegates are not mirrored.
}
