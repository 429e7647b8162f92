// expect: capture of 'history' with non-Sendable type 'History' in a '@Sendable' closure
// A post to every target runs its closure wherever each target lives: it may capture
// only Sendable values.
import Domino

protocol TransferProgress: AnyObject, Sendable {
    func transferDidProgress(percent: Int)
}

final class History {
    var percents: [Int] = []
}

func downloadDidProgress(node: DominoNode, history: History) {
    node.post(TransferProgress.self, to: .everyTarget) { target in
        history.percents.append(50)
        target.transferDidProgress(percent: 50)
    }
}
