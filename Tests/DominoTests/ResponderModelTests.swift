import Foundation
import Testing
@testable import Domino

// Model-based testing of routes along responder chains (the model and its driver are
// in ResponderModel.swift, which the fuzzer compiles too). Seeded and reproducible: a
// divergence prints its seed; replay one sequence with
// DOMINO_RESPONDER_MODEL_SEED=<seed> swift test --filter ResponderModelTests.

@Suite("Model-based: routes along responder chains against a model", .checksLeaks)
struct ResponderModelTests {
    @MainActor @Test func randomSequencesOfViewsMovedAndReleasedRouteAsTheModelSaysOnTheMainThread() {
        Self.checkSequences(anyThread: false)
    }

    @Test func randomSequencesOfModelObjectsRouteAsTheModelSaysOnAnotherThread() {
        // Chains any thread reads, posted from a thread of the test pool: the walks
        // read them there (each census for walks off the main thread), and walks down
        // on other threads (the main-thread run's, other suites') read them too.
        #expect(!Thread.isMainThread)
        // Each chain's link is resolved now and then by walks on two threads at once
        // (this run's and the main-thread run's walks down read each other's links):
        // an older reading must never overwrite a newer one (see
        // `ResponderRegistry.takeResolutionTicket()`).
        Self.checkSequences(anyThread: true)
    }

    static func checkSequences(anyThread: Bool) {
        if let replay = ProcessInfo.processInfo.environment["DOMINO_RESPONDER_MODEL_SEED"].flatMap(UInt64.init) {
            #expect(Self.divergence(seed: replay, anyThread: anyThread) == nil)
            return
        }
        let count = ProcessInfo.processInfo.environment["DOMINO_RESPONDER_MODEL_SEQUENCES"].flatMap(Int.init) ?? 1_000
        for index in 0..<count {
            let seed = 0xBEEF_0000 + UInt64(index)
            if let divergence = Self.divergence(seed: seed, anyThread: anyThread) {
                Issue.record("Seed \(seed) diverges\(anyThread ? " on another thread" : " on the main thread") (replay: DOMINO_RESPONDER_MODEL_SEED=\(seed) swift test --filter ResponderModelTests):\n\(divergence)")
                return
            }
        }
    }

    @MainActor @Test func theModelAndTheLibraryBothFollowAViewsLinkAndNotOneCut() {
        // The comparison is not vacuous: a post from a view's node reaches the node its
        // chain leads to, in the library and in the model, and once the link is cut,
        // in neither.
        let button = ModelView()
        let card = ModelView()
        button.next = card
        let buttonNode = DominoNode(label: "v0", responder: button)
        let cardNode = DominoNode(label: "v1", responder: card)
        var model = ResponderModel()
        model.views = [0, 1]
        model.next = [0: 1]
        model.nodes = [0, 1]
        model.responderNodes = [0, 1]
        model.subscriptions = [(7, 1)]
        let recorder = LibraryUnderTest.Recorder()
        cardNode.subscribe(ModelEvent.self, on: .postingThread) { recorder.log.append("7:\($0.value)") }
        buttonNode.post(ModelEvent(value: 1))
        #expect(recorder.log == ["7:1"])
        #expect(model.post(1, at: 0) == ["7:1"])
        button.next = nil
        model.next[0] = nil
        buttonNode.post(ModelEvent(value: 2))
        #expect(recorder.log == ["7:1"])
        #expect(model.post(2, at: 0).isEmpty)
        withExtendedLifetime(card) {}
    }

    /// Runs the sequence of `seed`; returns the first divergence.
    static func divergence(seed: UInt64, anyThread: Bool) -> String? {
        var random = SeededGenerator(seed: seed)
        return responderModelDivergence(using: &random, anyThread: anyThread)
    }
}
