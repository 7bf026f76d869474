/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of step 2 of the packet path (parse.c) on good frames: each frame type field by
 * field, the port's word on the IPv4 checksum, and where the common case (rsw_parse_fast,
 * rsw_parse_inline) stops. Frames are built byte by byte (test_common.h) and handed to the
 * parser in mbufs whose data is an exactly sized heap buffer, so under ASan any read past the
 * frame fails the test. Bad input: test_parse_bad.c.
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

static const uint8_t ip6_snm[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 0, 1};

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_cksum_offload),
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
	};

	return ut_main("parse", tests, RTE_DIM(tests), NULL, NULL, &pool, 511);
}
