#!/usr/bin/env bash
# Every broken scenario in tests/bad/ is rejected by `ddlsim check` (and `ddlsim run`) with the
# located message its first line expects and exit code 2 — never a crash. A file whose first
# lines hold several "# expect:" lines must print exactly those errors, in that order, each once,
# and then "FILE: N errors" (one run reports every error of a file, sorted by location).
set -u
cd "$(dirname "$0")/../.."
bin=${BUILD:-build}/ddlsim
fail=0
for f in tests/bad/*.yaml; do
    want="$f:$(sed -n '1s/^# expect: //p' "$f")"
    nexp=$(sed -n '/^# expect: /!q;p' "$f" | wc -l)
    exact=""
    if [ "$nexp" -gt 1 ]; then
        exact="$(sed -n '/^# expect: /!q;s|^# expect: |'"$f"':|p' "$f")"$'\n'"$f: $nexp errors"
    fi
    for cmd in check run; do
        out=$("$bin" "$cmd" "$f" --set seed=1 2>&1 >/dev/null)
        rc=$?
        if [ -n "$exact" ] && [ "$out" != "$exact" ]; then
            echo "FAIL $cmd $f: not exactly the expected errors"
            diff <(echo "$exact") <(echo "$out") | sed 's/^/  /'
            fail=1
        elif [ $rc -ne 2 ] || ! grep -qF -- "$want" <<<"$out"; then
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
expect_cli "--set .=1:1:7: error: empty key in the path '.' (expected keys separated by '.', e.g. flows.f0.bytes)" check configs/demo.yaml --set .=1
expect_cli "--set flows=[{src: h0:1:22: error: YAML syntax error: did not find expected ',' or '}' while parsing a flow mapping" check configs/demo.yaml --set 'flows=[{src: h0'
# the --set error and the file's own error come out in one run, the command line's first
out=$("$bin" check tests/bad/unknown_key.yaml --set seed=x 2>&1)
want="--set seed=x:1:12: error: seed: expected an integer, got 'x'
tests/bad/unknown_key.yaml:$(sed -n '1s/^# expect: //p' tests/bad/unknown_key.yaml)
tests/bad/unknown_key.yaml: 2 errors"
if [ "$out" != "$want" ]; then
    echo "FAIL --set error with a file error:"
    diff <(echo "$want") <(echo "$out") | sed 's/^/  /'
    fail=1
fi
expect_cli "--pcap 'nosuch:0': expected NODE:PORT" run configs/demo.yaml --pcap nosuch:0 --out "$(mktemp -d)"
expect_cli "unknown kind 'swich' (did you mean 'switch'?)" describe swich
exit $fail
