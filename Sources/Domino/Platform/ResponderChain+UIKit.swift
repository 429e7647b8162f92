// UIKit's and AppKit's responders are Domino responders. Linux CI typechecks this
// file against stand-in UIKit and AppKit modules (PlatformCheck/); the protocol it
// implements is exercised there with a simulated view tree
// (Tests/DominoTests/SimulatedUIKit.swift).
//
// watchOS has UIKit but no UIResponder, hence the extra condition.
#if canImport(UIKit) && !os(watchOS)
import UIKit

extension UIResponder: DominoResponder {
    /// `next`: UIKit's responder chain, read on the main thread.
    public var nextDominoResponder: (any DominoResponder)? { next }
}

extension UIResponder {
    /// This responder's node, created on first use; its routes follow the responder
    /// chain (views, their controllers, the window, the application).
    ///
    /// Named so that a subclass may still declare its own
    /// `let domino = DominoNode(label:)`, as the guides do; the two are separate nodes.
    public var dominoNode: DominoNode {
        if let node = objc_getAssociatedObject(self, &dominoNodeKey) as? DominoNode { return node }
        let node = DominoNode(label: String(describing: type(of: self)), responder: self)
        objc_setAssociatedObject(self, &dominoNodeKey, node, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return node
    }
}
#elseif canImport(AppKit)
import AppKit

extension NSResponder: DominoResponder {
    /// `nextResponder`: AppKit's responder chain, read on the main thread.
    public var nextDominoResponder: (any DominoResponder)? { nextResponder }
}

extension NSResponder {
    /// This responder's node, created on first use; its routes follow the responder
    /// chain (views, their controllers, the window, the application).
    ///
    /// Named so that a subclass may still declare its own
    /// `let domino = DominoNode(label:)`, as the guides do; the two are separate nodes.
    public var dominoNode: DominoNode {
        if let node = objc_getAssociatedObject(self, &dominoNodeKey) as? DominoNode { return node }
        let node = DominoNode(label: String(describing: type(of: self)), responder: self)
        objc_setAssociatedObject(self, &dominoNodeKey, node, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return node
    }
}
#endif

#if (canImport(UIKit) && !os(watchOS)) || canImport(AppKit)
/// The associated-object key of a responder's node; only its address matters.
nonisolated(unsafe) private var dominoNodeKey: UInt8 = 0
#endif
