import Testing
import Domino

// FundCell and FundViewController are the article's code, in DocumentationSnippets.swift.
@Suite("Routing named events by name (the responder-chain blog)", .checksLeaks)
struct RoutingByNameTests {
    @Test @MainActor func cellEventsReachTheControllersMethodsThroughTheResponderChain() {
        // Main-thread delivery is synchronous here, as on an app's main thread.
        let window = SimWindow("window")
        let controller = FundViewController("funds")
        window.rootViewController = controller
        let list = SimView("list")
        controller.view.addSubview(list)
        let cell = FundCell("cell")
        list.addSubview(cell)
        controller.viewDidLoad()

        cell.userDidTapFund(code: "F001", phone: nil, name: "Ann")
        cell.userDidTapLimit(500)
        cell.dominoNode.post(.selectMinBuyAmount, arguments: 100.0)
        #expect(controller.selections == ["fund F001 for Ann (no phone)", "limit 500", "minimum 100.0"])
    }

    @Test func nilArgumentKeepsItsPlaceAndMissingOnesReadAsNil() {
        let node = DominoNode(label: "n")
        let seen = Log<String>()
        node.subscribe("Pick", on: .postingThread) { event in
            seen.append("\(event.arguments.count) \(event.argument(0, as: String.self) ?? "nil") \(event.argument(1, as: String.self) ?? "nil") \(event.argument(2, as: String.self) ?? "nil") \(event.argument(9, as: String.self) ?? "nil")")
        }
        let phone: String? = nil
        node.post("Pick", arguments: "F001", phone, "Ann")
        #expect(seen.entries == ["3 F001 nil Ann nil"])
    }

    @Test func routedMethodsEndWithTheirOwner() {
        let node = DominoNode(label: "n")
        final class Owner: @unchecked Sendable {
            let log: Log<String>
            init(_ log: Log<String>) { self.log = log }
            func didPick(_ event: NamedEvent) { log.append(event.description) }
        }
        let log = Log<String>()
        var owner: Owner? = Owner(log)
        let subscriptions = node.route(["Pick": Owner.didPick], to: owner!, on: .postingThread)
        node.post("Pick", arguments: 1, nil, "x")
        owner = nil
        node.post("Pick", arguments: 2)
        #expect(log.entries == ["Pick(1, nil, x)"])
        #expect(subscriptions.allSatisfy { !$0.isActive })
    }

    @Test func routingSnippetInTheResponderChainArticleIsTheCodeTheseTestsRun() throws {
        let (article, compiled) = try articleAndCompiledSnippet("routing-by-name", article: "TheResponderChain")
        #expect(article != nil)
        #expect(article == compiled)
    }
}
