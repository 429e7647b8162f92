// expect: does not conform to the 'Sendable' protocol
// A protocol target subscribed with a mode may be called from any thread where that
// mode runs: a target whose protocol is not Sendable is refused (subscribe it from
// main-actor code without `on:`, or make the protocol refine Sendable).
import Domino

protocol PlayerEvents: AnyObject {
    func playerDidStart(trackID: Int)
}

final class Player: PlayerEvents {
    var started: [Int] = []
    func playerDidStart(trackID: Int) { started.append(trackID) }
}

func start(node: DominoNode, player: Player) {
    node.subscribe(PlayerEvents.self, target: player, on: .background)
}
