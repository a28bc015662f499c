#!/usr/bin/env bash
# An interrupted run never leaves a file with a final name behind: outputs are written under
# temporary names and renamed only when complete.
set -u
cd "$(dirname "$0")/../.."
bin=${BUILD:-build}/ddlsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/long.yaml" <<'YAML'
topology: {kind: star, hosts: 3}
stop: 10s
flows:
  - {src: h0, dst: h2, pattern: poisson, rate: 5Gbps}
  - {src: h1, dst: h2, pattern: poisson, rate: 5Gbps}
output: {queue_interval: 1us}
YAML
"$bin" run "$tmp/long.yaml" --out "$tmp/o" --pcap s0:2 --quiet &
pid=$!
for _ in $(seq 50); do
    ls "$tmp/o"/.queues.csv.*.tmp >/dev/null 2>&1 && break
    sleep 0.05
done
sleep 0.3
kill -9 $pid
wait $pid 2>/dev/null
ls -a "$tmp/o"
for f in summary.json flows.csv queues.csv trace.pcap; do
    if [ -e "$tmp/o/$f" ]; then
        echo "FAIL: $f exists after the run was killed"
        exit 1
    fi
done
ls "$tmp/o"/.queues.csv.*.tmp >/dev/null || { echo "FAIL: run did not start writing"; exit 1; }
