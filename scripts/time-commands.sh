#!/usr/bin/env bash
# Times whole modex commands (wall clock and peak memory) for
# docs/performance.md. Usage: scripts/time-commands.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
go build -o bin/modex ./app
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
measure() {
  local label=$1; shift
  local best="" mem="" s m
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$tmp" -f '%e %M' "$@" >/dev/null 2>&1
    read -r s m < "$tmp"
    if [[ -z $best ]] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$s; mem=$m; fi
  done
  printf '%-44s best of %d: %6.2f s  peak RSS %6.1f MB\n' "$label" "$runs" "$best" "$(awk -v m="$mem" 'BEGIN{print m/1024}')"
}
measure "explore webshop more_items" ./bin/modex explore projects/webshop/webshop.toml --config more_items
measure "explore webshop more_items --workers 1" ./bin/modex explore projects/webshop/webshop.toml --config more_items --workers 1
measure "explore chat hi_bye" ./bin/modex explore projects/chat/chat.toml --config hi_bye
measure "explore bigstack (32767 states)" ./bin/modex explore engine/explore/testdata/bigstack.star
measure "explore bigstack --format json" ./bin/modex explore engine/explore/testdata/bigstack.star --format json
measure "explore chat figure1 --format png" ./bin/modex explore projects/chat/chat.toml --format png
# tlaplus/Examples ports (docs/performance.md, "TLA+ specifications beside TLC")
for spec in lamport bakery; do
  measure "explore $spec" ./bin/modex explore engine/explore/testdata/tla/$spec.toml
  measure "explore $spec --workers 1" ./bin/modex explore engine/explore/testdata/tla/$spec.toml --workers 1
  measure "explore $spec --format json (graph kept)" ./bin/modex explore engine/explore/testdata/tla/$spec.toml --format json --out "$tmp.json"
done
rm -f "$tmp.json"
measure "explore coffeecan --config coffee1000" ./bin/modex explore engine/explore/testdata/tla/coffeecan.toml --config coffee1000
./bin/modex explore projects/webshop/webshop.toml --config more_items
