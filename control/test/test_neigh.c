/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the neighbour state machine (control/neigh: neigh.c, arp.c, nd.c, punt.c)
 * on an injected clock, with real rings and mbufs: what may not be learned first, then a
 * next hop's request (ARP, NS) read back from the queue the control thread sends on, the
 * retries and their timing, packets held while incomplete (three) sent once the reply is
 * learned or dropped (neigh_unresolved) when resolution fails, ageing reachable → stale →
 * re-probe (an NS unicast to the known MAC), and a static neighbour never replaced by what ARP
 * says. Failed neighbours asked again: test_neigh_failed.c.
 */

#include "test_neigh_common.h"

static void
test_learn_refused(void **state)
{
	struct rsw_ip ip = rip4(ip4(10, 0, 3, 1)), none = {0};
	const uint8_t mcast[6] = {0x01, 0, 0x5e, 0, 0, 1};

	(void)state;
	ct_flush();
	/* Not on the port's subnet, the switch's own address, a multicast MAC. */
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, true), -ENOENT);
	ip = rip4(ip4(10, 0, 2, 7));
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, true), -ENOENT); /* p1's subnet */
	ip = rip4(ip4(10, 0, 1, 254));
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, true), -ENOENT);
	ip = rip4(ip4(10, 0, 1, 7));
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, mcast, true), -ENOENT);
	/* Unknown, and not to be created. */
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, false), -ENOENT);
	assert_int_equal(idx4(ip4(10, 0, 1, 7)), -ENOENT);
	assert_int_equal(rsw_ctl_neigh_want(&none, 0), -EINVAL);
	expect_state("10.0.1.7", "", "");
	expect_nothing_sent();
	expect_pool_back();
}

static void
test_arp_malformed_ignored(void **state)
{
	const uint8_t host[6] = {0x02, 0x77, 0, 0, 0, 0x07}, mcast[6] = {0x03, 0, 0, 0, 0, 7};
	struct rte_mbuf *m;
	uint8_t *b;
	int i;

	(void)state;
	ct_flush();
	for (i = 0; i < 5; i++) {
		m = arp_frame(1, bcast, i == 4 ? mcast : host, ip4(10, 0, 1, 7),
			      ip4(10, 0, 1, 254));
		b = rte_pktmbuf_mtod(m, uint8_t *);
		if (i == 0)
			b[15] = 6; /* hardware type 6 */
		else if (i == 1)
			b[16] = 0x86; /* protocol IPv6 */
		else if (i == 2)
			b[18] = 8; /* hardware length 8 */
		else if (i == 3)
			b[19] = 16; /* protocol length 16 */
		punt_arp(m, 0);
	}
	expect_nothing_sent();
	/* A request on port 1, which has no 10.0.1.0/24: answered, but its sender not learned. */
	punt_arp(arp_frame(1, bcast, host, ip4(10, 0, 1, 7), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.1.7", "", "");
	m = ct_sent(1, CTL_TC);
	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[21], 2);
	rte_pktmbuf_free(m);
	expect_nothing_sent();
	expect_pool_back();

	/* The same request, well formed: answered, and its sender learned. */
	punt_arp(arp_frame(1, bcast, host, ip4(10, 0, 1, 7), ip4(10, 0, 1, 254)), 0);
	expect_state("10.0.1.7", "reachable", "02:77:00:00:00:07");
	m = ct_sent(0, CTL_TC);
	assert_non_null(m);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	assert_memory_equal(b, host, 6);
	assert_memory_equal(b + 6, p0_mac, 6);
	assert_int_equal(b[21], 2); /* reply */
	assert_memory_equal(b + 22, p0_mac, 6);
	assert_memory_equal(b + 32, host, 6);
	rte_pktmbuf_free(m);
	expect_pool_back();
}

/* -- resolution -- */

static void
test_request_and_retries(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));

	(void)state;
	/* Building the tables wanted the next hop: incomplete, one request sent. */
	assert_true(idx >= 0);
	expect_state("10.0.2.1", "incomplete", "");
	assert_false(published(idx, NULL));
	assert_false(rsw_fib_main.neigh[idx].failed);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_nothing_sent();

	/* A retry each second, three requests in all. */
	rsw_ctl_neigh_timer(1999);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(2000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(2500);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(3000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(3999);
	expect_nothing_sent();
	assert_false(rsw_fib_main.neigh[idx].failed);

	/* No answer to the third: failed (the group member is down), no fourth request. */
	rsw_ctl_neigh_timer(4000);
	expect_nothing_sent();
	assert_true(rsw_fib_main.neigh[idx].failed);
	assert_false(published(idx, NULL));
	expect_state("10.0.2.1", "failed", "");

	/* Within a second of failing, a packet for it is dropped at once, without a request. */
	ct_now = 4999;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 1);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	expect_nothing_sent();
	/* After it, the packet is held and resolution starts again. */
	ct_now = 5000;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 2);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_state("10.0.2.1", "incomplete", "");
	/* The one held is the only mbuf out of the pool. */
	assert_int_equal(rte_mempool_in_use_count(ct_pool), ct_in_use + 1);
}

static void
test_held_then_sent(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));
	struct rte_mbuf *m;
	uint8_t mac[6];
	int i;

	(void)state;
	ct_flush();
	/* Up to three packets wait; the fourth is dropped. */
	for (i = 0; i < 4; i++)
		punt_unresolved(idx, ip4(10, 9, 0, 1), (uint8_t)i);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	expect_nothing_sent();

	/* The reply: learned, published, and the three held packets sent, rewritten, in order. */
	ct_now = 1500;
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, nh_mac, 6);
	for (i = 0; i < 3; i++) {
		const uint8_t *b;

		m = ct_sent(1, DATA_TC);
		assert_non_null(m);
		b = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_memory_equal(b, nh_mac, 6);
		assert_memory_equal(b + 6, p1_mac, 6);
		assert_int_equal(b[22], 63); /* TTL */
		assert_int_equal(b[41], i);  /* the order they came in */
		assert_true(rsw_meta(m)->flags & RSW_MF_NOACCT);
		rte_pktmbuf_free(m);
	}
	expect_nothing_sent();
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);

	/* One more that a worker punted before it saw the MAC goes at once. */
	punt_unresolved(idx, ip4(10, 9, 0, 2), 9);
	m = ct_sent(1, DATA_TC);
	assert_non_null(m);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), nh_mac, 6);
	rte_pktmbuf_free(m);

	/* Resolved: no more requests. */
	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(5000);
	expect_nothing_sent();
	expect_pool_back();
}

static void
test_held_dropped_when_failed(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));

	(void)state;
	ct_flush();
	punt_unresolved(idx, ip4(10, 9, 0, 1), 1);
	punt_unresolved(idx, ip4(10, 9, 0, 1), 2);
	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(3000);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 0);
	rsw_ctl_neigh_timer(4000);
	/* Both counted on their ingress port; nothing of theirs went out. */
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 2);
	assert_int_equal(rte_ring_count(rsw_qos.port[1].ring[DATA_TC]), 0);
	expect_pool_back();
}

static void
test_connected_host_resolved(void **state)
{
	const uint8_t host[6] = {0x02, 0xdd, 0, 0, 0, 0x09};
	uint8_t b[64] = {0};
	struct rte_mbuf *m;
	uint32_t be = rte_cpu_to_be_32(ip4(10, 0, 2, 9));

	(void)state;
	ct_flush();
	/* A packet for a host on a connected subnet, not known yet: neigh is UINT32_MAX. */
	b[12] = 0x08;
	b[14] = 0x45, b[17] = 50, b[22] = 64, b[23] = 17;
	memcpy(b + 30, &be, 4);
	m = ct_mbuf(b, sizeof(b));
	rsw_meta(m)->neigh = UINT32_MAX;
	rsw_meta(m)->out_port = 1;
	rsw_meta(m)->tc = DATA_TC;
	ct_punt(m, RSW_PUNT_NEIGH, 0, RSW_PK_IPV4, 14);
	expect_state("10.0.2.9", "incomplete", "");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 9));
	punt_arp(arp_frame(2, p1_mac, host, ip4(10, 0, 2, 9), ip4(10, 0, 2, 254)), 1);
	m = ct_sent(1, DATA_TC);
	assert_non_null(m);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), host, 6);
	rte_pktmbuf_free(m);
	expect_pool_back();
}

/* -- ageing -- */

static void
test_ageing(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));
	const uint64_t t0 = 1000, reach = 300000;

	(void)state;
	ct_flush();
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");

	/* Reachable for five minutes, then stale and re-probed; still forwarding meanwhile. */
	rsw_ctl_neigh_timer(t0 + reach - 1);
	expect_nothing_sent();
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	rsw_ctl_neigh_timer(t0 + reach);
	expect_state("10.0.2.1", "stale", "02:bb:00:00:00:01");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	assert_true(published(idx, NULL));

	/* Confirmed: reachable again, from the time of the answer. */
	ct_now = t0 + reach + 500;
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	rsw_ctl_neigh_timer(t0 + reach + 5000);
	rsw_ctl_neigh_timer(t0 + 2 * reach + 499);
	expect_nothing_sent();

	/* Stale again, no answer to three probes: the MAC is withdrawn. */
	rsw_ctl_neigh_timer(t0 + 2 * reach + 500);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(t0 + 2 * reach + 1500);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(t0 + 2 * reach + 2500);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	assert_true(published(idx, NULL));
	rsw_ctl_neigh_timer(t0 + 2 * reach + 3500);
	expect_nothing_sent();
	assert_false(published(idx, NULL));
	assert_true(rsw_fib_main.neigh[idx].failed);
	expect_state("10.0.2.1", "failed", "");
	expect_pool_back();
}

/* The next frame on port 1 is an NS for fd00:2::1: to its solicited-node group, or to mac. */
static void
expect_ns(const uint8_t *mac)
{
	const uint8_t group_mac[6] = {0x33, 0x33, 0xff, 0, 0, 0x01};
	const uint8_t group[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x01};
	struct rte_mbuf *m = ct_sent(1, CTL_TC);
	const uint8_t *b;

	assert_non_null(m);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(b, mac != NULL ? mac : group_mac, 6);
	assert_memory_equal(b + 6, p1_mac, 6);
	assert_int_equal(b[12] << 8 | b[13], 0x86dd);
	assert_int_equal(b[14 + 7], 255);          /* hop limit */
	assert_memory_equal(b + 14 + 8, own6, 16); /* from the port's address */
	assert_memory_equal(b + 14 + 24, mac != NULL ? nh6 : group, 16);
	assert_int_equal(b[14 + 40], RSW_ND_NS);
	assert_memory_equal(b + 14 + 48, nh6, 16); /* target */
	rte_pktmbuf_free(m);
}

static void
test_ipv6_solicit_learn_reprobe(void **state)
{
	uint8_t buf[128];
	struct rte_mbuf *m;
	int idx = rsw_neigh_lookup6(nh6), n;
	uint64_t ns_tx = rsw_icmp_ctrs[RSW_IC_nd_ns_tx];

	(void)state;
	assert_true(idx >= RSW_MAX_NEIGHBORS);
	expect_state("fd00:2::1", "incomplete", "");
	expect_ns(NULL);
	expect_nothing_sent();
	assert_int_equal(rsw_icmp_ctrs[RSW_IC_nd_ns_tx], ns_tx);
	rsw_ctl_neigh_timer(2000);
	expect_ns(NULL);
	assert_int_equal(rsw_icmp_ctrs[RSW_IC_nd_ns_tx], ns_tx + 1);

	/* A solicited NA to the switch's address (unicast: punted as local). */
	memcpy(buf, p1_mac, 6);
	memcpy(buf + 6, nh_mac, 6);
	buf[12] = 0x86, buf[13] = 0xdd;
	n = rsw_nd_build(buf + 14, sizeof(buf) - 14, RSW_ND_NA, nh6, own6, nh6,
			 RSW_ND_NA_S | RSW_ND_NA_O, nh_mac);
	assert_true(n > 0);
	m = ct_mbuf(buf, (uint16_t)(14 + n));
	ct_punt(m, RSW_PUNT_LOCAL, 1, RSW_PK_IPV6, 14);
	expect_state("fd00:2::1", "reachable", "02:bb:00:00:00:01");
	assert_true(published(idx, NULL));
	expect_nothing_sent();

	/* Stale after five minutes: probed with a unicast NS to the MAC it had (RFC 4861 §7.3.3). */
	rsw_ctl_neigh_timer(1000 + 300000);
	expect_state("fd00:2::1", "stale", "02:bb:00:00:00:01");
	expect_ns(nh_mac);
	expect_pool_back();
}

/* -- static neighbours -- */

static void
test_static_wins(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 5));
	uint8_t mac[6];
	struct rte_mbuf *m;

	(void)state;
	ct_flush();
	assert_true(idx >= 0);
	expect_state("10.0.2.5", "static", "02:aa:00:00:00:05");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, "\x02\xaa\x00\x00\x00\x05", 6);

	/* A reply and a request claiming its address from another MAC change nothing... */
	punt_arp(arp_frame(2, p1_mac, bad_mac, ip4(10, 0, 2, 5), ip4(10, 0, 2, 254)), 1);
	punt_arp(arp_frame(1, bcast, bad_mac, ip4(10, 0, 2, 5), ip4(10, 0, 2, 254)), 1);
	{
		struct rsw_ip ip = rip4(ip4(10, 0, 2, 5));

		assert_int_equal(rsw_ctl_neigh_learn(&ip, 1, bad_mac, true), idx);
	}
	expect_state("10.0.2.5", "static", "02:aa:00:00:00:05");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, "\x02\xaa\x00\x00\x00\x05", 6);
	/* ... but the request is answered. */
	m = ct_sent(1, CTL_TC);
	assert_non_null(m);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), bad_mac, 6);
	rte_pktmbuf_free(m);

	/* It is never aged nor probed (the requests sent are all for 10.0.2.1). */
	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(10000000);
	expect_state("10.0.2.5", "static", "02:aa:00:00:00:05");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_nothing_sent();
	expect_pool_back();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_learn_refused, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_arp_malformed_ignored, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_request_and_retries, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_held_then_sent, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_held_dropped_when_failed, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_connected_host_resolved, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_ageing, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_ipv6_solicit_learn_reprobe, setup6, ct_stop),
		cmocka_unit_test_setup_teardown(test_static_wins, setup, ct_stop),
	};
	int ret;

	if (ct_eal_init("neigh") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
