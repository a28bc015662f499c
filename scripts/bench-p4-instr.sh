#!/usr/bin/env bash
# Instruction counts of the P4 engines (callgrind), the steady measure on a shared machine
# where times move by +-20%:
#  - per pass of basic.p4 and of the three-table + register program, native and compiled:
#    (I(20000) - I(10000)) / 51000, where I(N) is the whole count of bench_p4 running N rounds
#    of one program on one engine (5.1 N passes), so set-up cancels out;
#  - per scenario of bench_p4scen (incast, VGG-16 PS one iteration, DCTCP), basic.p4 on the
#    native and the compiled engine against program: none, as a ratio of whole `ddlsim run`
#    counts (the preprocessor and the C compiler are child processes and are not counted;
#    each file is run once first so the native object is in the cache).
# With --time, instead: the CPU time (user + sys) of the same whole runs, the least of
# BENCH_P4_ROUNDS (default 5) rounds that alternate the three, and its ratio to none.
# Usage: scripts/bench-p4-instr.sh [--time] (make bench-p4-instr). Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CPU seconds (user + sys) of one quiet run of scenario file $1 (exits when the run fails:
# a failed run would time nothing).
cpu() {
    local TIMEFORMAT='%U %S' t
    t=$( { time "$BUILD/ddlsim" run "$1" --out "$tmp/out" --quiet >/dev/null 2>"$tmp/err" ||
           echo failed; } 2>&1)
    case "$t" in *failed*)
        echo "bench-p4-instr: failed: ddlsim run $1" >&2
        tail -5 "$tmp/err" >&2
        exit 1 ;;
    esac
    awk -v t="$t" 'BEGIN {split(t, a, " "); print a[1] + a[2]}'
}

if [ "${1:-}" = --time ]; then
    rounds=${BENCH_P4_ROUNDS:-5}
    echo "bench-p4-instr: whole scenarios, CPU seconds, least of $rounds rounds (P4 / none)"
    "$BUILD/bench/bench_p4scen" --yaml "$tmp" 1
    for name in incast vgg dctcp; do
        declare -A best=()
        for ((r = 0; r < rounds; r++)); do
            for sw in none native compiled; do
                t=$(cpu "$tmp/$name-$sw.yaml")
                best[$sw]=$(awk -v a="${best[$sw]:-1e9}" -v b="$t" 'BEGIN {print (b < a) ? b : a}')
            done
        done
        awk -v n="$name" -v z="${best[none]}" -v a="${best[native]}" -v c="${best[compiled]}" \
            'BEGIN {printf "  %s  none %.3f  native %.3f (%.2f)  compiled %.3f (%.2f)\n",
                    n, z, a, a / z, c, c / z}'
        unset best
    done
    exit 0
fi

command -v valgrind >/dev/null 2>&1 || scripts/install-deps.sh valgrind

# The whole instruction count of a command (exits when the command fails).
count() {
    if ! valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >"$tmp/cg.log" 2>&1; then
        echo "bench-p4-instr: failed: $*" >&2
        tail -5 "$tmp/cg.log" >&2
        exit 1
    fi
    awk '/^(summary|totals):/ {print $2; exit}' "$tmp/cg.out"
}

echo "bench-p4-instr: instructions per pass ((I(20000) - I(10000)) / 51000)"
for prog in basic three; do
    for engine in native compiled; do
        export BENCH_P4_ENGINE=$engine BENCH_P4_PROGRAM=$prog
        hi=$(BENCH_P4_N=20000 count "$BUILD/bench/bench_p4")
        lo=$(BENCH_P4_N=10000 count "$BUILD/bench/bench_p4")
        echo "$prog $engine $(( (hi - lo) / 51000 ))"
    done
done | awk '{printf "  %-6s %-9s %6d\n", $1, $2, $3}'
unset BENCH_P4_ENGINE BENCH_P4_PROGRAM

echo "bench-p4-instr: whole scenarios, millions of instructions (P4 / none)"
"$BUILD/bench/bench_p4scen" --yaml "$tmp" 1
for name in incast vgg dctcp; do
    line="  $name"
    none=0
    for sw in none native compiled; do
        "$BUILD/ddlsim" run "$tmp/$name-$sw.yaml" --out "$tmp/out" --quiet >/dev/null 2>&1
        n=$(count "$BUILD/ddlsim" run "$tmp/$name-$sw.yaml" --out "$tmp/out" --quiet)
        [ "$sw" = none ] && none=$n
        line+=$(awk -v s="$sw" -v n="$n" -v z="$none" \
            'BEGIN {printf "  %s %.1f (%.3f)", s, n / 1e6, n / z}')
    done
    echo "$line"
done
