/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 4-7 of the packet path (docs/architecture.md) after the lookup, the resolve step: what a
 * FIB result means for each frame (local, connected, a route or a group, no route), load
 * balancing over a group, the egress MTU and admin state, the neighbour, the rewrite, then the
 * frame staged on its egress port (rsw_queue.h; a CNP admitted alone, rsw_mmu.h). Frames the
 * control thread must see (local, unresolved, TTL, ICMP errors) are punted with metadata.
 * The loop is inline here (it runs in the burst driver's frame); its rare branches are in
 * resolve.c.
 */

#ifndef RSW_RESOLVE_H
#define RSW_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "rsw_burst.h"
#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_mmu.h"
#include "rsw_parse.h"
#include "rsw_queue.h"
#include "rsw_rewrite.h"

/**
 * Hand a packet to the control thread (it is counted as punted by the caller). Out of line:
 * inline, the compiler prepared its metadata words on the forwarding path of every packet.
 */
void rsw_punt_meta(struct rte_mbuf *m, const struct rsw_pkt_info *info, uint16_t in_port,
		   uint8_t reason, uint32_t neigh, uint16_t out_port);

/**
 * Frame k of family f is not forwarded for a reason ICMP reports: counted under that reason
 * (why) on the ingress port, and handed to the control thread to answer (with reason, its
 * record made; not counted as punted) when answer is set, else freed with the burst.
 */
void rsw_resolve_icmp(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k, uint8_t answer,
		      enum rsw_port_ctr why, uint8_t reason);

/**
 * The member of group gid (g: two or more members, live: the live ones, non-zero) for frame k
 * of family f that resolve's inline cases do not take: a CNP, or a mode other than hash with
 * the burst's hash and round-robin spray (rsw_lb_select_multi, which reads the frame's record:
 * made if it has none).
 */
uint32_t rsw_resolve_select_other(struct rsw_burst *c, const struct rsw_group *g, uint32_t gid,
				  const struct rsw_fam *f, uint16_t k, uint16_t live);

/**
 * Group gid has no live member: the first member down only because its neighbour failed
 * (rsw_lb_ask), which the frame goes to, to be punted and ask the neighbour again; or
 * RSW_LB_NONE (none: the frame is dropped, group_empty).
 */
uint32_t rsw_resolve_ask(uint32_t gid);

/** Frame k of family f dropped for reason why (counted on the ingress port). */
void rsw_resolve_drop(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k,
		      enum rsw_port_ctr why);

/**
 * Frame k of family f, routed to port out, is larger than the port's forwarding MTU (0 when the
 * port is down): dropped port_down, or too big (an ICMP error), or within the port's MTU after
 * all. @return whether it goes on.
 */
bool rsw_resolve_mtu(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k, uint16_t out);

/** Frame k of family f punted for reason (RSW_PUNT_LOCAL, RSW_PUNT_NEIGH), its record made. */
void rsw_resolve_punt(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k, uint8_t reason,
		      uint32_t neigh, uint16_t out);

/*
 * The member of group gid (g, two or more members) for frame k of family f, live its live
 * members (non-zero), info its record or NULL: hash mode with the burst's hash and round-robin
 * spray inline, as most groups choose; CNPs and the other modes in rsw_resolve_select_other.
 * rsw_lb_select_h's choice.
 */
static __rte_always_inline uint32_t
rsw_resolve_member(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		   const struct rsw_group *g, uint32_t gid, const struct rsw_fam *f, uint16_t k,
		   const struct rsw_pkt_info *info, uint16_t live)
{
	/* The frame's TC hashes through g (the tables say so once per group; a CNP would hash
	 * too): one test, not the mode's three. */
	if (likely((g->hash_tcs >> f->tc[k]) & 1))
		return rsw_lb_pick_live(g, live, f->hash[k]);
	/* Round-robin spray, but not for a CNP (it has a record), which always hashes. */
	if ((info == NULL || !(info->flags & RSW_PF_CNP)) &&
	    rsw_lb_mode_for_tc(t, g->lb_mode, f->tc[k]) == RSW_LB_SPRAY && !t->spray_random)
		return rsw_lb_spray_rr(g, live, &st->lb_state.rr[gid]);
	/* A CNP, and the other modes: rsw_lb_select_multi (with the burst's hash, if any). */
	return rsw_resolve_select_other(c, g, gid, f, k, live);
}

/*
 * Steps 4-6 for frame k of family f (kind, a constant): result, load balance, MTU, neighbour,
 * rewrite, stage. fast (a constant): no frame of the family has a parse record (every one is
 * the parse step's common case: l3_off RTE_ETHER_HDR_LEN, a TTL above 1, not a CNP), so none is
 * looked at; else the frame's record is read where it has one (c->rec).
 */
static __rte_always_inline void
rsw_resolve_one(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		const struct rsw_fam *f, uint16_t k, const uint8_t kind, const int fast)
{
	struct rte_mbuf *m = f->m[k];
	const uint8_t idx = f->idx[k];
	const struct rsw_pkt_info *info = !fast && ((c->rec >> idx) & 1) ? &c->info[idx] : NULL;
	const struct rsw_result *r = &t->results[f->nh[k]] /* < n_results: rsw_tables_add_route */;
	const struct rsw_port_rt *pr;
	struct rsw_lb_member_stats *lb;
	uint32_t neigh_idx, len;
	unsigned int out; /* not 16 bits: no widening for the port's entry and the staging rows */
	uint64_t mac;
	int ni;

	if (likely(rsw_result_plain(r))) {
		/* A plain route, checked first (one compare), as most packets take one: its next
		 * hop is in the result. */
		if (info != NULL && unlikely(info->ttl <= 1))
			goto ttl;
		if (unlikely(__atomic_load_n(&rsw_lb_down[r->id], __ATOMIC_RELAXED) & 1) &&
		    !(__atomic_load_n(&rsw_lb_ask[r->id], __ATOMIC_RELAXED) & 1)) {
			/* Down, and not for a neighbour to ask again (rsw_lb_ask). */
			rsw_resolve_drop(c, f, k, RSW_PC_group_empty);
			return;
		}
		out = r->port;
		neigh_idx = r->neigh;
		lb = &st->lb[r->id][0];
	} else if (r->type == RSW_RES_CONNECTED) {
		/* A host of a connected subnet: through the subnet's adjacency (IPv4; RSW_ADJ_NONE,
		 * unresolved, is RSW_NEIGH_NONE), else the neighbour table. */
		if (info != NULL && unlikely(info->ttl <= 1))
			goto ttl;
		out = r->port;
		lb = &st->connected;
		if (likely(kind == RSW_PK_IPV4 && r->adj_mask != 0)) {
			neigh_idx = rsw_adj_lookup4(t, r, c->v4_ip[k]);
		} else {
			ni = kind == RSW_PK_IPV4 ? rsw_neigh_lookup4(rsw_ntohl(c->v4_ip[k]))
						 : rsw_neigh_lookup6(c->v6_ip[k]);
			neigh_idx = ni < 0 ? RSW_NEIGH_NONE : (uint32_t)ni;
		}
	} else if (r->type == RSW_RES_GROUP) {
		/* A group. */
		if (info != NULL && unlikely(info->ttl <= 1))
			goto ttl;
		{
			const struct rsw_group *g = &t->groups[r->id];
			const struct rsw_nexthop *nh;
			uint16_t live = rsw_lb_live(g, r->id);
			uint32_t mi;

			if (unlikely(live == 0)) {
				/* Every member is down: one whose neighbour failed, if any, takes
				 * the frame (to ask it again), else it is dropped. */
				mi = rsw_resolve_ask(r->id);
				if (mi == RSW_LB_NONE) {
					rsw_resolve_drop(c, f, k, RSW_PC_group_empty);
					return;
				}
			} else {
				mi = g->n_members == 1 ? 0
						       : rsw_resolve_member(c, st, t, g, r->id, f,
									    k, info, live);
			}
			nh = &t->nh[g->members[mi]];
			out = nh->port;
			neigh_idx = nh->neigh;
			lb = &st->lb[r->id][mi];
		}
	} else if (r->type == RSW_RES_LOCAL) {
		/* Delivered before the TTL check. */
		rsw_resolve_punt(c, f, k, RSW_PUNT_LOCAL, UINT32_MAX, r->port);
		return;
	} else {
		rsw_resolve_icmp(c, f, k, t->icmp_unreachable, RSW_PC_no_route, RSW_PUNT_NO_ROUTE);
		return;
	}

	len = rte_pktmbuf_pkt_len(m);
	rsw_lb_count(lb, len);
	pr = &rsw_dp.ports[out];
	RSW_OPAQUE(pr); /* computed once: GCC 12 made it twice, for fwd_mtu and for the MAC */
	/* fwd_mtu is the MTU of a port that is up: one compare for the common case. */
	if (unlikely(f->l3_len[k] > pr->fwd_mtu) && !rsw_resolve_mtu(c, f, k, (uint16_t)out))
		return;
	/* RSW_NEIGH_NONE's entry is never valid: no test of the index first. */
	mac = __atomic_load_n(&rsw_fib_main.neigh[neigh_idx].mac_valid, __ATOMIC_ACQUIRE);
	if (unlikely(!(mac & RSW_NEIGH_VALID))) {
		rsw_resolve_punt(c, f, k, RSW_PUNT_NEIGH, neigh_idx, (uint16_t)out);
		return;
	}
	rsw_rewrite_word(m, info != NULL ? info->l3_off : RTE_ETHER_HDR_LEN, kind, mac, &pr->mac);
	/* A CNP has admission rules of its own (never tail-dropped, counted cnp_tx): admitted
	 * alone, after the port's staged frames. */
	if (info != NULL && unlikely(info->flags & RSW_PF_CNP))
		rsw_mmu_admit(c, st, &t->qos, c->in_port, (uint16_t)out, m, idx);
	else
		rsw_stage(c, out, m, idx, f->tc[k], len);
	return;
ttl:
	/* Time exceeded is always answered (traceroute), rate-limited by the control thread. */
	rsw_resolve_icmp(c, f, k, 1, RSW_PC_ttl_expired, RSW_PUNT_TTL);
}

/* Whether any frame of family f has a parse record (rec: by burst index). */
static inline bool
rsw_resolve_has_record(const struct rsw_fam *f, uint32_t rec)
{
	uint16_t k;

	if (likely(rec == 0))
		return false;
	for (k = 0; k < f->n; k++)
		if ((rec >> f->idx[k]) & 1)
			return true;
	return false;
}

/**
 * Resolve, rewrite and stage the frames of one family f (kind: RSW_PK_IPV4 or RSW_PK_IPV6, a
 * constant) looked up together (f->nh; c->v4_ip or c->v6_ip their keys), for the burst's lcore,
 * tables and ingress port (c->st, c->t, c->in_port). Drops are counted and gathered in
 * c->freed, punts in c->punt and c->err, the frames to forward staged on their egress ports
 * (c->stage). A frame to punt gets its parse record made first (rsw_burst_record).
 */
static __rte_always_inline void
rsw_resolve_burst(struct rsw_burst *c, const struct rsw_fam *f, const uint8_t kind)
{
	struct rsw_lcore_stats *st = c->st;
	const struct rsw_tables *t = c->t;
	uint16_t k, n = f->n;

	/* One body for the frames without a record, another where some have one. */
	if (likely(!rsw_resolve_has_record(f, c->rec)))
		for (k = 0; k < n; k++)
			rsw_resolve_one(c, st, t, f, k, kind, 1);
	else
		for (k = 0; k < n; k++)
			rsw_resolve_one(c, st, t, f, k, kind, 0);
}

#endif /* RSW_RESOLVE_H */
