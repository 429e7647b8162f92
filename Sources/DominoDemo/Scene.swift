import Domino

// The scene of Domino's README, headless: three nested view controllers and a
// manager that is not on their chain, mounted explicitly at the content controller.

/// A typed event: the content controller finished loading.
struct ContentDidLoad: Event {
    var itemCount: Int
}

/// A typed event the container keeps to itself (its interceptor stops it).
struct ContentDidScroll: Event {
    var offset: Double
}

/// A request: the first controller up the chain that knows the channel answers.
struct FetchChannelID: Request {
    typealias Response = String
}

extension EventName {
    /// Domino's SimpleEvent from the README.
    static let statistics: EventName = "ContentViewControllerStatisticsEvent"
}

final class RootViewController {
    let domino = DominoNode(label: "RootViewController")
    let channelID = "channel-42"
    private(set) var log: [String] = []

    init() {
        domino.respond(to: FetchChannelID.self, owner: self) { root, _ in root.channelID }
        domino.subscribe(ContentDidLoad.self, owner: self) { root, event in
            root.log.append("root saw \(event.itemCount) items")
        }
        domino.subscribe(ContentDidScroll.self, owner: self) { root, _ in
            root.log.append("root saw a scroll (it should not)")
        }
        domino.subscribe(.statistics, owner: self) { root, event in
            root.log.append("statistics: \(event)")
        }
    }
}

final class ContainerViewController {
    let domino = DominoNode(label: "ContainerViewController")
    private(set) var log: [String] = []

    init(root: RootViewController) {
        domino.mount(at: root.domino)
        domino.subscribe(ContentDidLoad.self, owner: self) { container, event in
            container.log.append("container laid out \(event.itemCount) items")
        }
        domino.subscribe(ContentDidScroll.self, owner: self) { container, event in
            container.log.append("container scrolled to \(event.offset)")
        }
        // Domino's reformDominoParams: rewrite the statistics before they go up.
        domino.reform(.statistics) { event in
            event.parameters["msg"] = "hook!!!"
            event.parameters["screen"] = "container"
        }
        // Domino's interceptor: scrolling is the container's business only.
        domino.intercept(ContentDidScroll.self) { _ in .stop }
    }
}

final class ContentViewController {
    let domino = DominoNode(label: "ContentViewController")

    init(container: ContainerViewController) {
        domino.mount(at: container.domino)
    }

    func viewDidLoad() {
        domino.post(ContentDidLoad(itemCount: 12))
    }

    func scroll(to offset: Double) {
        domino.post(ContentDidScroll(offset: offset))
    }
}

/// Not a view controller, so not on the controllers' chain: mounted explicitly,
/// as `[dddManager.domino mountAtDomino:contentVC.domino]`.
final class DDDManager {
    let domino = DominoNode(label: "DDDManager")

    init(content: ContentViewController) {
        domino.mount(at: content.domino)
    }

    func reportLoad() {
        let user: String? = nil
        domino.post(.statistics, ["msg": "did load", "user": user as any Sendable])
    }

    func channel() -> String? {
        domino.request(FetchChannelID())
    }
}
