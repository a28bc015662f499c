#!/usr/bin/env bash
# cwnd_interval / rate_interval samples go to disk as they are taken (sim/spool.h):
#   1. memory stays flat however long the run: ten times the simulated time (and samples) adds
#      less than 8 MB to the peak RSS, where samples held in memory added ~90 MB (a run of
#      2 x 10^6 samples took 481 MB);
#   2. summary.json holds every sample: one per interval from 0 to `stop` inclusive, per flow;
#   3. a write error while sampling (file size limit, as a full disk) stops the run at once
#      with exit 1 and a message naming the run folder, and leaves no result set.
set -u
. "$(dirname "$0")/../lib/cli.sh"
cat >"$tmp/s.yaml" <<'YAML'
topology: {kind: star, hosts: 3, link: {rate: 10Gbps, delay: 2us}, switch: {pfc: true}}
flows:
  - {name: t0, type: tcp, src: h0, dst: h2, cwnd_interval: 1us}
  - {name: r0, type: rdma, src: h1, dst: h2, bytes: 100GB, rate_interval: 1us}
YAML
# peak RSS (KB) of a run, and the sample counts of its summary.json. AddressSanitizer keeps
# freed memory in a quarantine (256 MB) that would grow the RSS of any long run: keep it small.
run_rss() {
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1 python3 - "$bin" run "$tmp/s.yaml" --out "$tmp/$1" --quiet --set "stop=$1" <<'PY'
import resource, subprocess, sys
if subprocess.run(sys.argv[1:]).returncode != 0:
    sys.exit("run failed")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
counts() {
    python3 -c "
import json, sys
f = {x['name']: x for x in json.load(open('$tmp/$1/summary.json'))['flows']}
c = f['t0']['cwnd_samples']
assert len(set(len(c[k]) for k in ('t_s', 'cwnd_bytes', 'flight_bytes', 'alpha'))) == 1
assert all(len(r) == 4 for r in f['r0']['rate_samples'])
print(len(c['t_s']), len(f['r0']['rate_samples']))"
}
small=$(run_rss 20ms) || fail "20 ms run"
large=$(run_rss 200ms) || fail "200 ms run"
echo "peak RSS: $small KB at 20 ms, $large KB at 200 ms"
[ "$large" -lt $((small + 8192)) ] || fail "memory grew with the run: $small KB -> $large KB"
[ "$(counts 20ms)" = "20001 20001" ] || fail "20 ms samples: $(counts 20ms)"
[ "$(counts 200ms)" = "200001 200001" ] || fail "200 ms samples: $(counts 200ms)"

# 3. 64 KB of file: the spool reaches it after ~1,000 samples (a few microseconds simulated)
start=$(date +%s%N)
out=$( (ulimit -f 64; trap '' XFSZ; "$bin" run "$tmp/s.yaml" --out "$tmp/w" --quiet --set stop=10s) 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc -eq 1 ] || fail "write error gave exit $rc: $out"
[ "$out" = "ddlsim: error: cannot write the flows' cwnd/rate samples in '$tmp/w': File too large" ] ||
    fail "message: $out"
[ $ms -lt 5000 ] || fail "write error reported after ${ms} ms: not when it happened"
[ -e "$tmp/w" ] && fail "a failed run left a result set"
ls -a "$tmp" | grep -q '^\.w\.ddlsim-' && fail "the failed run left its folder"
echo "samples ok"
