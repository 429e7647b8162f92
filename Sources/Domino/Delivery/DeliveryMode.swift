import Dispatch
import Foundation

/// Where a subscriber's handler runs (Domino's trigger modes, Signals' callback queues).
///
/// Named by nonisolated code, whose handlers are `@Sendable`; a handler written in
/// main-actor or actor code names none and runs in that isolation instead (see
/// <doc:MainActorAppCode>). `on: nil` uses the node's ``DominoNode/deliveryMode``,
/// else the process-wide ``DeliveryMode/default``, which starts as ``postingThread``
/// (as NotificationCenter, Combine, EventsTree and Signals deliver).
///
/// Reformers and interceptors ignore modes: they run synchronously on the posting
/// thread, because their answers decide the walk. A responder answers synchronous
/// requests only where its mode runs (``postingThread``: always), and an awaited
/// request goes there.
///
/// ```swift
/// node.subscribe(ImageDidDecode.self, on: .postingThread) { event in ... }
/// node.subscribe(ImageDidDecode.self, on: .queue(renderQueue)) { event in ... }
/// ```
public enum DeliveryMode: Sendable {
    /// The main thread (the main dispatch queue, where the main actor runs):
    /// synchronously when posted there, else queued on the main queue.
    case mainThread
    /// Domino's serial background queue, in posting order.
    case background
    /// The posting thread, synchronously.
    case postingThread
    /// The given dispatch queue: synchronously when posted on it, else queued.
    case queue(DispatchQueue)
    /// The given operation queue: synchronously when posted from it, else queued.
    case operationQueue(OperationQueue)

    /// The mode of subscriptions that name none, on nodes that name none.
    ///
    /// Starts as ``postingThread``. Changing it affects posts that start afterwards.
    /// Inside `withDefault(_:_:)` the scoped mode applies instead, and
    /// reading this property returns it.
    public static var `default`: DeliveryMode {
        get { scopedDefault ?? graphLock.withShared { GraphSettings.processDefaultDelivery } }
        set {
            newValue.prepare()
            // Released after the lock: a queue's deinit may call back into Domino.
            let previous = graphLock.withExclusive { _ -> DeliveryMode in
                defer {
                    GraphSettings.processDefaultDelivery = newValue
                    GraphSettings.refreshDefaultDelivery()
                }
                return GraphSettings.processDefaultDelivery
            }
            withExtendedLifetime(previous) {}
        }
    }

    /// Runs `body` with `mode` as the ``default`` for the posts it makes on the
    /// current task or thread, whatever the process-wide default; returns what
    /// `body` returns.
    ///
    /// A subscription's own mode, and its node's ``DominoNode/deliveryMode``, still
    /// win over it, as they win over the process-wide default.
    ///
    /// ```swift
    /// DeliveryMode.withDefault(.mainThread) {
    ///     node.post(ImageDidDecode())   // subscribers that name no mode run on the main thread
    /// }
    /// ```
    ///
    /// The mode is task-local: it holds on the calling thread or task and in the child
    /// tasks it creates, but not for posts made later on a dispatch queue, another
    /// thread or a detached task. While any such scope runs, every post in the process
    /// reads the task-local value (a few dozen nanoseconds): a tool for tests.
    @discardableResult
    public static func withDefault<Result>(_ mode: DeliveryMode, _ body: () throws -> Result) rethrows -> Result {
        enterScope(mode)
        defer { leaveScope() }
        return try $scopedDefault.withValue(mode) { try body() }
    }

    /// Runs the async `body` with `mode` as the ``default`` for the posts it makes on
    /// the current task, across its awaits.
    @discardableResult
    public static func withDefault<Result>(
        _ mode: DeliveryMode,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        enterScope(mode)
        defer { leaveScope() }
        return try await $scopedDefault.withValue(mode, operation: body)
    }

    /// A scoped override of ``default``.
    @TaskLocal static var scopedDefault: DeliveryMode?

    private static func enterScope(_ mode: DeliveryMode) {
        mode.prepare()
        graphLock.withExclusive { _ in
            GraphSettings.deliveryScopes += 1
            GraphSettings.refreshDefaultDelivery()
        }
    }

    private static func leaveScope() {
        graphLock.withExclusive { _ in
            GraphSettings.deliveryScopes -= 1
            GraphSettings.refreshDefaultDelivery()
        }
    }

    /// What `GraphSettings.defaultDelivery` holds while a scope runs: a queue mode
    /// no subscriber can name, which sends walks to the task-local default. A queue
    /// mode, so that walks meet it only on the path they take for queues, and a
    /// post pays nothing for scopes while none runs.
    static let scopedDefaultMarker = DeliveryMode.queue(DispatchQueue(label: "domino.scoped-default"))

    /// True for ``scopedDefaultMarker``.
    var isScopedDefaultMarker: Bool {
        guard case .queue(let queue) = self, case .queue(let marker) = Self.scopedDefaultMarker else { return false }
        return queue === marker
    }

    /// The default of a walk that met ``scopedDefaultMarker``: the scope's, else the
    /// process-wide one. Lock held.
    static func scopedDefaultLocked() -> DeliveryMode {
        scopedDefault ?? GraphSettings.processDefaultDelivery
    }
}

extension DeliveryMode: CustomStringConvertible {
    /// The mode's name, with the queue's label for queue modes.
    public var description: String {
        switch self {
        case .mainThread: return "mainThread"
        case .background: return "background"
        case .postingThread: return "postingThread"
        case .queue(let queue): return "queue(\(queue.label))"
        case .operationQueue(let queue): return "operationQueue(\(queue.name ?? "unnamed"))"
        }
    }
}

/// Domino's own background queue: serial, so background deliveries keep posting order.
let backgroundDeliveryQueue = DispatchQueue(label: "domino.background", qos: .utility)

/// Marks dispatch queues so that "am I already on this queue?" is one look-up.
private let queueMarkerKey = DispatchSpecificKey<QueueMarker>()
private final class QueueMarker: Sendable {}

extension DeliveryMode {
    /// True for ``postingThread``, tested without copying the enum's payload.
    var isPostingThread: Bool {
        if case .postingThread = self { return true }
        return false
    }

    var isMainThread: Bool {
        if case .mainThread = self { return true }
        return false
    }

    /// A mode's kind as a small number, the one encoding of every word that walks
    /// read without building a mode: a handler's state word (all six), a node's
    /// published mode word and `GraphLock.walkGate` (1 to 3, the modes without a
    /// queue; see `publishedCode`).
    enum Code: UInt32 {
        /// No mode of its own: the node's, else the global, default applies.
        case inherits = 0
        case mainThread = 1
        case background = 2
        case postingThread = 3
        case queue = 4
        case operationQueue = 5

        /// The code of `mode`; `.inherits` for nil.
        init(_ mode: DeliveryMode?) {
            switch mode {
            case nil: self = .inherits
            case .mainThread?: self = .mainThread
            case .background?: self = .background
            case .postingThread?: self = .postingThread
            case .queue?: self = .queue
            case .operationQueue?: self = .operationQueue
            }
        }

        /// The code of `mode` as published words keep it: 1 to 3 for a mode without
        /// a queue, 0 for a mode with one (which walks without a lock leave to walks
        /// under a stripe).
        static func published(_ mode: DeliveryMode) -> UInt {
            let code = Code(mode).rawValue
            return code < Code.queue.rawValue ? UInt(code) : 0
        }

        /// True for the two modes that have a queue (`queueObject`).
        var hasQueue: Bool { self == .queue || self == .operationQueue }

        /// The mode of this code, with `queue` (what `queueObject` returned) for the
        /// two modes that have one; nil for `.inherits`.
        func mode(queue: AnyObject?) -> DeliveryMode? {
            switch self {
            case .inherits: return nil
            case .mainThread: return .mainThread
            case .background: return .background
            case .postingThread: return .postingThread
            case .queue: return .queued(on: queue.unsafelyUnwrapped, operationQueue: false)
            case .operationQueue: return .queued(on: queue.unsafelyUnwrapped, operationQueue: true)
            }
        }
    }

    /// The queue of a ``queue(_:)`` or ``operationQueue(_:)`` mode, else nil: what
    /// `Subscription` keeps of a mode besides its code.
    var queueObject: AnyObject? {
        switch self {
        case .queue(let queue): return queue
        case .operationQueue(let queue): return queue
        case .mainThread, .background, .postingThread: return nil
        }
    }

    /// The mode of `queue`, an object `queueObject` returned: a ``queue(_:)`` or,
    /// when `operationQueue`, an ``operationQueue(_:)`` mode.
    static func queued(on queue: AnyObject, operationQueue: Bool) -> DeliveryMode {
        operationQueue
            ? .operationQueue(unsafeDowncast(queue, to: OperationQueue.self))
            : .queue(unsafeDowncast(queue, to: DispatchQueue.self))
    }

    /// Called when a mode is stored; marks dispatch queues for `isCurrent`.
    func prepare() {
        if case .queue(let queue) = self, queue.getSpecific(key: queueMarkerKey) == nil {
            queue.setSpecific(key: queueMarkerKey, value: QueueMarker())
        }
    }

    /// True when a handler in this mode can run right now on this thread.
    @inline(__always)
    func isCurrent(_ thread: UnsafeMutablePointer<ThreadState>) -> Bool {
        switch self {
        case .postingThread: return true
        case .mainThread:
            // On Linux the main queue may be drained by a thread other than the
            // process's first one (swift test does so): being on the main queue counts.
            if thread.pointee.isMainThread { return true }
            let marker = mainMarker // set on the main queue before the look-up below
            return DispatchQueue.getSpecific(key: queueMarkerKey) === marker
        case .background:
            let marker = backgroundMarker
            return DispatchQueue.getSpecific(key: queueMarkerKey) === marker
        case .queue(let queue):
            guard let marker = queue.getSpecific(key: queueMarkerKey) else { return false }
            return DispatchQueue.getSpecific(key: queueMarkerKey) === marker
        case .operationQueue(let queue): return OperationQueue.current === queue
        }
    }

    /// Queues `work` where this mode says.
    func schedule(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .postingThread: work()
        case .mainThread: DispatchQueue.main.async(execute: work)
        case .background: backgroundDeliveryQueue.async(execute: work)
        case .queue(let queue): queue.async(execute: work)
        case .operationQueue(let queue): queue.addOperation(work)
        }
    }
}

private let mainMarker: QueueMarker = {
    let marker = QueueMarker()
    DispatchQueue.main.setSpecific(key: queueMarkerKey, value: marker)
    return marker
}()

private let backgroundMarker: QueueMarker = {
    let marker = QueueMarker()
    backgroundDeliveryQueue.setSpecific(key: queueMarkerKey, value: marker)
    return marker
}()
