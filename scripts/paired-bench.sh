#!/usr/bin/env bash
# Compares one benchmark between two revisions on a noisy machine: both test
# binaries run at the same time, one per core, so each pair meets the same
# neighbours; prints each pair's tried/s and their ratio (new/old), then the
# median ratio. Run-to-run noise on the VM of docs/performance.md is ±20 %;
# the ratio of a pair varies by a few percent.
#
# Usage: scripts/paired-bench.sh OLD_REV [runs] [package] [benchmark regexp]
#   e.g. scripts/paired-bench.sh HEAD~1 12 ./engine/explore \
#          '^BenchmarkExploreStack$/^native$/^workers=1$/^gc=binary$'
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?old revision}
runs=${2:-12}
pkg=${3:-./engine/explore}
re=${4:-'^BenchmarkExploreStack$/^native$/^workers=1$/^gc=binary$'}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/old" "$old" >/dev/null 2>&1
(cd "$tmp/old" && go test -c -o "$tmp/old.test" "$pkg")
go test -c -o "$tmp/new.test" "$pkg"
dir=$(go list -f '{{.Dir}}' "$pkg")
cd "$dir"
rate() { "$1" -test.run '^$' -test.bench "$re" -test.benchtime 60x | grep -o '[0-9.]* tried/s' | cut -d' ' -f1; }
echo "old=$old new=working tree, $(nproc) cores, $(date -u '+%F %H:%M') UTC"
for _ in $(seq "$runs"); do
  rate "$tmp/old.test" >"$tmp/a" &
  rate "$tmp/new.test" >"$tmp/b" &
  wait
  awk -v a="$(cat "$tmp/a")" -v b="$(cat "$tmp/b")" 'BEGIN{printf "%.3f M  %.3f M  %.3f\n", a/1e6, b/1e6, b/a}'
done | sort -k5 -n | awk '{print; r[NR]=$5} END{printf "median ratio %.3f (min %.3f, max %.3f, %d pairs)\n", r[int((NR+1)/2)], r[1], r[NR], NR}'
