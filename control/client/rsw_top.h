/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `railctl top`: railctl's live view of a running switch (docs/cli.md). Rates are the
 * differences of two reads of the socket's `show ports`, `show queues`, `show pfc`,
 * `show drops` and `show workers`, divided by the time between the reads: the same counters
 * as every other view, never a second code path.
 */

#ifndef RSW_TOP_H
#define RSW_TOP_H

#include <jansson.h>
#include <stdbool.h>

/**
 * Run `top [--interval S] [--count N] [-s SOCKET] [--json]`: argv[0] is "top". Prints a frame
 * every interval (redrawn in place on a terminal), count frames then exit (0: until killed).
 * With json, each frame is one JSON line (see rsw_top_frame()).
 * @return the exit status: 0, 1 when the switch answered an error, 2 on usage errors or when
 * the socket is unreachable.
 */
int rsw_top_main(const char *sock, bool json, int argc, char **argv);

/**
 * One frame of rates from two reads a (earlier) and b of the switch, each an object
 * {"ports": show ports reply, "queues": ..., "pfc": ..., "drops": ..., "workers": ...},
 * seconds apart:
 * {"interval_s", "ports": [{"name", "link_state", "rx_pps", "tx_pps", "rx_bps", "tx_bps",
 * "drop_pps"}], "drops": [{"reason", "pps"}], "queues": [{"port", "tc", "depth_bytes",
 * "ecn_marked_ps", "trimmed_ps", "dropped_ps", "paused_ms_per_s"}], "workers": [{"worker",
 * "lcore", "rx_pps", "tx_pps", "handed_off_ps", "busy_pct"}]} (busy_pct: of the loops the
 * worker turned in the interval, those that found work). A counter that went
 * backwards (clear counters) counts from zero.
 * @return a new reference, or NULL when out of memory.
 */
json_t *rsw_top_frame(json_t *a, json_t *b, double seconds);

#endif /* RSW_TOP_H */
