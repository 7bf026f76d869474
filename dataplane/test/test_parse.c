/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of step 2 of the packet path (parse.c): malformed and truncated
 * frames at every header boundary first, then the frames that are not for the
 * switch, then each good frame type field by field, then a randomized loop.
 * Frames are built byte by byte (test_common.h) and handed to rsw_parse in
 * mbufs whose data is an exactly sized heap buffer, so under ASan any read
 * past the frame fails the test.
 */

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_eal.h>
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
static const uint8_t lldp_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
static const uint8_t stp_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00};
static const uint8_t mcast4_mac[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
static const uint8_t nd_mac[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
static const uint8_t mld_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x02};
static const uint8_t ip6_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t ip6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t ip6_snm[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 0, 1};

/* Parse the first len bytes of f; ol_flags is copied into the mbuf. */
static enum rsw_pkt_kind
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

static enum rsw_pkt_kind
parse_len(const struct ut_frame *f, uint16_t len, struct rsw_pkt_info *info)
{
	return parse_len_flags(f, len, 0, info);
}

static enum rsw_pkt_kind
parse(const struct ut_frame *f, struct rsw_pkt_info *info)
{
	return parse_len(f, f->len, info);
}

/* Assert that the first len bytes of f are dropped for reason why. */
static void
expect_drop_len(const struct ut_frame *f, uint16_t len, enum rsw_port_ctr why)
{
	struct rsw_pkt_info info;

	if (parse_len(f, len, &info) != RSW_PK_DROP || info.drop != why)
		fail_msg("len %u: kind %u drop %s, expected drop %s", len, info.kind,
			 rsw_port_ctr_name(info.drop), rsw_port_ctr_name(why));
}

static void
expect_drop(const struct ut_frame *f, enum rsw_port_ctr why)
{
	expect_drop_len(f, f->len, why);
}

/* Every truncation of f to from..to-1 bytes is a parse error. */
static void
expect_truncations(const struct ut_frame *f, uint16_t from, uint16_t to)
{
	uint16_t len;

	for (len = from; len < to; len++)
		expect_drop_len(f, len, RSW_PC_parse_errors);
}

/* Ethernet + IPv4 + UDP to the port, with payload_len bytes after the UDP header. */
static void
build_ipv4_udp(struct ut_frame *f, uint16_t sport, uint16_t dport, uint16_t payload_len)
{
	ut_eth(f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(f, 0xb8 /* DSCP 46 */, 64, IPPROTO_UDP, IP4_SRC, IP4_DST,
		(uint16_t)(8 + payload_len));
	ut_udp(f, sport, dport, (uint16_t)(8 + payload_len));
	ut_zeros(f, payload_len);
}

static void
build_ipv6_udp(struct ut_frame *f, const uint8_t dst_mac[6], uint16_t sport, uint16_t dport,
	       uint16_t payload_len)
{
	ut_eth(f, dst_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(f, 0x28 /* DSCP 10 */, 0xabcde, (uint16_t)(8 + payload_len), IPPROTO_UDP, 7,
		ip6_src, ip6_dst);
	ut_udp(f, sport, dport, (uint16_t)(8 + payload_len));
	ut_zeros(f, payload_len);
}

static void
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
static void
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
static void
fix_ipv4_cksum_len(struct ut_frame *f, uint16_t off, uint16_t hlen)
{
	uint16_t ck;

	f->b[off + 10] = 0;
	f->b[off + 11] = 0;
	ck = ut_ref_cksum(f->b + off, hlen);
	f->b[off + 10] = (uint8_t)(ck >> 8);
	f->b[off + 11] = (uint8_t)ck;
}

static void
fix_ipv4_cksum(struct ut_frame *f, uint16_t off)
{
	fix_ipv4_cksum_len(f, off, (uint16_t)((f->b[off] & 0xf) * 4));
}

/* Bad input: truncated headers. */

static void
test_truncated_ethernet(void **state)
{
	struct ut_frame f;

	(void)state;
	build_ipv4_udp(&f, 1, 2, 10);
	expect_truncations(&f, 0, RTE_ETHER_HDR_LEN);
}

static void
test_truncated_vlan(void **state)
{
	struct ut_frame f;

	(void)state;
	/* One tag cut anywhere in its 4 bytes. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 3, 100, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8);
	ut_udp(&f, 1, 2, 8);
	expect_truncations(&f, 14, 18);
	/* QinQ: the inner tag cut. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_QINQ);
	ut_vlan(&f, 3, 100, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 5, 200, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8);
	ut_udp(&f, 1, 2, 8);
	expect_truncations(&f, 14, 22);
	/* A tagged frame cut in its IPv4 header. */
	expect_truncations(&f, 22, 42);
}

static void
test_truncated_ipv4(void **state)
{
	struct ut_frame f;

	(void)state;
	build_ipv4_udp(&f, 1, 2, 10);
	/* The IPv4 header itself (< 20 bytes), then anything short of total length. */
	expect_truncations(&f, 14, f.len);
}

static void
test_ipv4_bad_ihl(void **state)
{
	struct ut_frame f;
	uint8_t ihl;

	(void)state;
	/* IHL 0..4, checksum correct over the 20 bytes present. */
	for (ihl = 0; ihl < 5; ihl++) {
		build_ipv4_udp(&f, 1, 2, 10);
		f.b[14] = (uint8_t)(0x40 | ihl);
		fix_ipv4_cksum_len(&f, 14, 20);
		expect_drop(&f, RSW_PC_parse_errors);
	}
	/* IHL 15 (60 bytes) in a frame with 20 + 8 bytes of IP. */
	build_ipv4_udp(&f, 1, 2, 0);
	f.b[14] = 0x4f;
	expect_drop(&f, RSW_PC_parse_errors);
	/* IHL 6 but total length 20 and a 20-byte packet. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, 253, IP4_SRC, IP4_DST, 0);
	f.b[14] = 0x46;
	expect_drop(&f, RSW_PC_parse_errors);
}

static void
test_ipv4_bad_total_length(void **state)
{
	struct ut_frame f;

	(void)state;
	/* Total length beyond the frame. */
	build_ipv4_udp(&f, 1, 2, 10);
	f.b[16] = 0;
	f.b[17] = 100;
	fix_ipv4_cksum(&f, 14);
	expect_drop(&f, RSW_PC_parse_errors);
	/* Total length below the header length: 19 with IHL 5, 20 and 23 with IHL 6. */
	build_ipv4_udp(&f, 1, 2, 10);
	f.b[17] = 19;
	fix_ipv4_cksum(&f, 14);
	expect_drop(&f, RSW_PC_parse_errors);
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4_opt(&f, 0, 0, 64, 253, IP4_SRC, IP4_DST, 8, 1);
	ut_zeros(&f, 8);
	f.b[17] = 20;
	fix_ipv4_cksum(&f, 14);
	expect_drop(&f, RSW_PC_parse_errors);
	f.b[17] = 23;
	fix_ipv4_cksum(&f, 14);
	expect_drop(&f, RSW_PC_parse_errors);
	/* Total length 0. */
	f.b[17] = 0;
	fix_ipv4_cksum(&f, 14);
	expect_drop(&f, RSW_PC_parse_errors);
}

static void
test_ip_version_swapped(void **state)
{
	struct ut_frame f;

	(void)state;
	/* An IPv6 packet behind EtherType IPv4. */
	build_ipv6_udp(&f, port_mac, 1, 2, 10);
	f.b[12] = 0x08;
	f.b[13] = 0x00;
	expect_drop(&f, RSW_PC_parse_errors);
	/* An IPv4 packet (longer than 40 bytes) behind EtherType IPv6. */
	build_ipv4_udp(&f, 1, 2, 30);
	f.b[12] = 0x86;
	f.b[13] = 0xdd;
	expect_drop(&f, RSW_PC_parse_errors);
	/* Versions 0 and 5 behind IPv4 (checksum correct). */
	build_ipv4_udp(&f, 1, 2, 10);
	f.b[14] = 0x05;
	fix_ipv4_cksum(&f, 14);
	expect_drop(&f, RSW_PC_parse_errors);
	f.b[14] = 0x55;
	fix_ipv4_cksum(&f, 14);
	expect_drop(&f, RSW_PC_parse_errors);
}

static void
test_ipv4_bad_cksum(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;
	int bit;

	(void)state;
	for (bit = 0; bit < 16; bit++) {
		build_ipv4_udp(&f, 1, 2, 10);
		f.b[24 + bit / 8] ^= (uint8_t)(1 << (bit % 8));
		expect_drop(&f, RSW_PC_parse_errors);
	}
	/* A changed TTL without a checksum update. */
	build_ipv4_udp(&f, 1, 2, 10);
	f.b[22]--;
	expect_drop(&f, RSW_PC_parse_errors);
	/* The NIC vouched for the checksum: not checked again. */
	assert_int_equal(parse_len_flags(&f, f.len, RTE_MBUF_F_RX_IP_CKSUM_GOOD, &info),
			 RSW_PK_IPV4);
}

static void
test_truncated_ipv6(void **state)
{
	struct ut_frame f;

	(void)state;
	build_ipv6_udp(&f, port_mac, 1, 2, 10);
	/* Header < 40 bytes, then payload length beyond the frame. */
	expect_truncations(&f, 14, f.len);
	/* Payload length far beyond a complete frame. */
	f.b[18] = 0x05;
	expect_drop(&f, RSW_PC_parse_errors);
}

static void
test_truncated_udp(void **state)
{
	struct ut_frame f;
	uint16_t n;

	(void)state;
	/* IPv4: UDP headers of 0..7 bytes, inside a correct total length. */
	for (n = 0; n < 8; n++) {
		ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
		ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, n);
		ut_put16(&f, 1000);
		ut_put16(&f, 2000);
		ut_put16(&f, 8);
		ut_put16(&f, 0);
		f.len = (uint16_t)(34 + n);
		ut_zeros(&f, 60 - f.len); /* padding does not count */
		expect_drop(&f, RSW_PC_parse_errors);
	}
	/* IPv6: payload length 0..7. */
	for (n = 0; n < 8; n++) {
		build_ipv6_udp(&f, port_mac, 1, 2, 0);
		f.b[18] = 0;
		f.b[19] = (uint8_t)n;
		expect_drop(&f, RSW_PC_parse_errors);
	}
	/* UDP length field below 8. */
	build_ipv4_udp(&f, 1, 2, 10);
	f.b[38] = 0;
	f.b[39] = 7;
	expect_drop(&f, RSW_PC_parse_errors);
}

static void
test_truncated_bth(void **state)
{
	struct ut_frame f;
	uint16_t n;

	(void)state;
	/* UDP 4791 with 0..11 bytes of BTH inside the IP packet. */
	for (n = 0; n < RSW_BTH_LEN; n++) {
		ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
		ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, (uint16_t)(8 + n));
		ut_udp(&f, 1000, RSW_UDP_PORT_ROCEV2, (uint16_t)(8 + n));
		ut_bth(&f, 0x0a, 0x123456, 1);
		f.len = (uint16_t)(42 + n);
		expect_drop(&f, RSW_PC_parse_errors);
		/* The missing BTH bytes present as Ethernet padding do not count either. */
		ut_zeros(&f, 30);
		expect_drop(&f, RSW_PC_parse_errors);
	}
	/* IPv6 too. */
	build_ipv6_udp(&f, port_mac, 1000, RSW_UDP_PORT_ROCEV2, 11);
	expect_drop(&f, RSW_PC_parse_errors);
}

static void
test_truncated_arp(void **state)
{
	struct ut_frame f;

	(void)state;
	build_arp(&f, bcast_mac);
	assert_int_equal(f.len, 14 + 28);
	expect_truncations(&f, 14, f.len);
	build_arp(&f, port_mac);
	expect_truncations(&f, 14, f.len);
}

static void
test_truncated_mac_ctrl(void **state)
{
	struct ut_frame f;

	(void)state;
	build_pfc(&f);
	expect_truncations(&f, 14, 18);
}

/* Frames that are not for the switch. */

static void
test_not_for_us(void **state)
{
	struct ut_frame f;

	(void)state;
	build_ipv4_udp(&f, 1, 2, 10);
	memcpy(f.b, other_mac, 6);
	expect_drop(&f, RSW_PC_not_for_us);
	/* Also ARP, PFC and malformed IP unicast to someone else. */
	build_arp(&f, other_mac);
	expect_drop(&f, RSW_PC_not_for_us);
	build_pfc(&f);
	memcpy(f.b, other_mac, 6);
	expect_drop(&f, RSW_PC_not_for_us);
	build_ipv4_udp(&f, 1, 2, 10);
	memcpy(f.b, other_mac, 6);
	f.b[14] = 0x41;
	expect_drop(&f, RSW_PC_not_for_us);
}

static void
test_l2_control(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	/* Broadcast, but not ARP. */
	build_ipv4_udp(&f, 1, 2, 10);
	memcpy(f.b, bcast_mac, 6);
	assert_int_equal(parse(&f, &info), RSW_PK_DROP);
	assert_int_equal(info.drop, RSW_PC_l2_control);
	assert_true(info.flags & RSW_PF_BCAST);
	/* LLDP and STP. */
	ut_eth(&f, lldp_mac, peer_mac, 0x88cc);
	ut_zeros(&f, 46);
	expect_drop(&f, RSW_PC_l2_control);
	ut_eth(&f, stp_mac, peer_mac, 0x0026); /* 802.3 length field */
	ut_zeros(&f, 46);
	expect_drop(&f, RSW_PC_l2_control);
	/* The MAC Control address with another EtherType. */
	build_ipv4_udp(&f, 1, 2, 10);
	memcpy(f.b, pfc_mac, 6);
	expect_drop(&f, RSW_PC_l2_control);
	/* IPv4 multicast. */
	build_ipv4_udp(&f, 1, 2, 10);
	memcpy(f.b, mcast4_mac, 6);
	expect_drop(&f, RSW_PC_l2_control);
	/* IPv6 multicast that is not ND, and ND-group frames that are not ICMPv6 or not IPv6. */
	build_ipv6_udp(&f, mld_mac, 1, 2, 10);
	expect_drop(&f, RSW_PC_l2_control);
	build_ipv6_udp(&f, nd_mac, 1, 2, 10);
	expect_drop(&f, RSW_PC_l2_control);
	build_ipv4_udp(&f, 1, 2, 10);
	memcpy(f.b, nd_mac, 6);
	expect_drop(&f, RSW_PC_l2_control);
	/* A malformed IPv6 packet to an ND group is still a parse error. */
	build_ipv6_udp(&f, nd_mac, 1, 2, 10);
	f.len = 40;
	expect_drop(&f, RSW_PC_parse_errors);
}

static void
test_unknown_ethertype(void **state)
{
	struct ut_frame f;

	(void)state;
	ut_eth(&f, port_mac, peer_mac, 0x88b5);
	ut_zeros(&f, 46);
	expect_drop(&f, RSW_PC_unknown_ethertype);
	/* An 802.3 length field. */
	ut_eth(&f, port_mac, peer_mac, 46);
	ut_zeros(&f, 46);
	expect_drop(&f, RSW_PC_unknown_ethertype);
	/* Behind a tag. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 0, 1, 0x88b5);
	ut_zeros(&f, 46);
	expect_drop(&f, RSW_PC_unknown_ethertype);
	/* A third tag is not parsed. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_QINQ);
	ut_vlan(&f, 0, 1, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 0, 2, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 0, 3, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8);
	ut_udp(&f, 1, 2, 8);
	expect_drop(&f, RSW_PC_unknown_ethertype);
}

/* Good frames. */

/*
 * Whether the parse step's common case (rsw_parse_fast returning the IP header: the branch that
 * writes no parse record, classified by DSCP alone) takes frame f (ol_flags into the mbuf); a
 * CNP it never takes (classify's CNP rules read its record). A frame it takes is left without a
 * record (info untouched), and rsw_parse_fill makes rsw_parse's record of it, with l3_off 14.
 */
static bool
fast_takes(const struct ut_frame *f, uint64_t ol_flags)
{
	struct rte_mbuf *m = ut_mbuf_ext(pool, f->b, f->len);
	const uint64_t mac48 = rsw_mac48((const struct rte_ether_addr *)port_mac);
	struct rsw_pkt_info info, ref, untouched;
	const uint8_t *l3;
	enum rsw_pkt_kind k;

	assert_non_null(m);
	m->ol_flags |= ol_flags;
	memset(&info, 0xa5, sizeof(info));
	untouched = info;
	k = rsw_parse_fast(m, mac48, (const struct rte_ether_addr *)port_mac, &info, &l3);
	if (l3 != NULL) {
		assert_true(k == RSW_PK_IPV4 || k == RSW_PK_IPV6);
		assert_memory_equal(&info, &untouched, sizeof(info));
		rsw_parse_fill(m, &info);
		assert_int_equal(rsw_parse(m, (const struct rte_ether_addr *)port_mac, &ref), k);
		assert_memory_equal(&info, &ref, sizeof(info));
		assert_int_equal(info.l3_off, 14);
		assert_false(info.flags & RSW_PF_CNP);
		assert_ptr_equal(l3, rte_pktmbuf_mtod_offset(m, const uint8_t *, 14));
	} else {
		/* Otherwise it is rsw_parse. */
		assert_int_equal(rsw_parse(m, (const struct rte_ether_addr *)port_mac, &ref), k);
		assert_memory_equal(&info, &ref, sizeof(info));
	}
	rte_pktmbuf_free(m);
	return l3 != NULL;
}

/* rsw_parse_inline (the inline common case) on frame f with the port's checksum word flags. */
static enum rsw_pkt_kind
parse_fast_flags(const struct ut_frame *f, uint64_t ol_flags, struct rsw_pkt_info *info)
{
	struct rte_mbuf *m = ut_mbuf_ext(pool, f->b, f->len);
	enum rsw_pkt_kind k;

	assert_non_null(m);
	m->ol_flags |= ol_flags;
	k = rsw_parse_inline(m, (const struct rte_ether_addr *)port_mac, info);
	rte_pktmbuf_free(m);
	return k;
}

/*
 * The port's word on the IPv4 header checksum is trusted: GOOD (and NONE: the header checked,
 * its checksum field not to be) passes a wrong checksum, BAD drops a right one, and only
 * UNKNOWN computes it; in each parser (rsw_parse, the inline case, its common branch), with
 * and without options.
 */
static void
test_ipv4_cksum_offload(void **state)
{
	static const uint64_t none = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_IP_CKSUM_BAD;
	static const uint64_t flags[4] = {RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN,
					  RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD,
					  none};
	struct rsw_pkt_info info;
	struct ut_frame f;
	unsigned int i, wrong, opt;

	(void)state;
	for (opt = 0; opt < 2; opt++)
		for (wrong = 0; wrong < 2; wrong++)
			for (i = 0; i < RTE_DIM(flags); i++) {
				/* Taken: the port vouched (GOOD, NONE), or it did not know and the
				 * checksum is right. */
				bool ok = flags[i] == RTE_MBUF_F_RX_IP_CKSUM_GOOD ||
					  flags[i] == none ||
					  (flags[i] == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN && !wrong);

				ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
				if (opt)
					ut_ipv4_opt(&f, 0, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8,
						    1);
				else
					ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8);
				ut_udp(&f, 1, 2, 8);
				if (wrong)
					f.b[24] ^= 0x10;
				if (ok) {
					assert_int_equal(
						parse_len_flags(&f, f.len, flags[i], &info),
						RSW_PK_IPV4);
					assert_int_equal(parse_fast_flags(&f, flags[i], &info),
							 RSW_PK_IPV4);
				} else {
					assert_int_equal(
						parse_len_flags(&f, f.len, flags[i], &info),
						RSW_PK_DROP);
					assert_int_equal(info.drop, RSW_PC_parse_errors);
					assert_int_equal(parse_fast_flags(&f, flags[i], &info),
							 RSW_PK_DROP);
					assert_int_equal(info.drop, RSW_PC_parse_errors);
				}
				/* The common case takes no options; else as rsw_parse. */
				assert_int_equal(fast_takes(&f, flags[i]), ok && !opt);
			}
}

/* IPv4 + UDP to the port, the UDP length field set to udp_len. */
static void
build_ipv4_udp_len(struct ut_frame *f, uint16_t udp_len)
{
	build_ipv4_udp(f, 1, 2, 20);
	f->b[38] = (uint8_t)(udp_len >> 8);
	f->b[39] = (uint8_t)udp_len;
}

/*
 * Where the parse step's common case (rsw_parse_fast's inline branch) stops: each bound both
 * ways. What it takes is rsw_parse's record (fast_takes); a TTL or hop limit of 1 it leaves to
 * rsw_parse (resolve then answers it), so that a burst of its frames needs no TTL check.
 */
static void
test_parse_fast_bounds(void **state)
{
	struct ut_frame f;
	uint16_t n;

	(void)state;
	build_ipv4_udp(&f, 1, 2, 10);
	assert_true(fast_takes(&f, 0));
	/* The UDP length field: below 8 refused; 8, and lengths with either byte set, taken. */
	for (n = 0; n < 8; n++) {
		build_ipv4_udp_len(&f, n);
		assert_false(fast_takes(&f, 0));
	}
	build_ipv4_udp_len(&f, 8);
	assert_true(fast_takes(&f, 0));
	build_ipv4_udp_len(&f, 28);
	assert_true(fast_takes(&f, 0));
	/* Any protocol, 8 bytes of payload or more (an IPv4 total length of 28: room for a UDP
	 * header, so the UDP check needs no bound of its own); 7 are rsw_parse's. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_ICMP, IP4_SRC, IP4_DST, 8);
	ut_zeros(&f, 60 - f.len);
	assert_true(fast_takes(&f, 0));
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_ICMP, IP4_SRC, IP4_DST, 7);
	ut_zeros(&f, 60 - f.len);
	assert_false(fast_takes(&f, 0));
	/* The total length past the frame. */
	build_ipv4_udp(&f, 1, 2, 10);
	f.len--;
	assert_false(fast_takes(&f, 0));
	/* TTL 1 refused (rsw_parse's, resolve answers it), 2 taken. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 1, IPPROTO_UDP, IP4_SRC, IP4_DST, 18);
	ut_udp(&f, 1, 2, 18);
	ut_zeros(&f, 10);
	assert_false(fast_takes(&f, 0));
	f.b[22] = 2;
	fix_ipv4_cksum(&f, 14);
	assert_true(fast_takes(&f, 0));
	/* A bad header checksum: refused, unless the NIC said it is good. */
	f.b[24] ^= 0x10;
	assert_false(fast_takes(&f, 0));
	assert_true(fast_takes(&f, RTE_MBUF_F_RX_IP_CKSUM_GOOD));
	/* RoCEv2: a whole BTH taken, a CNP (classify's) or 11 bytes of BTH not. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8 + RSW_BTH_LEN);
	ut_udp(&f, 1000, RSW_UDP_PORT_ROCEV2, 8 + RSW_BTH_LEN);
	ut_bth(&f, 0x04, 0x123456, 1);
	assert_true(fast_takes(&f, 0));
	f.b[42] = RSW_BTH_OPCODE_CNP;
	assert_false(fast_takes(&f, 0));
	build_ipv6_udp(&f, port_mac, 1000, RSW_UDP_PORT_ROCEV2, 11);
	assert_false(fast_takes(&f, 0));
	build_ipv6_udp(&f, port_mac, 1000, RSW_UDP_PORT_ROCEV2, 12);
	assert_true(fast_takes(&f, 0));
	/* IPv6: a UDP header cut short refused, a hop limit of 1 refused and 2 taken, only to the
	 * port's MAC. */
	build_ipv6_udp(&f, port_mac, 1, 2, 0);
	assert_true(fast_takes(&f, 0));
	f.b[19] = 7;
	f.len = (uint16_t)(f.len - 1);
	assert_false(fast_takes(&f, 0));
	build_ipv6_udp(&f, port_mac, 1, 2, 4);
	f.b[21] = 1;
	assert_false(fast_takes(&f, 0));
	f.b[21] = 2;
	assert_true(fast_takes(&f, 0));
	build_ipv6_udp(&f, other_mac, 1, 2, 4);
	assert_false(fast_takes(&f, 0));
}

static void
test_ipv4_udp(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	build_ipv4_udp(&f, 1234, 5678, 10);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.l3_off, 14);
	assert_int_equal(info.l3_len, 20 + 8 + 10);
	assert_int_equal(info.n_vlan, 0);
	assert_int_equal(info.dscp, 46);
	assert_int_equal(info.ttl, 64);
	assert_int_equal(info.proto, IPPROTO_UDP);
	assert_int_equal(info.flags, RSW_PF_L4);
	assert_int_equal(info.sport, 1234);
	assert_int_equal(info.dport, 5678);
	/* Ethernet padding after the IP packet is fine: l3_len stays the total length. */
	build_ipv4_udp(&f, 1234, 5678, 0);
	ut_zeros(&f, 60 - f.len);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.l3_len, 28);
	assert_int_equal(info.sport, 1234);
	/* TCP: the ports only. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 3, IPPROTO_TCP, IP4_SRC, IP4_DST, 20);
	ut_put16(&f, 40000);
	ut_put16(&f, 179);
	ut_zeros(&f, 16);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.proto, IPPROTO_TCP);
	assert_int_equal(info.flags, RSW_PF_L4);
	assert_int_equal(info.sport, 40000);
	assert_int_equal(info.dport, 179);
	assert_int_equal(info.ttl, 3);
	/* Another protocol: no ports. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_ICMP, IP4_SRC, IP4_DST, 8);
	ut_zeros(&f, 8);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.flags, 0);
}

static void
test_vlan(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 5, 100, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0x28, 9, IPPROTO_UDP, IP4_SRC, IP4_DST, 8);
	ut_udp(&f, 11, 22, 8);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.n_vlan, 1);
	assert_int_equal(info.pcp, 5);
	assert_int_equal(info.l3_off, 18);
	assert_int_equal(info.l3_len, 28);
	assert_int_equal(info.dscp, 10);
	assert_int_equal(info.sport, 11);
	assert_int_equal(info.dport, 22);
	/* QinQ: the outer tag's PCP. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_QINQ);
	ut_vlan(&f, 3, 100, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 6, 200, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8);
	ut_udp(&f, 11, 22, 8);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.n_vlan, 2);
	assert_int_equal(info.pcp, 3);
	assert_int_equal(info.l3_off, 22);
	/* Two 0x8100 tags, IPv6 inside. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 7, 1, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 1, 2, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&f, 0, 1, 8, IPPROTO_UDP, 64, ip6_src, ip6_dst);
	ut_udp(&f, 11, 22, 8);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV6);
	assert_int_equal(info.n_vlan, 2);
	assert_int_equal(info.pcp, 7);
	assert_int_equal(info.l3_off, 22);
	assert_int_equal(info.l3_len, 48);
}

static void
test_ipv4_options(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4_opt(&f, 0, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8, 1);
	ut_udp(&f, 4321, 8765, 8);
	assert_int_equal(f.b[14], 0x46);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.l3_len, 24 + 8);
	assert_int_equal(info.sport, 4321);
	assert_int_equal(info.dport, 8765);
	/* The longest header (IHL 15). */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4_opt(&f, 0, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8, 10);
	ut_udp(&f, 4321, 8765, 8);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.l3_len, 60 + 8);
	assert_int_equal(info.dport, 8765);
}

static void
test_ipv4_fragment(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	/* First fragment (MF, offset 0): routed, no L4 even though the UDP header is there. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4_opt(&f, 0, 0x2000, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 16, 0);
	ut_udp(&f, 1, 2, 100);
	ut_zeros(&f, 8);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.flags, RSW_PF_FRAG);
	assert_int_equal(info.sport, 0);
	assert_int_equal(info.dport, 0);
	/* A later fragment, 3 payload bytes (no UDP header at all). */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4_opt(&f, 0, 0x0010, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 3, 0);
	ut_zeros(&f, 3);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.flags, RSW_PF_FRAG);
	assert_int_equal(info.l3_len, 23);
}

static void
test_ipv6_udp(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	build_ipv6_udp(&f, port_mac, 3333, 4444, 20);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV6);
	assert_int_equal(info.l3_off, 14);
	assert_int_equal(info.l3_len, 40 + 8 + 20);
	assert_int_equal(info.flow, 0xabcde);
	assert_int_equal(info.ttl, 7);
	assert_int_equal(info.dscp, 10);
	assert_int_equal(info.proto, IPPROTO_UDP);
	assert_int_equal(info.flags, RSW_PF_L4);
	assert_int_equal(info.sport, 3333);
	assert_int_equal(info.dport, 4444);
	/* Padding after the payload. */
	ut_zeros(&f, 16);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV6);
	assert_int_equal(info.l3_len, 68);
}

static void
test_ipv6_ext_header(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	/* Hop-by-hop (next header 0) first, then UDP: routed on addresses + flow, no L4. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&f, 0, 0x12345, 8 + 8, 0, 64, ip6_src, ip6_dst);
	ut_put8(&f, IPPROTO_UDP);
	ut_put8(&f, 0);
	ut_put16(&f, 0x0104); /* PadN */
	ut_put32(&f, 0);
	ut_udp(&f, 1, 2, 8);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV6);
	assert_int_equal(info.proto, 0);
	assert_int_equal(info.flags, 0);
	assert_int_equal(info.flow, 0x12345);
	assert_int_equal(info.l3_len, 56);
}

static void
test_rocev2(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0x68, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8 + 12 + 16);
	ut_udp(&f, 49152, RSW_UDP_PORT_ROCEV2, 8 + 12 + 16);
	ut_bth(&f, 0x0a /* RC RDMA WRITE ONLY */, 0xabcdef, 77);
	ut_zeros(&f, 16);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.flags, RSW_PF_L4 | RSW_PF_BTH);
	assert_int_equal(info.qp, 0xabcdef);
	assert_int_equal(info.dport, RSW_UDP_PORT_ROCEV2);
	/* Exactly the 12 bytes of BTH. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8 + 12);
	ut_udp(&f, 49152, RSW_UDP_PORT_ROCEV2, 8 + 12);
	ut_bth(&f, 0x04, 0x000001, 0);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.qp, 1);
	/* RoCEv2 over IPv6. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&f, 0, 0, 8 + 12, IPPROTO_UDP, 64, ip6_src, ip6_dst);
	ut_udp(&f, 49152, RSW_UDP_PORT_ROCEV2, 8 + 12);
	ut_bth(&f, 0x0a, 0x765432, 0);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV6);
	assert_int_equal(info.flags, RSW_PF_L4 | RSW_PF_BTH);
	assert_int_equal(info.qp, 0x765432);
}

static void
test_cnp(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0xc0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8 + 12 + 16);
	ut_udp(&f, 49152, RSW_UDP_PORT_ROCEV2, 8 + 12 + 16);
	ut_bth(&f, RSW_BTH_OPCODE_CNP, 0x000042, 0);
	ut_zeros(&f, 16);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.flags, RSW_PF_L4 | RSW_PF_BTH | RSW_PF_CNP);
	assert_int_equal(info.qp, 0x42);
	/* Opcode 0x81 on another port is not a CNP. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0xc0, 64, IPPROTO_UDP, IP4_SRC, IP4_DST, 8 + 12);
	ut_udp(&f, 49152, 4792, 8 + 12);
	ut_bth(&f, RSW_BTH_OPCODE_CNP, 0x000042, 0);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.flags, RSW_PF_L4);
}

static void
test_uet(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	build_ipv4_udp(&f, 0xbeef, RSW_UDP_PORT_UET, 24);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV4);
	assert_int_equal(info.flags, RSW_PF_L4 | RSW_PF_UET);
	assert_int_equal(info.sport, 0xbeef);
	/* No minimum UET header: a bare UDP header is enough. */
	build_ipv6_udp(&f, port_mac, 0x1234, RSW_UDP_PORT_UET, 0);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV6);
	assert_int_equal(info.flags, RSW_PF_L4 | RSW_PF_UET);
}

static void
test_arp(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	build_arp(&f, bcast_mac);
	assert_int_equal(parse(&f, &info), RSW_PK_ARP);
	assert_int_equal(info.flags, RSW_PF_BCAST);
	assert_int_equal(info.l3_off, 14);
	/* A unicast reply, padded, behind a tag. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 0, 10, RTE_ETHER_TYPE_ARP);
	ut_zeros(&f, 28 + 14);
	assert_int_equal(parse(&f, &info), RSW_PK_ARP);
	assert_int_equal(info.flags, 0);
	assert_int_equal(info.l3_off, 18);
}

static void
test_mac_ctrl(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	build_pfc(&f);
	assert_int_equal(parse(&f, &info), RSW_PK_MAC_CTRL);
	assert_int_equal(info.l3_off, 14);
	/* The shortest accepted: opcode + one more 16-bit word. */
	assert_int_equal(parse_len(&f, 18, &info), RSW_PK_MAC_CTRL);
	/* Unicast PAUSE to the port's own MAC. */
	memcpy(f.b, port_mac, 6);
	assert_int_equal(parse(&f, &info), RSW_PK_MAC_CTRL);
}

static void
test_nd(void **state)
{
	struct rsw_pkt_info info;
	struct ut_frame f;

	(void)state;
	/* Neighbour solicitation to the solicited-node group. */
	ut_eth(&f, nd_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&f, 0, 0, 32, IPPROTO_ICMPV6, 255, ip6_src, ip6_snm);
	ut_put8(&f, 135);
	ut_zeros(&f, 31);
	assert_int_equal(parse(&f, &info), RSW_PK_ND);
	assert_int_equal(info.proto, IPPROTO_ICMPV6);
	assert_int_equal(info.ttl, 255);
	/* All-nodes (33:33:00:00:00:01): router advertisements. */
	memcpy(f.b, all_nodes_mac, 6);
	assert_int_equal(parse(&f, &info), RSW_PK_ND);
	/* ICMPv6 unicast to the port is routed (LOCAL by the FIB). */
	memcpy(f.b, port_mac, 6);
	assert_int_equal(parse(&f, &info), RSW_PK_IPV6);
}

/* Robustness: random frames with random valid prefixes never crash and give a valid result. */

static void
random_prefix(uint8_t *b, uint16_t len, uint64_t *s)
{
	static const uint8_t *const dsts[] = {port_mac, bcast_mac, pfc_mac,
					      nd_mac,   other_mac, all_nodes_mac};
	static const uint16_t types[] = {RTE_ETHER_TYPE_IPV4, RTE_ETHER_TYPE_IPV6,
					 RTE_ETHER_TYPE_ARP,  RTE_ETHER_TYPE_VLAN,
					 RTE_ETHER_TYPE_QINQ, RSW_ETHER_TYPE_MAC_CTRL};
	uint64_t r = ut_rand(s);
	uint16_t off = 14, ihl, tot, ck;
	uint16_t type;

	if (len < 14 || r % 8 == 0)
		return; /* entirely random */
	memcpy(b, dsts[(r >> 8) % RTE_DIM(dsts)], 6);
	type = types[(r >> 16) % RTE_DIM(types)];
	b[12] = (uint8_t)(type >> 8);
	b[13] = (uint8_t)type;
	while ((type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) && off + 4 <= len) {
		type = (r >> 24) & 1 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;
		if ((r >> 25) % 4 == 0)
			type = RTE_ETHER_TYPE_VLAN;
		b[off + 2] = (uint8_t)(type >> 8);
		b[off + 3] = (uint8_t)type;
		off += 4;
		r = ut_rand(s);
	}
	if (type == RTE_ETHER_TYPE_IPV4 && off + 20 <= len) {
		ihl = (uint16_t)(4 * (5 + (r >> 32) % 4));
		if (off + ihl > len)
			ihl = 20;
		tot = (uint16_t)(ihl + (r >> 40) % (len - off - ihl + 8));
		b[off] = (uint8_t)(0x40 | ihl / 4);
		b[off + 2] = (uint8_t)(tot >> 8);
		b[off + 3] = (uint8_t)tot;
		b[off + 6] = (r >> 48) % 4 == 0 ? 0x20 : 0x40;
		b[off + 9] = (r >> 50) % 4 == 0 ? IPPROTO_TCP : IPPROTO_UDP;
		if (off + ihl + 4 <= len && (r >> 52) % 2) {
			b[off + ihl + 2] = 0x12;
			b[off + ihl + 3] = (r >> 53) % 2 ? 0xb7 : 0xb9; /* 4791 or 4793 */
		}
		if (off + ihl + 6 <= len) {
			b[off + ihl + 4] = 0;
			b[off + ihl + 5] = (uint8_t)(8 + (r >> 56) % 16);
		}
		b[off + 10] = b[off + 11] = 0;
		if ((r >> 62) != 0) {
			ck = ut_ref_cksum(b + off, ihl);
			b[off + 10] = (uint8_t)(ck >> 8);
			b[off + 11] = (uint8_t)ck;
		}
	} else if (type == RTE_ETHER_TYPE_IPV6 && off + 40 <= len) {
		tot = (uint16_t)((r >> 32) % (len - off - 40 + 8));
		b[off] = 0x60;
		b[off + 4] = (uint8_t)(tot >> 8);
		b[off + 5] = (uint8_t)tot;
		b[off + 6] = (r >> 48) % 3 == 0 ? IPPROTO_ICMPV6 : IPPROTO_UDP;
		if (off + 44 <= len) {
			b[off + 42] = 0x12;
			b[off + 43] = (r >> 50) % 2 ? 0xb7 : 0xb9;
		}
	}
}

static void
test_random_robustness(void **state)
{
	static const enum rsw_port_ctr drops[] = {RSW_PC_parse_errors, RSW_PC_not_for_us,
						  RSW_PC_l2_control, RSW_PC_unknown_ethertype};
	unsigned int counts[RSW_PK_MAC_CTRL + 1] = {0};
	unsigned int start = rte_mempool_in_use_count(pool);
	uint64_t seed = 0x5eed1234abcdULL;
	uint8_t b[256];
	int i, j;

	(void)state;
	for (i = 0; i < 20000; i++) {
		uint16_t len = (uint16_t)(ut_rand(&seed) % 201);
		struct rsw_pkt_info info;
		struct rte_mbuf *m;
		enum rsw_pkt_kind k;
		int ok = 0;

		for (j = 0; j < len; j++)
			b[j] = (uint8_t)ut_rand(&seed);
		random_prefix(b, len, &seed);
		m = ut_mbuf_ext(pool, b, len);
		assert_non_null(m);
		k = rsw_parse(m, (const struct rte_ether_addr *)port_mac, &info);
		rte_pktmbuf_free(m);

		assert_int_equal(k, info.kind);
		assert_true(k <= RSW_PK_MAC_CTRL);
		counts[k]++;
		if (k == RSW_PK_DROP) {
			for (j = 0; j < (int)RTE_DIM(drops); j++)
				ok |= info.drop == drops[j];
			if (!ok)
				fail_msg("frame %d: drop reason %u", i, info.drop);
			continue;
		}
		assert_true(info.l3_off <= len);
		assert_true(info.n_vlan <= 2);
		if (k == RSW_PK_IPV4 || k == RSW_PK_IPV6 || k == RSW_PK_ND)
			assert_true(info.l3_off + info.l3_len <= len);
		if (info.flags & RSW_PF_BTH)
			assert_true(info.dport == RSW_UDP_PORT_ROCEV2);
	}
	/* The prefixes reach every outcome. */
	for (i = 0; i <= RSW_PK_MAC_CTRL; i++)
		if (counts[i] == 0)
			fail_msg("no random frame parsed as kind %d", i);
	assert_int_equal(rte_mempool_in_use_count(pool), start);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated_ethernet),
		cmocka_unit_test(test_truncated_vlan),
		cmocka_unit_test(test_truncated_ipv4),
		cmocka_unit_test(test_ipv4_bad_ihl),
		cmocka_unit_test(test_ipv4_bad_total_length),
		cmocka_unit_test(test_ipv4_cksum_offload),
		cmocka_unit_test(test_ip_version_swapped),
		cmocka_unit_test(test_ipv4_bad_cksum),
		cmocka_unit_test(test_truncated_ipv6),
		cmocka_unit_test(test_truncated_udp),
		cmocka_unit_test(test_truncated_bth),
		cmocka_unit_test(test_truncated_arp),
		cmocka_unit_test(test_truncated_mac_ctrl),
		cmocka_unit_test(test_not_for_us),
		cmocka_unit_test(test_l2_control),
		cmocka_unit_test(test_unknown_ethertype),
		cmocka_unit_test(test_ipv4_udp),
		cmocka_unit_test(test_parse_fast_bounds),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_ipv4_options),
		cmocka_unit_test(test_ipv4_fragment),
		cmocka_unit_test(test_ipv6_udp),
		cmocka_unit_test(test_ipv6_ext_header),
		cmocka_unit_test(test_rocev2),
		cmocka_unit_test(test_cnp),
		cmocka_unit_test(test_uet),
		cmocka_unit_test(test_arp),
		cmocka_unit_test(test_mac_ctrl),
		cmocka_unit_test(test_nd),
		cmocka_unit_test(test_random_robustness),
	};
	int ret;

	if (ut_eal_init("parse") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ut_parse", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "cannot create the mbuf pool\n");
		rte_eal_cleanup();
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret;
}
