#!/usr/bin/env bash
# The coverage column of seed 000's Table 1, for the chat and bag samples:
# for each setting, N tests (seeds 1, 11, 21, ...) of 10 runs against the
# sample's buggy implementation built with -cover, measured by modex test
# --cover; prints the code coverage of the implementation's own file (the
# smallest and largest of the N), the model states covered, and how many
# tests found the bug. docs/case-studies/coverage.md shows a run of it.
# usage: scripts/table1-coverage.sh [N]   (from the repository root)
set -euo pipefail
n=${1:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/modex" -tags headless ./app
go build -cover -covermode=atomic -o "$tmp/chatimpl" ./projects/chat/impl
go build -cover -covermode=atomic -o "$tmp/bagimpl" ./projects/bag/impl
echo "machine: $(nproc) cores, $(date -u +%F); $n tests of 10 runs each"
printf '%-34s %-18s %-16s %s\n' "setting" "code coverage" "model states" "tests that found the bug"
row() { # label project config include steps adapter...
  local label=$1 project=$2 config=$3 include=$4 steps=$5; shift 5
  local lo="" hi="" found=0 states=""
  for i in $(seq 0 $((n-1))); do
    out=$("$tmp/modex" test "$project" --config "$config" --runs 10 --steps "$steps" --seed $((i*10+1)) \
      --adapter "$*" --cover-include "$include" 2>/dev/null || true)
    c=$(sed -nE 's/^code coverage of the implementation: ([0-9.]+) %.*/\1/p' <<<"$out")
    s=$(sed -nE 's/.*covered ([0-9]+ of [0-9]+) states.*/\1/p' <<<"$out" | tail -1)
    f=$(sed -nE 's/.* ([0-9]+) fail,.*/\1/p' <<<"$out" | tail -1)
    [ -z "$lo" ] || awk -v a="$c" -v b="$lo" 'BEGIN{exit !(a < b)}' && lo=$c
    [ -z "$hi" ] || awk -v a="$c" -v b="$hi" 'BEGIN{exit !(a > b)}' && hi=$c
    states=$s
    [ "${f:-0}" -gt 0 ] && found=$((found+1))
  done
  printf '%-34s %-18s %-16s %d of %d\n' "$label" "$lo-$hi %" "$states" "$found" "$n"
}
row "chat: 2 clients, 1 message"  projects/chat/chat.toml figure1 server.go 10 "$tmp/chatimpl" adapter
row "chat: 2 clients, 2 messages" projects/chat/chat.toml hi_bye  server.go 10 "$tmp/chatimpl" adapter
row "bag: 1 thread, capacity 1"   projects/bag/bag.toml one_thread  bag.go 100 "$tmp/bagimpl" adapter --capacity {CAPACITY}
row "bag: 2 threads, capacity 2"  projects/bag/bag.toml two_threads bag.go 100 "$tmp/bagimpl" adapter --capacity {CAPACITY}
