/// What a handler table entry at a node is for: one Swift type, or one event name.
///
/// A struct rather than an enum with a `String` payload: comparing two type keys
/// then touches one machine word and no reference count, which matters because
/// every node of every walk compares keys.
struct SlotKey: Hashable, Sendable {
    /// The type's identity; 0 for named events.
    private let typeBits: UInt
    /// The event name, for named events.
    private let eventName: String?

    @inline(__always)
    static func of<T>(_ type: T.Type) -> SlotKey {
        SlotKey(typeBits: UInt(bitPattern: ObjectIdentifier(type)), eventName: nil)
    }

    static func name(_ name: String) -> SlotKey {
        SlotKey(typeBits: 0, eventName: name)
    }

    /// The event name of a named-event key.
    var name: String? { eventName }

    @inline(__always)
    static func == (lhs: SlotKey, rhs: SlotKey) -> Bool {
        if lhs.typeBits != rhs.typeBits { return false }
        return lhs.typeBits != 0 || lhs.eventName == rhs.eventName
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(typeBits)
        hasher.combine(eventName)
    }
}

/// The role a handler plays in a slot, which decides when it runs during a walk.
enum HandlerRole: UInt8, Sendable {
    /// Receives events (notification semantics) or answers requests.
    case subscriber
    /// Runs before the node's subscribers and may rewrite the value.
    case reformer
    /// Runs after the node's subscribers and may stop the event.
    case interceptor
    /// Answers requests (chain of responsibility).
    case responder
}

/// The handlers of one slot at one node, in subscription order.
///
/// Readers copy the reference under the shared lock and then iterate it outside
/// the lock; writers never change a published table but install a changed copy
/// (see `DominoNode.uniqueTable`). So a walk always sees the table as it was when
/// the walk collected it.
final class HandlerTable {
    // Mutated only under the exclusive lock before publication; read-only after
    // (see above), so the runtime's exclusivity checks add nothing.
    @exclusivity(unchecked) var subscribers: ContiguousArray<Subscription> = []
    @exclusivity(unchecked) var reformers: ContiguousArray<Subscription> = []
    @exclusivity(unchecked) var interceptors: ContiguousArray<Subscription> = []
    @exclusivity(unchecked) var responders: ContiguousArray<Subscription> = []

    init() {}

    init(copying other: HandlerTable) {
        subscribers = other.subscribers
        reformers = other.reformers
        interceptors = other.interceptors
        responders = other.responders
    }

    var isEmpty: Bool { subscribers.isEmpty && reformers.isEmpty && interceptors.isEmpty && responders.isEmpty }
    var count: Int { subscribers.count + reformers.count + interceptors.count + responders.count }

    func append(_ handler: Subscription) {
        switch handler.role {
        case .subscriber: subscribers.append(handler)
        case .reformer: reformers.append(handler)
        case .interceptor: interceptors.append(handler)
        case .responder: responders.append(handler)
        }
    }

    func contains(_ handler: Subscription) -> Bool {
        switch handler.role {
        case .subscriber: return subscribers.contains { $0 === handler }
        case .reformer: return reformers.contains { $0 === handler }
        case .interceptor: return interceptors.contains { $0 === handler }
        case .responder: return responders.contains { $0 === handler }
        }
    }

    @discardableResult
    func remove(_ handler: Subscription) -> Bool {
        func remove(from list: inout ContiguousArray<Subscription>) -> Bool {
            guard let index = list.firstIndex(where: { $0 === handler }) else { return false }
            list.remove(at: index)
            return true
        }
        switch handler.role {
        case .subscriber: return remove(from: &subscribers)
        case .reformer: return remove(from: &reformers)
        case .interceptor: return remove(from: &interceptors)
        case .responder: return remove(from: &responders)
        }
    }

    func forEachHandler(_ body: (Subscription) -> Void) {
        subscribers.forEach(body)
        reformers.forEach(body)
        interceptors.forEach(body)
        responders.forEach(body)
    }
}

/// One entry of a node's handler table.
struct Slot {
    let key: SlotKey
    var table: HandlerTable
}
