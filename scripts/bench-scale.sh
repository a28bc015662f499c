#!/usr/bin/env bash
# Scale benchmark (make bench-scale; not part of make test): fat trees of k = 8, 16, 32 with the
# same load per host (every host sends one TCP flow to the host H/2 further, so every flow
# crosses the core: a permutation), each for the same simulated time, without P4 (program:
# none); then `check` of the k = 32 fat tree with the default P4 program and its 1 ms run. For
# each: exit status, wall time of the process, the simulation phase's time and events (from the
# run's summary line), events/s, ns per event, CPU time and peak RSS (GNU time). Written to
# $OUT/bench-scale.csv and plotted to $OUT/bench-scale.png (ns per event and peak RSS against
# hosts); the machine's load latency by working-set size (bench_memlat, when built: make
# bench-scale builds it) to $OUT/memlat.csv.
#   BENCH_SCALE_STOP   simulated time of each run (default 200us)
#   BENCH_SCALE_KS     fat-tree sizes (default "8 16 32"; empty: none)
#   BENCH_SCALE_P4=0   skips the k = 32 rows with the default P4 program
#   BENCH_SCALE_MEM    address-space limit of each run (ulimit -v, default 16 GiB), so a run that
#                      does not fit fails with "out of memory" instead of pressing the machine
#   BENCH_SCALE_LONG=1 also the 128-worker ring all-reduce iteration (1 GB model on a k = 8 fat
#                      tree at 25 Gbps, TCP, 1500-byte MTU: MSS 1460), the same with 9000-byte
#                      jumbo frames (MSS 8960; row ring_128_1GB_mtu9000) and k = 64 (100us
#                      permutation, and check)
#   BENCH_SCALE_CACHE="8 32" fat-tree sizes also run under callgrind's cache simulation of the
#                      simulation phase alone (sim_run; valgrind --tool=callgrind --cache-sim=yes,
#                      about 50x slower): instructions, D1 and LL data misses, and per event, into
#                      $OUT/bench-scale-cache.csv. The caches are 64-way (the lines an event
#                      touches, little conflict luck): D1 32 KiB, LL BENCH_SCALE_CACHE_LL bytes
#                      (default 524288: this machine's L2; 33554432: its L3, misses that go to
#                      memory); each run for BENCH_SCALE_CACHE_STOP (default: BENCH_SCALE_STOP;
#                      50us keeps k = 32 to minutes). BENCH_SCALE_CACHE_KEEP=1 keeps callgrind's
#                      file of each, $OUT/callgrind-k<k>.out, for callgrind_annotate (misses per
#                      source line: with a build made with -DSIM_PREFETCH_LOADS, sim/prefetch.h,
#                      the misses each prefetch covers show at its own line)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case $BUILD in
/*) bin=$BUILD/ddlsim ;;
*) bin=$PWD/$BUILD/ddlsim ;;
esac
[ -x "$bin" ] || { echo "bench-scale: no $bin (make first)" >&2; exit 1; }
OUT=${OUT:-$BUILD/bench-scale}
STOP=${BENCH_SCALE_STOP:-200us}
KS=${BENCH_SCALE_KS-8 16 32}
MEM_KB=${BENCH_SCALE_MEM:-$((16 * 1024 * 1024))}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-scale: GNU time ($TIME) is needed for peak RSS" >&2; exit 1; }
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fat tree of port count k, permutation of long TCP flows, for `stop`, with `program`
fat_tree_yaml() { # k stop program
    awk -v k="$1" -v stop="$2" -v prog="$3" 'BEGIN {
        h = k * k * k / 4
        printf "name: fat-tree-k%d\nstop: %s\n", k, stop
        printf "topology: {kind: fat_tree, k: %d, link: {rate: 10Gbps, delay: 1us}", k
        printf ", switch: {program: %s}}\nflows:\n", prog
        for (i = 0; i < h; i++)
            printf "  - {src: h%d, dst: h%d, type: tcp, bytes: 1GB}\n", i, (i + h / 2) % h
    }'
}

# one iteration of ring all-reduce of a 1 GB model (one 1 GB layer, no compute) by 128 workers;
# $1: TCP MSS (default 1460 B, a 1500-byte MTU)
ring_yaml() {
    awk -v mss="${1:-1460}" 'BEGIN {
        printf "name: ring-128\ntopology: {kind: fat_tree, k: 8, link: {rate: 25Gbps, delay: 1us}"
        printf ", switch: {program: none, buffer: 4MB}}\n"
        printf "jobs:\n  - name: ring\n    arch: allreduce\n    iterations: 1\n    chunk: 4MB\n"
        printf "    model: {name: one-gb, layers: [{name: all, bytes: 1GB, "
        printf "forward: 0s, backward: 0s}]}\n"
        printf "    transport: tcp\n    transport_params: {rto_min: 1ms, rto_init: 10ms, "
        printf "mss: %dB}\n", mss
        printf "    workers: ["
        for (i = 0; i < 128; i++)
            printf "%sh%d", i ? ", " : "", i
        printf "]\n"
    }'
}

# sim_s: the simulation phase (wall); ns_per_event from it; cpu_ns_per_event: the whole process's
# user + system time per event (less disturbed by other load on the machine)
echo "name,hosts,command,status,wall_s,sim_s,events,events_per_s,ns_per_event,cpu_s,\
cpu_ns_per_event,peak_rss_mib" \
    >"$OUT/bench-scale.csv"
# measure NAME HOSTS COMMAND YAML [ARGS...]: one CSV row
measure() {
    local name=$1 hosts=$2 cmd=$3 yaml=$4
    shift 4
    local status=0
    local args=("$cmd" "$yaml")
    [ "$cmd" = run ] && args+=(--out "$tmp/out")
    (
        ulimit -v "$MEM_KB"
        exec "$TIME" -f '%e %U %S %M' -o "$tmp/time" "$bin" "${args[@]}" "$@"
    ) >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
    local line
    line=$(grep -m1 ' events in ' "$tmp/stdout" || true)
    awk -v name="$name" -v hosts="$hosts" -v cmd="$cmd" -v st="$status" -v line="$line" '
        { wall = $1; cpu = $2 + $3; rss = $4 / 1024 }
        END {
            ev = ""; sim = ""; eps = ""; ns = ""; cns = ""
            if (match(line, /[0-9]+ events in [0-9.]+ s/)) {
                split(substr(line, RSTART, RLENGTH), f, " ")
                ev = f[1]; sim = f[4]
                if (sim > 0 && ev > 0) {
                    eps = sprintf("%.0f", ev / sim)
                    ns = sprintf("%.0f", sim * 1e9 / ev)
                    cns = sprintf("%.0f", cpu * 1e9 / ev)
                }
            }
            printf "%s,%d,%s,%s,%.2f,%s,%s,%s,%s,%.2f,%s,%.0f\n", name, hosts, cmd,
                st == 0 ? "ok" : "exit " st, wall, sim, ev, eps, ns, cpu, cns, rss
        }' "$tmp/time" | tee -a "$OUT/bench-scale.csv"
    [ "$status" = 0 ] || sed -n '1,3p' "$tmp/stderr" >&2
}

for k in $KS; do
    fat_tree_yaml "$k" "$STOP" none >"$tmp/ft$k.yaml"
    measure "fat_tree_k${k}_${STOP}" $((k * k * k / 4)) run "$tmp/ft$k.yaml"
done
if [ "${BENCH_SCALE_P4:-1}" = 1 ]; then
    fat_tree_yaml 32 1ms basic >"$tmp/ft32p4.yaml"
    measure fat_tree_k32_basic_p4 8192 check "$tmp/ft32p4.yaml"
    measure fat_tree_k32_basic_1ms 8192 run "$tmp/ft32p4.yaml"
fi
if [ "${BENCH_SCALE_LONG:-0}" = 1 ]; then
    ring_yaml >"$tmp/ring.yaml"
    measure ring_128_1GB 128 run "$tmp/ring.yaml"
    ring_yaml 8960 >"$tmp/ring9000.yaml"
    measure ring_128_1GB_mtu9000 128 run "$tmp/ring9000.yaml"
    fat_tree_yaml 64 100us none >"$tmp/ft64.yaml"
    measure fat_tree_k64_check 65536 check "$tmp/ft64.yaml"
    measure fat_tree_k64_100us 65536 run "$tmp/ft64.yaml"
fi

# cache misses per event (simulated caches: the same counts on a loaded machine)
if [ -n "${BENCH_SCALE_CACHE:-}" ]; then
    echo "name,hosts,events,instructions,d1_misses,ll_misses,instructions_per_event,\
d1_misses_per_event,ll_misses_per_event" >"$OUT/bench-scale-cache.csv"
    cstop=${BENCH_SCALE_CACHE_STOP:-$STOP}
    ll=${BENCH_SCALE_CACHE_LL:-524288}
    for k in $BENCH_SCALE_CACHE; do
        fat_tree_yaml "$k" "$cstop" none >"$tmp/cg$k.yaml"
        cgfile=/dev/null
        [ "${BENCH_SCALE_CACHE_KEEP:-0}" = 1 ] && cgfile=$OUT/callgrind-k$k.out
        valgrind --tool=callgrind --cache-sim=yes --D1=32768,64,64 --I1=32768,64,64 \
            --LL="$ll",64,64 --collect-atstart=no --toggle-collect=sim_run \
            --callgrind-out-file="$cgfile" \
            "$bin" run "$tmp/cg$k.yaml" --out "$tmp/cgout" >"$tmp/cg.out" 2>"$tmp/cg.err" || {
            echo "bench-scale: callgrind of k = $k failed:" >&2
            tail -3 "$tmp/cg.err" >&2
            exit 1
        }
        awk -v name="fat_tree_k${k}_${cstop}_ll$((ll / 1024))k" -v hosts=$((k * k * k / 4)) '
            function num(s) { gsub(/,/, "", s); return s + 0 }
            / events in / { for (i = 1; i <= NF; i++) if ($(i + 1) == "events") ev = num($i) }
            /I +refs:/ { ir = num($4) }
            /D1 +misses:/ { d1 = num($4) }
            /LLd misses:/ { ll = num($4) }
            END {
                printf "%s,%d,%.0f,%.0f,%.0f,%.0f,%.1f,%.2f,%.4f\n", name, hosts, ev, ir, d1, ll,
                    ir / ev, d1 / ev, ll / ev
            }' "$tmp/cg.out" "$tmp/cg.err" | tee -a "$OUT/bench-scale-cache.csv"
    done
fi

# the target of the scale work: ns per event of the largest fat tree against the smallest, wall
# (the simulation phase) and CPU (the whole process, less disturbed by other load)
awk -F, -v stop="$STOP" '$1 ~ "^fat_tree_k[0-9]+_" stop "$" && $4 == "ok" && $9 != "" {
        k = substr($1, 11) + 0
        if (lo == "" || k < lo) { lo = k; lw = $9; lc = $11 }
        if (hi == "" || k > hi) { hi = k; hw = $9; hc = $11 }
    }
    END {
        if (hi > lo)
            printf "bench-scale: ns per event k=%d / k=%d: %.2fx wall, %.2fx CPU\n", hi, lo,
                hw / lw, hc / lc
    }' "$OUT/bench-scale.csv"

# the caches the machine gives this process (a virtual machine shares its host's L3): the
# latency of a dependent load by working-set size, beside the ratio above (bench/bench_memlat.c)
memlat=$(dirname "$bin")/bench/bench_memlat
if [ -x "$memlat" ]; then
    echo "working_set_kib,ns_per_load" >"$OUT/memlat.csv"
    "$memlat" 256 | tee /dev/stderr | awk '{print $2 "," $4}' >>"$OUT/memlat.csv"
fi

# ns per event and peak RSS against hosts, for the fat-tree runs of $STOP (not k = 64: 100us)
grep "^fat_tree_k[0-9]*_${STOP},[0-9]*,run,ok," "$OUT/bench-scale.csv" |
    awk -F, '{print $2, $9, $11, $12}' >"$tmp/plot.dat" || true
if command -v gnuplot >/dev/null && [ -s "$tmp/plot.dat" ]; then
    gnuplot <<GP
set terminal pngcairo size 800,500
set output "$OUT/bench-scale.png"
set title "fat trees, TCP permutation, $STOP simulated, program: none"
set logscale x 2
set xlabel "hosts"
set ylabel "ns per event"
set y2label "peak RSS (MiB)"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key top left
set grid
plot "$tmp/plot.dat" using 1:2 with linespoints lw 2 title "ns per event (wall)", \
     "" using 1:3 with linespoints lw 2 title "ns per event (CPU)", \
     "" using 1:4 axes x1y2 with linespoints lw 2 title "peak RSS (MiB)"
GP
fi
echo "bench-scale: $OUT/bench-scale.csv, $OUT/bench-scale.png"
