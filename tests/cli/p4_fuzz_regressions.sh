#!/usr/bin/env bash
# Inputs the fuzzers once crashed on (undefined behaviour) now end in located errors, exit 2.
set -u
. "$(dirname "$0")/../lib/cli.sh"
fail=0
# a struct that contains itself (its type was still being laid out)
printf 'struct s_t {\n    s_t inner;\n}\n' >"$tmp/rec.p4"
out=$("$bin" p4 check "$tmp/rec.p4" 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "rec.p4:2:5: error: type 's_t' is used inside its own declaration" <<<"$out"; then
    echo "FAIL recursive struct: exit $rc: $out"
    fail=1
fi
# time_advance past the end of simulated time (signed overflow)
printf 'time_advance 3000000s\ntime_advance 3000000s\n' >"$tmp/t.stf"
out=$("$bin" p4 test p4/programs/basic.p4 "$tmp/t.stf" 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "t.stf:2:14: error: time_advance goes past the end of simulated time" <<<"$out" ||
    grep -qF "t.stf:1:" <<<"$out"; then
    echo "FAIL time overflow: exit $rc: $out"
    fail=1
fi
exit $fail
