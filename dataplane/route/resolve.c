/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 4-6 of the packet path for the frames of one bulk lookup (see
 * rsw_resolve.h): a route (plain or a group), a connected subnet (its
 * neighbour), local delivery, or no route; then the MTU, the neighbour's MAC,
 * the rewrite, and the frame staged on its egress port.
 */

#include <rte_branch_prediction.h>
#include <rte_ip.h>

#include "rsw_lb.h"
#include "rsw_mmu.h"
#include "rsw_queue.h"
#include "rsw_resolve.h"
#include "rsw_rewrite.h"

__rte_noinline void
rsw_punt_meta(struct rte_mbuf *m, const struct rsw_pkt_info *info, uint16_t in_port, uint8_t reason,
	      uint32_t neigh, uint16_t out_port)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);

	meta->reason = reason;
	meta->neigh = neigh;
	meta->tc = info->tc;
	meta->in_port = (uint8_t)in_port;
	meta->kind = info->kind;
	meta->out_port = out_port;
	meta->l3_off = info->l3_off;
}

/*
 * A packet that is not forwarded for a reason ICMP reports: counted under that reason, and
 * handed to the control thread to answer (not counted as punted) when answer is set.
 */
static inline void
icmp_error(struct rsw_burst *c, struct rsw_lcore_stats *st, uint8_t answer, uint16_t in_port,
	   struct rte_mbuf *m, const struct rsw_pkt_info *info, enum rsw_port_ctr why,
	   uint8_t reason)
{
	st->port[in_port].c[why]++;
	if (!answer) {
		c->freed[c->n_freed++] = m;
		return;
	}
	rsw_punt_meta(m, info, in_port, reason, UINT32_MAX, in_port);
	c->err[c->n_err++] = m;
}

/*
 * The member of group gid (g, two or more members) for frame k of family f (kind), live its
 * live members (non-zero): hash mode with the burst's hash and round-robin spray inline, as
 * most groups choose; the other modes (rsw_lb_select_multi) read the frame's parse record, made
 * for it if it has none. rsw_lb_select_h's choice.
 */
static __rte_always_inline uint32_t
select_member(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	      const struct rsw_group *g, uint32_t gid, const struct rsw_fam *f, uint16_t k,
	      const struct rsw_pkt_info *info, uint16_t live)
{
	int mode;

	/* A CNP (it has a record) always hashes. */
	mode = info != NULL && (info->flags & RSW_PF_CNP)
		       ? RSW_LB_HASH
		       : rsw_lb_mode_for_tc(t, g->lb_mode, f->tc[k]);
	if (mode == RSW_LB_HASH && t->lb_hash_batch)
		return rsw_lb_pick_live(g, live, f->hash[k]);
	if (mode == RSW_LB_SPRAY && !t->spray_random)
		return rsw_lb_spray_rr(g, live, &st->lb_state.rr[gid]);
	if (info == NULL)
		info = rsw_burst_record(c, f->idx[k], f->m[k]);
	return rsw_lb_select_multi(t, g, gid, f->m[k], info, &st->lb_state, c->now, live,
				   t->lb_hash_batch ? &f->hash[k] : NULL);
}

/*
 * Steps 4-6 for frame k of family f (kind, a constant): result, load balance, MTU, neighbour,
 * rewrite, stage. fast (a constant): no frame of the family has a parse record (every one is
 * the parse step's common case: l3_off RTE_ETHER_HDR_LEN, a TTL above 1, not a CNP), so none is
 * looked at; else the frame's record is read where it has one (c->rec).
 */
static __rte_always_inline void
forward_one(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	    uint16_t in_port, const struct rsw_fam *f, uint16_t k, const uint8_t kind,
	    const int fast)
{
	struct rte_mbuf *m = f->m[k];
	const uint8_t idx = f->idx[k];
	const struct rsw_pkt_info *info = !fast && ((c->rec >> idx) & 1) ? &c->info[idx] : NULL;
	const struct rsw_result *r = &t->results[f->nh[k]] /* < n_results: rsw_tables_add_route */;
	const uint16_t l3_off = info != NULL ? info->l3_off : RTE_ETHER_HDR_LEN;
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off);
	const struct rsw_port_rt *pr;
	struct rsw_lb_member_stats *lb;
	uint32_t neigh_idx, len;
	uint16_t out;
	uint64_t mac;
	int ni;

	if (likely(r->type == RSW_RES_GROUP)) {
		/* A route: checked first, as most packets take one. */
		const struct rsw_group *g;
		const struct rsw_nexthop *nh;
		uint32_t mi;
		uint16_t live;

		if (info != NULL && unlikely(info->ttl <= 1))
			goto ttl;
		if (likely(r->single)) {
			/* A plain route: its next hop is in the result. */
			if (unlikely(__atomic_load_n(&rsw_lb_down[r->id], __ATOMIC_RELAXED) & 1)) {
				rsw_burst_drop(c, st, in_port, m, RSW_PC_group_empty);
				return;
			}
			out = r->port;
			neigh_idx = r->neigh;
			mi = 0;
		} else {
			g = &t->groups[r->id];
			live = rsw_lb_live(g, r->id);
			if (unlikely(live == 0)) {
				/* Every member is down. */
				rsw_burst_drop(c, st, in_port, m, RSW_PC_group_empty);
				return;
			}
			mi = g->n_members == 1
				     ? 0
				     : select_member(c, st, t, g, r->id, f, k, info, live);
			nh = &t->nh[g->members[mi]];
			out = nh->port;
			neigh_idx = nh->neigh;
		}
		lb = &st->lb[r->id][mi];
	} else {
		switch (r->type) {
		case RSW_RES_LOCAL:
			/* Delivered before the TTL check. */
			rsw_punt_meta(m, rsw_burst_record(c, idx, m), in_port, RSW_PUNT_LOCAL,
				      UINT32_MAX, r->port);
			c->punt[c->n_punt++] = m;
			return;
		case RSW_RES_CONNECTED:
			if (info != NULL && unlikely(info->ttl <= 1))
				goto ttl;
			out = r->port;
			lb = &st->connected;
			if (likely(r->adj_mask != 0) && kind == RSW_PK_IPV4) {
				/* The subnet's adjacency: RSW_ADJ_NONE (unresolved) is UINT32_MAX. */
				neigh_idx = rsw_adj_lookup4(
					t, r,
					rsw_ntohl(((const struct rte_ipv4_hdr *)l3)->dst_addr));
				break;
			}
			if (kind == RSW_PK_IPV4)
				ni = rsw_neigh_lookup4(((const struct rte_ipv4_hdr *)l3)->dst_addr);
			else
				ni = rsw_neigh_lookup6(((const struct rte_ipv6_hdr *)l3)->dst_addr);
			neigh_idx = ni < 0 ? UINT32_MAX : (uint32_t)ni;
			break;
		default:
			icmp_error(c, st, t->icmp_unreachable, in_port, m,
				   rsw_burst_record(c, idx, m), RSW_PC_no_route, RSW_PUNT_NO_ROUTE);
			return;
		}
	}

	len = rte_pktmbuf_pkt_len(m);
	rsw_lb_count(lb, len);
	pr = &rsw_dp.ports[out];
	RSW_OPAQUE(pr); /* computed once: GCC 12 made it twice, for fwd_mtu and for the MAC */
	/* fwd_mtu is the MTU of a port that is up: one compare for the common case. */
	if (unlikely(f->l3_len[k] > pr->fwd_mtu)) {
		if (unlikely(pr->admin_down)) {
			rsw_burst_drop(c, st, in_port, m, RSW_PC_port_down);
			return;
		}
		if (unlikely(f->l3_len[k] > pr->mtu)) {
			icmp_error(c, st, t->icmp_unreachable, in_port, m,
				   rsw_burst_record(c, idx, m), RSW_PC_mtu_exceeded, RSW_PUNT_MTU);
			rsw_meta(m)->out_port = out;
			return;
		}
	}
	mac = neigh_idx == UINT32_MAX
		      ? 0
		      : __atomic_load_n(&rsw_fib_main.neigh[neigh_idx].mac_valid, __ATOMIC_ACQUIRE);
	if (unlikely(!(mac & RSW_NEIGH_VALID))) {
		rsw_punt_meta(m, rsw_burst_record(c, idx, m), in_port, RSW_PUNT_NEIGH, neigh_idx,
			      out);
		c->punt[c->n_punt++] = m;
		return;
	}
	rsw_rewrite_word(m, l3_off, kind, mac, &pr->mac);
	/* A CNP has admission rules of its own (never tail-dropped, counted cnp_tx): admitted
	 * alone, after the port's staged frames. */
	if (info != NULL && unlikely(info->flags & RSW_PF_CNP))
		rsw_mmu_admit(c, st, &t->qos, in_port, out, m, idx);
	else
		rsw_stage(c, out, m, idx, f->tc[k], len);
	return;
ttl:
	/* Time exceeded is always answered (traceroute), rate-limited by the control thread. */
	icmp_error(c, st, 1, in_port, m, info, RSW_PC_ttl_expired, RSW_PUNT_TTL);
}

/* Whether any frame of family f has a parse record (rec: by burst index). */
static inline bool
fam_has_record(const struct rsw_fam *f, uint32_t rec)
{
	uint16_t k;

	if (likely(rec == 0))
		return false;
	for (k = 0; k < f->n; k++)
		if ((rec >> f->idx[k]) & 1)
			return true;
	return false;
}

void
rsw_resolve_burst(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		  uint16_t in_port, const struct rsw_fam *f, uint8_t kind)
{
	uint16_t k, n = f->n;

	/* One body, the family a constant of each loop (the rewrite and the adjacency), and
	 * whether a frame of the family has a parse record (not the parse step's common case). */
	if (kind == RSW_PK_IPV4) {
		if (likely(!fam_has_record(f, c->rec)))
			for (k = 0; k < n; k++)
				forward_one(c, st, t, in_port, f, k, RSW_PK_IPV4, 1);
		else
			for (k = 0; k < n; k++)
				forward_one(c, st, t, in_port, f, k, RSW_PK_IPV4, 0);
	} else {
		if (likely(!fam_has_record(f, c->rec)))
			for (k = 0; k < n; k++)
				forward_one(c, st, t, in_port, f, k, RSW_PK_IPV6, 1);
		else
			for (k = 0; k < n; k++)
				forward_one(c, st, t, in_port, f, k, RSW_PK_IPV6, 0);
	}
}
