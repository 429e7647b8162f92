/// The state of one ``Signal`` apart from its values, shared by the signal and its
/// subscriptions' handles.
///
/// It is a separate object so that a handle can cancel itself without keeping the
/// signal alive: the signal owns the core, the core's list owns the entries, and
/// each entry owns the core. The signal's deinit empties the list (``close()``),
/// which ends that cycle.
///
/// Only the last values fired depend on the signal's value types; they live in the
/// subclass ``TypedSignalCore``. Everything here compiles once, concretely: generic
/// code over a parameter pack that is not specialized looks type metadata up at run
/// time, which would cost more than the whole fire.
///
/// Invariants:
/// - Every `var` below, and the words of `fireWords` but the lock, are read and
///   written only under the lock, which is why the runtime's exclusivity checks are
///   switched off for them.
/// - A fire keeps the list it iterates alive (see "Reading the list" below).
/// - The filled slots of `list` hold the `listed` subscriptions, each knowing its
///   slot, in order; once a change is done, the cleared slots among them are never
///   more than the filled ones (so a fire passes at most twice as many slots as
///   there are subscriptions).
/// - No user code runs under the lock and no user object's last release happens
///   under it: whatever a change takes out (entries, lists, earlier values, a
///   replaced hook) is handed back and released after unlocking.
///
/// Reading the list: a fire reads the list's slots after unlocking, so the list
/// (and the entries its slots hold) must outlive the reading, and a cancel may
/// clear a slot in place only while no fire reads the list. A fire at one of the
/// thread's first `GraphLock.signalHazardSlots` nesting depths publishes the list's
/// address in a hazard slot of its thread's pin record, under the lock, and clears
/// it when done; deeper fires count themselves in on the list (`ObserverList`). A
/// writer (lock held) clears in place only when neither says the list is read
/// (`isReadLocked`). A list replaced while a hazard slot holds it waits in
/// `pendingLists` until no slot does: the writer marks each slot that holds it (its
/// low bit, with a compare-and-swap: `GraphLock.markSignalHazards`), and a fire
/// clears its slot with an exchange, which returns the mark; a fire that finds its
/// slot marked takes the lock and releases what no slot holds any more
/// (`releasePending`). One word, changed only by read-modify-writes: either the
/// fire cleared it first (the mark fails, and the writer releases the list at
/// once) or the mark came first (the fire sees it). So a list is released by the
/// writer or by the last fire out of it, never kept for a later one. Each fire thus
/// writes only its own thread's record where it wrote a count on the list that
/// every firing thread shares (`signal.fire.1.contended`, two threads firing at
/// once: 52.1 to about 38 ns a fire, medians of alternating runs; 37.0 in a scratch
/// build that left the count out with nothing in its place).
@usableFromInline
class SignalCore: @unchecked Sendable {
    typealias Hook = @Sendable (SignalSubscription) -> Void

    /// What every fire writes, on a cache line of its own: the lock (a `WordLock`,
    /// free at zero) at offset 0, the fire count at ``fireCountOffset``, and in a
    /// typed core the last values fired at `TypedSignalCore.valuesOffset` (the line
    /// grows past 64 bytes only for values of more than 48). Fires from several
    /// threads at once pass this line between their processors; with these words
    /// in the core object and the lock in a block of its own (a 32-byte malloc
    /// block that could share its line with any other memory), each fire passed
    /// two lines or more instead (`signal.fire.1.contended`, issue 28: 70.8 to
    /// 62.2 ns a fire from two threads, medians of 20 alternating runs; one
    /// instruction more a fire, the line's address loaded again after the lock).
    /// The object's own words, which fires only read, are then written only when
    /// subscriptions change.
    @usableFromInline let fireWords: UnsafeMutableRawPointer

    /// Lists replaced while a fire's hazard slot held them, each with a reference of
    /// its own, released once no slot does (see "Reading the list").
    @exclusivity(unchecked) var pendingLists: [ObserverList] = []

    /// The fire count's offset in `fireWords`.
    @usableFromInline static var fireCountOffset: Int { 8 }

    /// The size of the line `fireWords` starts.
    @usableFromInline static var lineSize: Int { 64 }

    /// The current subscriptions (see ``ObserverList``).
    @usableFromInline @exclusivity(unchecked) var list = ObserverList(capacity: 0)
    /// How many subscriptions `list` holds (its filled slots).
    @exclusivity(unchecked) var listed = 0
    @exclusivity(unchecked) var maxSubscriptions: Int
    /// How many times ``Signal/fire(_:)`` ran (`Signal.fireCount`), in
    /// `fireWords`. Lock held.
    @inlinable
    final var fireCount: UnsafeMutablePointer<Int> {
        (fireWords + Self.fireCountOffset).assumingMemoryBound(to: Int.self)
    }
    /// The number of subscriptions at which the next add purges those whose
    /// observer died: twice the live count the last purge found (at least 8), so
    /// that a signal whose observers come and go never lists more than about twice
    /// its live subscriptions, and adding stays O(1) amortized.
    @exclusivity(unchecked) var purgeAt = 8
    @exclusivity(unchecked) var subscriptionAdded: Hook?
    @exclusivity(unchecked) var subscriptionRemoved: Hook?
    /// Set when the signal deallocates: hooks are no longer called.
    @exclusivity(unchecked) var isClosed = false
    /// Where errors thrown by callbacks go up a route from (`Signal.errorNode`).
    @exclusivity(unchecked) weak var errorNode: DominoNode?

    /// The signal's type, as `Signal<Int, String>`, for descriptions and diagnostics.
    let typeName: String
    /// `Tracing.firesTraced`, read once here rather than on every fire.
    let firesTraced = Tracing.firesTraced

    /// A core whose `fireWords` have room for values of `valuesSize` bytes at
    /// `valuesOffset`, aligned to `valuesAlignment` (none for the base class); the
    /// typed core initializes them.
    init(typeName: String, maxSubscriptions: Int, valuesOffset: Int = 16, valuesSize: Int = 0, valuesAlignment: Int = 1) {
        self.typeName = typeName
        self.maxSubscriptions = maxSubscriptions
        let line = Self.lineSize
        let byteCount = max(line, (valuesOffset + valuesSize + line - 1) / line * line)
        fireWords = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: max(line, valuesAlignment))
        // Zero: the lock free, no fires counted.
        fireWords.initializeMemory(as: UInt8.self, repeating: 0, count: valuesOffset)
        precondition(WordLock.size <= Self.fireCountOffset)
        (fireWords + Self.fireCountOffset).initializeMemory(as: Int.self, repeating: 0, count: 1)
    }

    deinit {
        fireWords.deallocate()
    }

    @inlinable @inline(__always)
    final func lock() {
        WordLock.lock(fireWords)
    }

    @inlinable @inline(__always)
    final func unlock() {
        WordLock.unlock(fireWords)
    }

    @inline(__always)
    final func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Reports an error a callback threw: up the route from ``errorNode``, else as
    /// an unhandled error. The fire goes on to the next subscription.
    @usableFromInline
    @inline(never)
    final func callbackThrew(_ error: any Error, observerType: Any.Type) {
        let node = withLock { errorNode }
        guard let node else {
            Diagnostics.emit(
                .unhandledError,
                "\(DominoNode.errorName(error)) was thrown by a callback of \(typeName) subscribed for \(observerType), and the signal has no errorNode to report it from. Set the signal's errorNode to send it up a route, or catch it in the callback."
            )
            return
        }
        node.reportError(error, from: nil)
    }

    // MARK: The list

    /// The current subscriptions, in order. Lock held.
    final var observers: [SignalSubscription] {
        list.entries
    }

    /// The current list, its slots and how many of them to read, for a fire to
    /// iterate after unlocking; nil when there are no observers. The list's address
    /// goes into `hazard` when there is one (to be cleared with `fireEnded(hazard:)`),
    /// else the fire is counted in on the list (to be counted out with
    /// `ObserverList.countFireOut`). Lock held.
    @inlinable @inline(__always)
    final func listForFiringLocked(hazard: UnsafeMutableRawPointer?) -> (list: Unmanaged<ObserverList>, base: UnsafeMutablePointer<UnsafeRawPointer?>, count: Int)? {
        let count = list.count
        guard count > 0 else { return nil }
        let reading = Unmanaged.passUnretained(list)
        if let hazard {
            // Relaxed: writers read and mark the slot under this lock (see
            // "Reading the list").
            AtomicWord.storeRelaxed(hazard, UInt(bitPattern: reading.toOpaque()))
        } else {
            list.countFireIn()
        }
        return (reading, list.base, count)
    }

    /// Ends a fire that read its list under `hazard`: clears the slot, and when a
    /// writer had marked it (the list was replaced meanwhile), releases the lists
    /// that no slot holds any more.
    @inlinable @inline(__always)
    final func fireEnded(hazard: UnsafeMutableRawPointer) {
        if AtomicWord.exchange(hazard, 0) & 1 != 0 { releasePending() }
    }

    /// Releases the lists in `pendingLists` that no hazard slot holds any more.
    @usableFromInline
    @inline(never)
    final func releasePending() {
        lock()
        var released: [ObserverList] = []
        pendingLists.removeAll { waiting in
            guard !GraphLock.signalHazardHeld(waiting.address) else { return false }
            released.append(waiting)
            return true
        }
        unlock()
        // Released after unlocking: a list may hold an entry's last reference.
        withExtendedLifetime(released) {}
    }

    /// True when a fire may be reading `list`: counted in on it, or in a hazard
    /// slot. Lock held (fires fill their slots under it).
    private final func isReadLocked(_ list: ObserverList) -> Bool {
        list.isBeingFired || GraphLock.signalHazardHeld(list.address)
    }

    /// Makes `fresh` the current list. Lock held. Returns the list it replaced, for
    /// the caller to release after unlocking (it may hold the last reference to an
    /// entry); fires still iterating it hold references of their own.
    private final func replaceLocked(with fresh: ObserverList) -> ObserverList {
        let previous = list
        list = fresh
        // Fires counted in on it: the last one out releases a reference of its own.
        previous.retire()
        // Fires reading it under a hazard slot: it waits in `pendingLists` for the
        // last of them (see "Reading the list").
        if GraphLock.markSignalHazards(previous.address) {
            pendingLists.append(previous)
        }
        return previous
    }

    /// Copies the subscriptions into a new list with room for as many again (at
    /// least 8 in all), followed by `entry` if given, and makes it the current list.
    /// Subscriptions that left the list (`slot` -1) but whose slots could not be
    /// cleared are left behind. Lock held. Returns the list it replaced (see
    /// `replaceLocked(with:)`).
    private final func relistLocked(appending entry: SignalSubscription? = nil) -> ObserverList {
        let needed = listed + (entry == nil ? 0 : 1)
        let fresh = ObserverList(capacity: needed == 0 ? 0 : max(2 * needed, 8))
        list.forEachEntry { kept in
            if kept.slot >= 0 { fresh.append(kept) }
        }
        if let entry {
            fresh.append(entry)
        }
        return replaceLocked(with: fresh)
    }

    /// Takes `targets` out of the list and returns those that were in it, in the
    /// order given, with the list they leave if it was replaced, for the caller to
    /// release after unlocking. O(1) amortized per target (see ``ObserverList``).
    /// Lock held.
    private final func unlistLocked(_ targets: [SignalSubscription]) -> (removed: [SignalSubscription], previous: ObserverList?) {
        // When no fire reads the list (counted in or under a hazard slot), and none
        // can start while the lock is held, the slots can be cleared in place.
        let inPlace = !isReadLocked(list)
        var removed: [SignalSubscription] = []
        for entry in targets where entry.slot >= 0 {
            if inPlace {
                // `targets` holds the entry: this is never its last release.
                list.clear(entry.slot, holding: entry)
            }
            entry.slot = -1
            listed -= 1
            removed.append(entry)
        }
        guard !removed.isEmpty else { return (removed, nil) }
        // Shared: fires read every slot, so the rest move to a new list. In place:
        // cleared slots leave once they outnumber the filled ones.
        let copies = !inPlace || list.count - listed > listed
        return (removed, copies ? relistLocked() : nil)
    }

    /// Counts a fire in on this thread's nesting count (shared with posts), or
    /// reports the runaway and returns nil: an observer that fires its own signal
    /// synchronously would otherwise recurse until the stack overflows. The caller
    /// decrements the returned count when the fire ends, after calling
    /// ``endFireInterval(_:)`` when `traced` (``Tracing/isEnabledForAllNodes``: the
    /// fire began a signpost interval).
    ///
    /// The common fire (a thread seen before, well below the nesting limit, not
    /// traced) takes the first three lines: a function without a frame of its own.
    /// Everything else is out of line (measured: 33 instructions a fire to 18, when
    /// the report's message and the signpost made this function save five registers).
    @usableFromInline
    final func enterFiring() -> (nesting: UnsafeMutablePointer<Int>, hazard: UnsafeMutableRawPointer?, traced: Bool)? {
        guard let thread = ThreadState.currentIfMade else { return enterFiringSlowly() }
        let depth = thread.pointee.nesting
        guard depth < DominoNode.maximumNestingDepth, !Tracing.tracesFires(firesTraced) else { return enterFiringSlowly() }
        thread.pointee.nesting = depth &+ 1
        return (ThreadState.nestingCount(thread), GraphLock.signalHazard(thread.pointee.pins, depth: depth), false)
    }

    /// `enterFiring` for a thread's first fire, a fire at the nesting limit, and a
    /// traced fire.
    @inline(never)
    private final func enterFiringSlowly() -> (nesting: UnsafeMutablePointer<Int>, hazard: UnsafeMutableRawPointer?, traced: Bool)? {
        let thread = ThreadState.current
        guard ThreadState.enterNesting(thread, "A fire of \(typeName)") else { return nil }
        // The thread state is heap memory of its own thread: the field's address
        // stays valid for the whole fire.
        let nesting = ThreadState.nestingCount(thread)
        let hazard = GraphLock.signalHazard(thread.pointee.pins, depth: nesting.pointee &- 1)
        guard Tracing.tracesFires(firesTraced) else { return (nesting, hazard, false) }
        Signposts.begin(.fire, id: ThreadState.signpostID(nesting: nesting), typeName)
        return (nesting, hazard, true)
    }

    /// Ends the signpost interval of a traced fire; `nesting` is what
    /// ``enterFiring()`` returned, not yet decremented.
    @usableFromInline
    final func endFireInterval(_ nesting: UnsafeMutablePointer<Int>) {
        Signposts.end(.fire, id: ThreadState.signpostID(nesting: nesting), "fired")
    }

    // MARK: Adding and removing

    /// Appends `entry`. Returns how many subscriptions are listed now, the limit,
    /// the number at which to purge, and the hook to call.
    final func add(_ entry: SignalSubscription) -> (listed: Int, limit: Int, purgeAt: Int, hook: Hook?) {
        lock()
        var previous: ObserverList?
        if list.hasRoom {
            list.append(entry)
        } else {
            // Full: a new list with room for as many again, so that the copy's cost
            // is spread over the adds that fill that room.
            previous = relistLocked(appending: entry)
        }
        listed += 1
        let result = (listed, maxSubscriptions, purgeAt, isClosed ? nil : subscriptionAdded)
        unlock()
        withExtendedLifetime(previous) {}
        return result
    }

    /// Removes `targets` from the list, marking them cancelled first when
    /// `cancelling`, and calls `subscriptionRemoved` for each one that was still listed,
    /// on this thread, after unlocking. O(1) amortized per target.
    ///
    /// Entries spent by a one-shot fire and entries whose observer died are removed
    /// without the cancelled mark: a spent observer's claimed delivery may still be
    /// queued and must run.
    @usableFromInline
    final func remove(_ targets: [SignalSubscription], cancelling: Bool) {
        guard !targets.isEmpty else { return }
        if cancelling {
            // Before the lock, so that fires already running see it as soon as possible.
            for entry in targets { entry.flags.insert(ObserverFlags.cancelled) }
        }
        lock()
        let (removed, previous) = unlistLocked(targets)
        let hook = isClosed ? nil : subscriptionRemoved
        unlock()
        // Released after unlocking (see `replaceLocked(with:)`).
        withExtendedLifetime(previous) {}
        for entry in cancelling ? targets : removed { entry.endOperators() }
        if let hook {
            for entry in removed { hook(entry) }
        }
    }

    /// Removes every subscription whose observer has deallocated, calling
    /// `subscriptionRemoved` for each; returns how many subscriptions remain.
    @discardableResult
    final func purge() -> Int {
        let snapshot = withLock { observers }
        // Outside the lock: a liveness check retains and releases the observer, and
        // that release may be its last.
        let dead = snapshot.filter { !$0.isObserverAlive }
        remove(dead, cancelling: false)
        return withLock {
            purgeAt = max(2 * listed, 8)
            return listed
        }
    }

    /// Empties the list. Lock held. Returns the subscriptions, in order, and the
    /// list they were in, for the caller to release after unlocking.
    private final func removeAllLocked() -> (entries: [SignalSubscription], list: ObserverList) {
        let removed = observers
        for entry in removed {
            entry.slot = -1
        }
        listed = 0
        return (removed, replaceLocked(with: ObserverList(capacity: 0)))
    }

    /// Empties the list, cancelling every entry, and calls `subscriptionRemoved` for
    /// each.
    final func removeAll() {
        lock()
        let (removed, previous) = removeAllLocked()
        let hook = isClosed ? nil : subscriptionRemoved
        unlock()
        withExtendedLifetime(previous) {}
        for entry in removed {
            entry.flags.insert(ObserverFlags.cancelled)
            entry.endOperators()
        }
        if let hook {
            for entry in removed { hook(entry) }
        }
    }

    /// Called by the signal's deinit: cancels every entry without calling hooks and
    /// drops the hooks. Handles the user still holds keep the core; what they do
    /// finds an empty list.
    final func close() {
        lock()
        isClosed = true
        let (removed, previous) = removeAllLocked()
        let hooks = (subscriptionAdded, subscriptionRemoved)
        subscriptionAdded = nil
        subscriptionRemoved = nil
        unlock()
        withExtendedLifetime(previous) {}
        for entry in removed {
            entry.flags.insert(ObserverFlags.cancelled)
            entry.endOperators()
        }
        // Released here, after unlocking: the last reference to an entry, a hook or
        // what they capture may be among them.
        withExtendedLifetime(hooks) {}
    }
}

/// A signal's core with the last values it fired.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline
final class TypedSignalCore<each Value: Sendable>: SignalCore, @unchecked Sendable {
    /// Where the last values fired start in `fireWords`: after the lock and the
    /// fire count, aligned for them. A constant where the values' types are known.
    @inlinable
    static var valuesOffset: Int {
        let alignment = MemoryLayout<(repeat each Value)?>.alignment
        return (16 + alignment - 1) / alignment * alignment
    }

    /// The last values fired, or nil, in `fireWords` (see `SignalCore.fireWords`).
    /// Guarded by the lock, as the rest of the core.
    @inlinable
    var lastFired: UnsafeMutablePointer<(repeat each Value)?> {
        (fireWords + Self.valuesOffset).assumingMemoryBound(to: (repeat each Value)?.self)
    }

    init(maxSubscriptions: Int) {
        var names: [String] = []
        repeat names.append(String(describing: (each Value).self))
        super.init(
            typeName: "Signal<\(names.joined(separator: ", "))>", maxSubscriptions: maxSubscriptions,
            valuesOffset: Self.valuesOffset,
            valuesSize: MemoryLayout<(repeat each Value)?>.size,
            valuesAlignment: MemoryLayout<(repeat each Value)?>.alignment
        )
        (fireWords + Self.valuesOffset).initializeMemory(as: (repeat each Value)?.self, repeating: nil, count: 1)
    }

    deinit {
        // The values may hold the last reference to a user object: released here,
        // where no lock is held (the core's deinit runs when nothing else uses it).
        lastFired.deinitialize(count: 1)
    }
}
