import Domino

/// Draws the node tree from `root` down, marking what each node did for one event,
/// as read from the trace records of that event.
func drawTree(from root: DominoNode, route: [DominoNode], marks records: [TraceRecord]) -> String {
    var marks: [String: [String]] = [:]
    let onRoute = Set(route.map { ObjectIdentifier($0) })
    for record in records {
        let mark: String
        let kind = record.kind
        switch kind {
        case .posted: mark = "◆ posted here"
        case .broadcast: mark = "◆ broadcast from here"
        case .raised: mark = "◆ raised here"
        case .requested: mark = "◆ requested here"
        case .delivered: mark = "● delivered"
        case .scheduled: mark = "○ scheduled"
        case .unhandled: mark = "· reached no handler"
        case .unanswered: mark = "· unanswered"
        case .reported: mark = "◆ reported here"
        case .handled: mark = "← handled"
        default:
            if let reason = kind.stopReason {
                mark = "✕ stopped (\(reason))"
            } else if let answer = kind.answer {
                mark = "← answered \"\(answer)\""
            } else if kind.reformedValues != nil {
                mark = "~ reformed"
            } else if kind.transformedErrors != nil {
                mark = "~ transformed"
            } else {
                mark = "· \(kind)"
            }
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
