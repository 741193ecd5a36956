#!/usr/bin/env bash
# Seed 000's Table 1 setting for the chat server, repeated: N campaigns of
# 10 runs x 10 steps (configuration table1) against the buggy server and
# against the fixed one. Prints how many campaigns and runs found the bug.
# usage: scripts/table1-chat.sh [N]   (run from the repository root after make build)
set -euo pipefail
n=${1:-30}
impl=$(mktemp -d)/chatimpl
go build -o "$impl" ./projects/chat/impl
for mode in buggy fixed; do
  flag=""; [ $mode = fixed ] && flag=" --fixed"
  found=0; failed=0
  for i in $(seq 0 $((n-1))); do
    summary=$(./bin/modex test projects/chat/chat.toml --config table1 --runs 10 --steps 10 \
      --seed $((i*10+1)) --adapter "$impl adapter$flag" 2>/dev/null | grep '^chat \[table1\]: ' || true)
    f=$(sed -E 's/.* ([0-9]+) fail.*/\1/' <<<"$summary")
    failed=$((failed+f))
    if [ "$f" -gt 0 ]; then found=$((found+1)); fi
  done
  echo "$mode server: $found of $n campaigns (10 runs x 10 steps) failed; $failed of $((n*10)) runs failed"
done
