/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 8-9 of the packet path (rsw_queue.h): a port's staged frames straight
 * to the PMD, or the slots of frames admitted one by one: cut-through where
 * their (port, TC) may send now, or the egress rings (one bulk enqueue per (port,
 * TC), the gauges added once per slot before the frames become visible to the
 * owner).
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "rsw_mmu.h"
#include "rsw_queue.h"

bool
rsw_queue_open(struct rsw_burst *c, uint16_t p)
{
	const struct rsw_stage *sg = &c->stage;
	struct rsw_send_now sn;

	if (!rsw_dp.cut_through || !rsw_send_now_port(p, c->now, &sn) ||
	    (sg->tcs[p] & (uint8_t)~sn.open) != 0)
		return false;
	/* The last check: the tokens are taken. */
	return rsw_send_now_take(p, &sn, c->now, rsw_wire_bytes(sg->bytes[p], sg->n[p]));
}

/* A frame sent straight was counted enqueued and dequeued at once: not sent after all. */
static inline void
uncount_cut_through(struct rsw_lcore_stats *st, uint16_t p, uint8_t tc, uint32_t len)
{
	uint64_t *q = st->qos.q[p][tc];

	q[RSW_QC_enqueued_packets]--;
	q[RSW_QC_enqueued_bytes] -= len;
	q[RSW_QC_dequeued_packets]--;
	q[RSW_QC_dequeued_bytes] -= len;
}

/*
 * The staged frames k.. of port p that the PMD refused on this lcore's own tx queue: admitted
 * (rsw_mmu_admit_burst found them room) into the burst's slots, so that they are queued for the
 * port's owner, ahead of anything of their flows that comes later (their TCs now hold frames).
 */
static void
requeue_staged(struct rsw_burst *c, struct rsw_lcore_stats *st, uint16_t p, uint16_t k)
{
	struct rsw_stage *sg = &c->stage;

	for (; k < sg->n[p]; k++) {
		struct rte_mbuf *m = sg->m[p][k];
		const struct rsw_pkt_info *info = rsw_burst_record(c, sg->idx[p][k], m);

		uncount_cut_through(st, p, info->tc, rte_pktmbuf_pkt_len(m));
		rsw_mmu_enqueue(c, rsw_mmu_slot(c, &c->t->qos, c->in_port, p, info->tc), m,
				sg->idx[p][k]);
	}
}

uint16_t
rsw_queue_tx_staged(struct rsw_burst *c, struct rsw_lcore_stats *st, uint32_t ports)
{
	struct rsw_stage *sg = &c->stage;
	uint16_t p, n_tx = 0, sent;
	int q;

	for (; ports != 0; ports &= ports - 1) {
		uint64_t bytes, w;
		uint8_t tcs;
		unsigned int tc;

		p = (uint16_t)__builtin_ctz(ports);
		bytes = sg->bytes[p];
		for (tcs = sg->tcs[p]; tcs != 0; tcs &= (uint8_t)(tcs - 1)) {
			tc = (unsigned int)__builtin_ctz(tcs);
			w = sg->tc[p][tc];
			rsw_count_cut_through(st, p, (uint8_t)tc, (uint32_t)w, rsw_stage_bytes(w));
		}
		/* The tokens were taken by rsw_queue_open. */
		q = rsw_direct_txq(p);
		if (q == 0) {
			/* The owner: pending is empty (rsw_send_now_port), room for 32. */
			rsw_port_tx(st, p, sg->m[p], sg->n[p], bytes);
			n_tx = (uint16_t)(n_tx + sg->n[p]);
			continue;
		}
		sent = rsw_port_tx_queue(st, p, (uint16_t)q, sg->m[p], sg->n[p], bytes);
		if (unlikely(sent < sg->n[p]))
			requeue_staged(c, st, p, sent);
		n_tx = (uint16_t)(n_tx + sent);
	}
	return n_tx;
}

/*
 * Slot sl of port p went to this lcore's own tx queue q (not the owner's), sent frames of it
 * taken: the rest go back into the slot, queued for the owner by rsw_queue_slots (the slot's
 * TC now holds frames: nothing of their flows overtakes them).
 */
static void
cut_through_refused(struct rsw_burst *c, struct rsw_lcore_stats *st, struct rsw_out_slot *sl,
		    uint16_t sent)
{
	uint32_t back = 0;
	uint16_t k, n = (uint16_t)(sl->n - sent);

	for (k = 0; k < n; k++) {
		uint32_t len = rte_pktmbuf_pkt_len(sl->m[sent + k]);

		uncount_cut_through(st, sl->port, sl->tc, len);
		back += len;
		sl->m[k] = sl->m[sent + k];
		sl->info[k] = sl->info[sent + k];
	}
	sl->n = (uint8_t)n;
	sl->bytes = back;
	c->used_add += back;
}

void
rsw_queue_cut_through(struct rsw_burst *c, struct rsw_lcore_stats *st,
		      const struct rsw_qos_params *qp)
{
	struct rte_mbuf *tx[RSW_BURST], **txv = tx;
	uint32_t ports = 0;
	uint16_t i, j, p, n_tx, sent;
	uint64_t tx_bytes;

	for (i = 0; i < c->n_slots; i++)
		ports |= 1u << c->slots[i].port;
	while (ports != 0) {
		struct rsw_send_now sn;
		uint64_t now = c->now;

		p = (uint16_t)__builtin_ctz(ports);
		ports &= ports - 1;
		if (!rsw_send_now_port(p, now, &sn))
			continue;
		n_tx = 0;
		tx_bytes = 0;
		for (i = 0; i < c->n_slots; i++) {
			struct rsw_out_slot *sl = &c->slots[i];
			uint8_t tc = sl->tc, bit = (uint8_t)(1u << tc);

			if (sl->port != p || sl->n == 0 || !(sn.open & bit))
				continue;
			if ((qp->ecn_enabled & bit) && !qp->ecn_enqueue && sl->bytes > qp->kmin[tc])
				continue;
			/* The tokens of the slot, one compare-and-swap: none, and it queues. */
			if (!rsw_send_now_take(p, &sn, now, rsw_wire_bytes(sl->bytes, sl->n)))
				continue;
			rsw_count_cut_through(st, p, tc, sl->n, sl->bytes);
			if (unlikely(c->has_cnp))
				for (j = 0; j < sl->n; j++)
					st->port[p].c[RSW_PC_cnp_tx] +=
						(c->info[sl->info[j]].flags & RSW_PF_CNP) != 0;
			c->used_add -= sl->bytes;
			if (sn.q != 0) {
				/* Another worker's port: its own tx queue, slot by slot. */
				sent = rsw_port_tx_queue(st, p, (uint16_t)sn.q, sl->m, sl->n,
							 sl->bytes);
				if (unlikely(sent < sl->n))
					cut_through_refused(c, st, sl, sent);
				else
					sl->n = 0;
				continue;
			}
			tx_bytes += sl->bytes;
			/* One slot goes from its own array; more are gathered. */
			if (n_tx == 0) {
				txv = sl->m;
			} else {
				if (txv != tx) {
					memcpy(tx, txv, sizeof(tx[0]) * n_tx);
					txv = tx;
				}
				memcpy(tx + n_tx, sl->m, sizeof(tx[0]) * sl->n);
			}
			n_tx = (uint16_t)(n_tx + sl->n);
			sl->n = 0;
		}
		if (n_tx > 0)
			rsw_port_tx(st, p, txv, n_tx, tx_bytes); /* pending is empty: room for 32 */
	}
}

void
rsw_queue_slots(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		uint16_t in_port)
{
	struct rsw_qos_port *in = &rsw_qos.port[in_port];
	uint64_t pg_add[RSW_N_TC] = {0}; /* bytes queued per ingress PG (= the slot's TC) */
	uint64_t used_now, v;
	uint32_t queued = 0; /* bit p: frames queued for port p's owner */
	uint16_t i, k, sent;
	int tc;

	if (c->used_add == 0)
		return; /* every slot went cut-through */
	for (i = 0; i < c->n_slots; i++)
		if (c->slots[i].n > 0) /* not sent cut-through */
			pg_add[c->slots[i].tc] += c->slots[i].bytes;
	for (tc = 0; tc < RSW_N_TC; tc++) {
		if (pg_add[tc] == 0)
			continue;
		v = __atomic_add_fetch(&in->pg_bytes[tc], pg_add[tc], __ATOMIC_RELAXED);
		if (v > st->qos.pg_watermark[in_port][tc])
			st->qos.pg_watermark[in_port][tc] = v;
	}
	used_now = __atomic_add_fetch(&rsw_qos.used, c->used_add, __ATOMIC_RELAXED);
	if (used_now > st->qos.buf_watermark)
		st->qos.buf_watermark = used_now;

	for (i = 0; i < c->n_slots; i++) {
		struct rsw_out_slot *sl = &c->slots[i];
		struct rsw_qos_port *qport = &rsw_qos.port[sl->port];
		uint64_t back = 0;

		if (sl->n == 0)
			continue;
		for (k = 0; k < sl->n; k++) {
			const struct rsw_pkt_info *info = &c->info[sl->info[k]];

			*rsw_meta(sl->m[k]) = (struct rsw_mbuf_meta){
				.tc = sl->tc,
				.in_port = (uint8_t)in_port,
				.kind = info->kind,
				.l3_off = info->l3_off,
				.flags = (info->flags & RSW_PF_CNP) ? RSW_MF_CNP : 0,
			};
		}
		v = __atomic_add_fetch(&qport->q_bytes[sl->tc], sl->bytes, __ATOMIC_RELAXED);
		if (v > st->qos.q_watermark[sl->port][sl->tc])
			st->qos.q_watermark[sl->port][sl->tc] = v;
		sent = (uint16_t)rte_ring_mp_enqueue_burst(qport->ring[sl->tc], (void **)sl->m,
							   sl->n, NULL);
		st->qos.q[sl->port][sl->tc][RSW_QC_enqueued_packets] += sent;
		queued |= (uint32_t)(sent != 0) << sl->port;
		for (k = sent; k < sl->n; k++) {
			back += rte_pktmbuf_pkt_len(sl->m[k]);
			st->qos.q[sl->port][sl->tc][(t->qos.lossless & (1u << sl->tc))
							    ? RSW_QC_lossless_drops
							    : RSW_QC_dropped_packets]++;
		}
		st->qos.q[sl->port][sl->tc][RSW_QC_enqueued_bytes] += sl->bytes - back;
		if (back) {
			__atomic_fetch_sub(&qport->q_bytes[sl->tc], back, __ATOMIC_RELAXED);
			__atomic_fetch_sub(&in->pg_bytes[sl->tc], back, __ATOMIC_RELAXED);
			__atomic_fetch_sub(&rsw_qos.used, back, __ATOMIC_RELAXED);
			rte_pktmbuf_free_bulk(sl->m + sent, sl->n - sent);
		}
	}
	if (queued != 0)
		rsw_wake_owners(queued);
}
