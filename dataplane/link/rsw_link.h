/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The link layer in the pipeline (docs/link.md "Integration"): per port, an LLR machine
 * (rsw_llr.h) and injected faults (rsw_impair.h), each a pointer that is NULL where the
 * port has neither. The worker calls three steps, each a NULL test on ports without:
 *
 * - rsw_link_rx right after rte_eth_rx_burst (LLR: control frames consumed, bad,
 *   duplicate and out-of-sequence frames dropped, the shim stripped);
 * - rsw_link_tx at the port's transmit call (rsw_port_tx): the LLR step, then the
 *   impairments, then the PMD; rsw_link_tx_cap caps what the scheduler dequeues;
 * - rsw_link_poll once per loop per owned port: LLR control frames and replays first,
 *   ahead of the egress queues, and the impairments' delay line.
 *
 * Counters: the machines' own (l->ctr, im->ctr) are mirrored into the port counters of the
 * lcore (RSW_PC_impair_*, RSW_PC_llr_*) right after each step, so `show ports` and
 * `show drops` see them and `clear counters` works on them.
 *
 * Memory accounting: a sequenced frame's bytes are charged again to its ingress PG and the
 * shared buffer when it enters the replay ring (the scheduler released them at dequeue) and
 * released when the peer acknowledges it or FLUSH empties the ring: PFC sees a stalled link.
 *
 * Thread-safety: rsw_links[p] is written by the control thread. llr is set before the
 * workers start and cleared after they stop; im is replaced at run time (`port NAME
 * impair`, reload) by an atomic store, and the old one freed after an RCU grace period of
 * rsw_fib_main.qsbr. Everything else is the owner lcore's (the port's only transmitter,
 * which also polls an LLR port's only rx queue).
 */

#ifndef RSW_LINK_H
#define RSW_LINK_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "rsw_cbfc.h"
#include "rsw_impair.h"
#include "rsw_llr.h"
#include "rsw_stats.h"

#define RSW_LINK_HELD_MAX 64 /* frames the LLR step could not send at once */

/* An LLR port: the machine and what its owner keeps beside it. */
struct rsw_link_llr {
	struct rsw_llr *l;
	uint16_t port;                   /* port index */
	uint16_t n_held;                 /* frames held (window full), sent before new ones */
	uint64_t peak;                   /* most frames in the replay ring (`show llr`) */
	uint64_t synced[RSW_N_LLR_CTRS]; /* l->ctr already added to the port counters */
	struct rte_mbuf *held[RSW_LINK_HELD_MAX];
};

/* A port with impairments; replaced whole by the control thread. */
struct rsw_link_impair {
	uint64_t synced[RSW_N_IMPAIR_CTRS]; /* im.ctr already added to the port counters */
	struct rsw_impair im;
};

/* A CBFC port: the machine and what its owner keeps beside it (port_cbfc.c). */
struct rsw_link_cbfc {
	struct rsw_cbfc c;
	uint16_t port; /* port index */
};

struct rsw_link_port {
	struct rsw_link_llr *llr;   /* NULL: no LLR */
	struct rsw_link_impair *im; /* NULL: no impairments */
	struct rsw_link_cbfc *cbfc; /* NULL: no CBFC (set before the workers start) */
};

extern struct rsw_link_port rsw_links[RSW_MAX_PORTS];

/** Nanoseconds of the TSC (the LLR machines' clock). */
uint64_t rsw_link_now_ns(void);

/**
 * Set the clock conversion (tsc_hz) once at start-up, before any LLR port is created.
 */
void rsw_link_clock_init(uint64_t tsc_hz);

/**
 * The LLR release callback (arg: struct rsw_link_llr): the PG and shared-buffer bytes
 * the frames were charged, then rte_pktmbuf_free_bulk.
 */
void rsw_link_llr_release(void *arg, void **h, unsigned int n);

/**
 * The LLR charge callback (l->charge): a frame just sequenced counts in its ingress PG and
 * the shared buffer until rsw_link_llr_release.
 */
void rsw_link_llr_charge(void *arg, struct rte_mbuf *m);

/* The slow halves of the steps (port_link.c). */
uint16_t rsw_link_rx_slow(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **pkts,
			  uint16_t n);
void rsw_link_tx_slow(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **pkts, uint16_t n,
		      uint32_t orig);

/** Whether m was made by the switch (RSW_MF_ORIG): rsw_impair.is_orig of the ports. */
int rsw_link_is_orig(const struct rte_mbuf *m);
uint16_t rsw_link_poll_slow(struct rsw_lcore_stats *st, uint16_t p);
uint16_t rsw_link_tx_cap_slow(uint16_t p);

/** Whether port p has LLR or impairments (rsw_port_tx hands it to rsw_link_tx). */
static inline int
rsw_link_active(uint16_t p)
{
	const struct rsw_link_port *lp = &rsw_links[p];

	return lp->llr != NULL || __atomic_load_n(&lp->im, __ATOMIC_RELAXED) != NULL;
}

/** Whether port p runs LLR: its frames are never sent cut-through (rsw_port_idle). */
static inline int
rsw_link_has_llr(uint16_t p)
{
	return rsw_links[p].llr != NULL;
}

/**
 * The receive step: call right after rte_eth_rx_burst on port p.
 * @return the frames left for the pipeline, compacted at the front of pkts.
 */
static inline uint16_t
rsw_link_rx(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **pkts, uint16_t n)
{
	if (likely(rsw_links[p].llr == NULL && rsw_links[p].cbfc == NULL) || n == 0)
		return n;
	return rsw_link_rx_slow(st, p, pkts, n);
}

/**
 * The transmit step of frames the scheduler dequeued for port p (owner only): LLR,
 * impairments, then the PMD; frames the PMD refuses join the port's pending list.
 * Counts tx_packets and tx_bytes of what the PMD took, and `forwarded` (rsw_stats.h totals)
 * of those the switch did not make. orig: bit i, pkts[i] was made by the switch.
 */
static inline void
rsw_link_tx(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **pkts, uint16_t n,
	    uint32_t orig)
{
	rsw_link_tx_slow(st, p, pkts, n, orig);
}

/**
 * Send one frame the port itself made (PFC) through the impairments (not LLR: never
 * sequenced). @return 1 when taken (sent, lost or delayed), 0 when the PMD refused it
 * (the frame is still the caller's).
 */
uint16_t rsw_link_tx1(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf *m);

/** How many frames the scheduler may dequeue for port p now (32 without LLR). */
static inline uint16_t
rsw_link_tx_cap(uint16_t p)
{
	if (likely(rsw_links[p].llr == NULL))
		return 32;
	return rsw_link_tx_cap_slow(p);
}

/**
 * Once per loop per port the worker owns: LLR control frames and replays, the
 * impairments' delay line. @return frames sent (work done).
 */
static inline uint16_t
rsw_link_poll(struct rsw_lcore_stats *st, uint16_t p)
{
	const struct rsw_link_port *lp = &rsw_links[p];

	if (likely(lp->llr == NULL && lp->cbfc == NULL &&
		   __atomic_load_n(&lp->im, __ATOMIC_RELAXED) == NULL))
		return 0;
	return rsw_link_poll_slow(st, p);
}

/* The CBFC steps of port_cbfc.c (rsw_link_rx_slow and rsw_link_poll_slow call them). */
uint16_t rsw_link_cbfc_rx(struct rsw_lcore_stats *st, struct rsw_link_cbfc *lc,
			  struct rte_mbuf **pkts, uint16_t n);
uint16_t rsw_link_cbfc_poll(struct rsw_lcore_stats *st, struct rsw_link_cbfc *lc, int may_report);
int rsw_link_cbfc_take_slow(struct rsw_link_cbfc *lc, uint8_t tc, uint32_t len);

/**
 * The scheduler's credit gate (docs/link.md "Credit-based flow control"): whether the head
 * frame (len bytes) of TC tc of port p may be sent now; when it may, its credits are spent,
 * so call it only for a frame that is then handed to the port. A TC refused is treated as
 * paused until credit returns. 1 on every port without CBFC.
 */
static inline int
rsw_link_credit_take(uint16_t p, uint8_t tc, uint32_t len)
{
	struct rsw_link_cbfc *lc = rsw_links[p].cbfc;

	if (likely(lc == NULL))
		return 1;
	return rsw_link_cbfc_take_slow(lc, tc, len);
}

/**
 * Whether PFC generation must leave the ingress PG tc of port p alone (as if empty): the
 * peer sends that VC against credits, or the port's CBFC fallback is none.
 */
static inline int
rsw_link_pfc_off(uint16_t p, uint8_t tc)
{
	const struct rsw_link_cbfc *lc = rsw_links[p].cbfc;

	return lc != NULL && rsw_cbfc_rx_no_pfc(&lc->c, tc);
}

#endif /* RSW_LINK_H */
