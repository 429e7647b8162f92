import Testing
@testable import Domino

/// A protocol of main-actor methods, as a view controller's delegate protocol is.
@MainActor protocol ScreenEvents: AnyObject {
    func screenDidAppear(_ name: String)
    func currentTitle() -> String?
}

/// A main-actor target with main-actor state, written as app code is.
@MainActor final class ScreenController: ScreenEvents {
    let domino = DominoNode(label: "screen")
    var appeared: [String] = []
    var title: String? = "Inbox"

    init() {
        domino.subscribe(ScreenEvents.self, target: self)
    }

    func screenDidAppear(_ name: String) { appeared.append(name) }
    func currentTitle() -> String? { title }
}

/// An actor's target for a nonisolated protocol: it lives on the actor.
protocol ActorEvents: AnyObject {
    func didTick(_ count: Int)
}

actor TickCounter {
    final class Target: ActorEvents {
        var total = 0
        func didTick(_ count: Int) { total += count }
    }

    let domino = DominoNode(label: "ticks")
    let target = Target()

    func subscribe() { domino.subscribe(ActorEvents.self, target: target) }

    func tick(_ count: Int) -> PostResult { domino.post(ActorEvents.self) { $0.didTick(count) } }

    var total: Int { target.total }
}

@Suite("Protocol events in isolated code", .checksLeaks)
struct ProtocolEventIsolationTests {
    @MainActor @Test func mainActorTargetIsCalledInPlaceByAPostFromTheMainActor() {
        let controller = ScreenController()
        let child = DominoNode(label: "child")
        child.mount(at: controller.domino)
        let result = child.post(ScreenEvents.self) { $0.screenDidAppear("inbox") }
        #expect(controller.appeared == ["inbox"])
        #expect(result.ran == 1)
    }

    @MainActor @Test func mainActorTargetAnswersARequestFromTheMainActor() {
        let controller = ScreenController()
        #expect(controller.domino.request(ScreenEvents.self) { $0.currentTitle() } == "Inbox")
    }

    @MainActor @Test func mainActorTargetIsPassedByWhenPostedOffTheMainThreadAndReported() async {
        let controller = ScreenController()
        let node = controller.domino
        // The test body is on the main actor; the detached task is not.
        let diagnostics = await Task.detached {
            Diagnostics.capture {
                // Nonisolated code cannot call ScreenEvents' methods; this closure
                // calls none, and the main-actor target must still not be called.
                node.post(ScreenEvents.self) { _ in Issue.record("a main-actor target was called off the main thread") }
            }
        }.value
        #expect(controller.appeared.isEmpty)
        #expect(diagnostics.map(\.code) == [.targetSkipped])
        #expect(diagnostics.first?.message.contains("the main actor") == true)
    }

    @MainActor @Test func mainActorTargetIsNotAskedByARequestOffTheMainThread() async {
        let controller = ScreenController()
        let node = controller.domino
        let (answer, diagnostics) = await Task.detached { () -> (Bool?, [Diagnostic]) in
            var answer: Bool?
            let diagnostics = Diagnostics.capture {
                answer = node.request(ScreenEvents.self) { _ -> Bool? in
                    Issue.record("a main-actor target was asked off the main thread")
                    return true
                }
            }
            return (answer, diagnostics)
        }.value
        #expect(answer == nil)
        #expect(diagnostics.map(\.code) == [.targetSkipped])
    }

    @Test func actorTargetIsCalledByAPostFromItsActor() async {
        let counter = TickCounter()
        await counter.subscribe()
        let result = await counter.tick(3)
        #expect(await counter.total == 3)
        #expect(result.ran == 1)
    }

    @Test func actorTargetIsPassedByWhenPostedFromElsewhere() async {
        let counter = TickCounter()
        await counter.subscribe()
        let node = counter.domino
        let diagnostics = await Task.detached {
            Diagnostics.capture {
                node.post(ActorEvents.self) { _ in Issue.record("an actor's target was called off its actor") }
            }
        }.value
        #expect(await counter.total == 0)
        #expect(diagnostics.map(\.code) == [.targetSkipped])
        #expect(diagnostics.first?.message.contains("actor TickCounter") == true)
    }
}
