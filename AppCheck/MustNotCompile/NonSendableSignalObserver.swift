// expect: does not conform to the 'Sendable' protocol
// A signal hands its observer to the callback wherever that runs.
import Domino

final class Screen {
    var progress = 0.0
}

@available(macOS 14, *)
func observe(_ signal: Signal<Double>, by screen: Screen) {
    signal.subscribe(screen, on: .mainThread) { screen, value in screen.progress = value }
}
