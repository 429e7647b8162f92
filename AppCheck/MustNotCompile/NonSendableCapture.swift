// expect: in a '@Sendable' closure
// Nonisolated code names a mode, and its handler is @Sendable: capturing a class
// that is not Sendable is refused.
import Domino

struct Tick: Event {}

final class Counter {
    var ticks = 0
}

func start(node: DominoNode, counter: Counter) {
    node.subscribe(Tick.self, on: .postingThread) { _ in counter.ticks += 1 }
}
