#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# Build the libFuzzer targets (clang, ASan + UBSan) and run each for SECONDS
# (default 60) from its committed seed corpus. The corpus is copied to a
# temporary directory first, so a run never grows fuzz/corpus/. Exits non-zero
# if any target finds a crash, a leak, a sanitizer report or a timeout; the
# reproducer is kept in the artifact directory printed at the end.
#
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
# Environment: FUZZ_BUILD (build directory, default build-fuzz), FUZZ_ARGS
# (more libFuzzer arguments, e.g. "-jobs=4 -workers=4"), FUZZ_ARTIFACTS
# (where crashes go, default a temporary directory). Long runs: docs/reliability.md.

set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_packet fuzz_config fuzz_cmd fuzz_llr fuzz_cbfc fuzz_fpm)
build=${FUZZ_BUILD:-build-fuzz}

if ! command -v clang >/dev/null; then
	echo "fuzz: clang is not installed (devtools/install-deps.sh)" >&2
	exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dtests=disabled >"/tmp/fuzz-setup.$$.log" 2>&1 || {
		cat "/tmp/fuzz-setup.$$.log" >&2
		echo "fuzz: meson setup $build failed" >&2
		exit 1
	}
	rm -f "/tmp/fuzz-setup.$$.log"
fi
ninja -C "$build" "${targets[@]/#/fuzz/}" || {
	echo "fuzz: build failed" >&2
	exit 1
}

work=$(mktemp -d /tmp/railsw-fuzz.XXXXXX)
artifacts=${FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:print_summary=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
for t in "${targets[@]}"; do
	corpus=$work/corpus-$t
	mkdir -p "$corpus"
	cp -r "fuzz/corpus/$t/." "$corpus/"
	echo "==== $t: $secs s from $(find "$corpus" -type f | wc -l) seeds"
	# shellcheck disable=SC2086
	"$build/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix="$artifacts/$t-" ${FUZZ_ARGS:-} \
		"$corpus" >"$work/$t.log" 2>&1
	rc=$?
	grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$t.log"
	if [ $rc -ne 0 ] || grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:' \
		"$work/$t.log"; then
		tail -n 60 "$work/$t.log" >&2
		echo "fuzz: $t FAILED (exit $rc); log $work/$t.log, reproducer in $artifacts" >&2
		failed=$((failed + 1))
	else
		echo "fuzz: $t ok ($(find "$corpus" -type f | wc -l) inputs in the corpus now)"
	fi
done

if [ $failed -eq 0 ]; then
	rm -rf "$work"
	exit 0
fi
echo "fuzz: $failed target(s) failed; kept $work" >&2
exit 1
