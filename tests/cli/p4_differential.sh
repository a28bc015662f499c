#!/usr/bin/env bash
# The P4 differential generators against every engine, with fixed seeds: random operator
# programs (tests/p4/gen_ops.py) and random table entries and keys (tests/p4/gen_tables.py),
# whose expected outputs come from their own Python model, not from the engine. Each
# generated program and its packets run on the compiled engine, on the native engine and on
# the reference interpreter (--p4-exec), and every STF test of tests/p4 runs on all three
# too (make test runs them on the default engine); tests/test_p4cc.c compares the engines
# directly.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export DDLSIM="$root/${BUILD:-build}/ddlsim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
both() { # p4, stf
    for e in compiled native interp; do
        "$DDLSIM" p4 test --p4-exec=$e "$1" "$2" >out.txt 2>&1 || {
            echo "$1 on the $e engine failed"
            tail -20 out.txt
            exit 1
        }
        if grep -q "no native code" out.txt; then
            echo "$1: the native engine did not run: $(cat out.txt)"
            exit 1
        fi
    done
}
for seed in 1 2 3 4 5; do
    python3 "$root/tests/p4/gen_ops.py" "$seed" || { echo "gen_ops.py seed $seed failed"; exit 1; }
    both d.p4 d.stf
    python3 "$root/tests/p4/gen_tables.py" "$seed" || { echo "gen_tables.py seed $seed failed"; exit 1; }
    both t.p4 t.stf
done
n=0
for stf in "$root"/tests/p4/*.stf; do
    p4="${stf%.stf}.p4"
    [ -f "$p4" ] || p4="$root/p4/programs/$(basename "${stf%.stf}").p4"
    both "$p4" "$stf"
    n=$((n + 1))
done
echo "p4 differential: 5 operator and 5 table seeds agree with the Python model, and $n STF" \
    "tests pass, on all three engines"
