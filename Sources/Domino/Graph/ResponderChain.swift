internal import Atomics

/// An object that knows the next object up its chain, as `UIResponder.next` and
/// `NSResponder.nextResponder` do.
///
/// A node created for a responder (``DominoNode/init(label:responder:)``) continues
/// its routes to the node of the next responder up the chain that has one, without
/// any mounting (Domino: "there is a default event chain along the responder chain").
/// Responders without a node are skipped. The responder-chain successor comes first
/// on the route, then the node's mounted parents; a node reached both ways is
/// visited once.
///
/// The chain is main-actor state by default, as UIKit's is: a `@MainActor` class
/// conforms as it is, with no `nonisolated` and no `assumeIsolated`.
///
/// ```swift
/// @MainActor final class Coordinator: DominoResponder {
///     weak var parent: Coordinator?
///     var nextDominoResponder: (any DominoResponder)? { parent }
///     lazy var domino = DominoNode(label: "coordinator", responder: self)
/// }
/// ```
///
/// Domino reads the chain on the main thread only; posts from other threads follow
/// the links it read there last. A responder whose chain may be read on any thread
/// (a plain model object) says so, and is then read on the posting thread:
///
/// ```swift
/// final class CardView: DominoResponder {
///     weak var superview: StackView?
///     nonisolated var nextDominoResponder: (any DominoResponder)? { superview }
///     nonisolated static var readsChainOnMainThreadOnly: Bool { false }
///     lazy var domino = DominoNode(label: "card", responder: self)
/// }
/// ```
///
/// UIKit's `UIResponder` and AppKit's `NSResponder` conform already, with a
/// `dominoNode` created on first use.
public protocol DominoResponder: AnyObject {
    /// The next responder up the chain, or nil at its top.
    ///
    /// Domino reads it outside its locks each time a post passes a node of this
    /// responder, so the route follows the chain as it is now: on the main thread,
    /// or on the posting thread when ``readsChainOnMainThreadOnly`` is false.
    @MainActor var nextDominoResponder: (any DominoResponder)? { get }

    /// True (the default) when the chain may only be read on the main thread, as
    /// UIKit's and AppKit's. Posts from other threads then follow the links that
    /// Domino found the last time it read the chain on the main thread.
    ///
    /// Return false only when ``nextDominoResponder`` is nonisolated and safe to read
    /// on any thread: Domino then reads it on the posting thread.
    static var readsChainOnMainThreadOnly: Bool { get }
}

extension DominoResponder {
    /// True: the chain is read on the main thread only.
    public static var readsChainOnMainThreadOnly: Bool { true }
}

extension DominoResponder {
    /// `nextDominoResponder`, read where the caller has checked it may be: on the
    /// main thread, or anywhere for a responder that declared its chain readable on
    /// any thread. Isolation is asserted the way `MainActor.assumeIsolated` does it.
    func nextResponderAssumingReadable() -> (any DominoResponder)? {
        // A function of its own, the responder an argument: a closure capturing it
        // (or `Self`'s metadata) was allocated at every read (measured: one
        // allocation per responder a post passed).
        let read: @MainActor (any DominoResponder) -> (any DominoResponder)? = readNextDominoResponder
        return unsafeBitCast(read, to: ((any DominoResponder) -> (any DominoResponder)?).self)(self)
    }
}

/// `responder.nextDominoResponder`, for `nextResponderAssumingReadable()`.
@MainActor private func readNextDominoResponder(_ responder: any DominoResponder) -> (any DominoResponder)? {
    responder.nextDominoResponder
}

/// A node's place in a responder chain. `host` and the constants are set once, at
/// the node's creation; `successor` and `followers` are guarded by `graphLock`, and
/// `successor` is also published for walks up without a lock.
///
/// A node's deinit retires its link shared (`Graveyard.retireShared`), so that a walk
/// pinned without a lock that read the node may read its link's successor.
final class ResponderLink: @unchecked Sendable {
    /// The nodes whose successor is this node (responder-chain children): first, so
    /// that `followers` finds it at the start of the stored properties (see
    /// `NodeListRef`); read only under the lock.
    @exclusivity(unchecked) private var followerList = NodeList()
    /// `successor`'s node address, or 0: second, so that `successorAddress` finds it.
    @exclusivity(unchecked) private var successorWord: UInt = 0
    /// `readPathRegistrations`' bit pattern: third, so that
    /// `readPathRegistrationsAddress` finds it.
    @exclusivity(unchecked) private var readPathRegistrationsWord = UInt(bitPattern: -1)
    /// The host, held without keeping it alive; kept in a `WeakResponder` so that
    /// a census can copy the reference without loading the host (see `ChainCensus`).
    let hostReference: WeakResponder
    /// The host, if alive: a strong reference, to be released outside the lock (it
    /// may be the last one).
    var host: (any DominoResponder)? { hostReference.value }
    let hostID: ObjectIdentifier
    let readsOnMainThreadOnly: Bool
    /// The node of the next responder that has one, as last resolved. Set under the
    /// exclusive lock inside `graphLock.changingLinks` (a walk without a lock reads
    /// its route between two equal link sequences), with a releasing store; read
    /// plainly under the lock, and without it through `publishedSuccessor`.
    var successor: NodeLink? {
        @inline(__always) get {
            UnsafeMutableRawPointer(bitPattern: successorAddress.load(as: UInt.self)).map(NodeLink.init(pointer:))
        }
        set {
            AtomicWord.storeReleasing(successorAddress, newValue.map { UInt(bitPattern: $0.pointer) } ?? 0)
        }
    }

    /// `successor` for a walk pinned without a lock: an acquiring load.
    @inline(__always)
    var publishedSuccessor: NodeLink? {
        UnsafeMutableRawPointer(bitPattern: AtomicWord.load(successorAddress)).map(NodeLink.init(pointer:))
    }

    /// Where `successorWord` is: the second stored property.
    @inline(__always)
    private var successorAddress: UnsafeMutableRawPointer {
        firstStoredProperty(of: self) + MemoryLayout<NodeList>.stride
    }
    /// Where `readPathRegistrationsWord` is: the third stored property.
    @inline(__always)
    private var readPathRegistrationsAddress: UnsafeMutableRawPointer {
        successorAddress + MemoryLayout<UInt>.stride
    }
    /// The nodes whose successor is this node (responder-chain children).
    @inline(__always)
    var followers: NodeListRef { NodeListRef(at: firstStoredProperty(of: self)) }
    /// False once the node stops following its responder chain (see
    /// ``DominoNode/followsResponderChain``).
    @exclusivity(unchecked) var followsChain = true
    /// The order in which the node was created among responder nodes, so that
    /// `refreshEveryResponderChain` resolves them, and appends them to followers,
    /// in a stable order. Set once, under the exclusive lock.
    @exclusivity(unchecked) var registration = 0
    /// The link generation this node's registration moved `ResponderRegistry.generation`
    /// to (see `RouteReading`). Set once, under the exclusive lock.
    @exclusivity(unchecked) var registeredAt = 0
    /// The link generation at which a refresh found every link on this node's route
    /// read, or nil (see `RouteReading`). Written under the exclusive lock.
    @exclusivity(unchecked) var routeReadAt: Int?
    /// The responder next above the host when its chain was last found too long (a
    /// cycle of responders without nodes?), so that posts do not walk it again while
    /// the host still leads there; nil otherwise. Written under the exclusive lock.
    @exclusivity(unchecked) var tooLongAbove: WeakResponder?
    /// True once the chain was read (`successor` then says where it leads, nil
    /// included). Written under the exclusive lock.
    @exclusivity(unchecked) var wasRead = false
    /// True once the node this link led to went (its deinit cut the link) or was
    /// found without its host (a gone responder is on no chain), until the link is
    /// installed again: a walk that resolved it before resolves it again
    /// (`ResponderRegistry.isResolvedAgain`), else a post on another thread whose
    /// chain's middle was replaced and released meanwhile ended its route there and
    /// reached no handler above (session 41: 1 post in 500 in the stress test).
    /// Written under the exclusive lock.
    @exclusivity(unchecked) var successorWent = false
    /// True once a resolution found the host gone. A link installed to lead here
    /// stays marked (`successorWent`): a reading made while the host lived is
    /// stale once it is gone. Written under the exclusive lock.
    @exclusivity(unchecked) var hostWent = false
    /// The ticket of the newest resolution whose reading this link holds, or that
    /// found the link as it read it (`ResponderRegistry.takeResolutionTicket`), so
    /// that one that began reading before it does not overwrite it. Raised under
    /// the exclusive lock, or under a stripe by a resolution that found the link as
    /// it read it and writes nothing else (`confirm(ticket:)`): atomic, since
    /// several stripes' holders may raise it at once.
    let installedTicket = ManagedAtomic<Int>(0)

    /// Raises `installedTicket` to `ticket` unless it is higher already. Lock held
    /// (a stripe is enough: an install, which reads it, holds the exclusive lock).
    func confirm(ticket: Int) {
        var current = installedTicket.load(ordering: .relaxed)
        while current < ticket {
            let (exchanged, original) = installedTicket.compareExchange(expected: current, desired: ticket, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
    /// The responders the last resolution read above the host, in order: up to the
    /// one whose node is `successor`, or to the last one, whose next responder was
    /// nil. `readPathRegistrations` is `ResponderRegistry.registrations` when it
    /// was read (-1: no path, as after a chain found too long); the path stays valid
    /// while no responder on it gets a node (see `holdsValidPath(now:)`). A walk that reads
    /// the same responders again knows the link unchanged without resolving it (see
    /// `ChainCensus`). Written under the exclusive lock.
    ///
    /// `readPathRegistrations` is written under the exclusive lock, and raised under
    /// a stripe by `holdsValidPath(now:)`, always to the registry's count then, which
    /// no stripe's holder can change: several may store the same number at once,
    /// so the word is atomic (relaxed: every reader holds the lock).
    @exclusivity(unchecked) var readPath: [ObjectIdentifier] = []
    var readPathRegistrations: Int {
        @inline(__always) get {
            Int(bitPattern: AtomicWord.atomic(readPathRegistrationsAddress).load(ordering: .relaxed))
        }
        set {
            AtomicWord.atomic(readPathRegistrationsAddress).store(UInt(bitPattern: newValue), ordering: .relaxed)
        }
    }

    /// True when `readPath` still tells where the chain leads, read along the same
    /// responders: no responder on it got a node since it was read. Raises
    /// `readPathRegistrations` to the registry's count when it had moved, so that
    /// the next check is one compare (a link whose chain holds is never installed
    /// again). Lock held.
    ///
    /// A link cut since (its successor's node went: `successorWent`) is no
    /// exception: it now leads nowhere, and its path, which ends at the host of the
    /// node that went, holds only while that host has no node (a new one is a
    /// registration on the path) and its chain ends there, which the walk's read
    /// finds.
    ///
    /// Not every change of the registry (`ResponderRegistry.membership`), as until
    /// session 42: a node released leaves every path valid (the responders a path
    /// passed had none; a node it led to cuts the link and marks it, see
    /// `DominoNode.unregisterLocked`), and a node made stales only the paths that
    /// pass its responder. Before, any responder node made or released anywhere (a
    /// cell's, between two posts) made the next post along every route resolve
    /// every link of it: a post up 10 responder nodes about 37,000 instructions
    /// against 2,700.
    ///
    /// - Parameter now: `ResponderRegistry.registrations`, which a caller checking
    ///   many links loads once.
    @inline(__always)
    func holdsValidPath(now: Int) -> Bool {
        let since = readPathRegistrations
        if since == now { return true }
        return holdsPathReadBefore(since, now: now)
    }

    /// `holdsValidPath(now:)` for a path read at an older count (`since`): checked
    /// against the responders registered since when they are few
    /// (`ResponderRegistry.registered(_:)`; then the last responder too, which a new
    /// node of its host leaves in doubt), else against the registry
    /// (`ResponderRegistry.noneHasANode(on:endingAt:)`). The path's responders are
    /// read in place here: passed to a function, the array was retained and
    /// released for the call (measured: about 45 instructions a link).
    @inline(never)
    private func holdsPathReadBefore(_ since: Int, now: Int) -> Bool {
        guard since >= 0 else { return false }
        if now &- since <= ResponderRegistry.recentCount {
            var number = since &+ 1
            while number <= now {
                let registered = ResponderRegistry.registered(number)
                var index = 0
                while index < readPath.count {
                    if UInt(bitPattern: readPath[index]) == registered { return false }
                    index &+= 1
                }
                number &+= 1
            }
        } else if !ResponderRegistry.noneHasANode(on: readPath, endingAt: successor) {
            return false
        }
        readPathRegistrations = now
        return true
    }

    /// True once a walk off the main thread was cut short here, before the chain was
    /// ever read, and said so (``Diagnostic/Code/responderChainUnread``, once per
    /// node). Written under the exclusive lock.
    @exclusivity(unchecked) var reportedUnread = false

    /// True when `followerList` is where `followers` looks, `successorWord` where
    /// `successor` does, and `readPathRegistrationsWord` where
    /// `readPathRegistrations` does (for tests).
    var followersAreWhereReadersLook: Bool {
        let base = firstStoredProperty(of: self)
        return base == _getUnsafePointerToStoredProperties(self)
            && withUnsafeMutablePointer(to: &followerList) { UnsafeMutableRawPointer($0) == base }
            && withUnsafeMutablePointer(to: &successorWord) { UnsafeMutableRawPointer($0) == successorAddress }
            && withUnsafeMutablePointer(to: &readPathRegistrationsWord) { UnsafeMutableRawPointer($0) == readPathRegistrationsAddress }
    }

    init(host: any DominoResponder) {
        hostReference = WeakResponder(host)
        hostID = ObjectIdentifier(host)
        readsOnMainThreadOnly = type(of: host).readsChainOnMainThreadOnly
    }
}

/// A responder held without keeping it alive. Copying one copies the reference
/// itself, without a strong load of the responder: a copy made under the lock, or
/// on a thread that may not release the responder (a view off the main thread),
/// keeps nothing alive.
///
/// As a signal's observers (`ObserverReference`): with the Objective-C runtime a
/// `weak` reference, since a responder may be an Objective-C object (a `UIView`)
/// whose counts the Swift runtime's `tryRetain` does not know. Elsewhere every
/// responder is a native Swift object, held by an `UnownedReference`, which gives
/// it no side table: a `weak` reference did, and every retain and release of it,
/// Domino's walks' and the app's own, took the slow path (measured: a post up 10
/// responder nodes 10,190 instructions to 6,800, most of the difference the
/// responders' counts).
#if canImport(ObjectiveC)
struct WeakResponder: @unchecked Sendable {
    private weak var object: (any DominoResponder)?

    init(_ value: any DominoResponder) {
        object = value
    }

    /// The responder, retained, or nil once its deinit has begun.
    var value: (any DominoResponder)? { object }


    /// True when this refers to `responder`, alive. Loads the reference only when
    /// the identities match, and then `responder`, alive, holds it too: this never
    /// releases the last reference to anything.
    func refers(to responder: any DominoResponder, recordedAs id: ObjectIdentifier) -> Bool {
        guard id == ObjectIdentifier(responder) else { return false }
        return object === responder
    }

    /// True when this refers to `responder` (alive, since the caller holds it).
    func refers(to responder: any DominoResponder) -> Bool {
        object === responder
    }

    /// This reference, to be read where a copy of it would cost (see
    /// `UnretainedResponder`).
    var unretained: UnretainedResponder { UnretainedResponder(reference: self) }
}

/// A `WeakResponder` for a loop that reads many (`ChainCensus`). With the
/// Objective-C runtime, the weak reference itself.
struct UnretainedResponder: @unchecked Sendable {
    fileprivate let reference: WeakResponder

    /// `body`'s result with the responder, held while it runs; nil once the
    /// responder's deinit has begun.
    func whileAlive<Result>(_ body: (any DominoResponder) -> Result) -> Result? {
        reference.value.map(body)
    }

    /// Retains the responder unless its deinit has begun; true then, and the caller
    /// releases it with `release()`.
    func retainIfAlive() -> Bool {
        guard let value = reference.value else { return false }
        _ = Unmanaged.passRetained(value as AnyObject)
        return true
    }

    /// Releases the reference `retainIfAlive()` took.
    func release() {
        guard let value = reference.value else { return }
        Unmanaged.passUnretained(value as AnyObject).release()
    }

    /// `body`'s result with the responder, which the caller holds
    /// (`retainIfAlive()`) and which is released once `body` returns.
    func releasingHeld<Result>(_ body: (any DominoResponder) -> Result) -> Result {
        defer { release() }
        return body(reference.value.unsafelyUnwrapped)
    }

    /// See `WeakResponder.refers(to:recordedAs:)`.
    func refers(to responder: any DominoResponder, recordedAs id: ObjectIdentifier) -> Bool {
        reference.refers(to: responder, recordedAs: id)
    }
}
#else
struct WeakResponder: @unchecked Sendable {
    // Never read: holding it keeps the responder's memory allocated, so that
    // `unretained`'s address stays valid (see `UnownedReference`, which this is with
    // the existential beside the address).
    private unowned let keeper: AnyObject
    /// This reference as trivial words, to be read where a copy of the reference
    /// would cost, or would retain the responder under the lock (see
    /// `UnretainedResponder`). Stored, not made when asked: making one copies the
    /// existential, a retain and a release of the responder, which a debug build
    /// does even where an optimized one does not, and a release under the lock
    /// may be a responder's last (a deadlock seen in ResponderBroadcastRaceTests).
    let unretained: UnretainedResponder

    init(_ value: any DominoResponder) {
        keeper = value
        unretained = UnretainedResponder(object: value)
    }

    /// The responder, retained, or nil once its deinit has begun.
    var value: (any DominoResponder)? { unretained.whileAlive { $0 } }

    /// True when this refers to `responder`, alive: `id` is this reference's own
    /// identity, as recorded, so the address alone decides (see `UnownedReference`).
    func refers(to responder: any DominoResponder, recordedAs id: ObjectIdentifier) -> Bool {
        unretained.refers(to: responder, recordedAs: id)
    }

    /// True when this refers to `responder` (alive, since the caller holds it).
    func refers(to responder: any DominoResponder) -> Bool {
        unretained.refers(to: responder, recordedAs: ObjectIdentifier(responder))
    }
}

/// A `WeakResponder` for a loop that reads many (`ChainCensus`): the existential's
/// two words (the responder's address and its witness table), trivial words that a
/// loop reads without copying a reference (a `WeakResponder` read from an array was
/// copied, an unowned retain and release each, about 72 instructions), made into the
/// responder only once `tryRetain` holds it. Valid only while a `WeakResponder` to
/// the same responder exists, which keeps its memory.
struct UnretainedResponder: @unchecked Sendable {
    /// The responder's address, the existential's first word.
    private let address: UnsafeMutableRawPointer
    /// The existential's second word: its witness table.
    private let witnesses: UnsafeRawPointer

    /// Made by a `WeakResponder` from a responder the caller holds. The
    /// existential's words are read from memory it is stored in, typed as an
    /// existential: an `unsafeBitCast` of it to two words was specialized by the
    /// optimizer for the responder's own type where that was known (one word: a
    /// trap in release builds).
    fileprivate init(object: any DominoResponder) {
        var words: (UnsafeRawPointer?, UnsafeRawPointer?) = (nil, nil)
        withUnsafeMutablePointer(to: &words) { words in
            words.withMemoryRebound(to: (any DominoResponder).self, capacity: 1) { stored in
                stored.initialize(to: object)
            }
        }
        address = UnsafeMutableRawPointer(mutating: words.0.unsafelyUnwrapped)
        witnesses = words.1.unsafelyUnwrapped
        // The copy `initialize` retained.
        Unmanaged<AnyObject>.fromOpaque(address).release()
    }

    /// `body`'s result with the responder made from the reference the caller took
    /// (`tryRetain`, `retainIfAlive()`), which it consumes: released once `body`
    /// returns. Made from the words in place of copying an `unowned(unsafe)`
    /// existential, which cost a retain and a release of the responder more at each
    /// read (measured: about 40 instructions a node a walk reads the chain of).
    @inline(__always)
    private func consumingHeld<Result>(_ body: (any DominoResponder) -> Result) -> Result {
        var words = (UnsafeRawPointer(address), witnesses)
        let responder = withUnsafeMutablePointer(to: &words) { words in
            words.withMemoryRebound(to: (any DominoResponder).self, capacity: 1) { $0.move() }
        }
        return body(responder)
    }

    /// `body`'s result with the responder, held while it runs; nil once its deinit
    /// has begun.
    @inline(__always)
    func whileAlive<Result>(_ body: (any DominoResponder) -> Result) -> Result? {
        guard tryRetain(address) != nil else { return nil }
        return consumingHeld(body)
    }

    /// Retains the responder unless its deinit has begun; true then, and the caller
    /// releases it with `release()`. Its memory must be allocated (see the type's
    /// comment, or `ChainCensus.holdHosts`).
    @inline(__always)
    func retainIfAlive() -> Bool {
        tryRetain(address) != nil
    }

    /// Releases the reference `retainIfAlive()` took.
    @inline(__always)
    func release() {
        Unmanaged<AnyObject>.fromOpaque(address).release()
    }

    /// `body`'s result with the responder, which the caller holds
    /// (`retainIfAlive()`) and which is released once `body` returns.
    @inline(__always)
    func releasingHeld<Result>(_ body: (any DominoResponder) -> Result) -> Result {
        consumingHeld(body)
    }

    /// True when this refers to `responder`, alive: by address (see
    /// `WeakResponder.refers(to:recordedAs:)`).
    @inline(__always)
    func refers(to responder: any DominoResponder, recordedAs id: ObjectIdentifier) -> Bool {
        address == Unmanaged.passUnretained(responder as AnyObject).toOpaque()
    }
}
#endif

/// Which node belongs to which responder. Guarded by `graphLock`.
enum ResponderRegistry {
    @exclusivity(unchecked) nonisolated(unsafe) static var nodes: [ObjectIdentifier: NodeLink] = [:]
    /// Set under the exclusive lock when the first responder node is created; sticky,
    /// so that programs without responders never pay for looking.
    @exclusivity(unchecked) nonisolated(unsafe) static var exist = false
    /// Bumped under the exclusive lock whenever a successor link changes, so that a
    /// walk can tell whether the links it collected along are still the current ones;
    /// also when a responder node is registered or a node mounted, after which a route
    /// may lead through links never read on it (see `RouteReading`).
    @exclusivity(unchecked) nonisolated(unsafe) static var generation = 0
    /// How many responder nodes were created (see `ResponderLink.registration`).
    /// A path read when it was N stays valid while no responder on it got a node
    /// (`ResponderLink.holdsValidPath(now:)`).
    @exclusivity(unchecked) nonisolated(unsafe) static var registrations = 0
    /// How many of the last registrations `registered(_:)` tells.
    static let recentCount = 16
    /// The responders of the last `recentCount` registrations, registration N's in
    /// slot N % `recentCount` (`ObjectIdentifier` bit patterns), so that a path
    /// read a few registrations ago is checked against those few rather than the
    /// registry (`ResponderLink.holdsValidPath(now:)`). Made at the first
    /// registration (a global with a constant initial value: one made on first use
    /// was a `swift_once` at each read); written under the exclusive lock.
    @exclusivity(unchecked) nonisolated(unsafe) private static var recentlyRegistered: UnsafeMutablePointer<UInt>?

    /// Counts a registration of a node for the responder `id`. Exclusive lock held.
    static func countRegistration(of id: ObjectIdentifier) -> Int {
        if recentlyRegistered == nil {
            let slots = UnsafeMutablePointer<UInt>.allocate(capacity: recentCount)
            slots.initialize(repeating: 0, count: recentCount)
            recentlyRegistered = slots
        }
        registrations &+= 1
        recentlyRegistered.unsafelyUnwrapped[registrations & (recentCount &- 1)] = UInt(bitPattern: id)
        return registrations
    }

    /// The responder of registration `number`, one of the last `recentCount`
    /// (`ObjectIdentifier`'s bit pattern). Lock held, after a registration.
    @inline(__always)
    static func registered(_ number: Int) -> UInt {
        recentlyRegistered.unsafelyUnwrapped[number & (recentCount &- 1)]
    }

    /// True when no responder of `path` but the last (the host of `successor`, when
    /// there is one: its node is `successor` until its deinit cuts the link) has a
    /// node now. Lock held.
    static func noneHasANode(on path: [ObjectIdentifier], endingAt successor: NodeLink?) -> Bool {
        var passed = path.count
        if let successor {
            guard passed > 0, nodes[path[passed &- 1]] == successor else { return false }
            passed &-= 1
        }
        for index in 0..<passed where nodes[path[index]] != nil { return false }
        return true
    }
    /// The last resolution ticket taken (see `takeResolutionTicket()`): an object of
    /// its own, off the lines walks read, as each link's `installedTicket` is.
    private static let resolutionTickets = ManagedAtomic<Int>(0)

    /// A number larger than every one taken before, for a resolution about to read a
    /// chain: an install keeps a link's reading only from a resolution that began
    /// reading after the one it holds (`ResponderLink.installedTicket`). Without it,
    /// a walk on one thread that read a chain before another thread changed it could
    /// install what it read after that thread's own post had read the chain again
    /// and installed it, and that post then went along the old chain (found by
    /// `ResponderModelTests`, two threads at once). Any lock or none.
    static func takeResolutionTicket() -> Int {
        resolutionTickets.wrappingIncrementThenLoad(ordering: .sequentiallyConsistent)
    }
    /// Bumped under the exclusive lock whenever a responder node is registered or
    /// unregistered: while it stays, the responders that have a node stay the same,
    /// and so does where a chain read along the same responders leads. A reading
    /// that spans a change is not remembered (`ReadPath.remember(in:)`), and a
    /// census's reads count only when it did not move during them
    /// (`ChainCensus.check`); a path remembered before stays valid while no
    /// responder on it gets a node (`ResponderLink.holdsValidPath(now:)`). Changed
    /// under the exclusive lock; read under a stripe, or without a lock where that
    /// is enough (`ChainCensus.check`).
    static var membership: Int {
        get { Int(bitPattern: GraphLock.responderMembership) }
        set { GraphLock.responderMembership = UInt(bitPattern: newValue) }
    }
    /// Bumped under the exclusive lock whenever anything a `ChainCensus` copies of a
    /// link changes (its successor, its read path, whether it was read or follows its
    /// chain) or a responder node is registered or unregistered: a census is valid
    /// while it stays. In a word of the graph lock's (`GraphLock.linksWritten`), so
    /// that a post reading its route without a lock can compare it with its route
    /// census.
    static var linksWritten: Int {
        get { GraphLock.linksWritten }
        set { GraphLock.linksWritten = newValue }
    }
    /// The census of walks down on the main thread, and of walks elsewhere, as last
    /// taken; replaced under the exclusive lock once `linksWritten` moved past it.
    @exclusivity(unchecked) nonisolated(unsafe) static var mainThreadCensus: ChainCensus?
    @exclusivity(unchecked) nonisolated(unsafe) static var otherThreadCensus: ChainCensus?

    /// The census a walk on the main thread or elsewhere may use, retained (to be
    /// released outside the lock); nil when there is none for the links as they
    /// are. Lock held.
    static func census(onMainThread: Bool) -> ChainCensus? {
        // The word first: loaded after the census, an atomic load the optimizer
        // cannot see through, it cost the census a retain and a release more.
        let written = linksWritten
        let census = onMainThread ? mainThreadCensus : otherThreadCensus
        guard let census, census.linksWritten == written else { return nil }
        return census
    }

    /// A census of the links as they are for walks on the main thread or elsewhere,
    /// taken now unless a walk took it meanwhile, and kept for the walks after it.
    /// Takes the exclusive lock; what it replaces is released outside it.
    static func takeCensus(onMainThread: Bool) -> ChainCensus {
        graphLock.withExclusive { graveyard in
            if let census = census(onMainThread: onMainThread) { return census }
            ThreadState.current.pointee.censusesTaken &+= 1
            // Taken again in the memory of the census it replaces when no walk holds
            // that one (no allocation); else anew, the old one to the graveyard.
            // Out of line: inlined, it cost a retain and a release more.
            @inline(never) func retakenInPlace(_ kept: inout ChainCensus?) -> ChainCensus? {
                guard isKnownUniquelyReferenced(&kept) else { return nil }
                kept.unsafelyUnwrapped.retake(route: nil, onMainThread: onMainThread)
                return kept
            }
            if let census = onMainThread ? retakenInPlace(&mainThreadCensus) : retakenInPlace(&otherThreadCensus) {
                return census
            }
            let census = ChainCensus(onMainThread: onMainThread)
            let replaced = onMainThread ? mainThreadCensus : otherThreadCensus
            if let replaced { graveyard.add(replaced) }
            if onMainThread { mainThreadCensus = census } else { otherThreadCensus = census }
            return census
        }
    }

    /// Drops both censuses, into `graveyard` (released outside the lock), when a
    /// responder node goes: an unowned reference to its host keeps the host's memory.
    /// Exclusive lock held.
    static func dropCensuses(_ graveyard: inout Graveyard) {
        if let census = mainThreadCensus { graveyard.add(census) }
        if let census = otherThreadCensus { graveyard.add(census) }
        mainThreadCensus = nil
        otherThreadCensus = nil
    }
}

/// What one ``DominoNode/refreshResponderChain()`` may leave unread, and whether it
/// read everything it met, so that refreshing each node of a deep chain from the top
/// down reads each link once (issue 28: each call read the whole route above again,
/// quadratic in all).
///
/// A node's `routeReadAt` says that at that link generation every link on its route
/// had been read. A refresh goes no further up from such a node while the generation
/// moved only by its own installs since, because after each install that changed a
/// link it reads the route the new link leads to; `trusted` runs from the generation
/// it started from to its last install, and any other change starts it afresh.
/// Posts read their whole route every time and trust nothing.
struct RouteReading {
    /// The stamps that prune the walk; nil for posts, which prune nothing.
    private(set) var trusted: ClosedRange<Int>?
    /// False once a link was left unread (one read on the main thread only, on
    /// another thread): the route is then not stamped.
    var complete = true
    /// Whether a chain found too long is walked again (a refresh), or taken as cut
    /// off while the host leads to the same responder (posts, walks down).
    let rereadsTooLongChains: Bool
    /// True once a link that was never read could not be read here (off the main
    /// thread): the route leaves out whatever that chain leads to.
    var cutShort = false
    /// False for the reading of every responder chain that walks down do: a link
    /// they cannot read is not on the walk's route, so it is not reported.
    var reportsUnread = true

    static let post = RouteReading(trusted: nil, rereadsTooLongChains: false)

    private init(trusted: ClosedRange<Int>?, rereadsTooLongChains: Bool) {
        self.trusted = trusted
        self.rereadsTooLongChains = rereadsTooLongChains
    }

    /// A refresh from `start` that collected its route at `generation`. Lock held.
    init(refreshing start: DominoNode, collectedAt generation: Int) {
        // When the last change was `start`'s own registration (a node made on first
        // use, then refreshed), routes above it are as read before: only chains from
        // below can pass through its responder.
        let registeredLast = start.responderLink?.registeredAt == generation
        self.init(trusted: (registeredLast ? generation &- 1 : generation)...generation, rereadsTooLongChains: true)
    }

    /// True when `node`'s route was read at a trusted generation. Lock held.
    func prunes(_ node: DominoNode) -> Bool {
        guard let trusted, let stamp = node.responderLink?.routeReadAt else { return false }
        return trusted.contains(stamp)
    }

    /// The walk was collected again, at `generation`.
    mutating func collected(at generation: Int) {
        guard let current = trusted, current.upperBound != generation else { return }
        trusted = generation...generation
    }

    /// An install left the link generation at `generation`; `changed` when it
    /// changed the link.
    mutating func installed(at generation: Int, changed: Bool) {
        guard let current = trusted, current.upperBound != generation else { return }
        // Exactly one more: the change was this install's, and its route is read next.
        let own = changed && generation == current.upperBound &+ 1 && current.lowerBound <= generation
        trusted = own ? current.lowerBound...generation : generation...generation
    }
}

extension DominoNode {
    /// How many responders without a node Domino follows from one node before it
    /// gives up (a cycle of `nextDominoResponder`?) and reports
    /// ``Diagnostic/Code/responderChainTooLong``.
    ///
    /// It reports it once. While the node's responder still leads to the same next
    /// responder, later posts stop there after reading that one link;
    /// ``refreshResponderChain()`` walks the chain again.
    public static let maximumResponderChainLength = 1_000

    /// Registers a new node for `responder`. Exclusive lock held.
    func registerLocked(responder link: ResponderLink) {
        ResponderRegistry.nodes[link.hostID] = NodeLink(self)
        ResponderRegistry.exist = true
        graphLock.publishRespondersExist()
        link.registration = ResponderRegistry.countRegistration(of: link.hostID)
        ResponderRegistry.membership &+= 1
        ResponderRegistry.linksWritten &+= 1
        // Chains read before may pass through this responder, leading past its node.
        ResponderRegistry.generation &+= 1
        link.registeredAt = ResponderRegistry.generation
    }

    /// Unlinks this node from the responder chain in its deinit. Exclusive lock held.
    func unregisterLocked(responder link: ResponderLink, _ graveyard: inout Graveyard) {
        if ResponderRegistry.nodes[link.hostID]?.refers(to: self) == true {
            ResponderRegistry.nodes[link.hostID] = nil
        }
        link.successor?.withNode { _ = $0.responderLink?.followers.remove(self, &graveyard) }
        graphLock.changingLinks {
            link.successor = nil
            link.followers.forEach { follower in
                guard let followerLink = follower.responderLink else { return }
                followerLink.successor = nil
                followerLink.successorWent = true
            }
        }
        link.followers.removeAll(&graveyard)
        ResponderRegistry.generation &+= 1
        ResponderRegistry.membership &+= 1
        ResponderRegistry.linksWritten &+= 1
        ResponderRegistry.dropCensuses(&graveyard)
    }

    /// The node the responder chain leads to from here, as last resolved.
    ///
    /// Read again by every post that passes this node, by every broadcast, raise
    /// and delivery to the deepest subscriber (resolved again only when the chain
    /// passes other responders than it did, or a responder node was made or dropped
    /// since), and resolved by ``refreshResponderChain()``.
    var resolvedSuccessor: DominoNode? {
        graphLock.withShared { responderLink?.successor?.retainIfAlive() }
    }

    /// True (the default) while a responder's node continues its routes along the
    /// responder chain; always false for a node made without a responder.
    ///
    /// Set it to false where an object's routes must go elsewhere first: a UIKit view
    /// embedded in SwiftUI (DominoSwiftUI's `DominoScope/embed(_:)` does it), whose
    /// responder chain would skip the SwiftUI views that embed it. The node then
    /// goes up only to the nodes it is mounted at; the responders below it still
    /// lead to it.
    ///
    /// ```swift
    /// mapView.dominoNode.followsResponderChain = false
    /// mapView.dominoNode.mount(at: placeScreenNode)
    /// ```
    public var followsResponderChain: Bool {
        get { graphLock.withShared { responderLink?.followsChain ?? false } }
        set {
            guard let link = responderLink else { return }
            graphLock.withExclusive { _ in
                link.followsChain = newValue
                ResponderRegistry.linksWritten &+= 1
            }
            if newValue {
                refreshResponderChain()
            } else {
                _ = install(successor: nil, in: link, ticket: ResponderRegistry.takeResolutionTicket())
            }
        }
    }

    /// Reads the responder chain from this node up now, so that inspection
    /// (``children`` of the nodes above, ``routeNodes``) reflects it before anything is
    /// posted. Posts do this on their own, and walks down (broadcast, raise) read
    /// every responder node's chain.
    ///
    /// This node's own chain is always read. The route above is read up to the nodes
    /// whose routes an earlier refresh read with no link changed, no responder node
    /// created and nothing mounted since, so that refreshing each node of a deep
    /// chain from the top down reads each link once. A responder that moves without
    /// Domino seeing a change is read by the next post that passes it, or by
    /// refreshing its own node (UIKit's `didMoveToSuperview()`).
    ///
    /// A chain that was found too long (see ``maximumResponderChainLength``) is
    /// walked again here, where posts take it as it was while its first link stays.
    public func refreshResponderChain() {
        let onMainThread = DeliveryMode.mainThread.isCurrent(ThreadState.current)
        var refreshed: [DominoNode] = []
        var reading: RouteReading?
        while true {
            let (pending, walked, seen) = graphLock.withShared { () -> ([DominoNode], [ResponderLink], Int) in
                let seen = ResponderRegistry.generation
                if reading == nil {
                    reading = RouteReading(refreshing: self, collectedAt: seen)
                } else {
                    reading!.collected(at: seen)
                }
                let (pending, walked) = Self.respondersOnRoute(from: self, skipping: refreshed, pruning: reading!, onMainThread: onMainThread)
                return (pending, walked, seen)
            }
            let changed = !pending.isEmpty && Self.refresh(pending, into: &refreshed, collectedAt: seen, reading: &reading!)
            if !changed {
                // Every responder node walked was read, by this call or (pruned above
                // them) by an earlier one.
                if reading!.complete { Self.stamp(walked, readAt: seen) }
                return
            }
        }
    }

    /// Reads the responder chain of every responder node, for a walk down: a node
    /// knows where its own chain leads, never which nodes lead to it, so a walk down
    /// can only find the followers whose chain was read. Costs one read per responder
    /// node that exists, whatever the size of the subtree; nothing in programs
    /// without responder nodes.
    ///
    /// Each chain is compared with its link through the census of every link
    /// (`ChainCensus`, kept between walks while no link changes); only the links
    /// whose chains differ are resolved again (after a view moved, its own), or every
    /// link when the census cannot tell (a responder node made or dropped since).
    /// Measured (callgrind): a broadcast from a leaf responder node beside 1,000
    /// others 426,796 instructions with each link's checks taken under the lock at
    /// every walk, 200,730 with the census.
    ///
    /// Chains read on the main thread only are read when this runs there; elsewhere
    /// their links stay as last read on the main thread, as for posts.
    ///
    /// - Returns: `ResponderRegistry.linksWritten` as the links were when every
    ///   chain read as its link says (nil when no responder node was ever made): the
    ///   walk collects only while it still is (`lockShared(stripe:chainsRead:)`).
    ///   Another thread may install a link between this check and that collection,
    ///   as it read the chain before this thread changed it: a walk down that did
    ///   not resolve that link itself (it found it as the chain now reads) would
    ///   then follow the old link (found by `ResponderModelTests`, two threads at
    ///   once, after resolution tickets fixed the walks that resolve). And the
    ///   census the reads used, for the walk to hold until it has given back its
    ///   stripe (see `ChainsRead.census`).
    static func refreshEveryResponderChain() -> ChainsRead {
        // Set for good, under the lock that registers the first responder node.
        guard GraphLock.respondersExist else { return ChainsRead(linksWritten: nil, census: nil) }
        let thread = ThreadState.current
        let onMainThread = DeliveryMode.mainThread.isCurrent(thread)
        let census = graphLock.withShared { ResponderRegistry.census(onMainThread: onMainThread) }
            ?? ResponderRegistry.takeCensus(onMainThread: onMainThread)
        var stale: [NodeLink] = []
        let outcome = census.check(thread: thread, stale: &stale)
        if outcome == .holds { return ChainsRead(linksWritten: census.linksWritten, census: census) }
        // When only the links in `stale` changed (every other chain reads as its
        // link says) and no link was written since the census (its nodes are then
        // registered), only they are resolved; else every link. Either way the links
        // are as read once this thread's own writes are added to `written`.
        let (written, nodes) = graphLock.withShared { () -> (Int, [(registration: Int, node: DominoNode)]) in
            let written = ResponderRegistry.linksWritten
            if outcome == .stale && written == census.linksWritten {
                return (written, stale.compactMap { link in
                    link.retainIfAlive().map { ($0.responderLink?.registration ?? 0, $0) }
                })
            }
            guard ResponderRegistry.exist else { return (written, []) }
            return (written, ResponderRegistry.nodes.values.compactMap { link in
                link.retainIfAlive().map { ($0.responderLink?.registration ?? 0, $0) }
            })
        }
        if nodes.isEmpty { return ChainsRead(linksWritten: written, census: census) }
        // Creation order, so that followers newly found are appended in a stable order.
        let ordered = nodes.sorted { $0.registration < $1.registration }.map(\.node)
        var refreshed: [DominoNode] = []
        var cutShort = false
        let writesBefore = thread.pointee.linkWrites
        _ = refresh(ordered, into: &refreshed, collectedAt: 0, cutShort: &cutShort, reportsUnread: false)
        return ChainsRead(linksWritten: written &+ (thread.pointee.linkWrites &- writesBefore), census: census)
    }

    /// What `refreshEveryResponderChain()` read, for the walk down that collects
    /// after it.
    struct ChainsRead {
        /// `ResponderRegistry.linksWritten` as the reads left the links; nil when no
        /// responder node was ever made.
        var linksWritten: Int?
        /// The census of every responder node that the reads compared the chains
        /// with, which the walk holds until it has taken and given back its stripe
        /// (`dropCensus()` after unlocking). A walk that takes the exclusive lock
        /// takes the census again in its own memory once no walk holds it
        /// (`ResponderRegistry.takeCensus`); its reads must be ordered after this
        /// walk's, and only a lock orders them (the reference count is not one that
        /// the thread sanitizer sees, which reported the census's fields read here
        /// and written there when the walk let the census go before its stripe: a
        /// report in CI, stop 58). Held past the stripe, the census is either still
        /// held when that writer looks (it takes a new one) or let go after this
        /// walk's stripe was given back, which the writer's lock waited for.
        var census: ChainCensus?

        /// Lets the census go: after the walk gave back its stripe.
        mutating func dropCensus() { census = nil }
    }

    /// How many times a walk down reads every chain again because another thread
    /// wrote a link between its reads and its collection (see
    /// `lockShared(stripe:chainsRead:)`); then it collects along the links as they are.
    static let chainRereads = 8

    /// Takes `stripe` for a walk down whose chains `refreshEveryResponderChain()`
    /// read, once the links are as that read left them (`chainsRead`, which it
    /// returned): while another thread wrote a link since, the chains are read again
    /// (at most `chainRereads` times). A link written by a resolution that read its
    /// chain before this thread changed it would otherwise be followed. The caller
    /// lets `chainsRead`'s census go after unlocking.
    @inline(__always)
    static func lockShared(stripe: Int, chainsRead: inout ChainsRead) {
        graphLock.lockShared(stripe: stripe)
        var rereads = 0
        while let expected = chainsRead.linksWritten, ResponderRegistry.linksWritten != expected, rereads < chainRereads {
            graphLock.unlockShared(stripe: stripe)
            rereads += 1
            // The census replaced was read before the stripe just given back.
            chainsRead = refreshEveryResponderChain()
            graphLock.lockShared(stripe: stripe)
        }
    }

    /// The responder nodes on the route from `start` not yet refreshed, retained so
    /// that they can be used outside the lock; appends every responder node of the
    /// route to `route`, in route order. Lock held.
    ///
    /// `refreshed` holds the nodes it lists, so that none of them goes and leaves
    /// its address to a node made since, which would be taken for it and skipped
    /// (found by the stress test of a chain whose middle is replaced and released:
    /// a new middle at a released one's address was never resolved).
    static func respondersOnRoute(
        from start: DominoNode, skipping refreshed: [DominoNode], onMainThread: Bool, route: inout [NodeLink]
    ) -> [DominoNode] {
        // A set once there are more than a few: the walk after a deep chain was read
        // skips every node of it.
        let skipped = refreshed.count > 16 ? Set(refreshed.lazy.map(ObjectIdentifier.init)) : nil
        var pending: [DominoNode] = []
        Route.walk(from: start) { node in
            guard let link = node.responderLink else { return }
            route.append(NodeLink(node))
            let id = NodeLink(node).id
            if skipped?.contains(id) ?? refreshed.contains(where: { ObjectIdentifier($0) == id }), !isResolvedAgain(link, onMainThread: onMainThread) { return }
            if let retained = NodeLink(node).retainIfAlive() { pending.append(retained) }
        }
        return pending
    }

    /// True when a link that this walk resolved already is to be resolved again: the
    /// node it led to went since, or was found without its host
    /// (`ResponderLink.successorWent`), and this thread can read its chain. Each
    /// time takes another thread's change (a node released, a host gone), so a walk
    /// resolves a link again only as often as those happen meanwhile; a chain this
    /// thread cannot read keeps its link as cut. Lock held.
    static func isResolvedAgain(_ link: ResponderLink, onMainThread: Bool) -> Bool {
        link.successorWent && (onMainThread || !link.readsOnMainThreadOnly)
    }

    /// `respondersOnRoute(from:skipping:)` for a refresh, which goes no further up
    /// from a node that `reading` prunes; also the responder links of every node
    /// walked, read now or before. Lock held.
    private static func respondersOnRoute(
        from start: DominoNode, skipping refreshed: [DominoNode], pruning reading: RouteReading, onMainThread: Bool
    ) -> (pending: [DominoNode], walked: [ResponderLink]) {
        let skipped = refreshed.count > 16 ? Set(refreshed.lazy.map(ObjectIdentifier.init)) : nil
        var pending: [DominoNode] = []
        var walked: [ResponderLink] = []
        Route.walk(from: start, pruning: reading.prunes) { node in
            guard let link = node.responderLink else { return }
            walked.append(link)
            let id = NodeLink(node).id
            if skipped?.contains(id) ?? refreshed.contains(where: { ObjectIdentifier($0) == id }), !isResolvedAgain(link, onMainThread: onMainThread) { return }
            if let retained = NodeLink(node).retainIfAlive() { pending.append(retained) }
        }
        return (pending, walked)
    }

    /// Records that the routes of `links` were read at link generation `generation`,
    /// unless a link changed since. Takes the exclusive lock only when one of them
    /// says otherwise already: a refresh of a chain read before finds them all so.
    private static func stamp(_ links: [ResponderLink], readAt generation: Int) {
        let stale = graphLock.withShared { links.contains { $0.routeReadAt != generation } }
        guard stale else { return }
        graphLock.withExclusive { _ in
            guard ResponderRegistry.generation == generation else { return }
            for link in links { link.routeReadAt = generation }
        }
    }

    /// Appends to `queue` the responder nodes on the route from `link`'s successor
    /// that are not in `seen`, in route order, retained; marks every node it passes
    /// in `seen`, held in `queue` or `passed` (a node gone would leave its address
    /// to another), and goes no further up from a node already there (its route was
    /// listed when it was marked), nor from one that `reading` prunes, nor from one
    /// going (its deinit cuts its links). Shared lock held.
    private static func appendResponders(
        above link: ResponderLink, to queue: inout [DominoNode], passing passed: inout [DominoNode], seen: inout Set<ObjectIdentifier>, reading: RouteReading
    ) {
        guard let successor = link.successor else { return }
        var stack = [successor]
        while let next = stack.popLast() {
            next.withNode { node in
                guard !seen.contains(next.id), let retained = next.retainIfAlive() else { return }
                seen.insert(next.id)
                if node.responderLink != nil, !reading.prunes(node) { queue.append(retained) } else { passed.append(retained) }
                guard !reading.prunes(node) else { return }
                // Pushed in reverse, the successor last, so that they pop in route order.
                node.parentLinks.forEachLinkReversed { stack.append($0) }
                if let successor = node.responderLink?.successor { stack.append(successor) }
            }
        }
    }

    /// Resolves the successor of each node in `pending` (outside the lock: it calls
    /// `nextDominoResponder`) and installs the ones that changed.
    ///
    /// - Parameter collected: The link generation under which the caller read the
    ///   route. Another thread may have installed the very links resolved here since
    ///   then; comparing with the current link alone would call them unchanged and
    ///   leave the caller with its older route (found by a stress test: first posts
    ///   racing on a fresh node delivered to nobody).
    /// - Returns: True when the links now differ from the ones the caller's route was
    ///   read along, so that it must be walked again.
    static func refresh(_ pending: [DominoNode], into refreshed: inout [DominoNode], collectedAt collected: Int, cutShort: inout Bool, reportsUnread: Bool = true) -> Bool {
        var reading = RouteReading.post
        reading.reportsUnread = reportsUnread
        let changed = refresh(pending, into: &refreshed, collectedAt: collected, reading: &reading)
        if reading.cutShort { cutShort = true }
        return changed
    }

    /// How many times a refresh resolves a link whose reading went stale before it
    /// could install it (see `ReadPath.passesANodeMadeSince`); then it installs what
    /// it read, as it did before. A responder on the chain must get a node between
    /// each resolution and its install for the limit to matter (a dying node still
    /// registered takes a retry or two until its deinit unregisters it).
    static let staleResolutionRetries = 16

    /// `refresh(_:into:collectedAt:)` for a refresh, which prunes what `reading`
    /// trusts, and tells `reading` what it installed and whether it read every node.
    static func refresh(_ pending: [DominoNode], into refreshed: inout [DominoNode], collectedAt collected: Int, reading: inout RouteReading) -> Bool {
        var generation = collected
        let thread = ThreadState.current
        let onMainThread = DeliveryMode.mainThread.isCurrent(thread)
        var queue = pending
        // The nodes queued or refreshed, and those passed on the way to new ones; made
        // when a link first changes. Each is held until the refresh ends (`queue`,
        // `refreshed`, `passed`), so that no node made meanwhile takes its address.
        var seen: Set<ObjectIdentifier>?
        var passed: [DominoNode] = []
        var next = 0
        while next < queue.count {
            let node = queue[next]
            next += 1
            refreshed.append(node)
            guard let link = node.responderLink else { continue }
            if link.readsOnMainThreadOnly && !onMainThread {
                leftUnread(link, at: node, reading: &reading)
                continue
            }
            // Resolved again while what it read went stale before it could be
            // installed (a responder it passed got a node meanwhile): installing it
            // could overwrite a newer link another thread installed.
            var tries = 0
            var resolved: (successor: DominoNode?, installed: (generation: Int, changed: Bool, successorUnread: Bool))?
            while resolved == nil {
                let ticket = ResponderRegistry.takeResolutionTicket()
                let resolution = resolveSuccessor(of: link, from: node, onMainThread: onMainThread, reading: reading, thread: thread)
                guard let (successor, path) = resolution.reading else { break }
                tries += 1
                if let installed = node.install(
                    successor: successor, in: link, ticket: ticket, readPath: path,
                    unlessStale: tries < Self.staleResolutionRetries, hostGone: resolution.isHostGone
                ) {
                    resolved = (successor, installed)
                }
            }
            guard let (successor, installed) = resolved else {
                leftUnread(link, at: node, reading: &reading)
                continue
            }
            generation = installed.generation
            reading.installed(at: installed.generation, changed: installed.changed)
            // Also when the link was already so but the node it leads to has a
            // chain never read: another thread's refresh installed the link and has
            // not read that chain yet (found by a stress run: a broadcast racing
            // another's walked down while a led to b and b, just made, led nowhere,
            // and missed both).
            guard installed.changed || installed.successorUnread, let successor else { continue }
            // Reads the chain above the new link now rather than after the caller's
            // next walk: a fresh chain N deep would take N walks of up to N nodes.
            if seen == nil {
                // Made with room for the nodes known now and as many again (grown
                // insert by insert, it was reallocated several times: about 3,000
                // instructions for a post after a view moved in a 10-node chain).
                var made = Set<ObjectIdentifier>(minimumCapacity: 2 * (refreshed.count + queue.count - next))
                for node in refreshed { made.insert(ObjectIdentifier(node)) }
                for node in queue[next...] { made.insert(ObjectIdentifier(node)) }
                seen = made
            }
            if seen!.contains(ObjectIdentifier(successor)) { continue }
            graphLock.withShared { appendResponders(above: link, to: &queue, passing: &passed, seen: &seen!, reading: reading) }
        }
        withExtendedLifetime(passed) {}
        return generation != collected
    }

    /// Notes a link that this walk could not read (off the main thread). A link read
    /// before keeps leading where it was last read; one never read leads nowhere yet,
    /// so the walk is cut short at `node`: reported once per node, naming the call
    /// that reads it.
    private static func leftUnread(_ link: ResponderLink, at node: DominoNode, reading: inout RouteReading) {
        reading.complete = false
        guard reading.reportsUnread else { return }
        let (wasRead, reported) = graphLock.withShared { (link.wasRead, link.reportedUnread) }
        if wasRead { return }
        reading.cutShort = true
        if reported { return }
        let first = graphLock.withExclusive { _ -> Bool in
            defer { link.reportedUnread = true }
            return !link.reportedUnread
        }
        guard first else { return }
        Diagnostics.emit(
            .responderChainUnread,
            "A walk from another thread reached \(node), whose responder chain has never been read on the main thread, so the route stops there (the nodes that chain leads to were not reached). Call refreshResponderChain() on it on the main thread once it is in its hierarchy (in viewDidLoad or didMoveToWindow), or post from the main thread first."
        )
    }

    /// The node of the first responder above `link`'s host that has one, or
    /// `.unreadable` when a responder on the way may only be read on the main thread
    /// and this is not it (the link last read there then stays).
    ///
    /// A chain found too long is reported once, and remembered with the responder the
    /// host led to: while the host leads there, posts and walks down take the chain as
    /// cut off after one read instead of walking it again (issue 28: 1,000 reads and a
    /// diagnostic on every post). A refresh walks it again, and forgets it once it ends.
    private static func resolveSuccessor(
        of link: ResponderLink, from node: DominoNode, onMainThread: Bool,
        reading: RouteReading, thread: UnsafeMutablePointer<ThreadState>
    ) -> Resolution {
        guard let host = link.host else { return .hostGone }
        thread.pointee.responderResolutions &+= 1
        let first = host.nextResponderAssumingReadable()
        thread.pointee.responderReads &+= 1
        var candidate = first
        var steps = 0
        // The responders read, for `ResponderLink.readPath`, and the membership
        // when the first was looked up (nil until then: a chain that ends at once
        // leads nowhere whoever has a node).
        var path = ReadPath()
        // Whether a chain found too long is remembered, and whether it is this one:
        // learned in the first step's lock.
        var remembered = false
        while let responder = candidate {
            path.responders.append(ObjectIdentifier(responder))
            let (registered, knownTooLong) = graphLock.withShared { () -> (DominoNode?, Bool) in
                let registered = ResponderRegistry.nodes[ObjectIdentifier(responder)]?.retainIfAlive()
                if steps > 0 { return (registered, false) }
                path.membership = ResponderRegistry.membership
                remembered = link.tooLongAbove != nil
                return (registered, link.tooLongAbove?.refers(to: responder) == true)
            }
            // The identity check guards against a dead host whose address was reused.
            if let registered, registered.responderLink?.host === responder {
                if remembered { forgetTooLong(link) }
                return .resolved(registered, path: path)
            }
            if knownTooLong && !reading.rereadsTooLongChains { return .resolved(nil, path: nil) }
            steps += 1
            if steps >= maximumResponderChainLength {
                if rememberTooLong(link, above: first) {
                    Diagnostics.emit(
                        .responderChainTooLong,
                        "The responder chain above \(node) passed \(steps) responders without a node (a cycle in nextDominoResponder?); the route stops following it there. Make nextDominoResponder reach nil or a responder with a node."
                    )
                }
                return .resolved(nil, path: nil)
            }
            // Each responder's own kind decides: a model object's chain may lead
            // through a view, which only the main thread may ask.
            if !onMainThread && type(of: responder).readsChainOnMainThreadOnly { return .unreadable }
            candidate = responder.nextResponderAssumingReadable()
            thread.pointee.responderReads &+= 1
        }
        if remembered { forgetTooLong(link) }
        return .resolved(nil, path: path)
    }

    /// Remembers that the chain above `link`'s host, which leads to `first`, was
    /// found too long; false when it was already known so (reported before).
    private static func rememberTooLong(_ link: ResponderLink, above first: (any DominoResponder)?) -> Bool {
        graphLock.withExclusive { _ in
            if let first, link.tooLongAbove?.refers(to: first) == true { return false }
            link.tooLongAbove = first.map(WeakResponder.init)
            return true
        }
    }

    /// Forgets a chain found too long, once it is not.
    private static func forgetTooLong(_ link: ResponderLink) {
        graphLock.withExclusive { _ in link.tooLongAbove = nil }
    }

    private enum Resolution {
        /// The node, and the responders read on the way (nil for a chain taken as
        /// too long, which is not to be remembered).
        case resolved(DominoNode?, path: ReadPath?)
        /// The host is gone: the node leads nowhere, and the links that lead to it
        /// are stale (a gone responder is on no chain).
        case hostGone
        case unreadable

        /// What to install: the node and the path, nil when nothing is.
        var reading: (DominoNode?, ReadPath?)? {
            switch self {
            case .resolved(let successor, let path): (successor, path)
            case .hostGone: (nil, nil)
            case .unreadable: nil
            }
        }

        var isHostGone: Bool {
            if case .hostGone = self { return true }
            return false
        }
    }

    /// The responders a resolution read, and `ResponderRegistry.membership` before
    /// it looked any of them up (nil when there was none to look up).
    struct ReadPath {
        var responders: [ObjectIdentifier] = []
        var membership: Int?

        /// True when `link` remembers this path, read at the registry's last
        /// registration. Lock held.
        func isRemembered(by link: ResponderLink) -> Bool {
            link.readPathRegistrations == ResponderRegistry.registrations && link.readPath == responders
        }

        /// True when a responder this path passed had no node when it was read and
        /// has one now, so that a resolution along it would stop there: what was
        /// read is stale, and installing it could overwrite a link that a newer
        /// resolution installed (found by a stress run: first posts on a fresh chain
        /// racing a broadcast, whose resolution of every node read the chain before
        /// the nodes above were made, had their routes cut short). The last responder
        /// is the host of `successor`, which the resolution stopped at. Lock held.
        func passesANodeMadeSince(endingAt successor: DominoNode?) -> Bool {
            guard let membership, membership != ResponderRegistry.membership else { return false }
            let passed = successor == nil ? responders.count : responders.count - 1
            for index in 0..<max(passed, 0) where ResponderRegistry.nodes[responders[index]] != nil {
                return true
            }
            return false
        }

        /// Makes `link` remember this path, if the registry has not changed since it
        /// was read (else forgets any). Exclusive lock held.
        func remember(in link: ResponderLink) {
            let now = ResponderRegistry.membership
            guard (membership ?? now) == now else {
                link.readPathRegistrations = -1
                return
            }
            link.readPath = responders
            link.readPathRegistrations = ResponderRegistry.registrations
        }
    }

    /// True when a node that follows `link`'s node is not marked to resolve its link
    /// again. Lock held.
    private static func hasFollowerToMark(_ link: ResponderLink) -> Bool {
        var found = false
        link.followers.forEach { found = found || $0.responderLink?.successorWent == false }
        return found
    }

    /// Makes `successor` this node's responder-chain successor.
    ///
    /// - Returns: The link generation once it is installed, and whether this call
    ///   changed the link.
    ///
    /// - Parameter ticket: The resolution's ticket, taken before it read the chain
    ///   (`ResponderRegistry.takeResolutionTicket()`). When the link holds a
    ///   resolution that began reading later, that one stands: nothing is written,
    ///   and the link is reported unchanged.
    /// - Parameter path: What the resolution read, for posts to check the link
    ///   against without resolving it again (nil: nothing to remember).
    /// - Parameter hostGone: The resolution found the host gone: the links that lead
    ///   here are marked to be resolved again (`ResponderLink.successorWent`),
    ///   whichever reading stands.
    private func install(
        successor resolved: DominoNode?, in link: ResponderLink, ticket: Int, readPath path: ReadPath? = nil,
        unlessStale: Bool = false, hostGone: Bool = false
    ) -> (generation: Int, changed: Bool, successorUnread: Bool)? {
        // A node that does not follow its chain gets no successor; checked here, in
        // the lock taken anyway, rather than with one more lock per resolution.
        let read = graphLock.withShared { () -> (unchanged: Bool, generation: Int, settled: Bool, successorUnread: Bool)? in
            if unlessStale, path?.passesANodeMadeSince(endingAt: resolved) == true { return nil }
            let generation = ResponderRegistry.generation
            // A newer reading stands (see `ResponderRegistry.takeResolutionTicket`).
            if link.installedTicket.load(ordering: .relaxed) > ticket { return (true, generation, true, false) }
            let successor = link.followsChain ? resolved : nil
            // Nothing to write when the link was read before and remembers this path.
            let settled = link.wasRead && (path?.isRemembered(by: link) ?? (link.readPathRegistrations < 0))
            let successorUnread = successor?.responderLink.map { !$0.wasRead } ?? false
            let unchanged = link.successor.map { current in successor.map { current.refers(to: $0) } ?? false } ?? (successor == nil)
                // A link marked stale is written, to clear the mark; so are followers
                // of a node whose host is gone, to mark them.
                && !link.successorWent && !(hostGone && (!link.hostWent || Self.hasFollowerToMark(link)))
            // Found as read, and nothing else to write: this reading stands against
            // older ones all the same (found by ResponderModelTests: a walk on another
            // thread read the chain before this thread changed it and back, and
            // installed that after this resolution found the link as it is).
            if unchanged && settled { link.confirm(ticket: ticket) }
            return (unchanged, generation, settled, successorUnread)
        }
        guard let (unchanged, generation, settled, successorUnread) = read else { return nil }
        if unchanged && settled { return (generation, false, successorUnread) }
        var closedCycle = false
        // Nil when stale; else the generation, whether the successor changed, and
        // false when a newer reading stood (nothing written).
        let installed = graphLock.withExclusive { graveyard -> (generation: Int, changed: Bool, wrote: Bool)? in
            // Again: a node may have been made since the shared lock.
            if unlessStale, path?.passesANodeMadeSince(endingAt: resolved) == true { return nil }
            if hostGone {
                link.hostWent = true
                var marked = false
                link.followers.forEach { follower in
                    guard let followerLink = follower.responderLink, !followerLink.successorWent else { return }
                    followerLink.successorWent = true
                    marked = true
                }
                // The routes through this node are stale: a walk that read one
                // reads it again (see `collectResolvingResponders`).
                if marked { ResponderRegistry.generation &+= 1 }
            }
            // Again: a newer reading may have been installed since.
            guard link.installedTicket.load(ordering: .relaxed) < ticket else { return (ResponderRegistry.generation, false, false) }
            link.installedTicket.store(ticket, ordering: .relaxed)
            link.successorWent = link.followsChain && resolved?.responderLink?.hostWent == true
            // Once per link: that it has been read is what tells a walk off the main
            // thread whether its route is cut short here; and once per path read.
            link.wasRead = true
            if let path { path.remember(in: link) } else { link.readPathRegistrations = -1 }
            ResponderRegistry.linksWritten &+= 1
            ThreadState.current.pointee.linkWrites &+= 1
            // Where the link leads now, not where the shared read found it: an older
            // reading may have been installed in between (found by
            // ResponderModelTests: this reading's path was remembered on a link that
            // led where the older one read).
            let successor = link.followsChain ? resolved : nil
            if link.successor.map({ current in successor.map { current.refers(to: $0) } ?? false }) ?? (successor == nil) {
                return (ResponderRegistry.generation, false, true)
            }
            ResponderRegistry.generation &+= 1
            link.successor?.withNode { _ = $0.responderLink?.followers.remove(self, &graveyard) }
            graphLock.changingLinks { link.successor = nil }
            guard let successor, let successorLink = successor.responderLink, successor !== self else {
                return (ResponderRegistry.generation, true, true)
            }
            if Route.wouldCloseCycle(mounting: self, at: successor) {
                closedCycle = true
                Route.graphMayHaveCycles = true
                GraphSettings.refreshWalkGate()
            }
            graphLock.changingLinks { link.successor = NodeLink(successor) }
            successorLink.followers.append(self, &graveyard)
            return (ResponderRegistry.generation, true, true)
        }
        guard let installed else { return nil }
        guard installed.changed else { return (installed.generation, false, installed.wrote && successorUnread) }
        if closedCycle, let resolved {
            Diagnostics.emit(.mountCycle, "The responder chain from \(self) leads to \(resolved), which is below it; routes visit each node once. If that is a mistake, fix nextDominoResponder or unmount the node below.")
        }
        return (installed.generation, true, false)
    }
}
