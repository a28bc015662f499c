#!/usr/bin/env bash
# Runs the whole test suite: cmocka unit tests, scenario/CLI test scripts (tests/cli/*.sh),
# and STF packet tests (tests/p4/*.stf against the .p4 of the same name). Prints one summary
# line "tests: N passed, M failed" and exits non-zero on any failure.
#   --unit-only        only the cmocka binaries
#   --update-golden    pass UPDATE_GOLDEN=1 to the script tests
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD
unit_only=0
[ "${1:-}" = "--unit-only" ] && unit_only=1
[ "${1:-}" = "--update-golden" ] && export UPDATE_GOLDEN=1

pass=0
fail=0
failed=()
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
        failed+=("$name")
        printf '  FAIL  %s\n' "$name"
        sed 's/^/        /' "$log/out" | tail -40
    fi
}

echo "unit tests:"
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && [ "${t%.o}" = "$t" ] && [ "${t%.d}" = "$t" ] || continue
    run "$(basename "$t")" "$t"
done

if [ $unit_only -eq 0 ]; then
    echo "scenario and CLI tests:"
    for t in tests/cli/*.sh; do
        [ -f "$t" ] || continue
        run "$(basename "$t" .sh)" bash "$t"
    done
    echo "STF packet tests:"
    for stf in tests/p4/*.stf; do
        [ -f "$stf" ] || continue
        p4="${stf%.stf}.p4"
        [ -f "$p4" ] || p4="p4/programs/$(basename "${stf%.stf}").p4"
        run "$(basename "$stf")" "$BUILD/ddlsim" p4 test "$p4" "$stf"
    done
fi

echo "tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
