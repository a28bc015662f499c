#!/usr/bin/env bash
# The commands a new user types from the README work: demo run, check, describe, --set.
set -eu
. "$(dirname "$0")/../lib/cli.sh"
out=$("$bin" run configs/demo.yaml --out "$tmp/demo")
grep -q 'urgent .* 200000 .* 200000 ' <<<"$out"
grep -q 's0:7>h7' <<<"$out"
python3 -c "import json,sys; d=json.load(open('$tmp/demo/summary.json')); assert d['total_drops'] > 0"
"$bin" check configs/demo.yaml | grep -q 'ok (8 hosts, 1 switch, 6 flows)'
"$bin" check configs/incast.yaml --set topology.hosts=20 | grep -q '20 hosts'
for k in scenario topology link host switch output udp; do
    "$bin" describe "$k" | grep -q 'parameter'
done
"$bin" describe | grep -q udp
# --set changes the run: a bigger buffer removes the demo's drops
"$bin" run configs/demo.yaml --out "$tmp/big" --quiet --set topology.switch.buffer=64MB
python3 -c "import json; d=json.load(open('$tmp/big/summary.json')); assert d['total_drops'] == 0, d['total_drops']"
for f in configs/*.yaml; do
    "$bin" check "$f" >/dev/null
done
# rpc flows write one messages.csv row per delivered message, with its completion time
cat >"$tmp/rpc.yaml" <<'YAML'
hosts: [{name: a}, {name: b}]
links: [{a: a, b: b, rate: 10Gbps, delay: 1us}]
flows: [{name: m, type: rpc, src: a, dst: b, transport: udp, size: 1MB, count: 3}]
YAML
"$bin" run "$tmp/rpc.yaml" --out "$tmp/rpc" --quiet
[ "$(wc -l <"$tmp/rpc/messages.csv")" -eq 4 ]
grep -q '^m,2,1000000,' "$tmp/rpc/messages.csv"
