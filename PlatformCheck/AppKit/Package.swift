// swift-tools-version:6.0
import PackageDescription

/// Domino as a macOS app would build it, against the stand-in AppKit, Combine and os
/// (../Sources): `canImport(AppKit)`, `canImport(Combine)` and `canImport(os)` hold, so
/// Sources/Domino/Platform/ is compiled. `Domino` is a symlink to the library's
/// sources (SwiftPM takes no target path outside the package). Built by
/// ../check.sh with its own scratch path, so that the UIKit stand-in is never
/// in this build's module folder. Not part of the library's package graph.
let package = Package(
    name: "PlatformCheckAppKit",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
    ],
    targets: [
        // The library's C shim (a symlink to its sources, as Domino is).
        .target(name: "_DominoShims", path: "_DominoShims"),
        .target(
            name: "Domino",
            dependencies: [
                .product(name: "Atomics", package: "swift-atomics"),
                "_DominoShims",
                .product(name: "AppKit", package: "PlatformCheck"),
                .product(name: "Combine", package: "PlatformCheck"),
                .product(name: "os", package: "PlatformCheck"),
            ],
            path: "Domino",
            exclude: ["Documentation.docc"]
        ),
        // A tiny app: a view controller with its own node, a view hierarchy, and
        // an event from a view's node reaching the controller along AppKit's chain.
        .executableTarget(
            name: "AppKitUser",
            dependencies: [
                "Domino",
                .product(name: "AppKit", package: "PlatformCheck"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
