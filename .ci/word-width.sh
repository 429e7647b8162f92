#!/usr/bin/env bash
# Literals and shifts that would not compile, or would silently lose bits, where
# `Int` and `UInt` are 32 bits wide: arm64_32 (Apple Watch), a platform Domino
# declares. The Apple-platform check cannot see these: its standard library is
# built from the x86_64 Linux interface, where `Int` is 64 bits on every triple.
# Session 29 found one by reading (a 64-bit constant stored into `UInt`).
#
# Flags, in Sources/ outside comments, an integer literal wider than 32 bits or a
# shift by a literal of 32 or more, unless its line names a 64-bit type (`UInt64`,
# `Int64`) or `bitWidth` (code written for either width), or says in a comment why
# the value is 64 bits wide (`// 64-bit: ...`). Write such a constant as
# `UInt64` and narrow it with `truncatingIfNeeded:`, or derive it from
# `UInt.bitWidth` (see `SlotKey.goldenRatio`).
#
# Usage: .ci/word-width.sh [directory...]   (default Sources)
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - "${@:-Sources}" <<'PY'
import os, re, sys

literal = re.compile(r'\b(0x[0-9A-Fa-f_]+|0b[01_]+|[0-9][0-9_]*)\b')
shift = re.compile(r'(<<|>>)=?\s*([0-9]+)\b')
wide_types = re.compile(r'\b(U?Int64|bitWidth)\b')
found = []
for root in sys.argv[1:]:
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith('.swift'):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding='utf-8') as source:
                for number, line in enumerate(source, 1):
                    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)   # string literals
                    code, _, comment = code.partition('//')           # comments
                    if not code.strip() or wide_types.search(code) or comment.strip().startswith('64-bit:'):
                        continue
                    for match in literal.finditer(code):
                        text = match.group(1).replace('_', '')
                        try:
                            value = int(text, 0) if text[:2] in ('0x', '0b') else int(text, 10)
                        except ValueError:
                            continue
                        if value > 0xFFFF_FFFF:
                            found.append((path, number, line.strip(), f'the literal {match.group(1)} needs more than 32 bits'))
                    for match in shift.finditer(code):
                        if int(match.group(2)) >= 32:
                            found.append((path, number, line.strip(), f'a shift by {match.group(2)}'))
for path, number, line, why in found:
    print(f'{path}:{number}: error: {why}, which a 32-bit Int or UInt (arm64_32, Apple Watch) cannot hold; '
          f'type it UInt64 or Int64, or derive it from UInt.bitWidth\n    {line}', file=sys.stderr)
if found:
    sys.exit(1)
print(f'word width: no literal or shift wider than 32 bits outside 64-bit types in {", ".join(sys.argv[1:])}')
PY
