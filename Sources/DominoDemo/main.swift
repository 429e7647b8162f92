import Foundation
import Domino

// domino-demo: Domino's README scene, played headless, with the trace of every
// event and a drawing of the node tree with the event's route marked.

// `--dot` / `--mermaid`: print the scene's node graph with the statistics event's
// route (from DDDManager up) highlighted, as Graphviz DOT or Mermaid, and exit.
let pictureFormat = CommandLine.arguments.dropFirst().first

// The controllers sit on one responder chain: window > root > container > content.
let window = Window("Window")
let root = RootViewController()
let container = ContainerViewController()
let content = ContentViewController()
window.addSubview(root.view)
root.addChild(container)
container.addChild(content)
// The manager is not on the chain: it is mounted.
let manager = DDDManager(content: content)
// Read the chains once so the first drawing shows them (posts do this on their own).
for node in [content.cell.dominoNode, content.dominoNode, container.dominoNode, root.dominoNode, window.dominoNode] {
    node.refreshResponderChain()
}

switch pictureFormat {
case "--dot":
    print(window.dominoNode.dotDiagram(highlighting: manager.domino.routeNodes))
    exit(0)
case "--mermaid":
    print(window.dominoNode.mermaidDiagram(highlighting: manager.domino.routeNodes))
    exit(0)
case nil:
    break
default:
    print("usage: domino-demo [--dot | --mermaid]")
    exit(2)
}

Tracing.isEnabledForAllNodes = true
var failures: [String] = []

/// Runs one scene step, prints its trace and the tree with the route marked.
@MainActor func play(_ title: String, from origin: DominoNode, _ step: () -> Void) {
    print("== \(title)")
    let records = Tracing.capture(step)
    for record in records { print(record) }
    print()
    print(drawTree(from: window.dominoNode, route: origin.routeNodes, marks: records))
    print()
}

print("== The node tree: the controllers follow the responder chain, DDDManager is mounted")
print(window.dominoNode.subtreeDescription)
print()

play("ContentViewController posts ContentDidLoad (a typed event) and contentDidLoad(arg:) (a protocol event), up the responder chain", from: content.dominoNode) {
    content.viewDidLoad()
}
play("DDDManager posts the statistics named event; the container reforms its parameters", from: manager.domino) {
    manager.reportLoad()
}
var channel: String?
play("DDDManager requests FetchChannelID (chain of responsibility: the first answer wins)", from: manager.domino) {
    channel = manager.channel()
}
var protocolChannel: String?
play("DDDManager asks fetchChannelId() (a value-returning protocol event: the first target that answers)", from: manager.domino) {
    protocolChannel = manager.channelFromProtocol()
}
play("FundCell, a view inside the content, routes EventSelectFundWithCode by name (the responder-chain blog)", from: content.cell.dominoNode) {
    content.cell.tap(code: "F001", phone: nil)
}
play("ContentViewController posts ContentDidScroll; the container's interceptor stops it", from: content.dominoNode) {
    content.scroll(to: 120)
}

print("== Window broadcasts ThemeDidChange: down the whole tree, pre-order")
let themeRecords = Tracing.capture { window.dominoNode.broadcast(ThemeDidChange(theme: "dark")) }
for record in themeRecords { print(record) }
print()
print(drawTree(from: window.dominoNode, route: [], marks: themeRecords))
print()

print("== What the controllers saw")
for line in container.log { print("  " + line) }
for line in root.log { print("  " + line) }
for line in content.log { print("  " + line) }
print("  channel: \(channel ?? "nil"), from the protocol event: \(protocolChannel ?? "nil")")

// The demo checks its own story, so a regression makes it exit non-zero.
if channel != "channel-42" { failures.append("the channel request was not answered by the root") }
if !root.log.contains("root saw 12 items") { failures.append("the root did not see ContentDidLoad") }
if root.log.contains(where: { $0.contains("scroll") }) { failures.append("the interceptor did not stop ContentDidScroll") }
if !root.log.contains(where: { $0.contains("hook!!!") }) { failures.append("the statistics parameters were not reformed") }
if protocolChannel != "channel-42" { failures.append("the protocol request was not answered by the root") }
if !container.log.contains("container - contentDidLoad 12") { failures.append("the container did not get the protocol event") }
if root.log.last != "root restyled for dark" || !container.log.contains("container restyled for dark") || !content.log.contains("cell restyled for dark") {
    failures.append("the theme broadcast did not reach the whole tree")
}
if !content.log.contains("content selected fund F001 (no phone)") { failures.append("the cell's named event did not reach the content controller") }

if failures.isEmpty {
    print("\ndemo finished: every event took the route the scene expects")
} else {
    for failure in failures { print("demo failure: \(failure)") }
    exit(1)
}
