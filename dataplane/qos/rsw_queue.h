/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 9-10 of the packet path (docs/architecture.md): resolve stages each frame on
 * its egress port (rsw_stage); a port admitted whole (rsw_mmu_admit_burst)
 * sends its staged frames to the PMD at once (rsw_queue_tx_staged); frames
 * admitted one by one wait in (egress port, TC) slots and go cut-through when
 * their (port, TC) may send now (rsw_send_now_port), or into the egress rings
 * for the scheduler (sched.c).
 */

#ifndef RSW_QUEUE_H
#define RSW_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rsw_burst.h"
#include "rsw_fib.h"
#include "rsw_link.h"
#include "rsw_pfc.h"
#include "rsw_qos_state.h"
#include "rsw_sched.h"
#include "rsw_shaper.h"

/**
 * The tx queue on which this lcore sends straight to port p: 0 for the port's owner, the
 * lcore's own queue (rsw_txq) for another worker of a port with a tx queue per worker, or -1:
 * it has none (a PMD with fewer tx queues, a port with LLR, or impairments configured or being
 * set: one sender, rsw_port_set_one_sender), and its frames queue for the owner.
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
	if (q == 0 || unlikely(__atomic_load_n(&rsw_dp.ports[p].one_sender, __ATOMIC_RELAXED) ||
			       rsw_link_active(p)))
		return -1;
	return q;
}

/* What the send-now decision found for one port of a burst (rsw_send_now_port). */
struct rsw_send_now {
	int q;          /* this lcore's tx queue of the port (rsw_direct_txq) */
	uint8_t open;   /* bit t: frames of TC t may go straight now, given the shaper's tokens */
	bool shaped;    /* the port has a shaper (rsw_send_now_take takes its tokens) */
	uint64_t ahead; /* bytes queued on TCs not paused: the shaper's tokens go to them first */
};

/**
 * Step 9, the send-now decision for port p at now, its part once per (burst, port): which TCs'
 * frames this lcore may send straight on its own tx queue (sn->open). None when it has no tx
 * queue of the port (rsw_direct_txq), the port runs LLR, or the port holds frames of the
 * control thread or frames the PMD refused (any TC: the whole port waits). Otherwise every TC
 * but those with bytes queued (a flow stays in one TC: it never overtakes its own frames), those
 * paused by PFC or under a watchdog drop and, for a worker that is not the owner, those the
 * owner sent from its queues less than their hold ago (hold_until: tx queue 0 may still hold
 * them on the NIC). @return false when no TC is open.
 */
static inline bool
rsw_send_now_port(uint16_t p, uint64_t now, struct rsw_send_now *sn)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t b, ahead = 0, storm;
	uint8_t busy = 0, closed;
	int tc;

	sn->q = rsw_direct_txq(p);
	if (sn->q < 0 || unlikely(qport->llr))
		return false;
	closed = rsw_paused_mask(qport, now);
	/* The queues' bytes first (acquire): their release follows the pending list's publication
	 * and the hold (sched.c). The common case, nothing queued, in one pass. */
	for (tc = 0; tc < RSW_N_TC; tc++)
		ahead |= __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_ACQUIRE);
	if (unlikely(ahead != 0)) {
		ahead = 0;
		for (tc = 0; tc < RSW_N_TC; tc++) {
			b = __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_ACQUIRE);
			busy |= (uint8_t)((b != 0) << tc);
			ahead += (closed & (1u << tc)) ? 0 : b;
		}
	}
	if (unlikely((__atomic_load_n(&qport->ctl_frames, __ATOMIC_ACQUIRE) |
		      __atomic_load_n(&qport->tx_pending, __ATOMIC_ACQUIRE)) != 0))
		return false;
	closed |= busy;
	memcpy(&storm, qport->storm_drop, sizeof(storm));
	if (unlikely(storm != 0))
		for (tc = 0; tc < RSW_N_TC; tc++)
			closed |= (uint8_t)((qport->storm_drop[tc] != 0) << tc);
	if (sn->q != 0 && __atomic_load_n(&qport->hold_max, __ATOMIC_RELAXED) > now)
		for (tc = 0; tc < RSW_N_TC; tc++)
			closed |= (uint8_t)((__atomic_load_n(&qport->hold_until[tc],
							     __ATOMIC_RELAXED) > now)
					    << tc);
	sn->open = (uint8_t)~closed;
	sn->ahead = ahead;
	sn->shaped = rsw_shaper_on(p, now);
	return sn->open != 0;
}

/**
 * The send-now decision's last part, per send: the shaper's tokens for wire bytes, behind what
 * the port has queued (rsw_shaper_take_behind: one compare-and-swap). Refused at now, the
 * tokens are asked for once more at the present clock: now is the burst's, read before its
 * frames were resolved, and an lcore descheduled since (a CPU shared with other threads) comes
 * back with a clock older than the bucket's depth, behind the tokens other senders have taken
 * at theirs; judged at that clock, a port far below its rate would look out of tokens and its
 * frames would queue. @return whether taken (always, unshaped).
 */
static inline bool
rsw_send_now_take(uint16_t p, const struct rsw_send_now *sn, uint64_t now, uint64_t wire)
{
	if (!sn->shaped || likely(rsw_shaper_take_behind(p, now, wire, sn->ahead)))
		return true;
	return rsw_shaper_take_behind(p, rte_rdtsc(), wire, sn->ahead);
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
 * Step 9, the send-now decision for a port whose staged frames are admitted whole: whether staged
 * port p may take them straight to the PMD now: cut-through on, every staged TC open
 * (rsw_send_now_port) and the shaper's tokens for all of them, which it takes (shared by the
 * port's senders: one compare-and-swap).
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
 * Step 8, cut-through: a slot of a (port, TC) this lcore may send to now (rsw_send_now_port)
 * goes straight to the PMD, as an ASIC sends a packet that finds its queue empty and the port
 * free: counted enqueued and dequeued, never in the buffer. Not when the shaper lacks the tokens
 * (rsw_send_now_take, one compare-and-swap per slot), or when ECN at dequeue could mark (more
 * bytes than kmin behind the first). Frames the PMD does not take wait in the scheduler's
 * pending list (the owner), or go back into their slot (another worker), queued.
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
