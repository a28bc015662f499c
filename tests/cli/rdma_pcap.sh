#!/usr/bin/env bash
# tshark decodes an RDMA run as InfiniBand over RoCEv2: data packets are RDMA WRITE First /
# Middle / Last with consecutive PSNs, ECT(0) or CE in the IPv4 ECN field; ACKs (opcode 17)
# and CNPs (opcode 129) travel back.
set -euo pipefail
. "$(dirname "$0")/../lib/cli.sh"
need tshark
"$bin" run configs/rdma-pcap.yaml --pcap s0:2,s0:0 --out "$tmp" --quiet
tshark -r "$tmp/trace.pcap" -T fields -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e ip.dsfield.ecn -e infiniband.aeth.syndrome 2>/dev/null >"$tmp/f.tsv"
fail() { echo "FAIL: $*"; head -5 "$tmp/f.tsv"; exit 1; }
# data of f0 (from h0 = 10.0.0.1) toward h2
awk -F'\t' '$1=="10.0.0.1"' "$tmp/f.tsv" >"$tmp/f0.tsv"
n=$(wc -l <"$tmp/f0.tsv")
[ "$n" -eq 250 ] || fail "expected 250 data packets of f0 (256000 B / 1024 B), got $n"
[ "$(head -1 "$tmp/f0.tsv" | cut -f2,3)" = "$(printf '6\t0')" ] || fail "first: WRITE First, PSN 0"
[ "$(tail -1 "$tmp/f0.tsv" | cut -f2,3)" = "$(printf '8\t249')" ] ||
    fail "last: WRITE Last, PSN 249"
awk -F'\t' 'NR > 1 && NR < 250 && $2 != 7 { exit 1 }' "$tmp/f0.tsv" || fail "middle opcodes"
awk -F'\t' '$3 != NR - 1 { exit 1 }' "$tmp/f0.tsv" || fail "PSNs not consecutive from 0"
awk -F'\t' '$4 != 2 && $4 != 3 { exit 1 }' "$tmp/f0.tsv" || fail "data not ECT(0)/CE"
grep -qP '^10\.0\.0\.[12]\t[0-9]+\t[0-9]+\t3\t' "$tmp/f.tsv" || fail "no CE-marked data packet"
# back toward h0: ACKs with AETH syndrome ACK (0x1f) and CNPs, not ECN-capable
grep -qP '^10\.0\.0\.3\t17\t\d+\t0\t(31|0x1f)' "$tmp/f.tsv" || fail "no ACK with AETH"
grep -qP '^10\.0\.0\.3\t129\t' "$tmp/f.tsv" || fail "no CNP"
cnps=$(grep -cP '^10\.0\.0\.3\t129\t' "$tmp/f.tsv")
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['flows'][0]['cnps_sent'])" \
    "$tmp/summary.json")
[ "$cnps" -eq "$want" ] || fail "trace has $cnps CNPs to h0, summary says $want"
echo "ok: $n data packets, $cnps CNPs"
