#!/usr/bin/env bash
# ddlsim sweep: one CSV row per point, the same bytes whatever runs the points, and crash safe.
#   1. -j 1, -j 2 and mpirun -n 2 (the MPI build) give byte-identical results.csv; the row of
#      every point equals what a plain `ddlsim run` of that point reports;
#   2. a sweep killed with SIGKILL half-way and resumed gives a results.csv byte-identical to
#      an uninterrupted one, without running a finished point again;
#   3. a failing point (bad value) is recorded with its error and exit code and the others
#      complete; a worker killed during a point is recorded as failed (signal 9);
#   4. a changed base scenario or input file refuses --resume (exit 2) unless --force-resume;
#      an existing sweep folder needs --resume or --fresh;
#   5. the plain build under mpirun says to use the MPI build.
set -u
. "$(dirname "$0")/../lib/cli.sh"
mpibin=${bin%/ddlsim}/ddlsim-mpi
cd "$tmp"
cat >base.yaml <<'YAML'
name: two-poisson
stop: 10ms
topology: {kind: star, hosts: 3, link: {rate: 10Gbps, delay: 1us}}
defaults: {switch: {program: none}}
flows:
  - {name: a, src: h0, dst: h2, pattern: poisson, rate: 3Gbps}
  - {name: b, src: h1, dst: h2, pattern: poisson, rate: 3Gbps}
output: {queue_interval: 10us, queues: ["s0:2"]}
YAML
cat >sweep.yaml <<'YAML'
name: poisson-load
scenario: base.yaml
set: {stop: 15ms}
axes:
  - {set: flows.a.rate, values: [2Gbps, 4Gbps, 4.5Gbps]}
  - zip:
      - {set: flows.b.rate, values: [2Gbps, 4Gbps]}
      - {name: b_label, values: [low, high]}
repeat: 2
metrics:
  - {name: a_rx_bytes, path: flows.a.rx_bytes}
  - {name: max_queue_b, path: switches.s0.ports.2.max_queue_bytes}
  - {name: mean_queue_late, from: queues, column: bytes, where: "time_s >= 0.005", reduce: mean}
  - {name: samples, from: queues, column: bytes, reduce: count}
YAML

# 1. workers and ranks do not change a byte
"$bin" sweep sweep.yaml --out j1 -j 1 --quiet || fail "-j 1"
"$bin" sweep sweep.yaml --out j2 -j 2 --quiet || fail "-j 2"
cmp j1/results.csv j2/results.csv || fail "-j 1 and -j 2 differ"
[ "$(wc -l <j1/results.csv)" -eq 13 ] || fail "expected 12 rows: $(cat j1/results.csv)"
head -1 j1/results.csv | grep -qx 'point,flows.a.rate,flows.b.rate,b_label,seed,a_rx_bytes,max_queue_b,mean_queue_late,samples,status,exit_code,config_hash,error' ||
    fail "header: $(head -1 j1/results.csv)"
if [ -x "$mpibin" ]; then
    # Open MPI's plug-ins (dlopened, no symbols) leak at MPI_Finalize; leak checks stay on
    # everywhere else in the sanitizer build
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 mpirun -n 2 --oversubscribe --allow-run-as-root "$mpibin" sweep sweep.yaml --out m2 --quiet \
        >mpi.log 2>&1 || { cat mpi.log; fail "mpirun -n 2"; }
    cmp j1/results.csv m2/results.csv || fail "mpirun -n 2 differs from -j 1"
else
    echo "no MPI build: mpirun case skipped"
fi
# point 11 = a 4.5Gbps (third), b high (second), seed 2 (seeds innermost, first axis
# outermost: (2 * 2 + 1) * 2 + 1): the same numbers as a plain run
"$bin" run base.yaml --out p11 --quiet --seed 2 --set stop=15ms --set flows.a.rate=4.5Gbps \
    --set flows.b.rate=4Gbps || fail "plain run"
row=$(sed -n '13p' j1/results.csv)
want_rx=$(awk -F, 'NR == 2 {print $8}' p11/flows.csv)
[[ "$row" == 11,4.5Gbps,4Gbps,high,2,$want_rx,* ]] || fail "row 11 '$row' vs plain run rx_bytes $want_rx"
samples=$(($(wc -l <p11/queues.csv) - 1))
[ "$(cut -d, -f9 <<<"$row")" = "$samples" ] || fail "samples: $row vs $samples"
late=$(awk -F, 'NR > 1 && $1 >= 0.005 {s += $4; n++} END {printf "%.6g", s / n}' p11/queues.csv)
got=$(awk -F, '{printf "%.6g", $8}' <<<"$row")
[ "$got" = "$late" ] || fail "mean_queue_late $got vs $late"

# 2. SIGKILL half-way, then --resume (longer points, so the kill lands mid-way)
sed 's/set: {stop: 15ms}/set: {stop: 150ms}/' sweep.yaml >long.yaml
"$bin" sweep long.yaml --out klong -j 2 --quiet || fail "long sweep"
"$bin" sweep long.yaml --out k -j 2 --quiet &
pid=$!
for _ in $(seq 400); do
    [ "$(ls k/points 2>/dev/null | grep -c '\.rec$')" -ge 4 ] && break
    sleep 0.01
done
kill -9 $pid
wait $pid 2>/dev/null
# the workers see their pipe close and exit; a loaded machine gets up to 10 s. Only workers
# running in this test's folder count (another checkout may run the same test).
own_workers() {
    pgrep -f "sweep long.yaml --out k " | while read -r w; do
        [ "$(readlink "/proc/$w/cwd" 2>/dev/null)" = "$PWD" ] && echo "$w"
    done
}
for _ in $(seq 1000); do
    [ -z "$(own_workers)" ] && break
    sleep 0.01
done
[ -z "$(own_workers)" ] || fail "workers outlived their coordinator"
before=$(ls k/points | grep -c '\.rec$')
[ "$before" -ge 4 ] && [ "$before" -lt 12 ] || fail "kill landed with $before of 12 points done"
cp -a k/points k.points.before
out=$("$bin" sweep long.yaml --out k -j 2 --resume)
grep -q "12 points ($before done before), 12 ok, 0 failed" <<<"$out" || fail "resume: $out"
for f in k.points.before/*.rec; do
    cmp -s "$f" "k/points/$(basename "$f")" || fail "resume rewrote $(basename "$f")"
done
cmp klong/results.csv k/results.csv || fail "resumed results differ from an uninterrupted sweep"

# 3. a bad value fails its point only; a killed worker fails its point only
sed 's/values: \[2Gbps, 4Gbps, 4.5Gbps\]/values: [2Gbps, 4Gbps, 9Zbps]/' sweep.yaml >bad.yaml
out=$("$bin" sweep bad.yaml --out bad -j 2 2>&1)
[ $? -eq 1 ] || fail "a failed point should make the sweep exit 1"
[ "$(grep -c ',ok,0,' bad/results.csv)" -eq 8 ] || fail "8 points should succeed: $(cat bad/results.csv)"
[ "$(grep -c ',failed,2,' bad/results.csv)" -eq 4 ] || fail "4 points should fail with exit 2"
grep -q "^8,9Zbps,2Gbps,low,1,,,,,failed,2,,.*bad.yaml:5:48: error: .*9Zbps" bad/results.csv ||
    fail "failed row: $(sed -n 9p bad/results.csv)"
grep -q "point 8 failed (exit 2): .*bad.yaml:5:48: error:" <<<"$out" || fail "not reported: $out"
cat >slow.yaml <<'YAML'
scenario: base.yaml
axes: [{set: stop, values: [30s, 1ms, 2ms]}]
metrics: [{name: rx, path: flows.a.rx_bytes}]
YAML
"$bin" sweep slow.yaml --out slow -j 2 --quiet 2>slow.err &
pid=$!
for _ in $(seq 500); do
    [ -e slow/.work/00000000.err ] && [ -e slow/points/00000002.rec ] && break
    sleep 0.01
done
victim=$(pgrep -P $pid | head -1)
[ -n "$victim" ] || fail "no worker to kill"
# the worker running point 0 (30 s) is the one without an idle sibling's exit
for w in $(pgrep -P $pid); do kill -9 "$w"; done
wait $pid
grep -q '^0,30s,,,failed,137,,worker killed by signal 9' slow/results.csv ||
    fail "killed worker's point: $(cat slow/results.csv)"
grep -q '^1,1ms,1,[0-9]*,ok,0,' slow/results.csv || fail "other points: $(cat slow/results.csv)"

# 4. changed inputs refuse to resume
cp j1 -r r
out=$("$bin" sweep sweep.yaml --out r 2>&1)
[ $? -eq 2 ] && grep -q "holds a sweep already: --resume to finish it, --fresh to start over" <<<"$out" ||
    fail "existing folder: $out"
sed -i 's/delay: 1us/delay: 2us/' base.yaml
out=$("$bin" sweep sweep.yaml --out r --resume 2>&1)
[ $? -eq 2 ] && grep -q "the sweep or its base scenario changed since the points in 'r' were computed" <<<"$out" ||
    fail "changed base: $out"
out=$("$bin" sweep sweep.yaml --out r --force-resume --quiet 2>&1) || fail "force-resume: $out"
cmp -s j1/results.csv r/results.csv || fail "force-resume should keep the finished points"
"$bin" sweep sweep.yaml --out r --fresh --quiet || fail "fresh"
cmp -s j1/results.csv r/results.csv && fail "fresh should recompute with the new delay"
cp "$root/p4/programs/basic.p4" fwd.p4
cat >p4.yaml <<'YAML'
scenario: base.yaml
set: {defaults.switch.program: fwd.p4}
axes: [{set: stop, values: [1ms, 2ms]}]
metrics: [{name: rx, path: flows.a.rx_bytes}]
YAML
"$bin" sweep p4.yaml --out p4 --quiet || fail "p4 sweep"
grep -q "^p4_program [0-9a-f]* $tmp/fwd.p4$" p4/points/00000000.rec || fail "input not recorded"
echo "// changed" >>fwd.p4
out=$("$bin" sweep p4.yaml --out p4 --resume 2>&1)
[ $? -eq 2 ] && grep -q "p4_program '$tmp/fwd.p4' changed since point 0 ran" <<<"$out" ||
    fail "changed program: $out"

# 5. the plain build under mpirun
if command -v mpirun >/dev/null; then
    out=$(mpirun -n 2 --oversubscribe --allow-run-as-root "$bin" sweep sweep.yaml --out x 2>&1)
    grep -q "built without MPI: run build/ddlsim-mpi" <<<"$out" || fail "plain build under mpirun: $out"
fi
echo "sweep ok"
