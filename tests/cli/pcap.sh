#!/usr/bin/env bash
# trace.pcap holds the real header bytes: tshark decodes Ethernet/IPv4/UDP with the addresses,
# ports, lengths, DSCP and ECN the scenario set, one frame per packet the port sent.
set -eu
. "$(dirname "$0")/../lib/cli.sh"
need tshark
cat >"$tmp/s.yaml" <<'YAML'
topology: {kind: star, hosts: 2}
switches: []
flows:
  - {name: f, src: h0, dst: h1, bytes: 5000, dscp: 46, ecn: true}
YAML
"$bin" run "$tmp/s.yaml" --out "$tmp/o" --pcap s0:1 --quiet
fields=$(tshark -r "$tmp/o/trace.pcap" -T fields -E separator=, -e ip.src -e ip.dst -e udp.srcport \
    -e udp.dstport -e ip.len -e ip.dsfield.dscp -e ip.dsfield.ecn -e ip.checksum.status \
    -o ip.check_checksum:TRUE 2>/dev/null)
echo "$fields"
[ "$(wc -l <<<"$fields")" -eq 4 ] # 5000 B = 3 x 1472 + 584
grep -q '^10.0.0.1,10.0.0.2,20000,10000,1500,46,2,' <<<"$fields"
grep -q '^10.0.0.1,10.0.0.2,20000,10000,612,46,2,' <<<"$fields"
# ip.checksum.status 1 = good (verified), for every frame
[ "$(cut -d, -f8 <<<"$fields" | sort -u)" = "1" ] || { echo "bad IPv4 checksum"; exit 1; }
# frame times: back-to-back frames 1230.4 ns apart after the first (1 us link + first frame)
tshark -r "$tmp/o/trace.pcap" -T fields -e frame.time_relative | head -2 | tail -1 | grep -q '0.000001230'
# PFC frames toward a paused sender decode as MAC control PAUSE (opcode 0x0101) for class 0:
# XOFF with 65535 quanta, then XON with 0.
"$bin" run configs/pfc-incast.yaml --out "$tmp/pfc" --pcap s0:0 --quiet
macc=$(tshark -r "$tmp/pfc/trace.pcap" -Y macc -T fields -E separator=, -e macc.opcode \
    -e macc.cbfc.enbv.c0 -e macc.cbfc.pause_time.c0 2>/dev/null)
echo "$macc" | head -3
[ "$(head -1 <<<"$macc")" = "0x0101,1,65535" ]
[ "$(sed -n 2p <<<"$macc")" = "0x0101,1,0" ]
n=$(python3 -c "import json; d=json.load(open('$tmp/pfc/summary.json')); p=d['switches'][0]['ports'][0]['pfc']; print(p['pause_frames_sent'] + p['resume_frames_sent'])")
[ "$(wc -l <<<"$macc")" -eq "$n" ]
