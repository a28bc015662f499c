#!/usr/bin/env bash
# Writes the large hostile inputs into folder $1 at test time (they are never committed), each
# with its case header (see run.sh).
set -eu
out=$1
mkdir -p "$out"
cd "$out"
# P4 programs around one ingress statement
p4prog() { # file, ingress body, extra declarations
    cat <<EOP
#include <core.p4>
#include <v1model.p4>
struct metadata { bit<32> a; }
struct headers { }
parser P(packet_in p, out headers h, inout metadata m, inout standard_metadata_t s) {
    state start { transition accept; } }
control V(inout headers h, inout metadata m) { apply { } }
control E(inout headers h, inout metadata m, inout standard_metadata_t s) { apply { } }
control C(inout headers h, inout metadata m) { apply { } }
control D(packet_out p, in headers h) { apply { } }
${3:-}
control I(inout headers h, inout metadata m, inout standard_metadata_t s) {
$2
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
EOP
}
header() { # comment, cmd, exit, expectations (key: text)...
    local c=$1 cmd=$2 rc=$3
    shift 3
    printf '%s cmd: %s\n%s exit: %s\n' "$c" "$cmd" "$c" "$rc"
    for e in "$@"; do printf '%s %s\n' "$c" "$e"; done
}
repeat() { # text, count: the text count times
    local s=$1 n=$2
    awk -v s="$s" -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'
}

# item 2: the checker recursed once per operator and overflowed the stack
{
    header // "p4 check FILE" 2 "contains: error: expression nested too deep (more than 1000 levels"
    p4prog x "apply { m.a = m.a$(repeat ' + m.a' 50000); }"
} >p4_plus_50000.p4
{
    header // "p4 check FILE" 2 "contains: error: nesting too deep near"
    p4prog x "apply { m.a = $(repeat 'm.a == 1 ? 1 : ' 50000)0; }"
} >p4_cond_50000.p4
{
    header // "p4 check FILE" 2 "contains: error: expression nested too deep (more than 1000 levels"
    p4prog x "apply { m.a = m.a$(repeat '[31:0]' 5000); }"
} >p4_slice_chain_5000.p4
{
    header // "p4 check FILE" 0
    p4prog x "apply { m.a = m.a$(repeat ' + m.a' 900); }"
} >p4_plus_900_ok.p4
# item 3: more than a pipe's worth of cpp warnings (the reader waited on stdout while cpp
# blocked on a full stderr)
{
    header // "p4 check FILE" 2 "contains: more bytes of preprocessor messages not shown" \
        "contains: error: no 'V1Switch(...) main;' instance"
    repeat '#warning filling the pipe with warnings\n' 3000 | sed 's/\\n/\n/g'
} >p4_warnings_3000.p4
{
    header // "p4 check FILE" 2 "contains: error:"
    head -c 200000 /dev/urandom | tr -d '\000'
} >p4_binary_garbage.p4
# a program larger than the 64 MB output limit of the preprocessor
{
    header // "p4 check FILE" 2 "contains: error: is larger than the limit of 64 MB"
} >p4_too_large.p4
truncate -s 70M p4_too_large.p4 # sparse: no disk, no time
# item 4: installing n const entries was quadratic (40,000: 57 s; 10^6: > 300 s); 100,000 now
# take a few seconds, far below the time limit
{
    header // "p4 test FILE const_entries.stf.aux" 0 "expect: const_entries.stf.aux: 2 packets, 2 checks, 0 failed"
    p4prog x "action set(bit<9> port) { s.egress_spec = port; }
table t { key = { m.a : exact; } actions = { set; } size = 100001; const entries = {
$(awk 'BEGIN { for (i = 0; i < 100000; i++) printf "  32w%d : set(%d);\n", i, i % 8 + 1 }')
} }
apply { m.a = 99999; t.apply(); }"
} >p4_const_entries_100000.p4
printf 'packet 0 00\nexpect 8 00\npacket 1 01\nexpect 8 01\n' >const_entries.stf.aux
# an explicit list of a million hosts: refused by the memory estimate under the suite's limit
# (it passed `check` at 5.6 GB)
{
    header "#" "check FILE --max-memory 3GB" 2 "contains: error: this scenario needs about 5.5 GB of memory (1000000 hosts, 0 switches"
    echo 'hosts:'
    awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "  - {name: h%d}\n", i }'
} >hosts_1000000.yaml
# a parameter server job of 200 workers and 200 servers on a star of 400 hosts: 80,000
# connections, refused by the estimate's job term (the topology alone is 21 MB; `check` builds
# it in 125 MB, `run` to 1 ns takes 128 MB)
{
    header "#" "check FILE --max-memory 100MB" 2 "contains: error: this scenario needs about 321 MB of memory (400 hosts, 1 switch, 400 links, 1 routes, 80000 flows, 200 DDL workers and 200 servers)"
    printf 'topology: {kind: star, hosts: 400, switch: {program: none}}\njobs:\n'
    printf '  - arch: ps\n    model: alexnet\n'
    awk 'BEGIN {
        printf "    workers: ["
        for (i = 0; i < 200; i++) printf "%sh%d", (i ? ", " : ""), i
        printf "]\n    servers: ["
        for (i = 200; i < 400; i++) printf "%sh%d", (i > 200 ? ", " : ""), i
        printf "]\n" }'
} >ddl_ps_200x200.yaml
