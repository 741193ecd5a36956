#!/bin/sh
# Times Graphviz layouts (as the workbench runs them: modex __layout, the
# WebAssembly Graphviz of go-graphviz in a child process) of the bundled
# samples' graphs with dot, dot-fast and sfdp, each cut off after LIMIT
# seconds. Prints a Markdown table for docs/performance.md.
#   scripts/layout-times.sh [LIMIT]
set -e
limit=${1:-60}
cd "$(dirname "$0")/.."
go build -o bin/modex ./app
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| graph | states | arcs | dot | dot-fast | sfdp |"
echo "|---|---|---|---|---|---|"
for pc in stack/all chat/hi_bye bag/one_thread threadpool/small bag/two_threads_capacity1 bag/two_threads webshop/more_items; do
	p=${pc%/*}; c=${pc#*/}
	./bin/modex explore "projects/$p/$p.toml" --config "$c" --format dot >"$tmp/g.dot" 2>"$tmp/err"
	states=$(grep -c '^  S[0-9]* \[' "$tmp/g.dot")
	arcs=$(grep -c '^  S[0-9]* -> ' "$tmp/g.dot")
	row="| $p $c | $states | $arcs"
	for e in dot dot-fast sfdp; do
		start=$(date +%s.%N)
		if timeout "$limit" ./bin/modex __layout "$e" <"$tmp/g.dot" >/dev/null 2>&1; then
			t=$(echo "$(date +%s.%N) - $start" | bc)
			row="$row | $(printf '%.2f s' "$t")"
		else
			row="$row | > $limit s"
		fi
	done
	echo "$row |"
done
