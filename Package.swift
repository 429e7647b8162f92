// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Domino",
    platforms: [.iOS(.v13), .macOS(.v10_15), .tvOS(.v13), .watchOS(.v6)],
    products: [
        .library(name: "Domino", targets: ["Domino"]),
        .executable(name: "domino-demo", targets: ["DominoDemo"]),
    ],
    targets: [
        .target(name: "Domino"),
        .executableTarget(name: "DominoDemo", dependencies: ["Domino"]),
        .testTarget(name: "DominoTests", dependencies: ["Domino"]),
    ],
    swiftLanguageModes: [.v6]
)
