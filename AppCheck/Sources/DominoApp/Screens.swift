import Domino

// The app's events, declared the way a newcomer would: plain structs in a
// main-actor module.
struct PhotoLiked: Event {
    var photoID: Int
}

struct FetchSessionToken: Request {
    typealias Response = String
}

struct LoadAvatar: Request {
    typealias Response = String
}

extension EventName {
    static let statistics: EventName = "Statistics"
    static let selectFund: EventName = "SelectFund"
}

/// The feed: answers requests, counts likes, routes named events to its methods.
/// A delegate-style protocol: main-actor by the module's default isolation, with
/// optional methods through defaults.
protocol FeedEvents: AnyObject {
    func photoDidOpen(_ photoID: Int)
    func feedTitle() -> String?
}

extension FeedEvents {
    func photoDidOpen(_ photoID: Int) {}
    func feedTitle() -> String? { nil }
}

final class FeedViewController: ViewController, FeedEvents {
    // The documented pattern: a controller's own node. It does not collide with the
    // UIKit glue, whose per-responder node is `dominoNode`.
    let domino = DominoNode(label: "feed")
    var likes = 0
    var statistics: [String] = []
    var selectedFunds: [String] = []
    var openedPhotos: [Int] = []
    let sessionToken = "token-7"

    init() {
        super.init("FeedViewController")
        domino.mount(at: dominoNode)          // the feed's own node joins the responder chain

        // Owner-bound, mutating main-actor state: no [weak self], no annotations.
        dominoNode.subscribe(PhotoLiked.self, owner: self) { feed, event in
            feed.likes += 1
        }
        // A named event with a plain closure capturing self weakly.
        dominoNode.subscribe(.statistics) { [weak self] event in
            self?.statistics.append(event.value("msg", as: String.self) ?? "?")
        }
        // The blog's name-to-method table, with main-actor methods.
        dominoNode.route([.selectFund: FeedViewController.didSelectFund], to: self)
        // Requests answered by the controller, sync and async.
        dominoNode.respond(to: FetchSessionToken.self, owner: self) { feed, _ in feed.sessionToken }
        dominoNode.respond(to: LoadAvatar.self) { _ in "avatar.png" }
        // A protocol target: its main-actor methods are called in place.
        dominoNode.subscribe(FeedEvents.self, target: self)
    }

    func photoDidOpen(_ photoID: Int) { openedPhotos.append(photoID) }
    func feedTitle() -> String? { "Feed" }

    func didSelectFund(_ event: NamedEvent) {
        selectedFunds.append(event.argument(0, as: String.self) ?? "?")
    }
}

/// A cell deep in the feed: posts up the responder chain, no delegate.
final class PhotoCell: View {
    init() { super.init("PhotoCell") }

    func tapLike() -> PostResult {
        dominoNode.post(PhotoLiked(photoID: 1))
    }

    func tapFund(code: String, phone: String?) {
        dominoNode.post(.selectFund, arguments: code, phone)
    }

    func token() -> String? {
        dominoNode.request(FetchSessionToken())
    }

    func open(photoID: Int) -> PostResult {
        dominoNode.post(FeedEvents.self, method: "photoDidOpen") { $0.photoDidOpen(photoID) }
    }

    func feedTitle() -> String? {
        dominoNode.request(FeedEvents.self) { $0.feedTitle() }
    }
}

/// A custom responder that is not a view: a coordinator whose chain is main-actor
/// state, declared as the responder article shows.
final class Coordinator: DominoResponder {
    weak var parent: Coordinator?
    var nextDominoResponder: (any DominoResponder)? { parent }
    lazy var domino = DominoNode(label: "coordinator", responder: self)
    var handled = 0

    init(parent: Coordinator? = nil) {
        self.parent = parent
    }
}

/// Signals owned by a model, observed by a controller.
final class UploadModel {
    let progress = Signal<Double>()
}

final class UploadViewController: ViewController {
    var lastProgress = 0.0

    init(model: UploadModel) {
        super.init("UploadViewController")
        model.progress.subscribe(self) { controller, fraction in
            controller.lastProgress = fraction
        }
    }
}
