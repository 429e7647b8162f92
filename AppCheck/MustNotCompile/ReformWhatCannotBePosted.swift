// expect: requires that 'Int' conform to 'Event'
// A reformer for a type that is neither an Event nor a Request would never run:
// nothing posts an Int. Refused at compile time rather than silently ignored.
import Domino

func clampEverything(_ node: DominoNode) {
    node.reform(Int.self) { $0 = min($0, 100) }
}
