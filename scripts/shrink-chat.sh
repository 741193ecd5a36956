#!/bin/sh
# Shrinks the first failing run of N campaigns (seeds 1..N) of the chat
# sample's hi_bye configuration against its buggy server and prints one
# line per campaign: the "shrunk:" line, or why it did not shrink.
#   scripts/shrink-chat.sh [N]
set -e
n=${1:-10}
cd "$(dirname "$0")/.."
go build -o bin/modex ./app
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for seed in $(seq 1 "$n"); do
	./bin/modex test projects/chat/chat.toml --config hi_bye --runs 20 --seed "$seed" --save-failures "$tmp" --shrink >"$tmp/out" 2>/dev/null || true
	line=$(grep -m1 '^shrunk:\|^shrinking:' "$tmp/out" || echo "no failing run")
	echo "seed $seed: $line"
done
