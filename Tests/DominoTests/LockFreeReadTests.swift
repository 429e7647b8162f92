import Foundation
import Testing
@testable import Domino

/// What readers pinned without a lock (performance round 3's reads, see
/// Maintainers/ReadsWithoutALock.md) may rely on while writers change the graph: a
/// node's parent list and slots are published words, whatever they replace is
/// retired until no such reader can hold it, and a node that deinitializes under
/// such a reader keeps its memory, empty, until the reader unpins.
@Suite("Reads without a lock: published parents and slots", .serialized, .checksLeaks)
struct LockFreeReadTests {
    /// Pins and unpins on this thread until `condition` holds: each unpin lets the
    /// epoch move on and frees what waited (walks of other suites may hold it a
    /// little longer).
    private func reclaimUntil(_ condition: () -> Bool) -> Bool {
        let pins = ThreadState.current.pointee.pins
        for _ in 0..<2_000 {
            if condition() { return true }
            GraphLock.unpinWithoutLock(pins, parity: GraphLock.pinWithoutLock(pins))
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition()
    }

    // Moved from ReclamationTests in session 11, when only this suite pinned without
    // a lock. Since session 12 every post does, so another suite's walk may be
    // pinned at any time: tests here wait for what they expect released
    // (`reclaimUntil`), and the one that needs no reader pinned at all runs in
    // LockFreePostTests' process of its own.
    @Test func readersPinnedWithoutALockNeverUseAnObjectFreedWhileTheyRead() {
        // The reclamation boundary of performance round 3's lock-free reads: readers
        // pin without the stripe and read an object through a published word while
        // a writer replaces it in a loop and retires each one it replaces. A reader
        // that met a freed object would read its deinit's mark (and the sanitizers
        // would report the access); every retired object must still be freed.
        let freed = Counter()
        nonisolated(unsafe) let slot = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<UInt>.size, alignment: MemoryLayout<UInt>.alignment)
        slot.initializeMemory(as: UInt.self, to: PublishedProbe.retainedWord(serial: 0, freed: freed))
        let stop = Flag()
        let misreads = Counter()
        let readers = 3
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<readers {
            Thread.detachNewThread {
                let pins = ThreadState.current.pointee.pins
                var bad = 0
                while !stop.isSet {
                    let parity = GraphLock.pinWithoutLock(pins)
                    PublishedProbe.borrow(AtomicWord.load(slot)) { probe in
                        if probe.check != ~probe.serial { bad += 1 }
                    }
                    GraphLock.unpinWithoutLock(pins, parity: parity)
                }
                for _ in 0..<bad { misreads.increment() }
                finished.signal()
            }
        }
        let replacements = 20_000
        for serial in 1...replacements {
            graphLock.withExclusive { graveyard in
                let replaced = AtomicWord.load(slot)
                AtomicWord.storeReleasing(slot, PublishedProbe.retainedWord(serial: serial, freed: freed))
                graveyard.retireShared(PublishedProbe.take(replaced))
            }
        }
        stop.set()
        for _ in 0..<readers { finished.wait() }
        // No reader left: each pin and unpin lets the epoch move on and frees what
        // waited (walks of other tests, pinned meanwhile, may hold it a little longer).
        let pins = ThreadState.current.pointee.pins
        var polls = 0
        while freed.value < replacements && polls < 2_000 {
            GraphLock.unpinWithoutLock(pins, parity: GraphLock.pinWithoutLock(pins))
            Thread.sleep(forTimeInterval: 0.005)
            polls += 1
        }
        #expect(misreads.value == 0)
        #expect(freed.value == replacements)
        _ = PublishedProbe.take(AtomicWord.load(slot))
        slot.deallocate()
    }

    @Test func aNodesListsAndSlotsSitWhereTheirAccessorsLookForThem() {
        // The accessors find the words at fixed offsets from the node's stored
        // properties (so that no access is an `inout` one); a field moved in front
        // of them would make every walk read the wrong word.
        #expect(DominoNode(label: "plain").wordsAreWhereReadersLook)
    }

    @Test func aSlotsTableWordSitsWhereItsReadersLookForIt() {
        // Readers find a slot's table word at a constant offset (right after its
        // key); a field moved in front of it would make every look-up read the key.
        #expect(Slot.tableOffset == MemoryLayout<Slot>.offset(of: \Slot.tableWord))
    }

    @Test func aClosureHandlerTakes48BytesAndAQueuesModeKeepsItsQueueAndNodeInABox() {
        // Two words after the header (the state and epoch; the node, or a box of the
        // node and a queue), then the closure: a 48-byte block where blocks are
        // multiples of 16 (Apple platforms). The queue as a word of every handler
        // made it 56, a 64-byte block.
        #expect(instanceSize(of: ClosureReceiver<Ping>.self) == 48)
        let node = DominoNode()
        let queue = DispatchQueue(label: "handlers")
        let queued = node.subscribe(Ping.self, on: .queue(queue)) { _ in }
        let plain = node.subscribe(Ping.self, on: .postingThread) { _ in }
        guard case .queue(let kept)? = queued.delivery else {
            Issue.record("a queue's mode lost its queue: \(String(describing: queued.delivery))")
            return
        }
        #expect(kept === queue)
        #expect(plain.modeCode == .postingThread)
        #expect(queued.isAttached && plain.isAttached)
        queued.cancel()
        #expect(!queued.isAttached)
        #expect(plain.isAttached)
        // The box outlives the node: the mode is still there once it ended.
        guard case .queue(let after)? = queued.delivery else {
            Issue.record("an ended handler lost its queue")
            return
        }
        #expect(after === queue)
    }

    @Test func aHandlersPackedWordKeepsEachFactWhileWritersChangeItsPositionAndRemoval() {
        // Walks find a handler's removal mark, role and mode in the object's first
        // stored property (a lone handler has no storage entry to carry the mark);
        // writers change the position packed beside them.
        let node = DominoNode()
        let subscription = node.respond(to: Ask.self, on: .mainThread) { _ in "answer" }
        #expect(subscription.stateWordIsWhereReadersLook)
        let epoch = subscription.publishedEpoch
        graphLock.withExclusive { _ in subscription.position = Subscription.unrecordedPosition - 1 }
        #expect(!subscription.isRemoved)
        #expect(subscription.role == .responder)
        #expect(subscription.modeCode == .mainThread)
        graphLock.withExclusive { _ in subscription.markRemoved() }
        #expect(subscription.isRemoved)
        #expect(subscription.position == Subscription.unrecordedPosition - 1)
        #expect(subscription.role == .responder)
        #expect(subscription.runsOnMainThread)
        // A place too large to record is recorded as "unrecorded".
        graphLock.withExclusive { _ in subscription.position = .max }
        #expect(subscription.position == Subscription.unrecordedPosition)
        #expect(subscription.isRemoved && subscription.role == .responder)
        #expect(subscription.publishedEpoch == epoch)
    }

    @Test func eachDeliveryModeComesBackFromAHandlersCodeAndRunsInPlaceOnlyWhereItMay() {
        // One encoding of modes for every word walks read: a handler's three bits
        // give back its mode (with its queue), and the walk's in-place test agrees
        // with the mode; published words carry only the modes without a queue.
        let queue = DispatchQueue(label: "mode-codes")
        let operations = OperationQueue()
        let modes: [DeliveryMode] = [.postingThread, .mainThread, .background, .queue(queue), .operationQueue(operations)]
        let node = DominoNode()
        // Thread states that say this is, and is not, the main thread.
        let offMain = StandInThreadState(isMainThread: false)
        let onMain = StandInThreadState(isMainThread: true)
        for mode in modes {
            let subscription = node.subscribe(Ping.self, on: mode) { _ in }
            #expect(subscription.delivery?.description == mode.description)
            #expect(subscription.delivery?.queueObject === mode.queueObject)
            let inPlaceOffMain = offMain.withThread { subscription.runsInPlace(stageRunsOnPostingThread: true, thread: $0) }
            let inPlaceOnMain = onMain.withThread { subscription.runsInPlace(stageRunsOnPostingThread: false, thread: $0) }
            #expect(inPlaceOffMain == mode.isPostingThread, "\(mode)")
            #expect(inPlaceOnMain == (mode.isPostingThread || mode.description == DeliveryMode.mainThread.description), "\(mode)")
            #expect(DeliveryMode.Code.published(mode) == (mode.queueObject == nil ? UInt(DeliveryMode.Code(mode).rawValue) : 0))
        }
        #expect(DeliveryMode.Code(nil) == .inherits && DeliveryMode.Code.inherits.mode(queue: nil) == nil)
    }

    /// The walks' first test of a handler, one mask and compare with words of the
    /// thread's state, must agree with its mode and removed mark for every mode, on
    /// and off the main thread, for closures and for owner-bound handlers: a wrong
    /// word would call a handler on a thread its mode forbids.
    @Test func theInPlaceTestOfEveryModeAgreesWithTheModeOnAndOffTheMainThread() {
        let queue = DispatchQueue(label: "in-place")
        let operations = OperationQueue()
        let modes: [DeliveryMode?] = [nil, .postingThread, .mainThread, .background, .queue(queue), .operationQueue(operations)]
        let node = DominoNode()
        let owner = Canary()
        let offMain = StandInThreadState(isMainThread: false)
        let onMain = StandInThreadState(isMainThread: true)
        for mode in modes {
            let closure = node.subscribe(Ping.self, on: mode) { _ in }
            let owned = node.subscribe(Ping.self, owner: owner, on: mode) { _, _ in }
            let cancelled = node.subscribe(Ping.self, on: mode) { _ in }
            cancelled.cancel()
            for (thread, isMain) in [(offMain, false), (onMain, true)] {
                // In place by its mode alone: a stage's mode (for nil) is not asked.
                let expected = mode.map { $0.isPostingThread || (isMain && $0.description == DeliveryMode.mainThread.description) } ?? false
                let name = "\(mode.map(\.description) ?? "nil") on \(isMain ? "the main thread" : "another thread")"
                #expect(thread.withThread { closure.isClosureCalledInPlace(on: $0) } == expected, "\(name)")
                #expect(thread.withThread { closure.runsInPlace(on: $0) } == expected, "\(name)")
                #expect(!thread.withThread { owned.isClosureCalledInPlace(on: $0) }, "\(name)")
                #expect(thread.withThread { owned.runsInPlace(on: $0) } == expected, "\(name)")
                #expect(!thread.withThread { cancelled.isClosureCalledInPlace(on: $0) || cancelled.runsInPlace(on: $0) }, "\(name)")
            }
        }
    }

    /// A walk down without the stripe sends a tree with reformers or interceptors
    /// to the walk with marks by this tag alone, without reading the table.
    @Test func aSlotsTableWordIsTaggedExactlyWhileItsTableHasReformersOrInterceptors() {
        let node = DominoNode(label: "tagged")
        let pins = ThreadState.current.pointee.pins
        // The word, and the table's address as `publishedTable(for:)` gives it.
        func word() -> (word: UInt, table: UInt) {
            let parity = GraphLock.pinWithoutLock(pins)
            defer { GraphLock.unpinWithoutLock(pins, parity: parity) }
            let table = node.publishedTable(for: .of(Ping.self)).map { UInt(bitPattern: $0.toOpaque()) } ?? 0
            return (node.publishedTableWord(for: .of(Ping.self)), table)
        }
        node.subscribe(Ping.self, on: .postingThread) { _ in }
        let plain = word()
        let interceptor = node.intercept(Ping.self) { _ in .proceed }
        let intercepted = word()
        interceptor.cancel()
        let plainAgain = word()
        let reformer = node.reform(Ping.self) { _ in }
        let reformed = word()
        reformer.cancel()
        #expect(plain.word != 0 && plain.word & Slot.rarerTag == 0)
        #expect(intercepted.word & Slot.rarerTag != 0)
        #expect(plainAgain.word != 0 && plainAgain.word & Slot.rarerTag == 0)
        #expect(reformed.word & Slot.rarerTag != 0)
        // Readers of the table get its address without the tag.
        for read in [plain, intercepted, plainAgain, reformed] {
            #expect(read.table == read.word & ~Slot.rarerTag)
        }
    }

    @Test func aHandlerWhosePlaceWasTooLargeToRecordIsFoundByAScanWhenCancelled() {
        let node = DominoNode()
        let log = Log<String>()
        node.subscribe(Ping.self, on: .postingThread) { _ in log.append("first") }
        let middle = node.subscribe(Ping.self, on: .postingThread) { _ in log.append("middle") }
        node.subscribe(Ping.self, on: .postingThread) { _ in log.append("last") }
        // As a list of 16 million handlers would leave its later ones.
        graphLock.withExclusive { _ in middle.position = Subscription.unrecordedPosition }
        middle.cancel()
        node.post(Ping(value: 1))
        #expect(log.entries == ["first", "last"])
        #expect(node.subscriptionCount == 2)
        #expect(!middle.isActive)
    }

    @Test func aKeysFirstTableAtANodeMovesTheWalkSequenceAndLaterTablesDoNot() {
        // A walk without a lock checks again only the tables it found: a table
        // appearing where it found none must make it start over (see
        // `NodeSlotsRef.install`), a table replacing one it found need not.
        let node = DominoNode(label: "node")
        graphLock.holdingOtherWritersBack {
            let before = GraphLock.linkSequence
            let first = node.subscribe(Ping.self, on: .postingThread) { _ in }
            let afterFirst = GraphLock.linkSequence
            node.subscribe(Ping.self, on: .postingThread) { _ in }
            let afterSecond = GraphLock.linkSequence
            first.cancel()
            #expect(afterFirst == before &+ 2)
            #expect(afterSecond == afterFirst)
            #expect(GraphLock.linkSequence == afterSecond)
        }
    }

    @MainActor @Test func aResponderNodeDeclinesWalksWithoutALockThroughItsModeWord() {
        // Read from a node's trivial words only, since a walk may meet a node in its
        // deinit, whose `responderLink` may be freed.
        let view = SimView("view")
        #expect(DominoNode.declinesWalksWithoutALock(view.dominoNode.publishedMode))
        view.dominoNode.isTracing = true
        #expect(DominoNode.declinesWalksWithoutALock(view.dominoNode.publishedMode))
        #expect(!DominoNode.declinesWalksWithoutALock(DominoNode(label: "plain").publishedMode))
    }

    @MainActor @Test func aResponderNodesFollowerListSuccessorAndPathCountSitWhereTheirAccessorsLookForThem() throws {
        let view = SimView("view")
        let link = try #require(view.dominoNode.responderLink)
        #expect(link.followersAreWhereReadersLook)
    }

    @Test func aNodeDeinitializedUnderALockFreeReaderStaysReadableAndEmptyUntilTheReaderUnpins() {
        let child = DominoNode(label: "child")
        var parent: DominoNode? = DominoNode(label: "parent")
        let grandparent = DominoNode(label: "grandparent")
        child.mount(at: parent!)
        parent!.mount(at: grandparent)
        parent!.subscribe(Ping.self, on: .postingThread) { _ in }
        let pins = ThreadState.current.pointee.pins
        let parity = GraphLock.pinWithoutLock(pins)
        let link = NodeLink(parent!)
        let before = (link.withNode { $0.publishedParents.only }, link.withNode { $0.publishedTable(for: .of(Ping.self)) != nil })
        parent = nil   // deinitializes here, while this thread holds the address
        let parentsAfter = link.withNode { $0.publishedParents }
        let slotsAfter = link.withNode { $0.publishedSlots }
        let childParents = child.publishedParents
        let keepsParent = { (keeper: MemoryKeeper) in keeper.address == link.pointer }
        let kept = graphLock.retiredInLimbo(MemoryKeeper.self, where: keepsParent)
        GraphLock.unpinWithoutLock(pins, parity: parity)
        #expect(before.0 == NodeLink(grandparent))
        #expect(before.1)
        #expect(parentsAfter.only == nil && !parentsAfter.isMultiple)
        #expect(slotsAfter == nil)
        #expect(childParents.only == nil && !childParents.isMultiple)
        #expect(kept == 1)
        #expect(reclaimUntil { graphLock.retiredInLimbo(MemoryKeeper.self, where: keepsParent) == 0 })
    }

    @Test func aResponderNodeDeinitializedUnderALockFreeReaderKeepsItsLinkReadableWithNoSuccessorUntilTheReaderUnpins() {
        let top = AnyThreadModelView(), leaf = AnyThreadModelView()
        leaf.next = top
        let topNode = DominoNode(label: "top", responder: top)
        var leafNode: DominoNode? = DominoNode(label: "leaf", responder: leaf)
        leafNode!.refreshResponderChain()
        weak let weakLink = leafNode!.responderLink
        let pins = ThreadState.current.pointee.pins
        let parity = GraphLock.pinWithoutLock(pins)
        let link = NodeLink(leafNode!)
        let before = DominoNode.publishedSuccessor(of: link)
        // Its deinit unlinks it (perhaps on another thread, whose walk down held it).
        let released = releaseAndWait(&leafNode)
        let after = DominoNode.publishedSuccessor(of: link)
        let linkKept = weakLink != nil
        GraphLock.unpinWithoutLock(pins, parity: parity)
        #expect(before == NodeLink(topNode))
        #expect(released)
        #expect(after == nil)
        #expect(linkKept, "the link was freed while a reader pinned without a lock could read it")
        #expect(reclaimUntil { weakLink == nil })
    }

    @Test func aLockFreeReaderFindsEveryKeyOfANodeThatOutgrewItsScanAndLostHalfItsKeys() {
        // Past `SlotStore.scanLimit` keys the store has an index; clearing most keys
        // makes the node copy its store without them. A reader must find exactly the
        // live ones, through the index, at every step.
        let node = DominoNode(label: "many")
        var subscriptions: [String: Subscription] = [:]
        for number in 0..<40 {
            subscriptions["e\(number)"] = node.subscribe(EventName("e\(number)"), on: .postingThread) { _ in }
        }
        let pins = ThreadState.current.pointee.pins
        func found() -> Set<String> {
            let parity = GraphLock.pinWithoutLock(pins)
            defer { GraphLock.unpinWithoutLock(pins, parity: parity) }
            return Set((0..<40).map { "e\($0)" }.filter { node.publishedTable(for: .name($0)) != nil })
        }
        var wrongSteps = 0
        var live = Set(subscriptions.keys)
        for number in stride(from: 0, to: 40, by: 2) {
            subscriptions["e\(number)"]!.cancel()
            live.remove("e\(number)")
            if found() != live { wrongSteps += 1 }
        }
        for number in 0..<5 {
            node.subscribe(EventName("e\(2 * number)"), on: .postingThread) { _ in }
            live.insert("e\(2 * number)")
            if found() != live { wrongSteps += 1 }
        }
        #expect(wrongSteps == 0)
        #expect(found() == live)
    }

    @Test func lockFreeReadersWalkingUpWhileWritersRemountResubscribeAndReleaseNodesMeetNoFreedMemory() {
        // The reclamation boundary for nodes and stores: readers pinned without a
        // lock walk up from a leaf and look up tables at every node, while a writer
        // mounts the leaf at short-lived nodes (which then deinitialize under the
        // readers), remounts long-lived ones (parent lists grow, lose links, shrink to
        // one word) and subscribes and cancels many keys (slot stores grow, get an
        // index, are copied without cleared keys). A reader that met freed memory
        // would crash under the address sanitizer, or read a table of another node
        // here; the sanitizer runs of CI run this test.
        let leaf = DominoNode(label: "leaf")
        let anchors = (0..<4).map { DominoNode(label: "anchor\($0)") }
        for anchor in anchors.dropFirst() { anchor.mount(at: anchors[0]) }
        let keys: [SlotKey] = [.of(Ping.self), .of(Pong.self)] + (0..<12).map { .name("e\($0)") }
        let stop = Flag()
        let wrongTables = Counter()
        let walks = Counter()
        let readers = 2
        let finished = DispatchSemaphore(value: 0), reading = DispatchSemaphore(value: 0)
        for _ in 0..<readers {
            Thread.detachNewThread {
                let pins = ThreadState.current.pointee.pins
                var wrong = 0, count = 0
                while !stop.isSet {
                    if count == 1 { reading.signal() }
                    let parity = GraphLock.pinWithoutLock(pins)
                    let found = publishedTables(upFrom: leaf, keys: keys)
                    // As a walk does: tables are read only under a delivery pin,
                    // and only those still published once it is taken.
                    let delivery = GraphLock.pinForDelivery(pins)
                    let current = stillPublished(found)
                    GraphLock.unpinWithoutLock(pins, parity: parity)
                    for entry in current where !isTable(entry.table, of: entry.link) { wrong += 1 }
                    GraphLock.unpin(pins, parity: delivery)
                    count += 1
                }
                wrongTables.add(wrong)
                walks.add(count)
                finished.signal()
            }
        }
        // The readers are walking before the writes begin (on a loaded machine a
        // thread may start late, and race nothing).
        for _ in 0..<readers { reading.wait() }
        var generator = SeededGenerator(seed: 28)
        var subscriptions: [Subscription] = []
        for round in 0..<1_500 {
            // A short-lived parent with handlers, released at the end of the round.
            let transient = DominoNode(label: "transient\(round)")
            transient.subscribe(Ping.self, on: .postingThread) { _ in }
            transient.mount(at: anchors[Int.random(in: 0..<anchors.count, using: &generator)])
            leaf.mount(at: transient)
            // Long-lived parents come and go.
            let anchor = anchors[Int.random(in: 1..<anchors.count, using: &generator)]
            if leaf.parents.contains(where: { $0 === anchor }) { leaf.unmount(from: anchor) } else { leaf.mount(at: anchor) }
            // Keys come and go everywhere.
            let node = [leaf, transient, anchors[0], anchors[1]][Int.random(in: 0..<4, using: &generator)]
            churnSubscriptions(at: node, keys: keys, kept: &subscriptions, atMost: 20, generator: &generator)
        }
        stop.set()
        for _ in 0..<readers { finished.wait() }
        for subscription in subscriptions { subscription.cancel() }
        #expect(wrongTables.value == 0)
        #expect(walks.value > 0)
        #expect(reclaimUntil { graphLock.retiredInLimbo(MemoryKeeper.self) == 0 && graphLock.retiredInLimbo(SlotStore.self) == 0 && graphLock.retiredInLimbo(LinkStore.self) == 0 })
    }

    @Test func aDeliveryPinTakenInTheReadPinsParityLetsReadersUseTheTablesTheyCollectedAndMeetNoFreedMemory() {
        // The one-pin boundary: readers pinned without a lock collect table addresses
        // up a route, take their delivery pin in the read pin's parity and, when the
        // epoch did not move, read every table and handler they collected without
        // loading a word again, after giving the read pin back; meanwhile a writer
        // replaces those tables (subscribing and cancelling: tables and handlers
        // retired young and old) and the epoch moves with every batch. A table or
        // handler freed under such a reader would be reported by the address
        // sanitizer (CI runs this suite under it), or show another node here.
        let leaf = DominoNode(label: "leaf")
        let middle = DominoNode(label: "middle")
        let root = DominoNode(label: "root")
        leaf.mount(at: middle)
        middle.mount(at: root)
        let nodes = [leaf, middle, root]
        let keys: [SlotKey] = [.of(Pong.self)] + (0..<4).map { .name("e\($0)") }
        let stop = Flag()
        let wrongTables = Counter()
        let walksUsingTheirTables = Counter()
        let liveHandlersRead = Counter()
        let readers = 2
        let finished = DispatchSemaphore(value: 0), reading = DispatchSemaphore(value: 0)
        for _ in 0..<readers {
            Thread.detachNewThread {
                let pins = ThreadState.current.pointee.pins
                var wrong = 0, direct = 0, handlersRead = 0, walks = 0
                while !stop.isSet {
                    if walks == 1 { reading.signal() }
                    walks += 1
                    let parity = GraphLock.pinWithoutLock(pins)
                    var found = publishedTables(upFrom: leaf, keys: keys)
                    let delivery: Int
                    if GraphLock.pinForDelivery(pins, keepingReadPinOf: parity) {
                        delivery = parity
                        direct += 1
                        // As a post gives it back: a plain store, under the delivery pin.
                        GraphLock.unpinReadPin(pins, parity: parity)
                    } else {
                        // The epoch moved: as a walk does, only the tables still
                        // published once a checked pin is taken.
                        delivery = GraphLock.pinForDelivery(pins)
                        found = stillPublished(found)
                        GraphLock.unpinWithoutLock(pins, parity: parity)
                    }
                    for entry in found {
                        if !isTable(entry.table, of: entry.link) { wrong += 1 }
                        // The handlers, as a delivery reads them (their state word).
                        entry.table._withUnsafeGuaranteedRef { table in
                            HandlerTable.forEachSubscriber(of: table) { handler in
                                if !handler.isRemoved { handlersRead += 1 }
                                return true
                            }
                        }
                    }
                    GraphLock.unpin(pins, parity: delivery)
                }
                wrongTables.add(wrong)
                walksUsingTheirTables.add(direct)
                liveHandlersRead.add(handlersRead)
                finished.signal()
            }
        }
        // The readers are walking before the writes begin, as above.
        for _ in 0..<readers { reading.wait() }
        var generator = SeededGenerator(seed: 29)
        var subscriptions: [Subscription] = []
        for _ in 0..<6_000 {
            let node = nodes[Int.random(in: 0..<nodes.count, using: &generator)]
            churnSubscriptions(at: node, keys: keys, kept: &subscriptions, atMost: 12, generator: &generator)
        }
        stop.set()
        for _ in 0..<readers { finished.wait() }
        for subscription in subscriptions { subscription.cancel() }
        #expect(wrongTables.value == 0)
        #expect(walksUsingTheirTables.value > 0)
        #expect(liveHandlersRead.value > 0)
        #expect(reclaimUntil { graphLock.tablesInLimbo == 0 })
    }

    @Test func aDeliveryPinInTheReadPinsParityIsRefusedOnceTheEpochMoved() {
        // A reader whose epoch moved may have loaded a table published in the new
        // epoch, which its parity does not hold: it must check its tables again.
        let node = DominoNode(label: "node")
        let pins = ThreadState.current.pointee.pins
        let parity = GraphLock.pinWithoutLock(pins)
        let pinnedIn = GraphLock.currentEpoch
        // Tables replaced while a reader is pinned wait in limbo, and the epoch moves
        // on as soon as the other parity drains (other suites' walks are brief).
        var subscriptions: [Subscription] = []
        for _ in 0..<2_000 where GraphLock.currentEpoch == pinnedIn {
            subscriptions.append(node.subscribe(Ping.self, on: .postingThread) { _ in })
            if subscriptions.count > 2 { subscriptions.removeFirst().cancel() }
        }
        let moved = GraphLock.currentEpoch != pinnedIn
        let taken = GraphLock.pinForDelivery(pins, keepingReadPinOf: parity)
        if taken { GraphLock.unpin(pins, parity: parity) }
        GraphLock.unpinWithoutLock(pins, parity: parity)
        for subscription in subscriptions { subscription.cancel() }
        #expect(moved)
        #expect(!taken)
        // The refused pin was given back: nothing is left waiting for it.
        #expect(reclaimUntil { graphLock.tablesInLimbo == 0 })
    }
}

/// A table a reader pinned without a lock found at a node of a route, for one key.
private typealias FoundTable = (link: NodeLink, key: SlotKey, table: Unmanaged<HandlerTable>)

/// The tables of `keys` at every node of the route up from `leaf`, read as a walk
/// without a lock reads them (their addresses only). The caller is pinned without a
/// lock.
private func publishedTables(upFrom leaf: DominoNode, keys: [SlotKey]) -> [FoundTable] {
    var found: [FoundTable] = []
    Route.walkPublished(from: NodeLink(leaf)) { link in
        for key in keys {
            guard let table = link.withNode({ $0.publishedTable(for: key) }) else { continue }
            found.append((link, key, table))
        }
    }
    return found
}

/// The tables of `found` still published at their node, as a walk keeps them after a
/// checked delivery pin (`GraphLock.pinForDelivery(stripe:)`).
private func stillPublished(_ found: [FoundTable]) -> [FoundTable] {
    found.filter { entry in
        entry.link.withNode { $0.publishedTable(for: entry.key) }?.toOpaque() == entry.table.toOpaque()
    }
}

/// True when `table` names the node of `link` as its own. Compared as addresses: a
/// reader without a lock never retains a node (one may be in its deinit).
private func isTable(_ table: Unmanaged<HandlerTable>, of link: NodeLink) -> Bool {
    UInt(bitPattern: table._withUnsafeGuaranteedRef { $0.nodeID }) == UInt(bitPattern: link.pointer)
}

/// A writer's step in the racing tests: subscribes at `node` to one of `keys` at
/// random (a name's event, or `Pong` for a type's key), keeping the subscription,
/// then cancels a kept one at random, always once more than `limit` are kept.
private func churnSubscriptions(
    at node: DominoNode, keys: [SlotKey], kept subscriptions: inout [Subscription], atMost limit: Int, generator: inout SeededGenerator
) {
    let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
    if let name = key.name {
        subscriptions.append(node.subscribe(EventName(name), on: .postingThread) { _ in })
    } else {
        subscriptions.append(node.subscribe(Pong.self, on: .postingThread) { _ in })
    }
    if subscriptions.count > limit || Bool.random(using: &generator) {
        subscriptions.remove(at: Int.random(in: 0..<subscriptions.count, using: &generator)).cancel()
    }
}

/// An object published through one word for `readersPinnedWithoutALock...`: alive,
/// its `check` is the complement of its serial; its deinit clears it.
private final class PublishedProbe: @unchecked Sendable {
    let serial: Int
    var check: Int
    private let freed: Counter

    private init(serial: Int, freed: Counter) {
        self.serial = serial
        check = ~serial
        self.freed = freed
    }

    deinit {
        check = 0
        freed.increment()
    }

    /// A new probe, retained once by the word returned.
    static func retainedWord(serial: Int, freed: Counter) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(PublishedProbe(serial: serial, freed: freed)).toOpaque())
    }

    /// The probe in `word`, lent to `body` without retaining it.
    static func borrow(_ word: UInt, _ body: (PublishedProbe) -> Void) {
        Unmanaged<PublishedProbe>.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// The probe in `word`, with the word's reference.
    static func take(_ word: UInt) -> PublishedProbe {
        Unmanaged<PublishedProbe>.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped).takeRetainedValue()
    }
}

/// The bytes of an instance of `type` (the standard library's
/// `_class_getInstancePositiveExtentSize`, an ABI export its interface hides).
@_silgen_name("$ss36_class_getInstancePositiveExtentSizeySiyXlXpF")
func instanceSize(of type: AnyClass) -> Int

/// A thread's state for tests of code that reads one, made rather than this
/// thread's: its main-thread flag as the test says.
final class StandInThreadState {
    private let state: UnsafeMutablePointer<ThreadState>

    init(isMainThread: Bool) {
        state = .allocate(capacity: 1)
        state.initialize(to: ThreadState(stripe: 0, pins: GraphLock.takePinRecord(), isMainThread: isMainThread, nesting: 0))
    }

    func withThread<R>(_ body: (UnsafeMutablePointer<ThreadState>) -> R) -> R { body(state) }

    deinit {
        GraphLock.giveBackPinRecord(state.pointee.pins)
        state.deinitialize(count: 1)
        state.deallocate()
    }
}
