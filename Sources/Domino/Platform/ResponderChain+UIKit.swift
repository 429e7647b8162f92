// The only platform glue: UIKit's and AppKit's responders are Domino responders.
// Linux CI cannot compile this file; the protocol it implements is exercised there
// with a simulated view tree (Tests/DominoTests/SimulatedUIKit.swift).
#if canImport(UIKit)
import UIKit

extension UIResponder: DominoResponder {
    /// `next`, read on the main thread (Domino only asks there; see below).
    nonisolated public var nextDominoResponder: (any DominoResponder)? {
        MainActor.assumeIsolated { next }
    }

    /// True: UIKit's chain is main-thread state.
    nonisolated public static var readsChainOnMainThreadOnly: Bool { true }
}

extension UIResponder {
    /// This responder's node, created on first use; its routes follow the responder
    /// chain (views, their controllers, the window, the application).
    public var domino: DominoNode {
        if let node = objc_getAssociatedObject(self, &dominoNodeKey) as? DominoNode { return node }
        let node = DominoNode(label: String(describing: type(of: self)), responder: self)
        objc_setAssociatedObject(self, &dominoNodeKey, node, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return node
    }
}
#elseif canImport(AppKit)
import AppKit

extension NSResponder: DominoResponder {
    /// `nextResponder`, read on the main thread (Domino only asks there; see below).
    nonisolated public var nextDominoResponder: (any DominoResponder)? {
        MainActor.assumeIsolated { nextResponder }
    }

    /// True: AppKit's chain is main-thread state.
    nonisolated public static var readsChainOnMainThreadOnly: Bool { true }
}

extension NSResponder {
    /// This responder's node, created on first use; its routes follow the responder
    /// chain (views, their controllers, the window, the application).
    public var domino: DominoNode {
        if let node = objc_getAssociatedObject(self, &dominoNodeKey) as? DominoNode { return node }
        let node = DominoNode(label: String(describing: type(of: self)), responder: self)
        objc_setAssociatedObject(self, &dominoNodeKey, node, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return node
    }
}
#endif

#if canImport(UIKit) || canImport(AppKit)
/// The associated-object key of a responder's node; only its address matters.
nonisolated(unsafe) private var dominoNodeKey: UInt8 = 0
#endif
