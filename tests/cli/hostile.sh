#!/usr/bin/env bash
# The hostile-input suite (tests/hostile/run.sh): every case exits 0, 1 or 2 as it expects, with
# its exact messages, under a memory and a time limit.
exec "$(dirname "$0")/../hostile/run.sh"
