/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of step 2 of the packet path (parse.c) on bad input: malformed and truncated
 * frames at every header boundary, the frames that are not for the switch, then a randomized
 * loop of frames with valid prefixes and random bytes. Good frames: test_parse.c.
 */

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "test_parse_common.h"

static const uint8_t lldp_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
static const uint8_t stp_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x00};
static const uint8_t mcast4_mac[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
static const uint8_t mld_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x02};

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
		cmocka_unit_test(test_random_robustness),
	};

	return ut_main("parse_bad", tests, RTE_DIM(tests), NULL, NULL, &pool, 511);
}
