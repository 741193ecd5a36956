#!/usr/bin/env bash
# Fails when a fuzz target in the code is missing from the Makefile's FUZZ
# list, so that `make fuzz` runs every one.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"$line")
  pkg="./$(dirname "$file")"
  if ! grep -q -- "$pkg:$name\b" Makefile; then
    echo "fuzz target $name in $pkg is not in the Makefile's FUZZ list" >&2
    missing=1
  fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz' . | sed 's#^\./##')
exit $missing
