// Stand-in for the AppKit declarations that Domino's glue and a small app use,
// mirroring the SDK's Swift interface (macOS 14/15): every class is `@MainActor`
// and `open`; `nextResponder` is a settable property, imported from an `assign`
// Objective-C property, hence `unowned(unsafe)`. Views set their subviews' next
// responder, and a view controller puts itself between its view and the view's
// superview, as AppKit does since macOS 10.10. The SDK's protocol conformances
// (NSCoding, NSUserInterfaceItemIdentification, ...) are not mirrored.
//
// Rule: this file mirrors the SDK. Never change it to make Domino compile.

// AppKit re-exports Foundation, and through it the Objective-C runtime.
@_exported import Foundation
// On Linux the runtime's associated objects come from the ObjCRuntime stand-in; in
// the typecheck for Apple targets (apple-targets.sh), Foundation's ObjectiveC has them.
#if !canImport(ObjectiveC)
@_exported import ObjCRuntime
#endif

// MARK: - NSResponder

/// `@MainActor open class NSResponder : NSObject`.
@MainActor
open class NSResponder: NSObject {
    public override init() {
        super.init()
    }

    public required init?(coder: NSCoder) {
        super.init()
    }

    /// The next responder in the responder chain; AppKit's views and view
    /// controllers set it, and anyone may.
    unowned(unsafe) open var nextResponder: NSResponder?
}

// MARK: - NSView

/// `@MainActor open class NSView : NSResponder`.
@MainActor
open class NSView: NSResponder {
    open var frame: NSRect

    /// The view controller whose view this is (AppKit keeps it privately).
    weak var owningViewController: NSViewController?
    private var _subviews: [NSView] = []
    private weak var _superview: NSView?

    public init(frame frameRect: NSRect) {
        frame = frameRect
        super.init()
    }

    public required init?(coder: NSCoder) {
        frame = .zero
        super.init(coder: coder)
    }

    /// `NSView()`: `init(frame: .zero)`.
    public convenience override init() {
        self.init(frame: .zero)
    }

    /// `unowned(unsafe) open var superview: NSView? { get }` in the SDK; held
    /// weakly here, which reads the same while the superview lives.
    open var superview: NSView? { _superview }

    open var subviews: [NSView] {
        get { _subviews }
        set {
            for view in _subviews where !newValue.contains(where: { $0 === view }) { view.removeFromSuperview() }
            for view in newValue { addSubview(view) }
        }
    }

    /// Makes this view the subview's next responder (or its controller's, when the
    /// subview is a view controller's view).
    open func addSubview(_ view: NSView) {
        if view._superview === self {
            _subviews.removeAll { $0 === view }
            _subviews.append(view)
            return
        }
        view.removeFromSuperview()
        _subviews.append(view)
        view._superview = self
        (view.owningViewController ?? view).nextResponder = self
    }

    open func removeFromSuperview() {
        guard let superview = _superview else { return }
        superview._subviews.removeAll { $0 === self }
        _superview = nil
        let responder: NSResponder = owningViewController ?? self
        if responder.nextResponder === superview { responder.nextResponder = nil }
    }
}

// MARK: - NSViewController

/// `@MainActor open class NSViewController : NSResponder`. (The SDK spells nib
/// names `NSNib.Name`, a typealias of String; NSNib itself is not mirrored.)
@MainActor
open class NSViewController: NSResponder {
    private var _view: NSView?
    private weak var _parent: NSViewController?
    private var _children: [NSViewController] = []
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
        super.init(coder: coder)
    }

    /// `NSViewController()`: `init(nibName: nil, bundle: nil)`.
    public convenience override init() {
        self.init(nibName: nil, bundle: nil)
    }

    open var nibName: String? { _nibName }

    open var nibBundle: Bundle? { _nibBundle }

    /// Loaded on first access (`loadView`, then `viewDidLoad`). Setting it puts the
    /// controller into the responder chain between the view and the view's former
    /// next responder, as AppKit does.
    open var view: NSView {
        get {
            if _view == nil {
                loadView()
                viewDidLoad()
            }
            guard let view = _view else { fatalError("\(type(of: self)) could not load its view") }
            return view
        }
        set {
            if let old = _view, old !== newValue {
                old.owningViewController = nil
                old.nextResponder = nextResponder
            }
            _view = newValue
            newValue.owningViewController = self
            if newValue.nextResponder !== self {
                nextResponder = newValue.nextResponder
                newValue.nextResponder = self
            }
        }
    }

    open var viewIfLoaded: NSView? { _view }

    open var isViewLoaded: Bool { _view != nil }

    /// Without a nib, an empty `NSView` (recent AppKit does the same when no nib
    /// matches). Apps without nibs override it, as AppKitUser does.
    open func loadView() {
        view = NSView()
    }

    open func loadViewIfNeeded() {
        _ = view
    }

    open func viewDidLoad() {}

    open var parent: NSViewController? { _parent }

    open var children: [NSViewController] { _children }

    open func addChild(_ childViewController: NSViewController) {
        if childViewController._parent === self { return }
        childViewController.removeFromParent()
        _children.append(childViewController)
        childViewController._parent = self
    }

    open func removeFromParent() {
        guard let parent = _parent else { return }
        parent._children.removeAll { $0 === self }
        _parent = nil
    }
}
