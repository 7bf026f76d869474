#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# railsw benchmark: builds what it needs and prints the table (see docs/perf.md).
#   perf/run.sh                 full run (hugepages when the machine allows)
#   perf/run.sh --workers 1,2,4 one rx queue per worker per port; rows beyond the CPUs share them
#   perf/run.sh --smoke         CI smoke: a few seconds, no hugepages, asserts packets flowed
#   perf/run.sh --help          every option
exec /usr/bin/python3 "$(dirname "$0")/bench.py" "$@"
