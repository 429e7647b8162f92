// expect: main actor-isolated property 'likes' can not be mutated
// Naming a mode makes the handler @Sendable and nonisolated: it cannot touch the
// controller's main-actor state (write it without `on:` to run on the main actor).
import Domino

struct Liked: Event {}

@MainActor final class LikesViewController {
    let domino = DominoNode(label: "likes")
    var likes = 0

    func viewDidLoad() {
        domino.subscribe(Liked.self, on: .background) { _ in self.likes += 1 }
    }
}
