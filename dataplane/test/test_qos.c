/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of steps 7-9 of the packet path (DESIGN.md §3, §5): the WRED/ECN
 * curve and CE marking (ecn.c), PFC pause timing, encoding and reception
 * (pfc.c), QoS parameters from a loaded configuration (mmu.c), and the port
 * scheduler (sched.c: strict + DWRR, shaper, received pause, PFC generation,
 * ECN at dequeue, watchdog flush, buffer release) on ring PMD ports under a
 * simulated TSC clock, so rates and pause times are exact and need no waiting.
 * Buffer accounting runs end to end through rsw_process_burst (admission) and
 * rsw_sched_port (release): the gauges must agree at every step, never wrap,
 * and come back to exactly zero with the mbuf pool where it started.
 *
 * Topology: 3 ports, all ring PMDs; 10.0.1.0/24 is connected on port 1 and
 * 10.0.1.2 resolved, so frames from ports 0 and 2 to it converge on port 1.
 * DSCP 8 × t maps to TC t, DSCP 26 to TC 3.
 */

#include <errno.h>
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

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_config.h"
#include "rsw_fib.h"
#include "rsw_qos.h"
#include "rsw_qos_cfg.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"

#define N_PORTS     3
#define POOL_SIZE   8191
#define TXRING_SIZE 4096
#define TSC_HZ      1000000000ull /* the simulated clock: 1 tick = 1 ns */
#define T0          1000000000000ull

static struct rte_mempool *pool;
static struct rsw_lcore_stats *st;
static unsigned int pool_start;
static struct rte_ring *txr[N_PORTS];
static struct rte_ring *rxr[N_PORTS];
static uint16_t eth_port[N_PORTS] = {RTE_MAX_ETHPORTS, RTE_MAX_ETHPORTS, RTE_MAX_ETHPORTS};
static struct rsw_qos_params *tqos; /* the published tables' QoS (admission) */
static struct rsw_qos_stats qs;     /* counters of the rsw_pfc_rx tests */

static const uint8_t peer_mac[6] = {0x02, 0xaa, 0x00, 0x00, 0x00, 0x01};
static const uint8_t nh_mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x11};
static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

/* Helpers. */

static void
port_mac(uint16_t p, uint8_t mac[6])
{
	memcpy(mac, &rsw_dp.ports[p].mac, 6);
}

/*
 * An IPv4/UDP frame of exactly len bytes (>= 64) from a host on in_port to 10.0.1.2 with DSCP
 * dscp and ECN field ecn; the payload starts with the TC and a 32-bit sequence number.
 */
static void
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
static uint8_t
frame_tc(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const uint8_t *)[42];
}

static uint32_t
frame_seq(const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *) + 43;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/*
 * Queue a frame on (out, tc) as admission would: metadata, then the egress queue, ingress PG
 * and switch-wide gauges, then the ring (enqueue_slots' order).
 */
static void
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
static unsigned int
tx_take(uint16_t p, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = 0, k;

	while (n < max && (k = rte_ring_dequeue_burst(txr[p], (void **)out + n, max - n, NULL)) > 0)
		n += k;
	return n;
}

/* Frames (and their wire bytes, frame + 24) port p transmitted; all freed. */
static unsigned int
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
static void
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
static void
set_paused(uint16_t p, int tc, uint64_t until)
{
	rsw_qos.port[p].paused_until[tc] = until;
	if (until > rsw_qos.port[p].paused_max)
		rsw_qos.port[p].paused_max = until;
}

/* Nothing buffered, queued, staged or pending anywhere; the pool is where it started. */
static void
expect_idle(void)
{
	uint16_t p;
	int tc;

	for (p = 0; p < N_PORTS; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++) {
			assert_int_equal(rte_ring_count(rsw_qos.port[p].ring[tc]), 0);
			assert_int_equal(rsw_qos.port[p].q_bytes[tc], 0);
			assert_int_equal(rsw_qos.port[p].pg_bytes[tc], 0);
			assert_int_equal(rsw_sched[p].head_i[tc], rsw_sched[p].head_n[tc]);
		}
		assert_int_equal(rsw_sched[p].n_pending, 0);
		assert_int_equal(rsw_qos.port[p].ctl_frames, 0);
		assert_int_equal(rsw_qos.port[p].orig_frames, 0);
		assert_int_equal(rte_ring_count(txr[p]), 0);
	}
	assert_int_equal(rsw_qos.used, 0);
	assert_int_equal(rte_mempool_in_use_count(pool), pool_start);
}

/* Fresh scheduler state and unpaused, unshaped ports (only when idle). */
static void
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
static void
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

static void
set_ecn(struct rsw_qos_params *qp, uint8_t tc, uint64_t kmin, uint64_t kmax, double pmax)
{
	double v = pmax * 4294967296.0;

	qp->ecn_enabled |= (uint8_t)(1u << tc);
	qp->kmin[tc] = kmin;
	qp->kmax[tc] = kmax;
	qp->pmax_q32[tc] = v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
}

/* Run the scheduler of port p at now until it reports no work; return the frames sent. */
static unsigned int
sched_drain(const struct rsw_qos_params *qp, uint16_t p, uint64_t now)
{
	unsigned int round;

	for (round = 0; round < 100000; round++)
		if (rsw_sched_port(st, qp, p, now) == 0)
			return round;
	fail_msg("port %u never went idle", p);
	return 0;
}

/* ECN: the WRED curve. */

static void
test_ecn_decide(void **state)
{
	struct rsw_qos_params qp;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned int i, hits;
	double share;

	(void)state;
	qp_init(&qp);
	set_ecn(&qp, 3, 10000, 20000, 0.5);
	/* q <= kmin: never, whatever the draw. */
	assert_int_equal(rsw_ecn_decide(&qp, 3, 0, 0), 0);
	assert_int_equal(rsw_ecn_decide(&qp, 3, 10000, 0), 0);
	/* q >= kmax: always. */
	assert_int_equal(rsw_ecn_decide(&qp, 3, 20000, UINT32_MAX), 1);
	assert_int_equal(rsw_ecn_decide(&qp, 3, UINT64_MAX, UINT32_MAX), 1);
	/* Just above kmin: a tiny probability, so draw 0 marks and a large draw does not. */
	assert_int_equal(rsw_ecn_decide(&qp, 3, 10001, 0), 1);
	assert_int_equal(rsw_ecn_decide(&qp, 3, 10001, 1u << 20), 0);
	/* Mid-curve: pmax / 2 = 0.25 (σ of the share over 100k draws: 0.0014; bound 7σ). */
	for (hits = 0, i = 0; i < 100000; i++)
		hits += (unsigned int)rsw_ecn_decide(&qp, 3, 15000, (uint32_t)(ut_rand(&s) >> 32));
	share = hits / 100000.0;
	assert_true(share > 0.24 && share < 0.26);
	/* Three quarters: 0.375. */
	for (hits = 0, i = 0; i < 100000; i++)
		hits += (unsigned int)rsw_ecn_decide(&qp, 3, 17500, (uint32_t)(ut_rand(&s) >> 32));
	share = hits / 100000.0;
	assert_true(share > 0.365 && share < 0.385);
	/* pmax 1: half-way marks half. */
	set_ecn(&qp, 0, 1000, 3000, 1.0);
	assert_int_equal(qp.pmax_q32[0], UINT32_MAX);
	for (hits = 0, i = 0; i < 100000; i++)
		hits += (unsigned int)rsw_ecn_decide(&qp, 0, 2000, (uint32_t)(ut_rand(&s) >> 32));
	share = hits / 100000.0;
	assert_true(share > 0.49 && share < 0.51);
}

/* An IPv4 header at l3 in buf: tos, random other fields, correct checksum. */
static void
ipv4_hdr(uint8_t *l3, uint8_t tos, uint64_t *s)
{
	uint64_t r = ut_rand(s);
	uint16_t ck;

	memset(l3, 0, 20);
	l3[0] = 0x45;
	l3[1] = tos;
	l3[2] = 0;
	l3[3] = (uint8_t)(20 + (r & 0x7f));
	l3[4] = (uint8_t)(r >> 8);
	l3[5] = (uint8_t)(r >> 16);
	l3[8] = (uint8_t)(r >> 24);
	l3[9] = IPPROTO_UDP;
	memcpy(l3 + 12, (const uint8_t *)&r + 2, 4);
	l3[16] = 10;
	l3[19] = (uint8_t)(r >> 56);
	ck = ut_ref_cksum(l3, 20);
	l3[10] = (uint8_t)(ck >> 8);
	l3[11] = (uint8_t)ck;
}

static void
test_ecn_mark_ipv4(void **state)
{
	static const int want[4] = {-1, 1, 1, 0}; /* Not-ECT, ECT(1), ECT(0), CE */
	uint64_t s = 42;
	unsigned int i, l3_off;

	(void)state;
	for (i = 0; i < 4000; i++) {
		uint8_t ecn = (uint8_t)(i % 4), dscp = (uint8_t)((i / 4) % 64);
		struct ut_frame f, exp;
		struct rte_mbuf *m;
		uint16_t ck;

		l3_off = (i / 256) % 2 ? 18 : 14; /* untagged and tagged */
		memset(f.b, 0xee, 64);
		f.len = 64;
		ipv4_hdr(f.b + l3_off, (uint8_t)(dscp << 2 | ecn), &s);
		exp = f;
		if (want[ecn] == 1) {
			/* Expected: CE, checksum computed from scratch. */
			exp.b[l3_off + 1] = (uint8_t)(dscp << 2 | 3);
			exp.b[l3_off + 10] = exp.b[l3_off + 11] = 0;
			ck = ut_ref_cksum(exp.b + l3_off, 20);
			exp.b[l3_off + 10] = (uint8_t)(ck >> 8);
			exp.b[l3_off + 11] = (uint8_t)ck;
		}
		m = ut_mbuf_ext(pool, f.b, f.len);
		assert_non_null(m);
		assert_int_equal(rsw_ecn_mark(m, (uint16_t)l3_off, RSW_PK_IPV4), want[ecn]);
		/* The whole frame is as expected; the header still verifies. */
		assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), exp.b, f.len);
		assert_int_equal(ut_ref_cksum(rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off), 20),
				 0);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(rte_mempool_in_use_count(pool), pool_start);
}

static void
test_ecn_mark_ipv6(void **state)
{
	static const int want[4] = {-1, 1, 1, 0};
	uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}, dst[16] = {0xfd, [15] = 2};
	unsigned int ecn, dscp;

	(void)state;
	for (dscp = 0; dscp < 64; dscp++) {
		for (ecn = 0; ecn < 4; ecn++) {
			struct ut_frame f, exp;
			struct rte_mbuf *m;
			uint8_t tclass = (uint8_t)(dscp << 2 | ecn);

			ut_eth(&f, nh_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
			ut_ipv6(&f, tclass, 0xabcde, 8, IPPROTO_UDP, 64, src, dst);
			ut_udp(&f, 1, 2, 8);
			exp = f;
			if (want[ecn] == 1) {
				/* Traffic class bits 20-27 of the first word; flow label kept. */
				uint32_t w = 6u << 28 | (uint32_t)(tclass | 3) << 20 | 0xabcde;

				exp.b[14] = (uint8_t)(w >> 24);
				exp.b[15] = (uint8_t)(w >> 16);
				exp.b[16] = (uint8_t)(w >> 8);
				exp.b[17] = (uint8_t)w;
			}
			m = ut_mbuf_ext(pool, f.b, f.len);
			assert_non_null(m);
			assert_int_equal(rsw_ecn_mark(m, 14, RSW_PK_IPV6), want[ecn]);
			assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), exp.b, f.len);
			rte_pktmbuf_free(m);
		}
	}
}

/* PFC: pause time, frame encoding, reception. */

static void
test_pfc_pause_ticks(void **state)
{
	(void)state;
	/* 1 quantum = 512 bit times. At 1 GHz: 1M → 512 µs, 10M → 51.2 µs, 100G → 5.12 ns. */
	assert_int_equal(rsw_pfc_pause_ticks(1, 1000000, TSC_HZ), 512000);
	assert_int_equal(rsw_pfc_pause_ticks(1, 10000000, TSC_HZ), 51200);
	assert_int_equal(rsw_pfc_pause_ticks(1, 100000000000ull, TSC_HZ), 5);
	/* 65535 quanta: 33.55392 s at 1M, 3.355392 s at 10M, 3355.392 µs at 10G, 335.5392 µs at
	 * 100G (ticks truncated). */
	assert_int_equal(rsw_pfc_pause_ticks(65535, 1000000, TSC_HZ), 33553920000ull);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 10000000, TSC_HZ), 3355392000ull);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 10000000000ull, TSC_HZ), 3355392);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 100000000000ull, TSC_HZ), 335539);
	/* 400G at a 4 GHz TSC: 83.8848 µs (PROTOCOLS.md §1); no overflow at the extremes. */
	assert_int_equal(rsw_pfc_pause_ticks(65535, 400000000000ull, 4000000000ull), 335539);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 1000000, 4000000000ull), 134215680000ull);
	/* Quanta 0 is no pause; an unknown speed gives none either. */
	assert_int_equal(rsw_pfc_pause_ticks(0, 10000000, TSC_HZ), 0);
	/* Unknown speed: timed as 10 Gb/s (65535 × 512 bits = 3355.392 µs at 10G). */
	assert_int_equal(rsw_pfc_pause_ticks(65535, 0, TSC_HZ), 3355392ull);
}

static void
test_pfc_encode(void **state)
{
	static const uint8_t src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	/* XOFF for priority 3, 65535 quanta (802.1Qbb; PROTOCOLS.md §1: vector 0x0008). */
	static const uint8_t xoff3[RSW_PFC_FRAME_LEN] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x88, 0x08, 0x01, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* pad: */
	};
	/* Priorities 0, 4 and 7 with their own times; the times of disabled classes are 0. */
	static const uint8_t mixed[RSW_PFC_FRAME_LEN] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x88, 0x08, 0x01, 0x01, 0x00, 0x91, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01,
	};
	const uint16_t t3[RSW_N_TC] = {0, 0, 0, 65535, 0, 0, 0, 0};
	const uint16_t tm[RSW_N_TC] = {0x1234, 7, 7, 7, 5, 7, 7, 0x8001};
	const uint16_t zero[RSW_N_TC] = {0};
	uint8_t buf[RSW_PFC_FRAME_LEN + 4], xon[RSW_PFC_FRAME_LEN];

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	rsw_pfc_encode(buf, src, 0x08, t3);
	assert_memory_equal(buf, xoff3, RSW_PFC_FRAME_LEN);
	/* Nothing written past the 60 bytes. */
	assert_int_equal(buf[RSW_PFC_FRAME_LEN], 0xa5);
	assert_int_equal(buf[RSW_PFC_FRAME_LEN + 3], 0xa5);

	rsw_pfc_encode(buf, src, 0x91, tm);
	assert_memory_equal(buf, mixed, RSW_PFC_FRAME_LEN);

	/* XON for priority 3: the vector is set, the time 0. */
	memcpy(xon, xoff3, sizeof(xon));
	xon[24] = xon[25] = 0;
	rsw_pfc_encode(buf, src, 0x08, zero);
	assert_memory_equal(buf, xon, RSW_PFC_FRAME_LEN);
}

/* A PFC (or other MAC Control) PDU from its opcode, 20 bytes, padded to 46. */
static void
pfc_pdu(uint8_t pdu[46], uint16_t opcode, uint8_t reserved, uint8_t enable,
	const uint16_t time[RSW_N_TC])
{
	int i;

	memset(pdu, 0, 46);
	pdu[0] = (uint8_t)(opcode >> 8);
	pdu[1] = (uint8_t)opcode;
	pdu[2] = reserved;
	pdu[3] = enable;
	for (i = 0; i < RSW_N_TC; i++) {
		pdu[4 + 2 * i] = (uint8_t)(time[i] >> 8);
		pdu[5 + 2 * i] = (uint8_t)time[i];
	}
}

static struct rsw_qos_params pfc_qp;

static void
pfc_rx_reset(void)
{
	sched_reset();
	memset(&qs, 0, sizeof(qs));
	qp_init(&pfc_qp);
	pfc_qp.lossless = 0x18;                     /* TC 3 and 4 */
	rsw_qos.port[1].speed_bps = 10000000000ull; /* 65535 quanta = 3355392 ns */
}

static void
expect_no_pause(uint16_t p)
{
	int tc;

	for (tc = 0; tc < RSW_N_TC; tc++)
		assert_int_equal(rsw_qos.port[p].paused_until[tc], 0);
}

static void
test_pfc_rx_bad(void **state)
{
	const uint16_t t[RSW_N_TC] = {100, 100, 100, 100, 100, 100, 100, 100};
	static const struct rsw_qos_stats zero;
	uint8_t pdu[46];

	(void)state;
	pfc_rx_reset();
	/* Shorter than opcode + one time. */
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 0, T0), -EINVAL);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 3, T0), -EINVAL);
	/* PFC without all eight times. */
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 19, T0), -EINVAL);
	/* Reserved octet of the class-enable vector set. */
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0x01, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	/* Unknown opcodes: 0, 0x0102, 0x0003 (EPON GATE), 0xffff. */
	pfc_pdu(pdu, 0x0000, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	pfc_pdu(pdu, 0x0102, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	pfc_pdu(pdu, 0x0003, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	pfc_pdu(pdu, 0xffff, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	/* None of it paused anything or moved a counter. */
	expect_no_pause(1);
	assert_memory_equal(&qs, &zero, sizeof(qs));
	/* An empty vector is valid and does nothing but count the frame consumed. */
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x00, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 20, T0), 0);
	expect_no_pause(1);
	assert_int_equal(qs.pfc_consumed[1], 1);
	qs.pfc_consumed[1] = 0;
	assert_memory_equal(&qs, &zero, sizeof(qs));
}

static void
test_pfc_rx_xoff_xon(void **state)
{
	uint16_t t[RSW_N_TC] = {0};
	uint8_t pdu[46];
	int tc;

	(void)state;
	pfc_rx_reset();
	/* XOFF priority 3, 65535 quanta at 10G: paused for 3355392 ticks from now. */
	t[3] = 65535;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x08, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], T0 + 3355392);
	assert_int_equal(rsw_qos.port[1].last_pause[3], T0);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xoff], 1);
	assert_int_equal(qs.pfc[1][3][RSW_FC_paused_ns], 3355392); /* ticks in the slot */
	for (tc = 0; tc < RSW_N_TC; tc++)
		if (tc != 3)
			assert_int_equal(rsw_qos.port[1].paused_until[tc], 0);
	/* What the owner sees: TC 3 paused until then, nothing after. */
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0), 0x08);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 3355391), 0x08);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 3355392), 0);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[0], T0), 0);
	/* Other ports are untouched. */
	expect_no_pause(0);
	expect_no_pause(2);

	/* A refresh 1000 ticks later replaces the time: only the extension is counted. */
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 1000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], T0 + 1000 + 3355392);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xoff], 2);
	assert_int_equal(qs.pfc[1][3][RSW_FC_paused_ns], 3355392 + 1000);

	/* XON (time 0) 2000 ticks in: released at once; the time not served is given back. */
	t[3] = 0;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x08, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 2000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], 0);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xon], 1);
	assert_int_equal(qs.pfc[1][3][RSW_FC_paused_ns], 2000);
	/* Released although the port's bound still lies ahead. */
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 2000), 0);

	/* Only enabled classes take their time: priority 4 enabled with 10 quanta, priority 3's
	 * time field set but its bit clear. */
	t[3] = 65535;
	t[4] = 10;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x10, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 3000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[4], T0 + 3000 + 512);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 3000), 0x10);
	assert_int_equal(qs.pfc[1][4][RSW_FC_rx_xoff], 1);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xoff], 2);

	/* A frame padded to 46 bytes or cut at exactly 20 is the same frame. */
	t[4] = 20;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x10, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 20, T0 + 3000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[4], T0 + 3000 + 1024);
}

static void
test_pfc_rx_lossy_and_pause(void **state)
{
	uint16_t t[RSW_N_TC] = {0};
	uint8_t pdu[46];
	int tc;

	(void)state;
	pfc_rx_reset();
	/* Priorities 0 and 7 are lossy: ignored and counted; priority 3 in the same frame acts. */
	t[0] = t[3] = t[7] = 1000;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x89, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), 0);
	assert_int_equal(qs.pfc[1][0][RSW_FC_rx_ignored], 1);
	assert_int_equal(qs.pfc[1][7][RSW_FC_rx_ignored], 1);
	assert_int_equal(qs.pfc[1][0][RSW_FC_rx_xoff], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[0], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[7], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], T0 + 51200);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_ignored], 0);

	/* A TC the watchdog took over (forward or drop): not honoured, but seen. */
	rsw_qos.port[1].storm_ignore[4] = 1;
	t[4] = 1000;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x10, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 5), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[4], 0);
	assert_int_equal(rsw_qos.port[1].last_pause[4], T0 + 5);
	assert_int_equal(qs.pfc[1][4][RSW_FC_rx_ignored], 1);
	assert_int_equal(qs.pfc[1][4][RSW_FC_rx_xoff], 0);
	rsw_qos.port[1].storm_ignore[4] = 0;

	/* 802.3x PAUSE (opcode 1, one time): every class of the port, lossy ones included. */
	pdu[0] = 0x00;
	pdu[1] = 0x01;
	pdu[2] = 0x00;
	pdu[3] = 0x64; /* 100 quanta = 5120 ns at 10G */
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 10), 0);
	for (tc = 0; tc < RSW_N_TC; tc++) {
		assert_int_equal(rsw_qos.port[1].paused_until[tc], T0 + 10 + 5120);
		assert_int_equal(qs.pfc[1][tc][RSW_FC_rx_xoff], tc == 3 ? 2 : 1);
	}
	/* PAUSE 0 releases all. */
	pdu[3] = 0;
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 4, T0 + 20), 0);
	expect_no_pause(1);
	for (tc = 0; tc < RSW_N_TC; tc++)
		assert_int_equal(qs.pfc[1][tc][RSW_FC_rx_xon], 1);
	sched_reset();
}

/* Parameters from a loaded configuration. */

#define CFG_HEAD                                                                                   \
	"switch:\n"                                                                                \
	"  name: s1\n"                                                                             \
	"ports:\n"                                                                                 \
	"  - { name: p0, devargs: net_tap0, speed: 10M, ipv4: 10.0.1.254/24 }\n"                   \
	"  - { name: p1, devargs: net_tap1, speed: 10M, ipv4: 10.0.2.254/24 }\n"                   \
	"  - { name: p2, devargs: net_tap2, ipv4: 10.0.3.254/24 }\n"

static struct rsw_config *
load(const char *yaml)
{
	char err[RSW_CFG_ERR_LEN] = "";
	struct rsw_config *cfg =
		rsw_config_load_buf("t.yaml", yaml, strlen(yaml), err, sizeof(err));

	if (cfg == NULL)
		fail_msg("config: %s", err);
	return cfg;
}

static void
test_params_from_cfg(void **state)
{
	struct rsw_config *cfg;
	struct rsw_qos_params qp;
	int tc;

	(void)state;
	cfg = load(CFG_HEAD "qos:\n"
			    "  scheduler:\n"
			    "    strict: [7, 6]\n"
			    "    dwrr: { 0: 1, 1: 3, 3: 4 }\n"
			    "  lossless: [3, 4]\n"
			    "  buffer:\n"
			    "    total: 4MB\n"
			    "    queue_limit: 128KB\n"
			    "    pfc: { xoff: 32KB, xon: 16KB, headroom: 40KB, quanta: 1000 }\n"
			    "  ecn:\n"
			    "    3: { kmin: 16KB, kmax: 64KB, pmax: 0.2 }\n"
			    "    0: { kmin: 1000, kmax: 2000, pmax: 1.0 }\n"
			    "  ecn_mark_point: enqueue\n");
	rsw_qos_params_from_cfg(&qp, cfg);
	assert_int_equal(qp.lossless, 0x18);
	assert_int_equal(qp.n_strict, 2);
	assert_int_equal(qp.strict[0], 7);
	assert_int_equal(qp.strict[1], 6);
	assert_int_equal(qp.is_strict, 0xc0);
	assert_int_equal(qp.dwrr_quantum[0], RSW_DWRR_QUANTUM);
	assert_int_equal(qp.dwrr_quantum[1], 3 * RSW_DWRR_QUANTUM);
	assert_int_equal(qp.dwrr_quantum[2], RSW_DWRR_QUANTUM); /* unlisted: weight 1 */
	assert_int_equal(qp.dwrr_quantum[3], 4 * RSW_DWRR_QUANTUM);
	assert_int_equal(qp.total, 4u << 20);
	assert_int_equal(qp.queue_limit, 128u << 10);
	assert_int_equal(qp.dynamic, 0);
	assert_int_equal(qp.xoff, 32u << 10);
	assert_int_equal(qp.xon, 16u << 10);
	assert_int_equal(qp.headroom, 40u << 10);
	/* Headroom is reserved for every (port, lossless PG): 3 ports × 2 PGs. */
	assert_int_equal(qp.headroom_reserved, 3 * 2 * (40u << 10));
	assert_int_equal(qp.quanta, 1000);
	assert_int_equal(qp.ecn_enabled, 0x09);
	assert_int_equal(qp.ecn_enqueue, 1);
	assert_int_equal(qp.kmin[3], 16u << 10);
	assert_int_equal(qp.kmax[3], 64u << 10);
	assert_int_equal(qp.pmax_q32[3], 858993459); /* 0.2 × 2^32, truncated */
	assert_int_equal(qp.kmin[0], 1000);
	assert_int_equal(qp.kmax[0], 2000);
	assert_int_equal(qp.pmax_q32[0], UINT32_MAX); /* 1.0 saturates */
	/* Static thresholds do not move with the buffer use. */
	assert_int_equal(rsw_pfc_xoff(&qp, 0), 32u << 10);
	assert_int_equal(rsw_pfc_xoff(&qp, 4u << 20), 32u << 10);
	assert_int_equal(rsw_pfc_xon(&qp, 32u << 10), 16u << 10);
	rsw_config_free(cfg);

	/* Dynamic thresholds: xoff = alpha × (total − used − reserved headroom). */
	cfg = load(CFG_HEAD
		   "qos:\n"
		   "  lossless: [3]\n"
		   "  buffer:\n"
		   "    total: 16MB\n"
		   "    pfc: { mode: dynamic, alpha: 0.125, xon_offset: 3KB, headroom: 64KB }\n");
	rsw_qos_params_from_cfg(&qp, cfg);
	assert_int_equal(qp.dynamic, 1);
	assert_int_equal(qp.alpha_q16, 8192);
	assert_int_equal(qp.xon_offset, 3072);
	assert_int_equal(qp.headroom_reserved, 3 * (64u << 10));
	assert_int_equal(qp.quanta, 65535); /* default */
	assert_int_equal(qp.n_strict, 0);
	assert_int_equal(qp.ecn_enabled, 0);
	assert_int_equal(qp.ecn_enqueue, 0);
	for (tc = 0; tc < RSW_N_TC; tc++)
		assert_int_equal(qp.dwrr_quantum[tc], RSW_DWRR_QUANTUM);
	assert_int_equal(rsw_pfc_xoff(&qp, 0), ((16u << 20) - 3 * (64u << 10)) / 8);
	assert_int_equal(rsw_pfc_xoff(&qp, 1u << 20), ((15u << 20) - 3 * (64u << 10)) / 8);
	assert_int_equal(rsw_pfc_xon(&qp, 100000), 100000 - 3072);
	assert_int_equal(rsw_pfc_xon(&qp, 1000), 0);
	/* A full buffer leaves nothing: xoff 0, never a negative (wrapped) threshold. */
	assert_int_equal(rsw_pfc_xoff(&qp, 16u << 20), 0);
	assert_int_equal(rsw_pfc_xoff(&qp, 32u << 20), 0);
	rsw_config_free(cfg);
}

/* The scheduler on ring PMD ports. */

static void
test_sched_idle(void **state)
{
	struct rsw_qos_params qp;

	(void)state;
	sched_reset();
	qp_init(&qp);
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0), 0);
	qp.lossless = 0x08; /* PFC generation with nothing buffered: no frame */
	rsw_qos.port[1].speed_bps = 10000000;
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0), 0);
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0 + TSC_HZ), 0);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	sched_reset();
}

static void
test_sched_strict(void **state)
{
	struct rsw_qos_params qp;
	struct rte_mbuf *out[64];
	uint64_t deq0 = st->qos.q[1][0][RSW_QC_dequeued_packets];
	unsigned int n, i;

	(void)state;
	sched_reset();
	qp_init(&qp);
	qp.n_strict = 2;
	qp.strict[0] = 7;
	qp.strict[1] = 6;
	qp.is_strict = 0xc0;
	/* Queued in the worst order: DWRR classes first, the highest strict class last. */
	for (i = 0; i < 8; i++) {
		q_put(1, 0, 0, 100, 0, i);
		q_put(1, 1, 0, 100, 0, i);
	}
	for (i = 0; i < 8; i++)
		q_put(1, 6, 0, 100, 0, i);
	for (i = 0; i < 8; i++)
		q_put(1, 7, 2, 100, 0, i);
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0), 32);
	n = tx_take(1, out, RTE_DIM(out));
	assert_int_equal(n, 32);
	for (i = 0; i < 8; i++) {
		assert_int_equal(frame_tc(out[i]), 7);
		assert_int_equal(frame_seq(out[i]), i);
		assert_int_equal(frame_tc(out[8 + i]), 6);
		assert_int_equal(frame_seq(out[8 + i]), i);
	}
	for (i = 16; i < 32; i++)
		assert_true(frame_tc(out[i]) <= 1);
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(st->qos.q[1][0][RSW_QC_dequeued_packets] - deq0, 8);

	/* A strict frame arriving while DWRR classes are backlogged goes next. */
	for (i = 0; i < 40; i++)
		q_put(1, 0, 0, 100, 0, 100 + i);
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0), 32);
	q_put(1, 7, 0, 100, 0, 999);
	assert_true(rsw_sched_port(st, &qp, 1, T0) > 0);
	n = tx_take(1, out, RTE_DIM(out));
	assert_int_equal(frame_tc(out[32]), 7);
	assert_int_equal(frame_seq(out[32]), 999);
	rte_pktmbuf_free_bulk(out, n);
	sched_drain(&qp, 1, T0);
	tx_discard(1, NULL, NULL);
	expect_gauges_consistent();
	sched_reset();
}

/*
 * DWRR between two backlogged TCs (quanta ratio 1:4, different frame sizes): bytes out follow
 * the weights. Each queue is topped up before every scheduler call so neither ever empties.
 */
static void
dwrr_run(struct rsw_qos_params *qp, uint8_t a, uint16_t len_a, uint8_t b, uint16_t len_b,
	 uint64_t total, uint64_t tc_bytes[RSW_N_TC])
{
	uint64_t sent = 0;
	uint32_t seq = 0;

	memset(tc_bytes, 0, sizeof(uint64_t) * RSW_N_TC);
	while (sent < total) {
		while (rsw_qos.port[1].q_bytes[a] < 48u * len_a)
			q_put(1, a, 0, len_a, 0, seq++);
		while (rsw_qos.port[1].q_bytes[b] < 48u * len_b)
			q_put(1, b, 2, len_b, 0, seq++);
		assert_true(rsw_sched_port(st, qp, 1, T0) > 0);
		tx_discard(1, NULL, tc_bytes);
		sent = tc_bytes[a] + tc_bytes[b];
		expect_gauges_consistent();
	}
	sched_drain(qp, 1, T0);
	tx_discard(1, NULL, NULL);
}

static void
test_sched_dwrr(void **state)
{
	struct rsw_qos_params qp;
	uint64_t tcb[RSW_N_TC];
	double share;

	(void)state;
	sched_reset();
	qp_init(&qp);
	qp.dwrr_quantum[1] = 1 * RSW_DWRR_QUANTUM;
	qp.dwrr_quantum[2] = 4 * RSW_DWRR_QUANTUM;
	/* Weights 1:4; TC 1 sends 1000-byte frames, TC 2 300-byte frames: a byte share of 0.8. */
	dwrr_run(&qp, 1, 1000, 2, 300, 4u << 20, tcb);
	share = (double)tcb[2] / (double)(tcb[1] + tcb[2]);
	assert_true(share > 0.8 * 0.95 && share < 0.8 * 1.05);
	sched_reset();

	/* The same with the frame sizes swapped. */
	dwrr_run(&qp, 1, 300, 2, 1000, 4u << 20, tcb);
	share = (double)tcb[2] / (double)(tcb[1] + tcb[2]);
	assert_true(share > 0.8 * 0.95 && share < 0.8 * 1.05);
	sched_reset();

	/* Equal weights, frames larger than a quantum (2000 > 1536) against small ones: the
	 * deficit carries over, so bytes are shared 1:1, not frames. */
	qp.dwrr_quantum[2] = RSW_DWRR_QUANTUM;
	dwrr_run(&qp, 1, 2000, 2, 100, 4u << 20, tcb);
	share = (double)tcb[2] / (double)(tcb[1] + tcb[2]);
	assert_true(share > 0.5 * 0.95 && share < 0.5 * 1.05);
	sched_reset();
}

/*
 * The shaper at speed bps over a simulated clock: a warm-up of 2000 steps (the initial bucket
 * goes out), then `secs` seconds in steps of step_ns; the wire bytes (frame + 24) transmitted in that
 * window are speed × secs / 8 within 2%.
 */
static void
shaper_run(uint64_t bps, double secs, uint64_t step_ns, uint16_t len)
{
	struct rsw_qos_params qp;
	uint64_t now = T0, end_warm = T0 + 2000 * step_ns, end, wire = 0, want;
	uint32_t seq = 0;

	sched_reset();
	qp_init(&qp);
	rsw_qos.port[1].speed_bps = bps;
	end = end_warm + (uint64_t)(secs * TSC_HZ);
	for (; now <= end; now += step_ns) {
		while (rsw_qos.port[1].q_bytes[0] < 64u * len)
			q_put(1, 0, 0, len, 0, seq++);
		rsw_sched_port(st, &qp, 1, now);
		if (now <= end_warm) {
			tx_discard(1, NULL, NULL);
			continue;
		}
		tx_discard(1, &wire, NULL);
	}
	want = (uint64_t)((double)bps * secs / 8);
	if (wire < want * 0.98 || wire > want * 1.02)
		fail_msg("%" PRIu64 " b/s: %" PRIu64 " wire bytes in %.2f s, expected %" PRIu64,
			 bps, wire, secs, want);
	rsw_qos.port[1].speed_bps = 0;
	sched_drain(&qp, 1, now);
	tx_discard(1, NULL, NULL);
	sched_reset();
}

static void
test_sched_shaper(void **state)
{
	(void)state;
	/* 10M over 1 s: 1.25 MB on the wire, in steps of 20 µs. */
	shaper_run(10000000, 1.0, 20000, 1000);
	/* 1M over 1 s with small frames; 100M and 1G over 100 ms (coarse and fine steps). */
	shaper_run(1000000, 1.0, 100000, 64);
	shaper_run(100000000, 0.1, 5000, 1500);
	shaper_run(1000000000, 0.1, 1000, 1500);
	/* 400G over 1 ms in 100 ns steps (its bucket is 100 µs of traffic: 5 MB). */
	shaper_run(400000000000ull, 0.001, 100, 1500);
}

/* A TC paused by received PFC is skipped while the others flow, then resumes. */
static void
test_sched_paused(void **state)
{
	struct rsw_qos_params qp;
	struct rte_mbuf *out[64];
	unsigned int n, i;

	(void)state;
	sched_reset();
	qp_init(&qp);
	qp.lossless = 0x08;
	qp.n_strict = 1;
	qp.strict[0] = 3; /* even a strict class waits */
	qp.is_strict = 0x08;
	set_paused(1, 3, T0 + 1000);
	for (i = 0; i < 5; i++) {
		q_put(1, 3, 0, 200, 0, i);
		q_put(1, 0, 0, 200, 0, i);
	}
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0), 5);
	n = tx_take(1, out, RTE_DIM(out));
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++)
		assert_int_equal(frame_tc(out[i]), 0);
	rte_pktmbuf_free_bulk(out, n);
	/* Still paused one tick before the end; TC 3 keeps its buffer. */
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0 + 999), 0);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(rsw_qos.port[1].q_bytes[3], 1000);
	assert_int_equal(rsw_qos.port[0].pg_bytes[3], 1000);
	expect_gauges_consistent();
	/* The pause runs out: TC 3 flows, in order. */
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0 + 1000), 5);
	n = tx_take(1, out, RTE_DIM(out));
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++) {
		assert_int_equal(frame_tc(out[i]), 3);
		assert_int_equal(frame_seq(out[i]), i);
	}
	rte_pktmbuf_free_bulk(out, n);

	/* The watchdog's forward action: a paused TC flows anyway. */
	set_paused(1, 3, T0 + TSC_HZ);
	rsw_qos.port[1].storm_ignore[3] = 1;
	q_put(1, 3, 0, 200, 0, 7);
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0 + 2000), 1);
	assert_int_equal(tx_discard(1, NULL, NULL), 1);
	expect_idle();
	sched_reset();
}

/* Expect one PFC frame from port p with vector enable and time t for each enabled class. */
static void
expect_pfc_frame(uint16_t p, uint8_t enable, uint16_t t)
{
	uint8_t want[RSW_PFC_FRAME_LEN];
	struct rte_mbuf *m[4];
	unsigned int n = tx_take(p, m, RTE_DIM(m)), i;

	assert_int_equal(n, 1);
	memset(want, 0, sizeof(want));
	memcpy(want, pfc_dst, 6);
	port_mac(p, want + 6);
	want[12] = 0x88;
	want[13] = 0x08;
	want[14] = 0x01;
	want[15] = 0x01;
	want[17] = enable;
	for (i = 0; i < RSW_N_TC; i++) {
		if (enable & (1u << i)) {
			want[18 + 2 * i] = (uint8_t)(t >> 8);
			want[19 + 2 * i] = (uint8_t)t;
		}
	}
	assert_int_equal(rte_pktmbuf_pkt_len(m[0]), RSW_PFC_FRAME_LEN);
	assert_int_equal(rte_pktmbuf_data_len(m[0]), RSW_PFC_FRAME_LEN);
	assert_memory_equal(rte_pktmbuf_mtod(m[0], uint8_t *), want, RSW_PFC_FRAME_LEN);
	rte_pktmbuf_free(m[0]);
}

static void
test_pfc_generate(void **state)
{
	uint64_t xoff0 = st->qos.pfc[0][3][RSW_FC_tx_xoff], xon0 = st->qos.pfc[0][3][RSW_FC_tx_xon];
	uint64_t txp0 = st->port[0].c[RSW_PC_tx_packets], txb0 = st->port[0].c[RSW_PC_tx_bytes];
	const uint64_t half = 51200 / 2; /* 1000 quanta at 10G = 51200 ns; refresh at half */
	struct rsw_qos_params qp;
	uint64_t now = T0;
	unsigned int i;

	(void)state;
	sched_reset();
	qp_init(&qp);
	qp.lossless = 0x08;
	qp.xoff = 10000;
	qp.xon = 5000;
	qp.quanta = 1000;
	rsw_qos.port[0].speed_bps = 10000000000ull;
	/* Port 1 drains at 10M: its initial bucket (2 × (1500 + 38) bytes) takes 3 frames. */
	rsw_qos.port[1].speed_bps = 10000000;

	/* Just below xoff: nothing. */
	for (i = 0; i < 9; i++)
		q_put(1, 3, 0, 1000, 0, i);
	assert_int_equal(rsw_sched_port(st, &qp, 0, now), 0);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	/* At xoff: XOFF for priority 3 on the ingress port, with the configured quanta. */
	q_put(1, 3, 0, 1000, 0, 9);
	assert_int_equal(rsw_qos.port[0].pg_bytes[3], 10000);
	rsw_sched_port(st, &qp, 0, now);
	expect_pfc_frame(0, 0x08, 1000);
	assert_int_equal(st->qos.pfc[0][3][RSW_FC_tx_xoff] - xoff0, 1);
	assert_int_equal(st->port[0].c[RSW_PC_tx_packets] - txp0, 1);
	assert_int_equal(st->port[0].c[RSW_PC_tx_bytes] - txb0, RSW_PFC_FRAME_LEN);
	/* Not again while the pause runs (up to one tick before half the pause time). */
	rsw_sched_port(st, &qp, 0, now + 1);
	rsw_sched_port(st, &qp, 0, now + half - 1);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	/* Refreshed at half the pause time while still above xon. */
	rsw_sched_port(st, &qp, 0, now + half);
	expect_pfc_frame(0, 0x08, 1000);
	assert_int_equal(st->qos.pfc[0][3][RSW_FC_tx_xoff] - xoff0, 2);
	now += half;

	/* Port 1 sends 3 frames: 7000 bytes left, above xon: no XON, no refresh yet. */
	assert_int_equal(rsw_sched_port(st, &qp, 1, now), 3);
	assert_int_equal(tx_discard(1, NULL, NULL), 3);
	assert_int_equal(rsw_qos.port[0].pg_bytes[3], 7000);
	rsw_sched_port(st, &qp, 0, now + 1);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	/* Another 2 at 10M after 1638.4 µs: 5000 = xon: XON (vector bit 3, time 0). */
	assert_int_equal(rsw_sched_port(st, &qp, 1, now + 1638400), 2);
	assert_int_equal(tx_discard(1, NULL, NULL), 2);
	assert_int_equal(rsw_qos.port[0].pg_bytes[3], 5000);
	rsw_sched_port(st, &qp, 0, now + 1638401);
	expect_pfc_frame(0, 0x08, 0);
	assert_int_equal(st->qos.pfc[0][3][RSW_FC_tx_xon] - xon0, 1);
	assert_int_equal(st->qos.pfc[0][3][RSW_FC_tx_xoff] - xoff0, 2);
	/* Once: no more XON, and no refresh after XON. */
	rsw_sched_port(st, &qp, 0, now + 1638402);
	rsw_sched_port(st, &qp, 0, now + 10 * TSC_HZ);
	assert_int_equal(rte_ring_count(txr[0]), 0);

	/* Lossy traffic never makes PFC, whatever its bytes. */
	rsw_qos.port[1].speed_bps = 0;
	sched_drain(&qp, 1, now);
	tx_discard(1, NULL, NULL);
	for (i = 0; i < 30; i++)
		q_put(1, 0, 0, 1000, 0, i);
	rsw_sched_port(st, &qp, 0, now + 10 * TSC_HZ + 1);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	sched_drain(&qp, 1, now);
	tx_discard(1, NULL, NULL);

	/* The watchdog's drop action stops PFC for the PG. */
	for (i = 0; i < 20; i++)
		q_put(1, 3, 0, 1000, 0, i);
	rsw_qos.port[0].storm_drop[3] = 1;
	rsw_sched_port(st, &qp, 0, now + 11 * TSC_HZ);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	rsw_qos.port[0].storm_drop[3] = 0;
	/* Without it, XOFF again; then the queue drains: XON. */
	rsw_sched_port(st, &qp, 0, now + 11 * TSC_HZ);
	expect_pfc_frame(0, 0x08, 1000);
	sched_drain(&qp, 1, now);
	tx_discard(1, NULL, NULL);
	rsw_sched_port(st, &qp, 0, now + 11 * TSC_HZ + 1);
	expect_pfc_frame(0, 0x08, 0);
	assert_int_equal(st->qos.pfc[0][3][RSW_FC_tx_xoff] - xoff0, 3);
	assert_int_equal(st->qos.pfc[0][3][RSW_FC_tx_xon] - xon0, 2);
	expect_idle();
	sched_reset();
}

/* Dynamic thresholds: XOFF when the PG passes alpha × free buffer. */
static void
test_pfc_generate_dynamic(void **state)
{
	struct rsw_qos_params qp;
	unsigned int i;

	(void)state;
	sched_reset();
	qp_init(&qp);
	qp.lossless = 0x08;
	qp.dynamic = 1;
	qp.total = 100000;
	qp.headroom_reserved = 20000;
	qp.alpha_q16 = 65536 / 4; /* xoff = (80000 − used) / 4 */
	qp.xon_offset = 4000;
	qp.quanta = 50;
	rsw_qos.port[0].speed_bps = 10000000000ull; /* 50 quanta = 2560 ns */
	/* 15 frames of 1000: used 15000, xoff 16250: nothing. */
	for (i = 0; i < 15; i++)
		q_put(1, 3, 0, 1000, 0, i);
	rsw_sched_port(st, &qp, 0, T0);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	/* 17000 ≥ (80000 − 17000) / 4 = 15750: XOFF. */
	q_put(1, 3, 0, 1000, 0, 15);
	q_put(1, 3, 0, 1000, 0, 16);
	rsw_sched_port(st, &qp, 0, T0);
	expect_pfc_frame(0, 0x08, 50);
	/* Other traffic filling the buffer lowers the threshold, never below zero: no XON while
	 * the PG holds bytes, no refresh before half the pause. */
	for (i = 0; i < 70; i++)
		q_put(2, 0, 2, 1000, 0, i);
	assert_int_equal(rsw_pfc_xoff(&qp, rsw_qos.used), 0);
	rsw_sched_port(st, &qp, 0, T0 + 1);
	assert_int_equal(rte_ring_count(txr[0]), 0);
	sched_drain(&qp, 2, T0);
	tx_discard(2, NULL, NULL);
	sched_drain(&qp, 1, T0);
	tx_discard(1, NULL, NULL);
	rsw_sched_port(st, &qp, 0, T0 + 2);
	expect_pfc_frame(0, 0x08, 0);
	expect_idle();
	sched_reset();
}

/* ECN at dequeue: the bytes still queued behind the packet decide. */
static void
test_sched_ecn_dequeue(void **state)
{
	uint64_t marked0 = st->qos.q[1][0][RSW_QC_ecn_marked];
	uint64_t drop0 = st->qos.q[1][0][RSW_QC_dropped_packets];
	uint64_t drop3 = st->qos.q[1][3][RSW_QC_dropped_packets];
	struct rsw_qos_params qp;
	struct rte_mbuf *out[64];
	unsigned int n, i, ce = 0;

	(void)state;
	sched_reset();
	qp_init(&qp);
	qp.lossless = 0x08;
	set_ecn(&qp, 0, 5000, 10000, 1.0);
	set_ecn(&qp, 3, 5000, 10000, 1.0);
	/* 20 ECT(0) frames of 1000 bytes: frame i has (19 − i) × 1000 behind it. Frames 0-9 see
	 * ≥ kmax (marked), 15-19 ≤ kmin (not), 10-14 on the curve. */
	for (i = 0; i < 20; i++)
		q_put(1, 0, 0, 1000, 2, i);
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0), 20);
	n = tx_take(1, out, RTE_DIM(out));
	assert_int_equal(n, 20);
	for (i = 0; i < n; i++) {
		const uint8_t *ip = rte_pktmbuf_mtod_offset(out[i], const uint8_t *, 14);

		assert_int_equal(frame_seq(out[i]), i);
		assert_int_equal(ut_ref_cksum(ip, 20), 0);
		assert_int_equal(ip[1] >> 2, 0);
		if (i < 10)
			assert_int_equal(ip[1] & 3, 3);
		else if (i >= 15)
			assert_int_equal(ip[1] & 3, 2);
		ce += (ip[1] & 3) == 3;
	}
	assert_int_equal(st->qos.q[1][0][RSW_QC_ecn_marked] - marked0, ce);
	rte_pktmbuf_free_bulk(out, n);

	/* Not-ECT on the lossy ECN TC: dropped on the same curve (frames 0-9 surely). Not-ECT on
	 * the lossless TC 3: never dropped, never changed. */
	for (i = 0; i < 20; i++)
		q_put(1, 0, 0, 1000, 0, i);
	for (i = 0; i < 20; i++)
		q_put(1, 3, 2, 1000, 0, i);
	sched_drain(&qp, 1, T0);
	n = tx_take(1, out, RTE_DIM(out));
	{
		unsigned int got0 = 0, got3 = 0, dropped;

		for (i = 0; i < n; i++) {
			const uint8_t *ip = rte_pktmbuf_mtod_offset(out[i], const uint8_t *, 14);

			assert_int_equal(ip[1] & 3, 0);
			if (frame_tc(out[i]) == 3) {
				assert_int_equal(frame_seq(out[i]), got3++);
			} else {
				assert_true(frame_seq(out[i]) >= 10);
				got0++;
			}
		}
		dropped = (unsigned int)(st->qos.q[1][0][RSW_QC_dropped_packets] - drop0);
		assert_int_equal(got3, 20);
		assert_int_equal(got0 + dropped, 20);
		assert_true(dropped >= 10 && dropped <= 14);
		assert_int_equal(st->qos.q[1][3][RSW_QC_dropped_packets], drop3);
	}
	assert_int_equal(st->qos.q[1][0][RSW_QC_ecn_marked] - marked0, ce);
	rte_pktmbuf_free_bulk(out, n);
	expect_idle();
	sched_reset();
}

/* Watchdog action drop: the stormed queue is flushed, its buffer released. */
static void
test_sched_storm_flush(void **state)
{
	uint64_t drop3 = st->qos.q[1][3][RSW_QC_dropped_packets];
	uint64_t deq3 = st->qos.q[1][3][RSW_QC_dequeued_packets];
	struct rsw_qos_params qp;
	unsigned int i;

	(void)state;
	sched_reset();
	qp_init(&qp);
	qp.lossless = 0x08;
	set_paused(1, 3, T0 + TSC_HZ);
	for (i = 0; i < 50; i++)
		q_put(1, 3, i % 2 ? 0 : 2, 500, 0, i);
	for (i = 0; i < 5; i++)
		q_put(1, 0, 0, 500, 0, i);
	/* Paused: only TC 0 leaves. */
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0), 5);
	assert_int_equal(tx_discard(1, NULL, NULL), 5);
	assert_int_equal(rsw_qos.used, 50 * 500);
	rsw_qos.port[1].storm_drop[3] = 1;
	assert_int_equal(rsw_sched_port(st, &qp, 1, T0 + 1), 50);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(st->qos.q[1][3][RSW_QC_dropped_packets] - drop3, 50);
	assert_int_equal(st->qos.q[1][3][RSW_QC_dequeued_packets] - deq3, 0);
	expect_idle();
	sched_reset();
}

/*
 * A frame of the control thread queued on (out, tc) as rsw_ctl_send (orig: made by railsw)
 * or rsw_ctl_forward (a received frame going on) queue it.
 */
static void
ctl_put(uint16_t out, uint8_t tc, bool orig, uint32_t seq)
{
	struct ut_frame f;
	struct rte_mbuf *m;
	struct rsw_mbuf_meta *meta;

	frame(&f, 0, 0, 0, 100, tc, seq);
	m = ut_mbuf(pool, &f);
	assert_non_null(m);
	meta = rsw_meta(m);
	memset(meta, 0, sizeof(*meta));
	meta->tc = tc;
	meta->kind = RSW_PK_IPV4;
	meta->l3_off = 14;
	meta->flags = RSW_MF_NOACCT | (orig ? RSW_MF_ORIG : 0);
	__atomic_fetch_add(&rsw_qos.port[out].ctl_frames, 1, __ATOMIC_RELAXED);
	if (orig)
		__atomic_fetch_add(&rsw_qos.port[out].orig_frames, 1, __ATOMIC_RELAXED);
	assert_int_equal(rte_ring_enqueue(rsw_qos.port[out].ring[tc], m), 0);
}

/* Fill port p's PMD ring with dummy entries (dummy) but room free slots. */
static void
txr_fill(uint16_t p, struct rte_mbuf *dummy, unsigned int room)
{
	while (rte_ring_free_count(txr[p]) > room)
		assert_int_equal(rte_ring_enqueue(txr[p], dummy), 0);
}

/* Empty port p's PMD ring: the dummies dropped, the frames freed. @return frames. */
static unsigned int
txr_empty(uint16_t p, struct rte_mbuf *dummy)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(txr[p], (void **)&m) == 0) {
		if (m == dummy)
			continue;
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/*
 * The totals of `show drops` in the scheduler: a received frame is counted forwarded when the
 * PMD takes it, wherever it comes from (the ring, the pending list; a frame the control thread
 * forwards for its neighbour too), a frame railsw made never; the PMD taking a part of the
 * pending list counts the right ones. Watchdog drops count received frames only, under
 * dropped_packets and watchdog_drops.
 */
static void
test_sched_totals(void **state)
{
	uint64_t fwd = st->tot[RSW_TOT_forwarded];
	uint64_t drop = st->qos.q[1][0][RSW_QC_dropped_packets];
	uint64_t wd = st->qos.q[1][0][RSW_QC_watchdog_drops];
	struct rte_mbuf *dummy;
	struct rsw_qos_params qp;

	(void)state;
	sched_reset();
	qp_init(&qp);
	dummy = rte_pktmbuf_alloc(pool);
	assert_non_null(dummy);
	/* Received, received, made by railsw, received, forwarded by the control thread. */
	q_put(1, 0, 0, 200, 0, 0);
	q_put(1, 0, 0, 200, 0, 1);
	ctl_put(1, 0, true, 2);
	q_put(1, 0, 0, 200, 0, 3);
	ctl_put(1, 0, false, 4);
	/* The PMD takes two: both forwarded; three wait, railsw's own first. */
	txr_fill(1, dummy, 2);
	rsw_sched_port(st, &qp, 1, T0);
	assert_int_equal(st->tot[RSW_TOT_forwarded] - fwd, 2);
	assert_int_equal(rsw_sched[1].n_pending, 3);
	assert_int_equal(rsw_qos.port[1].orig_frames, 0); /* off the staging array */
	assert_int_equal(txr_empty(1, dummy), 2);
	/* It takes one: railsw's own, not forwarded. */
	txr_fill(1, dummy, 1);
	rsw_sched_port(st, &qp, 1, T0 + 1);
	assert_int_equal(st->tot[RSW_TOT_forwarded] - fwd, 2);
	assert_int_equal(rsw_sched[1].n_pending, 2);
	assert_int_equal(txr_empty(1, dummy), 1);
	/* The rest: both forwarded. */
	sched_drain(&qp, 1, T0 + 2);
	assert_int_equal(st->tot[RSW_TOT_forwarded] - fwd, 4);
	assert_int_equal(txr_empty(1, dummy), 2);

	/* Watchdog drop of a paused queue: two received frames, one of railsw's. */
	set_paused(1, 0, T0 + TSC_HZ);
	q_put(1, 0, 0, 200, 0, 5);
	ctl_put(1, 0, true, 6);
	q_put(1, 0, 0, 200, 0, 7);
	rsw_qos.port[1].storm_drop[0] = 1;
	sched_drain(&qp, 1, T0 + 3);
	assert_int_equal(st->qos.q[1][0][RSW_QC_dropped_packets] - drop, 2);
	assert_int_equal(st->qos.q[1][0][RSW_QC_watchdog_drops] - wd, 2);
	assert_int_equal(st->tot[RSW_TOT_forwarded] - fwd, 4);
	rte_pktmbuf_free(dummy);
	expect_idle();
	sched_reset();
}

/* Port 1's drops so far (tail, ECN, watchdog, lossless), all TCs. */
static uint64_t
q1_drops(void)
{
	uint64_t d = 0;
	int tc;

	for (tc = 0; tc < RSW_N_TC; tc++)
		d += st->qos.q[1][tc][RSW_QC_dropped_packets] +
		     st->qos.q[1][tc][RSW_QC_lossless_drops];
	return d;
}

/*
 * Buffer accounting end to end: bursts through rsw_process_burst (lossy, lossless, ECN at
 * dequeue then at enqueue, tail drop) from ports 0 and 2 to port 1, drained by rsw_sched_port on
 * a shaped port between the bursts. The senders honour PFC (no lossless frame from a port while
 * its XOFF is in force), as the headroom assumes. The gauges agree after every step, never
 * wrap, and end at exactly zero; every forwarded frame is transmitted or counted dropped exactly
 * once; no lossless drop; the pool is back.
 */
static void
buffer_accounting(bool ct)
{
	static const uint8_t dscp[4] = {0, 8, 26, 48}; /* TC 0, 1 (ECN), 3 (lossless), 6 */
	uint64_t s = 7, now = T0, before_q[RSW_N_TC][RSW_N_QUEUE_CTRS], xoff_before;
	uint64_t adm_drop = 0, deq_drop = 0, sent = 0, d, rx_fwd = 0, paused_skip = 0;
	struct rsw_qos_params qp;
	struct ut_frame f;
	struct rte_mbuf *pkts[RSW_BURST];
	unsigned int b, i;
	uint16_t p;
	uint64_t ct_frames = 0;
	int tc;

	sched_reset();
	rsw_dp.cut_through = ct;
	if (ct) {
		/* Cut-through stamps with the TSC: the whole run on the real clock. */
		rsw_qos.tsc_hz = rte_get_tsc_hz();
		now = rte_rdtsc();
	}
	memcpy(before_q, st->qos.q[1], sizeof(before_q));
	xoff_before = st->qos.pfc[0][3][RSW_FC_tx_xoff] + st->qos.pfc[2][3][RSW_FC_tx_xoff];
	for (p = 0; p < N_PORTS; p++)
		rsw_qos.port[p].speed_bps = 100000000;
	for (b = 0; b < 400; b++) {
		uint16_t in = b % 2 ? 0 : 2, want = (uint16_t)(1 + ut_rand(&s) % RSW_BURST), n = 0;

		/* Half-way, ECN moves from dequeue to enqueue (admission reads the tables). */
		tqos->ecn_enqueue = b >= 200;
		qp = *tqos;
		for (i = 0; i < want; i++) {
			uint64_t r = ut_rand(&s);
			uint8_t k = (uint8_t)(r % 4), ecn = (uint8_t)((r >> 8) % 3);

			if (k == 2 && (rsw_sched[in].xoff_sent & 0x08)) {
				paused_skip++;
				continue;
			}
			frame(&f, in, dscp[k], ecn, (uint16_t)(64 + (r >> 16) % 1400), 0, i);
			pkts[n] = ut_mbuf(pool, &f);
			assert_non_null(pkts[n]);
			n++;
		}
		d = q1_drops();
		rsw_process_burst(st, in, pkts, n);
		ct_frames += rte_ring_count(txr[1]); /* sent by the burst itself */
		rx_fwd += n;
		adm_drop += q1_drops() - d;
		expect_gauges_consistent();
		assert_true(rsw_qos.port[in].pg_bytes[3] <= qp.xoff + qp.headroom);

		/* The owner drains a little (100M for 20 µs: 250 bytes); the ingress port's owner
		 * generates PFC. */
		now = ct ? rte_rdtsc() : now + 20000;
		d = q1_drops();
		rsw_sched_port(st, &qp, 1, now);
		deq_drop += q1_drops() - d;
		rsw_sched_port(st, &qp, in, now);
		sent += tx_discard(1, NULL, NULL);
		tx_discard(in, NULL, NULL); /* PFC frames */
		expect_gauges_consistent();
	}
	/* Some of everything happened. */
	assert_true(rsw_qos.used > 0);
	assert_true(adm_drop > 0);
	assert_true(paused_skip > 0);
	assert_true(st->qos.pfc[0][3][RSW_FC_tx_xoff] + st->qos.pfc[2][3][RSW_FC_tx_xoff] >
		    xoff_before);
	/* Drain to the end. */
	rsw_qos.port[1].speed_bps = 0;
	for (i = 0; i < 10000 && rsw_qos.used > 0; i++) {
		d = q1_drops();
		rsw_sched_port(st, &qp, 1, now);
		deq_drop += q1_drops() - d;
		sent += tx_discard(1, NULL, NULL);
		expect_gauges_consistent();
	}
	sched_drain(&qp, 1, now);
	sent += tx_discard(1, NULL, NULL);
	/* XON on the ingress ports. */
	for (p = 0; p < N_PORTS; p++) {
		rsw_sched_port(st, &qp, p, now + rsw_qos.tsc_hz);
		tx_discard(p, NULL, NULL);
		assert_int_equal(rsw_sched[p].xoff_sent, 0);
	}
	tqos->ecn_enqueue = 0;
	/* On the simulated clock the shaper sends enough to see ECN drop at dequeue; on the real
	 * one (cut-through) the run is too short to count on it. */
	assert_true(ct || deq_drop > 0);
	/* Exactly zero, and nothing lost: rx = enqueued + admission drops; enqueued = dequeued;
	 * dequeued = sent + dropped at dequeue. */
	{
		uint64_t enq = 0, deq = 0, lossless = 0, marked = 0;

		for (tc = 0; tc < RSW_N_TC; tc++) {
			enq += st->qos.q[1][tc][RSW_QC_enqueued_packets] -
			       before_q[tc][RSW_QC_enqueued_packets];
			deq += st->qos.q[1][tc][RSW_QC_dequeued_packets] -
			       before_q[tc][RSW_QC_dequeued_packets];
			lossless += st->qos.q[1][tc][RSW_QC_lossless_drops] -
				    before_q[tc][RSW_QC_lossless_drops];
			marked += st->qos.q[1][tc][RSW_QC_ecn_marked] -
				  before_q[tc][RSW_QC_ecn_marked];
			assert_int_equal(st->qos.q[1][tc][RSW_QC_enqueued_bytes] -
						 before_q[tc][RSW_QC_enqueued_bytes],
					 st->qos.q[1][tc][RSW_QC_dequeued_bytes] -
						 before_q[tc][RSW_QC_dequeued_bytes]);
		}
		assert_int_equal(rx_fwd, enq + adm_drop);
		assert_int_equal(enq, deq);
		assert_int_equal(deq, sent + deq_drop);
		assert_true(marked > 0);
		/* The headroom covers one burst after XOFF: no lossless drop. */
		assert_int_equal(lossless, 0);
	}
	/* With cut-through, frames that found port 1 idle left with their burst, the rest
	 * queued: both paths ran, and the sums above hold over both. */
	if (ct)
		assert_true(ct_frames > 0 && ct_frames < sent);
	else
		assert_int_equal(ct_frames, 0);
	rsw_dp.cut_through = false;
	expect_idle();
	sched_reset();
}

static void
test_buffer_accounting(void **state)
{
	(void)state;
	buffer_accounting(false);
}

static void
test_buffer_accounting_cut_through(void **state)
{
	(void)state;
	buffer_accounting(true);
}

/* A burst of n frames of TC tc from port 0 to port 1, sequence numbers from seq. */
static void
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

/* Port 1's PMD sent exactly n frames of TC tc, sequence numbers seq, seq + 1, ...; freed. */
static void
expect_sent(unsigned int n, uint8_t tc, uint32_t seq)
{
	struct rte_mbuf *m[64];
	unsigned int k, i;

	k = tx_take(1, m, RTE_DIM(m));
	assert_int_equal(k, n);
	for (i = 0; i < k; i++) {
		assert_int_equal(frame_tc(m[i]), tc);
		assert_int_equal(frame_seq(m[i]), seq + i);
	}
	rte_pktmbuf_free_bulk(m, k);
}

/*
 * Cut-through: a burst to an idle port this lcore owns goes to the PMD at once, counted
 * enqueued, dequeued and transmitted, never in the buffer. It queues instead when its TC is
 * paused, when the port has a backlog (then later bursts queue behind it, in order), when the
 * shaper has no tokens, when ECN at dequeue could mark it, and when another lcore owns the port.
 */
static void
test_cut_through(void **state)
{
	struct rsw_qos_params qp = *tqos;
	uint64_t q0[RSW_N_QUEUE_CTRS], tx0 = st->port[1].c[RSW_PC_tx_packets];
	uint64_t txb0 = st->port[1].c[RSW_PC_tx_bytes];

	(void)state;
	sched_reset();
	rsw_dp.cut_through = true;
	memcpy(q0, st->qos.q[1][0], sizeof(q0));

	/* Idle: straight out, in order. */
	burst_to_p1(0, 5, 100, 0);
	assert_int_equal(rte_ring_count(rsw_qos.port[1].ring[0]), 0);
	assert_int_equal(rsw_qos.used, 0);
	expect_sent(5, 0, 0);
	assert_int_equal(st->qos.q[1][0][RSW_QC_enqueued_packets] - q0[RSW_QC_enqueued_packets], 5);
	assert_int_equal(st->qos.q[1][0][RSW_QC_dequeued_packets] - q0[RSW_QC_dequeued_packets], 5);
	assert_int_equal(st->qos.q[1][0][RSW_QC_enqueued_bytes] - q0[RSW_QC_enqueued_bytes], 500);
	assert_int_equal(st->qos.q[1][0][RSW_QC_dequeued_bytes] - q0[RSW_QC_dequeued_bytes], 500);
	assert_int_equal(st->port[1].c[RSW_PC_tx_packets] - tx0, 5);
	assert_int_equal(st->port[1].c[RSW_PC_tx_bytes] - txb0, 500);
	expect_idle();

	/* TC 0 paused by PFC: queued; TC 2 behind that backlog queues too. */
	set_paused(1, 0, UINT64_MAX);
	burst_to_p1(0, 3, 100, 10);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(rsw_qos.port[1].q_bytes[0], 300);
	burst_to_p1(2, 2, 100, 20);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(rsw_qos.port[1].q_bytes[2], 200);
	sched_drain(&qp, 1, T0);
	expect_sent(2, 2, 20);
	set_paused(1, 0, 0);
	sched_drain(&qp, 1, T0);
	expect_sent(3, 0, 10);
	expect_idle();

	/* Another lcore owns port 1: queued for it. */
	rsw_dp.ports[1].owner = (uint16_t)(rte_lcore_id() + 1);
	burst_to_p1(0, 2, 100, 30);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(rte_ring_count(rsw_qos.port[1].ring[0]), 2);
	rsw_dp.ports[1].owner = (uint16_t)rte_lcore_id();
	sched_drain(&qp, 1, T0);
	expect_sent(2, 0, 30);

	/* ECN at dequeue on TC 1 from 2000 bytes: a burst of more than kmin queues, a smaller
	 * one does not. */
	burst_to_p1(1, 4, 400, 40); /* 1600 bytes */
	expect_sent(4, 1, 40);
	burst_to_p1(1, 6, 400, 50); /* 2400 bytes */
	assert_int_equal(rte_ring_count(txr[1]), 0);
	sched_drain(&qp, 1, T0);
	expect_sent(6, 1, 50);
	expect_idle();

	/* A shaper with no tokens left: queued. */
	rsw_qos.tsc_hz = rte_get_tsc_hz();
	rsw_qos.port[1].speed_bps = 1000;                          /* 125 bytes/s */
	rsw_shaper_refill(&rsw_sched[1], 1000, 1500, rte_rdtsc()); /* a full bucket */
	rsw_sched[1].tokens_milli = 0;                             /* spent */
	burst_to_p1(0, 1, 100, 60);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(rsw_qos.port[1].q_bytes[0], 100);
	rsw_qos.port[1].speed_bps = 0;
	sched_drain(&qp, 1, T0);
	expect_sent(1, 0, 60);

	rsw_dp.cut_through = false;
	expect_idle();
	sched_reset();
}

/* Set-up: EAL is up; ring PMD ports, tables with one connected route. */

static int
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

static int
ring_ports_start(void)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	uint16_t p;
	int ret;

	for (p = 0; p < N_PORTS; p++) {
		snprintf(name, sizeof(name), "uq_pmd_rx%u", p);
		rxr[p] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "uq_pmd_tx%u", p);
		txr[p] = rte_ring_create(name, TXRING_SIZE, SOCKET_ID_ANY,
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rxr[p] == NULL || txr[p] == NULL)
			return -1;
		snprintf(name, sizeof(name), "uq%u", p);
		ret = rte_eth_from_rings(name, &rxr[p], 1, &txr[p], 1, SOCKET_ID_ANY);
		if (ret < 0)
			return -1;
		eth_port[p] = (uint16_t)ret;
		if (rte_eth_dev_configure(eth_port[p], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(eth_port[p], 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
		    rte_eth_tx_queue_setup(eth_port[p], 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(eth_port[p]) != 0)
			return -1;
	}
	return 0;
}

static int
setup(void **state)
{
	uint16_t p;

	(void)state;
	if (rsw_stats_init() != 0 || rsw_fib_init(1) != 0)
		return -1;
	st = rsw_stats[rte_lcore_id()];
	pool = rte_pktmbuf_pool_create("ut_qos", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (st == NULL || pool == NULL)
		return -1;
	if (ring_ports_start() != 0)
		return -1;
	rsw_dp.pool = pool;
	for (p = 0; p < N_PORTS; p++) {
		struct rsw_port_rt *pr = &rsw_dp.ports[p];
		const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)(p + 1)};

		memcpy(&pr->mac, mac, 6);
		pr->mtu = 1500;
		pr->eth_port = eth_port[p];
		pr->owner = (uint16_t)rte_lcore_id();
	}
	if (rsw_dp_init(N_PORTS) != 0 || build_tables() != 0)
		return -1;
	rsw_qos.tsc_hz = TSC_HZ;
	pool_start = rte_mempool_in_use_count(pool);
	return 0;
}

static int
teardown(void **state)
{
	char name[32];
	uint16_t p;

	(void)state;
	rsw_dp_fini();
	for (p = 0; p < N_PORTS; p++) {
		if (eth_port[p] != RTE_MAX_ETHPORTS) {
			rte_eth_dev_stop(eth_port[p]);
			rte_eth_dev_close(eth_port[p]);
			snprintf(name, sizeof(name), "net_ring_uq%u", p);
			rte_vdev_uninit(name);
		}
		rte_ring_free(rxr[p]);
		rte_ring_free(txr[p]);
	}
	rsw_fib_fini();
	rsw_stats_fini();
	rte_mempool_free(pool);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* Bad input first. */
		cmocka_unit_test(test_pfc_rx_bad),
		cmocka_unit_test(test_ecn_decide),
		cmocka_unit_test(test_ecn_mark_ipv4),
		cmocka_unit_test(test_ecn_mark_ipv6),
		cmocka_unit_test(test_pfc_pause_ticks),
		cmocka_unit_test(test_pfc_encode),
		cmocka_unit_test(test_pfc_rx_xoff_xon),
		cmocka_unit_test(test_pfc_rx_lossy_and_pause),
		cmocka_unit_test(test_params_from_cfg),
		cmocka_unit_test(test_sched_idle),
		cmocka_unit_test(test_sched_strict),
		cmocka_unit_test(test_sched_dwrr),
		cmocka_unit_test(test_sched_shaper),
		cmocka_unit_test(test_sched_paused),
		cmocka_unit_test(test_pfc_generate),
		cmocka_unit_test(test_pfc_generate_dynamic),
		cmocka_unit_test(test_sched_ecn_dequeue),
		cmocka_unit_test(test_sched_storm_flush),
		cmocka_unit_test(test_sched_totals),
		cmocka_unit_test(test_buffer_accounting),
		cmocka_unit_test(test_cut_through),
		cmocka_unit_test(test_buffer_accounting_cut_through),
	};
	int ret;

	if (ut_eal_init("qos") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, setup, teardown);
	rte_eal_cleanup();
	return ret;
}
