/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 5 of the packet path: pick a member of a next-hop group. Hash mode
 * hashes the configured fields (5-tuple, RoCE dest QP, UET entropy, IPv6 flow
 * label) with CRC32 or Toeplitz and indexes the group's fixed bucket table, so
 * a member change moves only that member's flows (resilient hashing).
 */

#ifndef RSW_LB_H
#define RSW_LB_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "rsw_fib.h"
#include "rsw_lb_state.h"
#include "rsw_parse.h"

/**
 * Toeplitz key used when none is configured: the well-known Microsoft RSS key (40 bytes),
 * extended with its own first 12 bytes.
 */
extern const uint8_t rsw_lb_default_rss_key[RSW_RSS_KEY_LEN];

/**
 * Flow hash of one parsed IPv4/IPv6 packet under t's hash settings.
 * Symmetric mode gives both directions of a flow the same hash.
 */
uint32_t rsw_lb_hash(const struct rsw_tables *t, const struct rte_mbuf *m,
		     const struct rsw_pkt_info *info);

/*
 * Members that are down, per group (bit i = member i takes no traffic), by group id of the
 * current tables; 0 (the start) = all up. Written by the control thread (port admin/link
 * state, neighbour failures), read by workers. A member that is down loses its flows to the
 * live members; flows of live members do not move (resilient hashing).
 */
extern uint16_t rsw_lb_down[RSW_MAX_GROUPS];

/**
 * rsw_lb_select for a group of two or more members, live (bit i: member i up) non-zero; hash
 * is the packet's rsw_lb_hash when the caller computed it already, else NULL.
 */
uint32_t rsw_lb_select_multi(const struct rsw_tables *t, const struct rsw_group *g, uint32_t gid,
			     const struct rte_mbuf *m, const struct rsw_pkt_info *info,
			     struct rsw_lb_lcore *ls, uint64_t now, uint16_t live,
			     const uint32_t *hash);

/** The live members of group gid (g): bit i for member i. */
static inline uint16_t
rsw_lb_live(const struct rsw_group *g, uint32_t gid)
{
	const uint16_t all = (uint16_t)((1u << g->n_members) - 1);

	return (uint16_t)~__atomic_load_n(&rsw_lb_down[gid], __ATOMIC_RELAXED) & all;
}

/**
 * Pick the member of group gid (g) for a packet of traffic class tc.
 * Mode: the route's, else load_balance.per_tc, else load_balance.mode; CNPs always hash.
 * hash: the packet's rsw_lb_hash if already computed (the worker computes a burst's in one
 * loop, where the CRC chains of different packets overlap), else NULL.
 * @return the member index, or RSW_LB_NONE when no member is live.
 */
static inline uint32_t
rsw_lb_select_h(const struct rsw_tables *t, const struct rsw_group *g, uint32_t gid,
		const struct rte_mbuf *m, const struct rsw_pkt_info *info, struct rsw_lb_lcore *ls,
		uint64_t now, const uint32_t *hash)
{
	uint16_t live = rsw_lb_live(g, gid);

	if (unlikely(live == 0))
		return RSW_LB_NONE;
	/* A plain route: nothing to choose, no hash to compute. */
	if (g->n_members == 1)
		return 0;
	return rsw_lb_select_multi(t, g, gid, m, info, ls, now, live, hash);
}

/** rsw_lb_select_h computing the hash itself when the mode needs one. */
static inline uint32_t
rsw_lb_select(const struct rsw_tables *t, const struct rsw_group *g, uint32_t gid,
	      const struct rte_mbuf *m, const struct rsw_pkt_info *info, struct rsw_lb_lcore *ls,
	      uint64_t now)
{
	return rsw_lb_select_h(t, g, gid, m, info, ls, now, NULL);
}

/**
 * Mode of traffic class tc through a group whose route has lb_mode (RSW_LB_UNSET if none): the
 * route's, else load_balance.per_tc, else load_balance.mode.
 */
static inline int
rsw_lb_mode_for_tc(const struct rsw_tables *t, int lb_mode, uint8_t tc)
{
	if (lb_mode != RSW_LB_UNSET)
		return lb_mode;
	if (t->lb_per_tc[tc] != RSW_LB_UNSET)
		return t->lb_per_tc[tc];
	return t->lb_mode;
}

/** Mode a packet takes through group g (CNPs: always hash). */
static inline int
rsw_lb_mode_of(const struct rsw_tables *t, const struct rsw_group *g,
	       const struct rsw_pkt_info *info)
{
	if (info->flags & RSW_PF_CNP)
		return RSW_LB_HASH;
	return rsw_lb_mode_for_tc(t, g->lb_mode, info->tc);
}

/*
 * Spray, round-robin: the next live member of the spray sequence from position *pos (moved on,
 * kept below spray_len: a wrap, not a division per frame; a position left from a longer
 * sequence of an older generation starts over). The position moves past the entries of down
 * members too, so the live members keep their weighted shares and none of them inherits a
 * down member's turns.
 */
static inline uint32_t
rsw_lb_spray_rr(const struct rsw_group *g, uint16_t live, uint32_t *pos)
{
	uint32_t j, mi, p = *pos < g->spray_len ? *pos : 0;

	for (j = 0; j < g->spray_len; j++) {
		mi = g->spray_seq[p];
		p = p + 1 == g->spray_len ? 0 : p + 1;
		if (live & (1u << mi)) {
			*pos = p;
			return mi;
		}
	}
	*pos = p;
	return RSW_LB_NONE;
}

/** Member index of group g for a flow hash. */
static inline uint32_t
rsw_lb_pick_hash(const struct rsw_group *g, uint32_t hash)
{
	return g->buckets[(hash ^ (hash >> 8) ^ (hash >> 16) ^ (hash >> 24)) &
			  (RSW_LB_BUCKETS - 1)];
}

#endif /* RSW_LB_H */
