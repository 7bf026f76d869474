/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 10 of the packet path, run by a port's owner (docs/architecture.md, docs/qos.md): PFC
 * generation from the port's ingress PG occupancy, the token-bucket shaper at
 * the port's speed (wire bytes = frame + 24), strict-priority TCs then DWRR
 * (byte deficits) over the rest, skipping TCs paused by received PFC, ECN at
 * dequeue, buffer release, and rte_eth_tx_burst. Frames the PMD does not take
 * wait in a pending list and go first next time: the scheduler never drops
 * what it has dequeued.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_random.h>

#include "rsw_ecn.h"
#include "rsw_fib.h"
#include "rsw_link.h"
#include "rsw_pfc.h"
#include "rsw_sched.h"
#include "rsw_shaper.h"
#include "rsw_worker.h"

struct rsw_port_sched rsw_sched[RSW_MAX_PORTS];

void
rsw_shaper_setup(uint16_t p, uint64_t speed_bps, uint64_t now)
{
	struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t burst = (uint64_t)(rsw_dp.ports[p].mtu + 38) * 2;
	uint32_t us = rsw_qos.shaper_burst_us;
	uint64_t per_burst = speed_bps / 8 * (us ? us : 100) / 1000000;

	/* Two senders may both get here: they write the same values. */
	__atomic_store_n(&qport->sh_rate_q32,
			 (uint64_t)(((__uint128_t)speed_bps << 32) / 8 / rsw_qos.tsc_hz),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&qport->sh_bucket, RTE_MAX(burst, per_burst), __ATOMIC_RELAXED);
	__atomic_store_n(&qport->sh_burst_us, us, __ATOMIC_RELAXED);
	__atomic_store_n(&qport->sh_t0, now, __ATOMIC_RELAXED);
	__atomic_store_n(&qport->sh_spent, 0, __ATOMIC_RELAXED); /* a full bucket */
	__atomic_store_n(&qport->sh_speed, speed_bps, __ATOMIC_RELEASE);
}

/* Frames of TC tc ready in the staging array, refilled from the ring. */
static inline bool
tc_has(struct rsw_port_sched *ps, uint16_t p, uint8_t tc)
{
	if (ps->head_i[tc] < ps->head_n[tc])
		return true;
	ps->head_i[tc] = 0;
	ps->head_n[tc] = (uint16_t)rte_ring_sc_dequeue_burst(rsw_qos.port[p].ring[tc],
							     (void **)ps->head[tc], 32, NULL);
	return ps->head_n[tc] > 0;
}

/*
 * The next TC to send from among the eligible ones (bit t: TC t has a staged frame and is not
 * paused), or -1. Strict TCs first, highest first; then DWRR with byte deficits, where an
 * empty queue keeps no credit (DRR).
 */
static inline int
pick_tc(struct rsw_port_sched *ps, const struct rsw_qos_params *qp, uint8_t elig, uint8_t empty)
{
	uint8_t dwrr = elig & (uint8_t)~qp->is_strict;
	unsigned int i;

	for (i = 0; i < qp->n_strict; i++)
		if (elig & (1u << qp->strict[i]))
			return qp->strict[i];
	if (dwrr == 0) {
		for (i = 0; i < RSW_N_TC; i++)
			if (empty & ~qp->is_strict & (1u << i))
				ps->deficit[i] = 0;
		return -1;
	}
	for (i = 0; i < 8 * RSW_N_TC; i++) {
		uint8_t tc = ps->dwrr_cur;

		if (dwrr & (1u << tc)) {
			struct rte_mbuf *m = ps->head[tc][ps->head_i[tc]];

			if (ps->dwrr_fresh) {
				ps->deficit[tc] += (int32_t)qp->dwrr_quantum[tc];
				ps->dwrr_fresh = 0;
			}
			if ((int32_t)rte_pktmbuf_pkt_len(m) <= ps->deficit[tc])
				return tc;
		} else if (empty & ~qp->is_strict & (1u << tc)) {
			ps->deficit[tc] = 0;
		}
		ps->dwrr_cur = (uint8_t)((tc + 1) % RSW_N_TC);
		ps->dwrr_fresh = 1;
	}
	return -1;
}

/* PFC generation for the ingress PGs of port p. */
static void
pfc_generate(struct rsw_lcore_stats *st, struct rsw_port_sched *ps, const struct rsw_qos_params *qp,
	     uint16_t p, uint64_t now)
{
	struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED);
	uint64_t xoff = rsw_pfc_xoff(qp, used), xon = rsw_pfc_xon(qp, xoff);
	uint8_t on = 0, off = 0, tc;
	uint16_t time[RSW_N_TC] = {0};
	struct rte_mbuf *m;
	uint8_t *buf;

	for (tc = 0; tc < RSW_N_TC; tc++) {
		uint8_t bit = (uint8_t)(1u << tc);
		uint64_t b;

		if (!(qp->lossless & bit))
			continue;
		if (qport->storm_drop[tc]) {
			ps->xoff_sent &= (uint8_t)~bit; /* watchdog: no PFC for this PG */
			continue;
		}
		/* A PG the peer fills against credits (CBFC) sends no XOFF: as if empty. */
		b = rsw_link_pfc_off(p, tc)
			    ? 0
			    : __atomic_load_n(&qport->pg_bytes[tc], __ATOMIC_RELAXED);
		if (!(ps->xoff_sent & bit)) {
			if (b > 0 && b >= xoff)
				off |= bit;
		} else if (b <= xon) {
			on |= bit;
		} else if (now >= ps->refresh_at[tc]) {
			off |= bit; /* refresh before the pause runs out */
		}
	}
	if ((on | off) == 0)
		return;
	m = rte_pktmbuf_alloc(rsw_dp.pool);
	if (m == NULL)
		return;
	buf = (uint8_t *)rte_pktmbuf_append(m, RSW_PFC_FRAME_LEN);
	for (tc = 0; tc < RSW_N_TC; tc++)
		if (off & (1u << tc))
			time[tc] = qp->quanta;
	rsw_pfc_encode(buf, rsw_dp.ports[p].mac.addr_bytes, on | off, time);
	if (rsw_link_tx1(st, p, m) != 1) {
		rte_pktmbuf_free(m); /* try again on the next round */
		return;
	}
	st->port[p].c[RSW_PC_tx_packets]++;
	st->port[p].c[RSW_PC_tx_bytes] += RSW_PFC_FRAME_LEN;
	st->tot[RSW_TOT_originated]++;
	for (tc = 0; tc < RSW_N_TC; tc++) {
		if (off & (1u << tc)) {
			st->qos.pfc[p][tc][RSW_FC_tx_xoff]++;
			ps->refresh_at[tc] = now + rsw_pfc_pause_ticks(qp->quanta, qport->speed_bps,
								       rsw_qos.tsc_hz) /
							   2;
		} else if (on & (1u << tc)) {
			st->qos.pfc[p][tc][RSW_FC_tx_xon]++;
		}
	}
	ps->xoff_sent = (uint8_t)((ps->xoff_sent | off) & ~on);
}

/* Bits 0 .. n-1 (n <= 32). */
static inline uint32_t
low_bits(uint16_t n)
{
	return (uint32_t)((UINT64_C(1) << n) - 1);
}

/*
 * The PMD took n frames, orig of them made by railsw: count them sent, and the others
 * forwarded (the totals of `show drops`).
 */
static inline void
count_sent(struct rsw_lcore_stats *st, uint16_t p, uint16_t n, uint32_t orig, uint64_t bytes)
{
	st->port[p].c[RSW_PC_tx_packets] += n;
	st->port[p].c[RSW_PC_tx_bytes] += bytes;
	st->tot[RSW_TOT_forwarded] += n - orig;
}

/*
 * Owner, a port with other senders (n_txq > 1): wire bytes just handed to tx queue 0. The
 * model of that queue on the NIC: it has sent them by q0_free, draining at the port's speed
 * (10 Gb/s when unknown), as it does while the other queues of the port are idle, which they
 * are for a held TC. Not slower (a share of the port): on a NIC the owner cannot send faster
 * than the model then, so the hold of a TC loaded above that share would never end and the TC
 * would keep to one sender. One clock read per transmit call, on such ports only.
 */
static void
q0_account(struct rsw_port_sched *ps, uint16_t p, uint64_t wire)
{
	uint64_t speed = __atomic_load_n(&rsw_qos.port[p].speed_bps, __ATOMIC_RELAXED);
	uint64_t now = rte_rdtsc();

	if (speed == 0)
		speed = RSW_PFC_DEFAULT_SPEED;
	if (unlikely(ps->q0_speed != speed)) {
		ps->q0_tpb_q32 = (uint64_t)(((__uint128_t)rsw_qos.tsc_hz * 8 << 32) / speed);
		ps->q0_speed = speed;
	}
	ps->q0_free =
		RTE_MAX(ps->q0_free, now) + (uint64_t)(((__uint128_t)wire * ps->q0_tpb_q32) >> 32);
}

/*
 * Owner: frames of the TCs of mask left its queues on tx queue 0 (q0_account done): the other
 * senders keep their frames of those TCs off their own queues until queue 0 has sent them
 * (rsw_send_now_port). Stored before the queues' bytes are released (their release orders it).
 */
static void
hold_publish(struct rsw_port_sched *ps, uint16_t p, uint8_t mask)
{
	struct rsw_qos_port *qport = &rsw_qos.port[p];

	for (; mask != 0; mask &= (uint8_t)(mask - 1))
		__atomic_store_n(&qport->hold_until[__builtin_ctz(mask)], ps->q0_free,
				 __ATOMIC_RELAXED);
	__atomic_store_n(&qport->hold_max, ps->q0_free, __ATOMIC_RELAXED);
}

/* Send what the PMD refused last time. @return true when all went. */
static bool
flush_pending(struct rsw_lcore_stats *st, struct rsw_port_sched *ps, uint16_t p)
{
	uint16_t sent, i;
	uint64_t bytes = 0;

	if (ps->n_pending == 0)
		return true;
	sent = rte_eth_tx_burst(rsw_dp.ports[p].eth_port, 0, ps->pending, ps->n_pending);
	for (i = 0; i < sent; i++)
		bytes += rte_pktmbuf_pkt_len(ps->pending[i]);
	count_sent(st, p, sent, (uint32_t)__builtin_popcount(ps->pending_orig & low_bits(sent)),
		   bytes);
	if (sent > 0 && unlikely(rsw_dp.ports[p].n_txq > 1)) {
		/* Frames of any TC, queued (or of the owner's own flows): every TC waits. */
		q0_account(ps, p, rsw_wire_bytes(bytes, sent));
		hold_publish(ps, p, 0xff);
	}
	if (sent < ps->n_pending)
		memmove(ps->pending, ps->pending + sent,
			sizeof(ps->pending[0]) * (ps->n_pending - sent));
	ps->pending_orig = (uint32_t)((uint64_t)ps->pending_orig >> sent);
	ps->n_pending = (uint8_t)(ps->n_pending - sent);
	if (sent > 0)
		rsw_pending_publish(p);
	return ps->n_pending == 0;
}

/* What one drain takes out of the queues, released from the gauges once at its end. */
struct release {
	uint64_t q[RSW_N_TC];                 /* egress queue bytes per TC */
	uint64_t pg[RSW_MAX_PORTS][RSW_N_TC]; /* ingress PG bytes, rows valid where touched */
	uint32_t touched;                     /* bit i: pg[i] in use */
	uint64_t ctl;                         /* frames of the control thread (not in bytes) */
	uint64_t orig;                        /* of ctl, the ones it made (RSW_MF_ORIG) */
};

/* A frame of TC tc left the queue: its bytes, or the control thread's frame count. */
static inline void
release_add(struct release *rel, const struct rsw_mbuf_meta *meta, uint8_t tc, uint32_t len)
{
	if (meta->flags & RSW_MF_NOACCT) {
		rel->ctl++;
		rel->orig += (meta->flags & RSW_MF_ORIG) != 0;
		return;
	}
	rel->q[tc] += len;
	if (!(rel->touched & (1u << meta->in_port))) {
		rel->touched |= 1u << meta->in_port;
		memset(rel->pg[meta->in_port], 0, sizeof(rel->pg[0]));
	}
	rel->pg[meta->in_port][meta->tc] += len;
}

/*
 * A queued frame dropped for cause (RSW_QC_ecn_drops, RSW_QC_watchdog_drops). A frame railsw
 * made itself is no received frame lost: it is freed uncounted, so that the drop reasons of
 * `show drops` add up to the received frames dropped.
 */
static inline void
queued_drop(struct rsw_lcore_stats *st, uint16_t p, uint8_t tc, const struct rsw_mbuf_meta *meta,
	    enum rsw_queue_ctr cause)
{
	if (meta->flags & RSW_MF_ORIG)
		return;
	st->qos.q[p][tc][RSW_QC_dropped_packets]++;
	st->qos.q[p][tc][cause]++;
}

/* Watchdog action drop: empty the queue, releasing its buffer. */
static uint16_t
storm_flush(struct rsw_lcore_stats *st, struct rsw_port_sched *ps, uint16_t p, uint8_t tc,
	    struct release *rel)
{
	uint16_t n = 0;

	while (tc_has(ps, p, tc)) {
		struct rte_mbuf *m = ps->head[tc][ps->head_i[tc]++];

		release_add(rel, rsw_meta(m), tc, rte_pktmbuf_pkt_len(m));
		queued_drop(st, p, tc, rsw_meta(m), RSW_QC_watchdog_drops);
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

uint16_t
rsw_sched_port(struct rsw_lcore_stats *st, const struct rsw_qos_params *qp, uint16_t p,
	       uint64_t now)
{
	struct rsw_port_sched *ps = &rsw_sched[p];
	struct rsw_qos_port *qport = &rsw_qos.port[p];
	struct release rel;
	uint64_t q_now[RSW_N_TC];
	uint32_t deq_pkts[RSW_N_TC] = {0};
	uint64_t used_rel = 0, tx_bytes = 0, tokens = 0, taken = 0;
	struct rte_mbuf *out[32], *drop[32];
	uint32_t out_orig = 0; /* bit i: out[i] was made by railsw */
	uint16_t n_out = 0, n_drop = 0, work = 0, i;
	bool shaped;
	uint16_t cap = rsw_link_tx_cap(p); /* 32, or what an LLR window takes */
	uint8_t paused, elig = 0, empty = 0;
	int tc;

	if (qp->lossless)
		pfc_generate(st, ps, qp, p, now);
	if (!flush_pending(st, ps, p))
		return 1;
	if (rsw_port_idle(p))
		return 0; /* the common idle case: no ring to probe */
	shaped = rsw_shaper_on(p, now);
	if (shaped)
		tokens = rsw_shaper_avail(p, now); /* taken once, after the loop */

	memset(rel.q, 0, sizeof(rel.q));
	rel.touched = 0;
	rel.ctl = 0;
	rel.orig = 0;
	paused = rsw_paused_mask(qport, now);
	for (tc = 0; tc < RSW_N_TC; tc++) {
		uint8_t bit = (uint8_t)(1u << tc);

		if (unlikely(qport->storm_drop[tc]))
			work += storm_flush(st, ps, p, (uint8_t)tc, &rel);
		if (paused & bit)
			empty |= ps->head_i[tc] >= ps->head_n[tc] ? bit : 0;
		else if (tc_has(ps, p, (uint8_t)tc))
			elig |= bit;
		else
			empty |= bit;
	}
	if (elig == 0)
		goto release; /* the common idle case: eight empty rings */
	for (tc = 0; tc < RSW_N_TC; tc++)
		q_now[tc] = __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_RELAXED);

	while (n_out + n_drop < cap) { /* out[] and drop[] hold 32 each */
		struct rte_mbuf *m;
		struct rsw_mbuf_meta *meta;
		uint32_t len;

		tc = pick_tc(ps, qp, elig, empty);
		if (tc < 0)
			break;
		m = ps->head[tc][ps->head_i[tc]];
		len = rte_pktmbuf_pkt_len(m);
		if (shaped && tokens < rsw_wire_bytes(len, 1))
			break;
		if (unlikely(!rsw_link_credit_take(p, (uint8_t)tc, len))) {
			elig &= (uint8_t) ~(1u << tc); /* no credit (CBFC): as if paused */
			continue;
		}
		if (++ps->head_i[tc] >= ps->head_n[tc] && !tc_has(ps, p, (uint8_t)tc)) {
			elig &= (uint8_t) ~(1u << tc);
			empty |= (uint8_t)(1u << tc);
		}
		if (shaped) {
			tokens -= rsw_wire_bytes(len, 1);
			taken += rsw_wire_bytes(len, 1);
		}
		if (!(qp->is_strict & (1u << tc)))
			ps->deficit[tc] -= (int32_t)len;
		meta = rsw_meta(m);
		release_add(&rel, meta, (uint8_t)tc, len);
		deq_pkts[tc]++;
		st->qos.q[p][tc][RSW_QC_dequeued_bytes] += len;
		work++;

		/* ECN at dequeue: the bytes still queued behind this packet. */
		if ((qp->ecn_enabled & (1u << tc)) && !qp->ecn_enqueue &&
		    !(meta->flags & RSW_MF_CNP)) {
			uint64_t behind = q_now[tc] > rel.q[tc] ? q_now[tc] - rel.q[tc] : 0;

			if (rsw_ecn_decide(qp, (uint8_t)tc, behind, (uint32_t)rte_rand())) {
				int r = rsw_ecn_mark(m, meta->l3_off, meta->kind);

				if (r > 0) {
					st->qos.q[p][tc][RSW_QC_ecn_marked]++;
				} else if (r < 0 && !(qp->lossless & (1u << tc))) {
					/* Not-ECT on a lossy TC: dropped on the same curve. */
					queued_drop(st, p, (uint8_t)tc, meta, RSW_QC_ecn_drops);
					drop[n_drop++] = m;
					continue;
				}
			}
		}
		if (meta->flags & RSW_MF_CNP)
			st->port[p].c[RSW_PC_cnp_tx]++;
		tx_bytes += len;
		if (meta->flags & RSW_MF_ORIG)
			out_orig |= 1u << n_out;
		out[n_out++] = m;
	}
	for (tc = 0; tc < RSW_N_TC; tc++)
		st->qos.q[p][tc][RSW_QC_dequeued_packets] += deq_pkts[tc];

	if (taken)
		rsw_shaper_take(p, now, taken, true);
	/* To the PMD before the release: a sender that sees the queues' bytes gone sees the
	 * frames the PMD refused in tx_pending (rsw_port_idle), so none of its frames overtakes
	 * them. */
	if (n_out > 0) {
		rsw_port_tx_orig(st, p, out, n_out, tx_bytes, out_orig);
		if (unlikely(rsw_dp.ports[p].n_txq > 1)) {
			uint8_t sent_tcs = 0;

			for (tc = 0; tc < RSW_N_TC; tc++)
				sent_tcs |= (uint8_t)((deq_pkts[tc] != 0) << tc);
			hold_publish(ps, p, sent_tcs);
		}
	}

release:
	/* Release the buffer of what left the queues. */
	if (rel.ctl)
		__atomic_fetch_sub(&qport->ctl_frames, rel.ctl, __ATOMIC_RELEASE);
	if (rel.orig)
		__atomic_fetch_sub(&qport->orig_frames, rel.orig, __ATOMIC_RELAXED);
	for (tc = 0; tc < RSW_N_TC; tc++) {
		if (rel.q[tc] == 0)
			continue;
		__atomic_fetch_sub(&qport->q_bytes[tc], rel.q[tc], __ATOMIC_RELEASE);
	}
	for (i = 0; rel.touched != 0 && i < RSW_MAX_PORTS; i++) {
		if (!(rel.touched & (1u << i)))
			continue;
		for (tc = 0; tc < RSW_N_TC; tc++) {
			if (rel.pg[i][tc] == 0)
				continue;
			__atomic_fetch_sub(&rsw_qos.port[i].pg_bytes[tc], rel.pg[i][tc],
					   __ATOMIC_RELAXED);
			used_rel += rel.pg[i][tc];
		}
	}
	if (used_rel)
		__atomic_fetch_sub(&rsw_qos.used, used_rel, __ATOMIC_RELAXED);
	if (n_drop)
		rte_pktmbuf_free_bulk(drop, n_drop);
	return work;
}

void
rsw_port_tx_orig(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **m, uint16_t n,
		 uint64_t bytes, uint32_t orig)
{
	struct rsw_port_sched *ps = &rsw_sched[p];
	uint16_t sent, i;

	if (unlikely(rsw_link_active(p))) {
		rsw_link_tx(st, p, m, n, orig); /* LLR, impairments (docs/link.md) */
		return;
	}
	sent = rte_eth_tx_burst(rsw_dp.ports[p].eth_port, 0, m, n);
	if (unlikely(sent < n))
		ps->pending_orig |= (uint32_t)(((uint64_t)orig >> sent) << ps->n_pending);
	for (i = sent; i < n; i++) {
		bytes -= rte_pktmbuf_pkt_len(m[i]);
		ps->pending[ps->n_pending++] = m[i];
	}
	if (unlikely(rsw_dp.ports[p].n_txq > 1))
		q0_account(ps, p, rsw_wire_bytes(bytes, sent));
	if (unlikely(sent < n))
		rsw_pending_publish(p);
	count_sent(st, p, sent, (uint32_t)__builtin_popcount(orig & low_bits(sent)), bytes);
}

void
rsw_port_tx(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **m, uint16_t n, uint64_t bytes)
{
	rsw_port_tx_orig(st, p, m, n, bytes, 0);
}

uint16_t
rsw_port_tx_queue(struct rsw_lcore_stats *st, uint16_t p, uint16_t q, struct rte_mbuf **m,
		  uint16_t n, uint64_t bytes)
{
	uint16_t sent = rte_eth_tx_burst(rsw_dp.ports[p].eth_port, q, m, n), i;

	for (i = sent; unlikely(i < n); i++)
		bytes -= rte_pktmbuf_pkt_len(m[i]);
	count_sent(st, p, sent, 0, bytes);
	return sent;
}
