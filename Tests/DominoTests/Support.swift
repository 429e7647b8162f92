import Foundation
import Testing
@testable import Domino

/// A thread-safe log of what handlers saw, in order.
final class Log<Entry: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Entry] = []

    func append(_ entry: Entry) {
        lock.lock()
        storage.append(entry)
        lock.unlock()
    }

    var entries: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    var count: Int { entries.count }

    /// Appends what `make` returns when the log is empty, checked and appended under
    /// one hold of the lock, so that two threads calling it at once append once.
    func appendIfEmpty(_ make: () -> Entry) {
        lock.lock()
        defer { lock.unlock() }
        if storage.isEmpty { storage.append(make()) }
    }
}

/// Runs `body` while another thread holds the graph's exclusive lock, as a writer in
/// the middle of a write; returns what `body` returned and whether it waited for
/// that writer. The writer lets go after a minute at the latest, so a `body` that
/// waits for it ends (and the caller's expectation fails) instead of hanging.
func whileAWriterHoldsTheLock<Result>(_ body: () -> Result) -> (result: Result, waitedForTheWriter: Bool) {
    let locked = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let waited = Counter()
    Thread.detachNewThread {
        graphLock.lockExclusive()
        locked.signal()
        if done.wait(timeout: .now() + 60) == .timedOut { waited.increment() }
        graphLock.unlockExclusive()
        locked.signal()
    }
    locked.wait()
    let result = body()
    done.signal()
    locked.wait()
    return (result, waited.value != 0)
}

/// True when walks may collect without a lock (and walks down through responder nodes
/// without plans): the walk gate once `graphLock` exists (its words are static
/// storage, zero until it is made: a closed gate, which sends the first walk to the
/// path that makes it). For the suites that run in a process of their own because a
/// cycle, tracing of all nodes or a default mode with a queue closes it for good.
var walkGateIsOpen: Bool {
    withExtendedLifetime(graphLock) { GraphLock.walkGate != 0 }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var storage = 0

    func increment() {
        add(1)
    }

    func add(_ amount: Int) {
        lock.lock()
        storage += amount
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// A host object owning a node, as managers do. `Sendable` (its state is locked), so
/// that it may be the owner of handlers that run on other threads.
final class Host: Sendable {
    let domino: DominoNode
    private let storage = Mutex<[Int]>([])
    init(_ label: String) { domino = DominoNode(label: label) }

    /// What its handlers saw; each read and each write takes the lock.
    var received: [Int] {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

struct Ping: Event, Equatable {
    var value: Int
}

struct Pong: Event, Equatable {
    var text: String
}

struct Ask: Request {
    typealias Response = String
    var question: String
}

/// Builds a chain `nodes[0]` (bottom) mounted at `nodes[1]` ... up to `nodes[count - 1]` (top).
func makeChain(_ count: Int, prefix: String = "n") -> [DominoNode] {
    let nodes = (0..<count).map { DominoNode(label: "\(prefix)\($0)") }
    for index in 0..<(count - 1) {
        nodes[index].mount(at: nodes[index + 1])
    }
    return nodes
}

/// Subscribes a handler that logs the node label on the posting thread.
@discardableResult
func record<E: Event>(_ type: E.Type, at node: DominoNode, into log: Log<String>, tag: String? = nil) -> Subscription {
    let name = tag ?? node.label ?? "?"
    return node.subscribe(type, on: .postingThread) { _ in log.append(name) }
}

/// Waits (without a timing assertion) until `condition` holds, polling up to a generous limit.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<2_000 {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}

/// `eventually` for main-actor state: polls on the main actor, which lets the main
/// queue run what was queued for it in between.
@MainActor func eventuallyOnMainActor(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<2_000 {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}

/// A weak reference that handlers may capture.
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T?) { self.value = value }
}

/// A strong reference that handlers may capture and clear.
final class StrongBox<T: AnyObject>: @unchecked Sendable {
    var value: T?
    init(_ value: T?) { self.value = value }
}

/// Hands out increasing tickets from any thread.
final class Ticketer: @unchecked Sendable {
    private let lock = NSLock()
    private var last = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }

    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return last
    }

    /// A ticket number recorded once, read from any thread.
    final class Mark: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Int?
        var value: Int? {
            get { lock.lock(); defer { lock.unlock() }; return stored }
            set { lock.lock(); stored = newValue; lock.unlock() }
        }
    }
}

/// The code block that follows `<!-- snippet: name -->` in a DocC article, and the
/// code that `DocumentationSnippets.swift` compiles under the same name.
func articleAndCompiledSnippet(_ name: String, article: String) throws -> (article: String?, compiled: String?) {
    let tests = #filePath.replacingOccurrences(of: "/Support.swift", with: "")
    let catalog = tests.replacingOccurrences(of: "Tests/DominoTests", with: "Sources/Domino/Documentation.docc")
    return (
        try documentSnippet(name, in: catalog + "/" + article + ".md"),
        try sourceSnippet(name, in: tests + "/DocumentationSnippets.swift", marker: "DOC-SNIPPET")
    )
}

/// The code block of a markdown file that follows `<!-- snippet: name -->`.
func documentSnippet(_ name: String, in path: String) throws -> String? {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return between(text, "<!-- snippet: \(name) -->\n```swift", "```")
}

/// The code of a test file between `// MARKER-BEGIN name` and `// MARKER-END name`.
func sourceSnippet(_ name: String, in file: String, marker: String = "DOC-SNIPPET") throws -> String? {
    let source = try String(contentsOfFile: file, encoding: .utf8)
    return between(source, "// \(marker)-BEGIN \(name)", "// \(marker)-END \(name)")
}

private func between(_ text: String, _ begin: String, _ end: String) -> String? {
    guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else { return nil }
    return String(text[start.upperBound..<stop.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Returns once the main queue has run what was queued on it before the call: it
/// queues the continuation behind it (the main queue runs in order). For main-actor
/// deliveries scheduled from other threads, without polling.
@MainActor func mainQueueHasRunWhatWasQueuedBefore() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { done.resume() }
    }
}

/// True on the main queue, where the main actor runs. (On Linux, `swift test` drains
/// it on a thread other than the process's first, so `Thread.isMainThread` alone
/// would say false there.)
func isOnMainQueue() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
}

private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Runs `body` on a new thread and waits for it to return. The calling thread is
/// blocked meanwhile: called on the main actor, nothing queued on the main queue can
/// run until `body` is done. (Not `DispatchQueue.global().sync`, which may run the
/// block on the calling thread.)
func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<T?>(nil)
    Thread.detachNewThread {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

/// A flag one thread sets and others poll (a stress test's stop signal).
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// The closure a thread of `onThreadJoined` runs, passed through `pthread_create`'s
/// argument.
private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Runs `body` on a new thread and returns once that thread has exited (joined):
/// its thread-local destructors, Domino's among them (which gives the thread's pin
/// record back), have run by then. `Thread` cannot be joined.
func onThreadJoined(_ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    let created = pthread_create(&thread, nil, { pointer in
        Unmanaged<ThreadBody>.fromOpaque(pointer).takeRetainedValue().body()
        return nil
    }, context)
    precondition(created == 0, "pthread_create failed: \(created)")
    pthread_join(thread!, nil)
    #else
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { pointer in
        Unmanaged<ThreadBody>.fromOpaque(pointer!).takeRetainedValue().body()
        return nil
    }, context)
    precondition(created == 0, "pthread_create failed: \(created)")
    pthread_join(thread, nil)
    #endif
}

/// Something a handler captures, so a test can see when the handler is released.
final class Canary: @unchecked Sendable {
    func chirp() {}
}

/// Subscribes a handler that captures a canary at `node` and cancels it at once: the
/// box empties once the library has released the handler.
func subscribedAndCancelled(at node: DominoNode) -> WeakBox<Canary> {
    let box = WeakBox<Canary>(nil)
    var subscription: Subscription? = {
        let canary = Canary()
        box.value = canary
        return node.subscribe(Ping.self, on: .postingThread) { _ in canary.chirp() }
    }()
    subscription?.cancel()
    subscription = nil
    return box
}
