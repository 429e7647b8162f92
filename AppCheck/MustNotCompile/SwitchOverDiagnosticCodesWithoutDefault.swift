// expect: switch must be exhaustive
// Codes grow with new versions of Domino: a switch over them needs a default, so
// that a code added later does not break this code.
import Domino

func severity(of diagnostic: Diagnostic) -> Int {
    switch diagnostic.code {
    case .nestingLimitExceeded: return 2
    case .mountAtSelf, .mountCycle, .notMounted: return 1
    }
}
