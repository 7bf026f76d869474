/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of step 10 of the packet path (docs/qos.md): the port scheduler (sched.c:
 * strict + DWRR, shaper, received pause, PFC generation, ECN at dequeue, watchdog flush, the
 * totals of forwarded frames) on ring PMD ports under a simulated TSC clock
 * (test_qos_common.h), frames queued on the egress rings as admission would queue them.
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

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_fib.h"
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"
#include "test_qos_common.h"

static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

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

/*
 * A worker descheduled for 5 ms of every 20 (the scheduler does not run then): at 10M over
 * 1 s, the default bucket (two frames of 1538 + 38 B, 2.5 ms at 10M, over 100 µs) loses the
 * rest of each gap (2.5 of 20 ms: 1/8 of the line), and switch.shaper_burst_us of 10 ms keeps
 * the average within 2 %. @return the wire bytes sent.
 */
static uint64_t
shaper_gaps(uint32_t burst_us)
{
	struct rsw_qos_params qp;
	uint64_t step = 20000, now = T0, end = T0 + TSC_HZ, wire = 0;
	uint32_t seq = 0;

	sched_reset();
	qp_init(&qp);
	rsw_qos.shaper_burst_us = burst_us;
	rsw_qos.port[1].speed_bps = 10000000;
	for (; now <= end; now += step) {
		if ((now - T0) % 20000000 >= 15000000)
			continue; /* descheduled */
		while (rsw_qos.port[1].q_bytes[0] < 64u * 1000)
			q_put(1, 0, 0, 1000, 0, seq++);
		rsw_sched_port(st, &qp, 1, now);
		tx_discard(1, &wire, NULL);
	}
	rsw_qos.port[1].speed_bps = 0;
	sched_drain(&qp, 1, now);
	tx_discard(1, NULL, NULL);
	sched_reset();
	rsw_qos.shaper_burst_us = 0;
	return wire;
}

static void
test_sched_shaper_burst(void **state)
{
	uint64_t line = 10000000 / 8, short_bucket, long_bucket;

	(void)state;
	short_bucket = shaper_gaps(100);
	long_bucket = shaper_gaps(10000);
	if (short_bucket > line * 0.89 || short_bucket < line * 0.85)
		fail_msg("100 µs bucket: %" PRIu64 " wire bytes, expected about 7/8 of %" PRIu64,
			 short_bucket, line);
	if (long_bucket < line * 0.98 || long_bucket > line * 1.02)
		fail_msg("10 ms bucket: %" PRIu64 " wire bytes, expected %" PRIu64 " within 2 %%",
			 long_bucket, line);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_idle),
		cmocka_unit_test(test_sched_strict),
		cmocka_unit_test(test_sched_dwrr),
		cmocka_unit_test(test_sched_shaper),
		cmocka_unit_test(test_sched_shaper_burst),
		cmocka_unit_test(test_sched_paused),
		cmocka_unit_test(test_pfc_generate),
		cmocka_unit_test(test_pfc_generate_dynamic),
		cmocka_unit_test(test_sched_ecn_dequeue),
		cmocka_unit_test(test_sched_storm_flush),
		cmocka_unit_test(test_sched_totals),
	};

	return ut_main("sched", tests, RTE_DIM(tests), setup, ut_ring_ports_teardown, NULL, 0);
}
