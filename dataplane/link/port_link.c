/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The link layer's steps in the pipeline (rsw_link.h, docs/link.md "Integration"): the
 * receive step, the transmit step (LLR, impairments, PMD), the per-loop poll, the buffer
 * charge of sequenced frames, and the mirror of the machines' counters into the port
 * counters. Only ports with LLR or impairments get here.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "rsw_link.h"
#include "rsw_qos.h"
#include "rsw_worker.h"

struct rsw_link_port rsw_links[RSW_MAX_PORTS];

static uint64_t ns_mult; /* ns = tsc * ns_mult >> 32 */

void
rsw_link_clock_init(uint64_t tsc_hz)
{
	ns_mult = tsc_hz ? (uint64_t)(((__uint128_t)1000000000u << 32) / tsc_hz) : 0;
}

uint64_t
rsw_link_now_ns(void)
{
	return (uint64_t)(((__uint128_t)rte_rdtsc() * ns_mult) >> 32);
}

/* The port counter each machine counter is mirrored to, or -1. */
static const int llr_port_ctr[RSW_N_LLR_CTRS] = {
	[RSW_LLR_rx_missing_seq] = RSW_PC_llr_rx_missing_seq,
	[RSW_LLR_rx_duplicate_seq] = RSW_PC_llr_rx_duplicate_seq,
	[RSW_LLR_rx_bad_integrity] = RSW_PC_llr_rx_bad_integrity,
	[RSW_LLR_rx_not_synced] = RSW_PC_llr_rx_not_synced,
	[RSW_LLR_tx_fallback_dropped] = RSW_PC_llr_tx_fallback_dropped,
	[RSW_LLR_tx_encap_failed] = RSW_PC_llr_tx_encap_failed,
};

static const int impair_port_ctr[RSW_N_IMPAIR_CTRS] = {
	[RSW_IMPAIR_impair_dropped] = RSW_PC_impair_dropped,
	[RSW_IMPAIR_impair_corrupted] = RSW_PC_impair_corrupted,
	[RSW_IMPAIR_impair_delay_overflow] = RSW_PC_impair_delay_overflow,
	[RSW_IMPAIR_impair_delayed] = -1, /* a gauge */
};

static void
sync_llr(struct rsw_lcore_stats *st, struct rsw_link_llr *ll)
{
	uint64_t *c = st->port[ll->port].c;
	int i;

	for (i = 0; i < RSW_N_LLR_CTRS; i++) {
		if (llr_port_ctr[i] == 0)
			continue; /* 0 is rx_packets: never a mirror */
		c[llr_port_ctr[i]] += ll->l->ctr[i] - ll->synced[i];
		ll->synced[i] = ll->l->ctr[i];
	}
	if (ll->l->ctr[RSW_LLR_replay_buffer_frames] > ll->peak)
		__atomic_store_n(&ll->peak, ll->l->ctr[RSW_LLR_replay_buffer_frames],
				 __ATOMIC_RELAXED);
}

static void
sync_impair(struct rsw_lcore_stats *st, uint16_t p, struct rsw_link_impair *li)
{
	uint64_t *c = st->port[p].c;
	int i;

	for (i = 0; i < RSW_N_IMPAIR_CTRS; i++) {
		if (impair_port_ctr[i] < 0)
			continue;
		c[impair_port_ctr[i]] += li->im.ctr[i] - li->synced[i];
		li->synced[i] = li->im.ctr[i];
	}
}

/* The buffer bytes of a sequenced frame (0: the control thread's, never accounted). */
static inline uint32_t
charged_len(struct rte_mbuf *m, const struct rsw_mbuf_meta **meta)
{
	*meta = rsw_meta(m);
	if ((*meta)->flags & RSW_MF_NOACCT)
		return 0;
	return rte_pktmbuf_pkt_len(m);
}

void
rsw_link_llr_charge(void *arg, struct rte_mbuf *m)
{
	const struct rsw_mbuf_meta *meta;
	uint32_t len = charged_len(m, &meta);

	(void)arg;
	if (len == 0 || meta->in_port >= RSW_MAX_PORTS || meta->tc >= RSW_N_TC)
		return;
	__atomic_fetch_add(&rsw_qos.port[meta->in_port].pg_bytes[meta->tc], len, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rsw_qos.used, len, __ATOMIC_RELAXED);
}

void
rsw_link_llr_release(void *arg, void **h, unsigned int n)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < n; i++) {
		const struct rsw_mbuf_meta *meta;
		uint32_t len = charged_len(h[i], &meta);

		if (len == 0 || meta->in_port >= RSW_MAX_PORTS || meta->tc >= RSW_N_TC)
			continue;
		__atomic_fetch_sub(&rsw_qos.port[meta->in_port].pg_bytes[meta->tc], len,
				   __ATOMIC_RELAXED);
		__atomic_fetch_sub(&rsw_qos.used, len, __ATOMIC_RELAXED);
	}
	rte_pktmbuf_free_bulk((struct rte_mbuf **)h, n);
}

uint16_t
rsw_link_rx_slow(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **pkts, uint16_t n)
{
	struct rsw_link_llr *ll = rsw_links[p].llr;
	uint64_t in_bytes = 0, out_bytes = 0;
	uint16_t i, out = n, consumed;

	for (i = 0; i < n; i++)
		in_bytes += rte_pktmbuf_pkt_len(pkts[i]);
	if (ll != NULL) {
		out = rsw_llr_mbuf_rx_burst(ll->l, pkts, n, rsw_link_now_ns(), &consumed);
		st->port[p].c[RSW_PC_llr_consumed] += consumed;
		sync_llr(st, ll);
	}
	/* CBFC after LLR: credit messages are never sequenced, data is counted in order. */
	if (rsw_links[p].cbfc != NULL)
		out = rsw_link_cbfc_rx(st, rsw_links[p].cbfc, pkts, out);
	for (i = 0; i < out; i++)
		out_bytes += rte_pktmbuf_pkt_len(pkts[i]);
	/* Received frames the pipeline will not see, and the shims of those it will. */
	st->port[p].c[RSW_PC_rx_packets] += n - out;
	st->port[p].c[RSW_PC_rx_bytes] += in_bytes - out_bytes;
	return out;
}

int
rsw_link_is_orig(const struct rte_mbuf *m)
{
	return (rsw_meta((struct rte_mbuf *)(uintptr_t)m)->flags & RSW_MF_ORIG) != 0;
}

/* Mark pkts[0..n) made by the switch (RSW_MF_ORIG) or not, as bit i of orig says. */
static void
mark_orig(struct rte_mbuf **pkts, uint16_t n, uint32_t orig)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rsw_mbuf_meta *meta = rsw_meta(pkts[i]);

		if ((orig >> i) & 1)
			meta->flags |= RSW_MF_ORIG;
		else
			meta->flags &= (uint8_t)~RSW_MF_ORIG;
	}
}

/*
 * The last step: impairments (when the port has them), then the PMD; what the PMD refuses
 * joins the pending list (the scheduler sends it first next time), or is dropped when that
 * is full. @return frames the PMD took.
 */
static uint16_t
xmit(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **pkts, uint16_t n)
{
	struct rsw_link_impair *li = __atomic_load_n(&rsw_links[p].im, __ATOMIC_ACQUIRE);
	struct rsw_port_sched *ps = &rsw_sched[p];
	struct rte_mbuf *out[RSW_LINK_HELD_MAX + 2 * RSW_BURST];
	uint16_t sent, i, room, orig = 0;
	uint64_t bytes = 0;

	room = (uint16_t)(RTE_DIM(ps->pending) - ps->n_pending);
	if (li != NULL) {
		n = rsw_impair_burst(&li->im, pkts, n, rte_rdtsc(), out,
				     (uint16_t)RTE_MIN(RTE_DIM(out), (unsigned int)room + n));
		sync_impair(st, p, li);
		pkts = out;
	}
	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(rsw_dp.ports[p].eth_port, 0, pkts, n);
	for (i = 0; i < sent; i++) {
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		orig += (uint16_t)rsw_link_is_orig(pkts[i]);
	}
	st->port[p].c[RSW_PC_tx_packets] += sent;
	st->port[p].c[RSW_PC_tx_bytes] += bytes;
	st->tot[RSW_TOT_forwarded] += sent - orig; /* a replay, a control frame: originated */
	for (i = sent; i < n; i++) {
		if (ps->n_pending < RTE_DIM(ps->pending)) {
			ps->pending_orig |= (uint32_t)rsw_link_is_orig(pkts[i]) << ps->n_pending;
			ps->pending[ps->n_pending++] = pkts[i];
		} else if (rsw_link_is_orig(pkts[i])) {
			rte_pktmbuf_free(pkts[i]); /* the switch's own: no received frame dropped */
		} else {
			rsw_drop(st, p, &pkts[i], 1, RSW_PC_tx_dropped);
		}
	}
	if (sent < n)
		rsw_pending_publish(p);
	return sent;
}

/* The LLR step on held frames, then on pkts[0..n); what goes is sent. */
static void
llr_tx(struct rsw_lcore_stats *st, struct rsw_link_llr *ll, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *v[RSW_LINK_HELD_MAX + 2 * RSW_BURST];
	uint16_t k = 0, go, held, i;

	if (ll->n_held) {
		memcpy(v, ll->held, sizeof(v[0]) * ll->n_held);
		k = ll->n_held;
		ll->n_held = 0;
	}
	for (i = 0; i < n && k < RTE_DIM(v); i++)
		v[k++] = pkts[i];
	if (i < n)
		rsw_drop(st, ll->port, pkts + i, n - i, RSW_PC_tx_dropped);
	go = rsw_llr_mbuf_tx_burst(ll->l, v, k, rsw_link_now_ns(), &held);
	for (i = 0; i < held; i++) {
		if (ll->n_held < RSW_LINK_HELD_MAX)
			ll->held[ll->n_held++] = v[go + i];
		else
			rsw_drop(st, ll->port, &v[go + i], 1, RSW_PC_tx_dropped);
	}
	sync_llr(st, ll);
	xmit(st, ll->port, v, go);
}

void
rsw_link_tx_slow(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **pkts, uint16_t n,
		 uint32_t orig)
{
	struct rsw_link_llr *ll = rsw_links[p].llr;

	mark_orig(pkts, n, orig);

	if (ll != NULL)
		llr_tx(st, ll, pkts, n);
	else
		xmit(st, p, pkts, n);
}

uint16_t
rsw_link_tx1(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf *m)
{
	struct rsw_link_impair *li = __atomic_load_n(&rsw_links[p].im, __ATOMIC_ACQUIRE);
	struct rte_mbuf *out[1];
	uint16_t n;

	if (li == NULL)
		return rte_eth_tx_burst(rsw_dp.ports[p].eth_port, 0, &m, 1);
	rsw_meta(m)->flags = RSW_MF_ORIG; /* a PFC frame: its loss drops no received frame */
	/* With a delay the frame joins the line (poll sends it); without, it may go now. */
	n = rsw_impair_burst(&li->im, &m, 1, rte_rdtsc(), out, li->im.delay_ticks ? 0 : 1);
	sync_impair(st, p, li);
	if (n == 0)
		return 1; /* lost or delayed: taken */
	if (rte_eth_tx_burst(rsw_dp.ports[p].eth_port, 0, out, 1) == 1)
		return 1;
	if (out[0] != m) {
		rte_pktmbuf_free(out[0]); /* a copy: m is gone already */
		return 1;
	}
	return 0;
}

uint16_t
rsw_link_tx_cap_slow(uint16_t p)
{
	const struct rsw_link_llr *ll = rsw_links[p].llr;
	uint32_t room = rsw_llr_tx_room(ll->l);

	if (room > RSW_BURST)
		room = RSW_BURST;
	return room > ll->n_held ? (uint16_t)(room - ll->n_held) : 0;
}

uint16_t
rsw_link_poll_slow(struct rsw_lcore_stats *st, uint16_t p)
{
	struct rsw_link_llr *ll = rsw_links[p].llr;
	struct rsw_link_impair *li = __atomic_load_n(&rsw_links[p].im, __ATOMIC_ACQUIRE);
	struct rsw_port_sched *ps = &rsw_sched[p];
	struct rte_mbuf *out[RSW_BURST];
	uint16_t k = 0, room, work = 0;

	if (ll != NULL) {
		room = (uint16_t)(RTE_DIM(ps->pending) - ps->n_pending);
		k = rsw_llr_mbuf_poll(ll->l, rsw_link_now_ns(), rsw_dp.pool,
				      rsw_dp.ports[p].mac.addr_bytes, out,
				      (uint16_t)RTE_MIN(room, RSW_BURST));
		st->port[p].c[RSW_PC_llr_originated] += k;
		mark_orig(out, k, UINT32_MAX); /* control frames and replays */
		sync_llr(st, ll);
		if (k > 0)
			work += xmit(st, p, out, k);
		/* Frames held by a full window go as soon as it opens. */
		if (ll->n_held > 0 && rsw_llr_tx_room(ll->l) > 0 && ps->n_pending == 0)
			llr_tx(st, ll, NULL, 0);
	}
	/* Credit messages, once no frame the credits counted waits behind them. */
	if (rsw_links[p].cbfc != NULL) {
		int may_report = ps->n_pending == 0 && (ll == NULL || ll->n_held == 0);

		/* Every charged frame is past LLR: which of them LLR may still send again. */
		if (ll != NULL && may_report)
			rsw_cbfc_tx_window(&rsw_links[p].cbfc->c, ll->l->next_seq, ll->l->tail_seq);
		work += rsw_link_cbfc_poll(st, rsw_links[p].cbfc, may_report);
	}
	/* The delay line (xmit above served it already). */
	if (k == 0 && li != NULL && li->im.delay_ticks)
		work += xmit(st, p, NULL, 0);
	return (uint16_t)(work + k);
}
