#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# Stress `port m0 down` / `up` on a memif link between two railsw under flood pings
# (pkt-tests/test_memif_flap.py, long form). Root; takes /tmp/railsw-net.lock.
#
#   devtools/memif-flap.sh [TOGGLES [BUILDDIR]]
#
# TOGGLES defaults to 500, BUILDDIR to build. RAILSW_MEMIF_FLAP_SEED fixes the random
# sequence; RAILSW_MEMIF_FLAP_HOG=1 adds a busy loop on every CPU. A switch that
# crashes leaves a core file in a scratch directory, which is printed with a backtrace
# of the crashing thread when gdb is installed.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
toggles=${1:-500}
build=${2:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
cores=$(mktemp -d /tmp/railsw-memif-flap.XXXXXX)
hogs=()
cleanup() {
	for h in "${hogs[@]}"; do kill "$h" 2>/dev/null || true; done
}
trap cleanup EXIT
if [ "${RAILSW_MEMIF_FLAP_HOG:-0}" = 1 ]; then
	for _ in $(seq "$(nproc)"); do
		nice -n 5 sh -c 'while :; do :; done' &
		hogs+=($!)
	done
fi
ulimit -c unlimited
rc=0
(cd "$cores" && RAILSW_BUILD=$build RAILSW_MEMIF_FLAPS=$toggles \
	timeout 300 flock /tmp/railsw-net.lock /usr/bin/python3 -m pytest -q -s \
	-p no:cacheprovider --rootdir "$root" "$root/pkt-tests/test_memif_flap.py") || rc=$?
for core in "$cores"/core*; do
	[ -e "$core" ] || continue
	echo "memif-flap: core file $core"
	if command -v gdb >/dev/null; then
		gdb -batch -ex bt "$build/control/railsw" "$core" 2>/dev/null | tail -30
	fi
done
exit $rc
