/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Punt classification and policing (dataplane/qos/punt.c): each frame's class, the policer of
 * a class dropping what is over its burst and letting its rate through later, classes not
 * starving each other, the counters, and LLDP without kernel interfaces.
 */

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_ring.h>

#include "rsw_punt_dp.h"
#include "rsw_worker.h"
#include "test_common.h"

#define HZ 1000000000ull /* a TSC of 1 GHz: cost = 1e9 / pps cycles */

static struct rte_mempool *pool;
static struct rsw_lcore_stats *st;
static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 1}, peer[6] = {0x02, 0, 0, 0, 0, 2};

/* A punted frame: IPv4 (or IPv6 when v6) protocol proto to dport from src, reason, kind. */
static struct rte_mbuf *
frame(bool v6, uint8_t proto, uint16_t sport, uint16_t dport, uint32_t src, uint8_t reason)
{
	static const uint8_t s6[16] = {0xfe, 0x80, [15] = 1}, d6[16] = {0xfe, 0x80, [15] = 2};
	struct ut_frame f = {.len = 0};
	struct rte_mbuf *m;

	ut_eth(&f, mac, peer, v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	if (v6)
		ut_ipv6(&f, 0, 0, 8, proto, 255, s6, d6);
	else
		ut_ipv4(&f, 0, 64, proto, src, 0x0a000101, 8);
	ut_put16(&f, sport); /* ICMP: type and code */
	ut_put16(&f, dport);
	ut_put32(&f, 0);
	m = ut_mbuf(pool, &f);
	assert_non_null(m);
	*rsw_meta(m) = (struct rsw_mbuf_meta){.reason = reason,
					      .kind = v6 ? RSW_PK_IPV6 : RSW_PK_IPV4,
					      .l3_off = RTE_ETHER_HDR_LEN};
	return m;
}

static struct rte_mbuf *
l2(uint8_t kind, uint8_t reason, uint16_t type)
{
	static const uint8_t lldp[6] = {0x01, 0x80, 0xc2, 0, 0, 0x0e};
	struct ut_frame f = {.len = 0};
	struct rte_mbuf *m;

	ut_eth(&f, lldp, peer, type);
	ut_zeros(&f, 46);
	m = ut_mbuf(pool, &f);
	assert_non_null(m);
	*rsw_meta(m) =
		(struct rsw_mbuf_meta){.reason = reason, .kind = kind, .l3_off = RTE_ETHER_HDR_LEN};
	return m;
}

static void
drain(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(rsw_dp.punt, (void **)m, 64, NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

static void
test_classes(void **state)
{
	struct rsw_ip peer4 = {.family = RSW_AF_INET, .addr = {10, 0, 0, 9}};
	struct {
		struct rte_mbuf *m;
		enum rsw_punt_class c;
	} cases[] = {
		{frame(false, IPPROTO_TCP, 40000, 179, 0x0a000009, RSW_PUNT_LOCAL), RSW_PUNT_C_bgp},
		{frame(false, IPPROTO_TCP, 179, 40000, 0x0a000009, RSW_PUNT_LOCAL), RSW_PUNT_C_bgp},
		/* Not a listed peer: other. */
		{frame(false, IPPROTO_TCP, 40000, 179, 0x0a000008, RSW_PUNT_LOCAL),
		 RSW_PUNT_C_other},
		{frame(false, IPPROTO_TCP, 40000, 22, 0x0a000009, RSW_PUNT_LOCAL),
		 RSW_PUNT_C_other},
		{frame(false, IPPROTO_UDP, 49152, 3784, 0x0a000009, RSW_PUNT_LOCAL),
		 RSW_PUNT_C_bfd},
		{frame(false, IPPROTO_UDP, 49152, 4784, 0x0a000009, RSW_PUNT_LOCAL),
		 RSW_PUNT_C_bfd},
		{frame(false, IPPROTO_ICMP, 0x0800, 0, 0x0a000009, RSW_PUNT_LOCAL),
		 RSW_PUNT_C_icmp},
		{frame(false, IPPROTO_UDP, 1, 2, 0x0a000009, RSW_PUNT_NEIGH),
		 RSW_PUNT_C_unresolved},
		{frame(true, IPPROTO_ICMPV6, 135 << 8, 0, 0, RSW_PUNT_LOCAL), RSW_PUNT_C_nd},
		{frame(true, IPPROTO_ICMPV6, 134 << 8, 0, 0, RSW_PUNT_LOCAL), RSW_PUNT_C_nd},
		{frame(true, IPPROTO_ICMPV6, 128 << 8, 0, 0, RSW_PUNT_LOCAL), RSW_PUNT_C_icmp},
		/* A link-local BGP session (unnumbered): bgp whatever the list says. */
		{frame(true, IPPROTO_TCP, 40000, 179, 0, RSW_PUNT_LOCAL), RSW_PUNT_C_bgp},
		{l2(RSW_PK_ARP, RSW_PUNT_ARP, RTE_ETHER_TYPE_ARP), RSW_PUNT_C_arp},
		{l2(RSW_PK_ND, RSW_PUNT_ND, RTE_ETHER_TYPE_IPV6), RSW_PUNT_C_nd},
		{l2(RSW_PK_LLDP, RSW_PUNT_ND, RSW_ETHER_TYPE_LLDP), RSW_PUNT_C_lldp},
	};
	unsigned int i;

	(void)state;
	rsw_punt_configure(NULL, NULL, HZ, &peer4, 1, true);
	for (i = 0; i < RTE_DIM(cases); i++) {
		assert_int_equal(rsw_punt_classify(cases[i].m), cases[i].c);
		rte_pktmbuf_free(cases[i].m);
	}
	assert_string_equal(rsw_punt_class_name(RSW_PUNT_C_bgp), "bgp");
	assert_string_equal(rsw_punt_class_name(RSW_PUNT_C_unresolved), "unresolved");
}

/* 50 "other" frames at once: the burst (10) passes, the rest is policed; bgp is not touched. */
static void
test_policer(void **state)
{
	uint32_t pps[RSW_N_PUNT_CLASSES] = {0}, burst[RSW_N_PUNT_CLASSES] = {0};
	struct rte_mbuf *m[RSW_BURST];
	uint64_t now = 5 * HZ, policed0 = st->port[0].c[RSW_PC_punt_policed];
	uint64_t punted0 = st->port[0].c[RSW_PC_punted];
	unsigned int i, round;

	(void)state;
	pps[RSW_PUNT_C_other] = 1000; /* 1 ms a frame */
	burst[RSW_PUNT_C_other] = 10;
	pps[RSW_PUNT_C_bgp] = 1000;
	burst[RSW_PUNT_C_bgp] = 10;
	rsw_punt_configure(pps, burst, HZ, NULL, 0, true);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 25; i++)
			m[i] = frame(false, IPPROTO_TCP, 40000, 22, 0x0a000009, RSW_PUNT_LOCAL);
		rsw_punt_enqueue(st, 0, m, 25, now);
	}
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_packets), 10);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_policed), 40);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_bytes), 10 * (14 + 28));
	assert_int_equal(st->port[0].c[RSW_PC_punt_policed] - policed0, 40);
	/* Another class keeps its own bucket. */
	for (i = 0; i < 10; i++)
		m[i] = frame(false, IPPROTO_TCP, 40000, 179, 0x0a000009, RSW_PUNT_LOCAL);
	rsw_punt_enqueue(st, 0, m, 10, now);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_bgp, RSW_PUNT_packets), 10);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_bgp, RSW_PUNT_policed), 0);
	/* 5 ms later: five more "other" frames pass, the sixth does not. */
	for (i = 0; i < 6; i++)
		m[i] = frame(false, IPPROTO_TCP, 40000, 22, 0x0a000009, RSW_PUNT_LOCAL);
	rsw_punt_enqueue(st, 0, m, 6, now + 5 * HZ / 1000);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_packets), 15);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_policed), 41);
	assert_int_equal(st->port[0].c[RSW_PC_punted] - punted0, 25);
	assert_int_equal(rte_ring_count(rsw_dp.punt), 25);
	drain();
}

/* Without kernel interfaces, an LLDP frame that reached the punt list is an l2_control drop. */
static void
test_lldp_without_kernel(void **state)
{
	struct rte_mbuf *m = l2(RSW_PK_LLDP, RSW_PUNT_ND, RSW_ETHER_TYPE_LLDP);
	uint64_t l2c = st->port[1].c[RSW_PC_l2_control];

	(void)state;
	rsw_punt_configure(NULL, NULL, HZ, NULL, 0, false);
	rsw_punt_enqueue(st, 1, &m, 1, HZ);
	assert_int_equal(st->port[1].c[RSW_PC_l2_control], l2c + 1);
	assert_int_equal(rte_ring_count(rsw_dp.punt), 0);
	rsw_punt_configure(NULL, NULL, HZ, NULL, 0, true);
	m = l2(RSW_PK_LLDP, RSW_PUNT_ND, RSW_ETHER_TYPE_LLDP);
	rsw_punt_enqueue(st, 1, &m, 1, HZ);
	assert_int_equal(rte_ring_count(rsw_dp.punt), 1);
	assert_int_equal(rte_ring_dequeue(rsw_dp.punt, (void **)&m), 0);
	assert_int_equal(rsw_meta(m)->reason, RSW_PUNT_LLDP);
	rte_pktmbuf_free(m);
}

static int
setup(void **state)
{
	(void)state;
	if (rsw_stats_init() != 0)
		return -1;
	st = rsw_stats[rte_lcore_id()];
	pool = rte_pktmbuf_pool_create("ut_punt", 1024, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (st == NULL || pool == NULL)
		return -1;
	rsw_dp.pool = pool;
	return rsw_dp_init(2);
}

static int
teardown(void **state)
{
	(void)state;
	rsw_dp_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_policer),
		cmocka_unit_test(test_lldp_without_kernel),
	};

	if (ut_eal_init("punt") != 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
