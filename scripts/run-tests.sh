#!/usr/bin/env bash
# Runs the whole test suite and prints "tests: N passed, M failed"; exits non-zero on any
# failure. The list comes from the sources, not from what happens to be in build/:
#   unit     one cmocka binary per tests/test_*.c (a missing binary fails; a binary in
#            build/tests whose source is gone fails too, so a deleted test cannot linger)
#   checks   tests/layers.sh (dependency direction) and tests/golden/run.sh (output digests)
#   cli      tests/cli/*.sh: scenario, CLI and hostile-input scripts
#   stf      tests/p4/*.stf against the .p4 of the same name (or p4/programs/NAME.p4)
# Options: --unit-only (only the cmocka binaries); --update-golden (rewrite the golden digests
# instead of comparing).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
# objects of the native P4 engine made by the tests stay in the build folder
case "$BUILD" in
/*) export DDLSIM_P4_CACHE=${DDLSIM_P4_CACHE:-$BUILD/p4native-cache} ;;
*) export DDLSIM_P4_CACHE=${DDLSIM_P4_CACHE:-$PWD/$BUILD/p4native-cache} ;;
esac
unit_only=0
[ "${1:-}" = "--unit-only" ] && unit_only=1
if [ "${1:-}" = "--update-golden" ]; then
    UPDATE_GOLDEN=1 tests/golden/run.sh
    exit $?
fi

pass=0
fail=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

run() { # name, command...
    local name=$1
    shift
    if "$@" >"$log/out" 2>&1; then
        pass=$((pass + 1))
        printf '  ok    %s\n' "$name"
    else
        fail=$((fail + 1))
        printf '  FAIL  %s\n' "$name"
        sed 's/^/        /' "$log/out" | tail -40
    fi
}
missing() { # name, why
    fail=$((fail + 1))
    printf '  FAIL  %s (%s)\n' "$1" "$2"
}

echo "unit tests:"
for src in tests/test_*.c; do
    t="$BUILD/tests/$(basename "$src" .c)"
    if [ -x "$t" ]; then
        run "$(basename "$t")" "$t"
    else
        missing "$(basename "$t")" "no binary for $src"
    fi
done
for t in "$BUILD"/tests/test_*; do
    case "$t" in *.o | *.d) continue ;; esac
    [ -f "tests/$(basename "$t").c" ] || missing "$(basename "$t")" "stale binary: its source is gone"
done

if [ $unit_only -eq 0 ]; then
    echo "checks:"
    run layers tests/layers.sh
    run golden tests/golden/run.sh
    echo "scenario and CLI tests:"
    for t in tests/cli/*.sh; do
        run "$(basename "$t" .sh)" bash "$t"
    done
    echo "STF packet tests:"
    for stf in tests/p4/*.stf; do
        p4="${stf%.stf}.p4"
        [ -f "$p4" ] || p4="p4/programs/$(basename "${stf%.stf}").p4"
        run "$(basename "$stf")" "$BUILD/ddlsim" p4 test "$p4" "$stf"
    done
fi

echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
