// expect: 'nil' is not compatible with expected argument type 'any Actor'
// The second message the compiler gives for an isolated form called from nonisolated
// code, beside "in a synchronous nonisolated context": the hidden `isolation`
// parameter's `#isolation` is nil there. Both mean: name a mode with `on:`.
import Domino

struct Tick: Event {}

final class Clock {
    let node = DominoNode(label: "clock")

    func start() {
        node.subscribe(Tick.self) { _ in print("tick") }
    }
}
