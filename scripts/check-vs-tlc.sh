#!/usr/bin/env bash
# Times `modex explore --check` beside TLC on the counters spec
# (benchmarks/counters: counters.toml and its twin Counters.tla, one .cfg per
# configuration), for docs/performance.md: wall time and peak RSS from GNU
# time, the distinct states and depth each reports, and the disk the check
# used. TLC runs when its jar (or class path) is given, else it is skipped.
#
# Usage: scripts/check-vs-tlc.sh [TLC_JAR|-] [CONFIG...]   (default: c8 c8x30)
# Environment: WORKERS (default 2), BUDGET (modex --memory-budget MB, default
# 2048), TLC_HEAP (java -Xmx, default 256m), CHECK_DIR (--check-dir; default
# the system's temporary folder), ONLY (modex or tlc: run one of the two).
set -euo pipefail
cd "$(dirname "$0")/.."
jar=${1:--}
shift || true
configs=("$@")
[[ ${#configs[@]} -gt 0 ]] || configs=(c8 c8x30)
workers=${WORKERS:-2}
budget=${BUDGET:-2048}
heap=${TLC_HEAP:-256m}
if [[ $jar != - && ! -e $jar ]]; then
  echo "no TLC at $jar" >&2
  exit 2
fi
[[ -x /usr/bin/time ]] || { echo "GNU time is missing: apt-get install time" >&2; exit 2; }
go build -tags headless -o bin/modex-headless ./app
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/^Mem:/ {print $2}') GiB, $(date -u +%F)"
echo "| config | tool | workers | distinct states | depth | seconds | peak RSS (MiB) | peak heap | disk |"
echo "|---|---|---|---|---|---|---|---|---|"
dirflag=()
[[ -n ${CHECK_DIR:-} ]] && dirflag=(--check-dir "$CHECK_DIR")
for c in "${configs[@]}"; do
  if [[ ${ONLY:-} != tlc ]]; then
    out=$tmp/modex.out
    set +e
    nice /usr/bin/time -o "$tmp/time" -f '%e %M' ./bin/modex-headless explore benchmarks/counters/counters.toml \
      --config "$c" --check --memory-budget "$budget" --workers "$workers" --quiet "${dirflag[@]}" >"$out" 2>&1
    code=$?
    set -e
    read -r secs kb < "$tmp/time"
    states=$(sed -nE '1s/^[^:]*: ([0-9]+) states.*/\1/p' "$out")
    depth=$(sed -nE '1s/.*, depth ([0-9]+),.*/\1/p' "$out")
    disk=$(sed -nE 's/.*disk ([^)]*\)).*/\1/p' "$out")
    heapb=$(sed -nE 's/.*peak heap (.*)$/\1/p' "$out")
    [[ $code -eq 0 ]] || { echo "modex exited $code:" >&2; cat "$out" >&2; }
    printf '| %s | modex --check --memory-budget %s | %s | %s | %s | %s | %.0f | %s | %s |\n' "$c" "$budget" "$workers" "$states" "$depth" "$secs" "$(awk -v k="$kb" 'BEGIN{print k/1024}')" "$heapb" "$disk"
  fi
  if [[ $jar == - || ${ONLY:-} == modex ]]; then
    continue
  fi
  out=$tmp/tlc.out
  rm -rf "$tmp/meta"
  set +e
  (cd "$tmp" && nice /usr/bin/time -o "$tmp/time" -f '%e %M' java -XX:+UseParallelGC "-Xmx$heap" -cp "$jar" tlc2.TLC \
    -workers "$workers" -metadir "$tmp/meta" -config "$OLDPWD/benchmarks/counters/$c.cfg" "$OLDPWD/benchmarks/counters/Counters.tla") >"$out" 2>&1
  code=$?
  set -e
  read -r secs kb < "$tmp/time"
  states=$(sed -nE 's/.* ([0-9]+) distinct states found.*/\1/p' "$out" | tail -1)
  depth=$(sed -nE 's/^The depth of the complete state graph search is ([0-9]+)\..*/\1/p' "$out")
  [[ $code -eq 0 ]] || { echo "TLC exited $code:" >&2; tail -20 "$out" >&2; }
  # TLC counts the initial states as depth 1, Modex as 0.
  printf '| %s | TLC -Xmx%s | %s | %s | %s | %s | %.0f | | |\n' "$c" "$heap" "$workers" "$states" "$((depth - 1))" "$secs" "$(awk -v k="$kb" 'BEGIN{print k/1024}')"
done
