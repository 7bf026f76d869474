/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the shared buffer end to end (docs/qos.md): buffer accounting
 * through rsw_process_burst (admission) and rsw_sched_port (release), whose gauges must agree
 * at every step, never wrap, and come back to exactly zero with the mbuf pool where it
 * started, with cut-through off and on; and cut-through itself, when a burst goes to the PMD
 * at once and when it queues. On the fixtures of test_qos_common.h.
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
 * Cut-through: a burst to a port this lcore owns, its TC with nothing queued, goes to the PMD at
 * once, counted enqueued, dequeued and transmitted, never in the buffer. It queues instead when its TC is
 * paused, when its TC has a backlog (then later bursts queue behind it, in order; another TC
 * goes straight), when the shaper has no tokens, when ECN at dequeue could mark it, and when
 * another lcore owns the port.
 */
static void
test_cut_through(void **state)
{
	struct rsw_qos_params qp = *tqos;
	uint64_t q0[RSW_N_QUEUE_CTRS], tx0 = st->port[1].c[RSW_PC_tx_packets];
	uint64_t txb0 = st->port[1].c[RSW_PC_tx_bytes], now;

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

	/* TC 0 paused by PFC: queued; TC 2, with nothing queued, goes straight past that
	 * backlog; TC 0 unpaused queues behind its own backlog, in order. */
	set_paused(1, 0, UINT64_MAX);
	burst_to_p1(0, 3, 100, 10);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(rsw_qos.port[1].q_bytes[0], 300);
	burst_to_p1(2, 2, 100, 20);
	assert_int_equal(rsw_qos.port[1].q_bytes[2], 0);
	expect_sent(2, 2, 20);
	set_paused(1, 0, 0);
	burst_to_p1(0, 2, 100, 13);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(rsw_qos.port[1].q_bytes[0], 500);
	sched_drain(&qp, 1, T0);
	expect_sent(5, 0, 10);
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
	rsw_qos.port[1].speed_bps = 1000; /* 125 bytes/s */
	now = rte_rdtsc();
	assert_true(rsw_shaper_on(1, now)); /* a full bucket */
	assert_true(rsw_shaper_take(1, now, rsw_shaper_avail(1, now), false));
	assert_int_equal(rsw_shaper_avail(1, now), 0); /* spent */
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buffer_accounting),
		cmocka_unit_test(test_cut_through),
		cmocka_unit_test(test_buffer_accounting_cut_through),
	};

	return ut_main("buffer", tests, RTE_DIM(tests), setup, ut_ring_ports_teardown, NULL, 0);
}
