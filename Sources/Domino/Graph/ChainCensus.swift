/// What a walk down checks of every responder node's link (see
/// `DominoNode.refreshEveryResponderChain`), taken once and kept between walks while no
/// link changes.
///
/// A walk down reads every responder node's chain in the program, since a node's
/// followers are known only from the others' chains. Taking what to check of each link
/// under the lock at every walk (`ChainChecks`, as a walk up does for the links on
/// its route) cost a broadcast about 424 instructions for each responder node in the
/// program (the host loaded and held, the path copied, two lists grown), on top of
/// reading its chain: a broadcast from a leaf beside 1,000 other responder nodes
/// cost 426,796. A census is taken under the exclusive lock when a walk finds none
/// for the links as they are (`ResponderRegistry.linksWritten` moved since), and
/// shared by every walk after it: a walk retains it under its stripe and reads the
/// chains outside the lock, as `ChainChecks.hold` does.
///
/// A walk whose census finds some chains changed resolves only their links (a view
/// moved: its own), not every link; one whose census cannot tell (a responder node
/// made or dropped since it was taken) resolves every link, as all walks did before.
///
/// Immutable once published (made and stored under the exclusive lock), so readers
/// read it without a lock. It holds each host without keeping it alive
/// (`WeakResponder`): a host is loaded only while its chain is read, and a host that
/// is gone fails the census, as it failed the checks (its node's link is resolved
/// again). Dropped when a responder node goes (its host's memory, which an unowned
/// reference keeps, is not held past the next walk's census).
final class ChainCensus: @unchecked Sendable {
    struct Entry {
        /// The link's node: registered while this census is the current one.
        let node: NodeLink
        /// The host, which `keepers` holds a reference to.
        let host: UnretainedResponder
        /// The successor's host, which `keepers` holds a reference to; nil when the
        /// link leads nowhere.
        let successor: UnretainedResponder?
        /// The successor's host's identity (the successor's link's `hostID`).
        let successorID: ObjectIdentifier
        /// Where the link's `readPath` is in `paths`.
        let pathStart: Int32
        let pathCount: Int32
    }

    /// The links whose chains a walk on this census's thread reads: those of nodes
    /// that follow their chain, on the main thread all of them, elsewhere those not
    /// read on the main thread only.
    private let entries: [Entry]
    /// The host of every registered node (each entry's and each successor's among
    /// them), referenced without keeping it alive: what keeps the entries'
    /// references valid. Never read.
    private let keepers: [WeakResponder]
    /// The responders each link's last resolution read, one after the other.
    private let paths: [ObjectIdentifier]
    /// False when a link could not be checked: never read where it cannot be read
    /// here, its path taken before the registry last changed or empty where it leads
    /// somewhere. Walks then resolve every link.
    let checkable: Bool
    /// `ResponderRegistry.linksWritten` when this was taken: valid while it stays.
    let linksWritten: Int
    /// `ResponderRegistry.membership` when this was taken, which every path is valid
    /// at; compared again after the reads (see `ChainChecks.hold`).
    private let membership: Int
    /// Whether this is the census of walks on the main thread.
    let onMainThread: Bool

    /// The census of every registered responder node's link as it is now, for walks
    /// on the main thread or elsewhere. Exclusive lock held; loads no host.
    init(onMainThread: Bool) {
        self.onMainThread = onMainThread
        linksWritten = ResponderRegistry.linksWritten
        let membership = ResponderRegistry.membership
        self.membership = membership
        var entries: [Entry] = []
        var keepers: [WeakResponder] = []
        var paths: [ObjectIdentifier] = []
        entries.reserveCapacity(ResponderRegistry.nodes.count)
        keepers.reserveCapacity(ResponderRegistry.nodes.count)
        var checkable = true
        for nodeLink in ResponderRegistry.nodes.values where checkable {
            // Links borrowed from their nodes, as in `ChainChecks.add` (bound as
            // references, each was retained and released).
            let found = nodeLink.withNode { $0.responderLink.map(Unmanaged.passUnretained) }
            found?._withUnsafeGuaranteedRef { link in
                // Every registered host, so that every successor's host is kept too
                // (a successor is a registered node): one reference a node.
                keepers.append(link.hostReference)
                guard link.followsChain, !(link.readsOnMainThreadOnly && !onMainThread) else {
                    // Walks leave such a link as it is; one never read is resolved.
                    if !link.wasRead { checkable = false }
                    return
                }
                guard link.readPathMembership == membership, !link.readPath.isEmpty || link.successor == nil else {
                    checkable = false
                    return
                }
                var successor: UnretainedResponder?
                var successorID = link.hostID
                if let successorNode = link.successor {
                    guard let successorLink = successorNode.withNode({ $0.responderLink.map(Unmanaged.passUnretained) }) else {
                        checkable = false
                        return
                    }
                    successorLink._withUnsafeGuaranteedRef {
                        successor = $0.hostReference.unretained
                        successorID = $0.hostID
                    }
                }
                let pathStart = Int32(truncatingIfNeeded: paths.count)
                let pathCount = link.readPath.count
                // One by one: `append(contentsOf:)` cost about 50 instructions a call.
                for step in 0..<pathCount { paths.append(link.readPath[step]) }
                entries.append(Entry(
                    node: nodeLink, host: link.hostReference.unretained, successor: successor, successorID: successorID,
                    pathStart: pathStart, pathCount: Int32(truncatingIfNeeded: pathCount)))
            }
        }
        self.checkable = checkable
        self.entries = checkable ? entries : []
        self.keepers = checkable ? keepers : []
        self.paths = checkable ? paths : []
    }

    /// What `check(thread:stale:)` found.
    enum Check {
        /// Every chain, read now, passes the responders its link's last resolution
        /// read and leads to the host of its successor (or nowhere).
        case holds
        /// Every chain but those of the nodes listed holds: only their links need
        /// resolving again.
        case stale
        /// The census could not tell (a link it could not check, or a responder node
        /// made or dropped since it was taken): every link needs resolving again.
        case unknown
    }

    /// Reads every chain and compares it with its link; appends to `stale` the nodes
    /// whose chains do not hold. Outside the lock: it calls `nextDominoResponder`.
    func check(thread: UnsafeMutablePointer<ThreadState>, stale: inout [NodeLink]) -> Check {
        guard checkable else { return .unknown }
        entries.withUnsafeBufferPointer { entries in
            paths.withUnsafeBufferPointer { paths in
                readsHold(entries, paths: paths, thread: thread, stale: &stale)
            }
        }
        // Loaded without a lock: see `ChainChecks.hold`. A node made during the
        // reads may be passed by a chain read as holding.
        guard ResponderRegistry.membership == membership else { return .unknown }
        return stale.isEmpty ? .holds : .stale
    }

    private func readsHold(
        _ entries: UnsafeBufferPointer<Entry>, paths: UnsafeBufferPointer<ObjectIdentifier>,
        thread: UnsafeMutablePointer<ThreadState>, stale: inout [NodeLink]
    ) {
        let onMainThread = onMainThread
        for entry in entries {
            let holds = entry.host.whileAlive { host -> Bool in
                thread.pointee.responderReads &+= 1
                let pathCount = Int(entry.pathCount)
                // The host leads nowhere.
                guard pathCount > 0 else { return host.nextResponderAssumingReadable() == nil }
                let pathStart = Int(entry.pathStart)
                guard var current = host.nextResponderAssumingReadable(), ObjectIdentifier(current) == paths[pathStart] else {
                    return false
                }
                for step in 1..<pathCount {
                    // Each responder's own kind decides, as in a resolution.
                    guard onMainThread || !type(of: current).readsChainOnMainThreadOnly else { return false }
                    thread.pointee.responderReads &+= 1
                    guard let next = current.nextResponderAssumingReadable(), ObjectIdentifier(next) == paths[pathStart &+ step] else {
                        return false
                    }
                    current = next
                }
                if let successor = entry.successor {
                    return successor.refers(to: current, recordedAs: entry.successorID)
                }
                guard onMainThread || !type(of: current).readsChainOnMainThreadOnly else { return false }
                thread.pointee.responderReads &+= 1
                return current.nextResponderAssumingReadable() == nil
            }
            // A host gone: its link is resolved again too (to nowhere).
            if holds != true { stale.append(entry.node) }
        }
    }
}
