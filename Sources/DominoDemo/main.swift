import Foundation
import Domino

// domino-demo: Domino's README scene, played headless, with the trace of every
// event and a drawing of the node tree with the event's route marked.

let root = RootViewController()
let container = ContainerViewController(root: root)
let content = ContentViewController(container: container)
let manager = DDDManager(content: content)

Tracing.isEnabledForAllNodes = true
var failures: [String] = []

/// Runs one scene step, prints its trace and the tree with the route marked.
@MainActor func play(_ title: String, from origin: DominoNode, _ step: () -> Void) {
    print("== \(title)")
    let records = Tracing.capture(step)
    for record in records { print(record) }
    print()
    print(drawTree(from: root.domino, route: origin.route, marks: records))
    print()
}

play("ContentViewController posts ContentDidLoad (typed event, notifies everyone up the chain)", from: content.domino) {
    content.viewDidLoad()
}
play("DDDManager posts the statistics named event; the container reforms its parameters", from: manager.domino) {
    manager.reportLoad()
}
var channel: String?
play("DDDManager requests FetchChannelID (chain of responsibility: the first answer wins)", from: manager.domino) {
    channel = manager.channel()
}
play("ContentViewController posts ContentDidScroll; the container's interceptor stops it", from: content.domino) {
    content.scroll(to: 120)
}

print("== What the controllers saw")
for line in container.log { print("  " + line) }
for line in root.log { print("  " + line) }
print("  channel: \(channel ?? "nil")")

// The demo checks its own story, so a regression makes it exit non-zero.
if channel != "channel-42" { failures.append("the channel request was not answered by the root") }
if !root.log.contains("root saw 12 items") { failures.append("the root did not see ContentDidLoad") }
if root.log.contains(where: { $0.contains("scroll") }) { failures.append("the interceptor did not stop ContentDidScroll") }
if !root.log.contains(where: { $0.contains("hook!!!") }) { failures.append("the statistics parameters were not reformed") }

if failures.isEmpty {
    print("\ndemo finished: every event took the route the scene expects")
} else {
    for failure in failures { print("demo failure: \(failure)") }
    exit(1)
}
