#!/usr/bin/env bash
# Figure regression: every configs/figures/NAME.yaml, run with --quick, stays within the
# tolerance of its reference results/NAME.ref.csv; and the check can fail: a reference moved
# beyond the tolerance fails with the point and column named, one moved within it passes.
set -u
. "$(dirname "$0")/../lib/cli.sh"
n=0
for f in configs/figures/*.yaml; do
    name=$(basename "$f" .yaml)
    [ -f "results/$name.ref.csv" ] || fail "$name has no reference results/$name.ref.csv"
    out=$("$bin" figure "$name" --quick --out "$tmp/$name" 2>&1) || fail "figure $name: $out"
    grep -q "reference: every value within" <<<"$out" || fail "$name not compared: $out"
    for ext in csv png svg; do [ -s "$tmp/$name/$name.$ext" ] || fail "$name.$ext missing"; done
    n=$((n + 1))
done
[ $n -ge 2 ] || fail "expected at least two figures, found $n"

# a log axis with ymin: its lowest tick is ymin (1e-5 ms in tensorexpress-models, set there so
# that TensorExpress's blocking bars, about 1e-4 ms, stand above the floor), labelled in %g form
svg="$tmp/tensorexpress-models/tensorexpress-models.svg"
grep -q '<tspan font-family="sans" >1e-05</tspan>' "$svg" || fail "log axis floor 1e-05 not labelled"
grep -q '>0.000010<' "$svg" && fail "log axis labels in %f form"

# perturb the reference of incast-senders (tolerance 0.2%): completion_s of point 2 by 1%
mkdir "$tmp/res"
cp results/incast-senders.ref.csv "$tmp/res/"
perturb() { # factor
    awk -F, -v OFS=, -v k="$1" 'NR == 4 {$4 = $4 * k} {print}' results/incast-senders.ref.csv \
        >"$tmp/res/incast-senders.ref.csv"
}
perturb 1.01
out=$("$bin" figure incast-senders --quick --out "$tmp/p" --results "$tmp/res" 2>&1)
[ $? -eq 1 ] || fail "a reference 1% off should fail: $out"
grep -q "point 2: completion_s = .*, reference .* (-0.99%, tolerance 0.2%)" <<<"$out" ||
    fail "message: $out"
grep -q "values outside the tolerance" <<<"$out" || fail "summary: $out"
perturb 1.001
"$bin" figure incast-senders --quick --out "$tmp/p" --results "$tmp/res" --quiet ||
    fail "a reference 0.1% off is within the 0.2% tolerance"
rm "$tmp/res/incast-senders.ref.csv"
out=$("$bin" figure incast-senders --quick --out "$tmp/p" --results "$tmp/res" 2>&1)
[ $? -eq 1 ] && grep -q "no reference" <<<"$out" || fail "missing reference: $out"
echo "figures ok ($n)"
