/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of Link-Level Retry (dataplane/link/rsw_llr.h): the TX and RX state machines of
 * two ports joined by a simulated wire on a simulated clock (test_llr_sim.h: losses, a lost
 * NACK, a lost tail, duplicates, wrap-around, replay limit to FLUSH, re-init, the
 * fallbacks), and a randomized run of 100,000 frames over a lossy and corrupting wire. The
 * shim, the names and the mbuf layer: test_llr_shim.c; the adaptive replay timer:
 * test_llr_timer.c.
 */

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

static void
test_in_order(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	link_up(&p);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_inits_tx], 1);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_init_echoes_tx], 1);
	send_range(0, 20);
	/* Before the ACKs come back, the frames wait in the ring. */
	run(100000);
	assert_delivered_all(20);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replayed], 0);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_nacks_tx], 0);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_missing_seq], 0);
	/* ACKs: every 2048 B (two 1000-byte frames... three), and by time for the last. */
	assert_true(lk->b.l->ctr[RSW_LLR_acks_tx] >= 7);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_acks_rx], lk->b.l->ctr[RSW_LLR_acks_tx]);
	link_free();
}

static void
test_one_loss(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	link_up(&p);
	lk->ab.lose_seq[lk->ab.n_lose_seq++] = 3;
	send_range(0, 10);
	run(100000);
	assert_delivered_all(10);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_nacks_tx], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_nacks_rx], 1);
	assert_true(lk->b.l->ctr[RSW_LLR_rx_missing_seq] >= 1);
	/* Go back N: frame 3 and everything sent after it until the NACK came. */
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replayed],
			 lk->b.l->ctr[RSW_LLR_rx_missing_seq] + 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 0);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_ADVANCE);
	link_free();
}

static void
test_burst_loss(void **state)
{
	struct rsw_llr_params p;
	uint32_t s;

	(void)state;
	default_params(&p);
	link_up(&p);
	for (s = 4; s < 9; s++)
		lk->ab.lose_seq[lk->ab.n_lose_seq++] = s;
	send_range(0, 30);
	run(100000);
	assert_delivered_all(30);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_nacks_tx], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 0);
	assert_true(lk->a.l->ctr[RSW_LLR_tx_replayed] >= 5);
	link_free();
}

static void
test_lost_nack(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	link_up(&p);
	lk->ab.lose_seq[lk->ab.n_lose_seq++] = 2;
	lk->ba.lose_ctl_type = RSW_LLR_T_NACK;
	lk->ba.lose_ctl_count = 1;
	send_range(0, 10);
	/* No NACK arrives and b stays silent: only the replay timer can recover. */
	run(p.replay_timeout_ns / 2);
	assert_int_equal(lk->b.n_delivered, 2);
	assert_int_equal(lk->b.l->rx_state, RSW_LLR_RX_NACK_SENT);
	run(p.replay_timeout_ns * 2);
	assert_delivered_all(10);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_nacks_rx], 0);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 1);
	link_free();
}

/*
 * A lost NACK while the sender keeps sending, its replay timer backed off far past the floor
 * (a busy machine): frames still arriving past the gap a floor after the NACK bring a second
 * NACK, and the gap closes long before that timer would fire.
 */
static void
test_lost_nack_again(void **state)
{
	struct rsw_llr_params p;
	uint32_t i;

	(void)state;
	default_params(&p);
	link_up(&p);
	send_range(0, 2);
	run(p.replay_timeout_ns);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 0);
	/* No ACK of a new frame comes back until the gap closes: no measurement resets it. */
	lk->a.l->rtt.rto_ns = 50 * p.replay_timeout_ns;
	lk->ab.lose_seq[lk->ab.n_lose_seq++] = 2;
	lk->ba.lose_ctl_type = RSW_LLR_T_NACK;
	lk->ba.lose_ctl_count = 1;
	/* Frames 2..39, one every tenth of the floor (held while a replay runs). */
	for (i = 2; i < 40;) {
		if (send_new(&lk->a, &frames[i], lk->now) == RSW_LLR_TX_SEQ)
			i++;
		run(p.replay_timeout_ns / 10);
	}
	run(p.replay_timeout_ns * 2);
	assert_delivered_all(40);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_nacks_tx], 2);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_nacks_rx], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 0);
	link_free();
}

static void
test_lost_tail(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	link_up(&p);
	lk->ab.lose_seq[lk->ab.n_lose_seq++] = 9;
	send_range(0, 10);
	run(p.replay_timeout_ns / 2);
	/* Nothing follows the lost frame, so no gap is seen and no NACK sent. */
	assert_int_equal(lk->b.n_delivered, 9);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_nacks_tx], 0);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 1);
	run(p.replay_timeout_ns * 2);
	assert_delivered_all(10);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replayed], 1);
	link_free();
}

static void
test_duplicates(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	link_up(&p);
	lk->ab.dup_seq_set = 1;
	lk->ab.dup_seq = 4;
	/* A lost ACK: a replays frames b has; b drops them and ACKs again. */
	lk->ba.lose_ctl_type = RSW_LLR_T_ACK;
	lk->ba.lose_ctl_count = 100;
	send_range(0, 8);
	run(p.replay_timeout_ns / 2);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 8);
	lk->ba.lose_ctl_count = 0;
	run(p.replay_timeout_ns * 2);
	assert_delivered_all(8);
	assert_true(lk->b.l->ctr[RSW_LLR_rx_duplicate_seq] >= 1 + 8);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replayed], 8);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_nacks_tx], 0);
	link_free();
}

static void
test_wrap(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	p.initial_seq = UINT32_MAX - 4;
	link_up(&p);
	lk->ab.lose_seq[lk->ab.n_lose_seq++] = UINT32_MAX;
	lk->ab.lose_seq[lk->ab.n_lose_seq++] = 1;
	send_range(0, 12);
	run(200000);
	assert_delivered_all(12);
	assert_int_equal(lk->a.l->next_seq, 12 - 5);
	assert_int_equal(lk->b.l->rx_expected, 12 - 5);
	assert_int_equal(lk->ab.n_lose_seq, 0); /* both were lost */
	assert_true(lk->b.l->ctr[RSW_LLR_nacks_tx] >= 1);
	link_free();
}

/*
 * A dead wire: replays up to the limit, the timer doubling each time (no ACK comes), then
 * FLUSH and INIT again; healing it re-inits.
 */
static void
test_replay_limit_flush_reinit(void **state)
{
	struct rsw_llr_params p;
	uint64_t span;
	uint32_t i;

	(void)state;
	default_params(&p);
	p.replay_timeout_max_ns = 8 * p.replay_timeout_ns;
	p.data_age_timeout_ns = 1000ull * 1000 * 1000;
	/* 1, 2, 4, 8, then the cap 8 five times: 55 floors. */
	span = rsw_llr_replay_span_ns(&p);
	assert_int_equal(span, 55 * p.replay_timeout_ns);
	link_up(&p);
	send_range(0, 3);
	run(50000);
	assert_delivered_all(3);
	lk->ab.dead = 1;
	send_range(3, 5);
	/* The first frame waited 5 µs of send_range already; FLUSH comes at the span. */
	run(span - 20000);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], p.replay_count_max);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 0);
	assert_int_equal(lk->a.l->rtt.rto_ns, p.replay_timeout_max_ns);
	run(50000);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], p.replay_count_max + 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replayed], 5 * p.replay_count_max);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushed_frames], 5);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_INIT);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 0);
	/* The new session measures afresh: the timer is back at its floor. */
	assert_int_equal(lk->a.l->rtt.rto_ns, p.replay_timeout_ns);
	assert_int_equal(lk->a.l->rtt.srtt_ns, 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(frames[i].refs, 0);
	/* While in INIT, frames go out best-effort, without a sequence. */
	assert_int_equal(send_new(&lk->a, &frames[8], lk->now), RSW_LLR_TX_PLAIN);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_fallback_plain], 1);
	/* INIT repeats until answered. */
	run(3 * p.init_interval_ns);
	assert_true(lk->a.l->ctr[RSW_LLR_inits_tx] >= 4);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_INIT);
	/* Re-init: the wire works again, b restarts at a's next sequence. */
	lk->ab.dead = 0;
	run(p.init_interval_ns + 20000);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_ADVANCE);
	assert_int_equal(lk->b.l->rx_expected, lk->a.l->next_seq);
	for (i = 9; i < 14; i++) {
		assert_int_equal(send_new(&lk->a, &frames[i], lk->now), RSW_LLR_TX_SEQ);
		run(1000);
	}
	run(50000);
	assert_int_equal(lk->b.n_delivered, 3 + 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(lk->b.delivered[3 + i], 9 + i);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 0);
	link_free();
}

/* The oldest frame waits longer than DATA_AGE_TIMEOUT: FLUSH before the replay limit. */
static void
test_data_age(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	p.replay_timeout_ns = p.replay_timeout_max_ns = 1000ull * 1000 * 1000;
	p.data_age_timeout_ns = 300 * 1000;
	link_up(&p);
	lk->ab.dead = 1;
	send_range(0, 2);
	run(p.data_age_timeout_ns - 10000);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 0);
	run(20000);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_replay_timeouts], 0);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_INIT);
	assert_int_equal(frames[0].refs + frames[1].refs, 0);
	link_free();
}

/* A peer that never answers INIT: state init, frames as the fallback says. */
static void
test_no_peer_fallback(void **state)
{
	struct rsw_llr_params p;
	uint32_t seq;

	(void)state;
	default_params(&p);
	link_setup(&p);
	rsw_llr_start(lk->a.l, lk->now); /* b never enables LLR */
	run(5 * p.init_interval_ns);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_INIT);
	assert_string_equal(rsw_llr_tx_state_name(lk->a.l->tx_state), "init");
	assert_int_equal(lk->a.l->ctr[RSW_LLR_inits_tx], 5); /* at once, then every 1 ms */
	assert_int_equal(lk->b.l->ctr[RSW_LLR_inits_rx], 5);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_init_echoes_tx], 0);
	assert_int_equal(rsw_llr_tx_room(lk->a.l), UINT32_MAX);
	assert_int_equal(rsw_llr_tx_data(lk->a.l, &frames[0], 100, lk->now, &seq),
			 RSW_LLR_TX_PLAIN);
	lk->a.l->fallback = RSW_LLR_FB_DISCARD;
	assert_int_equal(rsw_llr_tx_data(lk->a.l, &frames[0], 100, lk->now, &seq), RSW_LLR_TX_DROP);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_fallback_dropped], 1);
	lk->a.l->fallback = RSW_LLR_FB_BLOCK;
	assert_int_equal(rsw_llr_tx_room(lk->a.l), 0);
	assert_int_equal(rsw_llr_tx_data(lk->a.l, &frames[0], 100, lk->now, &seq), RSW_LLR_TX_HOLD);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_frames], 0);
	/* A sequenced frame at a receiver without a session: dropped, re-init asked. */
	rsw_llr_start(lk->b.l, lk->now);
	assert_int_equal(rsw_llr_rx_data(lk->b.l, 5, 100, lk->now), RSW_LLR_RX_NOT_SYNCED);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_not_synced], 1);
	link_free();
}

/* A receiver that restarted asks for a new session (NACK with REINIT). */
static void
test_peer_restart(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	link_up(&p);
	send_range(0, 4);
	run(50000);
	rsw_llr_stop(lk->b.l);
	rsw_llr_start(lk->b.l, lk->now);
	lk->b.n_delivered = 0;
	send_range(4, 1); /* to a receiver with no session: dropped */
	run(20000);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_not_synced], 1);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 1);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_ADVANCE);
	send_range(5, 2);
	run(50000);
	assert_int_equal(lk->b.n_delivered, 2);
	assert_int_equal(lk->b.delivered[0], 5);
	assert_int_equal(lk->b.delivered[1], 6);
	link_free();
}

/* The window: no more than frames_max frames or bytes_max bytes outstanding. */
static void
test_window(void **state)
{
	struct rsw_llr_params p;
	uint32_t i, seq;

	(void)state;
	default_params(&p);
	p.frames_max = 8;
	assert_int_equal(rsw_llr_mem_size(6), 0);
	assert_int_equal(rsw_llr_mem_size(0), 0);
	assert_int_equal(rsw_llr_mem_size(2 * RSW_LLR_FRAMES_MAX), 0);
	link_up(&p);
	lk->ab.dead = 1;
	for (i = 0; i < 8; i++) {
		assert_int_equal(rsw_llr_tx_room(lk->a.l), 8 - i);
		assert_int_equal(send_new(&lk->a, &frames[i], lk->now), RSW_LLR_TX_SEQ);
	}
	assert_int_equal(rsw_llr_tx_room(lk->a.l), 0);
	assert_int_equal(rsw_llr_tx_data(lk->a.l, &frames[8], 1000, lk->now, &seq),
			 RSW_LLR_TX_HOLD);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_bytes], 8000);
	link_free();

	default_params(&p);
	p.bytes_max = 2500;
	link_up(&p);
	lk->ab.dead = 1;
	for (i = 0; i < 3; i++)
		assert_int_equal(send_new(&lk->a, &frames[i], lk->now), RSW_LLR_TX_SEQ);
	assert_int_equal(rsw_llr_tx_room(lk->a.l), 0);
	assert_int_equal(send_new(&lk->a, &frames[3], lk->now), RSW_LLR_TX_HOLD);
	link_free();
}

/* A corrupted frame is a lost one: a NACK, and a replay from the last good one. */
static void
test_bad_frame(void **state)
{
	struct rsw_llr_params p;

	(void)state;
	default_params(&p);
	link_up(&p);
	send_range(0, 3);
	lk->ab.p_bad = 1.0;
	send_range(3, 1);
	lk->ab.p_bad = 0;
	send_range(4, 3);
	run(100000);
	assert_delivered_all(7);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_bad_integrity], 1);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_nacks_tx], 1);
	link_free();
}

/* 100,000 frames over a wire that loses and corrupts in both directions. */
static void
test_random(void **state)
{
	struct rsw_llr_params p;
	uint32_t sent = 0, i, total = 100000;
	uint64_t rng = 12345;

	(void)state;
	default_params(&p);
	link_up(&p);
	lk->ab.rng = 1;
	lk->ba.rng = 2;
	lk->ab.p_loss = lk->ba.p_loss = 0.01;
	lk->ab.p_bad = lk->ba.p_bad = 0.005;
	while (sent < total) {
		/* Offer up to 3 frames per µs, as the room allows; frames recycle ids mod N_FR. */
		uint32_t k = (uint32_t)(xrand(&rng) % 4);

		while (k-- > 0 && sent < total && rsw_llr_tx_room(lk->a.l) > 0) {
			struct tframe *f = &frames[sent % N_FR];

			assert_int_equal(f->refs, 0);
			f->id = sent;
			assert_int_equal(send_new(&lk->a, f, lk->now), RSW_LLR_TX_SEQ);
			sent++;
		}
		run(1000);
	}
	lk->ab.p_loss = lk->ba.p_loss = lk->ab.p_bad = lk->ba.p_bad = 0;
	run(2 * p.replay_timeout_ns + 100000);
	assert_int_equal(lk->b.n_delivered, total);
	for (i = 0; i < total; i++)
		assert_int_equal(lk->b.delivered[i], i);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_flushes], 0);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_frames], total);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_frames], total);
	assert_int_equal(lk->a.released, total);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 0);
	assert_true(lk->ab.lost > 500 && lk->ab.corrupted > 200);
	/*
	 * The counters add up. Every DATA frame a sent (new or replayed) was lost, corrupted
	 * (b counted it bad) or seen by b: accepted, a duplicate or after a gap.
	 */
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_frames] + lk->a.l->ctr[RSW_LLR_tx_replayed],
			 lk->ab.data_lost + lk->ab.data_corrupted +
				 lk->b.l->ctr[RSW_LLR_rx_frames] +
				 lk->b.l->ctr[RSW_LLR_rx_duplicate_seq] +
				 lk->b.l->ctr[RSW_LLR_rx_missing_seq]);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_bad_integrity], lk->ab.corrupted);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_rx_bad_integrity], lk->ba.corrupted);
	/* The same for the control frames b sent (a sent no data, b no frames of its own). */
	assert_int_equal(lk->b.l->ctr[RSW_LLR_acks_tx] + lk->b.l->ctr[RSW_LLR_nacks_tx] +
				 lk->b.l->ctr[RSW_LLR_inits_tx] +
				 lk->b.l->ctr[RSW_LLR_init_echoes_tx],
			 lk->ba.lost + lk->ba.corrupted + lk->a.l->ctr[RSW_LLR_acks_rx] +
				 lk->a.l->ctr[RSW_LLR_nacks_rx] + lk->a.l->ctr[RSW_LLR_inits_rx] +
				 lk->a.l->ctr[RSW_LLR_init_echoes_rx]);
	assert_int_equal(lk->ba.data_lost + lk->ba.data_corrupted, 0);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_not_synced], 0);
	assert_true(lk->b.l->ctr[RSW_LLR_nacks_tx] > 0);
	assert_true(lk->a.l->ctr[RSW_LLR_nacks_rx] <= lk->b.l->ctr[RSW_LLR_nacks_tx]);
	assert_true(lk->a.l->ctr[RSW_LLR_acks_rx] <= lk->b.l->ctr[RSW_LLR_acks_tx]);
	assert_true(lk->a.l->ctr[RSW_LLR_acks_rx] > 0);
	link_free();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_one_loss),
		cmocka_unit_test(test_burst_loss),
		cmocka_unit_test(test_lost_nack),
		cmocka_unit_test(test_lost_nack_again),
		cmocka_unit_test(test_lost_tail),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_replay_limit_flush_reinit),
		cmocka_unit_test(test_data_age),
		cmocka_unit_test(test_no_peer_fallback),
		cmocka_unit_test(test_peer_restart),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_bad_frame),
		cmocka_unit_test(test_random),
	};

	return ut_main("llr", tests, RTE_DIM(tests), NULL, NULL, NULL, 0);
}
