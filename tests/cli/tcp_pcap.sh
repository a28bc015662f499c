#!/usr/bin/env bash
# A TCP (DCTCP) run traced with --pcap decodes in tshark with the right sequence and
# acknowledgment numbers and ECN fields: data ECT(0) or CE, CWR on some data, pure ACKs
# not-ECT with ECE echoed, every byte of flow f0 acknowledged at the end; with handshake: true
# the SYN / SYN-ACK carry the ECN setup flags and tshark's relative numbers line up.
set -euo pipefail
. "$(dirname "$0")/../lib/cli.sh"
need tshark

"$bin" run configs/tcp-pcap.yaml --pcap s0:2,s0:0 --out "$tmp" --quiet >/dev/null
[ -s "$tmp/trace.pcap" ] || { echo "no trace.pcap"; exit 1; }

fields() {
    tshark -r "$tmp/trace.pcap" -T fields -E separator=, "$@" 2>/dev/null
}
total=$(fields -e frame.number | wc -l)
ntcp=$(fields -Y tcp -e frame.number | wc -l)
[ "$total" -gt 100 ] || fail "only $total frames"
[ "$ntcp" -eq "$total" ] || fail "$ntcp of $total frames decode as TCP"

# Data of f0 (h0 = 10.0.0.1 -> h2 = 10.0.0.3): 200000 bytes in 1460-byte segments, no loss,
# so the raw sequence numbers are ISN + 1460 k and the last segment ends at ISN + 200000.
fields -Y 'ip.src==10.0.0.1 && tcp.len>0' -e tcp.seq_raw -e tcp.len -e ip.dsfield.ecn \
    -e tcp.flags.cwr -e tcp.hdr_len -e ip.proto >"$tmp/data"
fields -Y 'ip.src==10.0.0.3 && ip.dst==10.0.0.1' -e tcp.ack_raw -e tcp.len -e ip.dsfield.ecn \
    -e tcp.flags.ece -e tcp.flags.ack >"$tmp/acks"
# f0's counters from summary.json (flows appear in order f0, f1)
f0_json=$(tr -d ' \n' <"$tmp/summary.json" | sed 's/.*"name":"f0"//; s/"name":"f1".*//')
f0_field() { echo "$f0_json" | grep -o "\"$1\":[0-9]*" | cut -d: -f2; }
ce_f0=$(f0_field ce_marked)
ece_f0=$(f0_field ece_acks)

awk -F, -v ce_want="$ce_f0" '
    NR == 1 { isn = $1 }
    {
        off = $1 - isn; if (off < 0) off += 4294967296
        if (off % 1460 != 0) { print "data seq offset " off " not a segment boundary"; bad = 1 }
        if (off != expect) { print "data seq offset " off ", expected " expect; bad = 1 }
        expect = off + $2
        if ($3 != 2 && $3 != 3) { print "data ECN codepoint " $3; bad = 1 }
        if ($3 == 3) ce++
        if ($4 == "1" || $4 == "True") cwr++
        if ($5 != 20 || $6 != 6) { print "header length " $5 " proto " $6; bad = 1 }
    }
    END {
        if (expect != 200000) { print "data ends at " expect; bad = 1 }
        if (ce == 0) { print "no CE-marked data"; bad = 1 }
        if (ce != ce_want) { print "trace has " ce " CE data frames, summary " ce_want; bad = 1 }
        if (cwr == 0) { print "no CWR on data"; bad = 1 }
        printf "data: %d segments, %d CE, %d CWR\n", NR, ce, cwr
        exit bad
    }' "$tmp/data" || fail "data segments"

isn=$(head -1 "$tmp/data" | cut -d, -f1)
awk -F, -v isn="$isn" -v ece_want="$ece_f0" '
    {
        off = $1 - isn; if (off < 0) off += 4294967296
        if (off < last) { print "ACK went backwards: " off " after " last; bad = 1 }
        if (off % 1460 != 0 && off != 200000) { print "ACK offset " off; bad = 1 }
        last = off
        if ($2 != 0) { print "ACK carries data"; bad = 1 }
        if ($3 != 0) { print "ACK ECN codepoint " $3 " (pure ACKs are not ECT)"; bad = 1 }
        if ($4 == "1" || $4 == "True") ece++
        if ($5 != "1" && $5 != "True") { print "ACK flag missing"; bad = 1 }
    }
    END {
        if (last != 200000) { print "last ACK at " last ", expected 200000"; bad = 1 }
        if (ece == 0 || ece != ece_want) {
            print "ACKs with ECE: " ece ", summary " ece_want; bad = 1
        }
        printf "acks: %d, %d with ECE, last at %d\n", NR, ece, last
        exit bad
    }' "$tmp/acks" || fail "acknowledgments"
# With the handshake: SYN with ECE+CWR (ECN setup), SYN-ACK with ECE acknowledging ISN+1, and
# tshark's relative numbers (which need the SYNs) start at 1 and end at 200001.
"$bin" run configs/tcp-pcap.yaml --set defaults.flow.handshake=true --pcap s0:2,s0:0 \
    --out "$tmp/hs" --quiet >/dev/null
hs() {
    tshark -r "$tmp/hs/trace.pcap" -T fields -E separator=, "$@" 2>/dev/null
}
first=$(hs -Y 'ip.src==10.0.0.1' -e tcp.flags -e tcp.seq_raw -e tcp.len | head -1)
[ "$first" = "0x00c2,$((isn - 1)),0" ] ||
    fail "first h0 frame '$first', expected SYN+ECE+CWR at ISN $((isn - 1))"
synack=$(hs -Y 'ip.src==10.0.0.3 && ip.dst==10.0.0.1' -e tcp.flags -e tcp.ack_raw | head -1)
[ "$synack" = "0x0052,$isn" ] || fail "SYN-ACK '$synack', expected 0x0052,$isn"
data1=$(hs -Y 'ip.src==10.0.0.1 && tcp.len>0' -e tcp.seq -e tcp.ack -e tcp.flags.syn | head -1)
[ "$data1" = "1,1,0" ] || [ "$data1" = "1,1,False" ] || fail "first data relative seq,ack '$data1'"
lastack=$(hs -Y 'ip.src==10.0.0.3 && ip.dst==10.0.0.1' -e tcp.ack | tail -1)
[ "$lastack" = "200001" ] || fail "last relative ACK $lastack"
echo "handshake: SYN $first, SYN-ACK $synack, last ack $lastack"
echo "tcp_pcap: ok"
