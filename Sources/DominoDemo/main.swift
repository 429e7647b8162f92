import Foundation
import Domino

// domino-demo: what Domino is for, played headless. First the same feature written
// with delegates, NotificationCenter and Domino, side by side; then Domino's README
// scene with the trace of every event and the route drawn on the node tree; then one
// scene each for signals, async streams, main-actor handlers, diagnostics and
// EventRecorder. The demo checks its own story and exits non-zero when it breaks.

// `--dot` / `--mermaid`: print the README scene's node graph with the statistics
// event's route (from DDDManager up) highlighted, as Graphviz DOT or Mermaid, and exit.
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

let story = Story()
print("domino-demo: Domino for Swift, played headless (--dot or --mermaid draws the route)")

beforeAndAfter(story)

// MARK: - Domino's README scene

/// Runs one step of the README scene and prints its trace (and, when asked, the
/// tree with the route marked).
@MainActor func play(_ title: String, from origin: DominoNode, drawing: Bool = false, _ step: () -> Void) {
    print("-- \(title)")
    let records = Tracing.capture(step)
    for record in records { print(record) }
    if drawing {
        print()
        print(drawTree(from: window.dominoNode, route: origin.routeNodes, marks: records))
    }
    print()
}

story.scene("Domino's README scene: view controllers on a responder chain, a manager mounted")
print(window.dominoNode.subtreeDescription)
print()
Tracing.isEnabledForAllNodes = true
play("ContentViewController posts ContentDidLoad (a typed event) and contentDidLoad(arg:) (a protocol event)", from: content.dominoNode, drawing: true) {
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
play("DDDManager asks fetchChannelId() (a value-returning protocol event)", from: manager.domino) {
    protocolChannel = manager.channelFromProtocol()
}
play("FundCell routes EventSelectFundWithCode by name to its controller", from: content.cell.dominoNode) {
    content.cell.tap(code: "F001", phone: nil)
}
play("ContentViewController posts ContentDidScroll; the container's interceptor stops it", from: content.dominoNode) {
    content.scroll(to: 120)
}
play("Window broadcasts ThemeDidChange down the whole tree, pre-order", from: window.dominoNode, drawing: true) {
    window.dominoNode.broadcast(ThemeDidChange(theme: "dark"))
}
Tracing.isEnabledForAllNodes = false

print("-- What the controllers saw")
for line in container.log + root.log + content.log { print("  " + line) }
print("  channel: \(channel ?? "nil"), from the protocol event: \(protocolChannel ?? "nil")")

story.expect(channel == "channel-42", "the channel request was answered by the root")
story.expect(root.log.contains("root saw 12 items"), "the root saw ContentDidLoad")
story.expect(!root.log.contains(where: { $0.contains("scroll") }), "the interceptor stopped ContentDidScroll")
story.expect(root.log.contains(where: { $0.contains("hook!!!") }), "the statistics parameters were reformed")
story.expect(protocolChannel == "channel-42", "the protocol request was answered by the root")
story.expect(container.log.contains("container - contentDidLoad 12"), "the container got the protocol event")
story.expect(root.log.last == "root restyled for dark" && container.log.contains("container restyled for dark")
             && content.log.contains("cell restyled for dark"), "the theme broadcast reached the whole tree")
story.expect(content.log.contains("content selected fund F001 (no phone)"), "the cell's named event reached the content controller")

// MARK: - One scene per feature

if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
    signalsScene(story)
}
await streamsScene(story)
await mainActorScene(story)
diagnosticsScene(story)
recorderScene(story)

if story.failures.isEmpty {
    print("\ndemo finished: all \(story.checks) checks of the story hold")
} else {
    for failure in story.failures { print("demo failure: \(failure)") }
    exit(1)
}
