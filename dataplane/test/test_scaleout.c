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
 * the port, an idle port gets its frames straight on that queue (counted sent, enqueued and
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
	/* Its own queue, but the port holds frames: queued behind them (TC 2 too). */
	not_owner(1);
	burst_to_p1(0, 2, 100, 13);
	burst_to_p1(2, 2, 100, 20);
	assert_int_equal(queued(0), 5);
	assert_int_equal(queued(2), 2);
	assert_int_equal(rte_ring_count(txr1[1]), 0);
	owner_again();
	sched_drain(tqos, 1, rte_rdtsc());
	{
		struct rte_mbuf *m[16];
		unsigned int k = tx_take(1, m, RTE_DIM(m)), i, n0 = 0;

		assert_int_equal(k, 7);
		for (i = 0; i < k; i++)
			if (frame_tc(m[i]) == 0)
				assert_int_equal(frame_seq(m[i]), 10 + n0++);
		assert_int_equal(n0, 5);
		rte_pktmbuf_free_bulk(m, k);
	}
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
		cmocka_unit_test(test_send_now),   cmocka_unit_test(test_send_now_refused),
		cmocka_unit_test(test_full_drain), cmocka_unit_test(test_drain_drops_bounded),
		cmocka_unit_test(test_wakeup),
	};

	return ut_main("scaleout", tests, RTE_DIM(tests), setup, ut_ring_ports_teardown, NULL, 0);
}
