#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make check`'s output: ONE KTAP document, as the kernel's kunit_parser.py
# reads it. Every KTAP test binary given is a numbered suite (its own
# document's header and closing lines dropped, its "ok 1 SUITE" renumbered,
# what it wrote to stderr kept as "#" diagnostics), then the Python tests
# are one more suite ("python", from pytest's JUnit report); KUnit-style
# "# SUITE: pass:N fail:N skip:N total:N" lines, a "# Totals:" line, and
# the plain "N passed, N failed, N skipped" line last. Exit status 0 only
# if nothing failed.
#
#     tests/run_all.sh [--no-python] [--quick] [--only GLOB] TEST_BINARY...
#
# --quick (make check-quick): the Python tests not marked slow
# (tests/python/conftest.py's SLOW), every C suite.
# --only GLOB (make check T=GLOB): the suites whose name matches, C test
# binaries by name (test_zap: "zap") and the Python test files by name
# (tests/python/test_core.py: "core"), as one "python" suite.
set -u
cd "$(dirname "$0")/.."
python=1 only= pymark=()
while [ $# -gt 0 ]; do
	case "$1" in
	--no-python) python=0; shift ;;
	--quick) pymark=(-m "not slow"); shift ;;
	--only) only=${2:-}; shift 2 ;;
	*) break ;;
	esac
done
pyfiles=(tests/python)
if [ -n "$only" ]; then
	bins=()
	for t in "$@"; do
		name=$(basename "$t")
		# shellcheck disable=SC2053 # a glob on purpose
		[[ ${name#test_} == $only ]] && bins+=("$t")
	done
	set -- "${bins[@]+"${bins[@]}"}"
	pyfiles=()
	for f in tests/python/test_*.py; do
		name=$(basename "$f" .py)
		# shellcheck disable=SC2053
		[[ ${name#test_} == $only ]] && pyfiles+=("$f")
	done
	[ ${#pyfiles[@]} -eq 0 ] && python=0
	if [ $# -eq 0 ] && [ "$python" -eq 0 ]; then
		echo "run_all.sh: no test suite matches '$only' (C: $(cd build/san/tests 2>/dev/null && \
			ls | sed 's/^test_//' | tr '\n' ' '); Python: tests/python/test_*.py)" >&2
		exit 2
	fi
fi
P=0 F=0 S=0 T=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# everything below goes to the terminal and into the document the
# kernel's parser reads at the end
exec 3>&1
exec > >(tee "$tmp/doc" >&3)
tee_pid=$!
echo "KTAP version 1"
echo "1..$(($# + python))"
k=0
for t in "$@"; do
	k=$((k + 1))
	name=$(basename "$t")
	name=${name#test_}
	"$t" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sum=$(sed -n 's/^# [A-Za-z0-9_]*: pass:\([0-9]*\) fail:\([0-9]*\) skip:\([0-9]*\) total:\([0-9]*\)$/\1 \2 \3 \4/p' \
		"$tmp/out" | tail -1)
	if [ -z "$sum" ]; then
		# it died before its summary: what it said, then the verdict
		echo "    KTAP version 1"
		echo "    # Subtest: $name"
		sed -e '/^KTAP version 1$/d' -e '/^1\.\.1$/d' -e 's/^/    # /' "$tmp/out" "$tmp/err" | tail -40
		echo "# $name: pass:0 fail:1 skip:0 total:1"
		echo "not ok $k $name # crashed or printed no summary (exit $rc)"
		F=$((F + 1))
		T=$((T + 1))
		continue
	fi
	read -r p f s tot <<<"$sum"
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1 && tot=$((tot + 1))
	awk -v k="$k" -v err="$tmp/err" '
		NR <= 2 && ($0 == "KTAP version 1" || $0 == "1..1") { next }
		/^# Totals: / { next }
		/^[0-9]+ passed, [0-9]+ failed/ { next }
		/^# [A-Za-z0-9_]+: pass:/ {
			while ((getline line < err) > 0)
				print "    # " line
			print
			next
		}
		/^(not )?ok 1 / {
			sub(/ok 1 /, "ok " k " ")
			print
			next
		}
		{ print }' "$tmp/out"
	P=$((P + p))
	F=$((F + f))
	S=$((S + s))
	T=$((T + tot))
done
if [ "$python" -eq 1 ]; then
	k=$((k + 1))
	if command -v python3 >/dev/null && python3 -c 'import pytest' 2>/dev/null; then
		mkdir -p build
		rm -f build/pytest.xml
		python3 -m pytest -q -p no:cacheprovider --junitxml=build/pytest.xml \
			"${pymark[@]+"${pymark[@]}"}" "${pyfiles[@]}" \
			>build/pytest.log 2>&1
		python3 tests/pytest_ktap.py build/pytest.xml "$k" build/pytest.log >"$tmp/py"
		cat "$tmp/py"
		read -r p f s tot <<<"$(sed -n 's/^# python: pass:\([0-9]*\) fail:\([0-9]*\) skip:\([0-9]*\) total:\([0-9]*\)$/\1 \2 \3 \4/p' "$tmp/py")"
	else
		echo "# python: pass:0 fail:1 skip:0 total:1"
		echo "not ok $k python # pytest is not installed"
		p=0 f=1 s=0 tot=1
	fi
	P=$((P + p))
	F=$((F + f))
	S=$((S + s))
	T=$((T + tot))
fi
echo "# Totals: pass:$P fail:$F skip:$S total:$T"
# the kernel's own KTAP parser must read all of it (a fetched tree brings it)
exec >&3 3>&-
wait "$tee_pid" # the document is whole once tee has seen its end
if command -v python3 >/dev/null; then
	python3 tests/kunit_check.py "$tmp/doc" build/kernels/linux-* || F=$((F + 1))
fi
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
