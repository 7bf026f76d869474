/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Fixtures of the QoS tests (test_qos.c, test_sched.c, test_buffer.c; docs/qos.md):
 * ring PMD ports (test_dp_common.h) under a simulated TSC clock, so rates and pause times are
 * exact and need no waiting; frames that carry their TC and a sequence number, queued as
 * admission would or sent through rsw_process_burst; what a port transmitted; the gauges'
 * consistency, and the idle state every test starts and ends in.
 *
 * Topology: 3 ports, all ring PMDs; 10.0.1.0/24 is connected on port 1 and
 * 10.0.1.2 resolved, so frames from ports 0 and 2 to it converge on port 1.
 * DSCP 8 × t maps to TC t, DSCP 26 to TC 3.
 */

#ifndef RSW_TEST_QOS_COMMON_H
#define RSW_TEST_QOS_COMMON_H

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_fib.h"
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"
#include "test_dp_common.h"

#define N_PORTS     3
#define POOL_SIZE   8191
#define TXRING_SIZE 4096
#define TSC_HZ      1000000000ull /* the simulated clock: 1 tick = 1 ns */
#define T0          1000000000000ull

static struct rsw_qos_params *tqos; /* the published tables' QoS (admission) */

static const uint8_t peer_mac[6] = {0x02, 0xaa, 0x00, 0x00, 0x00, 0x01};
static const uint8_t nh_mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x11};

/* Helpers. */

static inline void
port_mac(uint16_t p, uint8_t mac[6])
{
	memcpy(mac, &rsw_dp.ports[p].mac, 6);
}

/*
 * An IPv4/UDP frame of exactly len bytes (>= 64) from a host on in_port to 10.0.1.2 with DSCP
 * dscp and ECN field ecn; the payload starts with the TC and a 32-bit sequence number.
 */
static inline void
frame(struct ut_frame *f, uint16_t in_port, uint8_t dscp, uint8_t ecn, uint16_t len, uint8_t tc,
      uint32_t seq)
{
	uint8_t mac[6];
	uint16_t l3 = (uint16_t)(len - 14);

	port_mac(in_port, mac);
	ut_eth(f, mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(f, (uint8_t)(dscp << 2 | ecn), 64, IPPROTO_UDP, 0x0a090909, 0x0a000102,
		(uint16_t)(l3 - 20));
	ut_udp(f, (uint16_t)(1000 + in_port), 5000, (uint16_t)(l3 - 20));
	ut_put8(f, tc);
	ut_put32(f, seq);
	ut_zeros(f, (size_t)(len - f->len));
}

/* The TC and sequence number a frame() carries. */
static inline uint8_t
frame_tc(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const uint8_t *)[42];
}

static inline uint32_t
frame_seq(const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *) + 43;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/*
 * Queue a frame on (out, tc) as admission would: metadata, then the egress queue, ingress PG
 * and switch-wide gauges, then the ring (enqueue_slots' order).
 */
static inline void
q_put(uint16_t out, uint8_t tc, uint16_t in_port, uint16_t len, uint8_t ecn, uint32_t seq)
{
	struct ut_frame f;
	struct rte_mbuf *m;
	struct rsw_mbuf_meta *meta;

	frame(&f, in_port, (uint8_t)(tc * 8), ecn, len, tc, seq);
	m = ut_mbuf(pool, &f);
	assert_non_null(m);
	meta = rsw_meta(m);
	memset(meta, 0, sizeof(*meta));
	meta->in_port = (uint8_t)in_port;
	meta->tc = tc;
	meta->kind = RSW_PK_IPV4;
	meta->l3_off = 14;
	meta->out_port = out;
	__atomic_fetch_add(&rsw_qos.port[out].q_bytes[tc], len, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rsw_qos.port[in_port].pg_bytes[tc], len, __ATOMIC_RELAXED);
	__atomic_fetch_add(&rsw_qos.used, len, __ATOMIC_RELAXED);
	assert_int_equal(rte_ring_enqueue(rsw_qos.port[out].ring[tc], m), 0);
}

/* What port p's PMD transmitted so far (up to max). */
static inline unsigned int
tx_take(uint16_t p, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = 0, k;

	while (n < max && (k = rte_ring_dequeue_burst(txr[p], (void **)out + n, max - n, NULL)) > 0)
		n += k;
	return n;
}

/* Frames (and their wire bytes, frame + 24) port p transmitted; all freed. */
static inline unsigned int
tx_discard(uint16_t p, uint64_t *wire, uint64_t tc_bytes[RSW_N_TC])
{
	struct rte_mbuf *m[64];
	unsigned int n = 0, k, i;

	while ((k = rte_ring_dequeue_burst(txr[p], (void **)m, RTE_DIM(m), NULL)) > 0) {
		for (i = 0; i < k; i++) {
			if (wire != NULL)
				*wire += rte_pktmbuf_pkt_len(m[i]) + RSW_WIRE_OVERHEAD;
			if (tc_bytes != NULL)
				tc_bytes[frame_tc(m[i])] += rte_pktmbuf_pkt_len(m[i]);
		}
		rte_pktmbuf_free_bulk(m, k);
		n += k;
	}
	return n;
}

/* The gauges are consistent: every buffered byte is in one egress queue and one ingress PG. */
static inline void
expect_gauges_consistent(void)
{
	uint64_t q = 0, pg = 0, used = rsw_qos.used;
	uint16_t p;
	int tc;

	assert_true(used < (1ull << 63));
	for (p = 0; p < N_PORTS; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++) {
			assert_true(rsw_qos.port[p].q_bytes[tc] < (1ull << 63));
			assert_true(rsw_qos.port[p].pg_bytes[tc] < (1ull << 63));
			q += rsw_qos.port[p].q_bytes[tc];
			pg += rsw_qos.port[p].pg_bytes[tc];
		}
	}
	assert_int_equal(q, used);
	assert_int_equal(pg, used);
}

/* A received pause on (p, tc) until the TSC `until`, as rsw_pfc_rx leaves it: the TC's time
 * and the port's bound (paused_max only grows). */
static inline void
set_paused(uint16_t p, int tc, uint64_t until)
{
	rsw_qos.port[p].paused_until[tc] = until;
	if (until > rsw_qos.port[p].paused_max)
		rsw_qos.port[p].paused_max = until;
}

/* Nothing buffered, queued, staged or pending anywhere; the pool is where it started. */
static inline void
expect_idle(void)
{
	uint16_t p;
	int tc;

	ut_expect_queues_empty(N_PORTS);
	for (p = 0; p < N_PORTS; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++)
			assert_int_equal(rsw_sched[p].head_i[tc], rsw_sched[p].head_n[tc]);
		assert_int_equal(rsw_sched[p].n_pending, 0);
		assert_int_equal(rsw_qos.port[p].ctl_frames, 0);
		assert_int_equal(rsw_qos.port[p].orig_frames, 0);
		assert_int_equal(rte_ring_count(txr[p]), 0);
		assert_int_equal(rte_ring_count(txr1[p]), 0);
		assert_int_equal(rsw_qos.port[p].tx_pending, 0);
	}
	assert_int_equal(rsw_qos.used, 0);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_start);
}

/* Fresh scheduler state and unpaused, unshaped ports (only when idle). */
static inline void
sched_reset(void)
{
	uint16_t p;
	int tc;

	expect_idle();
	memset(rsw_sched, 0, sizeof(rsw_sched));
	for (p = 0; p < N_PORTS; p++) {
		struct rsw_qos_port *qp = &rsw_qos.port[p];

		for (tc = 0; tc < RSW_N_TC; tc++) {
			qp->paused_until[tc] = 0;
			qp->paused_max = 0;
			qp->last_pause[tc] = 0;
			qp->storm_drop[tc] = 0;
			qp->storm_ignore[tc] = 0;
		}
		qp->speed_bps = 0;
	}
	rsw_qos.tsc_hz = TSC_HZ;
}

/* Scheduler parameters: DWRR weight 1 everywhere, nothing strict, lossless, or ECN. */
static inline void
qp_init(struct rsw_qos_params *qp)
{
	int tc;

	memset(qp, 0, sizeof(*qp));
	for (tc = 0; tc < RSW_N_TC; tc++)
		qp->dwrr_quantum[tc] = RSW_DWRR_QUANTUM;
	qp->total = 64u << 20;
	qp->queue_limit = 16u << 20;
	qp->xoff = 1u << 20;
	qp->xon = 1u << 19;
	qp->headroom = 1u << 20;
	qp->quanta = 65535;
}

static inline void
set_ecn(struct rsw_qos_params *qp, uint8_t tc, uint64_t kmin, uint64_t kmax, double pmax)
{
	double v = pmax * 4294967296.0;

	qp->ecn_enabled |= (uint8_t)(1u << tc);
	qp->kmin[tc] = kmin;
	qp->kmax[tc] = kmax;
	qp->pmax_q32[tc] = v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
}

/* A burst of n frames of TC tc from port 0 to port 1, sequence numbers from seq. */
static inline void
burst_to_p1(uint8_t tc, unsigned int n, uint16_t len, uint32_t seq)
{
	struct rte_mbuf *pkts[RSW_BURST];
	struct ut_frame f;
	unsigned int i;

	for (i = 0; i < n; i++) {
		frame(&f, 0, (uint8_t)(tc * 8), 0, len, tc, seq + i);
		pkts[i] = ut_mbuf(pool, &f);
		assert_non_null(pkts[i]);
	}
	rsw_process_burst(st, 0, pkts, (uint16_t)n);
}

/* Run the scheduler of port p at now until it reports no work; return the frames sent. */
static inline unsigned int
sched_drain(const struct rsw_qos_params *qp, uint16_t p, uint64_t now)
{
	unsigned int round;

	for (round = 0; round < 100000; round++)
		if (rsw_sched_port(st, qp, p, now) == 0)
			return round;
	fail_msg("port %u never went idle", p);
	return 0;
}

/* Set-up: EAL is up; ring PMD ports, tables with one connected route. */

static inline int
build_tables(void)
{
	struct rsw_tables *t = rsw_tables_alloc(1, 16, 4, 4);
	const struct rsw_result conn = {.type = RSW_RES_CONNECTED, .port = 1};
	struct rsw_prefix pf = {.ip = {.family = RSW_AF_INET, .addr = {10, 0, 1, 0}}, .len = 24};
	struct rsw_ip nh = {.family = RSW_AF_INET, .addr = {10, 0, 1, 2}};
	int r, idx, tc;

	if (t == NULL)
		return -1;
	t->hash_fields = RSW_HF_DEFAULT;
	t->trust = RSW_TRUST_DSCP;
	for (tc = 0; tc < RSW_N_TC; tc++)
		t->dscp_to_tc[tc * 8] = (uint8_t)tc;
	t->dscp_to_tc[26] = 3;
	qp_init(&t->qos);
	t->qos.lossless = 0x08;
	t->qos.queue_limit = 24000;
	t->qos.total = 1u << 20;
	t->qos.xoff = 20000;
	t->qos.xon = 10000;
	t->qos.headroom = 60000; /* a burst of 32 × 1464 = 46848 fits */
	t->qos.headroom_reserved = 3 * 60000;
	t->qos.quanta = 100;
	set_ecn(&t->qos, 1, 2000, 12000, 0.5);
	rsw_qos_params_derive(&t->qos);
	r = rsw_tables_add_result(t, &conn);
	if (r < 0 || rsw_tables_add_route(t, &pf, (uint32_t)r) != 0)
		return -1;
	idx = rsw_neigh_get(&nh, 1);
	if (idx < 0)
		return -1;
	rsw_neigh_set((uint32_t)idx, nh_mac);
	rsw_tables_publish(t);
	tqos = &t->qos;
	return 0;
}

/* Group set-up: the ring PMD ports, the tables and the simulated clock. */
static inline int
setup(void **state)
{
	static const unsigned int txring[N_PORTS] = {TXRING_SIZE, TXRING_SIZE, TXRING_SIZE};
	static const uint16_t mtu[N_PORTS] = {1500, 1500, 1500};

	(void)state;
	if (ut_ring_ports_setup("uq", "ut_qos", POOL_SIZE, N_PORTS, txring, mtu) != 0 ||
	    build_tables() != 0)
		return -1;
	rsw_qos.tsc_hz = TSC_HZ;
	return 0;
}

#endif /* RSW_TEST_QOS_COMMON_H */
