/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of transmit with several workers: the send-now decision of a worker that is not
 * the egress port's owner (its own tx queue, or queued for the owner), frames the PMD refuses
 * on that queue, the owner's full drain (every frame it may send, not one round of 32), and the
 * wake-up of an owner asleep when another worker queues for it. On the fixtures of
 * test_qos_common.h: port 1's tx queue 0 (the owner's) is txr[1], its tx queue 1 txr1[1].
 */

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_fib.h"
#include "rsw_link.h"
#include "rsw_qos.h"
#include "rsw_queue.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"
#include "test_qos_common.h"

#define OTHER_LCORE 7 /* the owner when this lcore is not (no thread runs on it) */

/* Ring r (a tx queue of port 1) holds exactly n frames of TC tc, seq, seq + 1, ...; freed. */
static void
expect_on(struct rte_ring *r, unsigned int n, uint8_t tc, uint32_t seq)
{
	struct rte_mbuf *m[256];
	unsigned int k, i;

	k = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL);
	assert_int_equal(k, n);
	for (i = 0; i < k; i++) {
		assert_int_equal(frame_tc(m[i]), tc);
		assert_int_equal(frame_seq(m[i]), seq + i);
	}
	rte_pktmbuf_free_bulk(m, k);
}

/* Frames queued in port 1's egress ring of TC tc. */
static unsigned int
queued(uint8_t tc)
{
	return rte_ring_count(rsw_qos.port[1].ring[tc]);
}

/* This lcore is a worker of port 1 that is not its owner, with tx queue q (0: none). */
static void
not_owner(uint16_t q)
{
	rsw_dp.ports[1].owner = OTHER_LCORE;
	rsw_txq[rte_lcore_id()][1] = q;
}

/* Back to the fixtures' state: this lcore owns port 1. */
static void
owner_again(void)
{
	rsw_dp.ports[1].owner = (uint16_t)rte_lcore_id();
	rsw_txq[rte_lcore_id()][1] = 0;
}

/*
 * The send-now decision of a worker that is not port 1's owner: with a tx queue of its own on
 * the port, a port with nothing queued gets its frames straight on that queue (counted sent, enqueued and
 * dequeued, never in the buffer); they queue for the owner instead when it has no queue of its
 * own, when the port has frames queued (the owner's pending list too), when their TC is paused,
 * when the shaper (shared with the owner) has no tokens, and when the port has impairments (one
 * sender). Frames queued behind the backlog go out after it, in order, on the owner's queue.
 */
static void
test_send_now(void **state)
{
	struct rsw_link_impair dummy;
	uint64_t tx0 = st->port[1].c[RSW_PC_tx_packets], now;

	(void)state;
	sched_reset();
	rsw_dp.cut_through = true;
	rsw_qos.tsc_hz = rte_get_tsc_hz();

	/* Idle, its own queue 1: straight out on queue 1, in order. */
	not_owner(1);
	burst_to_p1(0, 5, 100, 0);
	expect_on(txr1[1], 5, 0, 0);
	assert_int_equal(rte_ring_count(txr[1]), 0);
	assert_int_equal(queued(0), 0);
	assert_int_equal(st->port[1].c[RSW_PC_tx_packets] - tx0, 5);
	expect_idle();

	/* No queue of its own: queued for the owner. */
	not_owner(0);
	burst_to_p1(0, 3, 100, 10);
	assert_int_equal(queued(0), 3);
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	/* Its own queue, but TC 0 holds frames: queued behind them. TC 2, with nothing queued,
	 * goes straight on queue 1: the decision is per (port, TC). */
	not_owner(1);
	burst_to_p1(0, 2, 100, 13);
	burst_to_p1(2, 2, 100, 20);
	assert_int_equal(queued(0), 5);
	assert_int_equal(queued(2), 0);
	expect_on(txr1[1], 2, 2, 20);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 5, 0, 10);
	expect_idle();

	/* The owner's pending list is not empty: queued. */
	not_owner(1);
	rsw_qos.port[1].tx_pending = 1;
	burst_to_p1(0, 2, 100, 30);
	rsw_qos.port[1].tx_pending = 0;
	assert_int_equal(queued(0), 2);
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 30);

	/* Its TC paused by PFC: queued; another TC goes. */
	not_owner(1);
	set_paused(1, 0, UINT64_MAX);
	burst_to_p1(0, 2, 100, 40);
	assert_int_equal(queued(0), 2);
	set_paused(1, 0, 0);
	rsw_qos.port[1].paused_max = 0;
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 40);
	expect_idle();

	/* The shaper's tokens are the port's: the owner spent them, the other worker queues. */
	not_owner(1);
	rsw_qos.port[1].speed_bps = 1000; /* 125 bytes/s */
	now = rte_rdtsc();
	assert_true(rsw_shaper_on(1, now));
	assert_true(rsw_shaper_take(1, now, rsw_shaper_avail(1, now), false));
	burst_to_p1(0, 1, 100, 50);
	assert_int_equal(queued(0), 1);
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	rsw_qos.port[1].speed_bps = 0;
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 1, 0, 50);
	/* With tokens, a shaped port takes the burst's wire bytes from the shared bucket. */
	not_owner(1);
	rsw_qos.port[1].speed_bps = 10000000000ull;
	now = rte_rdtsc();
	burst_to_p1(0, 4, 100, 60);
	expect_on(txr1[1], 4, 0, 60);
	assert_true(rsw_shaper_avail(1, now) <= rsw_qos.port[1].sh_bucket - 4 * (100 + 24));
	rsw_qos.port[1].speed_bps = 0;

	/* Impairments: one sender, the owner. */
	memset(&dummy, 0, sizeof(dummy));
	rsw_links[1].im = &dummy;
	burst_to_p1(0, 2, 100, 70);
	rsw_links[1].im = NULL;
	assert_int_equal(queued(0), 2);
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 70);

	rsw_dp.cut_through = false;
	expect_idle();
	sched_reset();
}

/*
 * A worker descheduled after it read its burst's clock comes back with a clock older than the
 * shaper's bucket, while the owner has taken tokens at the present: a port far below its rate
 * still has the tokens, and the send-now decision finds them (judged at the stale clock alone,
 * the bucket looks spent and the frames would queue for the owner).
 */
static void
test_send_now_stale_clock(void **state)
{
	uint64_t hz = rte_get_tsc_hz(), present, stale;
	struct rsw_send_now sn = {0};

	(void)state;
	sched_reset();
	rsw_qos.tsc_hz = hz;
	not_owner(1);
	/* 10 Gb/s: a bucket of 100 us, 125,000 bytes; set up 50 ms ago and full since. */
	rsw_qos.port[1].speed_bps = 10000000000ull;
	rsw_qos.port[1].sh_speed = 0;
	present = rte_rdtsc();
	assert_true(rsw_shaper_on(1, present - hz / 20));
	/* The owner sends 1,000 bytes at the present: the bucket stays nearly full. */
	assert_true(rsw_shaper_take(1, present, 1000, false));
	assert_true(rsw_shaper_avail(1, rte_rdtsc()) >= rsw_qos.port[1].sh_bucket - 1000);
	/* A worker whose burst read the clock 1 ms ago (ten buckets' worth of time). */
	stale = present - hz / 1000;
	assert_true(rsw_shaper_avail(1, stale) == 0);
	assert_true(rsw_send_now_port(1, stale, &sn));
	assert_true(sn.shaped);
	assert_true(rsw_send_now_take(1, &sn, stale, 1000));
	rsw_qos.port[1].speed_bps = 0;
	owner_again();
	expect_idle();
	sched_reset();
}

/* A burst from port 0 to port 1 with frames of TC a and TC b alternating, n of each, sequence
 * numbers from seq (TC a) and seq + 100 (TC b). */
static void
mixed_to_p1(uint8_t a, uint8_t b, unsigned int n, uint32_t seq)
{
	struct rte_mbuf *pkts[RSW_BURST];
	struct ut_frame f;
	unsigned int i;

	for (i = 0; i < 2 * n; i++) {
		uint8_t tc = i % 2 ? b : a;

		frame(&f, 0, (uint8_t)(tc * 8), 0, 100, tc, seq + (i % 2 ? 100 : 0) + i / 2);
		pkts[i] = ut_mbuf(pool, &f);
		assert_non_null(pkts[i]);
	}
	rsw_process_burst(st, 0, pkts, (uint16_t)(2 * n));
}

/*
 * The send-now decision is per (port, TC): in one burst mixing TC 0 and TC 2, with a backlog of
 * TC 0 on port 1, the TC 2 frames go straight (on the other worker's queue, or the owner's
 * queue 0) and the TC 0 frames queue behind the backlog, in order. What blocks every TC: the
 * owner's pending list (frames of any TC the PMD refused) and frames of the control thread. On
 * a shaped port, a TC with nothing queued goes straight only when the bucket also holds the
 * bytes queued on the other TCs (theirs first).
 */
static void
test_send_now_per_tc(void **state)
{
	uint64_t now;

	(void)state;
	sched_reset();
	rsw_dp.cut_through = true;
	rsw_qos.tsc_hz = rte_get_tsc_hz();

	/* A backlog of TC 0 (queued for the owner by a worker without a queue of its own). */
	not_owner(0);
	burst_to_p1(0, 3, 100, 0);
	assert_int_equal(queued(0), 3);
	/* Another worker, its own queue 1: TC 2 straight, TC 0 behind its backlog. */
	not_owner(1);
	mixed_to_p1(0, 2, 4, 3);
	expect_on(txr1[1], 4, 2, 103);
	assert_int_equal(queued(0), 7);
	assert_int_equal(queued(2), 0);
	/* The owner itself: the same per TC, on queue 0. */
	owner_again();
	mixed_to_p1(0, 2, 2, 7);
	expect_on(txr[1], 2, 2, 107);
	assert_int_equal(queued(0), 9);
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 9, 0, 0);
	expect_idle();

	/* The pending list or frames of the control thread: every TC waits. */
	not_owner(1);
	rsw_qos.port[1].tx_pending = 1;
	burst_to_p1(2, 2, 100, 20);
	rsw_qos.port[1].tx_pending = 0;
	rsw_qos.port[1].ctl_frames = 1;
	burst_to_p1(4, 2, 100, 30);
	rsw_qos.port[1].ctl_frames = 0;
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	assert_int_equal(queued(2), 2);
	assert_int_equal(queued(4), 2);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	assert_int_equal(tx_discard(1, NULL, NULL), 4);
	expect_idle();

	/* Shaped: a backlog of TC 0 larger than the bucket keeps the tokens; TC 2 queues. */
	rsw_qos.port[1].speed_bps = 1000000; /* 1 Mb/s: a bucket of two 1538-byte frames */
	now = rte_rdtsc();
	assert_true(rsw_shaper_on(1, now));
	not_owner(0);
	burst_to_p1(0, 4, 1000, 40); /* 4000 bytes queued, more than the bucket */
	not_owner(1);
	burst_to_p1(2, 1, 100, 50);
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	assert_int_equal(queued(2), 1);
	rsw_qos.port[1].speed_bps = 0;
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	assert_int_equal(tx_discard(1, NULL, NULL), 5);
	/* A small backlog: the bucket holds it and the burst, which goes straight. */
	rsw_qos.port[1].speed_bps = 1000000;
	rsw_qos.port[1].sh_speed = 0; /* a fresh, full bucket */
	not_owner(0);
	burst_to_p1(0, 2, 100, 60);
	not_owner(1);
	burst_to_p1(2, 2, 100, 70);
	expect_on(txr1[1], 2, 2, 70);
	rsw_qos.port[1].speed_bps = 0;
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 60);

	rsw_dp.cut_through = false;
	expect_idle();
	sched_reset();
}

/*
 * After the owner sent a backlog of (port 1, TC 0) on tx queue 0, the NIC may still hold those
 * frames in that queue: the other workers keep their TC 0 frames off their own queues (queued
 * for the owner) until queue 0 has sent them at the port's speed (the hold); other TCs and the owner's own frames are not held; once it has passed, TC 0 goes
 * straight again. A port without other senders (n_txq 1) has no hold.
 */
static void
test_hold(void **state)
{
	uint64_t t0, hold, wire = 5 * (100 + RSW_WIRE_OVERHEAD);
	unsigned int spins;

	(void)state;
	sched_reset();
	rsw_dp.cut_through = true;
	rsw_qos.tsc_hz = rte_get_tsc_hz();
	memset(rsw_qos.port[1].hold_until, 0, sizeof(rsw_qos.port[1].hold_until));
	rsw_qos.port[1].hold_max = 0;

	/* One tx queue: the owner's drain leaves no hold. */
	rsw_dp.ports[1].n_txq = 1;
	not_owner(0);
	burst_to_p1(0, 5, 100, 0);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 5, 0, 0);
	assert_int_equal(rsw_qos.port[1].hold_until[0], 0);

	/* Two tx queues, 10 kb/s (the shaper's bucket, two 1538-byte frames, never limits here):
	 * 5 frames of 100 bytes hold TC 0 for 620 wire bytes at 10 kb/s, about 0.5 s. */
	rsw_dp.ports[1].n_txq = 2;
	rsw_qos.port[1].speed_bps = 10000;
	not_owner(0);
	burst_to_p1(0, 5, 100, 10);
	owner_again();
	t0 = rte_rdtsc();
	sched_drain(tqos, 1, t0);
	expect_on(txr[1], 5, 0, 10);
	hold = rsw_qos.port[1].hold_until[0];
	assert_true(hold >= t0 + wire * 8 * rsw_qos.tsc_hz / 10000);
	assert_true(hold < rte_rdtsc() + wire * 8 * rsw_qos.tsc_hz / 10000 + rsw_qos.tsc_hz / 100);
	assert_int_equal(rsw_qos.port[1].hold_until[2], 0);
	assert_int_equal(rsw_qos.port[1].q_bytes[0], 0);
	/* During the hold: TC 0 of another worker queues, TC 2 goes straight. */
	not_owner(1);
	burst_to_p1(0, 2, 100, 20);
	burst_to_p1(2, 2, 100, 30);
	assert_true(rte_rdtsc() < hold); /* the two bursts were decided within it */
	assert_int_equal(queued(0), 2);
	expect_on(txr1[1], 2, 2, 30);
	/* The owner's own TC 0 frames go on queue 0 behind its backlog. */
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 20);
	hold = rsw_qos.port[1].hold_until[0]; /* extended by the two */
	burst_to_p1(0, 1, 100, 22);
	expect_on(txr[1], 1, 0, 22);
	/* Once it has passed, TC 0 of another worker goes straight. */
	for (spins = 0; rte_rdtsc() <= hold; spins++) {
		struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000000};

		assert_true(spins < 10000); /* 10 s */
		nanosleep(&ts, NULL);
	}
	not_owner(1);
	burst_to_p1(0, 2, 100, 40);
	expect_on(txr1[1], 2, 0, 40);
	assert_int_equal(queued(0), 0);

	owner_again();
	rsw_qos.port[1].speed_bps = 0;
	rsw_dp.ports[1].n_txq = 0;
	rsw_dp.cut_through = false;
	expect_idle();
	sched_reset();
}

/*
 * A port set to keep one sender (impairments configured or being switched on at run time:
 * rsw_port_set_one_sender comes first) takes no direct send from another worker, even before
 * any impairment is in place; cleared, it does again.
 */
static void
test_one_sender(void **state)
{
	(void)state;
	sched_reset();
	rsw_dp.cut_through = true;
	rsw_qos.tsc_hz = rte_get_tsc_hz();
	not_owner(1);
	rsw_port_set_one_sender(1, true);
	assert_null(rsw_links[1].im);
	burst_to_p1(0, 2, 100, 0);
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	assert_int_equal(queued(0), 2);
	rsw_port_set_one_sender(1, false);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 0);
	not_owner(1);
	burst_to_p1(0, 2, 100, 10);
	expect_on(txr1[1], 2, 0, 10);
	owner_again();
	rsw_dp.cut_through = false;
	expect_idle();
	sched_reset();
}

/*
 * A worker's own tx queue that takes only part of a burst: the rest is queued for the owner
 * (accounted in the buffer, counted enqueued once), and the next burst of the flow queues behind
 * it; the owner sends them in order; nothing lost, the pool back.
 */
static void
test_send_now_refused(void **state)
{
	struct rte_mbuf *fill[TXRING_SIZE];
	unsigned int room, k;
	uint64_t q0[RSW_N_QUEUE_CTRS];

	(void)state;
	sched_reset();
	rsw_dp.cut_through = true;
	rsw_qos.tsc_hz = rte_get_tsc_hz();
	memcpy(q0, st->qos.q[1][0], sizeof(q0));
	not_owner(1);
	/* Queue 1 with room for 3 frames. */
	room = rte_ring_free_count(txr1[1]);
	for (k = 0; k < room - 3; k++)
		fill[k] = (struct rte_mbuf *)(uintptr_t)(k + 1);
	assert_int_equal(rte_ring_enqueue_burst(txr1[1], (void **)fill, room - 3, NULL), room - 3);
	burst_to_p1(0, 8, 100, 0);
	assert_int_equal(queued(0), 5);
	assert_int_equal(rsw_qos.port[1].q_bytes[0], 500);
	burst_to_p1(0, 2, 100, 8); /* not idle: behind the refused ones */
	assert_int_equal(queued(0), 7);
	assert_int_equal(rte_ring_dequeue_burst(txr1[1], (void **)fill, room - 3, NULL), room - 3);
	expect_on(txr1[1], 3, 0, 0);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 7, 0, 3);
	/* Counted once each: 10 in, 10 out. */
	assert_int_equal(st->qos.q[1][0][RSW_QC_enqueued_packets] - q0[RSW_QC_enqueued_packets],
			 10);
	assert_int_equal(st->qos.q[1][0][RSW_QC_dequeued_packets] - q0[RSW_QC_dequeued_packets],
			 10);
	assert_int_equal(st->qos.q[1][0][RSW_QC_enqueued_bytes] - q0[RSW_QC_enqueued_bytes], 1000);
	rsw_dp.cut_through = false;
	expect_idle();
	sched_reset();
}

/*
 * The owner's full drain: 256 frames (16 KiB, below the queue limit) queued by another worker go out in one rsw_tx_drain, in
 * order (not 32 per loop); on a shaped port, one drain sends what the tokens allow and the rest
 * waits.
 */
static void
test_full_drain(void **state)
{
	struct rsw_lcore_stats *st_ = st;
	unsigned int b;
	uint16_t sent;

	(void)state;
	sched_reset();
	rsw_qos.tsc_hz = rte_get_tsc_hz();
	not_owner(0);
	for (b = 0; b < 8; b++)
		burst_to_p1(0, RSW_BURST, 64, b * RSW_BURST);
	assert_int_equal(queued(0), 8 * RSW_BURST);
	owner_again();
	sent = rsw_tx_drain(st_, 1);
	assert_int_equal(sent, 8 * RSW_BURST);
	expect_on(txr[1], 8 * RSW_BURST, 0, 0);
	assert_int_equal(rsw_tx_drain(st_, 1), 0);
	expect_idle();

	/* Shaped at 1 Gbit/s: its bucket (100 µs: 12500 bytes) sends 142 frames of 64 + 24. */
	not_owner(0);
	for (b = 0; b < 8; b++)
		burst_to_p1(0, RSW_BURST, 64, b * RSW_BURST);
	owner_again();
	rsw_qos.port[1].speed_bps = 1000000000ull;
	sent = rsw_tx_drain(st_, 1);
	assert_true(sent >= 100 && sent < 8 * RSW_BURST);
	expect_on(txr[1], sent, 0, 0);
	rsw_qos.port[1].speed_bps = 0;
	assert_int_equal(rsw_tx_drain(st_, 1), 8 * RSW_BURST - sent);
	expect_on(txr[1], 8 * RSW_BURST - sent, 0, sent);
	expect_idle();
	sched_reset();
}

/*
 * A drain round that drops more than it sends (ECN at dequeue on Not-ECT frames of a lossy TC,
 * as happens once workers queue for the owner): each round takes at most 32 frames, sent or
 * dropped, and the drain drops them all but the last (nothing behind it), counted; the pool is
 * back.
 */
static void
test_drain_drops_bounded(void **state)
{
	struct rsw_qos_params qp;
	uint64_t d0 = st->qos.q[1][1][RSW_QC_ecn_drops];
	unsigned int i;

	(void)state;
	sched_reset();
	qp_init(&qp);
	set_ecn(&qp, 1, 0, 1, 1.0); /* any depth marks: Not-ECT is dropped */
	for (i = 0; i < 100; i++)
		q_put(1, 1, 0, 100, 0, i);
	assert_true(rsw_sched_port(st, &qp, 1, T0) <= 32);
	sched_drain(&qp, 1, T0);
	/* The last frame has nothing queued behind it: not marked, sent. */
	assert_int_equal(st->qos.q[1][1][RSW_QC_ecn_drops] - d0, 99);
	expect_on(txr[1], 1, 1, 99);
	expect_idle();
	sched_reset();
}

struct sleeper {
	struct rsw_worker w;
	int result;
};

static void *
sleeper_main(void *arg)
{
	struct sleeper *s = arg;

	s->result = rsw_worker_sleep(&s->w, 20000000); /* 20 s: woken long before */
	return NULL;
}

/*
 * The wake-up: an owner with frames queued does not sleep (rsw_worker_sleep returns at once);
 * an owner asleep is woken when another worker queues frames for it.
 */
static void
test_wakeup(void **state)
{
	struct sleeper s = {.w = {.lcore = OTHER_LCORE, .n_txp = 1, .txp = {1}}, .result = 9};
	pthread_t th;
	unsigned int spins;

	(void)state;
	sched_reset();
	rsw_qos.tsc_hz = rte_get_tsc_hz();
	assert_false(rsw_worker_holds_frames(&s.w));

	/* Frames queued: no sleep. */
	not_owner(0);
	burst_to_p1(0, 2, 100, 0);
	assert_true(rsw_worker_holds_frames(&s.w));
	assert_int_equal(rsw_worker_sleep(&s.w, 20000000), -1);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 0);
	assert_false(rsw_worker_holds_frames(&s.w));

	/* Asleep, then frames queued for it by this worker: woken. */
	not_owner(0);
	assert_int_equal(pthread_create(&th, NULL, sleeper_main, &s), 0);
	for (spins = 0; __atomic_load_n(&rsw_wakeup[OTHER_LCORE].asleep, __ATOMIC_ACQUIRE) == 0;
	     spins++) {
		struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000000};

		assert_true(spins < 10000); /* 10 s */
		nanosleep(&ts, NULL);
	}
	burst_to_p1(0, 2, 100, 10);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(s.result, 1);
	assert_int_equal(rsw_wakeup[OTHER_LCORE].asleep, 0);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	expect_on(txr[1], 2, 0, 10);
	expect_idle();
	sched_reset();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_now),
		cmocka_unit_test(test_send_now_per_tc),
		cmocka_unit_test(test_send_now_stale_clock),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_one_sender),
		cmocka_unit_test(test_send_now_refused),
		cmocka_unit_test(test_full_drain),
		cmocka_unit_test(test_drain_drops_bounded),
		cmocka_unit_test(test_wakeup),
	};

	return ut_main("scaleout", tests, RTE_DIM(tests), setup, ut_ring_ports_teardown, NULL, 0);
}
