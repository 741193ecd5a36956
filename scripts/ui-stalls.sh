#!/usr/bin/env bash
# Measures UI-goroutine stalls of the real workbench (GL driver) under Xvfb
# while it explores and draws the web shop MoreItemsInCart configuration,
# then a 300-state grid. Prints the JSON lines the workbench writes.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/modex ./app
display=:97
Xvfb $display -screen 0 1400x900x24 >/dev/null 2>&1 &
xvfb=$!
stats=$(mktemp)
trap 'kill $xvfb 2>/dev/null || true; rm -f "$stats"' EXIT
sleep 1
for cfg in some_items more_items more_items more_items; do
  DISPLAY=$display MODEX_UI_STATS=$stats ./bin/modex projects/webshop/webshop.toml --config "$cfg" >/dev/null 2>&1 &
  pid=$!
  sleep 8
  kill $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
done
cat "$stats"
