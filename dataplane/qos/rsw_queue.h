/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 8 of the packet path (DESIGN.md §3): the burst's admitted frames,
 * staged per (egress port, TC) slot, go to the PMD at once when the port is
 * idle (cut-through), or into the egress rings for the scheduler (sched.c).
 */

#ifndef RSW_QUEUE_H
#define RSW_QUEUE_H

#include <stdint.h>

#include "rsw_burst.h"
#include "rsw_fib.h"
#include "rsw_qos.h"

/* Frames of queue (p, tc) sent cut-through: counted enqueued and dequeued at once. */
static inline void
rsw_count_cut_through(struct rsw_lcore_stats *st, uint16_t p, uint8_t tc, uint32_t packets,
		      uint64_t bytes)
{
	uint64_t *q = st->qos.q[p][tc];

	q[RSW_QC_enqueued_packets] += packets;
	q[RSW_QC_enqueued_bytes] += bytes;
	q[RSW_QC_dequeued_packets] += packets;
	q[RSW_QC_dequeued_bytes] += bytes;
}

/**
 * Step 8, cut-through: a queue of an idle port this lcore owns sends its slot straight to the
 * PMD, as an ASIC sends a packet that finds its queue empty and the port free: counted
 * enqueued and dequeued, never in the buffer. Not when its TC is paused, when the shaper lacks
 * the tokens, or when ECN at dequeue could mark (more bytes than kmin behind the first).
 * Frames the PMD does not take wait in the scheduler's pending list, as its own do.
 */
void rsw_queue_cut_through(struct rsw_burst *c, struct rsw_lcore_stats *st,
			   const struct rsw_qos_params *qp);

/**
 * Step 8: account the admitted bytes (before the frames become visible to the owner, so its
 * release never runs ahead), then one bulk enqueue per queue; a full ring gives back its
 * share.
 */
void rsw_queue_slots(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		     uint16_t in_port);

#endif /* RSW_QUEUE_H */
