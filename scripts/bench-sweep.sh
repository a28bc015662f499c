#!/usr/bin/env bash
# Sweep overhead per point (make bench): the same small scenario run N times as plain
# `ddlsim run` processes and as one N-point sweep on one worker (-j 1), and the time of
# `sweep --resume` on the finished folder (startup, resume checks and the merge into
# results.csv, with no point left to run). Medians of 3 repetitions of each.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
bin=$PWD/$BUILD/ddlsim
N=${SWEEP_BENCH_POINTS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/base.yaml" <<'YAML'
topology: {kind: star, hosts: 3, link: {rate: 10Gbps, delay: 1us}}
flows:
  - {src: h0, dst: h2, bytes: 200KB}
  - {src: h1, dst: h2, bytes: 200KB}
YAML
cat >"$tmp/sweep.yaml" <<YAML
scenario: base.yaml
repeat: $N
metrics: [{name: done_s, path: flows.*.last_rx_s, reduce: max}]
YAML
# the same without P4 (fixed-function switches): what loading the P4 program costs per point
sed 's/^repeat:/set: {defaults.switch.program: none}\nrepeat:/' "$tmp/sweep.yaml" >"$tmp/nop4.yaml"
# wall and CPU (user + system, the worker processes included) of a command, in ms
TIMEFORMAT='%R %U %S'
measure() { # file, command...
    local f=$1
    shift
    { time "$@" >/dev/null; } 2>>"$f"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
bare_runs() { for i in $(seq "$N"); do "$bin" run "$tmp/base.yaml" --seed "$i" --out "$tmp/r" --quiet; done; }
for rep in 1 2 3; do
    measure "$tmp/bare" bare_runs
    rm -rf "$tmp/s"
    measure "$tmp/sweep" "$bin" sweep "$tmp/sweep.yaml" --out "$tmp/s" -j 1 --quiet
    measure "$tmp/merge" "$bin" sweep "$tmp/sweep.yaml" --out "$tmp/s" -j 1 --quiet --resume
    rm -rf "$tmp/n"
    measure "$tmp/nop4" "$bin" sweep "$tmp/nop4.yaml" --out "$tmp/n" -j 1 --quiet
done
col() { awk -v c="$2" '{print (c == 1 ? $1 : $2 + $3) * 1000}' "$tmp/$1" | median; }
awk -v n="$N" -v bw="$(col bare 1)" -v bc="$(col bare 2)" -v sw="$(col sweep 1)" \
    -v sc="$(col sweep 2)" -v mw="$(col merge 1)" -v mc="$(col merge 2)" \
    -v nw="$(col nop4 1)" -v nc="$(col nop4 2)" 'BEGIN {
    printf "sweep overhead (%d points of a 2-flow star with the default P4 switch, medians of 3):\n", n
    printf "                                        wall ms   CPU ms\n"
    printf "  bare ddlsim run, per point           %8.1f %8.1f\n", bw / n, bc / n
    printf "  ddlsim sweep -j 1, per point         %8.1f %8.1f\n", sw / n, sc / n
    printf "  difference per point                 %8.1f %8.1f\n", (sw - bw) / n, (sc - bc) / n
    printf "  sweep --resume, nothing left to run  %8.1f %8.1f  (startup, checks, merge of %d rows)\n", mw, mc, n
    printf "  sweep -j 1 with program: none, per point %4.1f %8.1f  (the P4 program load is the rest)\n", nw / n, nc / n
}'
