import Testing
import Domino

// The responder-chain blog's example, ported: these names let the snippet below read
// as the UIKit code it is on Apple platforms.
typealias UIView = SimView
typealias UIViewController = SimViewController

// README-SNIPPET-BEGIN routing-by-name
extension EventName {
    static let selectLimit: EventName = "EventSelectLimit"
    static let selectMinBuyAmount: EventName = "EventSelectMinBuyAmount"
    static let selectFund: EventName = "EventSelectFundWithCode"
}

/// A cell deep in the view tree: no delegate chain, it routes its events up.
final class FundCell: UIView {
    func userDidTapFund(code: String, phone: String?, name: String?) {
        // Positional and nil-safe: a nil phone keeps its place.
        domino.post(.selectFund, arguments: code, phone, name)
    }

    func userDidTapLimit(_ limit: Int) {
        domino.post(.selectLimit, arguments: limit)
    }
}

final class FundViewController: UIViewController {
    private(set) var selections: [String] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        // The blog's name-to-selector table, checked by the compiler.
        domino.route([
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
// README-SNIPPET-END routing-by-name

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
        cell.domino.post(.selectMinBuyAmount, arguments: 100.0)
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

    @Test func routingSnippetInTheReadmeIsTheCodeThisFileCompiles() throws {
        #expect(try readmeSnippet("routing-by-name") == sourceSnippet("routing-by-name", in: #filePath))
    }
}
