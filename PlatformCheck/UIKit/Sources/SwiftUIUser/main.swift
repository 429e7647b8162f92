// The SwiftUI article's code (Sources/Domino/Documentation.docc/SwiftUI.md): each
// block between DOC-SNIPPET markers is copied byte for byte into the article, and
// DocumentationTests checks that they match. Built by PlatformCheck/check.sh against
// the stand-in SwiftUI and UIKit, warnings as errors; run, it checks the UIKit
// wiring (the stand-ins render nothing, so the views' bodies are typechecked only;
// the Linux tests cover what they do).
import Domino
import DominoSwiftUI
import SwiftUI
import UIKit

// DOC-SNIPPET-BEGIN swiftui-events
struct ContentDidLoad: Event {
    var itemCount: Int
}

struct ContentDidScroll: Event {
    var offset: Double
}

struct FetchChannelID: Request {
    typealias Response = String
}

extension EventName {
    static let selectFund: EventName = "EventSelectFundWithCode"
}
// DOC-SNIPPET-END swiftui-events

// DOC-SNIPPET-BEGIN swiftui-scene
struct RootView: View {
    @State private var log: [String] = []

    var body: some View {
        ContainerView()
            .subscribe(ContentDidLoad.self) { event in
                log.append("root saw \(event.itemCount) items")
            }
            .respond(to: FetchChannelID.self) { _ in "channel-42" }
            .dominoNode("root")
    }
}

struct ContainerView: View {
    var body: some View {
        ContentView()
            .subscribe(ContentDidScroll.self) { event, propagation in
                // The container keeps scrolling to itself.
                propagation.stop()
            }
            .dominoNode("container")
    }
}

struct ContentView: View {
    @Environment(\.domino) private var domino
    @State private var selected = ""

    var body: some View {
        VStack {
            Button("Load") { domino.post(ContentDidLoad(itemCount: 12)) }
            Button("Scroll") { domino.post(ContentDidScroll(offset: 120)) }
            FundCell(code: "000001")
        }
        .subscribe(.selectFund) { event, _ in
            selected = event.argument(0, as: String.self) ?? "?"
        }
        .dominoNode("content")
    }
}

/// No node of its own: it posts through the content's.
struct FundCell: View {
    @Environment(\.domino) private var domino
    let code: String

    var body: some View {
        Button(code) {
            domino.post(.selectFund, ["0": code])
            let channel = domino.request(FetchChannelID())
            print("channel", channel ?? "none")
        }
    }
}
// DOC-SNIPPET-END swiftui-scene

// DOC-SNIPPET-BEGIN swiftui-errors
struct NetworkError: Error {
    var isRetryable: Bool
}

struct ShowBanner: Event {
    var text: String
}

struct QuoteView: View {
    @Environment(\.domino) private var domino

    var body: some View {
        Button("Refresh") { domino.report(NetworkError(isRetryable: true)) }
    }
}

struct QuotesScreen: View {
    var body: some View {
        QuoteView()
            .receive(NetworkError.self) { error in
                error.isRetryable ? .handled : .notHandled
            }
            .catch(NetworkError.self) { _ in ShowBanner(text: "You are offline") }
            .dominoNode("quotes")
    }
}
// DOC-SNIPPET-END swiftui-errors

// DOC-SNIPPET-BEGIN swiftui-hosting
final class RootViewController: UIViewController {
    private(set) var loaded: [Int] = []

    override func viewDidLoad() {
        super.viewDidLoad()
        // UIKit answers what the SwiftUI views ask, up the responder chain.
        dominoNode.respond(to: FetchChannelID.self) { _ in "channel-42" }
        dominoNode.subscribe(ContentDidLoad.self, owner: self) { root, event in
            root.loaded.append(event.itemCount)
        }
        let host = UIHostingController(dominoRootView: ContainerView())
        addChild(host)
        view.addSubview(host.view)
    }
}
// DOC-SNIPPET-END swiftui-hosting

// DOC-SNIPPET-BEGIN swiftui-representable
/// A UIKit view shown in SwiftUI, posting with its own `dominoNode`.
final class ChartView: UIView {
    func userDidPinch() {
        dominoNode.post(ContentDidScroll(offset: 0))
    }
}

struct Chart: UIViewRepresentable {
    func makeUIView(context: Context) -> ChartView {
        ChartView(frame: .zero)
    }

    func updateUIView(_ chart: ChartView, context: Context) {
        // Up into the SwiftUI view that embeds it, then the hosting controller.
        context.environment.domino.embed(chart.dominoNode)
    }
}

struct ChartScreen: View {
    var body: some View {
        Chart()
            .subscribe(ContentDidScroll.self) { event in print("pinched", event.offset) }
            .dominoNode("chart screen")
    }
}
// DOC-SNIPPET-END swiftui-representable

// What the stand-ins can run: the UIKit wiring of the hosting controller.
let controller = RootViewController()
controller.loadViewIfNeeded()
guard let host = controller.children.first as? UIHostingController<DominoHostedRoot<ContainerView>>,
      host.rootView.node === host.dominoNode else {
    print("SwiftUIUser: the hosting controller's root view does not post through its dominoNode")
    exit(1)
}
let asked = DominoScope(host.rootView.node).request(FetchChannelID())
DominoScope(host.rootView.node).post(ContentDidLoad(itemCount: 12))
guard asked == "channel-42", controller.loaded == [12] else {
    print("SwiftUIUser: the hosted root did not reach the UIKit controller (\(asked ?? "nil"), \(controller.loaded))")
    exit(1)
}
_ = (RootView(), QuotesScreen(), ChartScreen())
print("SwiftUIUser: the hosted SwiftUI root posts and asks up the UIKit responder chain")
