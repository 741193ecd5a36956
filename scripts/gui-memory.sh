#!/usr/bin/env bash
# Samples the workbench's memory while it opens a project: starts
# `bin/modex PROJECT` on the X display $DISPLAY (e.g. Xvfb :9), prints its
# RSS and peak RSS every 9 s for SECONDS, the last two GC lines (live heap),
# saves a screenshot to gui-memory.png and ends it.
# Usage: DISPLAY=:9 scripts/gui-memory.sh PROJECT [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
project=${1:?project}
secs=${2:-45}
log=$(mktemp)
GODEBUG=gctrace=1 bin/modex "$project" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
for i in $(seq 1 $((secs / 3))); do
  sleep 3
  if ((i % 3 == 0)); then
    echo "$((i * 3)) s: RSS $(awk '/VmRSS/{print int($2/1024)}' /proc/$pid/status) MB, peak $(awk '/VmHWM/{print int($2/1024)}' /proc/$pid/status) MB"
  fi
done
grep '^gc ' "$log" | tail -2 | awk '{print $1, $2, $3, $11, "MB (before->after GC->live)"}'
import -window root -resize 60% gui-memory.png
