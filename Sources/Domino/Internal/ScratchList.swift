/// A list in memory that its owner reuses from walk to walk and frees itself
/// (`deallocate()`): a plan's stages after the first, what walks down keep (their
/// roots, and per node their stack, the open interceptor ends, each stage's
/// ancestor), a thread's `stageNodes`, and a `ChainCensus`'s lists.
///
/// Not an `Array`: each append to an array checks that its buffer is unique, and
/// each emptying that keeps the capacity calls `replaceSubrange` (measured on a
/// broadcast to 1,111 nodes: about 6 uniqueness checks a node, a fifteenth of its
/// instructions). Here an append is a compare and a store, and emptying one sets the
/// count. A copy shares the memory: the owner keeps the one copy that it frees, and
/// a walk that borrows the list hands its copy back (a growth moves the memory).
struct ScratchList<Element> {
    /// Nil until the first append: lists that a walk never fills allocate nothing.
    private var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private(set) var capacity = 0

    /// An empty list. Plain data is left as it is when removed; elements with
    /// reference-counted parts are deinitialized (for plain data the test is
    /// folded away when the list is specialized).
    init() {}

    /// Frees the memory, deinitializing what it holds. The list must not be used
    /// afterwards.
    func deallocate() {
        if !_isPOD(Element.self) { base?.deinitialize(count: count) }
        base?.deallocate()
    }

    var isEmpty: Bool {
        @inline(__always) get { count == 0 }
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        // Below `capacity`, so it cannot overflow: no check (measured: 4
        // instructions an append).
        count &+= 1
    }

    /// Appends `element` to a list with room for it (`count < capacity`).
    @inline(__always)
    mutating func appendWithinCapacity(_ element: Element) {
        assert(count < capacity, "ScratchList.appendWithinCapacity on a full list")
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count &+= 1
    }

    /// Stores `element` at `index`, which is at most `count`: in place below it, else
    /// appended. For a list that each walk overwrites from the start, so that it
    /// need not be emptied (a thread's `stageNodes`).
    @inline(__always)
    mutating func set(_ element: Element, at index: Int) {
        if index < count {
            base.unsafelyUnwrapped[index] = element
        } else {
            precondition(index == count, "ScratchList.set past the end")
            append(element)
        }
    }

    /// Makes room for at least `minimumCapacity` elements, keeping the elements.
    mutating func reserve(_ minimumCapacity: Int) {
        guard minimumCapacity > capacity else { return }
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: minimumCapacity)
        if let base {
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = grown
        capacity = minimumCapacity
    }

    /// Doubles the capacity (16 at first), keeping the elements.
    @inline(never)
    private mutating func grow() {
        reserve(Swift.max(2 * capacity, 16))
    }

    var last: Element? {
        @inline(__always) get { count > 0 ? base.unsafelyUnwrapped[count - 1] : nil }
    }

    /// Changes the last element in place; the list must not be empty.
    @inline(__always)
    mutating func updateLast(_ body: (inout Element) -> Void) {
        precondition(count > 0, "updateLast on an empty ScratchList")
        body(&base.unsafelyUnwrapped[count &- 1])
    }

    @inline(__always)
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        count &-= 1
        return (base.unsafelyUnwrapped + count).move()
    }

    /// Removes the last element; the list must not be empty.
    @inline(__always)
    mutating func removeLast() {
        precondition(count > 0, "removeLast() on an empty ScratchList")
        count &-= 1
        if !_isPOD(Element.self) { (base.unsafelyUnwrapped + count).deinitialize(count: 1) }
    }

    /// Empties the list, keeping its memory.
    @inline(__always)
    mutating func removeAll() {
        if !_isPOD(Element.self), count > 0 { base.unsafelyUnwrapped.deinitialize(count: count) }
        count = 0
    }

    subscript(index: Int) -> Element {
        @inline(__always) get {
            precondition(index >= 0 && index < count, "ScratchList index out of range")
            return base.unsafelyUnwrapped[index]
        }
        @inline(__always) set {
            precondition(index >= 0 && index < count, "ScratchList index out of range")
            base.unsafelyUnwrapped[index] = newValue
        }
    }

    /// The elements in place, valid until the list changes.
    var buffer: UnsafeBufferPointer<Element> {
        @inline(__always) get { UnsafeBufferPointer(start: base, count: count) }
    }

    /// The elements, in order (a copy, for the walks that are not worth the care).
    var elements: [Element] { base.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [] }
}
