// expect: does not conform to the 'Sendable' protocol
// A plain class as the owner of a handler that may run on another thread: the data
// race the thread sanitizer once found in user code, now a compile error.
import Domino

struct Tick: Event {}

final class Counter {
    var ticks = 0
    let node = DominoNode(label: "counter")

    func start() {
        node.subscribe(Tick.self, owner: self, on: .postingThread) { counter, _ in
            counter.ticks += 1
        }
    }
}
