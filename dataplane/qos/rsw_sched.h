/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 10 of the packet path, the port's owner (docs/architecture.md, docs/qos.md; sched.c):
 * its scheduler state, its transmit on tx queue 0 with the pending list of frames the PMD
 * refused, the test of a port with frames queued, and the transmit of another worker on its
 * own tx queue. struct rsw_port_sched is the owner's alone; what it publishes (tx_pending,
 * hold_until) is in struct rsw_qos_port (rsw_qos_state.h).
 */

#ifndef RSW_SCHED_H
#define RSW_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_qos_state.h"

/* A port's scheduler and PFC generator state: the owner's alone. */
struct rsw_port_sched {
	int32_t deficit[RSW_N_TC];
	uint8_t dwrr_cur;   /* TC the DWRR pointer is on */
	uint8_t dwrr_fresh; /* quantum not yet added for the current visit */
	uint8_t xoff_sent;  /* bit p: XOFF in force for priority p */
	uint8_t n_pending;
	uint32_t pending_orig;         /* bit i: pending[i] was made by railsw (RSW_MF_ORIG) */
	uint64_t refresh_at[RSW_N_TC]; /* TSC to refresh XOFF */
	uint16_t head_n[RSW_N_TC];     /* frames staged per TC */
	uint16_t head_i[RSW_N_TC];
	struct rte_mbuf *head[RSW_N_TC][32];
	struct rte_mbuf *pending[32]; /* taken by the scheduler, not yet by the PMD */
	uint64_t last_pfc_gen;
	/* Tx queue 0's model (ports with other senders): the TSC by which it has sent what the
	 * owner handed it, at the port's speed (sched.c, q0_account; wire ticks per byte
	 * × 2^32, for the speed q0_speed). */
	uint64_t q0_free;
	uint64_t q0_speed;
	uint64_t q0_tpb_q32;
};

extern struct rsw_port_sched rsw_sched[RSW_MAX_PORTS];

/**
 * Whether port p has frames queued: bytes in its eight queues, frames of the control thread, or
 * frames the PMD refused (the owner's pending list). Two lines of gauges: no ring is touched.
 * Frames the scheduler staged are still in the gauges (a frame's bytes, or its control-thread
 * count, are released once the PMD has it or it waits in the pending list, which tx_pending
 * shows first), so they need no check of their own.
 */
static inline bool
rsw_port_queued(uint16_t p)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t q = 0;
	int tc;

	/* Acquire: a release seen here comes after the pending list published before it. */
	for (tc = 0; tc < RSW_N_TC; tc++)
		q |= __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_ACQUIRE);
	q |= __atomic_load_n(&qport->ctl_frames, __ATOMIC_ACQUIRE);
	q |= __atomic_load_n(&qport->tx_pending, __ATOMIC_ACQUIRE);
	return q != 0;
}

/**
 * Whether port p is idle: nothing queued (rsw_port_queued) and no LLR (an LLR port is one
 * ordered stream through its scheduler): the owner's test before its scheduler. The senders'
 * test is per (port, TC) (rsw_send_now_port, rsw_queue.h).
 */
static inline bool
rsw_port_idle(uint16_t p)
{
	return !rsw_qos.port[p].llr && !rsw_port_queued(p);
}

/** Owner only: port p's pending list changed; publish its length (rsw_port_idle reads it). */
static inline void
rsw_pending_publish(uint16_t p)
{
	__atomic_store_n(&rsw_qos.port[p].tx_pending, rsw_sched[p].n_pending, __ATOMIC_RELEASE);
}

struct rsw_lcore_stats;

/**
 * The owner's transmit step for port p: PFC generation, shaper, strict + DWRR scheduling,
 * ECN at dequeue, buffer release, tx. @return frames handled (0 = idle).
 */
uint16_t rsw_sched_port(struct rsw_lcore_stats *st, const struct rsw_qos_params *qp, uint16_t p,
			uint64_t now);

/**
 * Owner only: transmit n frames (bytes in all) on port p; what the PMD does not take waits in
 * the scheduler's pending list and goes first next time (the caller leaves it the room: at
 * most 32 - n_pending frames). Counts tx_packets and tx_bytes of what went.
 */
void rsw_port_tx(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **m, uint16_t n,
		 uint64_t bytes);

/**
 * A worker other than the owner: transmit n frames (bytes in all) on port p on its own tx queue
 * q (rsw_direct_txq). Counts tx_packets, tx_bytes and `forwarded` of what the PMD took.
 * @return the frames sent: the rest are still the caller's.
 */
uint16_t rsw_port_tx_queue(struct rsw_lcore_stats *st, uint16_t p, uint16_t q, struct rte_mbuf **m,
			   uint16_t n, uint64_t bytes);

/**
 * rsw_port_tx of frames some of which railsw made: bit i of orig set where m[i] carries
 * RSW_MF_ORIG (the scheduler's frames). Counts the others `forwarded` (rsw_stats.h totals);
 * rsw_port_tx is this with orig 0 (cut-through and admitted-whole frames are all received ones).
 */
void rsw_port_tx_orig(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **m, uint16_t n,
		      uint64_t bytes, uint32_t orig);

#endif /* RSW_SCHED_H */
