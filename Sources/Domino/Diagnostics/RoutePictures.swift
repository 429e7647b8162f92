/// Route pictures: a node's subtree as a Graphviz DOT or Mermaid diagram, with an
/// event's route highlighted, for docs, bug reports and code review (both render on
/// common code hosts).
///
/// ```swift
/// let dot = windowNode.dotDiagram(highlighting: managerNode.routeNodes)
/// let mermaid = windowNode.mermaidDiagram(highlighting: managerNode.routeNodes)
/// ```
///
/// Arrows point the way events go up: from a node to its parent. Links along a
/// responder chain are dashed; nodes and links on the route are highlighted.
extension DominoNode {
    /// The subtree below this node in Graphviz DOT, with `route` highlighted.
    public func dotDiagram(highlighting route: [DominoNode] = []) -> String {
        let picture = RoutePicture(root: self, route: route)
        var lines = [
            "digraph domino {",
            "  rankdir=BT;",
            "  node [shape=box, style=rounded, fontname=\"Helvetica\"];",
        ]
        for (index, node) in picture.nodes.enumerated() {
            let style = node.onRoute ? ", style=\"rounded,filled\", fillcolor=\"#ffe08a\", color=\"#d9480f\"" : ""
            lines.append("  n\(index) [label=\"\(Self.dotEscaped(node.label))\"\(style)];")
        }
        for edge in picture.edges {
            var attributes: [String] = []
            if edge.isResponderChain { attributes.append("style=dashed") }
            if edge.onRoute { attributes += ["color=\"#d9480f\"", "penwidth=2"] }
            let suffix = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
            lines.append("  n\(edge.from) -> n\(edge.to)\(suffix);")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// The subtree below this node as a Mermaid flowchart, with `route` highlighted.
    public func mermaidDiagram(highlighting route: [DominoNode] = []) -> String {
        let picture = RoutePicture(root: self, route: route)
        var lines = ["flowchart BT"]
        for (index, node) in picture.nodes.enumerated() {
            lines.append("  n\(index)[\"\(Self.mermaidEscaped(node.label))\"]")
        }
        for edge in picture.edges {
            let arrow = edge.onRoute ? "==>" : (edge.isResponderChain ? "-.->" : "-->")
            lines.append("  n\(edge.from) \(arrow) n\(edge.to)")
        }
        let highlighted = picture.nodes.indices.filter { picture.nodes[$0].onRoute }
        if !highlighted.isEmpty {
            lines.append("  classDef route fill:#ffe08a,stroke:#d9480f,stroke-width:2px")
            lines.append("  class \(highlighted.map { "n\($0)" }.joined(separator: ",")) route")
        }
        return lines.joined(separator: "\n")
    }

    private static func dotEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func mermaidEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "#quot;").replacingOccurrences(of: "\n", with: " ")
    }
}

/// A subtree read under the lock: nodes in walk order and the links between them.
private struct RoutePicture {
    struct Node {
        let label: String
        let onRoute: Bool
    }

    struct Edge {
        /// Indices into `nodes`: the child and the parent (or responder successor).
        let from: Int
        let to: Int
        let isResponderChain: Bool
        let onRoute: Bool
    }

    var nodes: [Node] = []
    var edges: [Edge] = []

    init(root: DominoNode, route: [DominoNode]) {
        // A link is on the route when both ends are and the parent comes later.
        var routeOrder: [ObjectIdentifier: Int] = [:]
        for (position, node) in route.enumerated() where routeOrder[ObjectIdentifier(node)] == nil {
            routeOrder[ObjectIdentifier(node)] = position
        }
        graphLock.withShared {
            var index: [NodeLink: Int] = [:]
            var order: [NodeLink] = []
            var visited = Set<NodeLink>()
            Route.walkDown(from: [NodeLink(root)], visited: &visited) { node, _ in
                let link = NodeLink(node)
                guard index[link] == nil else { return }
                index[link] = order.count
                order.append(link)
                nodes.append(Node(label: node.description, onRoute: routeOrder[link.id] != nil))
            }
            for link in order {
                link.withNode { node in
                    let from = index[link]!
                    let id = link.id
                    func add(_ parent: NodeLink, responder: Bool) {
                        guard let to = index[parent] else { return }
                        let parentID = parent.id
                        var onRoute = false
                        if let childStep = routeOrder[id], let parentStep = routeOrder[parentID] {
                            onRoute = parentStep > childStep
                        }
                        edges.append(Edge(from: from, to: to, isResponderChain: responder, onRoute: onRoute))
                    }
                    if let successor = node.responderLink?.successor { add(successor, responder: true) }
                    node.parentLinks.links.forEach { add($0, responder: false) }
                }
            }
        }
    }
}
