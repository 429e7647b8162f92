#!/usr/bin/env bash
# Compiles Domino's Apple glue (Sources/Domino/Platform/) on Linux against the
# stand-in SDK modules of this folder, warnings as errors, once as an iOS app
# would (UIKit/) and once as a macOS app would (AppKit/), and runs each variant's
# small app, which checks its own result.
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
        "Domino.Signal.publisher"
    echo "-- $variant variant: glue compiled ($responder: DominoResponder, dominoNode; Combine publishers)"

    "$bin/${variant}User"
done

echo "-- platform check done in $((SECONDS - started)) s"
