#!/usr/bin/env bash
# Compiles Domino's Apple glue (Sources/Domino/Platform/) on Linux against the
# stand-in SDK modules of this folder, warnings as errors, once as an iOS app
# would (UIKit/) and once as a macOS app would (AppKit/), and runs each variant's
# small app, which checks its own result (the UIKit variant also compiles the
# DominoSwiftUI layer and the SwiftUI article's code against the stand-in SwiftUI,
# and runs what of it the stand-ins can run); the UIKit app's unified log (which the
# stand-in `os` writes to standard output) is checked here. Then typechecks the
# unified-log glue for iOS 13, where the SDK's availability is enforced.
#
# Each variant has its own scratch path: `canImport` sees every module in a
# build folder, declared dependency or not, so a shared one would make the AppKit
# variant compile the UIKit branch again. The scratch paths (.build-platform-*)
# sit at the library's root, ignored by its .gitignore (.build-*/).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

# expect_symbols SCRATCH BIN SYMBOL...: each demangled SYMBOL is defined by the
# variant's Domino objects (proof that the branch meant was compiled).
expect_symbols() {
    local bin=$1; shift
    local defined
    defined=$(nm --defined-only "$bin"/Domino.build/*.o | swift demangle)
    for symbol in "$@"; do
        if ! grep -qF -- "$symbol" <<<"$defined"; then
            echo "error: the Domino build in $bin defines no $symbol" >&2
            exit 1
        fi
    done
}

for variant in UIKit AppKit; do
    case $variant in
        UIKit) other=AppKit; responder=UIKit.UIResponder ;;
        AppKit) other=UIKit; responder=AppKit.NSResponder ;;
    esac
    scratch=.build-platform-$(tr '[:upper:]' '[:lower:]' <<<"$variant")
    build=(swift build --package-path "PlatformCheck/$variant" --scratch-path "$scratch" -Xswiftc -warnings-as-errors)

    echo "-- $variant variant: build (warnings are errors) in $scratch"
    "${build[@]}"
    bin=$("${build[@]}" --show-bin-path)

    if [ -n "$(find "$scratch" -name "$other.swiftmodule" -print -quit)" ]; then
        echo "error: $scratch holds the $other stand-in, so canImport($other) would hold there" >&2
        exit 1
    fi
    expect_symbols "$bin" \
        "$responder.dominoNode.getter" \
        "$responder.nextDominoResponder.getter" \
        "Domino.DominoNode.publisher" \
        "Domino.Signal.publisher" \
        "Domino.UnifiedLogging.(diagnostics in" \
        "Domino.UnifiedLogging.(signposter in"
    echo "-- $variant variant: glue compiled ($responder: DominoResponder, dominoNode; Combine publishers; os.Logger, OSSignposter)"

    "$bin/${variant}User" | tee "$scratch/${variant}User.out"

    if [ "$variant" = UIKit ]; then
        # The SwiftUI layer, compiled against the stand-in SwiftUI (proof that its
        # `#if canImport(SwiftUI)` branch was compiled), and the SwiftUI article's
        # code (SwiftUIUser), which checks the hosting wiring it can run.
        defined=$(nm --defined-only "$bin"/DominoSwiftUI.build/*.o | swift demangle)
        for symbol in "SwiftUI.EnvironmentValues.domino.getter" \
                      "SwiftUI.View.dominoNode(Swift.String)" \
                      "SwiftUI.UIHostingController.init<"; do
            if ! grep -qF -- "$symbol" <<<"$defined"; then
                echo "error: the DominoSwiftUI build in $bin defines no $symbol" >&2
                exit 1
            fi
        done
        echo "-- SwiftUI layer compiled against the stand-in SwiftUI (environment value, modifiers, UIHostingController(dominoRootView:))"
        "$bin/SwiftUIUser"
    fi
done

# What the UIKit app wrote to the stand-in unified log: each line a pattern.
log=.build-platform-uikit/UIKitUser.out
while IFS= read -r pattern; do
    if ! grep -qE -- "$pattern" "$log"; then
        echo "error: the unified log of UIKitUser has no line matching: $pattern" >&2
        exit 1
    fi
done <<'PATTERNS'
^os_log Domino/diagnostics error: \[mountAtSelf\] screen cannot be mounted at itself
^os_log Domino/tracing info: post ItemSelected at ItemCell$
^os_signpost Domino/tracing begin post 0x[0-9a-f]+: ItemSelected at ItemCell$
^os_signpost Domino/tracing end post 0x[0-9a-f]+: delivered to 2 handler\(s\) over 3 node\(s\)$
^os_signpost Domino/tracing begin request 0x[0-9a-f]+: ChannelName at ItemCell$
^os_log Domino/tracing info:   <- ChannelName answered at screen: <private>$
^os_signpost Domino/tracing end request 0x[0-9a-f]+: answered at screen$
^os_signpost Domino/tracing begin fire 0x[0-9a-f]+: Signal<Double>$
^os_signpost Domino/tracing end fire 0x[0-9a-f]+: fired$
PATTERNS
if grep -q "secret-channel" "$log"; then
    echo "error: the unified log shows a private value (the answer secret-channel)" >&2
    exit 1
fi
echo "-- unified log: a diagnostic (error), trace records (info, values private), post, request and fire intervals"

# Availability: on Linux the compiler ignores `@available(iOS ...)`, so the builds
# above cannot catch a Logger (iOS 14) or OSSignposter (iOS 15) call outside
# `if #available`. Embedded Swift ships an iOS standard library: the stand-in `os`
# and UnifiedLogging.swift (self-contained for this) are typechecked for iOS 13,
# Domino's deployment target, where availability is enforced. A probe without the
# guard must fail, or the check proves nothing.
avail=.build-platform-availability
mkdir -p "$avail"
ios13=(swiftc -enable-experimental-feature Embedded -target arm64-apple-ios13.0 -wmo -swift-version 6 -Xfrontend -disable-target-os-checking)
"${ios13[@]}" -parse-as-library -emit-module -module-name os -emit-module-path "$avail/os.swiftmodule" \
    PlatformCheck/Sources/os/os.swift 2>"$avail/os.log" || { cat "$avail/os.log" >&2; exit 1; }
printf '#if !canImport(os)\n#error("the stand-in os is not visible")\n#endif\n' >"$avail/Visible.swift"
"${ios13[@]}" -I "$avail" -typecheck -parse-as-library -warnings-as-errors \
    "$avail/Visible.swift" Sources/Domino/Platform/UnifiedLogging.swift
printf 'import os\nfunc unguarded() { Logger(subsystem: "s", category: "c").error("x") }\n' >"$avail/Unguarded.swift"
if "${ios13[@]}" -I "$avail" -typecheck -parse-as-library "$avail/Unguarded.swift" 2>"$avail/unguarded.log"; then
    echo "error: an unguarded Logger call typechecked for iOS 13: availability is not enforced" >&2
    exit 1
fi
grep -q "only available in iOS 14.0 or newer" "$avail/unguarded.log"
echo "-- availability: UnifiedLogging.swift typechecks for iOS 13 against the stand-in os (an unguarded Logger call does not)"

echo "-- platform check done in $((SECONDS - started)) s"
