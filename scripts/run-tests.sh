#!/usr/bin/env bash
# Runs node's test runner over test files found by a glob, since Node 20's
# runner does not expand globs itself. Usage: run-tests.sh <concurrency> <dir> [pattern]
set -euo pipefail
concurrency=$1
dir=$2
pattern=${3:-*.test.ts}
mapfile -t files < <(find "$dir" -name "$pattern" -not -path '*/node_modules/*' | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no test files under $dir" >&2; exit 1; fi
exec node --import tsx --test --test-concurrency="$concurrency" "${files[@]}"
