#!/usr/bin/env bash
# Golden digests: runs every case of tests/golden/cases.txt and compares the SHA-256 of every
# output file with tests/golden/digests.txt. Any change of results (a number, a file added or
# gone) fails and prints which files differ; `make golden-update` (UPDATE_GOLDEN=1) rewrites
# the digests so the change shows up as a reviewed diff. summary.json is hashed without its
# "provenance" block (version and input paths change with every commit and checkout).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
ref=tests/golden/digests.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

while read -r name cfg args; do
    case "$name" in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086
    if ! "$BUILD/ddlsim" run "$cfg" $args --quiet --out "$tmp/out/$name" >"$tmp/log" 2>&1; then
        echo "golden: case $name failed:"; cat "$tmp/log"; exit 1
    fi
    for f in "$tmp/out/$name"/summary.json; do
        awk '/^  "provenance": \{/ {skip = 1; next} skip && /^  \},?$/ {skip = 0; next} !skip' \
            "$f" >"$f.strip" && mv "$f.strip" "$f"
    done
    (cd "$tmp/out" && find "$name" -type f | LC_ALL=C sort | xargs sha256sum) >>"$tmp/digests"
done <tests/golden/cases.txt

if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$tmp/digests" "$ref"
    echo "golden: wrote $ref ($(wc -l <"$ref") files)"
    exit 0
fi
if ! diff -u "$ref" "$tmp/digests" >"$tmp/diff"; then
    echo "golden: outputs differ from $ref (make golden-update after review):"
    grep '^[-+][0-9a-f]' "$tmp/diff" | awk '{print $1 " " $2}' | sed 's/^-/  was /; s/^+/  now /'
    exit 1
fi
echo "golden: $(wc -l <"$ref") files identical"
