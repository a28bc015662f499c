#!/usr/bin/env bash
# summary.json records the ddlsim version and, for every input file the run read (scenario,
# P4 program, ddlsim's P4 include folder, DNN model), its resolved path and SHA-256 digest.
# Built-in names ("basic", "alexnet") resolve in the installation, never in the working
# directory: run from a folder whose p4/include, p4/programs and configs/models differ, the
# inputs, their digests and every result are the same as from the source tree.
set -u
. "$(dirname "$0")/../lib/cli.sh"
cat >"$tmp/job.yaml" <<'YAML'
name: prov
topology: {kind: star, hosts: 3, link: {rate: 10Gbps, delay: 1us}, switch: {pfc: true}}
jobs:
  - {name: a, model: alexnet, workers: [h0, h1], servers: [h2], iterations: 1, chunk: 4MB,
     compute_scale: 0.1}
YAML
"$bin" run "$tmp/job.yaml" --out "$tmp/here" --quiet || fail "run from the tree"

# a decoy installation in the working directory: different headers, program and model
mkdir -p "$tmp/other/p4/include" "$tmp/other/p4/programs" "$tmp/other/configs/models"
cp p4/include/* "$tmp/other/p4/include/" && echo "// changed" >>"$tmp/other/p4/include/v1model.p4"
sed 's/ipv4_forward/ipv4_fwd/g' p4/programs/basic.p4 >"$tmp/other/p4/programs/basic.p4"
sed 's/^name: .*/name: decoy/' configs/models/alexnet.yaml >"$tmp/other/configs/models/alexnet.yaml"
(cd "$tmp/other" && "$bin" run "$tmp/job.yaml" --out "$tmp/there" --quiet) || fail "run elsewhere"

field() { # file role key: the key of the inputs of that role (summary.json is indented JSON)
    awk -v role="$2" -v key="$3" '
        /"role": / {r = $0; sub(/.*"role": "/, "", r); sub(/".*/, "", r)}
        r == role && $0 ~ "\"" key "\": " {v = $0; sub(/.*": "/, "", v); sub(/",?$/, "", v); print v}' "$1"
}
for role in scenario p4_program p4_include model; do
    path=$(field "$tmp/here/summary.json" $role path)
    [ -n "$path" ] || fail "no $role input recorded"
    [ "$path" = "$(field "$tmp/there/summary.json" $role path)" ] || fail "$role path differs"
    [ "$(field "$tmp/here/summary.json" $role sha256)" = \
      "$(field "$tmp/there/summary.json" $role sha256)" ] || fail "$role digest differs"
    if [ -f "$path" ]; then
        [ "$(sha256sum "$path" | cut -d' ' -f1)" = "$(field "$tmp/here/summary.json" $role sha256)" ] \
            || fail "$role digest is not the file's SHA-256"
    fi
done
[ "$(field "$tmp/here/summary.json" p4_program path)" = "$root/p4/programs/basic.p4" ] ||
    fail "basic resolved to $(field "$tmp/here/summary.json" p4_program path)"
[ "$(field "$tmp/here/summary.json" model path)" = "$root/configs/models/alexnet.yaml" ] ||
    fail "alexnet resolved elsewhere"
[ "$(field "$tmp/here/summary.json" scenario path)" = "$(realpath "$tmp/job.yaml")" ] ||
    fail "scenario path"
ver=$(sed -n 's/^    "ddlsim_version": "\(.*\)",$/\1/p' "$tmp/here/summary.json")
[ -n "$ver" ] && [ "$ver" != unknown ] || fail "no version recorded ('$ver')"
for f in flows.csv tensors.csv iterations.csv; do
    cmp -s "$tmp/here/$f" "$tmp/there/$f" || fail "$f differs when run from another folder"
done
echo "provenance ok (version $ver)"
