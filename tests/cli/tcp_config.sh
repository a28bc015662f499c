#!/usr/bin/env bash
# The tcp flow kind is listed with its parameters, and bad TCP flow configs are reported at
# their location with exit status 2.
set -euo pipefail
. "$(dirname "$0")/../lib/cli.sh"

desc=$("$bin" describe tcp)
for key in cc mss init_cwnd rcv_wnd rto_min rto_max delayed_ack delack_timeout dctcp_g; do
    grep -q "^  $key " <<<"$desc" || fail "describe tcp lacks $key"
done

cat >"$tmp/bad.yaml" <<'YAML'
topology: {kind: star, hosts: 2}
flows:
  - {type: tcp, src: h0, dst: h1, bytes: 1MB, cc: cubic}
  - {type: tcp, src: h0, dst: h1}
  - {type: tcp, src: h0, dst: h1, bytes: 1MB, mss: 1460B, rcv_wnd: 1000B}
  - {type: tcp, src: h0, dst: h1, bytes: 1MB, rto_min: 2s, rto_max: 1s}
YAML
set +e
msg=$("$bin" check "$tmp/bad.yaml" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] || fail "exit status $rc, expected 2"
expect="$tmp/bad.yaml:3:51: error: cc: unknown value 'cubic' (one of: newreno, dctcp)
$tmp/bad.yaml:4:5: error: flow 'f1' never ends: give 'bytes' or 'stop', or a scenario 'stop'
$tmp/bad.yaml:5:5: error: flow 'f2': rcv_wnd must be at least one mss
$tmp/bad.yaml:6:5: error: flow 'f3': rto_min is above rto_max
$tmp/bad.yaml: 4 errors"
if [ "$msg" != "$expect" ]; then
    printf 'got:\n%s\nexpected:\n%s\n' "$msg" "$expect"
    fail "messages"
fi

for c in configs/tcp-*.yaml; do
    "$bin" check "$c" >/dev/null || fail "$c does not check"
done
echo "tcp_config: ok"
