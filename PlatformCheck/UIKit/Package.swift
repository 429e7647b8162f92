// swift-tools-version:6.0
import PackageDescription

/// Domino as an iOS app would build it, against the stand-in UIKit, Combine and os
/// (../Sources): `canImport(UIKit)`, `canImport(Combine)` and `canImport(os)` hold, so
/// Sources/Domino/Platform/ is compiled. `Domino` is a symlink to the library's
/// sources (SwiftPM takes no target path outside the package). Built by
/// ../check.sh with its own scratch path, so that the AppKit stand-in is never
/// in this build's module folder. Not part of the library's package graph.
let package = Package(
    name: "PlatformCheckUIKit",
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
                .product(name: "UIKit", package: "PlatformCheck"),
                .product(name: "Combine", package: "PlatformCheck"),
                .product(name: "os", package: "PlatformCheck"),
            ],
            path: "Domino",
            exclude: ["Documentation.docc"]
        ),
        // The SwiftUI layer, compiled as an iOS app would (`canImport(SwiftUI)` holds).
        .target(
            name: "DominoSwiftUI",
            dependencies: [
                "Domino",
                .product(name: "SwiftUI", package: "PlatformCheck"),
                .product(name: "UIKit", package: "PlatformCheck"),
            ],
            path: "DominoSwiftUI"
        ),
        // The SwiftUI article's code (its snippets are this file's marked blocks):
        // the demo's scene in SwiftUI, and hosted in UIKit with an embedded UIKit view.
        .executableTarget(
            name: "SwiftUIUser",
            dependencies: [
                "Domino",
                "DominoSwiftUI",
                .product(name: "SwiftUI", package: "PlatformCheck"),
                .product(name: "UIKit", package: "PlatformCheck"),
            ]
        ),
        // A tiny app: a view controller with its own node, a view hierarchy, and
        // an event from a view's node reaching the controller along UIKit's chain.
        .executableTarget(
            name: "UIKitUser",
            dependencies: [
                "Domino",
                .product(name: "UIKit", package: "PlatformCheck"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
