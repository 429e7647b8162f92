import Testing
@testable import Domino

/// A marker protocol that one module's events adopt.
protocol CheckoutEvent: Event {}
struct PaymentFailed: CheckoutEvent { var reason: String }
struct CartEmptied: CheckoutEvent {}
struct CheckoutTotal: CheckoutEvent, Request { typealias Response = Int }

@Suite("Group interceptors", .checksLeaks)
struct EventGroupTests {
    @Test func groupInterceptorStopsEveryEventOfTheGroupAndNoOther() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].intercept(every: (any CheckoutEvent).self) { _ in .stop }
        nodes[1].subscribe(PaymentFailed.self, on: .postingThread) { _ in log.append("payment") }
        nodes[1].subscribe(CartEmptied.self, on: .postingThread) { _ in log.append("cart") }
        nodes[1].subscribe(Ping.self, on: .postingThread) { _ in log.append("ping") }
        let payment = nodes[0].post(PaymentFailed(reason: "declined"))
        nodes[0].post(CartEmptied())
        nodes[0].post(Ping(value: 1))
        #expect(log.entries == ["ping"])
        #expect(payment.stopReason == .interceptor)
        #expect(payment.stoppedAt == "n0")
    }

    @Test func groupInterceptorReceivesTheEventAsAGroupMember() {
        let node = DominoNode(label: "n")
        let seen = Log<String>()
        node.intercept(every: (any CheckoutEvent).self) { event in
            seen.append(String(describing: type(of: event)))
            return (event as? PaymentFailed)?.reason == "fraud" ? .stop : .proceed
        }
        let allowed = node.post(PaymentFailed(reason: "declined"))
        let stopped = node.post(PaymentFailed(reason: "fraud"))
        #expect(seen.entries == ["PaymentFailed", "PaymentFailed"])
        #expect(!allowed.wasStopped)
        #expect(stopped.wasStopped)
    }

    @Test func groupInterceptorRunsAfterTheNodesSubscribersAndInterceptors() {
        let node = DominoNode(label: "n")
        let log = Log<String>()
        node.intercept(every: (any CheckoutEvent).self) { _ in log.append("group"); return .stop }
        node.intercept(CartEmptied.self) { _ in log.append("exact"); return .proceed }
        node.subscribe(CartEmptied.self, on: .postingThread) { _ in log.append("subscriber") }
        node.post(CartEmptied())
        #expect(log.entries == ["subscriber", "exact", "group"])
    }

    @Test func groupInterceptorAlsoStopsRequestsOfTheGroup() {
        let nodes = makeChain(2)
        nodes[1].respond(to: CheckoutTotal.self, on: .postingThread) { _ in 42 }
        #expect(nodes[0].request(CheckoutTotal()) == 42)
        nodes[0].intercept(every: (any CheckoutEvent).self) { _ in .stop }
        #expect(nodes[0].request(CheckoutTotal()) == nil)
    }

    @Test func groupInterceptorAtANodeWithoutOtherHandlersStillRuns() {
        let nodes = makeChain(3)
        let log = Log<String>()
        nodes[1].intercept(every: (any CheckoutEvent).self) { _ in .stop }
        nodes[2].subscribe(CartEmptied.self, on: .postingThread) { _ in log.append("top") }
        let result = nodes[0].post(CartEmptied())
        #expect(log.entries.isEmpty)
        #expect(result.stoppedAt == "n1")
    }

    @Test func interceptingEveryValueCoversNamedEventsToo() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].intercept(every: Any.self) { _ in .stop }
        nodes[1].subscribe("Statistics", on: .postingThread) { _ in log.append("named") }
        #expect(nodes[0].post("Statistics").wasStopped)
        #expect(log.entries.isEmpty)
    }

    @Test func unsubscribingGroupsRemovesGroupInterceptors() {
        let nodes = makeChain(2)
        let log = Log<String>()
        nodes[0].intercept(every: (any CheckoutEvent).self) { _ in .stop }
        nodes[1].subscribe(CartEmptied.self, on: .postingThread) { _ in log.append("top") }
        nodes[0].unsubscribeGroups()
        nodes[0].post(CartEmptied())
        #expect(log.entries == ["top"])
        #expect(nodes[0].subscriptionCount == 0)
    }

    @Test func cancellingAGroupInterceptorLetsTheGroupThrough() {
        let nodes = makeChain(2)
        let log = Log<String>()
        let interceptor = nodes[0].intercept(every: (any CheckoutEvent).self) { _ in .stop }
        nodes[1].subscribe(CartEmptied.self, on: .postingThread) { _ in log.append("top") }
        interceptor.cancel()
        nodes[0].post(CartEmptied())
        #expect(log.entries == ["top"])
        #expect(interceptor.description.contains("every"))
    }
}
