// A Domino API above the core's floor, used at the minimum OS: signals are generic
// over parameter packs, which need the iOS 17 / macOS 14 runtime.
// expect iOS: 'Signal' is only available in iOS 17 or newer
// expect macOS: 'Signal' is only available in macOS 14 or newer
import Domino

final class Upload {
    let progress = Signal<Double>()
}
