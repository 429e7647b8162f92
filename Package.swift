// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "Domino",
    platforms: [.iOS(.v13), .macOS(.v10_15), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "Domino", targets: ["Domino"]),
        // Test helpers for apps that use Domino: an event recorder (see DominoTesting).
        .library(name: "DominoTesting", targets: ["DominoTesting"]),
        // SwiftUI views as Domino nodes (see the SwiftUI article); the core stays UI-free.
        .library(name: "DominoSwiftUI", targets: ["DominoSwiftUI"]),
        .executable(name: "domino-demo", targets: ["DominoDemo"]),
    ],
    dependencies: [
        // Atomic loads, stores and read-modify-writes on raw memory for the lock-free
        // paths (see AtomicWord); pure Swift, nothing to install.
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
    ],
    targets: [
        .target(name: "Domino", dependencies: [.product(name: "Atomics", package: "swift-atomics"), "_DominoShims"]),
        // A few lines of C for what Swift cannot say cheaply: a thread-local word, a
        // direct call of the runtime's swift_tryRetain and the graph lock's words in
        // static storage (see its header). Not a product.
        .target(name: "_DominoShims"),
        .target(name: "DominoTesting", dependencies: ["Domino"]),
        .target(name: "DominoSwiftUI", dependencies: ["Domino"]),
        .executableTarget(name: "DominoDemo", dependencies: ["Domino", "DominoTesting"]),
        .testTarget(name: "DominoTests", dependencies: ["Domino", "DominoTesting", "DominoSwiftUI"]),
    ],
    swiftLanguageModes: [.v6]
)

// The DocC plugin only for documentation builds, so that users never fetch it:
// DOMINO_DOCS=1 swift package generate-documentation --target Domino
if ProcessInfo.processInfo.environment["DOMINO_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
