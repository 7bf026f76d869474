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

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_thash.h>

#include "rsw_burst.h"
#include "rsw_fib.h"
#include "rsw_lb_state.h"
#include "rsw_parse.h"

/**
 * Toeplitz key used when none is configured: the well-known Microsoft RSS key (40 bytes),
 * extended with its own first 12 bytes.
 */
extern const uint8_t rsw_lb_default_rss_key[RSW_RSS_KEY_LEN];

/*
 * What the flow hash may cover, as found in a packet; the fields of load_balance.hash_fields
 * are picked from it (struct rsw_lb_sel). Addresses as loaded (IPv4: the low 4 bytes of s0 and
 * d0, s1 and d1 0); sport and dport 0 unless the packet has L4 ports (RSW_PF_L4); qp 0 unless
 * it has a BTH; flow: the IPv6 flow label (0 for IPv4); uet: whether it is UET, which carries
 * its entropy in the UDP source port.
 */
struct rsw_lb_tuple {
	uint64_t s0, s1, d0, d1;
	uint32_t flow;
	uint32_t qp;
	uint16_t sport, dport; /* host order */
	uint8_t proto;
	uint8_t uet;
	uint8_t alen; /* address length: 4 or 16 */
};

/*
 * t's hash settings as masks over a tuple's fields (all ones: hashed), worked out once for a
 * burst so that picking the fields costs an AND each and no branch.
 */
struct rsw_lb_sel {
	uint64_t src, dst;
	uint32_t flow, qp, proto;
	uint16_t sport, dport;
	uint16_t uet_sport; /* the source port of a UET packet (its entropy) */
	uint8_t symmetric, toeplitz;
	uint8_t nic; /* hash_algorithm nic: the mbuf's RSS hash where it carries one */
	/* CRC32, not symmetric, and the five tuple's fields all hashed (load_balance's default
	 * hash_fields, with or without roce_qp): rsw_lb_hash_fast4 gives an IPv4 header's hash. */
	uint8_t fast4;
	uint32_t seed;
	const uint8_t *rss_key;
};

static inline void
rsw_lb_sel_init(struct rsw_lb_sel *s, const struct rsw_tables *t)
{
	uint32_t f = t->hash_fields;

	s->src = f & RSW_HF_SRC_IP ? UINT64_MAX : 0;
	s->dst = f & RSW_HF_DST_IP ? UINT64_MAX : 0;
	s->flow = f & RSW_HF_FLOW_LABEL ? UINT32_MAX : 0;
	s->qp = f & RSW_HF_ROCE_QP ? UINT32_MAX : 0;
	s->proto = f & RSW_HF_PROTO ? 0xff : 0;
	s->sport = f & RSW_HF_SRC_PORT ? UINT16_MAX : 0;
	s->dport = f & RSW_HF_DST_PORT ? UINT16_MAX : 0;
	s->uet_sport = f & RSW_HF_UET_ENTROPY ? UINT16_MAX : 0;
	s->symmetric = t->hash_symmetric;
	s->toeplitz = t->hash_algorithm == RSW_HASH_TOEPLITZ;
	s->nic = t->hash_algorithm == RSW_HASH_NIC;
	s->seed = t->hash_seed;
	s->rss_key = t->rss_key;
	s->fast4 = !s->symmetric && !s->toeplitz && s->src == UINT64_MAX && s->dst == UINT64_MAX &&
		   s->proto == 0xff && s->sport == UINT16_MAX && s->dport == UINT16_MAX;
}

/*
 * CRC32 and Toeplitz are linear: a seed alone only relabels members, and the same flows
 * would still share a path in every tier. A non-linear finalizer (MurmurHash3's fmix32) makes
 * different seeds give different partitions, which is what avoids ECMP polarisation.
 */
static inline uint32_t
rsw_lb_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* hash_algorithm nic: the NIC's RSS hash of the frame (it carries RTE_MBUF_F_RX_RSS_HASH),
 * mixed with the seed as railsw's own hashes are. */
static inline uint32_t
rsw_lb_nic_hash(const struct rsw_lb_sel *s, const struct rte_mbuf *m)
{
	return rsw_lb_mix32(m->hash.rss ^ s->seed);
}

/* Whether address a (words a0, a1 as loaded) sorts after b byte by byte over len bytes. */
static inline bool
rsw_lb_addr_greater(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1, size_t len)
{
	if (len == 4)
		return rte_bswap32((uint32_t)a0) > rte_bswap32((uint32_t)b0);
	if (a0 != b0)
		return rte_bswap64(a0) > rte_bswap64(b0);
	return rte_bswap64(a1) > rte_bswap64(b1);
}

/*
 * CRC32C steps of the flow hash: rte_hash_crc_8byte and rte_hash_crc_4byte's values. Where the
 * compiler targets SSE4.2 (-march=corei7 and later) the instruction itself, which the compiler
 * can schedule: DPDK's functions test their algorithm variable before each step and wrap the
 * instruction in asm volatile (docs/perf.md).
 */
static __rte_always_inline uint32_t
rsw_lb_crc8(uint64_t data, uint32_t h)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	return (uint32_t)__builtin_ia32_crc32di(h, data);
#else
	return rte_hash_crc_8byte(data, h);
#endif
}

static __rte_always_inline uint32_t
rsw_lb_crc4(uint32_t data, uint32_t h)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	return __builtin_ia32_crc32si(h, data);
#else
	return rte_hash_crc_4byte(data, h);
#endif
}

/*
 * The flow hash of tuple k under the settings s (symmetric mode gives both directions of a
 * flow the same hash). The input is a fixed layout of 44 bytes, so CRC32 and Toeplitz see the
 * same bytes: source address (16; IPv4 in the first 4, the rest 0), destination address (16),
 * source port (2), destination port (2) (host order), proto << 24 | BTH dest QP (4), IPv6
 * flow label (4). It is built in registers, eight bytes at a time: written to memory in narrow
 * pieces and read back wide, it stalled on store forwarding (docs/perf.md).
 */
static __rte_always_inline uint32_t
rsw_lb_hash_sel(const struct rsw_lb_sel *s, const struct rsw_lb_tuple *k)
{
	uint64_t s0 = k->s0 & s->src, s1 = k->s1 & s->src;
	uint64_t d0 = k->d0 & s->dst, d1 = k->d1 & s->dst, x;
	uint32_t flow = k->flow & s->flow, h;
	uint32_t proto_qp = (k->proto & s->proto) << 24 | (k->qp & s->qp);
	uint16_t sport = k->sport & (s->sport | (k->uet ? s->uet_sport : 0));
	uint16_t dport = k->dport & s->dport, y;

	if (s->symmetric) {
		if (rsw_lb_addr_greater(s0, s1, d0, d1, k->alen)) {
			x = s0, s0 = d0, d0 = x;
			x = s1, s1 = d1, d1 = x;
		}
		if (sport > dport)
			y = sport, sport = dport, dport = y;
	}
	x = (uint64_t)sport | (uint64_t)dport << 16 | (uint64_t)proto_qp << 32;
	if (unlikely(s->toeplitz)) {
		/* rte_softrss reads 32-bit words: written as such, they forward. */
		uint32_t w[11] = {
			(uint32_t)s0, (uint32_t)(s0 >> 32), (uint32_t)s1, (uint32_t)(s1 >> 32),
			(uint32_t)d0, (uint32_t)(d0 >> 32), (uint32_t)d1, (uint32_t)(d1 >> 32),
			(uint32_t)x,  (uint32_t)(x >> 32),  flow,
		};

		RTE_BUILD_BUG_ON(sizeof(w) + 4 > RSW_RSS_KEY_LEN);
		return rsw_lb_mix32(rte_softrss(w, RTE_DIM(w), s->rss_key) ^ s->seed);
	}
	/* rte_hash_crc over the 44 bytes: five 8-byte steps, then 4 bytes. */
	h = rsw_lb_crc8(s0, s->seed);
	h = rsw_lb_crc8(s1, h);
	h = rsw_lb_crc8(d0, h);
	h = rsw_lb_crc8(d1, h);
	h = rsw_lb_crc8(x, h);
	h = rsw_lb_crc4(flow, h);
	return rsw_lb_mix32(h ^ s->seed);
}

/**
 * Flow hash of one parsed IPv4/IPv6 packet under t's hash settings.
 * Symmetric mode gives both directions of a flow the same hash.
 */
uint32_t rsw_lb_hash(const struct rsw_tables *t, const struct rte_mbuf *m,
		     const struct rsw_pkt_info *info);

/** rsw_lb_hash under the settings s (rsw_lb_sel_init once for a burst of packets). */
uint32_t rsw_lb_hash_parsed(const struct rsw_lb_sel *s, const struct rte_mbuf *m,
			    const struct rsw_pkt_info *info);

/* The address part of a tuple from an IPv4 header. */
static __rte_always_inline void
rsw_lb_tuple_ip4(struct rsw_lb_tuple *k, const struct rte_ipv4_hdr *ip)
{
	k->alen = 4;
	k->s0 = ip->src_addr;
	k->d0 = ip->dst_addr;
}

/* The address part of a tuple from an IPv6 header. */
static __rte_always_inline void
rsw_lb_tuple_ip6(struct rsw_lb_tuple *k, const struct rte_ipv6_hdr *ip)
{
	k->alen = 16;
	memcpy(&k->s0, ip->src_addr, 8);
	memcpy(&k->s1, ip->src_addr + 8, 8);
	memcpy(&k->d0, ip->dst_addr, 8);
	memcpy(&k->d1, ip->dst_addr + 8, 8);
}

/** rsw_lb_hash_parsed inline: the tuple from the parse record info of m. */
static __rte_always_inline uint32_t
rsw_lb_hash_info(const struct rsw_lb_sel *s, const struct rte_mbuf *m,
		 const struct rsw_pkt_info *info)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off);
	struct rsw_lb_tuple k = {.proto = info->proto};

	if (info->flags & RSW_PF_L4) {
		k.sport = info->sport;
		k.dport = info->dport;
		if (info->flags & RSW_PF_BTH)
			k.qp = info->qp;
		k.uet = !!(info->flags & RSW_PF_UET);
	}
	if (info->kind == RSW_PK_IPV4) {
		rsw_lb_tuple_ip4(&k, (const struct rte_ipv4_hdr *)l3);
	} else {
		rsw_lb_tuple_ip6(&k, (const struct rte_ipv6_hdr *)l3);
		k.flow = info->flow;
	}
	return rsw_lb_hash_sel(s, &k);
}

/*
 * The L4 part of a tuple from the header at l4 (avail bytes of IP payload) of protocol proto,
 * for a frame of the parse step's common case (its UDP header and, on the RoCEv2 port, its BTH
 * are whole): what rsw_parse_l4 records of it.
 */
static __rte_always_inline void
rsw_lb_tuple_l4(struct rsw_lb_tuple *k, const uint8_t *l4, uint32_t avail, uint8_t proto)
{
	uint32_t w;

	if (proto == IPPROTO_UDP) {
		memcpy(&w, l4, 4);
		w = rsw_ntohl(w); /* source port high, destination port low */
		k->sport = (uint16_t)(w >> 16);
		k->dport = (uint16_t)w;
		if (k->dport == RSW_UDP_PORT_ROCEV2) {
			memcpy(&w, l4 + sizeof(struct rte_udp_hdr) + 4, 4); /* reserved, dest QP */
			k->qp = rsw_ntohl(w) & 0xffffff;
		}
		k->uet = k->dport == RSW_UDP_PORT_UET;
	} else if ((proto == IPPROTO_TCP || proto == IPPROTO_SCTP) && avail >= 4) {
		memcpy(&w, l4, 4);
		w = rsw_ntohl(w);
		k->sport = (uint16_t)(w >> 16);
		k->dport = (uint16_t)w;
	}
}

/**
 * rsw_lb_hash of a frame of the parse step's common case (no parse record) from its IPv4
 * header ip, under the settings s: the same value (test_lb_hash and the fuzzer check).
 */
static __rte_always_inline uint32_t
rsw_lb_hash_hdr4(const struct rsw_lb_sel *s, const struct rte_ipv4_hdr *ip)
{
	struct rsw_lb_tuple k = {.proto = ip->next_proto_id};

	rsw_lb_tuple_ip4(&k, ip);
	if (!(ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
		rsw_lb_tuple_l4(&k, (const uint8_t *)(ip + 1),
				rsw_ntohs(ip->total_length) - (uint32_t)sizeof(*ip),
				ip->next_proto_id);
	return rsw_lb_hash_sel(s, &k);
}

/**
 * rsw_lb_hash_hdr4 under settings s with fast4 set: the same function with the settings as
 * constants (every field of the five tuple hashed, CRC32, not symmetric; only the seed and
 * roce_qp's mask taken from s), so that the compiler leaves out an AND per field and the
 * symmetric and Toeplitz tests. The flow label and UET entropy masks do not matter for IPv4
 * with the source port hashed.
 */
static __rte_always_inline uint32_t
rsw_lb_hash_fast4(const struct rsw_lb_sel *s, const struct rte_ipv4_hdr *ip)
{
	const struct rsw_lb_sel d = {
		.src = UINT64_MAX,
		.dst = UINT64_MAX,
		.qp = s->qp,
		.proto = 0xff,
		.sport = UINT16_MAX,
		.dport = UINT16_MAX,
		.seed = s->seed,
	};

	return rsw_lb_hash_hdr4(&d, ip);
}

/** rsw_lb_hash_hdr4 for an IPv6 header. */
static __rte_always_inline uint32_t
rsw_lb_hash_hdr6(const struct rsw_lb_sel *s, const struct rte_ipv6_hdr *ip)
{
	struct rsw_lb_tuple k = {
		.flow = rsw_ntohl(ip->vtc_flow) & 0xfffff,
		.proto = ip->proto,
	};

	rsw_lb_tuple_ip6(&k, ip);
	rsw_lb_tuple_l4(&k, (const uint8_t *)(ip + 1), rsw_ntohs(ip->payload_len), ip->proto);
	return rsw_lb_hash_sel(s, &k);
}

/**
 * Step 5, the flow hashes of a burst: for each frame k of the family f (kind: RSW_PK_IPV4 or
 * RSW_PK_IPV6) looked up together whose result is a group of two or more members, its
 * rsw_lb_hash into f->hash[k]: from its parse record (info, by burst index, where rec has the
 * bit) or, for a frame of the parse step's common case, from its header. In a loop of their
 * own, where the CRC chains of different frames overlap; inside resolve each waited on the one
 * before. Plain routes and connected hosts are not hashed.
 */
static __rte_always_inline void
rsw_lb_hash_burst(const struct rsw_tables *t, struct rsw_fam *f, const struct rsw_pkt_info *info,
		  uint32_t rec, const uint8_t kind)
{
	const struct rsw_result *res = t->results;
	struct rsw_lb_sel s;
	const uint8_t *l3;
	uint16_t k, n = f->n;
	uint8_t idx;

	rsw_lb_sel_init(&s, t);
	for (k = 0; k < n; k++) {
		if (likely(!rsw_result_multi(&res[f->nh[k]])))
			continue;
		if (unlikely(s.nic) && (f->m[k]->ol_flags & RTE_MBUF_F_RX_RSS_HASH)) {
			f->hash[k] = rsw_lb_nic_hash(&s, f->m[k]);
			continue;
		}
		idx = f->idx[k];
		if (unlikely((rec >> idx) & 1)) {
			f->hash[k] = rsw_lb_hash_info(&s, f->m[k], &info[idx]);
			continue;
		}
		l3 = rte_pktmbuf_mtod_offset(f->m[k], const uint8_t *, RTE_ETHER_HDR_LEN);
		if (kind == RSW_PK_IPV4)
			f->hash[k] =
				likely(s.fast4)
					? rsw_lb_hash_fast4(&s, (const struct rte_ipv4_hdr *)l3)
					: rsw_lb_hash_hdr4(&s, (const struct rte_ipv4_hdr *)l3);
		else
			f->hash[k] = rsw_lb_hash_hdr6(&s, (const struct rte_ipv6_hdr *)l3);
	}
}

/*
 * Members that are down, per group (bit i = member i takes no traffic), by group id of the
 * current tables; 0 (the start) = all up. Written by the control thread (port admin/link
 * state, neighbour failures), read by workers. A member that is down loses its flows to the
 * live members; flows of live members do not move (resilient hashing).
 */
extern uint16_t rsw_lb_down[RSW_MAX_GROUPS];

/*
 * Members that are down only because their neighbour failed to resolve (their port is up),
 * per group, as rsw_lb_down. A frame whose group has no live member goes to one of them
 * instead of being dropped (group_empty): it finds the neighbour unresolved and is punted to
 * the control thread (policed as `unresolved`), whose traffic asks the neighbour again.
 * Written by the control thread with rsw_lb_down (before it), read by workers.
 */
extern uint16_t rsw_lb_ask[RSW_MAX_GROUPS];

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
static __rte_always_inline uint32_t
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

/** The k-th live member (k < popcount(live)). */
static inline uint32_t
rsw_lb_nth_live(uint16_t live, uint32_t k)
{
	while (k--)
		live &= (uint16_t)(live - 1);
	return (uint32_t)__builtin_ctz(live);
}

/**
 * Hash mode: the member of group g for flow hash h, live (bit i: member i up) non-zero. When
 * the bucket's member is down, only its flows move, over the live members.
 */
static inline uint32_t
rsw_lb_pick_live(const struct rsw_group *g, uint16_t live, uint32_t h)
{
	uint32_t mi = rsw_lb_pick_hash(g, h);

	if (likely(live & (1u << mi)))
		return mi;
	return rsw_lb_nth_live(live, (h >> 8) % (uint32_t)__builtin_popcount(live));
}

#endif /* RSW_LB_H */
