#!/usr/bin/env bash
# Every broken scenario in tests/bad/ is rejected by `ddlsim check` (and `ddlsim run`) with the
# located message its first line expects and exit code 2 — never a crash.
set -u
cd "$(dirname "$0")/../.."
bin=${BUILD:-build}/ddlsim
fail=0
for f in tests/bad/*.yaml; do
    want="$f:$(sed -n '1s/^# expect: //p' "$f")"
    for cmd in check run; do
        out=$("$bin" "$cmd" "$f" --set seed=1 2>&1 >/dev/null)
        rc=$?
        if [ $rc -ne 2 ] || ! grep -qF -- "$want" <<<"$out"; then
            echo "FAIL $cmd $f: exit $rc"
            echo "  want: $want"
            echo "  got:  $out"
            fail=1
        fi
    done
done
# a file that does not exist
out=$("$bin" check tests/bad/no-such-file.yaml 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "tests/bad/no-such-file.yaml: error: cannot open scenario: No such file or directory" <<<"$out"; then
    echo "FAIL missing file: exit $rc: $out"
    fail=1
fi
# bad command lines
expect_cli() { # message, args...
    local msg=$1
    shift
    out=$("$bin" "$@" 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! grep -qF -- "$msg" <<<"$out"; then
        echo "FAIL ddlsim $*: exit $rc: $out"
        fail=1
    fi
}
expect_cli "unknown option '--sed'" run configs/demo.yaml --sed 3
expect_cli "--seed expects a non-negative integer, got 'abc'" run configs/demo.yaml --seed abc
expect_cli "option '--out' needs a value" run configs/demo.yaml --out
expect_cli "expected exactly one scenario file" run
expect_cli "unknown command 'rnu'" rnu configs/demo.yaml
expect_cli "--set seed=x:1:12: error: seed: expected an integer, got 'x'" check configs/demo.yaml --set seed=x
expect_cli "expected --set key.path=value" check configs/demo.yaml --set seed
expect_cli "--pcap 'nosuch:0': expected NODE:PORT" run configs/demo.yaml --pcap nosuch:0 --out "$(mktemp -d)"
expect_cli "unknown kind 'swich' (did you mean 'switch'?)" describe swich
exit $fail
