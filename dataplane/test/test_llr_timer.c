/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the adaptive LLR replay timer (dataplane/link/llr_rtt.c, rsw_llr.h): the
 * RFC 6298 estimator on exact numbers (first sample, smoothing, floor, cap, backoff, the
 * replay span), then the LLR machines on the simulated link of test_llr_sim.h: the timer
 * follows a round trip ten times its floor, Karn's rule, and a peer stalled for 20 ms that
 * costs replays but no FLUSH, where a fixed timer flushes and loses frames.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_llr.h"
#include "test_common.h"
#include "test_llr_common.h"
#include "test_llr_sim.h"

#define US 1000ull
#define MS (1000ull * 1000)

/* --- The estimator ------------------------------------------------------------------- */

static void
test_rtt_bad_params(void **state)
{
	struct rsw_llr_params p;
	struct rsw_llr *l;

	(void)state;
	default_params(&p);
	l = calloc(1, rsw_llr_mem_size(p.frames_max));
	assert_non_null(l);
	p.replay_timeout_max_ns = p.replay_timeout_ns - 1; /* a cap below the floor */
	assert_int_equal(rsw_llr_init(l, &p, rsw_llr_mbuf_release, NULL), -EINVAL);
	default_params(&p);
	p.replay_timeout_ns = 0;
	assert_int_equal(rsw_llr_init(l, &p, rsw_llr_mbuf_release, NULL), -EINVAL);
	default_params(&p);
	assert_int_equal(rsw_llr_init(l, &p, rsw_llr_mbuf_release, NULL), 0);
	/* Before any measurement: nothing measured, the timer at its floor. */
	assert_int_equal(l->rtt.srtt_ns, 0);
	assert_int_equal(l->rtt.rto_ns, p.replay_timeout_ns);
	free(l);
}

/* RFC 6298 §2.2 and §2.3 on numbers worked by hand. */
static void
test_rtt_smoothing(void **state)
{
	struct rsw_llr_rtt r;
	const uint64_t lo = 200 * US, hi = 10 * MS;

	(void)state;
	rsw_llr_rtt_init(&r, lo);
	assert_int_equal(r.srtt_ns, 0);
	assert_int_equal(r.rttvar_ns, 0);
	assert_int_equal(r.rto_ns, lo);
	/* First: SRTT = R, RTTVAR = R / 2, RTO = SRTT + 4 RTTVAR = 300 µs. */
	rsw_llr_rtt_sample(&r, 100 * US, lo, hi);
	assert_int_equal(r.srtt_ns, 100 * US);
	assert_int_equal(r.rttvar_ns, 50 * US);
	assert_int_equal(r.rto_ns, 300 * US);
	/* Then: RTTVAR = 3/4 × 50 + 1/4 × |100 - 200| = 62.5, SRTT = 7/8 × 100 + 1/8 × 200. */
	rsw_llr_rtt_sample(&r, 200 * US, lo, hi);
	assert_int_equal(r.rttvar_ns, 62500);
	assert_int_equal(r.srtt_ns, 112500);
	assert_int_equal(r.rto_ns, 112500 + 4 * 62500);
	/* A steady round trip below the floor: the deviation fades, the floor holds. */
	for (int i = 0; i < 200; i++)
		rsw_llr_rtt_sample(&r, 10 * US, lo, hi);
	assert_true(r.srtt_ns >= 10 * US && r.srtt_ns < 11 * US);
	assert_true(r.rttvar_ns < 1 * US);
	assert_int_equal(r.rto_ns, lo);
	/* A round trip of zero still counts as measured. */
	rsw_llr_rtt_init(&r, lo);
	rsw_llr_rtt_sample(&r, 0, lo, hi);
	assert_int_equal(r.srtt_ns, 1);
	assert_int_equal(r.rto_ns, lo);
}

static void
test_rtt_cap_and_backoff(void **state)
{
	struct rsw_llr_rtt r;
	const uint64_t lo = 200 * US, hi = 10 * MS;

	(void)state;
	/* A round trip of a second counts as the cap; the timer is the cap. */
	rsw_llr_rtt_init(&r, lo);
	rsw_llr_rtt_sample(&r, 1000 * MS, lo, hi);
	assert_int_equal(r.srtt_ns, hi);
	assert_int_equal(r.rto_ns, hi);
	/* Backoff (RFC 6298 §5.5): doubles from the value in force, never past the cap. */
	rsw_llr_rtt_init(&r, lo);
	rsw_llr_rtt_sample(&r, 100 * US, lo, hi); /* 300 µs */
	rsw_llr_rtt_backoff(&r, hi);
	assert_int_equal(r.rto_ns, 600 * US);
	rsw_llr_rtt_backoff(&r, hi);
	assert_int_equal(r.rto_ns, 1200 * US);
	for (int i = 0; i < 10; i++)
		rsw_llr_rtt_backoff(&r, hi);
	assert_int_equal(r.rto_ns, hi);
	/* The next measurement replaces the backed-off timer. */
	rsw_llr_rtt_sample(&r, 100 * US, lo, hi);
	assert_true(r.rto_ns < 400 * US);
	assert_true(r.rto_ns >= lo);
}

/* How long a silent peer is waited for: the replay_count_max + 1 backed-off expiries. */
static void
test_replay_span(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	/* 200 µs doubling nine times stays under the 100 ms cap: 200 µs × (2^9 - 1). */
	assert_int_equal(rsw_llr_replay_span_ns(&p), 200 * US * 511);
	p.replay_timeout_max_ns = 1 * MS; /* 0.2 + 0.4 + 0.8, then 1 ms six times */
	assert_int_equal(rsw_llr_replay_span_ns(&p), 1400 * US + 6 * MS);
	p.replay_timeout_max_ns = p.replay_timeout_ns; /* a fixed timer: today's rule */
	assert_int_equal(rsw_llr_replay_span_ns(&p), 9 * p.replay_timeout_ns);
	p.replay_count_max = 0;
	assert_int_equal(rsw_llr_replay_span_ns(&p), p.replay_timeout_ns);
}

/* --- The timer on the simulated link -------------------------------------------------- */

static uint32_t n_sent;

/*
 * Offer one new frame from a each µs while the window allows, for dt; ids keep counting. A
 * frame sent without LLR (after a FLUSH) never reaches b here: it counts as lost.
 */
static void
traffic(uint64_t dt)
{
	uint64_t end = lk->now + dt;

	while (lk->now < end) {
		if (rsw_llr_tx_room(lk->a.l) > 0) {
			struct tframe *f = &frames[n_sent % N_FR];
			enum rsw_llr_tx_verdict v;

			assert_int_equal(f->refs, 0);
			f->id = n_sent;
			v = send_new(&lk->a, f, lk->now);
			assert_true(v == RSW_LLR_TX_SEQ || v == RSW_LLR_TX_PLAIN);
			n_sent++;
		}
		run(1000);
	}
}

/* Everything a sent arrived at b exactly once and in order, and was given back. */
static void
assert_all_once(void)
{
	uint32_t i;

	assert_int_equal(lk->b.n_delivered, n_sent);
	for (i = 0; i < n_sent; i++)
		assert_int_equal(lk->b.delivered[i], i);
	assert_int_equal(lk->a.released, n_sent);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 0);
}

/* The parameters railsw gives a software link: the data age outlasts twice the span. */
static void
software_params(struct rsw_llr_params *p)
{
	default_params(p);
	p->data_age_timeout_ns = 2 * rsw_llr_replay_span_ns(p);
}

/*
 * A round trip of 2 ms, ten times the floor: after a few spurious expiries while nothing is
 * measured, the timer follows the round trip and expires no more. A timer fixed at its
 * floor reaches the replay limit before the first ACK comes back: FLUSH.
 */
static void
test_timer_follows_round_trip(void **state)
{
	struct rsw_llr_params p;
	uint64_t warm;

	(void)state;
	software_params(&p);
	link_up(&p);
	lk->ab.latency = lk->ba.latency = 1 * MS;
	n_sent = 0;
	traffic(20 * MS);
	warm = lk->a.l->ctr[RSW_LLR_tx_replay_timeouts];
	assert_true(warm >= 1 && warm <= 6);
	traffic(30 * MS);
	run(10 * MS);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], warm);
	assert_true(lk->a.l->rtt.srtt_ns >= 2 * MS && lk->a.l->rtt.srtt_ns <= 2 * MS + 20 * US);
	assert_true(lk->a.l->rtt.rto_ns >= lk->a.l->rtt.srtt_ns);
	assert_true(lk->a.l->rtt.rto_ns < 3 * MS);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 0);
	assert_all_once();
	link_free();

	/* The same link with the timer fixed at its floor (cap = floor). */
	software_params(&p);
	p.replay_timeout_max_ns = p.replay_timeout_ns;
	link_up(&p);
	lk->ab.latency = lk->ba.latency = 1 * MS;
	n_sent = 0;
	traffic(5 * MS);
	assert_true(lk->a.l->ctr[RSW_LLR_tx_flushes] >= 1);
	assert_true(lk->a.l->ctr[RSW_LLR_tx_flushed_frames] > 0);
	link_free();
}

/* Karn: the ACK of a replayed frame measures nothing; the backed-off timer stays until a
 * frame sent once is acknowledged. */
static void
test_timer_karn(void **state)
{
	struct rsw_llr_params p;
	uint64_t srtt;

	(void)state;
	software_params(&p);
	link_up(&p);
	n_sent = 0;
	traffic(100 * US);
	run(100 * US);
	srtt = lk->a.l->rtt.srtt_ns;
	assert_true(srtt > 0 && srtt < 20 * US); /* 4 µs of wire, up to 10 µs of ACK delay */
	assert_int_equal(lk->a.l->rtt.rto_ns, p.replay_timeout_ns);
	/* A lost tail: the timer expires, doubles, the frame is replayed and acknowledged. */
	lk->ab.lose_seq[lk->ab.n_lose_seq++] = lk->a.l->next_seq;
	traffic(1 * US);
	run(p.replay_timeout_ns + 50 * US);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replayed], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 0);
	assert_int_equal(lk->a.l->rtt.srtt_ns, srtt);
	assert_int_equal(lk->a.l->rtt.rto_ns, 2 * p.replay_timeout_ns);
	/* A frame sent once: measured, and the timer is recomputed (back to its floor). */
	traffic(1 * US);
	run(50 * US);
	assert_int_equal(lk->a.l->rtt.rto_ns, p.replay_timeout_ns);
	assert_all_once();
	link_free();
}

/*
 * b is descheduled for 20 ms while frames flow (a loaded machine). The adaptive timer
 * replays a few times, backing off, and b's ACKs come back before the replay limit: every
 * frame once, in order, the replays dropped as duplicates, no FLUSH. A timer fixed at its
 * floor reaches the replay limit within 2 ms: FLUSH, and frames are lost.
 */
static void
test_timer_stalled_peer(void **state)
{
	struct rsw_llr_params p;
	uint64_t t;

	(void)state;
	software_params(&p);
	link_up(&p);
	n_sent = 0;
	traffic(2 * MS);
	lk->b.stall_until = lk->now + 20 * MS;
	traffic(30 * MS);
	run(5 * MS);
	t = lk->a.l->ctr[RSW_LLR_tx_replay_timeouts];
	/* Expiries at 0.2, 0.6, 1.4, 3.0, 6.2 and 12.6 ms of the stall, then 25.4: too late. */
	assert_true(t >= 5 && t <= 7);
	assert_true(t <= p.replay_count_max);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 0);
	assert_true(lk->b.l->ctr[RSW_LLR_rx_duplicate_seq] > 0);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_ADVANCE);
	assert_all_once();
	link_free();

	/* The same stall with the timer fixed at its floor. */
	software_params(&p);
	p.replay_timeout_max_ns = p.replay_timeout_ns;
	p.data_age_timeout_ns = 2 * rsw_llr_replay_span_ns(&p);
	link_up(&p);
	n_sent = 0;
	traffic(2 * MS);
	lk->b.stall_until = lk->now + 20 * MS;
	traffic(30 * MS);
	run(5 * MS);
	assert_true(lk->a.l->ctr[RSW_LLR_tx_flushes] >= 1);
	assert_true(lk->a.l->ctr[RSW_LLR_tx_flushed_frames] > 0);
	assert_true(lk->b.n_delivered < n_sent);
	link_free();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rtt_bad_params),
		cmocka_unit_test(test_rtt_smoothing),
		cmocka_unit_test(test_rtt_cap_and_backoff),
		cmocka_unit_test(test_replay_span),
		cmocka_unit_test(test_timer_follows_round_trip),
		cmocka_unit_test(test_timer_karn),
		cmocka_unit_test(test_timer_stalled_peer),
	};

	return ut_main("llr_timer", tests, RTE_DIM(tests), NULL, NULL, NULL, 0);
}
