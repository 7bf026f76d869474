/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The classify step on its own (qos/classify.c, rsw_classify.h): the traffic class from the
 * DSCP or PCP map of a generation, CNPs to qos.cnp.tc whatever their DSCP, and CNP
 * coalescing per (destination, dest QP) within qos.cnp.coalesce_us.
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
#include <rte_mbuf.h>

#include "rsw_classify.h"
#include "test_common.h"

static struct rte_mempool *pool;

static const uint8_t port_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t peer_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

static struct rsw_tables *
tables(uint8_t trust)
{
	struct rsw_tables *t = calloc(1, sizeof(*t));
	int i;

	assert_non_null(t);
	t->trust = trust;
	t->default_tc = 5;
	for (i = 0; i < 64; i++)
		t->dscp_to_tc[i] = (uint8_t)(i % 8);
	for (i = 0; i < 8; i++)
		t->pcp_to_tc[i] = (uint8_t)(7 - i);
	t->qos.cnp_enabled = 1;
	t->qos.cnp_tc = 6;
	t->qos.cnp_coalesce_ticks = 1000;
	return t;
}

static void
test_classify_dscp_pcp(void **state)
{
	struct rsw_tables *t = tables(RSW_TRUST_DSCP);
	struct rsw_pkt_info info = {.kind = RSW_PK_IPV4, .dscp = 46, .n_vlan = 1, .pcp = 1};

	(void)state;
	assert_int_equal(rsw_classify(t, &info), 46 % 8);
	/* A CNP goes to qos.cnp.tc whatever its DSCP; not without qos.cnp. */
	info.flags = RSW_PF_CNP;
	assert_int_equal(rsw_classify(t, &info), 6);
	t->qos.cnp_enabled = 0;
	assert_int_equal(rsw_classify(t, &info), 46 % 8);
	t->qos.cnp_enabled = 1;
	info.flags = 0;
	/* trust: pcp: the outer tag's PCP, untagged → default_tc. */
	t->trust = RSW_TRUST_PCP;
	assert_int_equal(rsw_classify(t, &info), 6);
	info.n_vlan = 0;
	assert_int_equal(rsw_classify(t, &info), 5);
	free(t);
}

/* A CNP to dst with dest QP qp, parsed as the parser leaves it. */
static struct rte_mbuf *
cnp(uint32_t dst, uint32_t qp, struct rsw_pkt_info *info)
{
	struct ut_frame f;
	struct rte_mbuf *m;

	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0, 64, IPPROTO_UDP, 0x0a000001, dst, 8 + 12 + 16);
	ut_udp(&f, 1, 4791, 8 + 12 + 16);
	ut_bth(&f, 0x81, qp, 0);
	ut_zeros(&f, 16);
	m = ut_mbuf(pool, &f);
	assert_non_null(m);
	memset(info, 0, sizeof(*info));
	assert_int_equal(rsw_parse(m, (const struct rte_ether_addr *)port_mac, info), RSW_PK_IPV4);
	assert_true(info->flags & RSW_PF_CNP);
	assert_int_equal(info->qp, qp);
	return m;
}

static void
test_cnp_coalesced(void **state)
{
	static struct rsw_lb_lcore ls; /* zeroed: no CNP seen */
	struct rsw_tables *t = tables(RSW_TRUST_DSCP);
	struct rsw_pkt_info a, b, c;
	struct rte_mbuf *ma = cnp(0x0a000102, 7, &a), *mb = cnp(0x0a000102, 8, &b),
			*mc = cnp(0x0a000103, 7, &c);

	(void)state;
	/* The first of a (destination, QP) goes; the next within the interval does not. */
	assert_false(rsw_cnp_coalesced(t, &ls, ma, &a, 10000));
	assert_true(rsw_cnp_coalesced(t, &ls, ma, &a, 10999));
	/* Another QP, another destination: their own entries. */
	assert_false(rsw_cnp_coalesced(t, &ls, mb, &b, 10999));
	assert_false(rsw_cnp_coalesced(t, &ls, mc, &c, 10999));
	/* Once the interval is over, the next one goes and starts a new interval. */
	assert_false(rsw_cnp_coalesced(t, &ls, ma, &a, 11000));
	assert_true(rsw_cnp_coalesced(t, &ls, ma, &a, 11500));
	rte_pktmbuf_free(ma);
	rte_pktmbuf_free(mb);
	rte_pktmbuf_free(mc);
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_dscp_pcp),
		cmocka_unit_test(test_cnp_coalesced),
	};

	if (ut_eal_init("classify") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ut_pool", 64, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
