/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Fixtures of the parse tests (test_parse.c, test_parse_bad.c): the port's and others' MAC
 * addresses, rsw_parse on the first bytes of a frame in an exactly sized heap buffer
 * (ut_mbuf_ext: under ASan any read past the frame fails the test), and the frames both build.
 */

#ifndef RSW_TEST_PARSE_COMMON_H
#define RSW_TEST_PARSE_COMMON_H

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rsw_parse.h"
#include "test_common.h"

#define IP4_SRC 0x0a000001u /* 10.0.0.1 */
#define IP4_DST 0x0a010203u /* 10.1.2.3 */

static struct rte_mempool *pool;

static const uint8_t port_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t peer_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};
static const uint8_t other_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x42};
static const uint8_t bcast_mac[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t pfc_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
static const uint8_t nd_mac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
static const uint8_t ip6_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t ip6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};

/* Parse the first len bytes of f; ol_flags is copied into the mbuf. */
static inline enum rsw_pkt_kind
parse_len_flags(const struct ut_frame *f, uint16_t len, uint64_t ol_flags,
		struct rsw_pkt_info *info)
{
	struct rte_mbuf *m = ut_mbuf_ext(pool, f->b, len);
	enum rsw_pkt_kind k;

	assert_non_null(m);
	m->ol_flags |= ol_flags;
	k = rsw_parse(m, (const struct rte_ether_addr *)port_mac, info);
	assert_int_equal(k, info->kind);
	rte_pktmbuf_free(m);
	return k;
}

static inline enum rsw_pkt_kind
parse_len(const struct ut_frame *f, uint16_t len, struct rsw_pkt_info *info)
{
	return parse_len_flags(f, len, 0, info);
}

static inline enum rsw_pkt_kind
parse(const struct ut_frame *f, struct rsw_pkt_info *info)
{
	return parse_len(f, f->len, info);
}

/* Ethernet + IPv4 + UDP to the port, with payload_len bytes after the UDP header. */
static inline void
build_ipv4_udp(struct ut_frame *f, uint16_t sport, uint16_t dport, uint16_t payload_len)
{
	ut_eth(f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(f, 0xb8 /* DSCP 46 */, 64, IPPROTO_UDP, IP4_SRC, IP4_DST,
		(uint16_t)(8 + payload_len));
	ut_udp(f, sport, dport, (uint16_t)(8 + payload_len));
	ut_zeros(f, payload_len);
}

static inline void
build_ipv6_udp(struct ut_frame *f, const uint8_t dst_mac[6], uint16_t sport, uint16_t dport,
	       uint16_t payload_len)
{
	ut_eth(f, dst_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(f, 0x28 /* DSCP 10 */, 0xabcde, (uint16_t)(8 + payload_len), IPPROTO_UDP, 7,
		ip6_src, ip6_dst);
	ut_udp(f, sport, dport, (uint16_t)(8 + payload_len));
	ut_zeros(f, payload_len);
}

static inline void
build_arp(struct ut_frame *f, const uint8_t dst_mac[6])
{
	ut_eth(f, dst_mac, peer_mac, RTE_ETHER_TYPE_ARP);
	ut_put16(f, 1);      /* Ethernet */
	ut_put16(f, 0x0800); /* IPv4 */
	ut_put8(f, 6);
	ut_put8(f, 4);
	ut_put16(f, 1); /* request */
	ut_put(f, peer_mac, 6);
	ut_put32(f, IP4_SRC);
	ut_zeros(f, 6);
	ut_put32(f, IP4_DST);
}

/* 802.1Qbb PFC frame: opcode 0x0101, class-enable vector, 8 quanta, padded to 60 bytes. */
static inline void
build_pfc(struct ut_frame *f)
{
	int i;

	ut_eth(f, pfc_mac, peer_mac, RSW_ETHER_TYPE_MAC_CTRL);
	ut_put16(f, 0x0101);
	ut_put16(f, 0x0008); /* priority 3 */
	for (i = 0; i < 8; i++)
		ut_put16(f, i == 3 ? 0xffff : 0);
	ut_zeros(f, 60 - f->len);
}

/* Recompute the IPv4 header checksum over hlen bytes at off after a test edited the header. */
static inline void
fix_ipv4_cksum_len(struct ut_frame *f, uint16_t off, uint16_t hlen)
{
	uint16_t ck;

	f->b[off + 10] = 0;
	f->b[off + 11] = 0;
	ck = ut_ref_cksum(f->b + off, hlen);
	f->b[off + 10] = (uint8_t)(ck >> 8);
	f->b[off + 11] = (uint8_t)ck;
}

static inline void
fix_ipv4_cksum(struct ut_frame *f, uint16_t off)
{
	fix_ipv4_cksum_len(f, off, (uint16_t)((f->b[off] & 0xf) * 4));
}

#endif /* RSW_TEST_PARSE_COMMON_H */
