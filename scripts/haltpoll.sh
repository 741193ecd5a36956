#!/usr/bin/env bash
# Runs a command under two settings of the guest's idle polling
# (/sys/module/haltpoll/parameters/guest_halt_poll_ns: how long an idle
# vCPU of a KVM guest polls before it halts), alternating, and restores the
# machine's setting at the end: how much of a result is the virtual
# machine's wake-up cost rather than Modex's (docs/performance.md, "Less
# garbage per state; the virtual machine's idle polling"). Linux guests with the haltpoll idle
# driver; root.
# Usage: scripts/haltpoll.sh NS_A NS_B PAIRS COMMAND...
#   e.g. scripts/haltpoll.sh 0 200000 3 bin/modex test projects/stack/stack.toml \
#          --adapter $PWD/bin/trivialadapter --runs 100 --steps 1000 --seed 1
set -euo pipefail
param=/sys/module/haltpoll/parameters/guest_halt_poll_ns
if [[ ! -w $param ]]; then
  echo "haltpoll.sh: $param is not writable (not a KVM guest with the haltpoll driver, or not root)" >&2
  exit 2
fi
a=$1 b=$2 pairs=$3
shift 3
saved=$(cat "$param")
tmp=$(mktemp)
trap 'echo "$saved" > "$param"; rm -f "$tmp"' EXIT
for i in $(seq "$pairs"); do
  for ns in "$a" "$b"; do
    echo "$ns" > "$param"
    /usr/bin/time -o "$tmp" -f '%e s %M KB' "$@" >/dev/null 2>&1 || true
    printf 'guest_halt_poll_ns=%-8s run %d: %s\n' "$ns" "$i" "$(cat "$tmp")"
  done
done
echo "guest_halt_poll_ns restored to $saved"
