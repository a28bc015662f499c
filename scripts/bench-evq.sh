#!/usr/bin/env bash
# Event queue instruction counts (not part of make test): for each scenario, callgrind's count of
# the simulation phase (sim_run) and of its part in the event queue (the functions of
# sim/evq.c, which call nothing outside it on the way: the queue's inclusive cost), per event.
# Prints name,events,instructions,instructions_per_event,evq_instructions,evq_per_event.
#   scripts/bench-evq.sh [NAME...]   names: ring8 (the 128-worker ring iteration of
#       scripts/bench-scale.sh with an 8 MB model), ft8, ft32 (bench-scale's fat-tree
#       permutation for 50us), or a pair of bench/ns3 (udp-incast-64, tcp-dctcp-64, ps-iter...);
#       default: all six. BUILD names the build (default build). Instructions do not depend on
#       the machine's load; each scenario takes 1-4 minutes under callgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BUILD:-build}/ddlsim
[ -x "$bin" ] || { echo "bench-evq: no $bin (make first)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench-evq: valgrind is needed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the scenario generators of bench-scale.sh
source <(sed -n '/^fat_tree_yaml()/,/^}/p; /^ring_yaml()/,/^}/p' scripts/bench-scale.sh)

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(ring8 ft8 ft32 udp-incast-64 tcp-dctcp-64 ps-iter)
echo "name,events,instructions,instructions_per_event,evq_instructions,evq_per_event"
for name in "${names[@]}"; do
    yaml=$tmp/$name.yaml
    case $name in
    ring8) ring_yaml | sed 's/bytes: 1GB/bytes: 8MB/' >"$yaml" ;;
    ft[0-9]*) fat_tree_yaml "${name#ft}" 50us none >"$yaml" ;;
    *)
        [ -f "bench/ns3/$name.yaml" ] || { echo "bench-evq: unknown scenario $name" >&2; exit 2; }
        cp "bench/ns3/$name.yaml" "$yaml"
        ;;
    esac
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=sim_run \
        --callgrind-out-file="$tmp/cg.out" "$bin" run "$yaml" --out "$tmp/out" \
        >"$tmp/stdout" 2>"$tmp/stderr" || {
        echo "bench-evq: callgrind of $name failed:" >&2
        tail -3 "$tmp/stderr" >&2
        exit 1
    }
    callgrind_annotate --auto=no --threshold=100 "$tmp/cg.out" >"$tmp/ann"
    awk -v name="$name" '
        function num(s) { gsub(/,/, "", s); return s + 0 }
        FNR == NR { if (match($0, /[0-9]+ events in /)) ev = num(substr($0, RSTART)); next }
        /PROGRAM TOTALS/ { ir = num($1) }
        /sim\/evq\.c:/ && !/=>/ { evq += num($1) }
        END {
            printf "%s,%.0f,%.0f,%.1f,%.0f,%.1f\n", name, ev, ir, ir / ev, evq, evq / ev
        }' "$tmp/stdout" "$tmp/ann"
done
