#!/bin/sh
# Seed 002's Table II, offline column, with game-strategy suites: the
# conference sample's strategy suite (modex gen --strategies, one agent, the
# paper's timeout 0) run RUNS times against the correct entity and each
# mutant; prints a Markdown table (docs/case-studies/conference.md).
#   scripts/conference-strategies.sh [RUNS]
set -e
runs=${1:-100}
cd "$(dirname "$0")/.."
go build -o bin/modex ./app
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/impl" ./projects/conference/impl
p=projects/conference/conference.toml
./bin/modex gen $p --config agents-1 --strategies --out "$tmp/suite.json" >"$tmp/gen" 2>&1
echo "Suite: $(cat "$tmp/gen")"
echo
echo "| implementation | runs with a failing case | mean steps to the first failure (all cases before it included) | mean steps of the shortest failing case | failing cases per run | runs with an inconclusive case | cases inconclusive |"
echo "|---|---|---|---|---|---|---|"
for k in 0 1 2 3; do
	fails=0; total=0; short=0; failcases=0; incon=0; inconcases=0
	for i in $(seq 1 "$runs"); do
		timeout 120 ./bin/modex run $p "$tmp/suite.json" --config agents-1 --adapter "$tmp/impl adapter --agents 1 --mutant $k" >"$tmp/out" 2>&1 || true
		# Steps to the first failure: those of the cases before it, plus its own.
		s=$(awk '/^case .*after/ {for (i=1;i<=NF;i++) if ($i=="after") n=$(i+1); if ($3=="fail") {print t+n+1; exit} t+=n}' "$tmp/out")
		if [ -n "$s" ]; then fails=$((fails+1)); total=$((total+s)); fi
		# The failing case's own steps, the fewest over the run's failing cases.
		m=$(awk '/^case .*: fail after/ {for (i=1;i<=NF;i++) if ($i=="after") n=$(i+1)+1; if (min=="" || n<min) min=n} END {print min}' "$tmp/out")
		if [ -n "$m" ]; then short=$((short+m)); fi
		failcases=$((failcases+$(grep -c '^case .*: fail after' "$tmp/out" || true)))
		c=$(grep -c '^case .*: inconclusive after' "$tmp/out" || true)
		if [ "$c" -gt 0 ]; then incon=$((incon+1)); inconcases=$((inconcases+c)); fi
	done
	mean=-; smean=-; if [ $fails -gt 0 ]; then mean=$(echo "scale=1; $total/$fails" | bc); smean=$(echo "scale=1; $short/$fails" | bc); fi
	name="mutant $k"; if [ $k = 0 ]; then name="correct entity"; fi
	echo "| $name | $fails of $runs | $mean | $smean | $(echo "scale=1; $failcases/$runs" | bc) | $incon of $runs | $inconcases |"
done
