// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Domino",
    platforms: [.iOS(.v13), .macOS(.v10_15), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "Domino", targets: ["Domino"]),
        // Test helpers for apps that use Domino: an event recorder (see DominoTesting).
        .library(name: "DominoTesting", targets: ["DominoTesting"]),
        .executable(name: "domino-demo", targets: ["DominoDemo"]),
    ],
    targets: [
        .target(name: "Domino"),
        .target(name: "DominoTesting", dependencies: ["Domino"]),
        .executableTarget(name: "DominoDemo", dependencies: ["Domino"]),
        .testTarget(name: "DominoTests", dependencies: ["Domino", "DominoTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
