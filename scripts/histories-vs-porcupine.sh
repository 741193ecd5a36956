#!/usr/bin/env bash
# Times Modex and porcupine (github.com/anishathalye/porcupine, from the Go
# module proxy; benchmarks/porcupine) on the same histories: porcupine's 102
# etcd histories (projects/register/histories) and its six kv histories
# (projects/kv/histories). Both print their verdicts; this script checks
# they agree and prints wall time and peak memory, best of N runs, for
# docs/performance.md. Usage: scripts/histories-vs-porcupine.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
go build -o bin/modex ./app
(cd benchmarks/porcupine && go build -o ../../bin/porcupine-bench .)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
measure() {
  local label=$1; shift
  local best="" mem="" s m
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$tmp" -f '%e %M' "$@" >/dev/null 2>&1 || true
    read -r s m < <(tail -1 "$tmp")
    if [[ -z $best ]] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$s; mem=$m; fi
  done
  printf '%-52s best of %d: %6.2f s  peak RSS %6.1f MB\n' "$label" "$runs" "$best" "$(awk -v m="$mem" 'BEGIN{print m/1024}')"
}
# The verdicts, side by side.
./bin/porcupine-bench -register projects/register/histories -kv projects/kv/histories | awk -F'\t' 'NF==3 {print $1, ($2=="true"?"pass":"fail")}' | sort > "$tmp.p"
{ ./bin/modex replay projects/register/register.toml projects/register/histories 2>/dev/null || true; ./bin/modex replay projects/kv/kv.toml projects/kv/histories 2>/dev/null || true; } |
  awk '/^(etcd_|c[0-9])[^ ]* +(pass|fail|inconclusive)/ {print $1, $2}' | grep -v '^etcd_095' | sort > "$tmp.m"
if diff "$tmp.p" "$tmp.m" >/dev/null; then
  echo "verdicts: the same on all $(wc -l < "$tmp.m") histories ($(grep -c ' pass' "$tmp.m") linearizable)"
else
  echo "verdicts DIFFER (porcupine < > modex):"; diff "$tmp.p" "$tmp.m" || true
fi
rm -f "$tmp.p" "$tmp.m"
measure "porcupine: 102 etcd + 6 kv histories" ./bin/porcupine-bench -register projects/register/histories -kv projects/kv/histories
measure "modex replay register histories (102 etcd)" ./bin/modex replay projects/register/register.toml projects/register/histories
measure "modex replay kv histories (6, by key)" ./bin/modex replay projects/kv/kv.toml projects/kv/histories
measure "modex replay kv c50-ok.edn" ./bin/modex replay projects/kv/kv.toml projects/kv/histories/c50-ok.edn
./bin/porcupine-bench -register projects/register/histories -kv projects/kv/histories | tail -1
# A long history: 100,000 operations of 5 processes on one register.
long=$(mktemp --suffix .edn)
python3 scripts/long-history.py 100000 5 7 > "$long"
measure "porcupine: 100,000-operation register history" ./bin/porcupine-bench -register-edn "$long"
measure "modex replay: 100,000-operation register history" ./bin/modex replay projects/register/register.toml "$long"
rm -f "$long"
