// Stand-in for the UIKit declarations that Domino's glue and a small app use,
// mirroring the SDK's Swift interface (iOS 17/18): every class is `@MainActor` and
// `open`, initializers are the designated ones UIKit declares, and `next` is a
// read-only open property. Behaviour follows UIKit's documentation of `next`.
// The SDK's protocol conformances (NSCoding, UIAppearance, ...) are not mirrored:
// nothing here uses them. Availability is the SDK's (iOS, tvOS and visionOS as the
// headers declare it; the view and control classes are not in watchOS's UIKit, which
// `@available(watchOS, unavailable)` says), so the typecheck for Apple targets
// (apple-targets.sh) enforces it.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.

// UIKit re-exports Foundation, and through it the Objective-C runtime.
@_exported import Foundation
// On Linux the runtime's associated objects come from the ObjCRuntime stand-in; in
// the typecheck for Apple targets (apple-targets.sh), Foundation's ObjectiveC has them.
#if !canImport(ObjectiveC)
@_exported import ObjCRuntime
#endif

// MARK: - UIResponder

/// `@MainActor open class UIResponder : NSObject`.
@available(watchOS, unavailable)
@MainActor
open class UIResponder: NSObject {
    /// The next responder in the responder chain, or nil. UIResponder does not
    /// store one: subclasses override this (UIView, UIViewController, UIWindow do).
    open var next: UIResponder? { nil }
}

// MARK: - UIView

/// `@MainActor open class UIView : UIResponder`.
@available(watchOS, unavailable)
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
@available(watchOS, unavailable)
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
@available(watchOS, unavailable)
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
@available(watchOS, unavailable)
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

// MARK: - UIImage

/// `open class UIImage : NSObject, @unchecked Sendable` (iOS 17): an image's data
/// is immutable. Only its existence is mirrored, for `UIBarItem.image`.
open class UIImage: NSObject, @unchecked Sendable {
    public override init() {
        super.init()
    }
}

// MARK: - UIMenuElement, UIAction

/// `@MainActor open class UIMenuElement : NSObject` (iOS 13); its protocol
/// conformances (NSCopying, NSSecureCoding) are not mirrored.
@available(iOS 13.0, tvOS 13.0, *)
@available(watchOS, unavailable)
@MainActor
open class UIMenuElement: NSObject {
    open var title: String
    open var image: UIImage?

    init(title: String, image: UIImage?) {
        self.title = title
        self.image = image
        super.init()
    }
}

/// `public typealias UIActionHandler = @MainActor (UIAction) -> Void`.
@available(iOS 13.0, tvOS 13.0, *)
@available(watchOS, unavailable)
public typealias UIActionHandler = @MainActor (UIAction) -> Void

/// `@MainActor open class UIAction : UIMenuElement` (iOS 13).
@available(iOS 13.0, tvOS 13.0, *)
@available(watchOS, unavailable)
@MainActor
open class UIAction: UIMenuElement {
    private let handler: UIActionHandler
    private var _sender: Any?

    /// `public convenience init(title: String = "", image: UIImage? = nil,
    /// identifier:, discoverabilityTitle:, attributes:, state:, handler:)`; the
    /// parameters between `image` and `handler` (identifiers, attributes, states)
    /// are not mirrored.
    public convenience init(title: String = "", image: UIImage? = nil, handler: @escaping UIActionHandler) {
        self.init(title: title, image: image, actionHandler: handler)
    }

    private init(title: String, image: UIImage?, actionHandler: @escaping UIActionHandler) {
        handler = actionHandler
        super.init(title: title, image: image)
    }

    /// `@available(iOS 14.0, *) open var sender: Any? { get }`: the object that
    /// performs the action (the control, the bar button item), while the handler
    /// runs.
    @available(iOS 14.0, tvOS 14.0, *)
    open var sender: Any? { _sender }

    /// `UIMenuLeaf.performWithSender(_:target:)` (iOS 15): runs the handler with
    /// `sender` as the action's sender.
    @available(iOS 16.0, tvOS 16.0, *)
    open func performWithSender(_ sender: Any?, target: Any?) {
        perform(sender: sender)
    }

    /// What performing does, for `performWithSender(_:target:)` and for
    /// `UIControl.sendActions(for:)`, which UIKit runs on every OS version.
    func perform(sender: Any?) {
        let previous = _sender
        _sender = sender
        handler(self)
        _sender = previous
    }

}

// MARK: - UIControl

/// `@MainActor open class UIControl : UIView`.
@available(watchOS, unavailable)
@MainActor
open class UIControl: UIView {
    /// `public struct Event : OptionSet, @unchecked Sendable`, with the SDK's raw
    /// values (`UIControlEvents` in UIControl.h).
    public struct Event: OptionSet, @unchecked Sendable {
        public let rawValue: UInt

        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        public static var touchDown: UIControl.Event { Event(rawValue: 1 << 0) }
        public static var touchDownRepeat: UIControl.Event { Event(rawValue: 1 << 1) }
        public static var touchDragInside: UIControl.Event { Event(rawValue: 1 << 2) }
        public static var touchDragOutside: UIControl.Event { Event(rawValue: 1 << 3) }
        public static var touchDragEnter: UIControl.Event { Event(rawValue: 1 << 4) }
        public static var touchDragExit: UIControl.Event { Event(rawValue: 1 << 5) }
        public static var touchUpInside: UIControl.Event { Event(rawValue: 1 << 6) }
        public static var touchUpOutside: UIControl.Event { Event(rawValue: 1 << 7) }
        public static var touchCancel: UIControl.Event { Event(rawValue: 1 << 8) }
        public static var valueChanged: UIControl.Event { Event(rawValue: 1 << 12) }
        public static var primaryActionTriggered: UIControl.Event { Event(rawValue: 1 << 13) }
        @available(iOS 14.0, tvOS 14.0, *)
        public static var menuActionTriggered: UIControl.Event { Event(rawValue: 1 << 14) }
        public static var editingDidBegin: UIControl.Event { Event(rawValue: 1 << 16) }
        public static var editingChanged: UIControl.Event { Event(rawValue: 1 << 17) }
        public static var editingDidEnd: UIControl.Event { Event(rawValue: 1 << 18) }
        public static var editingDidEndOnExit: UIControl.Event { Event(rawValue: 1 << 19) }
        public static var allTouchEvents: UIControl.Event { Event(rawValue: 0x0000_0FFF) }
        public static var allEditingEvents: UIControl.Event { Event(rawValue: 0x000F_0000) }
        public static var applicationReserved: UIControl.Event { Event(rawValue: 0x0F00_0000) }
        public static var systemReserved: UIControl.Event { Event(rawValue: 0xF000_0000) }
        public static var allEvents: UIControl.Event { Event(rawValue: 0xFFFF_FFFF) }
    }

    private var actions: [(action: UIAction, events: Event)] = []

    open var isEnabled = true

    /// `@available(iOS 14.0, *) open func addAction(_ action: UIAction, for
    /// controlEvents: UIControl.Event)`: the control retains the action.
    @available(iOS 14.0, tvOS 14.0, *)
    open func addAction(_ action: UIAction, for controlEvents: UIControl.Event) {
        actions.append((action, controlEvents))
    }

    /// `@available(iOS 14.0, *) open func removeAction(_ action: UIAction, for
    /// controlEvents: UIControl.Event)`.
    @available(iOS 14.0, tvOS 14.0, *)
    open func removeAction(_ action: UIAction, for controlEvents: UIControl.Event) {
        actions.removeAll { $0.action === action && !$0.events.isDisjoint(with: controlEvents) }
    }

    /// `open func sendActions(for controlEvents: UIControl.Event)`: performs the
    /// actions registered for any of `controlEvents`, in the order added, with the
    /// control as their sender. (Target-action pairs are not mirrored: selectors do
    /// not exist without the Objective-C runtime.)
    open func sendActions(for controlEvents: UIControl.Event) {
        for (action, events) in actions where !events.isDisjoint(with: controlEvents) {
            action.perform(sender: self)
        }
    }
}

// MARK: - UIBarItem, UIBarButtonItem

/// `@MainActor open class UIBarItem : NSObject`.
@available(watchOS, unavailable)
@MainActor
open class UIBarItem: NSObject {
    open var title: String?
    open var image: UIImage?

    public override init() {
        super.init()
    }
}

/// `@MainActor open class UIBarButtonItem : UIBarItem`. Target and action (a
/// selector) are not mirrored: selectors do not exist without the Objective-C
/// runtime.
@available(watchOS, unavailable)
@MainActor
open class UIBarButtonItem: UIBarItem {
    /// `@available(iOS 14.0, *) @NSCopying open var primaryAction: UIAction?`:
    /// performed when the item is tapped (the stand-in does not copy it).
    @available(iOS 14.0, tvOS 14.0, *)
    open var primaryAction: UIAction? {
        get { _primaryAction as? UIAction }
        set { _primaryAction = newValue }
    }

    // Typed `AnyObject?`: a stored property cannot carry the availability above.
    private var _primaryAction: AnyObject?

    public override init() {
        super.init()
    }
}
