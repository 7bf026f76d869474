/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 5 of the packet path: the flow hash over the fields of
 * load_balance.hash_fields, CRC32 (SSE4.2 where present) or Toeplitz.
 */

#include <string.h>

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

/* The hash input, in a fixed layout so CRC32 and Toeplitz see the same bytes. */
struct lb_tuple {
	uint32_t src[4];
	uint32_t dst[4];
	uint16_t sport;
	uint16_t dport;
	uint32_t proto_qp; /* proto << 24 | dest QP */
	uint32_t flow;     /* IPv6 flow label */
};

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

static void
swap_if_greater(void *a, void *b, size_t len)
{
	uint8_t tmp[16];

	if (memcmp(a, b, len) > 0) {
		memcpy(tmp, a, len);
		memcpy(a, b, len);
		memcpy(b, tmp, len);
	}
}

uint32_t
rsw_lb_hash(const struct rsw_tables *t, const struct rte_mbuf *m, const struct rsw_pkt_info *info)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off);
	uint32_t f = t->hash_fields;
	struct lb_tuple k;
	uint32_t w[sizeof(k) / 4];
	size_t alen;

	memset(&k, 0, sizeof(k));
	if (info->kind == RSW_PK_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		alen = 4;
		if (f & RSW_HF_SRC_IP)
			k.src[0] = ip->src_addr;
		if (f & RSW_HF_DST_IP)
			k.dst[0] = ip->dst_addr;
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		alen = 16;
		if (f & RSW_HF_SRC_IP)
			memcpy(k.src, ip->src_addr, 16);
		if (f & RSW_HF_DST_IP)
			memcpy(k.dst, ip->dst_addr, 16);
		if (f & RSW_HF_FLOW_LABEL)
			k.flow = info->flow;
	}
	if (f & RSW_HF_PROTO)
		k.proto_qp = (uint32_t)info->proto << 24;
	if (info->flags & RSW_PF_L4) {
		if (f & RSW_HF_SRC_PORT)
			k.sport = info->sport;
		if (f & RSW_HF_DST_PORT)
			k.dport = info->dport;
		if ((info->flags & RSW_PF_BTH) && (f & RSW_HF_ROCE_QP))
			k.proto_qp |= info->qp;
		/* UET carries its entropy in the UDP source port. */
		if ((info->flags & RSW_PF_UET) && (f & RSW_HF_UET_ENTROPY))
			k.sport = info->sport;
	}
	if (t->hash_symmetric) {
		swap_if_greater(k.src, k.dst, alen);
		if (k.sport > k.dport) {
			uint16_t x = k.sport;

			k.sport = k.dport;
			k.dport = x;
		}
	}
	/*
	 * Both hashes read 32/64-bit words: give them a copy, not k itself, or strict aliasing
	 * lets the compiler drop the 16-bit port stores above (it did, for the symmetric swap).
	 */
	RTE_BUILD_BUG_ON(sizeof(k) + 4 > RSW_RSS_KEY_LEN);
	memcpy(w, &k, sizeof(k));
	if (t->hash_algorithm == RSW_HASH_TOEPLITZ)
		return mix32(rte_softrss(w, RTE_DIM(w), t->rss_key) ^ t->hash_seed);
	return mix32(rte_hash_crc(w, sizeof(w), t->hash_seed) ^ t->hash_seed);
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

/*
 * Round-robin: the next live member of the spray sequence. The position moves past the
 * entries of down members too, so the live members keep their weighted shares and none of
 * them inherits a down member's turns.
 */
static inline uint32_t
spray_rr(const struct rsw_group *g, uint16_t live, uint32_t *pos)
{
	uint32_t j, mi;

	for (j = 0; j < g->spray_len; j++) {
		mi = g->spray_seq[(*pos)++ % g->spray_len];
		if (live & (1u << mi))
			return mi;
	}
	return RSW_LB_NONE;
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
	mi = spray_rr(g, live, &ls->rr[gid]);
	if (mi != a && mi != b &&
	    __atomic_load_n(&rsw_qos.port[g->ports[mi]].q_bytes[tc], __ATOMIC_RELAXED) > qa)
		return a;
	return mi;
}

uint32_t
rsw_lb_select_multi(const struct rsw_tables *t, const struct rsw_group *g, uint32_t gid,
		    const struct rte_mbuf *m, const struct rsw_pkt_info *info,
		    struct rsw_lb_lcore *ls, uint64_t now, uint16_t live)
{
	struct rsw_flowlet *fl;
	uint32_t h, mi;

	switch (rsw_lb_mode_of(t, g, info)) {
	case RSW_LB_SPRAY:
		if (t->spray_random)
			return spray_random(g, live);
		return spray_rr(g, live, &ls->rr[gid]);
	case RSW_LB_ADAPTIVE:
		return least_loaded(g, live, info->tc, ls, gid);
	case RSW_LB_FLOWLET:
		h = rsw_lb_hash(t, m, info);
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
		h = rsw_lb_hash(t, m, info);
		mi = rsw_lb_pick_hash(g, h);
		if (likely(live & (1u << mi)))
			return mi;
		/* The bucket's member is down: only its flows move, over the live members. */
		return nth_live(live, (h >> 8) % (uint32_t)__builtin_popcount(live));
	}
}
