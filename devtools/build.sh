#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# Configure (or reconfigure) and build railsw.
#
#   devtools/build.sh [BUILDDIR [meson setup args...]]
#
# BUILDDIR defaults to "build" under the repository root. Extra arguments go to
# `meson setup` (e.g. -Dwerror=true --warnlevel=2, -Db_sanitize=address,undefined).
# An existing build directory is reconfigured with the same arguments.

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

builddir=${1:-build}
[ $# -gt 0 ] && shift

if [ -f "$builddir/meson-private/coredata.dat" ]; then
	# Reconfigure in place; wipe and start over if the old setup is unusable.
	meson setup --reconfigure "$builddir" "$@" || meson setup --wipe "$builddir" "$@"
else
	meson setup "$builddir" "$@"
fi
ninja -C "$builddir"
