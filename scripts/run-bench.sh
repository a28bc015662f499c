#!/usr/bin/env bash
# Runs every benchmark binary (bench/bench_*.c) and the sweep overhead script and prints
# their results.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
for b in "$BUILD"/bench/bench_*; do
    [ -x "$b" ] && [ "${b%.o}" = "$b" ] && [ "${b%.d}" = "$b" ] || continue
    echo "== $(basename "$b")"
    "$b"
done
echo "== sweep overhead"
scripts/bench-sweep.sh
