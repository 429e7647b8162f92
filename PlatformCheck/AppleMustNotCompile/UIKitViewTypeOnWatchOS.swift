// A UIKit type that watchOS does not have, used outside a `!os(watchOS)` guard
// (the responder glue's guard is `canImport(UIKit) && !os(watchOS)`).
// expect watchOS: 'UIResponder' is unavailable in watchOS
import UIKit

extension UIResponder {
    var depth: Int { 0 }
}
