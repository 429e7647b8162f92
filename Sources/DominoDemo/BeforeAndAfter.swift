import Domino
import Foundation

// One feature, three ways: a fund cell deep in a screen (root > container > content >
// list > cell) tells the screen's root controller which fund was tapped; the levels in
// between do not care. Two such screens are open at once. The demo runs the three,
// and counts each one's lines of code between its markers in this file.
//
// The levels are the demo's headless views and controllers (Responders.swift), which
// follow a responder chain as UIKit's do; each way adds only what it needs to them.

// MARK: - Delegates: every level in between forwards

// BEFORE-DELEGATES-BEGIN
@MainActor protocol FundCellDelegate: AnyObject {
    func fundCell(didSelect code: String)
}
@MainActor protocol FundListDelegate: AnyObject {
    func fundList(didSelect code: String)
}
@MainActor protocol FundContentDelegate: AnyObject {
    func content(didSelect code: String)
}
@MainActor protocol FundContainerDelegate: AnyObject {
    func container(didSelect code: String)
}

final class DelegatingFundCell: View {
    weak var delegate: FundCellDelegate?
    func tap(_ code: String) { delegate?.fundCell(didSelect: code) }
}

final class DelegatingFundList: View, FundCellDelegate {
    weak var delegate: FundListDelegate?
    func fundCell(didSelect code: String) { Forwarding.count(); delegate?.fundList(didSelect: code) }
}

final class DelegatingContent: ViewController, FundListDelegate {
    weak var delegate: FundContentDelegate?
    func fundList(didSelect code: String) { Forwarding.count(); delegate?.content(didSelect: code) }
}

final class DelegatingContainer: ViewController, FundContentDelegate {
    weak var delegate: FundContainerDelegate?
    func content(didSelect code: String) { Forwarding.count(); delegate?.container(didSelect: code) }
}

final class DelegateRoot: ViewController, FundContainerDelegate {
    var selected: [String] = []
    func container(didSelect code: String) { selected.append(code) }
}

/// Every level is told who its delegate is, when the screen is assembled.
@MainActor func wireDelegates(_ screen: Screen<DelegateRoot, DelegatingContainer, DelegatingContent, DelegatingFundList, DelegatingFundCell>) {
    screen.cell.delegate = screen.list
    screen.list.delegate = screen.content
    screen.content.delegate = screen.container
    screen.container.delegate = screen.root
}
// BEFORE-DELEGATES-END

// MARK: - NotificationCenter: one process-wide name

// BEFORE-NOTIFICATIONS-BEGIN
extension Notification.Name {
    static let fundSelected = Notification.Name("FundSelected")
}

final class NotifyingFundCell: View {
    func tap(_ code: String) {
        NotificationCenter.default.post(name: .fundSelected, object: self, userInfo: ["code": code])
    }
}

final class ObservingRoot: ViewController {
    var selected: [String] = []
    // Removed in deinit, which is nonisolated: hence unsafe.
    nonisolated(unsafe) private var observer: (any NSObjectProtocol)?

    func viewDidLoad() {
        // The block is @Sendable and may run on any thread: it cannot touch `selected`
        // without claiming the main actor, and `userInfo` is an untyped dictionary.
        observer = NotificationCenter.default.addObserver(forName: .fundSelected, object: nil, queue: nil) { [weak self] note in
            let code = note.userInfo?["code"] as? String ?? "?"
            MainActor.assumeIsolated { self?.selected.append(code) }
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }
}
// BEFORE-NOTIFICATIONS-END

// MARK: - Domino: post up the chain, subscribe where it matters

// AFTER-DOMINO-BEGIN
struct FundSelected: Event {
    var code: String
}

final class PostingFundCell: View {
    func tap(_ code: String) { dominoNode.post(FundSelected(code: code)) }
}

final class SubscribingRoot: ViewController {
    var selected: [String] = []
    func viewDidLoad() {
        dominoNode.subscribe(FundSelected.self, owner: self) { root, event in root.selected.append(event.code) }
    }
}
// AFTER-DOMINO-END

// MARK: - Running the three

/// Counts the calls made only to pass the event on.
@MainActor enum Forwarding {
    static var calls = 0
    static func count() { calls += 1 }
}

/// One screen: root > container > content > list > cell, as views and controllers.
@MainActor final class Screen<Root: ViewController, Container: ViewController, Content: ViewController, List: View, Cell: View> {
    let window = Window("Window")
    let root: Root, container: Container, content: Content, list: List, cell: Cell

    init(_ root: Root, _ container: Container, _ content: Content, _ list: List, _ cell: Cell) {
        (self.root, self.container, self.content, self.list, self.cell) = (root, container, content, list, cell)
        window.addSubview(root.view)
        root.addChild(container)
        container.addChild(content)
        content.view.addSubview(list)
        list.addSubview(cell)
    }
}

/// What one way did: its lines of code, the forwarding calls, and which screens'
/// roots heard the first screen's tap.
struct Outcome {
    var name: String
    var lines: Int?
    var forwards: Int
    var heard: [Bool]
}

@MainActor func beforeAndAfter(_ story: Story) {
    story.scene("Before and after: a fund cell tells its screen's root controller which fund was tapped")
    print("""
    Two screens are open, each root > container > content > list > cell; a cell of the
    first is tapped. The same feature three ways (Sources/DominoDemo/BeforeAndAfter.swift):

    """)

    var outcomes: [Outcome] = []

    Forwarding.calls = 0
    let delegateScreens = (0..<2).map { index in
        Screen(DelegateRoot("root \(index)"), DelegatingContainer("container"), DelegatingContent("content"), DelegatingFundList("list"), DelegatingFundCell("cell"))
    }
    delegateScreens.forEach(wireDelegates)
    delegateScreens[0].cell.tap("F001")
    outcomes.append(Outcome(name: "delegate chain", lines: linesOfCode(between: "BEFORE-DELEGATES"), forwards: Forwarding.calls,
                            heard: delegateScreens.map { $0.root.selected == ["F001"] }))

    let notifyingScreens = (0..<2).map { index in
        Screen(ObservingRoot("root \(index)"), ViewController("container"), ViewController("content"), View("list"), NotifyingFundCell("cell"))
    }
    notifyingScreens.forEach { $0.root.viewDidLoad() }
    notifyingScreens[0].cell.tap("F001")
    outcomes.append(Outcome(name: "NotificationCenter", lines: linesOfCode(between: "BEFORE-NOTIFICATIONS"), forwards: 0,
                            heard: notifyingScreens.map { $0.root.selected == ["F001"] }))

    let dominoScreens = (0..<2).map { index in
        Screen(SubscribingRoot("root \(index)"), ViewController("container"), ViewController("content"), View("list"), PostingFundCell("cell"))
    }
    dominoScreens.forEach { $0.root.viewDidLoad() }
    dominoScreens[0].cell.tap("F001")
    outcomes.append(Outcome(name: "Domino", lines: linesOfCode(between: "AFTER-DOMINO"), forwards: 0,
                            heard: dominoScreens.map { $0.root.selected == ["F001"] }))

    let header = ["way", "lines", "forwarding calls", "roots that heard the tap"]
    let rows = outcomes.map { outcome -> [String] in
        let heard = outcome.heard == [true, false] ? "its own"
            : outcome.heard == [true, true] ? "both (the other screen's too)" : "\(outcome.heard)"
        return [outcome.name, outcome.lines.map(String.init) ?? "?", "\(outcome.forwards)", heard]
    }
    for line in table([header] + rows) { print("  " + line) }
    print("""

    Delegates need a protocol, a weak property and a forwarding method at every level;
    NotificationCenter needs none, but every instance hears every post, values travel
    in an untyped dictionary, and Swift 6 makes the observer claim the main actor and
    remove itself. Domino: the event is a type, the subscriber is the root, and a post
    goes up its own chain only.
    """)

    story.expect(outcomes[0].heard == [true, false] && outcomes[0].forwards == 3,
                 "the delegate chain reaches its own root through 3 forwarding levels")
    story.expect(outcomes[1].heard == [true, true], "NotificationCenter reaches both screens' roots")
    story.expect(outcomes[2].heard == [true, false], "Domino reaches its own screen's root only")
    if let domino = outcomes[2].lines, let delegates = outcomes[0].lines, let notifications = outcomes[1].lines {
        story.expect(domino < notifications && notifications < delegates, "Domino's way is the shortest")
    }
}

/// The lines of code between `// NAME-BEGIN` and `// NAME-END` in this file, blank
/// lines and comments left out; nil when the source is not where it was built.
func linesOfCode(between name: String, file: String = #filePath) -> Int? {
    guard let source = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
    let lines = source.components(separatedBy: "\n")
    guard let begin = lines.firstIndex(of: "// \(name)-BEGIN"),
          let end = lines.firstIndex(of: "// \(name)-END"), begin < end else { return nil }
    return lines[(begin + 1)..<end].filter { line in
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return !trimmed.isEmpty && !trimmed.hasPrefix("//")
    }.count
}

/// Left-aligned columns, two spaces apart.
func table(_ rows: [[String]]) -> [String] {
    let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        zip(row, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
            .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
}
