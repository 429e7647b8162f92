// swift-tools-version:6.2
// An app-like target: code written the way an Xcode 26 app target compiles it
// (MainActor default isolation, isolated conformances inferred, nonisolated async
// functions running on the caller's actor), over a simulated UIKit responder chain.
// CI builds it with warnings as errors and runs it; it checks its own story.
import PackageDescription

let package = Package(
    name: "DominoAppCheck",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Domino", path: "..")],
    targets: [
        .executableTarget(
            name: "DominoApp",
            dependencies: [
                .product(name: "Domino", package: "Domino"),
                .product(name: "DominoTesting", package: "Domino"),
            ],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("InferIsolatedConformances"),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
