extension DominoNode {
    /// A textual dump of this node and every node below it, for debugging: one line
    /// per node, indented by depth, with what is registered there.
    ///
    /// ```swift
    /// print(windowNode.subtreeDescription)
    /// // Window
    /// //   RootViewController  [ContentDidLoad: 1 subscriber; FetchChannelID: 1 responder]
    /// //     ContainerViewController  [ContentDidLoad: 1 subscriber, 1 interceptor]
    /// ```
    ///
    /// Nodes come in the order a broadcast visits them; a node below several parents
    /// is listed once, under the first. Handlers in the capture or raise phase are
    /// marked so.
    public var subtreeDescription: String {
        graphLock.withShared {
            var lines: [String] = []
            var visited = Set<NodeLink>()
            Route.walkDown(from: [NodeLink(self)], visited: &visited) { node, depth in
                var line = String(repeating: "  ", count: depth) + node.description
                var slots: [String] = []
                node.slots.forEach { slots.append(Self.summary(of: $0)) }
                if !slots.isEmpty { line += "  [" + slots.joined(separator: "; ") + "]" }
                lines.append(line)
            }
            return lines.joined(separator: "\n")
        }
    }

    /// `Name: 2 subscribers, 1 interceptor` for one slot. Lock held; runs no user code.
    private static func summary(of slot: Slot) -> String {
        var anyHandler: Subscription?
        slot.table.forEachHandler { if anyHandler == nil { anyHandler = $0 } }
        var name = slot.key.displayName(typeName: anyHandler?.payloadName ?? "?")
        if slot.key != .group, slot.key.phase != .bubble { name += " (\(slot.key.phase))" }
        func count(_ number: Int, _ noun: String) -> String? {
            number == 0 ? nil : "\(number) \(noun)\(number == 1 ? "" : "s")"
        }
        let counts = [
            count(slot.table.subscribers.count, "subscriber"),
            count(slot.table.reformers.count, "reformer"),
            count(slot.table.interceptors.count, "interceptor"),
            count(slot.table.responders.count, "responder"),
        ].compactMap { $0 }
        return name + ": " + counts.joined(separator: ", ")
    }
}
