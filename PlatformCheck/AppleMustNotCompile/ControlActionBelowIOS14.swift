// A UIKit API newer than the deployment target: UIControl's block actions are iOS 14.
// expect iOS: 'addAction(_:for:)' is only available in iOS 14.0 or newer
// expect tvOS: 'addAction(_:for:)' is only available in tvOS 14.0 or newer
import UIKit

@MainActor func wire(_ control: UIControl) {
    control.addAction(UIAction { _ in }, for: .touchUpInside)
}
