/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 8-9 of the packet path (rsw_queue.h): a port's staged frames straight
 * to the PMD, or the slots of frames admitted one by one: cut-through to an
 * idle port this lcore owns, or the egress rings (one bulk enqueue per (port,
 * TC), the gauges added once per slot before the frames become visible to the
 * owner).
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "rsw_queue.h"

bool
rsw_queue_open(const struct rsw_burst *c, uint16_t p)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	const struct rsw_stage *sg = &c->stage;
	uint64_t storm;
	uint8_t tcs = sg->tcs[p], stormy = 0;
	unsigned int tc;

	if (!rsw_dp.cut_through || rsw_dp.ports[p].owner != rte_lcore_id() || !rsw_port_idle(p))
		return false;
	memcpy(&storm, qport->storm_drop, sizeof(storm));
	if (unlikely(storm != 0))
		for (tc = 0; tc < RSW_N_TC; tc++)
			stormy |= (uint8_t)((qport->storm_drop[tc] != 0) << tc);
	if (unlikely(((rsw_paused_mask(qport, c->now) | stormy) & tcs) != 0))
		return false;
	if (qport->speed_bps) {
		struct rsw_port_sched *ps = &rsw_sched[p];

		rsw_shaper_refill(ps, qport->speed_bps, rsw_dp.ports[p].mtu, c->now);
		if (ps->tokens_milli < rsw_wire_milli(sg->bytes[p], sg->n[p]))
			return false;
	}
	return true;
}

uint16_t
rsw_queue_tx_staged(struct rsw_burst *c, struct rsw_lcore_stats *st, uint32_t ports)
{
	struct rsw_stage *sg = &c->stage;
	uint16_t p, n_tx = 0;

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
		if (rsw_qos.port[p].speed_bps)
			rsw_sched[p].tokens_milli -= rsw_wire_milli(bytes, sg->n[p]);
		rsw_port_tx(st, p, sg->m[p], sg->n[p], bytes); /* pending is empty: room for 32 */
		n_tx = (uint16_t)(n_tx + sg->n[p]);
	}
	return n_tx;
}

void
rsw_queue_cut_through(struct rsw_burst *c, struct rsw_lcore_stats *st,
		      const struct rsw_qos_params *qp)
{
	struct rte_mbuf *tx[RSW_BURST], **txv = tx;
	uint32_t checked = 0, idle = 0;
	uint16_t i, j, p, n_tx;
	uint64_t tx_bytes;
	unsigned int lcore = rte_lcore_id();

	for (i = 0; i < c->n_slots; i++) {
		p = c->slots[i].port;
		if (checked & (1u << p))
			continue;
		checked |= 1u << p;
		if (rsw_dp.ports[p].owner != lcore || !rsw_port_idle(p))
			continue;
		idle |= 1u << p;
	}
	while (idle != 0) {
		struct rsw_port_sched *ps;
		struct rsw_qos_port *qport;
		uint64_t now = c->now, tx_wire;
		uint8_t paused;
		bool shaped;

		p = (uint16_t)__builtin_ctz(idle);
		idle &= idle - 1;
		ps = &rsw_sched[p];
		qport = &rsw_qos.port[p];
		shaped = false;
		if (qport->speed_bps) {
			rsw_shaper_refill(ps, qport->speed_bps, rsw_dp.ports[p].mtu, now);
			/* Tokens for every frame of the burst: one subtraction at the end. */
			shaped = ps->tokens_milli < rsw_wire_milli(c->used_add, RSW_BURST);
		}
		paused = rsw_paused_mask(qport, now);
		n_tx = 0;
		tx_bytes = 0;
		tx_wire = 0;
		for (i = 0; i < c->n_slots; i++) {
			struct rsw_out_slot *sl = &c->slots[i];
			uint8_t tc = sl->tc, bit = (uint8_t)(1u << tc);
			uint64_t wire = rsw_wire_milli(sl->bytes, sl->n);

			if (sl->port != p || sl->n == 0)
				continue;
			if (paused & bit)
				continue;
			if ((qp->ecn_enabled & bit) && !qp->ecn_enqueue && sl->bytes > qp->kmin[tc])
				continue;
			if (unlikely(shaped)) {
				if (ps->tokens_milli < wire)
					continue;
				ps->tokens_milli -= wire;
			} else {
				tx_wire += wire;
			}
			rsw_count_cut_through(st, p, tc, sl->n, sl->bytes);
			if (unlikely(c->has_cnp))
				for (j = 0; j < sl->n; j++)
					st->port[p].c[RSW_PC_cnp_tx] +=
						(c->info[sl->info[j]].flags & RSW_PF_CNP) != 0;
			c->used_add -= sl->bytes;
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
		if (qport->speed_bps && !shaped)
			ps->tokens_milli -= tx_wire;
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
}
