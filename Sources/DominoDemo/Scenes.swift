import Domino
import DominoTesting
import Foundation

// The demo's other scenes, each one feature in a few lines: signals, async streams
// and requests, main-actor handlers, diagnostics, and EventRecorder for tests.

/// The demo's numbered scenes and the checks that make it exit non-zero on failure.
@MainActor final class Story {
    private(set) var failures: [String] = []
    private(set) var checks = 0
    private var scenes = 0

    func scene(_ title: String) {
        scenes += 1
        print("\n== \(scenes). \(title)\n")
    }

    func expect(_ condition: Bool, _ what: String) {
        checks += 1
        if !condition { failures.append(what) }
    }
}

/// Waits, for at most two seconds, until `condition` holds (work queued on the main
/// queue runs meanwhile).
@MainActor func waitUntil(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<200 where !condition() {
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

// MARK: - Signals

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class Download: Sendable {
    let onProgress = Signal<Double>()
    let onFinished = Signal<String, Int>()
}

@MainActor final class ProgressBar {
    var shown: [String] = []
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor func signalsScene(_ story: Story) {
    story.scene("Signals: a download owns typed signals; observers are objects, held weakly")
    let download = Download()
    let bar = ProgressBar()
    // Main-actor code: the callbacks run on the main actor and get the observer.
    download.onProgress.subscribe(bar) { bar, fraction in bar.shown.append("\(Int(fraction * 100))%") }
    download.onFinished.subscribe(bar) { bar, file, bytes in bar.shown.append("\(file) (\(bytes) bytes)") }
        .cancelsAfterNextFire = true
    for fraction in [0.25, 0.5, 1.0] { download.onProgress.fire(fraction) }
    download.onFinished.fire("report.pdf", 52_113)
    download.onFinished.fire("report.pdf", 52_113)      // the one-shot observer is gone
    print("  the progress bar saw: \(bar.shown.joined(separator: ", "))")
    story.expect(bar.shown == ["25%", "50%", "100%", "report.pdf (52113 bytes)"], "the progress bar saw each fire, and one finish")

    var late: ProgressBar? = ProgressBar()
    download.onProgress.subscribe(late!) { bar, fraction in bar.shown.append("\(Int(fraction * 100))%") }
        .firePreviousData()
    print("  an observer added late replays the last value: \(late!.shown.joined())")
    late = nil
    download.onProgress.fire(1.0)                       // the late observer is gone: it is dropped
    print("  after it deallocates, the signal has \(download.onProgress.subscriptionCount) observer (no removeObserver call)")

    story.expect(download.onProgress.subscriptionCount == 1, "a deallocated observer is dropped")
}

// MARK: - Async streams and requests

struct PriceChanged: Event {
    var price: Double
}

struct FetchQuote: Request {
    typealias Response = String
    var symbol: String
}

@MainActor func streamsScene(_ story: Story) async {
    story.scene("Async streams and requests: for await the events that reach a node")
    let market = DominoNode(label: "market")
    let ticker = DominoNode(label: "ticker")
    ticker.mount(at: market)

    let prices = market.stream(of: PriceChanged.self)     // subscribed from here on
    let reader = Task {
        var seen: [Double] = []
        for await change in prices {
            seen.append(change.price)
            if seen.count == 3 { break }                    // ends the subscription too
        }
        return seen
    }
    for price in [101.5, 102.25, 99.75] { ticker.post(PriceChanged(price: price)) }
    let seen = await reader.value
    print("  for await at market, posted at ticker below it: \(seen.map { "\($0)" }.joined(separator: ", "))")

    // An async responder: only `try await request(...)` waits for it.
    market.respond(to: FetchQuote.self) { request async in
        try? await Task.sleep(nanoseconds: 1_000_000)       // a network call, say
        return "\(request.symbol) 99.75"
    }
    let quote = try? await ticker.request(FetchQuote(symbol: "DOM"))
    print("  try await ticker.request(FetchQuote) answered by market's async responder: \(quote ?? "nil")")

    story.expect(seen == [101.5, 102.25, 99.75], "the stream saw the three prices in order")
    story.expect(quote == "DOM 99.75", "the async request was answered")
}

// MARK: - Main-actor handlers

struct MessageArrived: Event {
    var from: String
}

/// A view controller as an app writes it: main-actor state, touched by its handler.
@MainActor final class InboxViewController {
    let domino = DominoNode(label: "inbox")
    var unread = 0
    var ranOnMainQueue: [Bool] = []

    func viewDidLoad() {
        // No mode, no @Sendable, no MainActor.assumeIsolated: written here, it runs here.
        domino.subscribe(MessageArrived.self, owner: self) { inbox, _ in
            inbox.unread += 1
            inbox.ranOnMainQueue.append(isOnMainQueue())
        }
    }
}

/// Marks the main queue, which runs the main actor (the main thread in an app; on
/// Linux, an async program's main queue may be served by another thread).
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

@MainActor func mainActorScene(_ story: Story) async {
    story.scene("Main-actor handlers: written in main-actor code, they run on the main actor")
    let inbox = InboxViewController()
    inbox.viewDidLoad()
    let node = inbox.domino

    _ = isOnMainQueue()                                  // marks the main queue
    let here = node.post(MessageArrived(from: "ana"))
    print("  posted on the main actor: \(here); unread = \(inbox.unread) when post returned")
    let there = await Task.detached { node.post(MessageArrived(from: "ben")) }.value
    print("  posted from a background task: \(there); the main actor runs it next")
    let arrived = await waitUntil { inbox.unread == 2 }
    print("  unread = \(inbox.unread); each delivery ran on the main queue: \(inbox.ranOnMainQueue)")

    story.expect(here.ran == 1 && here.scheduled == 0, "a post on the main actor runs the main-actor handler in place")
    story.expect(there.scheduled == 1, "a background post schedules the main-actor handler")
    story.expect(arrived && inbox.ranOnMainQueue == [true, true], "both deliveries ran on the main queue")
}

// MARK: - Diagnostics

@MainActor func diagnosticsScene(_ story: Story) {
    story.scene("Diagnostics: misuse is reported, never a crash, and the app goes on")
    let screen = DominoNode(label: "screen")
    let list = DominoNode(label: "list")
    list.mount(at: screen)
    // Capture what this block reports (a real app sets Diagnostics.setHandler once;
    // by default they go to the unified log on Apple platforms, standard error elsewhere).
    let reported = Diagnostics.capture {
        screen.mount(at: screen)                          // a node mounted at itself
        screen.mount(at: list)                            // closes a cycle
        Diagnostics.reportsUnansweredRequests = true
        _ = list.request(FetchQuote(symbol: "DOM"))         // nobody answers
        Diagnostics.reportsUnansweredRequests = false
    }
    for diagnostic in reported { print("  \(diagnostic)") }
    let still = list.post(MessageArrived(from: "cara"))
    print("  and posts still work: \(still)")

    story.expect(reported.map(\.code) == [.mountAtSelf, .mountCycle, .unansweredRequest],
                 "the three misuses were reported in order: \(reported.map(\.code))")
    story.expect(still.nodesVisited == 2, "the cycle did not make a post loop")
}

// MARK: - EventRecorder, for tests

@MainActor func recorderScene(_ story: Story) {
    story.scene("EventRecorder (DominoTesting): what reached which node, for your tests")
    let nodes = ["cell", "list", "screen"].map { DominoNode(label: $0) }
    nodes[0].mount(at: nodes[1])
    nodes[1].mount(at: nodes[2])
    nodes[1].reform(FundSelected.self) { $0.code = $0.code.lowercased() }

    let recorder = EventRecorder()
    recorder.record(FundSelected.self, at: Array(nodes[1...]))
    nodes[0].post(FundSelected(code: "F001"))
    print("  recorder.nodes = \(recorder.nodes)")
    print("  recorder.values(of: FundSelected.self).map(\\.code) = \(recorder.values(of: FundSelected.self).map(\.code))")
    print("  (in a test: #expect(recorder.nodes == [\"list\", \"screen\"]))")

    story.expect(recorder.nodes == ["list", "screen"], "the recorder saw the event at list, then screen")
    story.expect(recorder.values(of: FundSelected.self).map(\.code) == ["f001", "f001"], "the recorder kept the reformed values")
}
