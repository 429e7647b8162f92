import Testing
@testable import Domino

/// From inside a handler, every API on the handler's own node, its parent and its
/// child. The chain is child > node > parent > top; the post starts at the child; the
/// acting handler is the first Ping subscriber at `node` (for "cancel self", at the
/// target), and acts on the first Ping only.
///
/// The documented outcomes: a walk runs on the snapshot it collected when it started,
/// except that handlers ended on this thread during the walk (cancelled, or their
/// node deallocated) are not called afterwards.
enum ReentrantCall: String, CaseIterable, Sendable {
    case post, request, subscribe, cancelSelf, cancelOther, mount, unmount, deallocateHost
}

enum ReentrantTarget: String, CaseIterable, Sendable {
    case sameNode, parent, child
}

/// The chain and what its handlers saw.
private final class Scene: @unchecked Sendable {
    let top = StrongBox(Host("top"))
    let parent = StrongBox(Host("parent"))
    let node = StrongBox(Host("node"))
    let child = StrongBox(Host("child"))
    let extra = DominoNode(label: "extra")
    let log = Log<String>()

    init() {
        child.value!.domino.mount(at: node.value!.domino)
        node.value!.domino.mount(at: parent.value!.domino)
        parent.value!.domino.mount(at: top.value!.domino)
    }

    func box(_ target: ReentrantTarget) -> StrongBox<Host> {
        switch target {
        case .sameNode: return node
        case .parent: return parent
        case .child: return child
        }
    }

    func domino(_ target: ReentrantTarget) -> DominoNode { box(target).value!.domino }

    /// A Ping subscriber that logs `name`.
    @discardableResult
    func listen(at node: DominoNode, _ name: String) -> Subscription {
        let log = self.log
        return node.subscribe(Ping.self, on: .postingThread) { ping in log.append("\(name):\(ping.value)") }
    }

    func post(_ value: Int) -> PostResult {
        let origin = child.value!.domino
        return origin.post(Ping(value: value))
    }
}

@Suite("Reentrancy matrix", .checksLeaks)
struct ReentrancyMatrixTests {
    @Test(arguments: ReentrantCall.allCases, ReentrantTarget.allCases)
    func callFromInsideAHandler(_ call: ReentrantCall, _ target: ReentrantTarget) throws {
        let scene = Scene()
        let log = scene.log
        let acting = ActingHandler()
        let other = StrongBox<Subscription>(nil)

        // Handlers everywhere on the route, in subscription order. (No node is held
        // here: deallocating a host must deallocate its node.)
        scene.listen(at: scene.domino(.child), "child")
        acting.subscription = (call == .cancelSelf ? scene.domino(target) : scene.domino(.sameNode)).subscribe(Ping.self, on: .postingThread) { [unowned scene, unowned acting] ping in
            // Unowned: `acting` holds this subscription, which holds this closure.
            log.append("acting:\(ping.value)")
            guard ping.value == 1 else { return }
            Self.perform(call, on: target, in: scene, acting: acting, other: other)
        }
        let later = scene.listen(at: scene.domino(.sameNode), "later")
        scene.listen(at: scene.domino(.parent), "parent")
        scene.listen(at: scene.top.value!.domino, "top")
        // "Cancel other" ends a subscriber at the target: at the node it is "later".
        if call == .cancelOther {
            switch target {
            case .sameNode: other.value = later
            case .parent: other.value = scene.listen(at: scene.domino(.parent), "other")
            case .child: other.value = scene.listen(at: scene.domino(.child), "other")
            }
        }

        let diagnostics = Diagnostics.capture {
            _ = scene.post(1)
            if scene.child.value != nil { _ = scene.post(2) }
        }
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        #expect(log.entries == Self.expected(call, target), "\(call) on \(target)")
    }

    /// Does `call` on `target` from inside the acting handler.
    private static func perform(
        _ call: ReentrantCall, on target: ReentrantTarget, in scene: Scene,
        acting: ActingHandler, other: StrongBox<Subscription>
    ) {
        let node = scene.domino(target)
        let log = scene.log
        switch call {
        case .post:
            node.subscribe(Pong.self, on: .postingThread) { _ in log.append("pong") }
            node.post(Pong(text: "nested"))
        case .request:
            scene.top.value!.domino.respond(to: Ask.self, on: .postingThread) { _ in "answer" }
            log.append(node.request(Ask(question: "q")) ?? "unanswered")
        case .subscribe:
            scene.listen(at: node, "new")
        case .cancelSelf:
            acting.subscription?.cancel()
        case .cancelOther:
            other.value?.cancel()
        case .mount:
            node.mount(at: scene.extra)
            scene.listen(at: scene.extra, "extra")
        case .unmount:
            let above: DominoNode = switch target {
            case .sameNode: scene.parent.value!.domino
            case .parent: scene.top.value!.domino
            case .child: scene.node.value!.domino
            }
            node.unmount(from: above)
        case .deallocateHost:
            scene.box(target).value = nil
        }
    }

    /// What the log must say after the first post (value 1) and the second (value 2).
    private static func expected(_ call: ReentrantCall, _ target: ReentrantTarget) -> [String] {
        let ordinary = ["child:2", "acting:2", "later:2", "parent:2", "top:2"]
        switch (call, target) {
        case (.post, _):
            // The nested post runs to its end, synchronously, before the outer goes on.
            return ["child:1", "acting:1", "pong", "later:1", "parent:1", "top:1"] + ordinary
        case (.request, _):
            return ["child:1", "acting:1", "answer", "later:1", "parent:1", "top:1"] + ordinary
        case (.subscribe, .sameNode):
            // Not called by the walk that was running; called by the next one.
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1",
                    "child:2", "acting:2", "later:2", "new:2", "parent:2", "top:2"]
        case (.subscribe, .parent):
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1",
                    "child:2", "acting:2", "later:2", "parent:2", "new:2", "top:2"]
        case (.subscribe, .child):
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1",
                    "child:2", "new:2", "acting:2", "later:2", "parent:2", "top:2"]
        case (.cancelSelf, .sameNode):
            // The running call completes; the handler is not called again.
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1",
                    "child:2", "later:2", "parent:2", "top:2"]
        case (.cancelSelf, .parent):
            return ["child:1", "later:1", "acting:1", "parent:1", "top:1",
                    "child:2", "later:2", "parent:2", "top:2"]
        case (.cancelSelf, .child):
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1",
                    "child:2", "later:2", "parent:2", "top:2"]
        case (.cancelOther, .sameNode):
            // Cancelled before its turn in this walk: not called, now or later.
            return ["child:1", "acting:1", "parent:1", "top:1",
                    "child:2", "acting:2", "parent:2", "top:2"]
        case (.cancelOther, .parent):
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1",
                    "child:2", "acting:2", "later:2", "parent:2", "top:2"]
        case (.cancelOther, .child):
            // Already called in this walk; not in the next.
            return ["child:1", "other:1", "acting:1", "later:1", "parent:1", "top:1",
                    "child:2", "acting:2", "later:2", "parent:2", "top:2"]
        case (.mount, _):
            // The walk keeps its route; the next one reaches the new parent.
            let second: [String] = switch target {
            case .child: ["child:2", "acting:2", "later:2", "parent:2", "top:2", "extra:2"]
            case .sameNode: ["child:2", "acting:2", "later:2", "parent:2", "top:2", "extra:2"]
            case .parent: ["child:2", "acting:2", "later:2", "parent:2", "top:2", "extra:2"]
            }
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1"] + second
        case (.unmount, _):
            // The walk keeps its route; the next one stops below the link removed.
            let second: [String] = switch target {
            case .child: ["child:2"]
            case .sameNode: ["child:2", "acting:2", "later:2"]
            case .parent: ["child:2", "acting:2", "later:2", "parent:2"]
            }
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1"] + second
        case (.deallocateHost, .sameNode):
            // The node's handlers end with it, so "later" is skipped; the walk goes on
            // up its snapshot. The next walk from the child stops at the child.
            return ["child:1", "acting:1", "parent:1", "top:1", "child:2"]
        case (.deallocateHost, .parent):
            // The parent's handlers end with it; the next walk stops below it.
            return ["child:1", "acting:1", "later:1", "top:1",
                    "child:2", "acting:2", "later:2"]
        case (.deallocateHost, .child):
            // The post from the child completes (its caller holds the node); there is
            // no second post.
            return ["child:1", "acting:1", "later:1", "parent:1", "top:1"]
        }
    }
}

/// The acting handler's own subscription, for "cancel self".
private final class ActingHandler: @unchecked Sendable {
    var subscription: Subscription?
}
