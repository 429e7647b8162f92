import Foundation
import Testing
@testable import Domino

@Suite("Duplicate subscriptions", .checksLeaks)
struct DuplicateSubscriptionTests {
    @Test func ownerSubscribedTwiceForTheSameEventIsReportedOnce() {
        let node = DominoNode(label: "screen")
        let owner = Host("owner")
        let diagnostics = Diagnostics.capture {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        }
        #expect(diagnostics.map(\.code) == [.duplicateSubscription])
        #expect(diagnostics.first?.message.contains("Host was subscribed to Ping at screen again") == true)
    }

    @Test func bothSubscriptionsOfADuplicateStayAndRun() {
        let node = DominoNode()
        let owner = Host("owner")
        let counter = Counter()
        Diagnostics.capture {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in counter.increment() }
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in counter.increment() }
        }
        node.post(Ping(value: 1))
        #expect(counter.value == 2)
    }

    @Test func differentOwnersEventsAndPhasesAreNotDuplicates() {
        let node = DominoNode()
        let first = Host("first"), second = Host("second")
        let diagnostics = Diagnostics.capture {
            node.subscribe(Ping.self, owner: first, on: .postingThread) { _, _ in }
            node.subscribe(Ping.self, owner: second, on: .postingThread) { _, _ in }
            node.subscribe(Pong.self, owner: first, on: .postingThread) { _, _ in }
            node.subscribe(Ping.self, owner: first, phase: .capture, on: .postingThread) { _, _ in }
            node.subscribe("Named", owner: first, on: .postingThread) { _, _ in }
            node.subscribe(Ping.self, on: .postingThread) { _ in }
            node.subscribe(Ping.self, on: .postingThread) { _ in }   // closures without an owner: not compared
        }
        #expect(diagnostics.isEmpty)
    }

    @Test func theSameOwnerAtTwoNodesIsNotADuplicate() {
        let nodes = makeChain(2)
        let owner = Host("owner")
        let diagnostics = Diagnostics.capture {
            nodes[0].subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            nodes[1].subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        }
        #expect(diagnostics.isEmpty)
    }

    /// Slots with few handlers scan them; slots with more than `HandlerList.scanLimit`
    /// index them: these tests run with the slot in either state.
    static let fillers = [0, HandlerList.scanLimit + 4]

    /// Subscribes `count` other owners (kept alive by the returned array) at `node`.
    private func fill(_ node: DominoNode, with count: Int) -> [Host] {
        let others = (0..<count).map { Host("other \($0)") }
        for other in others { node.subscribe(Ping.self, owner: other, on: .postingThread) { _, _ in } }
        return others
    }

    @Test(arguments: fillers) func ownerSubscribedTwiceIsReportedWhateverTheSlotHolds(filler: Int) {
        let node = DominoNode()
        let others = fill(node, with: filler)
        let owner = Host("owner")
        let diagnostics = Diagnostics.capture {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        }
        #expect(diagnostics.map(\.code) == [.duplicateSubscription])
        withExtendedLifetime(others) {}
    }

    @Test(arguments: fillers) func ownerSubscribedAgainAfterCancellingIsNotReported(filler: Int) {
        let node = DominoNode()
        let others = fill(node, with: filler)
        defer { withExtendedLifetime(others) {} }
        let owner = Host("owner")
        let diagnostics = Diagnostics.capture {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }.cancel()
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            node.unsubscribe(Ping.self)
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            node.clearAllSubscribers()
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        }
        #expect(diagnostics.isEmpty)
    }

    @Test func anOwnerIndexedBeforeItsListMovedToLargerStorageIsFoundWhenSubscribedAgain() {
        // The index of bound handlers lives in the list's storage; a list that grows
        // moves to a fresh storage, whose index is rebuilt from the handlers.
        let node = DominoNode()
        var others = fill(node, with: HandlerList.scanLimit + 4)
        let owner = Host("owner")
        node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        others += fill(node, with: 200)
        let diagnostics = Diagnostics.capture {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        }
        #expect(diagnostics.map(\.code) == [.duplicateSubscription])
        withExtendedLifetime(others) {}
    }

#if canImport(ObjectiveC)
    @Test(
        .disabled(if: addressSanitizerIsActive, "the address sanitizer's quarantine never hands a freed address out again, so no owner can reuse one"),
        arguments: [HandlerList.scanLimit / 2, 200]
    ) func aNewOwnerAtTheAddressOfADeadOneIsNotADuplicate(owners: Int) {
        // Owners die without a post to purge their subscriptions, so each new owner
        // may take the address of one whose subscription is still in the slot.
        // Tried on fresh nodes until an address is reused: with tests running on
        // other threads, another allocation can take each freed block first (seen in
        // CI: 8 owners, no reuse).
        final class Owner: Sendable { let padding = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }
        var node = DominoNode()
        var reused = false
        var diagnostics: [Diagnostic] = []
        for _ in 0..<50 where !reused {
            node = DominoNode()
            var addresses = Set<ObjectIdentifier>()
            diagnostics += Diagnostics.capture {
                for _ in 0..<owners {
                    let owner = Owner()
                    reused = !addresses.insert(ObjectIdentifier(owner)).inserted || reused
                    node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
                }
            }
        }
        #expect(diagnostics.count == 0)
        #expect(reused, "no address was reused: the test proved nothing")
        // A live owner subscribed twice after all that is still found.
        let owner = Owner()
        let again = Diagnostics.capture {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        }
        #expect(again.map(\.code) == [.duplicateSubscription])
    }
#else
    @Test func aDeadOwnersAddressIsNotTakenByANewOwnerWhileItsSubscriptionRemains() {
        // Owners are held as signals hold observers (OwnerReference: `unowned` on
        // Linux), so a dead owner's memory stays allocated while its subscription is
        // in the slot: no new owner can take its address and be taken for it (with a
        // `weak` reference, addresses were reused within a few hundred owners).
        final class Owner: Sendable { let padding = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }
        var reused = 0
        var diagnostics: [Diagnostic] = []
        var node = DominoNode()
        for _ in 0..<20 {
            node = DominoNode()
            var addresses = Set<ObjectIdentifier>()
            diagnostics += Diagnostics.capture {
                for _ in 0..<200 {
                    let owner = Owner()
                    if !addresses.insert(ObjectIdentifier(owner)).inserted { reused += 1 }
                    node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
                }
            }
        }
        #expect(reused == 0)
        #expect(diagnostics.isEmpty)
        // A live owner subscribed twice after all that is still found.
        let owner = Owner()
        let again = Diagnostics.capture {
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
            node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in }
        }
        #expect(again.map(\.code) == [.duplicateSubscription])
    }
#endif

    @Test func ownerBoundResponderRegisteredTwiceIsReported() {
        let node = DominoNode()
        let owner = Host("owner")
        let diagnostics = Diagnostics.capture {
            node.respond(to: Ask.self, owner: owner, on: .postingThread) { _, _ in "first" }
            node.respond(to: Ask.self, owner: owner, on: .postingThread) { _, _ in "second" }
        }
        #expect(diagnostics.map(\.code) == [.duplicateSubscription])
    }

    @Test func protocolTargetSubscribedTwiceIsReported() {
        let node = DominoNode(label: "container")
        let target = ContentTarget("target", log: Log())
        let diagnostics = Diagnostics.capture {
            node.subscribe(ContentEvents.self, target: target, on: .postingThread)
            node.subscribe(ContentEvents.self, target: target, on: .postingThread)
        }
        #expect(diagnostics.map(\.code) == [.duplicateSubscription])
        #expect(diagnostics.first?.message.contains("The target ContentTarget") == true)
    }

    @Test @MainActor func mainActorOwnerSubscribedTwiceIsReported() {
        let node = DominoNode()
        let screen = Screen()
        let diagnostics = Diagnostics.capture {
            node.subscribe(Ping.self, owner: screen) { _, _ in }
            node.subscribe(Ping.self, owner: screen) { _, _ in }
        }
        #expect(diagnostics.map(\.code) == [.duplicateSubscription])
        #expect(diagnostics.first?.message.contains("Screen was subscribed") == true)
    }

    @Test func subscribingManyOwnersAtOneNodeFindsEachDuplicate() {
        let node = DominoNode()
        let owners = (0..<2_000).map { Host("owner \($0)") }
        let diagnostics = Diagnostics.capture {
            for owner in owners { node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in } }
            for owner in owners.prefix(3) { node.subscribe(Ping.self, owner: owner, on: .postingThread) { _, _ in } }
        }
        #expect(diagnostics.map(\.code) == Array(repeating: .duplicateSubscription, count: 3))
    }
}

@MainActor private final class Screen {}

/// True when the process runs under the address sanitizer (its runtime is linked in).
let addressSanitizerIsActive: Bool = {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(process) }
    return dlsym(process, "__asan_init") != nil
}()
