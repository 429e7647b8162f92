// Stand-in for the part of the Objective-C runtime that UIKit and AppKit make
// visible to Swift code: associated objects (<objc/runtime.h>, module ObjectiveC).
// The declarations are the Swift signatures the SDK imports; the bodies are a real
// implementation (a locked table keyed by object identity and key address), so
// that programs built against the stand-ins run.
import Foundation

/// Returns the value associated with `object` for `key`, or nil.
public func objc_getAssociatedObject(_ object: Any, _ key: UnsafeRawPointer) -> Any? {
    let owner = object as AnyObject
    let slot = UInt(bitPattern: key)
    return associations.withLock { state -> Any? in
        // A dead owner whose address was reused by a new object has no associations.
        guard let entry = state.entries[ObjectIdentifier(owner)], entry.owner === owner else { return nil }
        return entry.values[slot]?.value
    }
}

/// Associates `value` with `object` for `key`; nil removes the association.
public func objc_setAssociatedObject(_ object: Any, _ key: UnsafeRawPointer, _ value: Any?, _ policy: objc_AssociationPolicy) {
    let owner = object as AnyObject
    let id = ObjectIdentifier(owner)
    let slot = UInt(bitPattern: key)
    let stored = value.map { AssociatedValue($0, policy: policy) }
    // What the table lets go of is released after the lock is left: a released
    // value's deinit may use associated objects itself.
    let released = associations.withLock { state -> [Any] in
        var released: [Any] = []
        if let stale = state.entries[id], stale.owner !== owner {
            released.append(stale)
            state.entries[id] = nil
        }
        let entry = state.entries[id] ?? AssociationEntry(owner: owner)
        if let old = entry.values.removeValue(forKey: slot) { released.append(old) }
        if let stored { entry.values[slot] = stored }
        state.entries[id] = entry.values.isEmpty ? nil : entry
        released += state.sweepDeadOwners()
        return released
    }
    withExtendedLifetime(released) {}
}

/// Removes all associations of `object`.
public func objc_removeAssociatedObjects(_ object: Any) {
    let id = ObjectIdentifier(object as AnyObject)
    let released = associations.withLock { state in state.entries.removeValue(forKey: id) }
    withExtendedLifetime(released) {}
}

// MARK: - Implementation

/// Object identity -> that object's associations.
private let associations = AssociationTable()

/// The table and its lock. `@unchecked Sendable`: the state is only touched with
/// the lock held.
private final class AssociationTable: @unchecked Sendable {
    private let lock = NSLock()
    private var state = AssociationState()

    func withLock<R>(_ body: (inout AssociationState) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}

private struct AssociationState {
    var entries: [ObjectIdentifier: AssociationEntry] = [:]
    var sweepThreshold = 64

    /// The runtime drops an object's associations when it deallocates, which a
    /// Swift object on Linux cannot be told of: the entries of dead owners are
    /// removed here instead, once the table has doubled since the last sweep.
    mutating func sweepDeadOwners() -> [Any] {
        guard entries.count >= sweepThreshold else { return [] }
        var released: [Any] = []
        for (id, entry) in entries where entry.owner == nil {
            released.append(entry)
            entries[id] = nil
        }
        sweepThreshold = max(64, entries.count * 2)
        return released
    }
}

/// The associations of one object, which is held weakly.
private final class AssociationEntry {
    weak var owner: AnyObject?
    var values: [UInt: AssociatedValue] = [:]
    init(owner: AnyObject) { self.owner = owner }
}

private struct AssociatedValue {
    private let strong: Any?
    private unowned(unsafe) let unretained: AnyObject?

    init(_ value: Any, policy: objc_AssociationPolicy) {
        switch policy {
        case .OBJC_ASSOCIATION_ASSIGN:
            // Unretained, as the runtime does it: the caller keeps the value alive.
            strong = nil
            unretained = value as AnyObject
        case .OBJC_ASSOCIATION_COPY, .OBJC_ASSOCIATION_COPY_NONATOMIC:
            strong = (value as? any NSCopying)?.copy(with: nil) ?? value
            unretained = nil
        case .OBJC_ASSOCIATION_RETAIN, .OBJC_ASSOCIATION_RETAIN_NONATOMIC:
            strong = value
            unretained = nil
        }
    }

    var value: Any? { strong ?? unretained }
}
