/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of failed neighbours (control/neigh) on an injected clock: a failed next hop
 * asked again with a back-off (2 s doubling to 60 s) and back when it answers, traffic to it
 * while failed, and a failed host asked again on traffic only.
 */

#include "test_neigh_common.h"

/* -- failed neighbours asked again -- */

/* Fail 10.0.2.1's first round of requests (ct_start's, at 1000 ms): failed at 4000 ms. */
static int
fail_first_round(void)
{
	const int idx = idx4(ip4(10, 0, 2, 1));

	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(3000);
	rsw_ctl_neigh_timer(4000);
	ct_flush();
	assert_true(rsw_fib_main.neigh[idx].failed);
	expect_state("10.0.2.1", "failed", "");
	return idx;
}

/* One request for 10.0.2.1 at each time of at[] (ms) and at no time before or between. */
static void
expect_requests_at(const uint64_t *at, unsigned int n)
{
	uint64_t t = 4000;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* Checked at the millisecond before, and in steps between. */
		for (; t + 250 < at[i]; t += 250) {
			rsw_ctl_neigh_timer(t);
			expect_nothing_sent();
		}
		rsw_ctl_neigh_timer(at[i] - 1);
		expect_nothing_sent();
		rsw_ctl_neigh_timer(at[i]);
		expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
		expect_nothing_sent();
		t = at[i] + 1;
	}
}

static void
test_failed_next_hop_backoff(void **state)
{
	/* After 2 s, then 4, 8, 16, 32 s apart, then every 60 s. */
	const uint64_t at[] = {6000, 10000, 18000, 34000, 66000, 126000, 186000, 246000};
	const int idx = fail_first_round();
	uint8_t mac[6];

	(void)state;
	expect_requests_at(at, RTE_DIM(at));
	/* Still failed, the member down; nothing held, nothing counted. */
	expect_state("10.0.2.1", "failed", "");
	assert_true(rsw_fib_main.neigh[idx].failed);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 0);

	/* An answer to a retry: reachable, published, the member up again. */
	ct_now = 246100;
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, nh_mac, 6);
	assert_false(rsw_fib_main.neigh[idx].failed);
	rsw_ctl_neigh_timer(306000);
	expect_nothing_sent();

	/* Aged, re-probed three times unanswered: failed again, the back-off from 2 s again. */
	rsw_ctl_neigh_timer(246100 + 300000);
	rsw_ctl_neigh_timer(246100 + 301000);
	rsw_ctl_neigh_timer(246100 + 302000);
	ct_flush();
	rsw_ctl_neigh_timer(246100 + 303000);
	expect_state("10.0.2.1", "failed", "");
	rsw_ctl_neigh_timer(246100 + 304999);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(246100 + 305000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_pool_back();
}

static void
test_failed_next_hop_traffic(void **state)
{
	const int idx = fail_first_round();
	uint64_t t;
	int i;

	(void)state;
	/* The back-off's first two retries go unanswered (6 s, 10 s). */
	rsw_ctl_neigh_timer(6000);
	rsw_ctl_neigh_timer(10000);
	ct_flush();
	/* Traffic (as a worker sends it to a group whose only member failed: rsw_lb_ask) starts
	 * a round at once: held, three requests a second apart, then failed, held dropped. */
	ct_now = 12000;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 1);
	expect_state("10.0.2.1", "incomplete", "");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	for (t = 13000; t <= 14000; t += 1000) {
		rsw_ctl_neigh_timer(t);
		expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	}
	/* Still failed for the workers during the round: the member stays down. */
	assert_true(rsw_fib_main.neigh[idx].failed);
	rsw_ctl_neigh_timer(15000);
	expect_state("10.0.2.1", "failed", "");
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	/* The round kept the back-off (8 s): the next retry at 23 s, not sooner. */
	rsw_ctl_neigh_timer(22999);
	expect_nothing_sent();
	/* Traffic within a second of the round: dropped, no request (the rate limit). */
	ct_now = 15999;
	for (i = 0; i < 5; i++)
		punt_unresolved(idx, ip4(10, 9, 0, 1), (uint8_t)i);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 6);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(23000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));

	/* Traffic after it: a new round; the answer sends what it held. */
	ct_now = 24000;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 7);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	assert_false(rsw_fib_main.neigh[idx].failed);
	{
		struct rte_mbuf *m = ct_sent(1, DATA_TC);

		assert_non_null(m);
		assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), nh_mac, 6);
		assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[41], 7);
		rte_pktmbuf_free(m);
	}
	expect_nothing_sent();
	expect_pool_back();
}

static void
test_failed_host_asked_on_traffic(void **state)
{
	uint8_t b[64] = {0};
	struct rte_mbuf *m;
	uint32_t be = rte_cpu_to_be_32(ip4(10, 0, 2, 9));
	uint64_t t;
	int pass;

	(void)state;
	ct_flush();
	/* A packet for 10.0.2.9, a host of p1's subnet no table wants: a round, unanswered. */
	b[12] = 0x08;
	b[14] = 0x45, b[17] = 50, b[22] = 64, b[23] = 17;
	memcpy(b + 30, &be, 4);
	for (pass = 0; pass < 2; pass++) {
		m = ct_mbuf(b, sizeof(b));
		rsw_meta(m)->neigh = UINT32_MAX;
		rsw_meta(m)->out_port = 1;
		rsw_meta(m)->tc = DATA_TC;
		ct_now = pass == 0 ? 1000 : 200000;
		ct_punt(m, RSW_PUNT_NEIGH, 0, RSW_PK_IPV4, 14);
		expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 9));
		for (t = ct_now + 1000; t <= ct_now + 3000; t += 1000) {
			rsw_ctl_neigh_timer(t);
			ct_flush(); /* 10.0.2.1's requests, and 10.0.2.9's retries */
		}
		expect_state("10.0.2.9", "failed", "");
		/* No retry of it without traffic, however long (10.0.2.1's are on its own). */
		for (t = ct_now + 4000; t < ct_now + 190000; t += 1000) {
			struct rte_mbuf *r;

			rsw_ctl_neigh_timer(t);
			while ((r = ct_sent(1, CTL_TC)) != NULL) {
				assert_int_equal(rte_pktmbuf_mtod(r, uint8_t *)[41], 1); /* .1 */
				rte_pktmbuf_free(r);
			}
		}
	}
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 2);
	expect_pool_back();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_failed_next_hop_backoff, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_failed_next_hop_traffic, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_failed_host_asked_on_traffic, setup, ct_stop),
	};
	int ret;

	if (ct_eal_init("neigh_failed") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
