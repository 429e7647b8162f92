import Testing
import Domino
import Foundation

// The README's quick start, verbatim between the markers, so it keeps compiling.
// README-QUICK-START-BEGIN
struct ContentDidLoad: Event {
    var itemCount: Int
}

struct FetchChannelID: Request {
    typealias Response = String
}

@MainActor final class ContainerViewController {
    let domino = DominoNode(label: "container")
    let channelID = "channel-42"
    var itemCount = 0

    func viewDidLoad() {
        // Written in main-actor code, handlers run on the main actor: they may touch
        // the controller's state. Owner-bound: no [weak self]; they end with it.
        domino.subscribe(ContentDidLoad.self, owner: self) { container, event in
            container.itemCount = event.itemCount
        }
        domino.respond(to: FetchChannelID.self, owner: self) { container, _ in
            container.channelID
        }
    }
}

@MainActor final class ContentViewController {
    let domino = DominoNode(label: "content")

    func viewDidLoad() {
        domino.post(ContentDidLoad(itemCount: 12))                 // typed event, up the chain
        domino.post("Statistics", ["msg": "did load"])             // named event
        let channel = domino.request(FetchChannelID())             // first answer wins
        print("channel:", channel ?? "none")
    }
}

@MainActor func quickStart() -> ContainerViewController {
    let container = ContainerViewController()
    let content = ContentViewController()
    container.viewDidLoad()
    content.domino.mount(at: container.domino)   // or follow a responder chain
    content.viewDidLoad()                        // container.itemCount == 12
    return container
}
// README-QUICK-START-END

@Suite("README", .checksLeaks)
struct ReadmeTests {
    @Test @MainActor func quickStartDeliversTheTypedEventToTheContainer() {
        // The handlers were written in main-actor code and this test runs on the main
        // actor, so delivery is in place, as on an app's main thread.
        let container = quickStart()
        #expect(container.itemCount == 12)
    }

    @Test @MainActor func quickStartContainerAnswersTheChannelRequestFromBelow() {
        let container = ContainerViewController()
        container.viewDidLoad()
        let content = ContentViewController()
        content.domino.mount(at: container.domino)
        #expect(content.domino.request(FetchChannelID()) == "channel-42")
    }

    @Test func quickStartInTheReadmeIsTheCodeThisFileCompiles() throws {
        let readme = try String(contentsOfFile: #filePath.replacingOccurrences(of: "Tests/DominoTests/ReadmeTests.swift", with: "README.md"), encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        func between(_ text: String, _ begin: String, _ end: String) -> String? {
            guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else { return nil }
            return String(text[start.upperBound..<stop.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let inSource = between(source, "// README-QUICK-START-BEGIN", "// README-QUICK-START-END")
        let inReadme = between(readme, "<!-- quick-start -->\n```swift", "```")
        #expect(inSource != nil)
        #expect(inSource == inReadme)
    }
}
