// swift-tools-version:6.0
import PackageDescription

/// Domino's benchmarks, kept in their own package so that the library itself never
/// depends on OpenCombine (the Combine baseline) and its tests never build this.
///
/// Run: `swift run -c release --package-path Benchmarks domino-bench [--quick] [--json PATH]`
/// SwiftPM names a path dependency after its directory, not its manifest, so the
/// library's package is "main" in one clone and something else in another: derive
/// it from where this package sits (the library's root is its parent).
let libraryIdentity = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "Domino")

let package = Package(
    name: "DominoBenchmarks",
    platforms: [.macOS(.v10_15)],
    products: [
        .executable(name: "domino-bench", targets: ["domino-bench"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        // glibc's allocator statistics (mallinfo2) live in <malloc.h>, which the Swift
        // Glibc module does not import; this header-only target exposes them.
        .target(name: "CMallocStats"),
        .executableTarget(
            name: "domino-bench",
            dependencies: [
                .product(name: "Domino", package: libraryIdentity),
                "CMallocStats",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
