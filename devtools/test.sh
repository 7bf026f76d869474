#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# README command 2 (and what .ci/run runs): install the dependencies, then
#   1. build `build` with -Dwerror=true --warnlevel=2 and run the unit tests;
#   2. build `build-asan` with ASan+UBSan and run the unit tests again;
#   3. devtools/lint.sh;
#   4. the libFuzzer targets, 30 s each (fuzz/run.sh 30: clang, ASan+UBSan, `build-fuzz`);
#   5. the packet tests (pytest + Scapy, root) against `build`;
#   6. the benchmark harness in smoke mode (perf/run.sh --smoke), its instruction
#      counter (perf/run.sh --callgrind) on one scenario, and its A/B mode (--ab) for a
#      round;
#   7. the fabric experiments in smoke mode (perf/experiments/run.sh all --smoke).
# Every step runs even if an earlier one failed (unless its build failed);
# a summary is printed at the end and the exit status is non-zero if any
# step failed. Must run as root.
#
# Environment: RAILSW_TEST_SKIP_ASAN=1 skips step 2 (quick local runs);
# RAILSW_TEST_FUZZ_SECONDS sets the time per fuzz target (default 30; 0 skips step 4);
# PYTEST_ARGS adds arguments to pytest (e.g. "-k forward").

set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ "$(id -u)" -ne 0 ]; then
	echo "test: run as root (sudo $0): the packet tests create TAP devices and namespaces" >&2
	exit 1
fi

PY=/usr/bin/python3   # Debian's python, where python3-scapy and python3-pytest live
start=$(date +%s)
results=()
failed=0

step() { # name command...
	local name=$1 t0 rc
	shift
	printf '\n==== %s\n' "$name"
	t0=$(date +%s)
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		results+=("PASS  $name ($(($(date +%s) - t0)) s)")
	else
		results+=("FAIL  $name (exit $rc, $(($(date +%s) - t0)) s)")
		failed=$((failed + 1))
	fi
	return $rc
}

unit() { # builddir
	meson test -C "$1" --suite unit --print-errorlogs --num-processes 2
}

unit_asan() { # builddir
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:print_summary=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C "$1" --suite unit --print-errorlogs --num-processes 2
}

pkt() {
	local rc
	# shellcheck disable=SC2086
	# Every wait inside the tests is bounded; this bounds the whole run too.
	RAILSW_BUILD=build timeout --kill-after=30 1200 \
		"$PY" -m pytest -v -p no:cacheprovider pkt-tests ${PYTEST_ARGS:-}
	rc=$?
	if [ $rc -eq 124 ]; then
		echo "test: the packet tests did not finish within 20 minutes" >&2
	fi
	if [ $rc -eq 5 ]; then
		echo "test: pytest collected no tests: that is a failure" >&2
	fi
	return $rc
}

step "install dependencies" devtools/install-deps.sh || {
	echo "test: cannot continue without the dependencies" >&2
	exit 1
}

if step "build (werror)" devtools/build.sh build -Dwerror=true --warnlevel=2; then
	step "unit tests" unit build
	built=1
else
	built=0
fi

if [ "${RAILSW_TEST_SKIP_ASAN:-0}" != 1 ]; then
	if step "build (asan+ubsan)" devtools/build.sh build-asan -Dwerror=true --warnlevel=2 \
		-Db_sanitize=address,undefined -Db_lundef=false; then
		step "unit tests (asan+ubsan)" unit_asan build-asan
	fi
fi

step "lint" devtools/lint.sh

fuzz_secs=${RAILSW_TEST_FUZZ_SECONDS:-30}
if [ "$fuzz_secs" != 0 ]; then
	step "fuzz ($fuzz_secs s per target)" fuzz/run.sh "$fuzz_secs"
fi

if [ $built -eq 1 ]; then
	step "packet tests" pkt
	# The benchmark harness in smoke mode: packets flowed and the table printed (no timing).
	step "perf smoke" env RAILSW_BUILD=build perf/run.sh --smoke --no-build --build-dir build
	# Its instruction counter: railsw under callgrind forwarded and was counted (~30 s).
	step "perf callgrind smoke" perf/run.sh --callgrind 3 --sizes 64 --scenarios ipv4-lpm-1k \
		--no-build --build-dir build
	# Its A/B mode: one round of the build against itself (~15 s).
	step "perf A/B smoke" perf/run.sh --ab build,build --rounds 1 --sizes 64 \
		--scenarios ipv4-lpm-1k --peers testpmd --huge no --warmup 0.5 --window 1.5 --no-build
	# The fabric experiments in smoke mode (docs/experiments.md): reacting hosts through
	# railsw fabrics; each asserts the direction of its effect and that the hosts' and the
	# switches' counters agree; each calibrates its lab first. Bounded at 15 minutes (the
	# experiments' lock may be held by another run; docs/experiments.md gives each smoke's time).
	step "experiments smoke" env RAILSW_BUILD="$root/build" timeout --kill-after=30 900 \
		perf/experiments/run.sh all --smoke --out "$root/build/experiments-smoke"
else
	results+=("FAIL  packet tests (not run: the build failed)")
	failed=$((failed + 1))
fi

printf '\n==== summary (%d s)\n' "$(($(date +%s) - start))"
printf '%s\n' "${results[@]}"
echo "steps: $((${#results[@]} - failed)) passed, $failed failed"
[ $failed -eq 0 ]
