import Foundation
import Testing
import Domino
import DominoTesting

// NetworkRequest and DownloadViewController are the Signals article's code, in
// DocumentationSnippets.swift; these tests run it.
@Suite("Signals article", .checksLeaks)
struct SignalsArticleTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func downloadControllerSeesProgressAndTheFirstResultOnly() {
        let request = NetworkRequest()
        let controller = DownloadViewController()
        controller.observe(request)
        request.finish(with: Data([1, 2, 3]), error: nil)
        request.finish(with: Data([1]), error: nil)
        #expect(controller.progress == 1.0)
        #expect(controller.bytes == 3)
        #expect(request.onResult.subscriptionCount == 0)
    }

    @Test func signalsSnippetInTheArticleIsTheCodeTheseTestsRun() throws {
        let (article, compiled) = try articleAndCompiledSnippet("signals", article: "Signals")
        #expect(article != nil)
        #expect(article == compiled)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func searchControllerSeesTheLastQueryOnceTypingPauses() async {
        let field = SearchField()
        let controller = SearchViewController()
        controller.observe(field)
        for text in ["s", "sw", "swi"] { field.onTextChange.fire(text) }
        #expect(await eventuallyOnMainActor { controller.query == "swi" })
    }

    // ManualSignalClock's documentation example, as written there.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func searchWaitsForTypingToPause() {
        let clock = ManualSignalClock()
        let field = SearchField(), controller = SearchViewController()
        clock.run { controller.observe(field) }   // its debounce(for:) uses the clock
        field.onTextChange.fire("sw")
        field.onTextChange.fire("swi")
        clock.advance(by: .milliseconds(300))
        #expect(controller.query == "swi")
    }

    @Test func operatorsSnippetInTheArticleIsTheCodeTheseTestsRun() throws {
        let (article, compiled) = try articleAndCompiledSnippet("signals-operators", article: "Signals")
        #expect(article != nil)
        #expect(article == compiled)
    }
}
