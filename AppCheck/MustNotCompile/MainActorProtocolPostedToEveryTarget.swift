// expect: call to main actor-isolated instance method 'playerDidStart(trackID:)' in a synchronous nonisolated context
// A post to every target carries its `@Sendable` closure to wherever each target
// lives, so the closure is nonisolated: it cannot call the methods of a `@MainActor`
// protocol. Post those from the main actor with `post(P.self) { … }`.
import Domino

@MainActor protocol PlayerEvents: AnyObject {
    func playerDidStart(trackID: Int)
}

func downloadFinished(node: DominoNode) {
    node.post(PlayerEvents.self, to: .everyTarget) { $0.playerDidStart(trackID: 7) }
}
