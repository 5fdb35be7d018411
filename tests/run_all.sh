#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs every KTAP test binary given, then the Python tests, and ends with
# one plain "N passed, N failed, N skipped" line over all of them.
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
skipped=0
summary='s/^# .*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p'
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	sum=$(printf '%s\n' "$out" | sed -n "$summary" | tail -1)
	if [ -z "$sum" ]; then
		echo "not ok - $t crashed or printed no summary (exit $rc)"
		failed=$((failed + 1))
		continue
	fi
	read -r p f s <<<"$sum"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
done
if command -v python3 >/dev/null && python3 -c 'import pytest' 2>/dev/null; then
	out=$(python3 -m pytest -q tests/python 2>&1)
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -Eo '[0-9]+ passed' | tail -1 | cut -d' ' -f1)
	f=$(printf '%s\n' "$out" | grep -Eo '[0-9]+ (failed|error)' | awk '{s+=$1} END {print s+0}')
	k=$(printf '%s\n' "$out" | grep -Eo '[0-9]+ skipped' | tail -1 | cut -d' ' -f1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${k:-0}))
	[ -z "$p" ] && [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
else
	echo "not ok - pytest is not installed"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
