/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the burst pipeline (worker.c, docs/architecture.md) end to end without a
 * NIC, on ring PMD ports (test_worker_common.h: the topology): before any tables, bad input and
 * what is dropped (not for us, TTL, no route, MTU), then the punts to the control thread (and
 * a group whose members are down for their neighbours, punted to ask them again).
 * Forwarding: test_forward.c; the admit step per burst: test_admit.c.
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

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"
#include "test_worker_common.h"

/*
 * Take the n frames handed to the control thread for an ICMP error, check their reason and
 * ingress port, and free them.
 */
static void
expect_error_punts(unsigned int n, uint8_t reason, uint16_t in_port)
{
	struct rte_mbuf *m[RSW_BURST];
	unsigned int k, i;

	k = rte_ring_dequeue_burst(rsw_dp.punt, (void **)m, RTE_DIM(m), NULL);
	assert_int_equal(k, n);
	for (i = 0; i < k; i++) {
		assert_int_equal(rsw_meta(m[i])->reason, reason);
		assert_int_equal(rsw_meta(m[i])->in_port, in_port);
	}
	rte_pktmbuf_free_bulk(m, k);
}

/* Bad input first. */

static void
test_empty_burst(void **state)
{
	(void)state;
	snap();
	rsw_process_burst(st, 0, NULL, 0);
	expect_deltas(NULL, 0);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_malformed(void **state)
{
	struct ut_frame f[6];

	(void)state;
	snap();
	frame4(&f[0], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[0].len = 13; /* no Ethernet header */
	frame4(&f[1], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[1].b[14] = 0x44; /* IHL 4 */
	frame4(&f[2], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[2].b[24] ^= 1; /* bad header checksum */
	frame4(&f[3], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[3].len = 14 + 50; /* total length beyond the frame */
	frame6(&f[4], 1, (const uint8_t[16]){0x20, 0x01, 0x0d, 0xb8, 1, 0}, 64, 1);
	f[4].len = 14 + 39;
	frame4(&f[5], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[5].b[22] = 1; /* TTL 1 without a checksum update: still a checksum error */
	run(1, f, 6);
	{
		const struct delta d[] = {
			{1, RSW_PC_rx_packets, 6},
			{1, RSW_PC_rx_bytes, rx_bytes_of(f, 6)},
			{1, RSW_PC_parse_errors, 6},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
}

static void
test_not_for_us_and_control(void **state)
{
	static const uint8_t lldp[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
	static const uint8_t other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x77};
	struct ut_frame f[4];

	(void)state;
	snap();
	frame4(&f[0], 2, ip4(192, 168, 1, 1), 64, 1, 100);
	memcpy(f[0].b, other, 6);
	/* Port 1's MAC is not port 2's. */
	frame4(&f[1], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	ut_eth(&f[2], lldp, peer_mac, 0x88cc);
	ut_zeros(&f[2], 46);
	frame4(&f[3], 2, ip4(192, 168, 1, 1), 64, 1, 100);
	f[3].b[12] = 0x88;
	f[3].b[13] = 0xb5;
	run(2, f, 4);
	{
		const struct delta d[] = {
			{2, RSW_PC_rx_packets, 4},        {2, RSW_PC_rx_bytes, rx_bytes_of(f, 4)},
			{2, RSW_PC_not_for_us, 2},        {2, RSW_PC_l2_control, 1},
			{2, RSW_PC_unknown_ethertype, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
}

static void
test_ttl_expired(void **state)
{
	uint8_t dst6[16];
	struct ut_frame f[4];

	(void)state;
	snap();
	frame4(&f[0], 0, ip4(192, 168, 7, 7), 1, 1, 100); /* group route */
	frame4(&f[1], 0, ip4(10, 0, 1, 2), 1, 1, 100);    /* connected */
	frame4(&f[2], 0, ip4(192, 168, 7, 7), 0, 1, 100); /* TTL 0 */
	ip6(dst6, 0x100, 5);
	frame6(&f[3], 0, dst6, 1, 1);
	run(0, f, 4);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 4},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 4)},
			{0, RSW_PC_ttl_expired, 4},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	/* Not forwarded; handed to the control thread for ICMP time exceeded. */
	expect_error_punts(4, RSW_PUNT_TTL, 0);
	expect_rings_empty();
	expect_pool_back();
	/* Nothing went through a group member either. */
	assert_memory_equal(st->lb[group_id], lb_before, sizeof(lb_before));
}

static void
test_no_route(void **state)
{
	uint8_t dst6[16] = {0xfd, 0x00, [15] = 1};
	struct ut_frame f[3];

	(void)state;
	snap();
	frame4(&f[0], 3, ip4(11, 1, 1, 1), 64, 1, 100);
	frame4(&f[1], 3, ip4(10, 0, 9, 1), 64, 1, 100);
	frame6(&f[2], 3, dst6, 64, 1);
	run(3, f, 3);
	{
		const struct delta d[] = {
			{3, RSW_PC_rx_packets, 3},
			{3, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{3, RSW_PC_no_route, 3},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();

	/* With switch.icmp_unreachable the same drops go to the control thread to answer. */
	set_icmp_unreachable(1);
	snap();
	frame4(&f[0], 3, ip4(11, 1, 1, 1), 64, 1, 100);
	frame4(&f[1], 3, ip4(10, 0, 9, 1), 64, 1, 100);
	frame6(&f[2], 3, dst6, 64, 1);
	run(3, f, 3);
	{
		const struct delta d[] = {
			{3, RSW_PC_rx_packets, 3},
			{3, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{3, RSW_PC_no_route, 3},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_error_punts(3, RSW_PUNT_NO_ROUTE, 3);
	set_icmp_unreachable(0);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_mtu_exceeded(void **state)
{
	struct rte_mbuf *out[4];
	struct ut_frame f[3];
	uint8_t nh[6];

	(void)state;
	snap();
	/* Port 2's MTU is 600: 601 is too big, 600 fits. Through the connected route. */
	frame4(&f[0], 0, ip4(10, 0, 2, 2), 64, 1, MTU_SMALL + 1);
	frame4(&f[1], 0, ip4(10, 0, 2, 2), 64, 1, MTU_SMALL);
	frame4(&f[2], 0, ip4(10, 0, 2, 2), 64, 1, 1500);
	run(0, f, 3);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 3},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{0, RSW_PC_mtu_exceeded, 2},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	assert_int_equal(egress(2, out, 4), 1);
	nh_mac(2, nh);
	expect_routed(out[0], &f[1], 14, 0, nh, 2);
	free_all(out, 1);
	expect_rings_empty();
	expect_pool_back();
}

/* Punts. */

static void
test_punt_local(void **state)
{
	struct rte_mbuf *out[8];
	struct ut_frame f[3];
	uint8_t dst6[16];
	unsigned int n, i;

	(void)state;
	snap();
	frame4(&f[0], 1, ip4(10, 0, 1, 1), 64, 1, 100);
	/* Delivered before the TTL check: TTL 1 to the switch is local too. */
	frame4(&f[1], 1, ip4(10, 0, 3, 1), 1, 1, 100);
	ip6(dst6, 1, 1);
	frame6(&f[2], 1, dst6, 1, 1);
	run(1, f, 3);
	{
		const struct delta d[] = {
			{1, RSW_PC_rx_packets, 3},
			{1, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{1, RSW_PC_punted, 3},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = drain(rsw_dp.punt, out, 8);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		const struct rsw_mbuf_meta *meta = rsw_meta(out[i]);

		assert_int_equal(meta->reason, RSW_PUNT_LOCAL);
		assert_int_equal(meta->in_port, 1);
		assert_int_equal(meta->l3_off, 14);
		assert_int_equal(meta->neigh, UINT32_MAX);
		/* Unchanged bytes. */
		assert_int_equal(rte_pktmbuf_data_len(out[i]), f[i].len);
		assert_memory_equal(rte_pktmbuf_mtod(out[i], void *), f[i].b, f[i].len);
	}
	assert_int_equal(rsw_meta(out[0])->out_port, 1);
	assert_int_equal(rsw_meta(out[1])->out_port, 3);
	assert_int_equal(rsw_meta(out[0])->kind, RSW_PK_IPV4);
	assert_int_equal(rsw_meta(out[2])->kind, RSW_PK_IPV6);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_punt_neigh(void **state)
{
	struct rte_mbuf *out[8];
	struct ut_frame f[2];
	unsigned int n;

	(void)state;
	snap();
	/* A group member without a MAC, and a connected host without an entry. */
	frame4(&f[0], 0, ip4(172, 16, 1, 1), 64, 1, 100);
	frame4(&f[1], 0, ip4(10, 0, 3, 77), 64, 1, 100);
	run(0, f, 2);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 2},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 2)},
			{0, RSW_PC_punted, 2},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = drain(rsw_dp.punt, out, 8);
	assert_int_equal(n, 2);
	assert_int_equal(rsw_meta(out[0])->reason, RSW_PUNT_NEIGH);
	assert_int_equal(rsw_meta(out[0])->neigh, neigh_unres);
	assert_int_equal(rsw_meta(out[0])->out_port, 1);
	assert_int_equal(rsw_meta(out[1])->reason, RSW_PUNT_NEIGH);
	assert_int_equal(rsw_meta(out[1])->neigh, UINT32_MAX);
	assert_int_equal(rsw_meta(out[1])->out_port, 3);
	/* Not rewritten yet: the control thread does that once resolved. */
	assert_memory_equal(rte_pktmbuf_mtod(out[0], void *), f[0].b, f[0].len);
	assert_memory_equal(rte_pktmbuf_mtod(out[1], void *), f[1].b, f[1].len);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

/* Group gid's masks (the control thread's, rsw_ctl_lb_masks): members down, and to ask. */
static void
set_masks(uint32_t gid, uint16_t down, uint16_t ask)
{
	rsw_lb_ask[gid] = ask;
	rsw_lb_down[gid] = down;
}

static void
test_failed_member_asked(void **state)
{
	const struct rsw_tables *t = rsw_fib_main.tables;
	const uint32_t unres = group_id + 1; /* 172.16.0.0/16's, built after 192.168.0.0/16's */
	struct rte_mbuf *out[8];
	struct ut_frame f[4];
	unsigned int n, i;

	(void)state;
	assert_int_equal(t->nh[t->groups[unres].members[0]].neigh, neigh_unres);
	frame4(&f[0], 0, ip4(172, 16, 1, 1), 64, 1, 100);

	/* Its only member down, not for its neighbour (a port down): dropped, group_empty. */
	snap();
	set_masks(unres, 0x1, 0);
	run(0, f, 1);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 1},
			{0, RSW_PC_rx_bytes, f[0].len},
			{0, RSW_PC_group_empty, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();

	/* Down because its neighbour failed (rsw_lb_ask): the frame goes to it and, the
	 * neighbour unresolved, is punted with it, for the control thread to ask again. */
	snap();
	set_masks(unres, 0x1, 0x1);
	run(0, f, 1);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 1},
			{0, RSW_PC_rx_bytes, f[0].len},
			{0, RSW_PC_punted, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = drain(rsw_dp.punt, out, 8);
	assert_int_equal(n, 1);
	assert_int_equal(rsw_meta(out[0])->reason, RSW_PUNT_NEIGH);
	assert_int_equal(rsw_meta(out[0])->neigh, neigh_unres);
	assert_int_equal(rsw_meta(out[0])->out_port, 1);
	free_all(out, n);
	set_masks(unres, 0, 0);

	/* A group of four, all down, member 2 for its neighbour: every frame goes to member 2
	 * (its neighbour resolved here: forwarded); with none to ask, all dropped. */
	for (i = 0; i < 4; i++)
		frame4(&f[i], 0, ip4(192, 168, 0, (uint8_t)i), 64, (uint16_t)(1000 + i), 100);
	snap();
	set_masks(group_id, 0xf, 0x4);
	run(0, f, 4);
	assert_int_equal(egress(2, out, 8), 4);
	for (i = 0; i < 4; i++) {
		uint8_t mac[6];

		nh_mac(2, mac);
		expect_routed(out[i], &f[i], RTE_ETHER_HDR_LEN, 0, mac, 2);
	}
	free_all(out, 4);
	expect_rx_only(0, 4, rx_bytes_of(f, 4));
	snap();
	set_masks(group_id, 0xf, 0);
	run(0, f, 4);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 4},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 4)},
			{0, RSW_PC_group_empty, 4},
		};

		expect_deltas(d, RTE_DIM(d));
	}

	/* A plain route (10.99.0.0/16 via port 3) the same way. */
	frame4(&f[0], 0, ip4(10, 99, 0, 1), 64, 1, 100);
	snap();
	set_masks(plain_id[0], 0x1, 0);
	run(0, f, 1);
	assert_int_equal(egress(3, out, 8), 0);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 1},
			{0, RSW_PC_rx_bytes, f[0].len},
			{0, RSW_PC_group_empty, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	snap();
	set_masks(plain_id[0], 0x1, 0x1);
	run(0, f, 1);
	assert_int_equal(egress(3, out, 8), 1);
	free_all(out, 1);
	expect_rx_only(0, 1, f[0].len);
	set_masks(plain_id[0], 0, 0);
	set_masks(group_id, 0, 0);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_punt_arp_nd_pfc(void **state)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t nd[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
	static const uint8_t pfc[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
	struct rte_mbuf *out[8];
	struct ut_frame f[3];
	uint8_t src[16], dst[16];
	unsigned int n;

	(void)state;
	snap();
	ut_eth(&f[0], bcast, peer_mac, RTE_ETHER_TYPE_ARP);
	ut_zeros(&f[0], 28);
	ip6(src, 2, 2);
	ip6(dst, 2, 1);
	ut_eth(&f[1], nd, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&f[1], 0, 0, 24, IPPROTO_ICMPV6, 255, src, dst);
	ut_put8(&f[1], 135);
	ut_zeros(&f[1], 23);
	ut_eth(&f[2], pfc, peer_mac, RSW_ETHER_TYPE_MAC_CTRL);
	ut_put16(&f[2], 0x0101);
	ut_zeros(&f[2], 44);
	run(2, f, 3);
	{
		const struct delta d[] = {
			{2, RSW_PC_rx_packets, 3},
			{2, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{2, RSW_PC_punted, 2},
			{2, RSW_PC_pfc_rx_frames, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = drain(rsw_dp.punt, out, 8);
	assert_int_equal(n, 2);
	assert_int_equal(rsw_meta(out[0])->reason, RSW_PUNT_ARP);
	assert_int_equal(rsw_meta(out[0])->in_port, 2);
	assert_int_equal(rsw_meta(out[1])->reason, RSW_PUNT_ND);
	assert_int_equal(rsw_meta(out[1])->in_port, 2);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

/* Before any tables are published, every IP packet is no_route. */
static void
test_no_tables(void **state)
{
	struct ut_frame f[2];
	uint8_t dst6[16];

	(void)state;
	assert_null(rsw_fib_main.tables);
	snap();
	frame4(&f[0], 0, ip4(192, 168, 1, 1), 64, 1, 100);
	ip6(dst6, 0x100, 1);
	frame6(&f[1], 0, dst6, 64, 1);
	run(0, f, 2);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 2},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 2)},
			{0, RSW_PC_no_route, 2},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
	assert_int_equal(build_tables(), 0);
	assert_non_null(rsw_fib_main.tables);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_tables), /* publishes the tables */
		cmocka_unit_test(test_empty_burst),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_not_for_us_and_control),
		cmocka_unit_test(test_ttl_expired),
		cmocka_unit_test(test_no_route),
		cmocka_unit_test(test_mtu_exceeded),
		cmocka_unit_test(test_punt_local),
		cmocka_unit_test(test_punt_neigh),
		cmocka_unit_test(test_failed_member_asked),
		cmocka_unit_test(test_punt_arp_nd_pfc),
	};

	return ut_main("worker", tests, RTE_DIM(tests), setup, ut_ring_ports_teardown, NULL, 0);
}
