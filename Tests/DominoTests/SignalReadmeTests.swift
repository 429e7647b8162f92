import Foundation
import Testing
import Domino

// The README's Signals example, verbatim between the markers.
// README-SNIPPET-BEGIN signals
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class NetworkRequest {
    let onResult = Signal<Data?, (any Error)?>()
    let onProgress = DoubleSignal()

    func finish(with data: Data?, error: (any Error)?) {
        onProgress.fire(1.0)
        onResult.fire(data, error)
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class DownloadViewController {
    var progress = 0.0
    var bytes = 0

    func observe(_ request: NetworkRequest) {
        request.onProgress.addObserver(self) { controller, fraction in
            controller.progress = fraction
        }
        request.onResult.addObserver(self) { controller, data, _ in
            controller.bytes = data?.count ?? 0
        }.cancelsAfterNextFire = true
    }
}
// README-SNIPPET-END signals

@Suite("README: signals", .checksLeaks)
struct SignalReadmeTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func downloadControllerSeesProgressAndTheFirstResultOnly() {
        let request = NetworkRequest()
        let controller = DownloadViewController()
        controller.observe(request)
        request.finish(with: Data([1, 2, 3]), error: nil)
        request.finish(with: Data([1]), error: nil)
        #expect(controller.progress == 1.0)
        #expect(controller.bytes == 3)
        #expect(request.onResult.observerCount == 0)
    }

    @Test func signalsSnippetInTheReadmeIsTheCodeThisFileCompiles() throws {
        #expect(try readmeSnippet("signals") == sourceSnippet("signals", in: #filePath))
    }
}
