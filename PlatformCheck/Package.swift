// swift-tools-version:6.0
import PackageDescription

/// Stand-ins for the Apple SDK modules that Domino's platform glue imports
/// (Sources/Domino/Platform/), so that Linux CI can compile that glue.
///
/// Not part of the library's package graph. The variants that compile Domino
/// against these modules are the packages in UIKit/ and AppKit/, each built with
/// its own scratch path so that one never sees the other's modules (`canImport`
/// finds any module in the build folder, declared dependency or not).
/// Run: `bash PlatformCheck/check.sh`. The rule: these modules mirror the SDK's
/// declarations and isolation; they are never bent to make Domino compile.
let package = Package(
    name: "PlatformStandIns",
    products: [
        .library(name: "UIKit", targets: ["UIKit"]),
        .library(name: "AppKit", targets: ["AppKit"]),
        .library(name: "Combine", targets: ["Combine"]),
        .library(name: "os", targets: ["os"]),
        .library(name: "SwiftUI", targets: ["SwiftUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        // What UIKit and AppKit make visible from the Objective-C runtime
        // (associated objects). Not named ObjectiveC: see README.md.
        .target(name: "ObjCRuntime"),
        .target(name: "UIKit", dependencies: ["ObjCRuntime"]),
        .target(name: "AppKit", dependencies: ["ObjCRuntime"]),
        .target(name: "Combine", dependencies: [.product(name: "OpenCombine", package: "OpenCombine")]),
        // Logger and OSSignposter, for the unified-log glue. Self-contained: check.sh
        // also compiles it alone for iOS 13 (embedded Swift), to check availability.
        .target(name: "os"),
        // View, ViewModifier, the environment, State, and the UIKit hosting types
        // (UIHostingController, UIViewRepresentable), which the SDK declares in SwiftUI.
        .target(name: "SwiftUI", dependencies: ["UIKit"]),
    ],
    swiftLanguageModes: [.v6]
)
