#!/usr/bin/env bash
# Times `modex explore` with one worker and with two, in pairs (one worker,
# then two, one binary), for docs/performance.md, "Two workers against one":
# wall time and peak RSS from GNU time, and each pair's ratio.
#
# Usage: scripts/two-workers.sh [pairs] [spec...]
#   (default: 3 pairs of bakery, lamport and paxoscommit, the specs of
#   engine/explore/testdata/tla)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}
shift || true
specs=("$@")
[[ ${#specs[@]} -gt 0 ]] || specs=(bakery lamport paxoscommit)
[[ -x /usr/bin/time ]] || { echo "GNU time is missing: apt-get install time" >&2; exit 2; }
go build -tags headless -o bin/modex-headless ./app
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "| spec | pair | 1 worker (s, MiB) | 2 workers (s, MiB) | 2 workers / 1 |"
echo "|---|---|---|---|---|"
run() { # workers spec: prints seconds and MiB
  /usr/bin/time -o "$tmp" -f '%e %M' ./bin/modex-headless explore --quiet --workers "$1" \
    "engine/explore/testdata/tla/$2.toml" >/dev/null
  awk '{printf "%s %.0f", $1, $2/1024}' "$tmp"
}
for spec in "${specs[@]}"; do
  for i in $(seq "$pairs"); do
    read -r s1 m1 <<<"$(run 1 "$spec")"
    read -r s2 m2 <<<"$(run 2 "$spec")"
    printf '| %s | %d | %s, %s | %s, %s | %s |\n' "$spec" "$i" "$s1" "$m1" "$s2" "$m2" \
      "$(awk -v a="$s1" -v b="$s2" 'BEGIN{printf "%.2f", a/b}')"
  done
done
