#!/usr/bin/env bash
# A run folder always holds one run's complete, consistent set of results or the previous one,
# never a mix (the run writes into a fresh hidden folder and swaps it into place at the end):
#   1. kill -9 at many moments of a run that replaces an earlier result set: the folder is
#      always byte-identical to the old set or to the complete new set;
#   2. folders left by killed runs are removed by the next run into the same target;
#   3. a new run without --pcap leaves no trace.pcap of the earlier run behind;
#   4. a write error (file size limit) stops the run at once with exit 1 and a message, and
#      leaves the earlier set in place;
#   5. "cannot create output folder" says why; a folder holding other files is not replaced.
set -u
. "$(dirname "$0")/../lib/cli.sh"
cat >"$tmp/long.yaml" <<'YAML'
topology: {kind: star, hosts: 3}
stop: 60ms
flows:
  - {src: h0, dst: h2, pattern: poisson, rate: 5Gbps}
  - {src: h1, dst: h2, pattern: poisson, rate: 5Gbps}
output: {queue_interval: 1us}
YAML
digests() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs sha256sum); }

# the old set (seed 1, with a pcap) and the complete new set (seed 2, no pcap)
"$bin" run "$tmp/long.yaml" --out "$tmp/old" --pcap s0:2 --quiet || fail "old run"
"$bin" run "$tmp/long.yaml" --out "$tmp/new" --seed 2 --quiet || fail "new run"
old=$(digests "$tmp/old")
new=$(digests "$tmp/new")
[ "$old" != "$new" ] || fail "the two sets should differ"
grep -q trace.pcap <<<"$old" || fail "old set has no trace.pcap"

# 1. kill at moments spread over the whole run, the final swap included
t0=$(date +%s%N)
"$bin" run "$tmp/long.yaml" --out "$tmp/probe" --seed 2 --quiet
run_ms=$((($(date +%s%N) - t0) / 1000000))
seen_old=0
seen_new=0
for i in $(seq 0 15); do
    rm -rf "$tmp/t"
    cp -a "$tmp/old" "$tmp/t"
    "$bin" run "$tmp/long.yaml" --out "$tmp/t" --seed 2 --quiet &
    pid=$!
    sleep "$(awk -v i="$i" -v ms="$run_ms" 'BEGIN {printf "%.3f", i * ms * 1.1 / 15 / 1000}')"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    now=$(digests "$tmp/t")
    if [ "$now" = "$old" ]; then
        seen_old=$((seen_old + 1))
    elif [ "$now" = "$new" ]; then
        seen_new=$((seen_new + 1))
    else
        echo "$now"
        fail "kill after step $i left a mixed folder"
    fi
done
echo "kills: $seen_old left the old set, $seen_new the new set"
[ $seen_old -gt 0 ] || fail "no kill landed during the run"

# 2. a run killed while writing leaves its hidden folder; the next run into the target
#    removes it. The killed run simulates 3 s (seconds of work), so it is still writing when
#    its folder is seen however loaded the machine is; the wait for the folder is up to 60 s.
#    Folders left by the kills of step 1 go first: seeing one of them instead of this run's, the
#    kill could land before this run made its own (it removes them as it starts).
rm -rf "$tmp"/.t.ddlsim-*
"$bin" run "$tmp/long.yaml" --out "$tmp/t" --seed 2 --quiet --set stop=3s &
pid=$!
for _ in $(seq 6000); do
    ls -a "$tmp" | grep -q '^\.t\.ddlsim-' && break
    sleep 0.01
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
ls -a "$tmp" | grep -q '^\.t\.ddlsim-' || fail "no stale folder to clean: $(ls -a "$tmp")"
"$bin" run "$tmp/long.yaml" --out "$tmp/t" --seed 2 --quiet || fail "clean run"
if ls -a "$tmp" | grep -q '^\.t\.ddlsim-'; then fail "stale folders remain: $(ls -a "$tmp")"; fi
# 3. no trace.pcap of the old set
[ "$(digests "$tmp/t")" = "$new" ] || fail "re-run did not give exactly the new set"

# 4. a write error: reported during the run, exit 1, old set intact. The run would simulate 3 s
#    (several seconds of work); the 100 KB file size limit is reached in the first milliseconds.
rm -rf "$tmp/t" && cp -a "$tmp/old" "$tmp/t"
start=$(date +%s%N)
out=$( (ulimit -f 100; trap '' XFSZ; "$bin" run "$tmp/long.yaml" --out "$tmp/t" --quiet --set stop=3s) 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc -eq 1 ] || fail "write error gave exit $rc"
grep -q "error: cannot write queues.csv in '$tmp/t': File too large" <<<"$out" || fail "message: $out"
[ $ms -lt 3000 ] || fail "write error reported after ${ms} ms: not when it happened"
[ "$(digests "$tmp/t")" = "$old" ] || fail "failed run changed the old set"
ls -a "$tmp" | grep -q '^\.t\.ddlsim-' && fail "failed run left its folder"

# 5. reasons
out=$("$bin" run "$tmp/long.yaml" --out "$tmp/long.yaml/x" --quiet 2>&1)
[ $? -eq 1 ] || fail "output under a file: wrong exit"
grep -q "cannot create output folder '$tmp/long.yaml': Not a directory" <<<"$out" || fail "$out"
mkdir "$tmp/mine" && echo keep >"$tmp/mine/notes.txt"
out=$("$bin" run "$tmp/long.yaml" --out "$tmp/mine" --quiet 2>&1)
[ $? -eq 1 ] || fail "foreign folder: wrong exit"
grep -q "holds files that are not ddlsim results" <<<"$out" || fail "$out"
[ "$(cat "$tmp/mine/notes.txt")" = keep ] || fail "foreign folder touched"
echo "run folders ok"
