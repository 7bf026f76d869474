/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 5 of the packet path: the flow hash over the fields of
 * load_balance.hash_fields, CRC32 (SSE4.2 where present) or Toeplitz.
 */

#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_random.h>
#include <rte_thash.h>

#include "rsw_lb.h"
#include "rsw_qos.h"

const uint8_t rsw_lb_default_rss_key[RSW_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43,
	0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb,
	0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01,
	0xfa, 0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d,
};

uint32_t
rsw_lb_hash_parsed(const struct rsw_lb_sel *s, const struct rte_mbuf *m,
		   const struct rsw_pkt_info *info)
{
	return rsw_lb_hash_info(s, m, info);
}

uint32_t
rsw_lb_hash(const struct rsw_tables *t, const struct rte_mbuf *m, const struct rsw_pkt_info *info)
{
	struct rsw_lb_sel s;

	rsw_lb_sel_init(&s, t);
	if (unlikely(s.nic) && (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH))
		return rsw_lb_nic_hash(&s, m);
	return rsw_lb_hash_parsed(&s, m, info);
}

uint16_t rsw_lb_down[RSW_MAX_GROUPS];
uint16_t rsw_lb_ask[RSW_MAX_GROUPS];

/* Uniform in [0, n). */
static inline uint32_t
rand_below(uint32_t n)
{
	return (uint32_t)(((uint64_t)(uint32_t)rte_rand() * n) >> 32);
}

/* Random: a weighted pick; a pick of a down member is redrawn evenly over the live ones. */
static inline uint32_t
spray_random(const struct rsw_group *g, uint16_t live)
{
	uint32_t mi = g->spray_seq[rand_below(g->spray_len)];

	if (likely(live & (1u << mi)))
		return mi;
	return rsw_lb_nth_live(live, rand_below((uint32_t)__builtin_popcount(live)));
}

/* Power of two choices: the member whose queue of this TC holds fewer bytes. */
static inline uint32_t
least_loaded(const struct rsw_group *g, uint16_t live, uint8_t tc, struct rsw_lb_lcore *ls,
	     uint32_t gid)
{
	uint32_t a = spray_random(g, live);
	uint32_t b = spray_random(g, live);
	uint64_t qa, qb;
	uint32_t mi;

	if (a == b)
		return a;
	qa = __atomic_load_n(&rsw_qos.port[g->ports[a]].q_bytes[tc], __ATOMIC_RELAXED);
	qb = __atomic_load_n(&rsw_qos.port[g->ports[b]].q_bytes[tc], __ATOMIC_RELAXED);
	if (qa != qb)
		return qa < qb ? a : b;
	/*
	 * Equal depths: round-robin (exactly even while every queue is equal, e.g. all empty),
	 * but never onto a queue deeper than the two choices.
	 */
	mi = rsw_lb_spray_rr(g, live, &ls->rr[gid]);
	if (mi != a && mi != b &&
	    __atomic_load_n(&rsw_qos.port[g->ports[mi]].q_bytes[tc], __ATOMIC_RELAXED) > qa)
		return a;
	return mi;
}

uint32_t
rsw_lb_select_multi(const struct rsw_tables *t, const struct rsw_group *g, uint32_t gid,
		    const struct rte_mbuf *m, const struct rsw_pkt_info *info,
		    struct rsw_lb_lcore *ls, uint64_t now, uint16_t live, const uint32_t *hash)
{
	struct rsw_flowlet *fl;
	uint32_t h, mi;

	switch (rsw_lb_mode_of(t, g, info)) {
	case RSW_LB_SPRAY:
		if (t->spray_random)
			return spray_random(g, live);
		return rsw_lb_spray_rr(g, live, &ls->rr[gid]);
	case RSW_LB_ADAPTIVE:
		return least_loaded(g, live, info->tc, ls, gid);
	case RSW_LB_FLOWLET:
		h = hash != NULL ? *hash : rsw_lb_hash(t, m, info);
		fl = &ls->flowlet[h & (RSW_FLOWLET_ENTRIES - 1)];
		if (fl->valid && fl->tag == h && fl->group == gid &&
		    now - fl->last < t->flowlet_ticks && (live & (1u << fl->member))) {
			fl->last = now;
			return fl->member;
		}
		/* A new flowlet: the less loaded of two, not the hash's choice. */
		mi = least_loaded(g, live, info->tc, ls, gid);
		fl->tag = h;
		fl->group = (uint16_t)gid;
		fl->member = (uint8_t)mi;
		fl->valid = 1;
		fl->last = now;
		return mi;
	default:
		h = hash != NULL ? *hash : rsw_lb_hash(t, m, info);
		return rsw_lb_pick_live(g, live, h);
	}
}
