#!/usr/bin/env bash
# Progress lines appear on a terminal only: `run` shows simulated time, events/s and an ETA
# against the stop time, `sweep` shows points done and failed, elapsed time and an ETA; with
# --quiet, or when stderr is not a terminal, nothing extra is printed. (script(1) gives the
# command a terminal.)
set -u
. "$(dirname "$0")/../lib/cli.sh"
command -v script >/dev/null || { echo "no script(1): skipped"; exit 0; }
cat >"$tmp/long.yaml" <<'YAML'
topology: {kind: star, hosts: 3}
stop: 400ms
defaults: {switch: {program: none}}
flows:
  - {src: h0, dst: h2, pattern: poisson, rate: 5Gbps}
  - {src: h1, dst: h2, pattern: poisson, rate: 5Gbps}
YAML
# long enough (a few seconds here) for redraws every 1/4 s even on a fast machine
script -qec "$bin run $tmp/long.yaml --out $tmp/a --set stop=1500ms" "$tmp/tty.log" >/dev/null ||
    fail "run on a terminal"
grep -aq $'\r  simulated [0-9.]*m*s of 1.5s ([0-9]*%), [0-9.]* M events/s, ETA [0-9.]*s' "$tmp/tty.log" ||
    fail "no run progress line: $(cat -v "$tmp/tty.log" | head -c 600)"
script -qec "$bin run $tmp/long.yaml --out $tmp/b --quiet" "$tmp/quiet.log" >/dev/null
grep -aq "simulated" "$tmp/quiet.log" && fail "--quiet printed progress"
"$bin" run "$tmp/long.yaml" --out "$tmp/c" >"$tmp/out.log" 2>"$tmp/err.log" || fail "run"
[ -s "$tmp/err.log" ] && fail "stderr not a terminal, yet: $(cat -v "$tmp/err.log")"
grep -q $'\r' "$tmp/out.log" && fail "carriage returns in redirected output"
cat >"$tmp/sweep.yaml" <<'YAML'
scenario: long.yaml
axes: [{set: stop, values: [300ms, 400ms, 500ms, 600ms]}]
metrics: [{name: rx, path: flows.0.rx_bytes}]
YAML
script -qec "$bin sweep $tmp/sweep.yaml --out $tmp/s -j 1" "$tmp/sweep.log" >/dev/null || fail "sweep"
grep -aq $'\r  points [0-9]/4 done, 0 failed, elapsed [0-9.]*s, ETA' "$tmp/sweep.log" ||
    fail "no sweep progress line: $(cat -v "$tmp/sweep.log" | head -c 600)"
echo "progress ok"
