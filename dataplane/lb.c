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

/*
 * The hash input, a fixed layout of 44 bytes so CRC32 and Toeplitz see the same bytes:
 *   source address (16; IPv4 in the first 4, the rest 0), destination address (16),
 *   source port (2), destination port (2) (host order), proto << 24 | BTH dest QP (4),
 *   IPv6 flow label (4).
 * It is built in registers, eight bytes at a time: written to memory in narrow pieces and read
 * back wide, it stalled on store forwarding (a third of the ECMP cost).
 */
#define LB_KEY_LEN 44

/*
 * CRC32 and Toeplitz are linear: a seed alone only relabels members, and the same flows
 * would still share a path in every tier. A non-linear finalizer (MurmurHash3's fmix32) makes
 * different seeds give different partitions, which is what avoids ECMP polarisation.
 */
static inline uint32_t
mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* Whether address a (words a0, a1 as loaded) sorts after b byte by byte over len bytes. */
static inline bool
addr_greater(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1, size_t len)
{
	if (len == 4)
		return rte_bswap32((uint32_t)a0) > rte_bswap32((uint32_t)b0);
	if (a0 != b0)
		return rte_bswap64(a0) > rte_bswap64(b0);
	return rte_bswap64(a1) > rte_bswap64(b1);
}

uint32_t
rsw_lb_hash(const struct rsw_tables *t, const struct rte_mbuf *m, const struct rsw_pkt_info *info)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off);
	uint32_t f = t->hash_fields, proto_qp = 0, flow = 0, h;
	uint64_t s0 = 0, s1 = 0, d0 = 0, d1 = 0, x;
	uint16_t sport = 0, dport = 0, y;
	size_t alen;

	if (info->kind == RSW_PK_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		alen = 4;
		if (f & RSW_HF_SRC_IP)
			s0 = ip->src_addr;
		if (f & RSW_HF_DST_IP)
			d0 = ip->dst_addr;
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		alen = 16;
		if (f & RSW_HF_SRC_IP) {
			memcpy(&s0, ip->src_addr, 8);
			memcpy(&s1, ip->src_addr + 8, 8);
		}
		if (f & RSW_HF_DST_IP) {
			memcpy(&d0, ip->dst_addr, 8);
			memcpy(&d1, ip->dst_addr + 8, 8);
		}
		if (f & RSW_HF_FLOW_LABEL)
			flow = info->flow;
	}
	if (f & RSW_HF_PROTO)
		proto_qp = (uint32_t)info->proto << 24;
	if (info->flags & RSW_PF_L4) {
		if (f & RSW_HF_SRC_PORT)
			sport = info->sport;
		if (f & RSW_HF_DST_PORT)
			dport = info->dport;
		if ((info->flags & RSW_PF_BTH) && (f & RSW_HF_ROCE_QP))
			proto_qp |= info->qp;
		/* UET carries its entropy in the UDP source port. */
		if ((info->flags & RSW_PF_UET) && (f & RSW_HF_UET_ENTROPY))
			sport = info->sport;
	}
	if (t->hash_symmetric) {
		if (addr_greater(s0, s1, d0, d1, alen)) {
			x = s0, s0 = d0, d0 = x;
			x = s1, s1 = d1, d1 = x;
		}
		if (sport > dport)
			y = sport, sport = dport, dport = y;
	}
	x = (uint64_t)sport | (uint64_t)dport << 16 | (uint64_t)proto_qp << 32;
	if (t->hash_algorithm == RSW_HASH_TOEPLITZ) {
		/* rte_softrss reads 32-bit words: written as such, they forward. */
		uint32_t w[LB_KEY_LEN / 4] = {
			(uint32_t)s0, (uint32_t)(s0 >> 32), (uint32_t)s1, (uint32_t)(s1 >> 32),
			(uint32_t)d0, (uint32_t)(d0 >> 32), (uint32_t)d1, (uint32_t)(d1 >> 32),
			(uint32_t)x,  (uint32_t)(x >> 32),  flow,
		};

		RTE_BUILD_BUG_ON(LB_KEY_LEN + 4 > RSW_RSS_KEY_LEN);
		return mix32(rte_softrss(w, RTE_DIM(w), t->rss_key) ^ t->hash_seed);
	}
	/* rte_hash_crc over the 44 bytes: five 8-byte steps, then 4 bytes. */
	h = rte_hash_crc_8byte(s0, t->hash_seed);
	h = rte_hash_crc_8byte(s1, h);
	h = rte_hash_crc_8byte(d0, h);
	h = rte_hash_crc_8byte(d1, h);
	h = rte_hash_crc_8byte(x, h);
	h = rte_hash_crc_4byte(flow, h);
	return mix32(h ^ t->hash_seed);
}

uint16_t rsw_lb_down[RSW_MAX_GROUPS];

/* The k-th live member (k < popcount(live)). */
static inline uint32_t
nth_live(uint16_t live, uint32_t k)
{
	while (k--)
		live &= (uint16_t)(live - 1);
	return (uint32_t)__builtin_ctz(live);
}

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
	return nth_live(live, rand_below((uint32_t)__builtin_popcount(live)));
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
		mi = rsw_lb_pick_hash(g, h);
		if (likely(live & (1u << mi)))
			return mi;
		/* The bucket's member is down: only its flows move, over the live members. */
		return nth_live(live, (h >> 8) % (uint32_t)__builtin_popcount(live));
	}
}
