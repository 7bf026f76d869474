/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The words of `trace` (docs/cli.md), checked alike by the switch (control/cli/trace.c) and
 * by railctl, which refuses bad ones with the usage before it sends anything. No DPDK here.
 */

#ifndef RSW_TRACE_ARGS_H
#define RSW_TRACE_ARGS_H

#include <stddef.h>

#define RSW_TRACE_USAGE         "start [--port PORT] [--count N] | stop | clear | show"
#define RSW_TRACE_COUNT_DEFAULT 50
#define RSW_TRACE_COUNT_MAX     1024

/* `trace start`'s arguments. */
struct rsw_trace_req {
	const char *port; /* NULL: any port */
	unsigned int count;
};

/**
 * Parse the arguments of `trace start` (argv: after "start"). @return 0, or -EINVAL with a
 * message in err.
 */
int rsw_trace_parse_start(int argc, char **argv, struct rsw_trace_req *q, char *err, size_t errlen);

/**
 * Check the words after `trace` (a sub-command and its arguments). @return 0, or -EINVAL with
 * a message in err.
 */
int rsw_trace_check(int argc, char **argv, char *err, size_t errlen);

#endif /* RSW_TRACE_ARGS_H */
