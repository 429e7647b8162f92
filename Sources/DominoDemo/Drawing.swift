import Domino

/// Draws the node tree from `root` down, marking what each node did for one event,
/// as read from the trace records of that event.
func drawTree(from root: DominoNode, route: [DominoNode], marks records: [TraceRecord]) -> String {
    var marks: [String: [String]] = [:]
    let onRoute = Set(route.map { ObjectIdentifier($0) })
    for record in records {
        let mark: String
        switch record.kind {
        case .posted: mark = "◆ posted here"
        case .broadcast: mark = "◆ broadcast from here"
        case .raised: mark = "◆ raised here"
        case .requested: mark = "◆ requested here"
        case .delivered: mark = "● delivered"
        case .scheduled: mark = "○ scheduled"
        case .reformed: mark = "~ reformed"
        case .stopped(let reason): mark = "✕ stopped (\(reason))"
        case .answered(let answer): mark = "← answered \"\(answer)\""
        case .unhandled: mark = "· reached no handler"
        case .unanswered: mark = "· unanswered"
        case .reported: mark = "◆ reported here"
        case .transformed: mark = "~ transformed"
        case .handled: mark = "← handled"
        }
        marks[record.node, default: []].append(mark)
    }
    var lines: [String] = []
    // Iterative pre-order, children in mount order.
    var stack: [(node: DominoNode, prefix: String, isLast: Bool, isRoot: Bool)] = [(root, "", true, true)]
    while let (node, prefix, isLast, isRoot) = stack.popLast() {
        let branch = isRoot ? "" : (isLast ? "└─ " : "├─ ")
        let name = node.description
        let routeMark = onRoute.contains(ObjectIdentifier(node)) ? "  ↑ on route" : ""
        let noted = marks[name].map { "  " + $0.joined(separator: ", ") } ?? routeMark
        lines.append(prefix + branch + name + noted)
        let children = node.children
        let childPrefix = isRoot ? "" : prefix + (isLast ? "   " : "│  ")
        for (index, child) in children.enumerated().reversed() {
            stack.append((child, childPrefix, index == children.count - 1, false))
        }
    }
    return lines.joined(separator: "\n")
}
