import Foundation
import Testing
@testable import Domino

@Suite("Documentation: every article's code compiles and runs", .checksLeaks)
struct DocumentationTests {
    private static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    private static let catalog = testsFolder
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Domino/Documentation.docc")

    @Test func everySwiftBlockOfEveryArticleIsCodeThatATestCompiles() throws {
        // The SwiftUI article's code is compiled against the stand-in SwiftUI by
        // PlatformCheck/check.sh, not here.
        let swiftUIUser = "../../PlatformCheck/UIKit/Sources/SwiftUIUser/main.swift"
        let sources = try ["DocumentationSnippets.swift", "ConcurrencyArticleTests.swift", swiftUIUser].map {
            try String(contentsOf: Self.testsFolder.appendingPathComponent($0).standardizedFileURL, encoding: .utf8)
        }
        let articles = try FileManager.default.contentsOfDirectory(atPath: Self.catalog.path).filter { $0.hasSuffix(".md") }
        #expect(articles.count >= 12)
        var blocks = 0
        for article in articles {
            let text = try String(contentsOf: Self.catalog.appendingPathComponent(article), encoding: .utf8)
            let parts = text.components(separatedBy: "```swift\n")
            for (index, part) in parts.enumerated().dropFirst() {
                blocks += 1
                let code = part.components(separatedBy: "```").first!.trimmingCharacters(in: .whitespacesAndNewlines)
                let before = parts[index - 1]
                guard let marker = before.range(of: "<!-- snippet: ", options: .backwards),
                      before[marker.upperBound...].hasSuffix(" -->\n") else {
                    Issue.record("\(article): a Swift block without a snippet marker:\n\(code.prefix(200))")
                    continue
                }
                let name = String(before[marker.upperBound...].dropLast(" -->\n".count))
                let compiled = sources.compactMap { source -> String? in
                    guard let start = source.range(of: "// DOC-SNIPPET-BEGIN \(name)\n"),
                          let end = source.range(of: "\n// DOC-SNIPPET-END \(name)", range: start.upperBound..<source.endIndex) else { return nil }
                    return String(source[start.upperBound..<end.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
                }.first
                #expect(compiled == code, "\(article): snippet \(name) differs from the compiled code")
            }
        }
        #expect(blocks >= 14)
    }

    @Test func scopedSettingsHoldInsideTheirBlockOnly() {
        #expect(strictRequestsInOneTest(node: DominoNode(label: "scoped")) == [.unansweredRequest])
    }

    @Test @MainActor func gettingStartedDeliversTheSelection() {
        #expect(gettingStarted() == [7])
    }

    @Test @MainActor func delegateChainReplacementReachesTheStoreThroughAListThatForwardsNothing() {
        let store = StoreController(), list = ProductList(), cell = BuyCell()
        list.domino.mount(at: store.domino)
        cell.domino.mount(at: list.domino)
        cell.tapBuy()
        #expect(store.bought == ["S-1"])
    }

    @Test @MainActor func notificationCenterReplacementReachesOnlyTheBadgeAbove() {
        let badge = CartBadge(), other = CartBadge()
        let row = DominoNode(label: "row")
        row.mount(at: badge.domino)
        cartChanged(at: row)
        #expect(badge.count == 3)
        #expect(other.count == 0)
    }

    @Test func eventsTreeRaiseReachesTheScreen() {
        let app = DominoNode(label: "app"), screen = DominoNode(label: "screen"), cell = DominoNode(label: "cell")
        eventsTree(app: app, screen: screen, cell: cell)
        #expect(screen.subscriptionCount == 1)
        #expect(app.subscriptionCount == 1)
    }

    @Test @MainActor func dominoMigrationPostsProtocolAndNamedEventsUpTheChain() {
        let container = MigratedContainerController(), content = MigratedContentController()
        content.domino.mount(at: container.domino)
        let records = Tracing.capture {
            container.domino.isTracing = true
            content.viewDidLoad()
        }
        #expect(records.filter { $0.kind == .delivered }.map(\.event) == ["ContentControllerEvents", "\"ContentViewControllerStatisticsEvent\""])
        #expect(records.contains { $0.kind.reformedValues != nil })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func signalsMigrationObservesProgressAndOneResult() {
        let download = ImageDownload(), controller = ImageViewController()
        controller.observe(download)
        download.onResult.fire(Data([1]), nil)
        download.onResult.fire(Data([2]), nil)
        #expect(download.onResult.subscriptionCount == 0)
        #expect(download.onProgress.subscriptionCount == 1)
    }

    @Test func routeVisitsEachNodeOfADiamondOnceDepthFirst() {
        #expect(filterRoute() == ["field", "sidebar", "screen", "toolbar"])
    }

    @Test @MainActor func aStoppingSubscriberKeepsTheEventBelowUntilItIsCancelled() {
        let screen = SearchScreen()
        let results = filter(below: screen)
        #expect(results[0].stopReason == .subscriber)
        #expect(results[0].stoppedAt == "field")
        #expect(results[1].deliveries == 1)
        #expect(results[1].nodesVisited == 2)
        #expect(screen.queries == ["swift"])
    }

    @Test func aNilParameterKeepsItsKey() {
        let app = DominoNode(label: "app"), form = DominoNode(label: "form")
        form.mount(at: app)
        let log = Log<String>()
        subscribeToSignUps(at: app) { log.append($0) }
        signUp(from: form, name: "Ann", phone: nil)
        signUp(from: form, name: "Bo", phone: "555")
        #expect(log.entries == ["Ann, no phone", "Bo, phone given"])
    }

    @Test @MainActor func downloadProgressReachesTheBadgeOnTheMainThreadFromADownloadQueue() async {
        let screen = DominoNode(label: "screen")
        let row = DominoNode(label: "row")
        row.mount(at: screen)
        let shown = Log<String>()
        let badge = TransferBadge { fileID, percent in
            shown.append("\(fileID): \(percent)% on \(currentPlace())")
        }
        installBadge(badge, at: screen)
        DispatchQueue(label: "download").async { downloadDidProgress(row, fileID: 3, percent: 60) }
        #expect(await eventuallyOnMainActor { shown.count == 1 })
        #expect(shown.entries == ["3: 60% on main"])
        withExtendedLifetime(badge) {}
    }

    @Test @MainActor func errorsAreRetriedCaughtIntoEventsOrHandledAtTheApp() {
        let app = DominoNode(label: "app")
        let inbox = InboxViewController()
        inbox.viewDidLoad()
        inbox.domino.mount(at: app)
        let row = DominoNode(label: "row")
        row.mount(at: inbox.domino)
        let log = Log<String>()
        installLastResort(at: app) { log.append($0) }
        row.report(SyncFailed(itemID: 1, isRetryable: true))
        row.report(SyncFailed(itemID: 2, isRetryable: false))
        row.report(CancellationError())
        #expect(inbox.retried == [1])
        #expect(inbox.banners == ["Item 2 did not sync"])
        #expect(log.entries == ["unhandled: CancellationError()"])
    }

    @Test @MainActor func throwingRespondersFailTheRequestAndThrowingHandlersReport() {
        let profile = ProfileViewController()
        profile.viewDidLoad()
        let cell = DominoNode(label: "cell")
        cell.mount(at: profile.domino)
        #expect(avatar(from: cell) == "not cached")
        profile.cached[1] = "ann.png"
        #expect(avatar(from: cell) == "ann.png")
        let diagnostics = Diagnostics.capture { cell.post(AvatarTapped(userID: 0)) }
        #expect(diagnostics.map(\.code) == [.unhandledError])
    }

    @Test @MainActor func protocolEventsReachTargetsAndTheFirstAnswerWins() {
        let screen = PlayerScreen()
        let controls = DominoNode(label: "controls")
        controls.mount(at: screen.domino)
        #expect(playFromControls(controls) == "Favourites")
        #expect(screen.started == [7])
    }

    @Test func interceptorsReformForTheNodesAboveAndStopSingleEventsAndGroups() {
        let app = DominoNode(label: "app"), screen = DominoNode(label: "screen"), cell = DominoNode(label: "cell")
        screen.mount(at: app)
        cell.mount(at: screen)
        installInterceptors(at: screen)
        let log = Log<String>()
        for node in [cell, screen, app] {
            let label = node.description
            node.subscribe(PriceShown.self, on: .postingThread) { log.append("\(label) \($0.cents) \($0.currency)") }
            node.subscribe(CardDeclined.self, on: .postingThread) { _ in log.append("\(label) declined") }
        }
        cell.post(PriceShown(cents: 100, currency: "USD"))
        let refund = cell.post(PriceShown(cents: -5, currency: "USD"))
        cell.post(CardDeclined(reason: "expired"))
        #expect(log.entries == [
            "cell 100 USD", "screen 100 EUR", "app 100 EUR",
            "cell -5 USD", "screen -5 EUR",
            "cell declined", "screen declined",
        ])
        #expect(refund.stopReason == .interceptor)
        #expect(refund.stoppedAt == "screen")
    }

    @Test @MainActor func aResponderChainRoutesWithoutMountingAndFollowsItsChanges() {
        let stack = StackView(), card = CardView()
        let log = Log<String>()
        stack.domino.subscribe(Ping.self, on: .postingThread) { _ in log.append("stack") }
        card.superview = stack
        card.domino.post(Ping(value: 1))
        card.superview = nil
        card.domino.post(Ping(value: 1))
        #expect(log.entries == ["stack"])
    }

    @Test func anyThreadResponderChainIsFollowedFromABackgroundThreadWithoutAMainThreadRead() async {
        let album = Album()
        let track = Track(album: album)
        let albumNode = album.domino, trackNode = track.domino
        let log = Log<String>()
        albumNode.subscribe(Ping.self, on: .postingThread) { _ in log.append("album") }
        // Never read on the main thread: the posting thread reads this chain itself.
        let result = await Task.detached { trackNode.post(Ping(value: 1)) }.value
        #expect(result.deliveries == 1)
        #expect(log.entries == ["album"])
        #expect(trackNode.resolvedSuccessor === albumNode)
    }

    @Test func downTheTreeCapturesBroadcastsRaisesAndFindsTheDeepestSubscriber() {
        let window = DominoNode(label: "window"), list = DominoNode(label: "list"), cell = DominoNode(label: "cell")
        let log = Log<String>()
        for node in [window, list, cell] {
            let label = node.description
            node.subscribe(KeyPressed.self, on: .postingThread) { _ in log.append("\(label) key") }
            node.subscribe(ThemeChanged.self, on: .postingThread) { log.append("\(label) \($0.theme)") }
            node.subscribe(SessionEnded.self, on: .postingThread) { _ in log.append("\(label) session") }
        }
        window.subscribe(SessionEnded.self, phase: .raise, on: .postingThread) { _ in log.append("window raise") }
        list.subscribe(CopyCommand.self, on: .postingThread) { _ in log.append("list copy") }
        cell.subscribe(CopyCommand.self, on: .postingThread) { _ in log.append("cell copy") }
        downTheTree(window: window, list: list, cell: cell)
        #expect(log.entries == [
            "window dark", "list dark", "cell dark",
            "window raise", "window session", "list session", "cell session",
            "cell copy",
        ])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func aConnectedSignalPostsEachFireUntilCancelled() {
        let request = NetworkRequest()
        let screen = DominoNode(label: "screen"), progress = Log<Double>()
        screen.subscribe(DownloadProgressed.self, on: .postingThread) { progress.append($0.fraction) }
        let connection = showProgress(of: request, on: screen)
        request.finish(with: nil, error: nil)
        connection.cancel()
        request.finish(with: nil, error: nil)
        #expect(progress.entries == [1.0])
    }

    // MARK: Domino in main-actor app code

    @Test @MainActor func albumControllerHandlesLikesRequestsAndRoutedNamesOnTheMainActor() {
        let album = AlbumViewController()
        album.viewDidLoad()
        let cell = DominoNode(label: "cell")
        cell.mount(at: album.domino)
        let result = likeOnTheMainThread(in: cell)
        #expect(result.ran == 1)
        #expect(result.scheduled == 0)
        #expect(album.likes == 1)
        cell.post(.openPhoto, arguments: "IMG_1")
        #expect(album.opened == ["IMG_1"])
        #expect(albumTitle(below: cell) == "Holidays")
    }

    @Test @MainActor func albumControllerGetsLikesFromOtherThreadsLaterAndAnswersAwaitedRequests() async throws {
        let album = AlbumViewController()
        album.viewDidLoad()
        let cell = DominoNode(label: "cell")
        cell.mount(at: album.domino)
        let result = onAnotherThread { likeFromTheNetwork(in: cell) }
        #expect(result.scheduled == 1)
        #expect(result.description == "delivered to 1 handler(s) (1 scheduled) over 2 node(s)")
        #expect(album.likes == 0)
        await mainQueueHasRunWhatWasQueuedBefore()
        #expect(album.likes == 1)
        #expect(onAnotherThread { cell.request(CurrentAlbum()) } == nil)
        #expect(try await Task.detached { try await albumTitleFromAnywhere(below: cell) }.value == "Holidays")
    }

    @Test @MainActor func flowCoordinatorsChainOnTheMainActor() {
        let app = FlowCoordinator(name: "app"), checkout = FlowCoordinator(name: "checkout")
        checkout.parent = app
        let log = Log<String>()
        app.domino.subscribe(PhotoLiked.self) { _ in log.append("app") }
        checkout.domino.post(PhotoLiked(count: 1))
        #expect(log.entries == ["app"])
        withExtendedLifetime(app) {}
    }

    @Test func uploadServiceAnswersItsQuotaOnAnyThread() async throws {
        let service = UploadService()
        let node = service.domino
        #expect(await Task.detached { node.request(UploadQuota()) }.value == 100)
        #expect(onAnotherThread { node.request(UploadQuota()) } == 100)
    }
}
