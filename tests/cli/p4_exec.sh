#!/usr/bin/env bash
# The P4 engines give byte-identical outputs on whole scenarios: configs/demo.yaml (a
# TensorExpress program: strict priorities, a class table) and a short DCTCP run through
# basic.p4, each on the native engine (the default, --p4-exec=native, and p4_exec: native in
# YAML), on the compiled engine (--p4-exec=compiled) and on the reference interpreter
# (--p4-exec=interp, and p4_exec: interp in YAML), with a trace; a bad --p4-exec value is
# refused with exit 2.
set -eu
. "$(dirname "$0")/../lib/cli.sh"
cat >"$tmp/dctcp.yaml" <<'YAML'
stop: 3ms
topology: {kind: star, hosts: 9, link: {rate: 10Gbps, delay: 5us}}
defaults:
  switch: {buffer: 1MB, ecn: threshold, ecn_unit: packets, ecn_kmin: 20, program: basic}
  flow: {type: tcp, cc: dctcp, rto_min: 1ms, rto_init: 1ms}
flows: [{src: h0, dst: h8}, {src: h1, dst: h8}, {src: h2, dst: h8}, {src: h3, dst: h8}]
YAML
for cfg in configs/demo.yaml "$tmp/dctcp.yaml"; do
    "$bin" run "$cfg" --out "$tmp/d" --pcap s0:1 --quiet
    "$bin" run "$cfg" --out "$tmp/c" --pcap s0:1 --quiet --p4-exec=compiled
    "$bin" run "$cfg" --out "$tmp/i" --pcap s0:1 --quiet --p4-exec=interp
    "$bin" run "$cfg" --out "$tmp/y" --pcap s0:1 --quiet --set defaults.switch.p4_exec=interp
    "$bin" run "$cfg" --out "$tmp/n" --pcap s0:1 --quiet --p4-exec=native 2>"$tmp/nerr"
    "$bin" run "$cfg" --out "$tmp/m" --pcap s0:1 --quiet --set defaults.switch.p4_exec=native
    [ ! -s "$tmp/nerr" ] || fail "$cfg: the native engine did not run: $(cat "$tmp/nerr")"
    for f in summary.json flows.csv trace.pcap; do
        for o in c i y n m; do
            cmp -s "$tmp/d/$f" "$tmp/$o/$f" || fail "$cfg: $f differs between engines ($o)"
        done
    done
done
rc=0
"$bin" run configs/demo.yaml --out "$tmp/x" --quiet --p4-exec=fast 2>"$tmp/err" || rc=$?
[ "$rc" = 2 ] || fail "--p4-exec=fast: exit $rc, expected 2"
grep -q "expects compiled, native or interp" "$tmp/err" || fail "--p4-exec=fast: $(cat "$tmp/err")"
echo "p4 engines: identical outputs on 2 scenarios"
