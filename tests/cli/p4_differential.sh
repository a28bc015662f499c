#!/usr/bin/env bash
# The P4 differential generators against the engine, with fixed seeds: random operator
# programs (tests/p4/gen_ops.py) and random table entries and keys (tests/p4/gen_tables.py),
# whose expected outputs come from their own Python model, not from the engine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export DDLSIM="$root/${BUILD:-build}/ddlsim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for seed in 1 2 3 4 5; do
    python3 "$root/tests/p4/gen_ops.py" "$seed" || { echo "gen_ops.py seed $seed failed"; exit 1; }
    python3 "$root/tests/p4/gen_tables.py" "$seed" || { echo "gen_tables.py seed $seed failed"; exit 1; }
done
echo "p4 differential: 5 operator and 5 table seeds agree with the Python model"
