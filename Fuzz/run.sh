#!/usr/bin/env bash
# Builds the fuzzer (libFuzzer and the address sanitizer, with the library's own
# sources) and runs it for a bounded time on a copy of the committed corpus.
# Exit status non-zero on a crash, a sanitizer report or a divergence from the model;
# libFuzzer then writes the input that did it to .build-fuzz/ (crash-*).
# Usage: bash Fuzz/run.sh [seconds, default 60] [more libFuzzer flags]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
out=.build-fuzz
mkdir -p "$out"

# Domino's dependency, swift-atomics, from SwiftPM's checkout, as SwiftPM builds it:
# its Swift module (all of whose code Domino inlines) and its small C module.
atomics=.build/checkouts/swift-atomics/Sources
[ -d "$atomics" ] || swift package resolve >/dev/null
shims=(-I "$atomics/_AtomicsShims/include")
mapfile -t atomics_sources < <(find "$atomics/Atomics" -name '*.swift' | sort)
swiftc -parse-as-library -O -g -swift-version 5 -enable-experimental-feature BuiltinModule "${shims[@]}" \
    -wmo -module-name Atomics -emit-module -emit-module-path "$out/Atomics.swiftmodule" \
    -c "${atomics_sources[@]}" -o "$out/Atomics.o"
clang -O2 -g "${shims[@]}" -c "$atomics/_AtomicsShims/src/_AtomicsShims.c" -o "$out/_AtomicsShims.o"
# Domino's own C shim (a thread-local word, the runtime's swift_tryRetain).
shims+=(-I Sources/_DominoShims/include)
clang -O2 -g -fsanitize=address "${shims[@]}" -c Sources/_DominoShims/DominoShims.c -o "$out/_DominoShims.o"

# The library as one module, testable (the model reads internals), instrumented.
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -I "$out" "${shims[@]}")
mapfile -t sources < <(find Sources/Domino -name '*.swift' | sort)
swiftc "${flags[@]}" -wmo -module-name Domino -package-name Domino -enable-testing \
    -emit-module -emit-module-path "$out/Domino.swiftmodule" \
    -c "${sources[@]}" -o "$out/Domino.o"
# The reference models the tests use, and the entry point.
swiftc "${flags[@]}" -wmo -module-name DominoFuzz \
    -c Tests/DominoTests/ReferenceModel.swift Tests/DominoTests/ResponderModel.swift Fuzz/FuzzDomino.swift -o "$out/DominoFuzz.o"
swiftc -sanitize=fuzzer,address "$out/Atomics.o" "$out/_AtomicsShims.o" "$out/_DominoShims.o" "$out/Domino.o" "$out/DominoFuzz.o" \
    -o "$out/fuzz-domino"

# The committed corpus stays as it is; the run grows a copy.
mkdir -p "$out/corpus"
cp -n Fuzz/corpus/* "$out/corpus/" 2>/dev/null || true
cd "$out"
# The Swift backtracer takes a minute over an instrumented binary; the sanitizer and
# the fatal error say enough.
export SWIFT_BACKTRACE=enable=no
# First half: sequences without cycles, so that walks collect without a lock the
# whole run (a cycle closes the walk gate for the rest of the process); second half:
# every operation.
first=$((seconds / 2))
DOMINO_FUZZ_LOCK_FREE=1 ./fuzz-domino -max_total_time="$first" -timeout=10 -rss_limit_mb=4096 -max_len=256 \
    -print_final_stats=1 "$@" corpus
./fuzz-domino -max_total_time="$((seconds - first))" -timeout=10 -rss_limit_mb=4096 -max_len=256 \
    -print_final_stats=1 "$@" corpus
