import Testing
@_spi(DominoTesting) @testable import Domino

@Suite("Diagnostics", .checksLeaks)
struct DiagnosticsTests {
    /// Reports one `notMounted` diagnostic per call, each with the same message.
    private func unmountTwice(_ count: Int, _ node: DominoNode, from parent: DominoNode) {
        for _ in 0..<count { node.unmount(from: parent) }
    }

    @Test func scopedHandlerReceivesWhatItsBlockReports() {
        let received = Log<Diagnostic.Code>()
        let node = DominoNode(label: "scoped")
        Diagnostics.withHandler({ received.append($0.code) }) {
            node.mount(at: node)
        }
        node.mount(at: node)   // after the scope: the global handler's, not this one's
        #expect(received.entries == [.mountAtSelf])
    }

    @Test func captureInsideAScopedHandlerTakesTheDiagnosticsOfItsOwnBlock() {
        let received = Log<Diagnostic.Code>()
        let node = DominoNode()
        var captured: [Diagnostic] = []
        Diagnostics.withHandler({ received.append($0.code) }) {
            captured = Diagnostics.capture { node.mount(at: node) }
            node.unmount(from: DominoNode())
        }
        #expect(captured.map(\.code) == [.mountAtSelf])
        #expect(received.entries == [.notMounted])
    }

    @Test func scopedHandlerReturnsTheResultOfItsBlock() {
        let value = Diagnostics.withHandler({ _ in }) { 42 }
        #expect(value == 42)
    }

    @Test func aBurstOfIdenticalDiagnosticsReachesTheHandlerAsTheFirstThenACount() {
        let received = Log<Diagnostic>()
        let node = DominoNode(label: "child"), parent = DominoNode(label: "stranger")
        Diagnostics.withHandler({ received.append($0) }) {
            unmountTwice(65, node, from: parent)
        }
        #expect(received.entries.map(\.code) == [.notMounted, .notMounted])
        #expect(received.entries.map(\.repeats) == [0, 64])
        #expect(received.entries.last?.message == received.entries.first?.message)
        #expect(received.entries.last?.description.hasSuffix("(repeated 64 more times)") == true)
    }

    @Test func aDifferentDiagnosticEndsTheBurstAfterItsCount() {
        let received = Log<Diagnostic>()
        let node = DominoNode(label: "child"), parent = DominoNode(label: "stranger")
        Diagnostics.withHandler({ received.append($0) }) {
            unmountTwice(3, node, from: parent)
            node.mount(at: node)
            unmountTwice(1, node, from: parent)
        }
        #expect(received.entries.map(\.code) == [.notMounted, .notMounted, .mountAtSelf, .notMounted])
        #expect(received.entries.map(\.repeats) == [0, 2, 0, 0])
    }

    @Test func diagnosticsThatDifferOnlyInTheirMessageAreNotABurst() {
        let received = Log<Diagnostic>()
        let node = DominoNode(label: "child")
        Diagnostics.withHandler({ received.append($0) }) {
            node.unmount(from: DominoNode(label: "first"))
            node.unmount(from: DominoNode(label: "second"))
        }
        #expect(received.entries.map(\.repeats) == [0, 0])
    }

    @Test func anEndlessBurstIsCountedEveryThousandRepeats() {
        let received = Log<Diagnostic>()
        let node = DominoNode(label: "child"), parent = DominoNode(label: "stranger")
        Diagnostics.withHandler({ received.append($0) }) {
            unmountTwice(2_500, node, from: parent)
            #expect(received.entries.map(\.repeats) == [0, 1_000, 1_000])
        }
        #expect(received.entries.map(\.repeats) == [0, 1_000, 1_000, 499])
    }

    @Test func captureReturnsEveryDiagnosticOfABurst() {
        let node = DominoNode(label: "child"), parent = DominoNode(label: "stranger")
        let diagnostics = Diagnostics.capture { unmountTwice(65, node, from: parent) }
        #expect(diagnostics.count == 65)
        #expect(diagnostics.allSatisfy { $0.repeats == 0 })
    }

    @Test func everyDiagnosticSaysWhatToDo() {
        // One sentence at least after what happened: each message ends with advice.
        let nodes = makeChain(2)
        let owner = Host("owner")
        let diagnostics = Diagnostics.capture {
            nodes[0].mount(at: nodes[0])
            nodes[1].mount(at: nodes[0])
            nodes[0].unmount(from: DominoNode(label: "stranger"))
            nodes[0].subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            nodes[0].subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            Diagnostics.withUnansweredRequestsReported { _ = nodes[0].request(Ask(question: "q")) }
        }
        #expect(diagnostics.map(\.code) == [.mountAtSelf, .mountCycle, .notMounted, .duplicateSubscription, .unansweredRequest])
        let advice = ["Mount it at", "unmount one of its links", "Unmount it from", "Subscribe it once", "Give it a responder"]
        for (diagnostic, words) in zip(diagnostics, advice) {
            #expect(diagnostic.message.contains(words), "\(diagnostic.code): \(diagnostic.message)")
        }
        nodes[1].unmount(from: nodes[0])
    }

    @Test func codesCompareByNameAndAUserSwitchNeedsADefault() {
        let code = Diagnostic.Code.stopIgnored
        let kind: String
        switch code {
        case .mountAtSelf: kind = "graph"
        case .stopIgnored: kind = "delivery"
        default: kind = "other"
        }
        #expect(kind == "delivery")
        #expect(code == .stopIgnored && code != .mountCycle)
        #expect(code.rawValue == "stopIgnored")
        #expect(Set(Diagnostic.Code.allCases.map(\.rawValue)).count == Diagnostic.Code.allCases.count)
    }

    @Test func defaultHandlerPrintsTheDiagnosticsDescription() {
        let diagnostic = Diagnostic(.stopIgnored, message: "A stop was ignored.", repeats: 2)
        #expect(diagnostic.description == "Domino [stopIgnored]: A stop was ignored. (repeated 2 more times)")
    }
}

/// The global handler is shared: its test joins the suite whose other tests replace
/// it, which runs one test at a time.
extension LockReleaseTests {
    @Test func replacingTheGlobalHandlerHandsAPendingBurstCountToTheOldOne() {
        let received = Log<Diagnostic>()
        let node = DominoNode(label: "global-burst-child"), parent = DominoNode(label: "global-burst-parent")
        Diagnostics.setHandler { diagnostic in
            if diagnostic.message.contains("global-burst-child") { received.append(diagnostic) }
        }
        defer { Diagnostics.resetHandler() }
        for _ in 0..<10 { node.unmount(from: parent) }
        #expect(received.entries.first?.repeats == 0)
        Diagnostics.resetHandler()
        // Other suites' diagnostics may end the burst early (the count then comes
        // sooner), but every one of the ten is accounted for once the handler goes.
        // (A first report counts one; a count, the repeats it stands for.)
        #expect(received.entries.reduce(0) { $0 + ($1.repeats == 0 ? 1 : $1.repeats) } == 10)
    }
}
