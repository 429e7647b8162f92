import Foundation
import Domino
import DominoTesting

// Plays the app and checks every pattern; exits non-zero on the first failure.
var failures = 0
func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok   " : "FAIL ", what)
    if !condition { failures += 1 }
}

let window = Window("Window")
let feed = FeedViewController()
window.addSubview(feed.view)
let cell = PhotoCell()
feed.view.addSubview(cell)

// Typed event up the responder chain, handled on the main actor, in place.
let liked = cell.tapLike()
check(feed.likes == 1 && liked.ran == 1 && liked.scheduled == 0, "a like from a cell reaches the feed in place (\(liked))")

// Named events: a closure, and routing by name to a main-actor method.
cell.dominoNode.post(.statistics, ["msg": "did load"])
check(feed.statistics == ["did load"], "a named event reaches a main-actor closure")
cell.tapFund(code: "F-12", phone: nil)
check(feed.selectedFunds == ["F-12"], "routing by name calls the feed's main-actor method, nil-safe")

// Protocol events: a main-actor delegate protocol, its targets called in place.
let opened = cell.open(photoID: 9)
check(feed.openedPhotos == [9] && opened.ran == 1, "a protocol event calls the feed's main-actor method in place (\(opened))")
check(cell.feedTitle() == "Feed", "a value-returning protocol event is answered by the feed")

// Requests answered by a view controller.
check(cell.token() == "token-7", "a sync request on the main actor is answered by the controller")
func loadAvatar(from node: DominoNode) async throws -> String? {
    try await node.request(LoadAvatar())
}
let avatar = try? await loadAvatar(from: cell.dominoNode)
check(avatar == "avatar.png", "an async request is answered by the controller")

// From a background thread: the handler is scheduled onto the main actor.
let node = cell.dominoNode
let background = await Task.detached { node.post(PhotoLiked(photoID: 2)) }.value
check(background.scheduled == 1, "a post from a background thread schedules the main-actor handler (\(background))")
let fromBackground = await Task.detached { try? await node.request(FetchSessionToken()) }.value
check(fromBackground == "token-7", "an async request from a background task hops to the main-actor responder")
await Task.yield()
for _ in 0..<100 where feed.likes < 2 { try? await Task.sleep(nanoseconds: 1_000_000) }
check(feed.likes == 2, "the scheduled handler ran on the main actor")

// A custom main-actor responder.
let root = Coordinator()
let child = Coordinator(parent: root)
root.domino.subscribe(PhotoLiked.self, owner: root) { coordinator, _ in coordinator.handled += 1 }
child.domino.post(PhotoLiked(photoID: 3))
check(root.handled == 1, "a @MainActor coordinator is a responder as the article shows")

// Signals observed on the main actor.
let model = UploadModel()
let upload = UploadViewController(model: model)
model.progress.fire(0.5)
check(upload.lastProgress == 0.5, "a main-actor observer of a signal updates its controller")

// Event streams, consumed on the main actor.
let subscriptionsBeforeStream = feed.domino.subscriptionCount
let stream = feed.domino.stream(of: PhotoLiked.self)
let consumer = Task {
    for await event in stream { return event.photoID }
    return -1
}
await Task.yield()
feed.domino.post(PhotoLiked(photoID: 9))
check(await consumer.value == 9, "an event stream delivers to a main-actor task")
check(feed.domino.subscriptionCount == subscriptionsBeforeStream, "leaving the loop ends the stream's subscription, though the stream is still in scope")

// The test helper in app code.
let recorder = EventRecorder().record(PhotoLiked.self, at: feed.dominoNode)
_ = cell.tapLike()
check(recorder.values(of: PhotoLiked.self).map(\.photoID) == [1], "EventRecorder records from app code")

// Background work reaches main-actor handlers: an error's walk moves to the inbox's
// `receive`, and a protocol post to every target calls the badge on the main thread.
let inbox = InboxViewController()
let row = DominoNode(label: "row")
row.mount(at: inbox.domino)
var shownPercents: [Int] = []
let badge = ProgressBadge { percent in
    Task { @MainActor in shownPercents.append(percent) }
}
inbox.domino.subscribe(DownloadProgress.self, target: badge, on: .mainThread)
await Task.detached { downloadCallback(row: row, percent: 40, failedItem: 5) }.value
for _ in 0..<100 where inbox.retried.isEmpty || shownPercents.isEmpty { try? await Task.sleep(nanoseconds: 1_000_000) }
check(inbox.retried == [5], "an error reported from a background task is retried by the inbox on the main actor")
check(shownPercents == [40], "a protocol post to every target from a background task calls the badge on the main thread")

print(failures == 0 ? "domino-app: all checks passed" : "domino-app: \(failures) check(s) failed")
if failures > 0 { exit(1) }
