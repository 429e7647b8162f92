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
        let sources = try ["DocumentationSnippets.swift", "ConcurrencyArticleTests.swift"].map {
            try String(contentsOf: Self.testsFolder.appendingPathComponent($0), encoding: .utf8)
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

    @Test func gettingStartedDeliversTheSelection() {
        #expect(gettingStarted() == [7])
    }

    @Test func testingArticleAssertionsHold() {
        #expect(cellSelectionReachesTheList())
    }

    @Test func delegateChainReplacementReachesTheStoreThroughAListThatForwardsNothing() {
        let store = StoreController(), list = ProductList(), cell = BuyCell()
        list.domino.mount(at: store.domino)
        cell.domino.mount(at: list.domino)
        cell.tapBuy()
        #expect(store.bought == ["S-1"])
    }

    @Test func notificationCenterReplacementReachesOnlyTheBadgeAbove() {
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

    @Test func dominoMigrationPostsProtocolAndNamedEventsUpTheChain() {
        let container = MigratedContainerController(), content = MigratedContentController()
        content.domino.mount(at: container.domino)
        let records = Tracing.capture {
            container.domino.isTracing = true
            content.viewDidLoad()
        }
        #expect(records.filter { $0.kind == .delivered }.map(\.event) == ["ContentControllerEvents", "\"ContentViewControllerStatisticsEvent\""])
        #expect(records.contains { if case .reformed = $0.kind { return true }; return false })
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func signalsMigrationObservesProgressAndOneResult() {
        let download = ImageDownload(), controller = ImageViewController()
        controller.observe(download)
        download.onResult.fire(Data([1]), nil)
        download.onResult.fire(Data([2]), nil)
        #expect(download.onResult.observerCount == 0)
        #expect(download.onProgress.observerCount == 1)
    }
}
