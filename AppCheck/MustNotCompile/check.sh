#!/usr/bin/env bash
# Each file here must fail to typecheck against the Domino module, with the error its
# first line names: what would be a data race at run time is a compile error.
# Usage: bash AppCheck/MustNotCompile/check.sh [modules-dir] (default: .build/debug/Modules)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
modules="${1:-.build/debug/Modules}"
# Domino imports swift-atomics, whose module imports a small C module: its module map
# is in SwiftPM's checkout, beside the build folder (<build>/checkouts).
shims="$(dirname "$(dirname "$modules")")/checkouts/swift-atomics/Sources/_AtomicsShims/include"
[ -d "$shims" ] || { echo "error: no swift-atomics checkout at $shims; run swift build first" >&2; exit 1; }
# And Domino's own C shim (Sources/_DominoShims), beside this folder's parent.
own_shims="$(dirname "$(dirname "$here")")/Sources/_DominoShims/include"
failures=0
for file in "$here"/*.swift; do
    expected="$(head -n 1 "$file" | sed 's|^// expect: ||')"
    if output="$(swiftc -typecheck -swift-version 6 -I "$modules" -I "$shims" -I "$own_shims" "$file" 2>&1)"; then
        echo "FAIL $(basename "$file"): compiled, but must not"
        failures=$((failures + 1))
    elif ! grep -qF -- "$expected" <<<"$output"; then
        echo "FAIL $(basename "$file"): failed, but not with \"$expected\":"
        echo "$output" | grep error: | head -n 3
        failures=$((failures + 1))
    else
        echo "ok   $(basename "$file"): $expected"
    fi
done
[ "$failures" -eq 0 ] && echo "must-not-compile: all $(ls "$here"/*.swift | wc -l) cases refused as expected"
exit "$failures"
