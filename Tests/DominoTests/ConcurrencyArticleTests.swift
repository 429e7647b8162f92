import Testing
import Domino

// The code of Sources/Domino/Documentation.docc/EventsAndSwiftConcurrency.md,
// verbatim between the markers, so that the article keeps compiling.

// DOC-SNIPPET-BEGIN concurrency-streams
struct UnreadCountDidChange: Event {
    var count: Int
}

func watchUnreadCount(on inboxNode: DominoNode) -> Task<Int, Never> {
    // Subscribes now, so nothing posted from here on is missed.
    let changes = inboxNode.stream(of: UnreadCountDidChange.self, bufferingPolicy: .bufferingNewest(1))
    return Task {
        var latest = -1
        for await change in changes {
            latest = change.count
            if latest == 0 { break }   // leaving the loop removes the subscription
        }
        return latest
    }
}
// DOC-SNIPPET-END concurrency-streams

// DOC-SNIPPET-BEGIN concurrency-stream-owner
@MainActor final class UnreadBadgeController {
    let domino = DominoNode(label: "badge")
    var unreadCount = 0

    func startWatching() {
        // No task: the owner is held weakly and the subscription ends with it.
        domino.subscribe(UnreadCountDidChange.self, owner: self) { controller, change in
            controller.unreadCount = change.count
        }
    }

    func startWatchingInALoop() {
        let changes = domino.stream(of: UnreadCountDidChange.self)
        Task { [weak self] in
            for await change in changes {
                guard let self else { return }   // strong only for this iteration
                self.unreadCount = change.count
            }
        }
    }
}
// DOC-SNIPPET-END concurrency-stream-owner

// DOC-SNIPPET-BEGIN concurrency-requests
struct LoadAvatar: Request {
    typealias Response = [UInt8]
    var userID: String
}

final class AvatarCache: Sendable {
    let domino = DominoNode(label: "avatars")

    init() {
        domino.respond(to: LoadAvatar.self, owner: self) { cache, request async in
            await cache.download(request.userID)
        }
    }

    func download(_ userID: String) async -> [UInt8]? {
        try? await Task.sleep(nanoseconds: 1_000_000)   // the network, in a test
        return Array(userID.utf8)
    }
}

func avatar(for userID: String, below cellNode: DominoNode) async throws -> [UInt8]? {
    // Waits for async responders; throws CancellationError if this task is cancelled.
    try await cellNode.request(LoadAvatar(userID: userID))
}
// DOC-SNIPPET-END concurrency-requests

// DOC-SNIPPET-BEGIN concurrency-main-actor
@MainActor final class InboxBadge {
    let domino = DominoNode(label: "badge")
    private(set) var text = ""

    init() {
        // Written in main-actor code, the handler runs on the main actor: it may
        // touch the badge's state.
        domino.subscribe(UnreadCountDidChange.self, owner: self) { badge, change in
            badge.text = change.count == 0 ? "" : "\(change.count)"
        }
    }
}
// DOC-SNIPPET-END concurrency-main-actor

@Suite("The article \"Events and Swift concurrency\"", .checksLeaks)
struct ConcurrencyArticleTests {
    @Test func unreadCountWatcherEndsAtZero() async {
        let inbox = DominoNode(label: "inbox")
        let watcher = watchUnreadCount(on: inbox)
        for count in [5, 3, 0] { inbox.post(UnreadCountDidChange(count: count)) }
        #expect(await watcher.value == 0)
        #expect(inbox.subscriptionCount == 0)
    }

    @Test func avatarRequestIsAnsweredByTheAsyncCacheAbove() async throws {
        let cache = AvatarCache()
        let cell = DominoNode(label: "cell")
        cell.mount(at: cache.domino)
        #expect(try await avatar(for: "ann", below: cell) == Array("ann".utf8))
    }

    @Test @MainActor func badgeShowsTheUnreadCount() {
        let badge = InboxBadge()
        let row = DominoNode(label: "row")
        row.mount(at: badge.domino)
        row.post(UnreadCountDidChange(count: 4))
        #expect(badge.text == "4")
        row.post(UnreadCountDidChange(count: 0))
        #expect(badge.text == "")
    }

    @Test @MainActor func ownerBoundBadgeUpdatesAndIsReleasedWithItsScreen() {
        weak var released: UnreadBadgeController?
        do {
            let badge = UnreadBadgeController()
            released = badge
            badge.startWatching()
            badge.domino.post(UnreadCountDidChange(count: 2))
            #expect(badge.unreadCount == 2)
        }
        #expect(released == nil)
    }

    @Test @MainActor func weaklyLoopingBadgeUpdatesAndIsReleasedWithItsScreen() async {
        weak var released: UnreadBadgeController?
        var node: DominoNode?
        do {
            let badge = UnreadBadgeController()
            released = badge
            node = badge.domino
            badge.startWatchingInALoop()
            badge.domino.post(UnreadCountDidChange(count: 3))
            #expect(await eventuallyOnMainActor { badge.unreadCount == 3 })
        }
        #expect(await eventuallyOnMainActor { released == nil })
        _ = node
    }

    @Test func articleCodeIsTheCodeThisFileCompiles() throws {
        let article = #filePath.replacingOccurrences(
            of: "Tests/DominoTests/ConcurrencyArticleTests.swift",
            with: "Sources/Domino/Documentation.docc/EventsAndSwiftConcurrency.md"
        )
        for name in ["concurrency-streams", "concurrency-stream-owner", "concurrency-requests", "concurrency-main-actor"] {
            let inArticle = try documentSnippet(name, in: article)
            #expect(inArticle != nil, "no \(name) block in the article")
            #expect(inArticle == (try sourceSnippet(name, in: #filePath, marker: "DOC-SNIPPET")))
        }
    }
}
