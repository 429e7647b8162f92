import Testing
@testable import Domino

/// An object that subscribes to signals in these tests.
private final class Watcher: Sendable {
    let log = Log<Int>()
}

@MainActor private final class WatcherScreen {
    var shown: [Int] = []
}

// One test per forwarder kept for the names that "one name per idea" replaced: each
// still reaches the new name. Deprecated themselves, so that calling deprecated API
// warns nowhere (CI builds with warnings as errors). Signals need the
// parameter-pack runtime, hence the availability on each signal test.
@Suite("Deprecated names still forward", .checksLeaks)
struct DeprecatedNamesTests {
    // MARK: Streams and routes

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @Test func eventsOfStillYieldsTheTypedEventsThatReachTheNode() async {
        let nodes = makeChain(2)
        let stream = nodes[1].events(of: Ping.self)
        nodes[0].post(Ping(value: 1))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.value == 1)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @Test func eventsNamedStillYieldsTheNamedEventsThatReachTheNode() async {
        let node = DominoNode(label: "n")
        let stream = node.events(named: "Statistics")
        node.post("Statistics", ["msg": "did load"])
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.value("msg", as: String.self) == "did load")
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @Test func routeIsTheRouteNodes() {
        let nodes = makeChain(3)
        #expect(nodes[0].route.map(\.label) == nodes[0].routeNodes.map(\.label))
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @Test func propagateIsTheBubblePhase() {
        #expect(Phase.propagate == .bubble)
    }

    // MARK: Signals

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func firingsStillYieldsEachFire() async {
        let signal = IntegerSignal()
        let fires = signal.firings()
        signal.fire(1)
        var iterator = fires.makeAsyncIterator()
        #expect(await iterator.next() == 1)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func initWithMaxObserversSetsMaxSubscriptions() {
        #expect(Signal<Int>(maxObservers: 5).maxSubscriptions == 5)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test @MainActor func addObserverWithoutAModeSubscribesInTheCallersIsolation() {
        let signal = IntegerSignal()
        let screen = WatcherScreen()
        signal.addObserver(screen) { screen, value in screen.shown.append(value) }
        signal.fire(1)
        #expect(screen.shown == [1])
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func addObserverWithAModeSubscribes() {
        let signal = IntegerSignal()
        let watcher = Watcher()
        signal.addObserver(watcher, on: .postingThread) { watcher, value in watcher.log.append(value) }
        signal.fire(1)
        #expect(watcher.log.entries == [1])
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func removeObserverUnsubscribes() {
        let signal = IntegerSignal()
        let watcher = Watcher()
        signal.subscribe(watcher, on: .postingThread) { watcher, value in watcher.log.append(value) }
        signal.removeObserver(watcher)
        signal.fire(1)
        #expect(watcher.log.entries.isEmpty)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func removeAllObserversUnsubscribesAll() {
        let signal = IntegerSignal()
        let watcher = Watcher()
        signal.subscribe(watcher, on: .postingThread) { watcher, value in watcher.log.append(value) }
        signal.removeAllObservers()
        #expect(signal.subscriptionCount == 0)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func observerCountIsTheSubscriptionCount() {
        let signal = IntegerSignal()
        let watcher = Watcher()
        signal.subscribe(watcher, on: .postingThread) { _, _ in }
        #expect(signal.observerCount == 1)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func maxObserversIsMaxSubscriptions() {
        let signal = IntegerSignal()
        signal.maxObservers = 7
        #expect(signal.maxSubscriptions == 7)
        #expect(signal.maxObservers == 7)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func observerAddedIsTheSubscriptionAddedHook() {
        let signal = IntegerSignal()
        let added = Counter()
        signal.observerAdded = { _ in added.increment() }
        let watcher = Watcher()
        signal.subscribe(watcher, on: .postingThread) { _, _ in }
        #expect(added.value == 1)
        #expect(signal.subscriptionAdded != nil)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func observerRemovedIsTheSubscriptionRemovedHook() {
        let signal = IntegerSignal()
        let removed = Counter()
        signal.observerRemoved = { _ in removed.increment() }
        let watcher = Watcher()
        signal.subscribe(watcher, on: .postingThread) { _, _ in }.cancel()
        #expect(removed.value == 1)
        #expect(signal.subscriptionRemoved != nil)
    }

    @available(*, deprecated, message: "exercises the deprecated forwarder")
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func signalObserverNamesTheSignalSubscriptionType() {
        let signal = IntegerSignal()
        let watcher = Watcher()
        let handle: SignalObserver = signal.subscribe(watcher, on: .postingThread) { _, _ in }
        #expect(type(of: handle) == SignalEntry<Int>.self)
        #expect(SignalObserver.self == SignalSubscription.self)
    }
}
