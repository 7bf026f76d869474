/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 8 of the packet path (docs/architecture.md), admission to the shared buffer:
 * the common case inline (room in the queue or the lossless PG and in the
 * buffer, nothing else to decide, checked against a room worked out once per
 * (port, TC) per burst), the full check in mmu.c. Admitted frames wait in the
 * burst's (egress port, TC) slots; the gauges are added once per slot by the
 * queue step (queue.c).
 */

#ifndef RSW_MMU_H
#define RSW_MMU_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "rsw_burst.h"
#include "rsw_pfc.h"
#include "rsw_qos_state.h"

/*
 * The admission decision (docs/qos.md §2). Its limits are defined once, here, and its two
 * entries use them: per burst (rsw_mmu_admit_burst: a port's staged frames admitted whole) and
 * per frame (rsw_mmu_admit: the common case against rooms worked out once per burst from the
 * same limits, rsw_mmu_pg_room and the burst's buf_room; the rest in rsw_mmu_admit_slow).
 */

/**
 * Bytes the shared buffer takes at used: up to total for a lossless frame or a CNP (all), up
 * to total less the reserved headroom for the others.
 */
static inline uint64_t
rsw_mmu_buf_room(const struct rsw_qos_params *qp, uint64_t used, bool all)
{
	uint64_t lim =
		all ? qp->total
		    : (qp->total > qp->headroom_reserved ? qp->total - qp->headroom_reserved : 0);

	return lim > used ? lim - used : 0;
}

/** Whether bytes more fit in the shared buffer at used (all, or less the reserved headroom). */
static inline bool
rsw_mmu_buf_fits(const struct rsw_qos_params *qp, uint64_t used, uint64_t bytes, bool all)
{
	return used + bytes + (all ? 0 : qp->headroom_reserved) <= qp->total;
}

/** The most a lossless ingress PG may hold with the buffer at used: XOFF plus headroom. */
static inline uint64_t
rsw_mmu_pg_limit(const struct rsw_qos_params *qp, uint64_t used)
{
	return rsw_pfc_xoff(qp, used) + qp->headroom;
}

/**
 * The decision for bytes of a lossless TC whose ingress PG holds pg, the buffer at used:
 * within the PG's limit taken at used_max (the fullest the buffer can be once they are in: a
 * dynamic XOFF only falls as it fills) and in the whole buffer. Never a tail drop.
 */
static inline bool
rsw_mmu_lossless_fits(const struct rsw_qos_params *qp, uint64_t pg, uint64_t used,
		      uint64_t used_max, uint64_t bytes)
{
	return pg + bytes <= rsw_mmu_pg_limit(qp, used_max) &&
	       rsw_mmu_buf_fits(qp, used, bytes, true);
}

/**
 * The decision for bytes of a lossy queue holding depth bytes, against limit (queue_limit, a
 * trim threshold, or burst_bytes[] for a group of frames that needs no further decision), the
 * buffer at used: within the limit and in the buffer less the reserved headroom.
 */
static inline bool
rsw_mmu_lossy_fits(const struct rsw_qos_params *qp, uint64_t depth, uint64_t limit, uint64_t used,
		   uint64_t bytes)
{
	return depth + bytes <= limit && rsw_mmu_buf_fits(qp, used, bytes, false);
}

/*
 * The room of the ingress PG of lossless TC tc for the burst: what it takes before XOFF plus
 * headroom, with XOFF taken at the fullest buffer the burst can leave (the shared gauge now
 * plus everything it received: a dynamic XOFF only falls as the buffer fills).
 */
static inline uint64_t
rsw_mmu_pg_room(const struct rsw_burst *c, const struct rsw_qos_params *qp, uint16_t in_port,
		uint8_t tc)
{
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED) + c->rx_bytes;
	uint64_t lim = rsw_mmu_pg_limit(qp, used);
	uint64_t pg = __atomic_load_n(&rsw_qos.port[in_port].pg_bytes[tc], __ATOMIC_RELAXED);

	return lim > pg ? lim - pg : 0;
}

/*
 * The burst's slot for queue (out, tc). Its room: bytes admitted with no more than the buffer
 * check, for a TC whose admission is a limit and the shared buffer only (not trimmed, no ECN
 * at enqueue, no watchdog drop): the queue's lossy limit, or for a lossless TC the room of its
 * ingress PG, held by the TC's first slot (the others check in full, and a full check of the
 * TC takes the room back: the PG is shared). 0 sends every frame through the full check.
 */
static inline struct rsw_out_slot *
rsw_mmu_slot(struct rsw_burst *c, const struct rsw_qos_params *qp, uint16_t in_port, uint16_t out,
	     uint8_t tc)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[out];
	uint64_t q;
	uint8_t k;
	struct rsw_out_slot *sl;

	if (unlikely(c->n_slots == 0)) {
		/* The burst's first slot: the map made now (most bursts need none). */
		memset(c->slot_of, 0xff, sizeof(c->slot_of[0]) * rsw_dp.n_ports * RSW_N_TC);
	} else {
		k = c->slot_of[out * RSW_N_TC + tc];
		if (k != 0xff)
			return &c->slots[k];
	}
	k = (uint8_t)c->n_slots++;
	c->slot_of[out * RSW_N_TC + tc] = k;
	sl = &c->slots[k];
	sl->port = out;
	sl->tc = tc;
	sl->n = 0;
	sl->bytes = 0;
	sl->room = 0;
	if ((c->fast_tcs & (1u << tc)) && !qport->storm_drop[tc]) {
		if (!(qp->lossless & (1u << tc))) {
			q = __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_RELAXED);
			sl->room = qp->queue_limit > q ? qp->queue_limit - q : 0;
		} else if (c->pg_owner[tc] == 0xff) {
			c->pg_owner[tc] = k;
			sl->room = rsw_mmu_pg_room(c, qp, in_port, tc);
		}
	}
	return sl;
}

/* Queue an admitted frame in its slot; the gauges are updated once per burst. */
static inline void
rsw_mmu_enqueue(struct rsw_burst *c, struct rsw_out_slot *sl, struct rte_mbuf *m, uint8_t idx)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);

	/* The metadata is written only if the frame is queued (enqueue_slots); the ingress PG
	 * is the slot's TC, summed per slot then. */
	sl->info[sl->n] = idx;
	sl->m[sl->n++] = m;
	sl->bytes += len;
	c->used_add += len;
}

/**
 * Step 7 (MMU), the full check: admit a rewritten frame to its slot's queue, trim it, or drop
 * it (lossless headroom, lossy tail drop, trimming, ECN at enqueue, watchdog drop). Depths are
 * the shared gauges plus what this burst already admitted.
 */
void rsw_mmu_admit_slow(struct rsw_burst *c, struct rsw_lcore_stats *st,
			const struct rsw_qos_params *qp, uint16_t in_port, struct rsw_out_slot *sl,
			struct rte_mbuf *m, uint8_t idx);

/*
 * Step 7 (MMU) for one frame of queue (out, info->tc): the common case inline (room in the
 * queue and in the buffer, nothing else to decide), the rest in admit_slow.
 */
static __rte_always_inline void
rsw_mmu_admit(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_qos_params *qp,
	      uint16_t in_port, uint16_t out, struct rte_mbuf *m, uint8_t idx)
{
	const struct rsw_pkt_info *info = &c->info[idx];
	struct rsw_out_slot *sl = rsw_mmu_slot(c, qp, in_port, out, info->tc);
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (likely(!(info->flags & RSW_PF_CNP) && sl->bytes + len <= sl->room &&
		   c->used_add + len <= c->buf_room))
		return rsw_mmu_enqueue(c, sl, m, idx);
	rsw_mmu_admit_slow(c, st, qp, in_port, sl, m, idx);
}

/**
 * Step 7 (MMU) for the frames resolve staged (c->stage), decided once per burst: when every
 * staged byte fits in the shared buffer and, for a lossless TC, in its ingress PG's room, a
 * port whose staged bytes of each TC are within burst_bytes[] (below its queue limit, trim
 * threshold and kmin) that may send now (rsw_queue_open) is
 * admitted whole: its frames never enter the buffer, no slot is made for them, and the
 * returned mask has its bit (rsw_queue_tx_staged sends them). Every other staged frame goes
 * through rsw_mmu_admit, port by port in the order staged, into the burst's slots. With
 * rsw_dp.admit_burst off (tests), every frame does.
 * @return the ports admitted whole.
 */
uint32_t rsw_mmu_admit_burst(struct rsw_burst *c, struct rsw_lcore_stats *st,
			     const struct rsw_qos_params *qp, uint16_t in_port);

#endif /* RSW_MMU_H */
