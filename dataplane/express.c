/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The express path (rsw_express.h): for a burst of port in_port (trust DSCP, cut-through on,
 * the port up), the frames it can forward go straight to the PMD. @return the burst indices of
 * the frames it left for the general path, as a bit mask (all of them when it took none).
 */

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_prefetch.h>
#include <rte_version.h>

#include "rsw_express.h"
#include "rsw_lb.h"
#include "rsw_queue.h"
#include "rsw_rewrite.h"
#include "rsw_worker.h"

/* What the express path sends to one port: its per-TC counts, one word each (see tc_count). */
struct express_port {
	uint64_t tc[RSW_N_TC];
};

/* One frame of `bytes` for a TC's word of struct express_port: packets in the low 32 bits. */
static __rte_always_inline uint64_t
tc_count(uint32_t bytes)
{
	return (uint64_t)bytes << 32 | 1;
}

/* The candidates of one family: frame, burst index, lookup result, flow hash, length, TC. */
struct express_fam {
	struct rte_mbuf *m[RSW_BURST];
	uint64_t nh[RSW_BURST];
	uint32_t h[RSW_BURST]; /* rsw_lb_hash, for a result that is not a plain route */
	uint16_t l3_len[RSW_BURST];
	uint8_t idx[RSW_BURST];
	uint8_t tc[RSW_BURST];
	uint16_t n;
};

struct express {
	struct express_fam f4, f6;
	uint32_t key4[RSW_BURST];    /* destination, host order */
	uint8_t key6[RSW_BURST][16]; /* destination */
	uint32_t checked;            /* egress ports looked at in this burst */
	uint32_t open;               /* egress ports taking express frames */
	uint64_t bytes;              /* the candidates' bytes */
	uint64_t now;
	/* Per egress port, strides of powers of two: frames, their number, per-TC counts. */
	struct rte_mbuf *m[RSW_MAX_PORTS][RSW_BURST];
	uint8_t n[RSW_MAX_PORTS];
	struct express_port port[RSW_MAX_PORTS];
};

/* Whether egress port p takes express frames in this burst (then its counts start at 0). */
static __rte_noinline bool
express_open(struct express *x, uint16_t p)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t storm;

	x->checked |= 1u << p;
	memcpy(&storm, qport->storm_drop, sizeof(storm));
	if (rsw_dp.ports[p].owner != rte_lcore_id() || !rsw_port_idle(p) || storm != 0 ||
	    rsw_paused_mask(qport, x->now) != 0)
		return false;
	if (qport->speed_bps) {
		struct rsw_port_sched *ps = &rsw_sched[p];

		rsw_shaper_refill(ps, qport->speed_bps, rsw_dp.ports[p].mtu, x->now);
		if (ps->tokens_milli < rsw_wire_milli(x->bytes, x->f4.n + x->f6.n))
			return false;
	}
	x->n[p] = 0;
	memset(&x->port[p], 0, sizeof(x->port[p]));
	x->open |= 1u << p;
	return true;
}

/*
 * The burst check: whether the general path's admission takes every candidate (tcs: their
 * TCs; tc_bytes: their bytes per TC, the most the burst adds to any queue or PG).
 */
static inline bool
express_admits(const struct express *x, const struct rsw_qos_params *qp, uint16_t in_port,
	       uint8_t tcs, const uint64_t tc_bytes[RSW_N_TC])
{
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED), pg_max;
	uint8_t lossless = tcs & qp->lossless;
	unsigned int tc;

	if (used + qp->headroom_reserved + x->bytes > qp->total)
		return false;
	for (; tcs != 0; tcs &= (uint8_t)(tcs - 1)) {
		tc = (unsigned int)__builtin_ctz(tcs);
		if (tc_bytes[tc] > qp->express_bytes[tc])
			return false;
	}
	if (lossless == 0)
		return true;
	/* A lossless TC: XOFF at the fullest buffer the burst can leave, as pg_room. */
	pg_max = rsw_pfc_xoff(qp, used + x->bytes) + qp->headroom;
	for (; lossless != 0; lossless &= (uint8_t)(lossless - 1)) {
		tc = (unsigned int)__builtin_ctz(lossless);
		if (__atomic_load_n(&rsw_qos.port[in_port].pg_bytes[tc], __ATOMIC_RELAXED) +
			    tc_bytes[tc] >
		    pg_max)
			return false;
	}
	return true;
}

/*
 * Send what the express path forwarded to port p (TCs among tcs), with the counters
 * cut-through keeps. @return its bytes.
 */
static inline uint64_t
express_tx(struct rsw_lcore_stats *st, struct express *x, uint16_t p, uint8_t tcs)
{
	const struct express_port *xp = &x->port[p];
	struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t bytes = 0, c;
	unsigned int tc;

	while (tcs != 0) {
		tc = (unsigned int)__builtin_ctz(tcs);
		tcs &= (uint8_t)(tcs - 1);
		c = xp->tc[tc];
		if (c == 0)
			continue;
		bytes += c >> 32;
		rsw_count_cut_through(st, p, (uint8_t)tc, (uint32_t)c, c >> 32);
	}
	if (qport->speed_bps)
		rsw_sched[p].tokens_milli -= rsw_wire_milli(bytes, x->n[p]);
	rsw_port_tx(st, p, x->m[p], x->n[p], bytes); /* pending is empty: room for 32 */
	return bytes;
}

/*
 * Pass 1's running totals: a local of express_burst, not in struct express, so that they stay
 * in registers (the byte stores to the candidate arrays could alias anything in that struct).
 */
struct express_acc {
	unsigned int n4, n6;
	uint64_t tc_bytes[RSW_N_TC];
};

/* Make frame m a candidate of family f, number k: burst index idx, IP length, DSCP. */
static __rte_always_inline void
express_add(struct express_acc *a, struct express_fam *f, unsigned int k,
	    const struct rsw_tables *t, struct rte_mbuf *m, uint8_t idx, uint16_t l3_len,
	    uint8_t dscp)
{
	uint8_t tc = t->dscp_to_tc[dscp];
	uint32_t len = rte_pktmbuf_pkt_len(m);

	f->m[k] = m;
	f->idx[k] = idx;
	f->l3_len[k] = l3_len;
	f->tc[k] = tc;
	a->tc_bytes[tc] += len; /* the TCs and total bytes follow from these, once per burst */
}

/* Make frame m (burst index idx) a candidate if rsw_parse_express4/6 takes it. */
static __rte_always_inline bool
express_take(struct express *x, struct express_acc *a, const struct rsw_tables *t,
	     struct rte_mbuf *m, uint8_t idx, uint64_t mac48)
{
	const struct rte_ipv4_hdr *ip4 = rsw_parse_express4(m, mac48);
	const struct rte_ipv6_hdr *ip6;

	if (likely(ip4 != NULL)) {
		x->key4[a->n4] = rsw_ntohl(ip4->dst_addr);
		express_add(a, &x->f4, a->n4++, t, m, idx, rsw_ntohs(ip4->total_length),
			    (uint8_t)((unsigned int)ip4->type_of_service >> 2));
		return true;
	}
	ip6 = rsw_parse_express6(m, mac48);
	if (likely(ip6 != NULL)) {
		memcpy(x->key6[a->n6], ip6->dst_addr, 16);
		express_add(a, &x->f6, a->n6++, t, m, idx,
			    (uint16_t)(sizeof(*ip6) + rsw_ntohs(ip6->payload_len)),
			    (uint8_t)((rsw_ntohl(ip6->vtc_flow) >> 22) & 0x3f));
		return true;
	}
	return false;
}

/*
 * The rest of forwarding candidate k of family f (kind) to port out, neighbour neigh, counted
 * on the group member's counters lb (a connected host's: rsw_lcore_stats.connected). @return
 * false when the general path must take it (nothing changed).
 */
static __rte_always_inline bool
express_out(struct express *x, const struct express_fam *f, unsigned int k, uint8_t kind,
	    unsigned int out, uint32_t neigh, struct rsw_lb_member_stats *lb)
{
	struct rte_mbuf *m = f->m[k];
	const struct rsw_port_rt *pr;
	uint16_t l3_len = f->l3_len[k];
	uint64_t mac;
	uint32_t len;
	uint8_t tc;

	if (unlikely(!((x->open >> out) & 1)) &&
	    (((x->checked >> out) & 1) || !express_open(x, out)))
		return false;
	pr = &rsw_dp.ports[out];
	RSW_OPAQUE(pr); /* computed once: GCC 12 made it twice, for fwd_mtu and for the MAC */
	/* Too big, or the port is down (fwd_mtu 0: check both). */
	if (unlikely(l3_len > pr->fwd_mtu) && (pr->admin_down || l3_len > pr->mtu))
		return false;
	/* A group member's neighbour is an entry: tables.c refuses the route when the table is
	 * full. */
	mac = __atomic_load_n(&rsw_fib_main.neigh[neigh].mac_valid, __ATOMIC_ACQUIRE);
	if (unlikely(!(mac & RSW_NEIGH_VALID)))
		return false;
	rsw_rewrite_word(m, RTE_ETHER_HDR_LEN, kind, mac, &pr->mac);
	len = rte_pktmbuf_pkt_len(m);
	tc = f->tc[k];
	rsw_lb_count(lb, len);
	x->m[out][x->n[out]++] = m;
	x->port[out].tc[tc] += tc_count(len);
	return true;
}

/*
 * express_fwd for a group gid that is not a plain route: a group of one member, one that
 * hashes (f->h[k], computed for the burst by express_hash) or one that sprays round-robin: the
 * member rsw_lb_select_h would pick. A spraying group's position moves on only when the frame
 * goes, so each entry of the spray sequence is taken once, by whichever path sends the frame.
 * Random spray, adaptive and flowlet groups go to the general path. Inline (docs/perf.md).
 */
static __rte_always_inline bool
express_group(struct express *x, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	      const struct express_fam *f, unsigned int k, uint8_t kind, uint32_t gid)
{
	const struct rsw_group *g = &t->groups[gid];
	uint16_t live = rsw_lb_live(g, gid);
	uint32_t mi = 0, pos = st->lb_state.rr[gid];
	const struct rsw_nexthop *nh;

	if (unlikely(live == 0))
		return false;
	if (g->n_members > 1) {
		int mode = rsw_lb_mode_for_tc(t, g->lb_mode, f->tc[k]);

		if (mode == RSW_LB_HASH && t->lb_hash_batch) /* set when tables can hash */
			mi = rsw_lb_pick_live(g, live, f->h[k]);
		else if (mode == RSW_LB_SPRAY && !t->spray_random)
			mi = rsw_lb_spray_rr(g, live, &pos);
		else
			return false;
	}
	nh = &t->nh[g->members[mi]];
	if (!express_out(x, f, k, kind, nh->port, nh->neigh, &st->lb[gid][mi]))
		return false;
	st->lb_state.rr[gid] = pos;
	return true;
}

/*
 * Forward candidate k of family f (kind: its enum rsw_pkt_kind) if its route, port, MTU and
 * neighbour allow. @return false when the general path must take it (nothing changed).
 */
static __rte_always_inline bool
express_fwd(struct express *x, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	    const struct express_fam *f, unsigned int k, uint8_t kind)
{
	uint64_t nhv = f->nh[k];
	const struct rsw_result *r = &t->results[nhv] /* < n_results: rsw_tables_add_route */;
	struct rsw_lb_member_stats *lb;
	uint32_t ni;

	if (unlikely(!rsw_result_plain(r))) {
		if (r->type == RSW_RES_GROUP)
			return express_group(x, st, t, f, k, kind, r->id);
		if (r->type != RSW_RES_CONNECTED || r->adj_mask == 0 || kind != RSW_PK_IPV4)
			return false;
		/* A host of a connected subnet, through its adjacency: the plain route's step. */
		ni = rsw_adj_lookup4(t, r, x->key4[k]);
		if (unlikely(ni == RSW_ADJ_NONE))
			return false;
		lb = &st->connected;
	} else {
		if (unlikely(__atomic_load_n(&rsw_lb_down[r->id], __ATOMIC_RELAXED) & 1))
			return false;
		ni = r->neigh;
		lb = &st->lb[r->id][0];
	}
	return express_out(x, f, k, kind, r->port, ni, lb);
}

/*
 * The flow hashes of family f's candidates whose result is a group of two or more members
 * (kind: its enum rsw_pkt_kind), in a loop of their own: the CRC chains of different frames
 * overlap there, where inside the forwarding step each waited on the one before.
 */
static __rte_always_inline void
express_hash(struct express_fam *f, const struct rsw_tables *t, uint8_t kind)
{
	const struct rsw_result *res = t->results;
	struct rsw_lb_sel s;
	const uint8_t *l3;
	unsigned int k, n = f->n;

	rsw_lb_sel_init(&s, t);
	for (k = 0; k < n; k++) {
		/* Only a group of two or more members hashes: not a plain route, not a host. */
		if (likely(!rsw_result_multi(&res[f->nh[k]])))
			continue;
		l3 = rte_pktmbuf_mtod_offset(f->m[k], const uint8_t *, RTE_ETHER_HDR_LEN);
		if (kind == RSW_PK_IPV4)
			f->h[k] =
				likely(s.fast4)
					? rsw_lb_hash_fast4(&s, (const struct rte_ipv4_hdr *)l3)
					: rsw_lb_hash_express4(&s, (const struct rte_ipv4_hdr *)l3);
		else
			f->h[k] = rsw_lb_hash_express6(&s, (const struct rte_ipv6_hdr *)l3);
	}
}

uint32_t
rsw_express_burst(struct rsw_lcore_stats *st, const struct rsw_tables *t, uint16_t in_port,
		  struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	const uint64_t mac48 = rsw_mac48(&rsw_dp.ports[in_port].mac);
	struct express x;
	uint64_t fwd_bytes = 0;
	uint32_t slow = 0, open;
	struct express_acc a = {0};
	uint64_t tc_bytes[RSW_N_TC];
	unsigned int k, nf;
	uint16_t i, p, n_fwd = 0;
	uint8_t tcs = 0;

	for (i = 0; i < RSW_PREFETCH_OFFSET && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	/* The prefetch of frame i + 3 without a branch per frame, then the last three. */
	for (i = 0; i + RSW_PREFETCH_OFFSET < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RSW_PREFETCH_OFFSET], void *));
		if (unlikely(!express_take(&x, &a, t, pkts[i], (uint8_t)i, mac48)))
			slow |= 1u << i;
	}
	for (; i < n; i++)
		if (unlikely(!express_take(&x, &a, t, pkts[i], (uint8_t)i, mac48)))
			slow |= 1u << i;
	x.f4.n = (uint16_t)a.n4;
	x.f6.n = (uint16_t)a.n6;
	/* A copy for the burst check: a's address taken, its totals would leave the registers. */
	memcpy(tc_bytes, a.tc_bytes, sizeof(tc_bytes));
	x.bytes = 0;
	for (i = 0; i < RSW_N_TC; i++) {
		x.bytes += a.tc_bytes[i];
		tcs |= (uint8_t)((a.tc_bytes[i] != 0) << i); /* a frame has 14 bytes or more */
	}
	if (unlikely(x.f4.n + x.f6.n == 0 ||
		     !express_admits(&x, &t->qos, in_port, tcs, tc_bytes))) {
		st->express_skip[in_port] = RSW_EXPRESS_BACKOFF;
		return n >= 32 ? UINT32_MAX : (1u << n) - 1; /* the whole burst */
	}

	x.checked = x.open = 0;
	x.now = now;
	if (x.f4.n > 0) {
		rte_fib_lookup_bulk(t->fib4, x.key4, x.f4.nh, x.f4.n);
		if (t->lb_hash_batch)
			express_hash(&x.f4, t, RSW_PK_IPV4);
		for (k = 0, nf = x.f4.n; k < nf; k++)
			if (unlikely(!express_fwd(&x, st, t, &x.f4, k, RSW_PK_IPV4)))
				slow |= 1u << x.f4.idx[k];
	}
	if (x.f6.n > 0) {
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
		rte_fib6_lookup_bulk(t->fib6, (const struct rte_ipv6_addr *)x.key6, x.f6.nh,
				     x.f6.n);
#else
		rte_fib6_lookup_bulk(t->fib6, x.key6, x.f6.nh, x.f6.n);
#endif
		if (t->lb_hash_batch)
			express_hash(&x.f6, t, RSW_PK_IPV6);
		for (k = 0, nf = x.f6.n; k < nf; k++)
			if (unlikely(!express_fwd(&x, st, t, &x.f6, k, RSW_PK_IPV6)))
				slow |= 1u << x.f6.idx[k];
	}

	for (open = x.open; open != 0; open &= open - 1) {
		p = (uint16_t)__builtin_ctz(open);
		if (x.n[p] == 0)
			continue;
		n_fwd = (uint16_t)(n_fwd + x.n[p]);
		fwd_bytes += express_tx(st, &x, p, tcs);
	}
	st->port[in_port].c[RSW_PC_rx_packets] += n_fwd;
	st->port[in_port].c[RSW_PC_rx_bytes] += fwd_bytes;
	st->express_packets += n_fwd;
	if (unlikely(x.f4.n + x.f6.n > 2 * n_fwd))
		st->express_skip[in_port] =
			RSW_EXPRESS_BACKOFF; /* most bounced: adaptive groups, busy ports */
	return slow;
}
