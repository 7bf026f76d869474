/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The express path (express.c): a burst-level fast case of the general path in
 * worker.c. Issue 18 folds it into the one pipeline; until then it lives in its
 * own file, apart from the loop.
 */

#ifndef RSW_EXPRESS_H
#define RSW_EXPRESS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_fib.h"
#include "rsw_stats.h"

/**
 * The express path: the case that dominates a fabric, decided per burst (DESIGN.md §3). A frame
 * that rsw_parse_express4/6 takes (untagged IP to the port's MAC, TTL above 1, not a CNP),
 * routed by a plain route (one next hop, up, resolved, within the egress MTU), or to a host of a
 * connected subnet through its adjacency (resolved, within the egress MTU), to a port this
 * lcore owns that is idle, not paused, not under a watchdog drop and has the shaper's tokens
 * for the whole burst, goes straight to the PMD: no parse record, no (port, TC) slot, no
 * admission per frame. Admission is decided once per burst: the candidates' bytes of each TC
 * fit below the lossy queue limit, the TC's trim threshold and kmin (express_bytes[]), and in
 * the room of the TC's ingress PG if lossless; all of them fit in the shared buffer (a queue
 * (port, TC) gets at most its TC's bytes). The general path would then have admitted each
 * frame and sent it cut-through: the counters are the ones it keeps. Every other frame of the
 * burst follows through the general path (worker.c), in arrival order; when the burst check
 * fails, the whole burst does, and so do the port's next RSW_EXPRESS_BACKOFF bursts.
 *
 * @return the burst indices (bits) of the frames left for the general path: 0 when it took
 *   every frame, all n when it took none.
 */
uint32_t rsw_express_burst(struct rsw_lcore_stats *st, const struct rsw_tables *t, uint16_t in_port,
			   struct rte_mbuf **pkts, uint16_t n, uint64_t now);

#endif /* RSW_EXPRESS_H */
