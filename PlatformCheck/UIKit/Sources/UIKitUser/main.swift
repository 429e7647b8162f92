// A tiny UIKit app, written as app code is: a screen controller with its own
// `domino` node, a view hierarchy in a window, and a cell whose `dominoNode`
// follows UIKit's responder chain (cell -> list -> root view -> controller) to
// the controller's `dominoNode`. Top-level code runs on the main actor.
// Exits non-zero if anything does not hold.
import Domino
import UIKit

/// What a cell reports when it is tapped.
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

final class ScreenController: UIViewController {
    /// The app's own node, as the guides write it; the glue's is `dominoNode`.
    let domino = DominoNode(label: "screen")
    let list = UIView()
    let inbox = Inbox()

    override func loadView() {
        view = UIView(frame: CGRect(x: 0, y: 0, width: 320, height: 480))
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

final class ItemCell: UIView {
    let index: Int

    init(index: Int) {
        self.index = index
        super.init(frame: .zero)
    }

    required init?(coder: NSCoder) {
        fatalError("not used")
    }

    func userDidTap() -> PostResult {
        dominoNode.post(ItemSelected(index: index))
    }
}

/// A child controller whose view is not on screen: UIKit's `next` is its parent.
final class DetailController: UIViewController {}

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

let window = UIWindow(frame: CGRect(x: 0, y: 0, width: 320, height: 480))
let screen = ScreenController()
window.rootViewController = screen
window.makeKeyAndVisible()
let cell = ItemCell(index: 3)
screen.list.addSubview(cell)
let detail = DetailController()
screen.addChild(detail)
detail.didMove(toParent: screen)

// UIKit's chain, as the stand-in implements UIKit's documentation of `next`.
checks.expect(cell.next === screen.list, "a view's next is its superview")
checks.expect(screen.view.next === screen, "a root view's next is its view controller")
checks.expect(screen.next === window, "a controller's next is its view's superview")
checks.expect(window.next === UIApplication.shared, "a window's next is the application")
checks.expect(detail.next === screen, "an off-screen child controller's next is its parent")

// The glue: one node per responder, separate from the app's own `domino`.
checks.expect(screen.dominoNode === screen.dominoNode, "dominoNode is created once")
checks.expect(screen.dominoNode !== screen.domino, "dominoNode and the app's domino are separate nodes")
cell.dominoNode.refreshResponderChain()
checks.expect(cell.dominoNode.routeNodes.dropFirst().first === screen.dominoNode,
              "the cell's node leads to the controller's along the responder chain")

// A typed event posted from the cell's node on the main actor.
let result = cell.userDidTap()
checks.expect(result.wasDelivered, "the tap was delivered")
checks.expect(screen.inbox.all == ["chain node heard item 3", "own node heard item 3"],
              "the controller's handlers heard the tap in route order: \(screen.inbox.all)")

// The unified log (the stand-in `os` writes it to standard output; check.sh reads it):
// a diagnostic through the default handler, a traced post and request through the
// default sink, each a signpost interval, and a signal fire while every node is traced.
struct ChannelName: Request {
    typealias Response = String
}
screen.domino.respond(to: ChannelName.self, on: .postingThread) { _ in "secret-channel" }
screen.domino.mount(at: screen.domino)                       // misuse: mountAtSelf
cell.dominoNode.isTracing = true
_ = cell.userDidTap()
let channel = cell.dominoNode.request(ChannelName())
checks.expect(channel == "secret-channel", "the traced request was answered")
cell.dominoNode.isTracing = false
// Signals need iOS 17 (parameter packs); the app deploys to iOS 13, as Domino does.
if #available(iOS 17, tvOS 17, *) {
    let progress = Signal<Double>()
    progress.subscribe(screen.inbox, on: .postingThread) { inbox, value in inbox.append("progress \(value)") }
    Tracing.isEnabledForAllNodes = true
    progress.fire(0.5)
    Tracing.isEnabledForAllNodes = false
    checks.expect(screen.inbox.all.last == "progress 0.5", "the signal fire reached its observer")
}

// Controls as signals, attach and forget: the controller subscribes and keeps
// nothing; UIKit's sendActions(for:) and a bar button item's primary action fire them.
@available(iOS 17, tvOS 17, *)
final class SettingsController: UIViewController {
    let saveButton = UIControl()
    let volume = UIControl()
    let share = UIBarButtonItem()
    var heard: [String] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        saveButton.signal(for: .touchUpInside).subscribe(self) { controller, _ in
            controller.heard.append("save")
        }
        volume.signal(for: [.valueChanged, .editingChanged]).subscribe(self) { controller, control in
            controller.heard.append("volume \(control === controller.volume)")
        }
        share.title = "Share"
        share.actionSignal.subscribe(self) { controller, item in
            controller.heard.append("share \(item.title ?? "")")
        }
    }
}
if #available(iOS 17, tvOS 17, *) {
    weak var weakSettings: SettingsController?
    weak var weakSaveButton: UIControl?
    do {
        let settings = SettingsController()
        weakSettings = settings
        weakSaveButton = settings.saveButton
        settings.loadViewIfNeeded()
        settings.saveButton.sendActions(for: .touchUpInside)
        settings.saveButton.sendActions(for: .touchDown)              // not subscribed
        settings.volume.sendActions(for: .valueChanged)
        settings.share.primaryAction?.performWithSender(settings.share, target: nil)
        checks.expect(settings.heard == ["save", "volume true", "share Share"],
                      "control and bar button signals reached the controller: \(settings.heard)")
        checks.expect(settings.saveButton.signal(for: .touchUpInside) === settings.saveButton.signal(for: .touchUpInside),
                      "a control hands out one signal per events")
        checks.expect(settings.share.primaryAction?.title == "Share", "the bar button item keeps its title")
    }
    checks.expect(weakSettings == nil && weakSaveButton == nil,
                  "a controller subscribed to its controls' signals deallocates with them (no retain cycle)")
}

if checks.failures.isEmpty {
    print("UIKitUser: all \(checks.count) checks hold")
} else {
    for failure in checks.failures { print("UIKitUser: FAILED: \(failure)") }
    exit(1)
}
