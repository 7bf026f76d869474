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
 * Steps 4-6 for one looked-up packet: result, load balance, MTU, neighbour, rewrite, stage.
 * fast (a constant): the packet is the parse step's common case (l3_off RTE_ETHER_HDR_LEN, a
 * TTL above 1), so neither is read from its record.
 */
static __rte_always_inline void
forward_one(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	    uint16_t in_port, struct rte_mbuf *m, uint8_t idx, uint64_t nhv, const uint8_t kind,
	    const int fast)
{
	const struct rsw_pkt_info *info = &c->info[idx];
	const struct rsw_result *r = &t->results[nhv] /* < n_results: rsw_tables_add_route */;
	const uint16_t l3_off = fast ? RTE_ETHER_HDR_LEN : info->l3_off;
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off);
	const struct rsw_port_rt *pr;
	struct rsw_lb_member_stats *lb;
	uint32_t neigh_idx;
	uint16_t out;
	uint64_t mac;
	int ni;

	if (likely(r->type == RSW_RES_GROUP)) {
		/* A route: checked first, as most packets take one. */
		const struct rsw_group *g;
		const struct rsw_nexthop *nh;
		uint32_t mi;

		if (!fast && unlikely(info->ttl <= 1))
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
			mi = rsw_lb_select_h(t, g, r->id, m, info, &st->lb_state, c->now,
					     t->lb_hash_batch ? &c->hash[idx] : NULL);
			if (unlikely(mi == RSW_LB_NONE)) {
				/* Every member is down. */
				rsw_burst_drop(c, st, in_port, m, RSW_PC_group_empty);
				return;
			}
			nh = &t->nh[g->members[mi]];
			out = nh->port;
			neigh_idx = nh->neigh;
		}
		lb = &st->lb[r->id][mi];
	} else {
		switch (r->type) {
		case RSW_RES_LOCAL:
			/* Delivered before the TTL check. */
			rsw_punt_meta(m, info, in_port, RSW_PUNT_LOCAL, UINT32_MAX, r->port);
			c->punt[c->n_punt++] = m;
			return;
		case RSW_RES_CONNECTED:
			if (!fast && unlikely(info->ttl <= 1))
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
			icmp_error(c, st, t->icmp_unreachable, in_port, m, info, RSW_PC_no_route,
				   RSW_PUNT_NO_ROUTE);
			return;
		}
	}

	rsw_lb_count(lb, rte_pktmbuf_pkt_len(m));
	pr = &rsw_dp.ports[out];
	RSW_OPAQUE(pr); /* computed once: GCC 12 made it twice, for fwd_mtu and for the MAC */
	/* fwd_mtu is the MTU of a port that is up: one compare for the common case. */
	if (unlikely(info->l3_len > pr->fwd_mtu)) {
		if (unlikely(pr->admin_down)) {
			rsw_burst_drop(c, st, in_port, m, RSW_PC_port_down);
			return;
		}
		if (unlikely(info->l3_len > pr->mtu)) {
			icmp_error(c, st, t->icmp_unreachable, in_port, m, info,
				   RSW_PC_mtu_exceeded, RSW_PUNT_MTU);
			rsw_meta(m)->out_port = out;
			return;
		}
	}
	mac = neigh_idx == UINT32_MAX
		      ? 0
		      : __atomic_load_n(&rsw_fib_main.neigh[neigh_idx].mac_valid, __ATOMIC_ACQUIRE);
	if (unlikely(!(mac & RSW_NEIGH_VALID))) {
		rsw_punt_meta(m, info, in_port, RSW_PUNT_NEIGH, neigh_idx, out);
		c->punt[c->n_punt++] = m;
		return;
	}
	rsw_rewrite_word(m, l3_off, kind, mac, &pr->mac);
	/* A CNP has admission rules of its own (never tail-dropped, counted cnp_tx): admitted
	 * alone, after the port's staged frames. */
	if (unlikely(info->flags & RSW_PF_CNP))
		rsw_mmu_admit(c, st, &t->qos, in_port, out, m, idx);
	else
		rsw_stage(c, out, m, idx);
	return;
ttl:
	/* Time exceeded is always answered (traceroute), rate-limited by the control thread. */
	icmp_error(c, st, 1, in_port, m, info, RSW_PC_ttl_expired, RSW_PUNT_TTL);
}

void
rsw_resolve_burst(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		  uint16_t in_port, struct rte_mbuf *const *m, const uint8_t *idx,
		  const uint64_t *nh, uint16_t n, uint8_t kind)
{
	uint16_t i;

	/* One body, the family a constant of each loop (the rewrite and the adjacency), and
	 * whether every frame of the burst is the parse step's common case (c->slow clear). */
	if (kind == RSW_PK_IPV4) {
		if (likely(!c->slow))
			for (i = 0; i < n; i++)
				forward_one(c, st, t, in_port, m[i], idx[i], nh[i], RSW_PK_IPV4, 1);
		else
			for (i = 0; i < n; i++)
				forward_one(c, st, t, in_port, m[i], idx[i], nh[i], RSW_PK_IPV4, 0);
	} else {
		if (likely(!c->slow))
			for (i = 0; i < n; i++)
				forward_one(c, st, t, in_port, m[i], idx[i], nh[i], RSW_PK_IPV6, 1);
		else
			for (i = 0; i < n; i++)
				forward_one(c, st, t, in_port, m[i], idx[i], nh[i], RSW_PK_IPV6, 0);
	}
}
