/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the tests that run the packet path end to end without a NIC share (test_worker.c,
 * test_forward.c, test_admit.c through test_worker_common.h; test_qos.c, test_sched.c,
 * test_buffer.c through test_qos_common.h). Their set-up: the stats, the FIB, an mbuf pool,
 * and ports that are ring PMDs (rte_eth_from_rings), so that what port p sends is read back
 * from txr[p]; then rsw_dp_init. The group tear-down takes it all down again. And the check
 * that the ports' egress queues are empty.
 */

#ifndef RSW_TEST_DP_COMMON_H
#define RSW_TEST_DP_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_fib.h"
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_worker.h"

#define UT_RING_PORTS_MAX 4

static struct rte_mempool *pool;
static struct rsw_lcore_stats *st;
static unsigned int pool_start;                 /* mbufs in use once set up */
static struct rte_ring *txr[UT_RING_PORTS_MAX]; /* what the ring PMD of each port transmits */
/* What it transmits on tx queue 1: a worker's own queue, not the owner's (rsw_txq). */
static struct rte_ring *txr1[UT_RING_PORTS_MAX];
static struct rte_ring *rxr[UT_RING_PORTS_MAX];
static uint16_t eth_port[UT_RING_PORTS_MAX] = {RTE_MAX_ETHPORTS, RTE_MAX_ETHPORTS, RTE_MAX_ETHPORTS,
					       RTE_MAX_ETHPORTS};

static const char *ut_prefix; /* of the names of the rings and ports ut_ring_ports_setup made */
static uint16_t ut_n_ports;

static inline int
ut_ring_ports_start(const char *prefix, uint16_t n, const unsigned int *txring)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	uint16_t p;
	int ret;

	for (p = 0; p < n; p++) {
		snprintf(name, sizeof(name), "%s_pmd_rx%u", prefix, p);
		rxr[p] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "%s_pmd_tx%u", prefix, p);
		txr[p] = rte_ring_create(name, txring[p], SOCKET_ID_ANY,
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "%s_pmd_tx1_%u", prefix, p);
		txr1[p] = rte_ring_create(name, txring[p], SOCKET_ID_ANY,
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rxr[p] == NULL || txr[p] == NULL || txr1[p] == NULL)
			return -1;
		snprintf(name, sizeof(name), "%s%u", prefix, p);
		ret = rte_eth_from_rings(name, &rxr[p], 1, (struct rte_ring *[]){txr[p], txr1[p]},
					 2, SOCKET_ID_ANY);
		if (ret < 0)
			return -1;
		eth_port[p] = (uint16_t)ret;
		if (rte_eth_dev_configure(eth_port[p], 1, 2, &conf) != 0 ||
		    rte_eth_rx_queue_setup(eth_port[p], 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
		    rte_eth_tx_queue_setup(eth_port[p], 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_tx_queue_setup(eth_port[p], 1, 64, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(eth_port[p]) != 0)
			return -1;
	}
	return 0;
}

/*
 * EAL is up: the stats and the FIB, st, pool (pool_size mbufs, pool_name), then n ring PMD
 * ports: port p's rings <prefix>_pmd_rx<p> and <prefix>_pmd_tx<p> (txring[p] entries), its
 * ethdev <prefix><p>, and rsw_dp's port p with MAC 02:00:00:00:00:<p + 1>, MTU mtu[p], that
 * ring PMD and this lcore as its owner; then rsw_dp_init and pool_start.
 * @return 0, or -1 (ut_ring_ports_teardown cleans up either way).
 */
static inline int
ut_ring_ports_setup(const char *prefix, const char *pool_name, unsigned int pool_size, uint16_t n,
		    const unsigned int *txring, const uint16_t *mtu)
{
	uint16_t p;

	if (n > UT_RING_PORTS_MAX)
		return -1;
	ut_prefix = prefix;
	ut_n_ports = n;
	if (rsw_stats_init() != 0 || rsw_fib_init(1) != 0)
		return -1;
	st = rsw_stats[rte_lcore_id()];
	pool = rte_pktmbuf_pool_create(pool_name, pool_size, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (st == NULL || pool == NULL)
		return -1;
	if (ut_ring_ports_start(prefix, n, txring) != 0)
		return -1;
	rsw_dp.pool = pool;
	for (p = 0; p < n; p++) {
		struct rsw_port_rt *pr = &rsw_dp.ports[p];
		const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)(p + 1)};

		memcpy(&pr->mac, mac, 6);
		pr->mtu = mtu[p];
		pr->eth_port = eth_port[p];
		pr->owner = (uint16_t)rte_lcore_id();
	}
	if (rsw_dp_init(n) != 0)
		return -1;
	pool_start = rte_mempool_in_use_count(pool);
	return 0;
}

/* The group tear-down of ut_ring_ports_setup. */
static inline int
ut_ring_ports_teardown(void **state)
{
	char name[32];
	uint16_t p;

	(void)state;
	rsw_dp_fini();
	for (p = 0; p < ut_n_ports; p++) {
		if (eth_port[p] != RTE_MAX_ETHPORTS) {
			rte_eth_dev_stop(eth_port[p]);
			rte_eth_dev_close(eth_port[p]);
			snprintf(name, sizeof(name), "net_ring_%s%u", ut_prefix, p);
			rte_vdev_uninit(name);
		}
		rte_ring_free(rxr[p]);
		rte_ring_free(txr[p]);
		rte_ring_free(txr1[p]);
	}
	rsw_fib_fini();
	rsw_stats_fini();
	rte_mempool_free(pool);
	return 0;
}

/* No egress queue of ports 0..n-1 holds a frame; their bytes and their ingress PGs' are 0. */
static inline void
ut_expect_queues_empty(uint16_t n)
{
	uint16_t p;
	int tc;

	for (p = 0; p < n; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++) {
			assert_int_equal(rte_ring_count(rsw_qos.port[p].ring[tc]), 0);
			assert_int_equal(rsw_qos.port[p].q_bytes[tc], 0);
			assert_int_equal(rsw_qos.port[p].pg_bytes[tc], 0);
		}
	}
}

#endif /* RSW_TEST_DP_COMMON_H */
