/// An async sequence of what reaches a node (``DominoNode/stream(of:phase:bufferingPolicy:)``,
/// ``DominoNode/stream(named:phase:bufferingPolicy:)``) or of a signal's fires
/// (`Signal.stream(bufferingPolicy:)`), whose subscription belongs to the loop that
/// iterates it.
///
/// ```swift
/// let changes = inboxNode.stream(of: UnreadCountDidChange.self)
/// for await change in changes {
///     if change.count == 0 { break }   // ends the subscription
/// }
/// // `changes` is still in scope, but nothing is subscribed any more.
/// ```
///
/// **When it subscribes.** Creating the sequence subscribes at once, so nothing
/// posted or fired after the call is missed, and the first loop takes that
/// subscription over. Each later loop over the same sequence subscribes anew when it
/// starts: it sees what comes from then on, not what came in between.
///
/// **When it ends.** A loop's subscription ends when the loop ends: when it leaves the
/// `for await` (`break`, `return`, a thrown error), when its task is cancelled, or when
/// the sequence finishes because the node or the signal deallocated or the
/// subscription was removed (``DominoNode/unsubscribe(_:)-(E.Type)``,
/// ``DominoNode/clearAllSubscribers()``, `Signal.unsubscribeAll()`). An iterator made by
/// hand (`makeAsyncIterator()`) holds its subscription until it is released. A
/// sequence that is never iterated holds its first subscription until it is released.
///
/// **Buffering.** Values are taken on the posting or firing thread and kept until the
/// loop asks for them, by default without bound (`.unbounded`), so that nothing is
/// lost; `.bufferingNewest(n)` keeps the latest `n` (for state-like events),
/// `.bufferingOldest(n)` drops what comes when the buffer is full.
public struct EventStream<Element: Sendable>: AsyncSequence, Sendable {
    private let source: StreamSource<Element>

    init(_ open: @escaping @Sendable () -> StreamFeed<Element>) {
        source = StreamSource(open)
    }

    /// Starts a loop: takes over the subscription made with the sequence, or, for a
    /// later loop, subscribes anew.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source.take())
    }

    /// One loop over an ``EventStream``: it owns the loop's subscription and ends it
    /// when it finishes or is released.
    public struct Iterator: AsyncIteratorProtocol {
        /// Ends the subscription when the last copy of the iterator goes.
        private let feed: StreamFeed<Element>
        private var values: AsyncStream<Element>.Iterator

        init(_ feed: StreamFeed<Element>) {
            self.feed = feed
            values = feed.values.makeAsyncIterator()
        }

        /// The next value, waiting for it; nil once the sequence ended or the task
        /// was cancelled.
        public mutating func next() async -> Element? {
            await values.next()
        }

        /// The next value, waiting for it in the caller's isolation; nil once the
        /// sequence ended or the task was cancelled.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await values.next(isolation: actor)
        }
    }
}

/// One subscription feeding an `AsyncStream`; releasing the feed ends the
/// subscription.
final class StreamFeed<Element: Sendable>: Sendable {
    let values: AsyncStream<Element>
    private let end: @Sendable () -> Void

    init(_ values: AsyncStream<Element>, end: @escaping @Sendable () -> Void) {
        self.values = values
        self.end = end
    }

    /// A feed that has already ended: what a loop gets once the node or the signal
    /// is gone.
    static var ended: StreamFeed {
        let (values, continuation) = AsyncStream<Element>.makeStream()
        continuation.finish()
        return StreamFeed(values, end: {})
    }

    deinit {
        end()
    }
}

/// What the copies of one ``EventStream`` share: how to subscribe, and the
/// subscription made when the sequence was created, until a loop takes it.
final class StreamSource<Element: Sendable>: Sendable {
    private let open: @Sendable () -> StreamFeed<Element>
    private let first: Mutex<StreamFeed<Element>?>

    init(_ open: @escaping @Sendable () -> StreamFeed<Element>) {
        self.open = open
        first = Mutex(open())
    }

    /// The first subscription, once; a new one for every later caller.
    func take() -> StreamFeed<Element> {
        let taken = first.withLock { feed in
            defer { feed = nil }
            return feed
        }
        return taken ?? open()
    }
}
