// A tiny AppKit app, written as app code is: a screen controller with its own
// `domino` node, a view hierarchy, and a cell whose `dominoNode` follows AppKit's
// responder chain (cell -> list -> root view -> controller) to the controller's
// `dominoNode`. Top-level code runs on the main actor.
// Exits non-zero if anything does not hold.
import AppKit
import Domino

/// What a cell reports when it is clicked.
struct ItemSelected: Event {
    let index: Int
}

/// What handlers heard; handlers are `@Sendable`, so it locks.
final class Inbox: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []

    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}

final class ScreenController: NSViewController {
    /// The app's own node, as the guides write it; the glue's is `dominoNode`.
    let domino = DominoNode(label: "screen")
    let list = NSView()
    let inbox = Inbox()

    override func loadView() {
        view = NSView(frame: NSRect(x: 0, y: 0, width: 480, height: 320))
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(list)
        let inbox = inbox
        // Selections come up the responder chain to this controller's node...
        dominoNode.subscribe(ItemSelected.self, on: .postingThread) { event in
            inbox.append("chain node heard item \(event.index)")
        }
        // ...and continue to the app's own node, mounted above it.
        dominoNode.mount(at: domino)
        domino.subscribe(ItemSelected.self, on: .postingThread) { event in
            inbox.append("own node heard item \(event.index)")
        }
    }
}

final class ItemCell: NSView {
    let index: Int

    init(index: Int) {
        self.index = index
        super.init(frame: .zero)
    }

    required init?(coder: NSCoder) {
        fatalError("not used")
    }

    func userDidClick() -> PostResult {
        dominoNode.post(ItemSelected(index: index))
    }
}

@MainActor
struct Checks {
    private(set) var failures: [String] = []
    private(set) var count = 0

    mutating func expect(_ condition: Bool, _ what: String) {
        count += 1
        if !condition { failures.append(what) }
    }
}

var checks = Checks()

// The window's content view stands in for the window (NSWindow is not mirrored).
let content = NSView(frame: NSRect(x: 0, y: 0, width: 480, height: 320))
let screen = ScreenController()
content.addSubview(screen.view)
let cell = ItemCell(index: 7)
screen.list.addSubview(cell)

// AppKit's chain, as the stand-in implements it.
checks.expect(cell.nextResponder === screen.list, "a subview's next responder is its superview")
checks.expect(screen.view.nextResponder === screen, "a controller's view leads to the controller")
checks.expect(screen.nextResponder === content, "a controller leads to its view's superview")

// The glue: one node per responder, separate from the app's own `domino`.
checks.expect(screen.dominoNode === screen.dominoNode, "dominoNode is created once")
checks.expect(screen.dominoNode !== screen.domino, "dominoNode and the app's domino are separate nodes")
cell.dominoNode.refreshResponderChain()
checks.expect(cell.dominoNode.routeNodes.dropFirst().first === screen.dominoNode,
              "the cell's node leads to the controller's along the responder chain")

// A typed event posted from the cell's node on the main actor.
let result = cell.userDidClick()
checks.expect(result.wasDelivered, "the click was delivered")
checks.expect(screen.inbox.all == ["chain node heard item 7", "own node heard item 7"],
              "the controller's handlers heard the click in route order: \(screen.inbox.all)")

if checks.failures.isEmpty {
    print("AppKitUser: all \(checks.count) checks hold")
} else {
    for failure in checks.failures { print("AppKitUser: FAILED: \(failure)") }
    exit(1)
}
