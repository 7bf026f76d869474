/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 9-10 of the packet path (docs/architecture.md): resolve stages each frame on
 * its egress port (rsw_stage); a port admitted whole (rsw_mmu_admit_burst)
 * sends its staged frames to the PMD at once (rsw_queue_tx_staged); frames
 * admitted one by one wait in (egress port, TC) slots and go cut-through when
 * the port is idle, or into the egress rings for the scheduler (sched.c).
 */

#ifndef RSW_QUEUE_H
#define RSW_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rsw_burst.h"
#include "rsw_fib.h"
#include "rsw_link.h"
#include "rsw_qos.h"

/**
 * The tx queue on which this lcore sends straight to port p: 0 for the port's owner, the
 * lcore's own queue (rsw_txq) for another worker of a port with a tx queue per worker, or -1:
 * it has none (a PMD with fewer tx queues, a port with LLR or impairments: one sender), and
 * its frames queue for the owner.
 */
static inline int
rsw_direct_txq(uint16_t p)
{
	unsigned int lcore = rte_lcore_id();
	uint16_t q;

	if (likely(rsw_dp.ports[p].owner == lcore))
		return 0;
	if (unlikely(lcore >= RTE_MAX_LCORE))
		return -1;
	q = rsw_txq[lcore][p];
	if (q == 0 || unlikely(rsw_link_active(p)))
		return -1;
	return q;
}

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
 * Step 8, stage: frame m (burst index idx, TC tc, len bytes) leaves by egress port out, in the
 * order staged (a CNP is not staged: resolve admits it alone).
 */
static __rte_always_inline void
rsw_stage(struct rsw_burst *c, unsigned int out, struct rte_mbuf *m, uint8_t idx, uint8_t tc,
	  uint32_t len)
{
	struct rsw_stage *sg = &c->stage;
	/* The frame's place in the rows, as one index into both (one address each). */
	uint32_t slot = out * RSW_BURST + sg->n[out]++;

	(&sg->m[0][0])[slot] = m;
	(&sg->idx[0][0])[slot] = idx;
	sg->tc[out][tc] += (uint64_t)len << 32 | 1;
}

/**
 * Clear the staging of the burst's n_ports ports (rsw_dp.n_ports): before resolve. Inline
 * stores of known sizes, not a call to memset per array.
 */
static inline void
rsw_stage_init(struct rsw_burst *c, uint16_t n_ports)
{
	uint16_t p;

	c->staged = 0;
	memset(c->stage.n, 0, sizeof(c->stage.n));
	for (p = 0; p < n_ports; p++) {
		uint64_t *w = c->stage.tc[p];

		RSW_OPAQUE(w); /* a loop GCC would make one memset call of again */
		memset(w, 0, sizeof(c->stage.tc[p]));
	}
}

/** Bytes staged on a port for the TC of count word w (struct rsw_stage.tc). */
static inline uint64_t
rsw_stage_bytes(uint64_t w)
{
	return w >> 32;
}

/**
 * The burst's staged ports (c->staged, bit p: stage.n[p] > 0), each with its TCs and bytes
 * (stage.tcs, stage.bytes), once resolve is done: one pass over the ports per burst, not a
 * store per frame.
 */
static inline void
rsw_stage_done(struct rsw_burst *c, uint16_t n_ports)
{
	struct rsw_stage *sg = &c->stage;
	uint32_t staged = 0;
	uint64_t bytes;
	uint16_t p;
	uint8_t tcs;
	unsigned int tc;

	for (p = 0; p < n_ports; p++) {
		if (sg->n[p] == 0)
			continue;
		staged |= 1u << p;
		tcs = 0;
		bytes = 0;
		for (tc = 0; tc < RSW_N_TC; tc++) {
			tcs |= (uint8_t)((sg->tc[p][tc] != 0) << tc);
			bytes += rsw_stage_bytes(sg->tc[p][tc]);
		}
		sg->tcs[p] = tcs;
		sg->bytes[p] = bytes;
	}
	c->staged = staged;
}

/**
 * Step 9, the send-now decision: whether staged port p may take its frames straight to the PMD
 * now: cut-through on, a tx queue of this lcore's on the port (rsw_direct_txq), the port idle
 * (nothing queued: nothing is overtaken), none of its staged TCs paused or under a watchdog
 * drop, and the shaper's tokens for all of them, which it takes (shared by the port's senders:
 * one compare-and-swap).
 */
bool rsw_queue_open(struct rsw_burst *c, uint16_t p);

/**
 * Step 9 for ports admitted whole (bit p of ports: rsw_mmu_admit_burst): each sends its staged
 * frames in one tx burst on this lcore's tx queue, counted enqueued and dequeued at once (as
 * cut-through; rsw_queue_open took the tokens). What the PMD refuses waits in the owner's
 * pending list (the owner), or is queued for the owner (another worker: into the burst's
 * slots). @return the frames sent.
 */
uint16_t rsw_queue_tx_staged(struct rsw_burst *c, struct rsw_lcore_stats *st, uint32_t ports);

/**
 * Step 8, cut-through: a queue of an idle port this lcore may send to (rsw_direct_txq) sends its
 * slot straight to the PMD, as an ASIC sends a packet that finds its queue empty and the port
 * free: counted enqueued and dequeued, never in the buffer. Not when its TC is paused, when the
 * shaper lacks the tokens (one compare-and-swap per slot), or when ECN at dequeue could mark
 * (more bytes than kmin behind the first). Frames the PMD does not take wait in the
 * scheduler's pending list (the owner), or go back into their slot (another worker), queued.
 */
void rsw_queue_cut_through(struct rsw_burst *c, struct rsw_lcore_stats *st,
			   const struct rsw_qos_params *qp);

/**
 * Step 8: account the admitted bytes (before the frames become visible to the owner, so its
 * release never runs ahead), then one bulk enqueue per queue; a full ring gives back its
 * share. An owner asleep is woken (rsw_wake_owners).
 */
void rsw_queue_slots(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		     uint16_t in_port);

#endif /* RSW_QUEUE_H */
