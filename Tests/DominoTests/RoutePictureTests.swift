import Foundation
import Testing
@testable import Domino

/// The path of Graphviz's `dot`, when the system has it (CI installs it).
private let graphviz: String? = ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite("Route pictures: DOT and Mermaid", .checksLeaks)
struct RoutePictureTests {
    /// root > [a > [leaf], b]; the leaf is also mounted at b (a DAG).
    private func scene() -> [DominoNode] {
        let root = DominoNode(label: "root"), a = DominoNode(label: "a \"quoted\"")
        let b = DominoNode(label: "b"), leaf = DominoNode(label: "leaf")
        a.mount(at: root)
        b.mount(at: root)
        leaf.mount(at: a)
        leaf.mount(at: b)
        return [root, a, b, leaf]
    }

    @Test func dotDiagramHasEveryNodeEveryLinkAndTheRouteHighlighted() {
        let nodes = scene()
        let dot = nodes[0].dotDiagram(highlighting: nodes[2].routeNodes)   // b, root
        #expect(dot.hasPrefix("digraph domino {"))
        #expect(dot.contains("n1 [label=\"a \\\"quoted\\\"\"];"))
        #expect(dot.contains("n0 [label=\"root\", style=\"rounded,filled\""))
        #expect(dot.contains("n3 [label=\"b\", style=\"rounded,filled\""))
        #expect(dot.contains("n3 -> n0 [color=\"#d9480f\", penwidth=2];"))   // b -> root, on the route
        #expect(dot.contains("n1 -> n0;"))
        #expect(dot.contains("n2 -> n1;"))                                   // leaf -> a
        #expect(dot.contains("n2 -> n3;"))                                   // leaf -> b
        #expect(dot.components(separatedBy: "->").count - 1 == 4)
    }

    @Test func mermaidDiagramFollowsTheFlowchartGrammar() throws {
        let nodes = scene()
        let mermaid = nodes[0].mermaidDiagram(highlighting: nodes[3].routeNodes)
        let lines = mermaid.split(separator: "\n").map(String.init)
        #expect(lines.first == "flowchart BT")
        let node = try Regex(#"^  n\d+\["[^"]*"\]$"#)
        let edge = try Regex(#"^  n\d+ (-->|-.->|==>) n\d+$"#)
        let classDef = try Regex(#"^  classDef route [a-z-]+:[#\w]+(,[a-z-]+:[#\w]+)*$"#)
        let classUse = try Regex(#"^  class n\d+(,n\d+)* route$"#)
        for line in lines.dropFirst() {
            let matches = line.wholeMatch(of: node) != nil || line.wholeMatch(of: edge) != nil
                || line.wholeMatch(of: classDef) != nil || line.wholeMatch(of: classUse) != nil
            #expect(matches, "not Mermaid flowchart syntax: \(line)")
        }
        #expect(mermaid.contains("n1[\"a #quot;quoted#quot;\"]"))
        #expect(mermaid.contains("class n0,n1,n2,n3 route"))    // leaf, a, root, b: all on the route
        #expect(mermaid.contains("n2 ==> n1"))
    }

    @Test @MainActor func responderChainLinksAreDashed() {
        let window = SimWindow("window")
        let controller = SimViewController("controller")
        window.rootViewController = controller
        _ = controller.dominoNode
        window.dominoNode.refreshResponderChain()
        controller.dominoNode.refreshResponderChain()
        let dot = window.dominoNode.dotDiagram()
        #expect(dot.contains("n1 -> n0 [style=dashed];"))
        #expect(window.dominoNode.mermaidDiagram().contains("n1 -.-> n0"))
    }

    @Test(.enabled(if: graphviz != nil, "Graphviz is not installed here; .ci/run installs it"))
    func graphvizRendersTheDotDiagram() throws {
        let nodes = scene()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: graphviz!)
        process.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(nodes[0].dotDiagram(highlighting: nodes[3].routeNodes).utf8))
        try input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(problems)")
        #expect(problems.isEmpty, "\(problems)")
        #expect(String(decoding: svg, as: UTF8.self).contains("<svg"))
    }
}
