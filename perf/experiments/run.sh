#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# The fabric's lessons as experiments (docs/experiments.md).
#   perf/experiments/run.sh --list
#   perf/experiments/run.sh NAME|all [--smoke] [--out DIR] [--runs N]
# Builds railsw and rswhost if needed, installs missing Debian packages, and runs
# under /tmp/railsw-experiments.lock (one experiment at a time on a machine). Must
# run as root (memif sockets in /run, EAL).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3

case " $* " in
*" --list "* | *" -h "* | *" --help "*)
	exec "$PY" "$root/perf/experiments/experiments.py" "$@"
	;;
esac
if [ "$(id -u)" -ne 0 ]; then
	echo "experiments: run as root (memif sockets, EAL)" >&2
	exit 1
fi
missing=""
"$PY" -c 'import matplotlib' 2>/dev/null || missing="$missing python3-matplotlib"
command -v meson >/dev/null || missing="$missing meson"
command -v iperf3 >/dev/null || missing="$missing iperf3"
command -v ninja >/dev/null || missing="$missing ninja-build"
pkg-config --exists libdpdk 2>/dev/null || missing="$missing libdpdk-dev"
pkg-config --exists jansson 2>/dev/null || missing="$missing libjansson-dev"
if [ -n "$missing" ]; then
	echo "experiments: installing$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null
fi
build=${RAILSW_BUILD:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
	nice "$root/devtools/build.sh" "$build" >/dev/null
fi
nice ninja -C "$build" control/railsw control/railctl perf/hosts/rswhost >/dev/null
# One experiment at a time on a machine: they share memif socket and file-prefix names.
exec flock -w 900 /tmp/railsw-experiments.lock "$PY" "$root/perf/experiments/experiments.py" \
	--build "$build" "$@"
