import Domino

// The scene of Domino's README, headless: three nested view controllers on one
// responder chain (no mounting needed), a cell view deep inside the content, and a
// manager that is not on the chain, mounted explicitly at the content controller.
//
// Everything here is main-actor app code, as UIKit's view controllers are: every
// `subscribe`, `respond` and `route` below names no delivery mode, so each handler
// runs on the main actor and may touch its controller's state.

/// A typed event: the content controller finished loading.
struct ContentDidLoad: Event {
    var itemCount: Int
}

/// A typed event the container keeps to itself (its interceptor stops it).
struct ContentDidScroll: Event {
    var offset: Double
}

/// A tree-wide event: broadcast from the window to every node below it.
struct ThemeDidChange: Event {
    var theme: String
}

/// A request: the first controller up the chain that knows the channel answers.
struct FetchChannelID: Request {
    typealias Response = String
}

/// Domino's SelectorEvents from its README, as a protocol; the defaults make every
/// method optional for targets.
///
/// A main-actor protocol, as the controllers that implement it are: posts made on
/// the main actor call its targets there, in place.
@MainActor protocol ContentViewControllerEvents: AnyObject {
    func contentDidLoad(arg1: String, arg2: Int)
    func contentDidLoad(arg: Int)
    func fetchChannelId() -> String?
}

extension ContentViewControllerEvents {
    func contentDidLoad(arg1: String, arg2: Int) {}
    func contentDidLoad(arg: Int) {}
    func fetchChannelId() -> String? { nil }
}

extension EventName {
    /// Domino's SimpleEvent from the README.
    static let statistics: EventName = "ContentViewControllerStatisticsEvent"
    /// The responder-chain blog's event: a cell routes it to its controller by name.
    static let selectFund: EventName = "EventSelectFundWithCode"
}

final class RootViewController: ViewController, ContentViewControllerEvents {
    let channelID = "channel-42"
    private(set) var log: [String] = []

    init() {
        super.init("RootViewController")
        // Answers synchronous requests made on the main thread, in place.
        dominoNode.respond(to: FetchChannelID.self, owner: self) { root, _ in root.channelID }
        dominoNode.subscribe(ContentDidLoad.self, owner: self) { root, event in
            root.log.append("root saw \(event.itemCount) items")
        }
        dominoNode.subscribe(ContentDidScroll.self, owner: self) { root, _ in
            root.log.append("root saw a scroll (it should not)")
        }
        dominoNode.subscribe(.statistics, owner: self) { root, event in
            root.log.append("statistics: \(event)")
        }
        // A protocol target, held weakly: answers the value-returning selector event.
        dominoNode.subscribe(ContentViewControllerEvents.self, target: self)
        dominoNode.subscribe(ThemeDidChange.self, owner: self) { root, event in
            root.log.append("root restyled for \(event.theme)")
        }
    }

    /// Called through the protocol event, on the main actor.
    func fetchChannelId() -> String? { channelID }
}

final class ContainerViewController: ViewController, ContentViewControllerEvents {
    private(set) var log: [String] = []

    init() {
        super.init("ContainerViewController")
        dominoNode.subscribe(ContentDidLoad.self, owner: self) { container, event in
            container.log.append("container laid out \(event.itemCount) items")
        }
        dominoNode.subscribe(ContentDidScroll.self, owner: self) { container, event in
            container.log.append("container scrolled to \(event.offset)")
        }
        // Domino's reformDominoParams: rewrite the statistics before they go up.
        dominoNode.reform(.statistics) { event in
            event.parameters["msg"] = "hook!!!"
            event.parameters["screen"] = "container"
        }
        // Domino's interceptor: scrolling is the container's business only.
        dominoNode.intercept(ContentDidScroll.self) { _ in .stop }
        // `subscribeSelectorEvent:target:`: the container implements the protocol.
        dominoNode.subscribe(ContentViewControllerEvents.self, target: self)
        dominoNode.subscribe(ThemeDidChange.self, owner: self) { container, event in
            container.log.append("container restyled for \(event.theme)")
        }
    }

    /// Called through the protocol event, in place on the main actor.
    func contentDidLoad(arg: Int) {
        log.append("container - contentDidLoad \(arg)")
    }
}

final class ContentViewController: ViewController {
    let cell = FundCell("FundCell")
    private(set) var log: [String] = []

    init() {
        super.init("ContentViewController")
        view.addSubview(cell)
        // The blog's name-to-method table: main-actor methods, run on the main actor.
        dominoNode.route([.selectFund: ContentViewController.didSelectFund], to: self)
        cell.dominoNode.subscribe(ThemeDidChange.self, owner: self) { content, event in
            content.log.append("cell restyled for \(event.theme)")
        }
    }

    func viewDidLoad() {
        dominoNode.post(ContentDidLoad(itemCount: 12))
        dominoNode.post(ContentViewControllerEvents.self, method: "contentDidLoad(arg:)") { $0.contentDidLoad(arg: 12) }
    }

    func scroll(to offset: Double) {
        dominoNode.post(ContentDidScroll(offset: offset))
    }

    func didSelectFund(_ event: NamedEvent) {
        let code = event.argument(0, as: String.self) ?? "?"
        let phone = event.argument(1, as: String.self) ?? "no phone"
        log.append("content selected fund \(code) (\(phone))")
    }
}

/// A view deep in the content: no delegate, it routes its taps up the chain.
final class FundCell: View {
    func tap(code: String, phone: String?) {
        dominoNode.post(.selectFund, arguments: code, phone)
    }
}

/// Not a view or controller, so not on the responder chain: mounted explicitly,
/// as `[dddManager.domino mountAtDomino:contentVC.domino]`. It owns its node, as
/// Domino's hosts do.
@MainActor final class DDDManager {
    let domino = DominoNode(label: "DDDManager")

    init(content: ContentViewController) {
        domino.mount(at: content.dominoNode)
    }

    func reportLoad() {
        let user: String? = nil
        domino.post(.statistics, ["msg": "did load", "user": user as any Sendable])
    }

    func channel() -> String? {
        domino.request(FetchChannelID())
    }

    func channelFromProtocol() -> String? {
        domino.request(ContentViewControllerEvents.self, method: "fetchChannelId") { $0.fetchChannelId() }
    }
}
