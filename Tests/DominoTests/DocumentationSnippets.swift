import Dispatch
import Testing
import Foundation
import Domino
import DominoTesting

// The code of the DocC articles in Sources/Domino/Documentation.docc, verbatim
// between the markers; `DocumentationTests` checks that every Swift block of every
// article is one of these and runs the ones that do something.

// DOC-SNIPPET-BEGIN getting-started
struct ItemSelected: Event {
    var id: Int
}

@MainActor final class ListController {
    let domino = DominoNode(label: "list")
    private(set) var selected: [Int] = []

    init() {
        // Written in main-actor code, the handler runs on the main actor.
        // Owner-bound: the controller is passed in, held weakly; no [weak self].
        domino.subscribe(ItemSelected.self, owner: self) { list, event in
            list.selected.append(event.id)
        }
    }
}

@MainActor final class ItemCell {
    let domino = DominoNode(label: "cell")

    func tap(id: Int) {
        domino.post(ItemSelected(id: id))
    }
}

@MainActor func gettingStarted() -> [Int] {
    let list = ListController()
    let cell = ItemCell()
    cell.domino.mount(at: list.domino)   // or follow a responder chain: DominoResponder
    cell.tap(id: 7)
    return list.selected                 // [7]
}
// DOC-SNIPPET-END getting-started

// DOC-SNIPPET-BEGIN choosing-kinds
struct CartChanged: Event { var count: Int }                 // typed: everyone above hears it
struct CurrentUser: Request { typealias Response = String }  // request: the first answer wins

protocol CheckoutFlow: AnyObject {                           // protocol events, delegate-style
    func checkoutDidFinish(orderID: String)
}

extension EventName {
    static let analytics: EventName = "Analytics"            // named: a string and a dictionary
}

func chooseKinds(cell: DominoNode, screen: DominoNode) -> String? {
    cell.post(CartChanged(count: 3))
    cell.post(.analytics, ["screen": "cart"])
    cell.post(CheckoutFlow.self) { $0.checkoutDidFinish(orderID: "A-1") }
    screen.broadcast(CartChanged(count: 0))                  // tree: down to every node below
    return cell.request(CurrentUser())
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class Uploader {
    let onProgress = DoubleSignal()                          // signal: one owner, direct observers
}
// DOC-SNIPPET-END choosing-kinds

// DOC-SNIPPET-BEGIN threading
struct ThumbnailReady: Event { var index: Int }

func threading(gallery: DominoNode, renderQueue: DispatchQueue) {
    // Runs on renderQueue: synchronously when posted there, else queued there.
    gallery.subscribe(ThumbnailReady.self, on: .queue(renderQueue)) { event in
        print("render thumbnail", event.index)
    }
    // The mode of this node's subscriptions that pass `on: nil`.
    gallery.deliveryMode = .background
    // Any thread may post.
    DispatchQueue.global().async {
        gallery.post(ThumbnailReady(index: 1))
    }
}
// DOC-SNIPPET-END threading

// DOC-SNIPPET-BEGIN debugging
func debugging(content: DominoNode, window: DominoNode) {
    content.isTracing = true                  // Domino's debug mode, per node
    Diagnostics.setHandler { diagnostic in    // misuse is reported here, never a crash
        print("Domino:", diagnostic)
    }
    print(window.subtreeDescription)          // who is mounted where, with which handlers
    print(window.mermaidDiagram(highlighting: content.routeNodes))
}
// DOC-SNIPPET-END debugging

// DOC-SNIPPET-BEGIN matching
func handleDiagnosticsAndTraces() {
    Diagnostics.setHandler { diagnostic in
        switch diagnostic.code {
        case .nestingLimitExceeded, .mountCycle: assertionFailure(diagnostic.message)
        default: Diagnostics.defaultHandler(diagnostic)
        }
    }
    Tracing.setSink { record in
        if let reason = record.kind.stopReason { print("stopped at \(record.node) by \(reason)") }
    }
}
// DOC-SNIPPET-END matching

// DOC-SNIPPET-BEGIN scoped-settings
func strictRequestsInOneTest(node: DominoNode) -> [Diagnostic.Code] {
    Diagnostics.capture {
        Diagnostics.withUnansweredRequestsReported {
            _ = node.request(FetchChannelID())      // unanswered: reported
        }
        _ = node.request(FetchChannelID())          // after the block: not reported
    }.map(\.code)
}
// DOC-SNIPPET-END scoped-settings

// DOC-SNIPPET-BEGIN testing
// import Testing, Domino and DominoTesting
struct RowTapped: Event {
    var row: Int
}

@Test func aTappedRowReachesTheCellThenTheList() {
    let list = DominoNode(label: "list")
    let cell = DominoNode(label: "cell")
    cell.mount(at: list)
    let recorder = EventRecorder().record(RowTapped.self, at: [cell, list])

    cell.post(RowTapped(row: 3))

    let trace = EventRecorder.trace(tracing: [cell, list]) { cell.post(RowTapped(row: 4)) }
    #expect(recorder.nodes == ["cell", "list", "cell", "list"])
    #expect(recorder.values(of: RowTapped.self).map(\.row) == [3, 3, 4, 4])
    #expect(trace.map(\.kind) == [.posted, .delivered, .delivered])
}
// DOC-SNIPPET-END testing

// DOC-SNIPPET-BEGIN testing-clock
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Test @MainActor func searchRunsOnlyOnceTypingPausesFor300Milliseconds() {
    let clock = ManualSignalClock()
    let field = SearchField(), controller = SearchViewController()
    clock.run { controller.observe(field) }   // its debounce(for:) schedules on the clock

    field.onTextChange.fire("sw")
    field.onTextChange.fire("swi")
    clock.advance(by: .milliseconds(299))
    #expect(controller.query == "")           // still typing, as far as the clock knows
    clock.advance(by: .milliseconds(1))
    #expect(controller.query == "swi")        // the last text, once
    #expect(clock.pendingTimers == 0)
}
// DOC-SNIPPET-END testing-clock

// DOC-SNIPPET-BEGIN from-domino
@MainActor protocol ContentControllerEvents: AnyObject {
    func contentDidLoad(arg: Int)
    func fetchChannelID() -> String?
}

extension ContentControllerEvents {
    func contentDidLoad(arg: Int) {}            // @optional
    func fetchChannelID() -> String? { nil }
}

extension EventName {
    static let contentStatistics: EventName = "ContentViewControllerStatisticsEvent"
}

@MainActor final class MigratedContainerController: ContentControllerEvents {
    let domino = DominoNode(label: "container")

    init() {
        // A target subscribed here is called on the main actor, in place.
        domino.subscribe(ContentControllerEvents.self, target: self)
        // A named event's handler, written here, runs on the main actor.
        domino.subscribe(.contentStatistics) { event in
            print(event.parameters)
        }
        domino.reform(.contentStatistics) { $0.parameters["msg"] = "hook!!!" }
    }

    func contentDidLoad(arg: Int) { print("container - contentDidLoad", arg) }
}

@MainActor final class MigratedContentController {
    let domino = DominoNode(label: "content")

    func viewDidLoad() {
        domino.post(ContentControllerEvents.self) { $0.contentDidLoad(arg: 12) }
        domino.post(.contentStatistics, ["msg": "did load"])
        _ = domino.request(ContentControllerEvents.self) { $0.fetchChannelID() }
    }
}
// DOC-SNIPPET-END from-domino

// DOC-SNIPPET-BEGIN from-signals
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class ImageDownload {
    let onResult = Signal<Data?, (any Error)?>()
    let onProgress = FloatSignal()
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor final class ImageViewController {
    var fraction: Float = 0

    func observe(_ download: ImageDownload) {
        // Written in main-actor code: the callbacks run on the main actor.
        download.onProgress.subscribe(self) { controller, fraction in
            controller.fraction = fraction
        }
        let subscription = download.onResult.subscribe(self) { controller, data, error in
            print(data?.count ?? 0, error.map { "\($0)" } ?? "no error")
        }
        subscription.cancelsAfterNextFire = true
        subscription.firePreviousData()
    }
}
// DOC-SNIPPET-END from-signals

// DOC-SNIPPET-BEGIN from-eventstree
struct SessionExpired: Event {}

func eventsTree(app: DominoNode, screen: DominoNode, cell: DominoNode) {
    screen.mount(at: app)
    cell.mount(at: screen)
    // Raise stage: on the way up to the root.
    app.subscribe(SessionExpired.self, phase: .raise, on: .postingThread) { _, propagation in
        if isOffline() { propagation.stop() }   // consume: nobody else hears it
    }
    // Propagate stage (the default phase): on the way down to every node.
    screen.subscribe(SessionExpired.self, on: .postingThread) { _ in print("show login") }
    cell.raise(SessionExpired())
}

func isOffline() -> Bool { false }
// DOC-SNIPPET-END from-eventstree

// DOC-SNIPPET-BEGIN notificationcenter-before
extension Notification.Name {
    static let cartChanged = Notification.Name("CartChanged")
}

// Swift 6 makes you vouch for thread safety: the block may run on any thread.
final class CartBadgeBefore: @unchecked Sendable {
    var count = 0
    private var token: NSObjectProtocol?

    init() {
        token = NotificationCenter.default.addObserver(forName: .cartChanged, object: nil, queue: nil) { [weak self] note in
            self?.count = note.userInfo?["count"] as? Int ?? 0
        }
    }

    deinit {
        token.map(NotificationCenter.default.removeObserver)
    }
}

func cartChangedBefore() {
    NotificationCenter.default.post(name: .cartChanged, object: nil, userInfo: ["count": 3])
}
// DOC-SNIPPET-END notificationcenter-before

// DOC-SNIPPET-BEGIN notificationcenter-after
@MainActor final class CartBadge {
    let domino = DominoNode(label: "badge")
    var count = 0

    init() {
        // Typed, scoped to the nodes below the badge, ends with the badge, and runs
        // on the main actor: no thread-safety to vouch for.
        domino.subscribe(CartChanged.self, owner: self) { badge, event in
            badge.count = event.count
        }
    }
}

@MainActor func cartChanged(at cartRow: DominoNode) {
    cartRow.post(CartChanged(count: 3))
}
// DOC-SNIPPET-END notificationcenter-after

// DOC-SNIPPET-BEGIN delegates-before
protocol CellDelegateBefore: AnyObject { func cellDidTapBuy(sku: String) }
protocol ListDelegateBefore: AnyObject { func listDidTapBuy(sku: String) }

final class BuyCellBefore {
    weak var delegate: CellDelegateBefore?
    func tapBuy() { delegate?.cellDidTapBuy(sku: "S-1") }
}

// The list forwards what it does not care about, one method per event per level.
final class ProductListBefore: CellDelegateBefore {
    weak var delegate: ListDelegateBefore?
    func cellDidTapBuy(sku: String) { delegate?.listDidTapBuy(sku: sku) }
}

final class StoreControllerBefore: ListDelegateBefore {
    func listDidTapBuy(sku: String) { print("buy", sku) }
}
// DOC-SNIPPET-END delegates-before

// DOC-SNIPPET-BEGIN delegates-after
struct BuyTapped: Event { var sku: String }

@MainActor final class BuyCell {
    let domino = DominoNode(label: "cell")
    func tapBuy() { domino.post(BuyTapped(sku: "S-1")) }
}

@MainActor final class ProductList {           // forwards nothing
    let domino = DominoNode(label: "list")
}

@MainActor final class StoreController {
    let domino = DominoNode(label: "store")
    private(set) var bought: [String] = []

    init() {
        domino.subscribe(BuyTapped.self, owner: self) { store, event in
            store.bought.append(event.sku)
        }
    }
}
// DOC-SNIPPET-END delegates-after

// DOC-SNIPPET-BEGIN routes
struct FilterChanged: Event {
    var query: String
}

/// A search field shown in a sidebar and in a toolbar: a diamond under the screen.
func filterRoute() -> [String] {
    let screen = DominoNode(label: "screen")
    let sidebar = DominoNode(label: "sidebar")
    let toolbar = DominoNode(label: "toolbar")
    let field = DominoNode(label: "field")
    sidebar.mount(at: screen)
    toolbar.mount(at: screen)
    field.mount(at: sidebar)
    field.mount(at: toolbar)
    return field.routeNodes.map(\.description)   // ["field", "sidebar", "screen", "toolbar"]
}
// DOC-SNIPPET-END routes

// DOC-SNIPPET-BEGIN subscriptions
@MainActor final class SearchScreen {
    let domino = DominoNode(label: "screen")
    private(set) var queries: [String] = []

    init() {
        // Owner-bound: ends when the screen deallocates; no [weak self].
        domino.subscribe(FilterChanged.self, owner: self) { screen, event in
            screen.queries.append(event.query)
        }
    }
}

@MainActor func filter(below screen: SearchScreen) -> [PostResult] {
    let field = DominoNode(label: "field")
    field.mount(at: screen.domino)
    // A subscriber that takes a Propagation can stop the event after its node.
    let emptyQueries = field.subscribe(FilterChanged.self) { event, propagation in
        if event.query.isEmpty { propagation.stop() }
    }
    let stopped = field.post(FilterChanged(query: ""))        // stopped at "field"
    emptyQueries.cancel()                                     // no later post reaches it
    let delivered = field.post(FilterChanged(query: "swift")) // reaches the screen
    return [stopped, delivered]
}
// DOC-SNIPPET-END subscriptions

// DOC-SNIPPET-BEGIN named-parameters
extension EventName {
    static let signUp: EventName = "SignUp"
}

func signUp(from form: DominoNode, name: String, phone: String?) {
    // A nil phone keeps its key: subscribers see contains("phone") and isNil("phone").
    form.post(.signUp, ["name": name, "phone": phone as any Sendable])
}

func subscribeToSignUps(at app: DominoNode, log: @escaping @Sendable (String) -> Void) {
    app.subscribe(.signUp, on: .postingThread) { event in
        let name = event.value("name", as: String.self) ?? "?"
        log(event.isNil("phone") ? "\(name), no phone" : "\(name), phone given")
    }
}
// DOC-SNIPPET-END named-parameters

// DOC-SNIPPET-BEGIN protocol-events
@MainActor protocol PlayerEvents: AnyObject {
    func playerDidStart(trackID: Int)
    func currentPlaylist() -> String?
}

extension PlayerEvents {                        // defaults make methods optional, as @optional did
    func playerDidStart(trackID: Int) {}
    func currentPlaylist() -> String? { nil }
}

@MainActor final class PlayerScreen: PlayerEvents {
    let domino = DominoNode(label: "player")
    private(set) var started: [Int] = []

    init() {
        // Held weakly: the subscription ends when the screen deallocates.
        // Subscribed on the main actor, so it is called there.
        domino.subscribe(PlayerEvents.self, target: self)
    }

    func playerDidStart(trackID: Int) { started.append(trackID) }
    func currentPlaylist() -> String? { "Favourites" }
}

@MainActor func playFromControls(_ controls: DominoNode) -> String? {
    // Returning nothing: every target on the route, in route order, in place.
    controls.post(PlayerEvents.self, method: "playerDidStart") { $0.playerDidStart(trackID: 7) }
    // Returning a value: the first non-nil answer wins.
    return controls.request(PlayerEvents.self) { $0.currentPlaylist() }
}
// DOC-SNIPPET-END protocol-events

// DOC-SNIPPET-BEGIN protocol-events-every-target
protocol TransferProgress: AnyObject, Sendable {   // Sendable: its targets may be called anywhere
    func transferDidProgress(fileID: Int, percent: Int)
}

final class TransferBadge: TransferProgress {
    let show: @Sendable (_ fileID: Int, _ percent: Int) -> Void
    init(show: @escaping @Sendable (_ fileID: Int, _ percent: Int) -> Void) { self.show = show }
    func transferDidProgress(fileID: Int, percent: Int) { show(fileID, percent) }
}

func installBadge(_ badge: TransferBadge, at screen: DominoNode) {
    // The badge lives on the main thread: posts from elsewhere move there to call it.
    screen.subscribe(TransferProgress.self, target: badge, on: .mainThread)
}

func downloadDidProgress(_ row: DominoNode, fileID: Int, percent: Int) {
    // A download callback, on its own queue. Every target on the route is called
    // where it lives, one at a time, in route order.
    row.post(TransferProgress.self, to: .everyTarget) {
        $0.transferDidProgress(fileID: fileID, percent: percent)
    }
}
// DOC-SNIPPET-END protocol-events-every-target

// DOC-SNIPPET-BEGIN interceptors
struct PriceShown: Event {
    var cents: Int
    var currency: String
}

protocol CheckoutStep: Event {}                  // a group: the checkout module's events
struct CardDeclined: CheckoutStep { var reason: String }

func installInterceptors(at screen: DominoNode) {
    // Reform: runs first; this node and every node above see the new value.
    screen.reform(PriceShown.self) { $0.currency = "EUR" }
    // Intercept: runs after this node's subscribers; .stop ends the walk here.
    screen.intercept(PriceShown.self) { price in price.cents < 0 ? .stop : .proceed }
    // A group: nothing of the checkout module's goes past the screen.
    screen.intercept(every: (any CheckoutStep).self) { _ in .stop }
}
// DOC-SNIPPET-END interceptors

// DOC-SNIPPET-BEGIN responder-chain
@MainActor final class StackView: DominoResponder {
    var nextDominoResponder: (any DominoResponder)? { nil }
    lazy var domino = DominoNode(label: "stack", responder: self)
}

@MainActor final class CardView: DominoResponder {
    weak var superview: StackView?
    var nextDominoResponder: (any DominoResponder)? { superview }   // read on the main thread
    lazy var domino = DominoNode(label: "card", responder: self)
}
// DOC-SNIPPET-END responder-chain

// DOC-SNIPPET-BEGIN responder-chain-any-thread
/// Not views: model objects whose chain never changes, so any thread may read it.
final class Album: DominoResponder {
    nonisolated var nextDominoResponder: (any DominoResponder)? { nil }
    nonisolated static var readsChainOnMainThreadOnly: Bool { false }
    lazy var domino = DominoNode(label: "album", responder: self)
}

final class Track: DominoResponder {
    let album: Album
    init(album: Album) { self.album = album }

    nonisolated var nextDominoResponder: (any DominoResponder)? { album }
    nonisolated static var readsChainOnMainThreadOnly: Bool { false }
    lazy var domino = DominoNode(label: "track", responder: self)
}
// DOC-SNIPPET-END responder-chain-any-thread

// The responder-chain blog's example, ported: these names let the snippet below read
// as the UIKit code it is on Apple platforms (`dominoNode` is the UIKit glue's node).
typealias UIView = SimView
typealias UIViewController = SimViewController

// DOC-SNIPPET-BEGIN routing-by-name
extension EventName {
    static let selectLimit: EventName = "EventSelectLimit"
    static let selectMinBuyAmount: EventName = "EventSelectMinBuyAmount"
    static let selectFund: EventName = "EventSelectFundWithCode"
}

/// A cell deep in the view tree: no delegate chain, it routes its events up.
final class FundCell: UIView {
    func userDidTapFund(code: String, phone: String?, name: String?) {
        // Positional and nil-safe: a nil phone keeps its place.
        dominoNode.post(.selectFund, arguments: code, phone, name)
    }

    func userDidTapLimit(_ limit: Int) {
        dominoNode.post(.selectLimit, arguments: limit)
    }
}

final class FundViewController: UIViewController {
    private(set) var selections: [String] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        // The blog's name-to-selector table, checked by the compiler. Written in
        // main-actor code, each method runs on the main actor.
        dominoNode.route([
            .selectLimit: FundViewController.didSelectLimit,
            .selectMinBuyAmount: FundViewController.didSelectMinBuyAmount,
            .selectFund: FundViewController.didSelectFund,
        ], to: self)
    }

    func didSelectLimit(_ event: NamedEvent) {
        selections.append("limit \(event.argument(0, as: Int.self) ?? 0)")
    }

    func didSelectMinBuyAmount(_ event: NamedEvent) {
        selections.append("minimum \(event.argument(0, as: Double.self) ?? 0)")
    }

    func didSelectFund(_ event: NamedEvent) {
        let code = event.argument(0, as: String.self) ?? "?"
        let phone = event.argument(1, as: String.self) ?? "no phone"
        let name = event.argument(2, as: String.self) ?? "anonymous"
        selections.append("fund \(code) for \(name) (\(phone))")
    }
}
// DOC-SNIPPET-END routing-by-name

// DOC-SNIPPET-BEGIN down-the-tree
struct ThemeChanged: Event { var theme: String }
struct SessionEnded: Event {}
struct CopyCommand: Event {}
struct KeyPressed: Event { var key: Character }

func downTheTree(window: DominoNode, list: DominoNode, cell: DominoNode) {
    list.mount(at: window)
    cell.mount(at: list)
    // Capture phase (the DOM): outermost first, before the bubble phase.
    window.subscribe(KeyPressed.self, phase: .capture, on: .postingThread) { key, propagation in
        if key.key == "\u{1B}" { propagation.stop() }   // escape: the window keeps it
    }
    cell.post(KeyPressed(key: "\u{1B}"))
    window.broadcast(ThemeChanged(theme: "dark"))        // this node and every node below
    cell.raise(SessionEnded())                           // up to the root(s), then down to every node
    window.deliverToDeepestSubscriber(CopyCommand())     // one subscriber: the deepest
}
// DOC-SNIPPET-END down-the-tree

// DOC-SNIPPET-BEGIN signals
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class NetworkRequest {
    let onResult = Signal<Data?, (any Error)?>()
    let onProgress = DoubleSignal()

    func finish(with data: Data?, error: (any Error)?) {
        onProgress.fire(1.0)
        onResult.fire(data, error)
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor final class DownloadViewController {
    var progress = 0.0
    var bytes = 0

    func observe(_ request: NetworkRequest) {
        // Main-actor code: each callback runs on the main actor, in place when the
        // signal fires on the main thread, else soon after on the main queue.
        request.onProgress.subscribe(self) { controller, fraction in
            controller.progress = fraction
        }
        request.onResult.subscribe(self) { controller, data, _ in
            controller.bytes = data?.count ?? 0
        }.cancelsAfterNextFire = true
    }
}
// DOC-SNIPPET-END signals

// DOC-SNIPPET-BEGIN signals-connect
struct DownloadProgressed: Event {
    var fraction: Double
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
func showProgress(of request: NetworkRequest, on screen: DominoNode) -> SignalSubscription {
    // Each fire is posted at `screen`: every subscriber on its route up hears it.
    // `cancel()` disconnects; the connection also ends with the node.
    request.onProgress.connect(to: screen) { fraction in
        DownloadProgressed(fraction: fraction)
    }
}
// DOC-SNIPPET-END signals-connect

// DOC-SNIPPET-BEGIN signals-operators
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class SearchField {
    let onTextChange = StringSignal()
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor final class SearchViewController {
    var query = ""

    func observe(_ field: SearchField) {
        // Search once typing pauses, and only for two characters or more.
        field.onTextChange.subscribe(self) { controller, text in
            controller.query = text
        }
        .filter { text in text.count >= 2 }
        .debounce(for: .milliseconds(300))
    }
}
// DOC-SNIPPET-END signals-operators

// DOC-SNIPPET-BEGIN main-actor-controller
struct PhotoLiked: Event { var count: Int }
struct CurrentAlbum: Request { typealias Response = String }

extension EventName {
    static let openPhoto: EventName = "OpenPhoto"
}

@MainActor final class AlbumViewController {
    let domino = DominoNode(label: "album")
    let albumTitle = "Holidays"
    private(set) var likes = 0
    private(set) var opened: [String] = []

    func viewDidLoad() {
        // Main-actor code: each handler runs on the main actor and may touch the
        // controller's state. No `on:`, no `Task`, no `MainActor.assumeIsolated`.
        domino.subscribe(PhotoLiked.self, owner: self) { controller, event in
            controller.likes += event.count
        }
        domino.respond(to: CurrentAlbum.self, owner: self) { controller, _ in
            controller.albumTitle
        }
        domino.route([.openPhoto: AlbumViewController.openPhoto], to: self)
    }

    func openPhoto(_ event: NamedEvent) {
        opened.append(event.argument(0, as: String.self) ?? "?")
    }
}
// DOC-SNIPPET-END main-actor-controller

// DOC-SNIPPET-BEGIN main-actor-posting
@MainActor func likeOnTheMainThread(in cell: DominoNode) -> PostResult {
    cell.post(PhotoLiked(count: 1))   // runs the handler in place: result.ran == 1
}

func likeFromTheNetwork(in cell: DominoNode) -> PostResult {
    cell.post(PhotoLiked(count: 1))   // on another thread: result.scheduled == 1
}
// DOC-SNIPPET-END main-actor-posting

// DOC-SNIPPET-BEGIN main-actor-requests
@MainActor func albumTitle(below cell: DominoNode) -> String? {
    cell.request(CurrentAlbum())             // on the main thread: answered in place
}

func albumTitleFromAnywhere(below cell: DominoNode) async throws -> String? {
    try await cell.request(CurrentAlbum())   // from any thread: goes to the main actor
}
// DOC-SNIPPET-END main-actor-requests

// DOC-SNIPPET-BEGIN main-actor-responder
@MainActor final class FlowCoordinator: DominoResponder {
    let name: String
    weak var parent: FlowCoordinator?
    init(name: String) { self.name = name }

    var nextDominoResponder: (any DominoResponder)? { parent }   // main-actor state
    lazy var domino = DominoNode(label: name, responder: self)
}
// DOC-SNIPPET-END main-actor-responder

// DOC-SNIPPET-BEGIN nonisolated-handlers
struct UploadFinished: Event { var bytes: Int }
struct UploadQuota: Request { typealias Response = Int }

/// Not main-actor code: a service that any thread may call.
final class UploadService: Sendable {
    let domino = DominoNode(label: "uploads")
    let quota = 100

    init() {
        // Nonisolated code names where each `@Sendable` handler runs.
        domino.subscribe(UploadFinished.self, on: .background) { event in
            print("uploaded", event.bytes, "bytes")
        }
        domino.respond(to: UploadQuota.self, owner: self, on: .postingThread) { service, _ in
            service.quota
        }
    }
}
// DOC-SNIPPET-END nonisolated-handlers

// DOC-SNIPPET-BEGIN errors-up-the-chain
struct SyncFailed: Error {
    var itemID: Int
    var isRetryable: Bool
}

struct SyncBanner: Event { var text: String }

@MainActor final class InboxViewController {
    let domino = DominoNode(label: "inbox")
    private(set) var retried: [Int] = []
    private(set) var banners: [String] = []

    func viewDidLoad() {
        // Decide: retry what can be retried, let the rest go on.
        domino.receive(SyncFailed.self) { [weak self] error in
            guard error.isRetryable, let self else { return .notHandled }
            retried.append(error.itemID)
            return .handled
        }
        // Catch the rest into an event, which this screen and those above hear.
        domino.catch(SyncFailed.self) { error in
            SyncBanner(text: "Item \(error.itemID) did not sync")
        }
        domino.subscribe(SyncBanner.self, owner: self) { inbox, banner in
            inbox.banners.append(banner.text)
        }
    }
}

@MainActor func installLastResort(at app: DominoNode, log: @escaping (String) -> Void) {
    // Every error that reaches the app: `(any Error).self` takes them all.
    app.handle((any Error).self) { error in log("unhandled: \(error)") }
}
// DOC-SNIPPET-END errors-up-the-chain

// DOC-SNIPPET-BEGIN throwing-handlers
enum AvatarError: Error { case notCached }

struct FetchAvatar: Request {
    typealias Response = String
    typealias Failure = AvatarError          // responders may fail it; askers use `try`
}

struct AvatarTapped: Event { var userID: Int }

@MainActor final class ProfileViewController {
    let domino = DominoNode(label: "profile")
    var cached: [Int: String] = [:]

    func viewDidLoad() {
        domino.respond(to: FetchAvatar.self, owner: self) { controller, _ in
            guard let avatar = controller.cached[1] else { throw AvatarError.notCached }
            return avatar
        }
        // A handler may throw: the error goes up the route from this node.
        domino.subscribe(AvatarTapped.self) { tap in
            guard tap.userID > 0 else { throw SyncFailed(itemID: tap.userID, isRetryable: false) }
        }
    }
}

@MainActor func avatar(from cell: DominoNode) -> String {
    do {
        return try cell.request(FetchAvatar()) ?? "placeholder"
    } catch {
        return "not cached"                   // error is an AvatarError
    }
}
// DOC-SNIPPET-END throwing-handlers
