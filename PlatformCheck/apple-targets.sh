#!/usr/bin/env bash
# Typechecks Domino for every Apple platform it declares, at each platform's minimum
# OS, with availability enforced by the compiler (a Linux build never checks
# `@available(iOS ...)`, nor compiles `#if os(iOS)` or `#if canImport(Darwin)` code).
#
# 1. Builds a small SDK per platform into .build-apple/<platform>/sdk, from the
#    toolchain this runs on (nothing downloaded, nothing prebuilt committed):
#    - the standard library, _Concurrency, _StringProcessing and SwiftOnoneSupport,
#      compiled from the toolchain's textual interfaces, which carry Apple's real
#      `@available(macOS, iOS, watchOS, tvOS ...)` attributes, for the platform's
#      triple (the `@backDeployed` lines are dropped: their bodies are not in the
#      Linux interface, and the `@available` that stays is the right floor);
#    - swift-atomics, Domino's one dependency, from SwiftPM's checkout (Domino's own C
#      shim, Sources/_DominoShims, is read from its header where Domino is compiled);
#    - the stand-ins for what those interfaces do not cover, declared as Apple's SDK
#      declares them, availability included: Darwin (a C module and its overlay),
#      ObjectiveC, Dispatch, Foundation and Combine (AppleSDK/), and os, UIKit,
#      AppKit and SwiftUI (Sources/, shared with check.sh's Linux builds).
# 2. Typechecks against it, warnings as errors: Domino, DominoTesting, DominoSwiftUI
#    (as modules, in that order), then the code users copy: the README quick start,
#    the DocC articles' snippets (Tests/DominoTests/DocumentationSnippets.swift and
#    the concurrency article's), the small apps of check.sh (UIKitUser and the
#    SwiftUI article's SwiftUIUser where UIKit has views, AppKitUser on macOS), and the
#    app-like target AppCheck/ with its MainActor default isolation (macOS 14, iOS 17).
# 3. Expects each case in AppleMustNotCompile/ to be rejected on the platforms its
#    `// expect <platform>: <message>` lines name, with that message.
#
# Errors are printed with the platform in front ("[iOS 13.0] ... error: ..."), so a
# failure names the platform and the symbol. Platforms run two at a time (2 cores).
# Run from anywhere: `bash PlatformCheck/apple-targets.sh [platform...]` (all platforms
# when none is named); exits non-zero on any error.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
here=PlatformCheck
scratch=.build-apple

swiftc_path=$(readlink -f "$(command -v swiftc)")
toolchain=$(dirname "$(dirname "$swiftc_path")")/lib/swift
interfaces=$toolchain/linux
plugins=$toolchain/host/plugins

# swift-atomics' sources, where SwiftPM checks them out for the library.
atomics=.build/checkouts/swift-atomics/Sources
[ -d "$atomics" ] || swift package resolve >/dev/null

# name, triple. Simulators are left out: their triples differ from the devices' only
# in the environment (`targetEnvironment(simulator)`, which Domino never tests) and,
# for some, the architecture; availability is the same.
platforms=(
    "iOS arm64-apple-ios13.0"
    "macOS x86_64-apple-macos10.15"
    "tvOS arm64-apple-tvos13.0"
    "watchOS arm64_32-apple-watchos6.0"
    "visionOS arm64-apple-xros1.0"
)
if [ $# -gt 0 ]; then
    chosen=()
    for entry in "${platforms[@]}"; do
        for wanted in "$@"; do
            if [ "${entry%% *}" = "$wanted" ]; then chosen+=("$entry"); fi
        done
    done
    [ ${#chosen[@]} -gt 0 ] || { echo "error: no platform named $*; choose from iOS macOS tvOS watchOS visionOS" >&2; exit 2; }
    platforms=("${chosen[@]}")
fi

# stdlib_module SDK TRIPLE NAME [FLAGS...]: NAME.swiftmodule from the toolchain's
# interface, rebuilt only when the toolchain's interface is newer.
stdlib_module() {
    local sdk=$1 triple=$2 name=$3; shift 3
    local source=$interfaces/$name.swiftmodule/x86_64-unknown-linux-gnu.swiftinterface
    local module=$sdk/$name.swiftmodule
    [ "$module" -nt "$source" ] && return 0
    # The rewritten interface stays outside the SDK folder: beside the module, the
    # compiler would take it for the module's source and rebuild from it whenever the
    # module looks stale (a copied checkout), without the flags below.
    mkdir -p "$sdk/../interfaces"
    local interface=$sdk/../interfaces/$name.swiftinterface
    sed -e "s/-target x86_64-unknown-linux-gnu/-target $triple/g" -e '/@backDeployed(/d' "$source" >"$interface"
    if [[ $triple != x86_64-* ]]; then
        # Float80 exists only on x86; the Linux interface declares it unguarded and
        # two of its bodies call x86-only C shims. Nothing here uses Float80.
        sed -i -e 's/^\( *\)self = _stdlib_\(remainderl\|squareRootl\)(.*$/\1Swift.fatalError("no Float80 here")/' "$interface"
    fi
    # Availability inside the interface is the library's business, not ours (and for
    # visionOS it needs the version map below, which this build does not read).
    swiftc -frontend -compile-module-from-interface -module-name "$name" -target "$triple" \
        -disable-objc-interop -disable-availability-checking -I "$sdk" "$@" "$interface" -o "$module.partial"
    mv "$module.partial" "$module"
}

# check_platform NAME TRIPLE: everything for one platform; prints its errors
# prefixed with the platform.
check_platform() {
    local name=$1 triple=$2
    local label
    label=$(label "$triple" "$name")
    local dir=$scratch/$name sdk=$scratch/$name/sdk
    # The clang module cache records its absolute path: start it anew each run, so a
    # moved or copied checkout does not trip over it (it refills in seconds).
    rm -rf "$dir/cache"
    mkdir -p "$sdk" "$dir/cache"
    # SwiftShims' module map named outright: with an SDKSettings.json in the SDK folder
    # (visionOS, below) this toolchain no longer finds it by itself.
    local front=(swiftc -frontend -target "$triple" -sdk "$sdk" -I "$sdk" -I "$here/AppleSDK/Darwin"
                 -Xcc "-fmodule-map-file=$toolchain/shims/module.modulemap"
                 -module-cache-path "$dir/cache" -disable-objc-interop -plugin-path "$plugins")

    stdlib_module "$sdk" "$triple" Swift -parse-stdlib
    stdlib_module "$sdk" "$triple" _Concurrency -parse-stdlib
    stdlib_module "$sdk" "$triple" SwiftOnoneSupport
    stdlib_module "$sdk" "$triple" _RegexParser
    stdlib_module "$sdk" "$triple" _StringProcessing
    if [ "$name" = visionOS ]; then
        # Most of the standard library's availability names no visionOS version; the
        # compiler derives it from the iOS version through the SDK's version map, as
        # Xcode's visionOS SDK declares it (visionOS 1.0 is iOS 17.0, 2.x is 18.x).
        cat >"$sdk/SDKSettings.json" <<'JSON'
{"CanonicalName": "xros26.0", "DisplayName": "visionOS 26.0 (stand-in)", "Version": "26.0",
 "MaximumDeploymentTarget": "26.0.99",
 "VersionMap": {
  "iOS_visionOS": {"17.0": "1.0", "17.2": "1.1", "17.4": "1.2", "18.0": "2.0", "18.1": "2.1",
                   "18.2": "2.2", "18.3": "2.3", "18.4": "2.4", "18.5": "2.5", "26.0": "26.0"},
  "visionOS_iOS": {"1.0": "17.0", "1.1": "17.2", "1.2": "17.4", "2.0": "18.0", "2.1": "18.1",
                   "2.2": "18.2", "2.3": "18.3", "2.4": "18.4", "2.5": "18.5", "26.0": "26.0"}}}
JSON
    fi

    # The stand-ins, as the SDK's modules are built: library code in Swift 5 mode for
    # the C overlay, the others in Swift 6 mode as check.sh builds them.
    local module=("${front[@]}" -parse-as-library -emit-module)
    "${module[@]}" -swift-version 5 -module-name Darwin -import-underlying-module \
        "$here/AppleSDK/Darwin/Darwin.swift" -o "$sdk/Darwin.swiftmodule"
    # module:files, space-separated
    local standins=("ObjectiveC:AppleSDK/ObjectiveC.swift Sources/ObjCRuntime/AssociationPolicy.swift"
                    Dispatch:AppleSDK/Dispatch.swift
                    Foundation:AppleSDK/Foundation.swift Combine:AppleSDK/Combine.swift os:Sources/os/os.swift)
    case $name in
        macOS) standins+=(AppKit:Sources/AppKit/AppKit.swift) ;;
        *) standins+=(UIKit:Sources/UIKit/UIKit.swift) ;;
    esac
    standins+=(SwiftUI:Sources/SwiftUI/SwiftUI.swift)
    local entry file files
    for entry in "${standins[@]}"; do
        files=()
        for file in ${entry#*:}; do files+=("$here/$file"); done
        "${module[@]}" -swift-version 6 -module-name "${entry%%:*}" "${files[@]}" -o "$sdk/${entry%%:*}.swiftmodule"
    done

    # Our dependency, swift-atomics, as SwiftPM builds it (Swift 5 mode, the compiler's
    # builtins), from the checkout SwiftPM made for the library, in its single-module
    # form (its CMake build's): the C module it otherwise imports for two function
    # declarations includes <assert.h>, which the stand-in SDK has no reason to carry.
    local atomics_sources
    mapfile -t atomics_sources < <(find "$atomics/Atomics" -name '*.swift' | sort)
    local atomics_target=()
    # The standard library here is built from the x86_64 Linux interface, so its `Int`
    # is 64 bits wide on every triple; on arm64_32 the bodies of swift-atomics' own
    # `#if _pointerBitWidth(_32)` branch (32-bit storage for `Int`) do not match it.
    # There its declarations alone are checked (availability included), which is all
    # that typechecking Domino against it needs.
    [[ $triple == arm64_32-* ]] && atomics_target=(-experimental-skip-all-function-bodies)
    "${front[@]}" "${atomics_target[@]}" -parse-as-library -emit-module -swift-version 5 -module-name Atomics \
        -enable-experimental-feature BuiltinModule -D ATOMICS_SINGLE_MODULE \
        "${atomics_sources[@]}" -o "$dir/Atomics.swiftmodule"

    # Our code: the library's modules, then what users copy from the docs. Domino's C
    # shim (a thread-local word, the runtime's swift_tryRetain) is a module map and a
    # header without system includes, parsed for each platform's triple.
    local ours=("${front[@]}" -swift-version 6 -warnings-as-errors -I "$dir" -I Sources/_DominoShims/include)
    "${ours[@]}" -parse-as-library -emit-module -module-name Domino \
        $(find Sources/Domino -name '*.swift' | sort) -o "$dir/Domino.swiftmodule"
    "${ours[@]}" -parse-as-library -emit-module -module-name DominoTesting \
        $(find Sources/DominoTesting -name '*.swift' | sort) -o "$dir/DominoTesting.swiftmodule"
    "${ours[@]}" -parse-as-library -emit-module -module-name DominoSwiftUI \
        $(find Sources/DominoSwiftUI -name '*.swift' | sort) -o "$dir/DominoSwiftUI.swiftmodule"

    # The code users copy: the README's quick start (its own text), and every block of
    # the DocC articles' code (the DOC-SNIPPET blocks that DocumentationTests holds the
    # articles to), in one file as the tests compile them. A block that uses UIKit's
    # views is checked where UIKit has views, not on macOS or watchOS; a block that is a
    # Swift Testing test (TestingYourEvents) is left out: Testing is not in this SDK.
    local ui=1
    case $name in macOS|watchOS) ui=0 ;; esac
    {
        echo "import Dispatch"
        echo "import Foundation"
        echo "import Domino"
        echo "import DominoTesting"
        if [ $ui -eq 1 ]; then echo "import UIKit"; fi
        awk '/^<!-- quick-start -->$/{getline; on=1; next} on && /^```$/{on=0} on{print}' README.md
        awk -v ui=$ui '
            /^\/\/ DOC-SNIPPET-BEGIN /{on=1; block=""; next}
            /^\/\/ DOC-SNIPPET-END /{if ((ui || block !~ /UIView/) && block !~ /@Test/) printf "%s", block; on=0; next}
            on{block = block $0 "\n"}' \
            Tests/DominoTests/DocumentationSnippets.swift Tests/DominoTests/ConcurrencyArticleTests.swift
    } >"$dir/UserCode.swift"
    "${ours[@]}" -parse-as-library -typecheck -module-name UserCode "$dir/UserCode.swift"

    # The small apps, as app code (top-level code in main.swift).
    case $name in
        macOS) "${ours[@]}" -typecheck -module-name AppKitUser "$here"/AppKit/Sources/AppKitUser/*.swift ;;
        watchOS) ;; # UIKit has no views on watchOS; DominoSwiftUI's UIKit half is left out there.
        *) "${ours[@]}" -typecheck -module-name UIKitUser "$here"/UIKit/Sources/UIKitUser/*.swift
           "${ours[@]}" -typecheck -module-name SwiftUIUser "$here"/UIKit/Sources/SwiftUIUser/*.swift ;;
    esac

    # The app-like target (AppCheck/: MainActor default isolation, isolated
    # conformances inferred, nonisolated async functions on the caller's actor), as
    # Xcode 26 builds an app: for macOS 14, the platform its package declares, and for
    # iOS 17, where an app that uses signals everywhere starts.
    local app=("${ours[@]}" -default-isolation MainActor -enable-upcoming-feature InferIsolatedConformances
               -enable-upcoming-feature NonisolatedNonsendingByDefault -typecheck -module-name DominoApp)
    case $name in
        macOS) "${app[@]}" -target x86_64-apple-macos14.0 AppCheck/Sources/DominoApp/*.swift ;;
        iOS) "${app[@]}" -target arm64-apple-ios17.0 AppCheck/Sources/DominoApp/*.swift ;;
    esac

    # Mistakes that must be rejected, with the compiler's availability message.
    local case expect platform message
    for case in "$here"/AppleMustNotCompile/*.swift; do
        while IFS= read -r expect; do
            platform=${expect#// expect }; platform=${platform%%:*}
            [ "$platform" = "$name" ] || continue
            message=${expect#*: }
            if "${ours[@]}" -parse-as-library -typecheck -module-name MustNotCompile "$case" >"$dir/must-not.log" 2>&1; then
                echo "error: $(basename "$case") typechecked for $label: availability is not enforced" >&2
                return 1
            fi
            if ! grep -qF -- "$message" "$dir/must-not.log"; then
                echo "error: $(basename "$case") was rejected for $label without: $message" >&2
                cat "$dir/must-not.log" >&2
                return 1
            fi
            echo "-- $label: $(basename "$case" .swift) rejected: $message"
        done < <(grep '^// expect ' "$case")
    done
    local apps="the apps"
    case $name in macOS) apps="the apps (AppCheck's at macOS 14)" ;; iOS) apps="the apps (AppCheck's at iOS 17)" ;; esac
    echo "-- $label: Domino, DominoTesting, DominoSwiftUI, the quick start, the articles' code and $apps typecheck"
}

# label TRIPLE NAME: "iOS 13.0", for messages.
label() {
    local version=${1##*-apple-}
    echo "$2 ${version//[a-z]/}"
}

running=0
for entry in "${platforms[@]}"; do
    read -r name triple <<<"$entry"
    mkdir -p "$scratch/$name"
    rm -f "$scratch/$name/status"
    # Not in an `if`: there bash ignores `set -e` in the function too. The status
    # file is written only when every command of the platform succeeded.
    ( check_platform "$name" "$triple"; echo ok >"$scratch/$name/status" ) >"$scratch/$name/log" 2>&1 &
    running=$((running + 1))
    if [ $running -ge 2 ]; then wait -n || true; running=$((running - 1)); fi
done
wait

failed=0
for entry in "${platforms[@]}"; do
    read -r name triple <<<"$entry"
    if [ "$(cat "$scratch/$name/status" 2>/dev/null)" = ok ]; then
        grep '^--' "$scratch/$name/log"
    else
        failed=1
        sed "s/^/[$(label "$triple" "$name")] /" "$scratch/$name/log" >&2
        echo "error: the typecheck for $(label "$triple" "$name") failed (log: $scratch/$name/log)" >&2
    fi
done
[ $failed -eq 0 ] || exit 1
echo "-- Apple targets done in $((SECONDS - started)) s"
