/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 5 of the packet path: the flow hash over the fields of
 * load_balance.hash_fields, CRC32 (SSE4.2 where present) or Toeplitz.
 */

#include <string.h>

#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_thash.h>

#include "rsw_lb.h"

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
