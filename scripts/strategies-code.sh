#!/usr/bin/env bash
# The code strategy beside random and coverage, on the bundled bugs: for
# each sample and strategy, N tests (seeds 1, 101, 201, ...) of up to R runs
# against the buggy implementation built with -cover, measured with
# --cover; prints in how many tests the bug was found, the runs to the
# first failure (median over the tests that found it), and the code and
# model coverage after the test. docs/performance.md shows a run of it.
# The conference protocol's three mutants (seed 002) follow, each a row per
# strategy (CONFERENCE=0 leaves them out; ONLY=conference runs them alone).
# usage: scripts/strategies-code.sh [N] [R]   (from the repository root)
set -euo pipefail
n=${1:-20}; r=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/modex" -tags headless ./app
go build -cover -covermode=atomic -o "$tmp/chatimpl" ./projects/chat/impl
go build -cover -covermode=atomic -o "$tmp/bagimpl" ./projects/bag/impl
go build -cover -covermode=atomic -o "$tmp/cpeimpl" ./projects/conference/impl
echo "machine: $(nproc) cores, $(date -u +%F); $n tests of up to $r runs each"
printf '%-28s %-9s %-10s %-22s %-14s %s\n' "bug" "strategy" "found in" "runs to 1st failure" "code coverage" "model states (mean)"
row() { # label strategy project config include steps adapter...
  local label=$1 strategy=$2 project=$3 config=$4 include=$5 steps=$6; shift 6
  local found=0 firsts=() codes=() states=0
  for i in $(seq 0 $((n-1))); do
    out=$("$tmp/modex" test "$project" --config "$config" --runs "$r" --steps "$steps" --seed $((i*100+1)) \
      --strategy "$strategy" --adapter "$*" --cover-include "$include" 2>/dev/null || true)
    first=$(grep -m1 -oE '^run [0-9]+/[0-9]+ \(seed [0-9]+\): fail' <<<"$out" | sed -E 's/^run ([0-9]+).*/\1/' || true)
    if [ -n "$first" ]; then found=$((found+1)); firsts+=("$first"); fi
    codes+=("$(sed -nE 's/^code coverage of the implementation: ([0-9.]+) %.*/\1/p' <<<"$out")")
    states=$((states + $(sed -nE 's/.*covered ([0-9]+) of [0-9]+ states.*/\1/p' <<<"$out" | tail -1)))
  done
  med="-"
  if [ ${#firsts[@]} -gt 0 ]; then med=$(printf '%s\n' "${firsts[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'); fi
  code=$(printf '%s\n' "${codes[@]}" | awk '{s+=$1} END{printf "%.1f %%", s/NR}')
  printf '%-28s %-9s %-10s %-22s %-14s %.1f\n' "$label" "$strategy" "$found of $n" "$med" "$code" "$(awk -v s=$states -v n=$n 'BEGIN{print s/n}')"
}
# conference K STRATEGY: seed 002's mutant K (one agent, the mutant's
# configuration), runs of 1,000 steps; "runs to 1st failure" is the steps
# before it instead (all runs' steps up to the failing one).
conference() {
  local k=$1 strategy=$2 found=0 firsts=() codes=() states=0
  for i in $(seq 0 $((n-1))); do
    out=$("$tmp/modex" test projects/conference/conference.toml --config mutant-$k --runs "$r" --steps 1000 --seed $((i*100+1)) \
      --strategy "$strategy" --adapter "$tmp/cpeimpl adapter --agents 1 --mutant $k" --cover-include cpe.go 2>/dev/null || true)
    first=$(grep -m1 -oE '^run [0-9]+/[0-9]+ \(seed [0-9]+\): fail at step [0-9]+' <<<"$out" | sed -E 's/^run ([0-9]+).* at step ([0-9]+)$/\1 \2/' || true)
    if [ -n "$first" ]; then
      found=$((found+1))
      read -r run step <<<"$first"
      firsts+=("$(( (run-1)*1000 + step ))")
    fi
    codes+=("$(sed -nE 's/^code coverage of the implementation: ([0-9.]+) %.*/\1/p' <<<"$out")")
    states=$((states + $(sed -nE 's/.*covered ([0-9]+) of [0-9]+ states.*/\1/p' <<<"$out" | tail -1)))
  done
  med="-"
  if [ ${#firsts[@]} -gt 0 ]; then med="$(printf '%s\n' "${firsts[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}') steps"; fi
  code=$(printf '%s\n' "${codes[@]}" | awk '{s+=$1} END{printf "%.1f %%", s/NR}')
  printf '%-28s %-9s %-10s %-22s %-14s %.1f\n' "conference: mutant $k" "$strategy" "$found of $n" "$med" "$code" "$(awk -v s=$states -v n=$n 'BEGIN{print s/n}')"
}
if [ "${ONLY:-}" != conference ]; then
for s in random coverage code; do
  row "chat: out-of-order delivery" $s projects/chat/chat.toml hi_bye server.go 10 "$tmp/chatimpl" adapter
done
for s in random coverage code; do
  row "bag: missing lock" $s projects/bag/bag.toml two_threads bag.go 100 "$tmp/bagimpl" adapter --capacity {CAPACITY}
done
fi
[ "${CONFERENCE:-1}" = 0 ] && exit 0
for k in 1 2 3; do
  for s in random coverage code; do
    conference $k $s
  done
done
