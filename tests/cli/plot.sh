#!/usr/bin/env bash
# ddlsim plot / run --plot: every kind of plot is drawn as PNG and SVG when the run recorded its
# data (queue samples, TCP cwnd samples, RDMA rate samples, DDL iterations and tensors, flow
# completion times), with labelled axes and units; a folder without results is refused.
set -u
. "$(dirname "$0")/../lib/cli.sh"
cat >"$tmp/mix.yaml" <<'YAML'
topology: {kind: star, hosts: 6, link: {rate: 10Gbps, delay: 2us}, switch: {pfc: true}}
flows:
  - {name: t0, type: tcp, src: h0, dst: h5, bytes: 2MB, cwnd_interval: 20us}
  - {name: r0, type: rdma, src: h1, dst: h5, bytes: 2MB, rate_interval: 20us}
  - {name: u0, src: h2, dst: h5, bytes: 1MB}
jobs:
  - {name: j, model: alexnet, workers: [h3, h4], servers: [h2], iterations: 2, chunk: 4MB,
     compute_scale: 0.01}
output: {queue_interval: 100us, queues: ["s0:5"]}
YAML
out=$("$bin" run "$tmp/mix.yaml" --out "$tmp/o" --plot) || fail "run --plot: $out"
for p in queues cwnd rate iterations tensors fct_cdf; do
    [ "$(head -c 8 "$tmp/o/plots/$p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "$p.png is not a PNG"
    grep -q '<svg' "$tmp/o/plots/$p.svg" || fail "$p.svg is not an SVG"
    grep -q "$tmp/o/plots/$p.png" <<<"$out" || fail "$p not listed: $out"
done
label() { grep -q ">$2<" "$tmp/o/plots/$1.svg" || fail "$1.svg has no label '$2'"; }
label queues "time (ms)" && label queues "queue (KB)" && label queues "s0:5"
label cwnd "cwnd (KB)" && label cwnd "t0"
label rate "rate (Gbps)" && label rate "r0"
label iterations "iteration time (ms)" && label iterations "j worker 0"
label tensors "worker / layer" && label tensors "push" && label tensors "pull"
label fct_cdf "flow completion time (ms)" && label fct_cdf "fraction of flows (CDF)"
ls "$tmp/o/plots" | grep -q tmp && fail "temporary files left: $(ls "$tmp/o/plots")"
# plotting again (ddlsim plot) replaces the pictures
rm "$tmp/o/plots/queues.png"
"$bin" plot "$tmp/o" --quiet || fail "ddlsim plot"
[ -s "$tmp/o/plots/queues.png" ] || fail "ddlsim plot did not redraw"
mkdir "$tmp/empty"
out=$("$bin" plot "$tmp/empty" 2>&1)
[ $? -eq 1 ] && grep -q "'$tmp/empty' is not a run folder" <<<"$out" || fail "empty folder: $out"
echo "plots ok"
