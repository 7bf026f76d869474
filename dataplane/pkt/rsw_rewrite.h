/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 7 of the packet path (docs/architecture.md): the egress rewrite of a routed
 * frame. Destination MAC from the neighbour, source MAC of the egress port,
 * TTL or hop limit − 1 with the IPv4 checksum updated incrementally. Inline:
 * the worker runs it on every forwarded frame, the control thread on held
 * frames once their neighbour resolves.
 */

#ifndef RSW_REWRITE_H
#define RSW_REWRITE_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rsw_parse.h"

/**
 * The L3 part of the egress rewrite: TTL/hop limit − 1, and for IPv4 the header checksum
 * updated for it (RFC 1624 eqn. 3). The caller has checked that the TTL is at least 2 (a
 * forwarded packet), so the TTL/protocol word as loaded loses d = htons(0x0100) (its TTL byte
 * goes down by one, no borrow): ~old + new is the constant 0xffff - d in eqn. 3 (one's
 * complement sums do not care about byte order, RFC 1071), and the sum needs one fold. The
 * result is rsw_cksum_update16's, bit for bit.
 */
static __rte_always_inline void
rsw_rewrite_l3(uint8_t *l3, uint8_t kind)
{
	if (kind == RSW_PK_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint32_t sum;
		uint16_t ck;

		memcpy(&ck, &ip->hdr_checksum, sizeof(ck));
		ip->time_to_live--;
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
		/* RFC 1624 eqn. 3 for the TTL word less 0x0100, HC' = ~(~HC + 0xfeff), is in the
		 * stored (swapped) byte order (HC + 1) mod 0xffff: the fold adds 1 at 0xffff and
		 * 0x10000 only (test_cksum checks all 65536 values). */
		sum = (uint32_t)ck + 1;
		sum += (sum + 1) >> 16;
		ip->hdr_checksum = (uint16_t)sum;
#else
		sum = (uint16_t)~ck + (0xffffu - rsw_htons(0x0100)); /* < 0x1ffff: one fold */
		sum = (sum & 0xffff) + (sum >> 16);
		ip->hdr_checksum = (uint16_t)~sum;
#endif
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		ip->hop_limits--;
	}
}

/**
 * Rewrite a routed frame for egress: dst MAC from dst_word (a MAC in the word's first six bytes
 * in memory, as a neighbour's mac_valid holds it), src MAC of the port, then rsw_rewrite_l3
 * (TTL at least 2). The MAC goes out in two stores from a register, not a copy through the
 * stack.
 */
static __rte_always_inline void
rsw_rewrite_word(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind, uint64_t dst_word,
		 const struct rte_ether_addr *src_mac)
{
	uint8_t *eth = rte_pktmbuf_mtod(m, uint8_t *);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint32_t lo = (uint32_t)dst_word;
	uint16_t hi = (uint16_t)(dst_word >> 32);

	memcpy(eth, &lo, 4);
	memcpy(eth + 4, &hi, 2);
#else
	memcpy(eth, &dst_word, RTE_ETHER_ADDR_LEN);
#endif
	rte_ether_addr_copy(src_mac, (struct rte_ether_addr *)(eth + RTE_ETHER_ADDR_LEN));
	rsw_rewrite_l3(eth + l3_off, kind);
}

/**
 * rsw_rewrite_word with the next hop's MAC as bytes. Shared with the control thread (held
 * packets).
 */
static inline void
rsw_rewrite(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind, const uint8_t *dst_mac,
	    const struct rte_ether_addr *src_mac)
{
	uint64_t w = 0;

	memcpy(&w, dst_mac, RTE_ETHER_ADDR_LEN);
	rsw_rewrite_word(m, l3_off, kind, w, src_mac);
}

#endif /* RSW_REWRITE_H */
