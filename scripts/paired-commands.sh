#!/usr/bin/env bash
# Times two modex binaries on the same command in turn (old, new, old,
# new, ...) and prints each run and the medians of wall time and peak
# memory: the whole-command pairs of docs/performance.md.
# Usage: scripts/paired-commands.sh OLD_BIN NEW_BIN PAIRS ARGS...
#   e.g. scripts/paired-commands.sh /tmp/modex-old bin/modex 6 explore engine/explore/testdata/tla/bakery.toml
# An old binary: git worktree add --detach /tmp/wt REV && (cd /tmp/wt && go build -o /tmp/modex-old ./app)
set -euo pipefail
old=$1 new=$2 pairs=$3
shift 3
# A binary just written has its pages in the page cache as it wrote them,
# and its mappings then count up to 12 MB more resident memory than the
# same bytes read back from disk: the caches are dropped first (as root).
if [[ -w /proc/sys/vm/drop_caches ]]; then
  sync
  echo 3 > /proc/sys/vm/drop_caches
else
  echo "not root: page caches not dropped; peak memory may differ by up to 12 MB between binaries" >&2
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
declare -A secs mems
for i in $(seq "$pairs"); do
  for v in old new; do
    bin=$old
    [[ $v == new ]] && bin=$new
    /usr/bin/time -o "$tmp" -f '%e %M' "$bin" "$@" >/dev/null 2>&1 || true
    read -r s m < "$tmp"
    printf '%s %d: %6.2f s %7.1f MB\n' "$v" "$i" "$s" "$(awk -v m="$m" 'BEGIN{print m/1024}')"
    secs[$v]+="$s "
    mems[$v]+="$m "
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for v in old new; do
  printf '%s: median %.2f s, %.1f MB\n' "$v" "$(echo "${secs[$v]}" | median)" "$(echo "${mems[$v]}" | median | awk '{print $1/1024}')"
done
