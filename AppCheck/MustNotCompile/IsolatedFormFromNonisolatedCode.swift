// expect: in a synchronous nonisolated context
// The forms that name no mode run the handler where it was written, so they need
// isolated code: nonisolated code must say where its handler runs.
import Domino

struct Tick: Event {}

func start(node: DominoNode) {
    node.subscribe(Tick.self) { _ in print("tick") }
}
