/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of CBFC over LLR on one link (dataplane/link/rsw_cbfc.h, rsw_llr.h): the real
 * machines of both at each end, joined by a simulated FIFO wire on a simulated clock, as
 * port_link.c runs them (LLR's receive step before CBFC's, LLR's poll before CBFC's, credit
 * messages never sequenced). a sends frames of one lossless VC against credits; b holds them
 * and drains them slowly. What is checked: frames LLR replays are counted once (no credit
 * healed, none granted twice); frames a FLUSH drops, whether or not they had arrived, and
 * frames the wire loses while LLR re-initialises, have their credits returned; credit
 * messages lost and duplicated on the way change none of that; at rest b's grant is what a
 * spent plus the whole buffer, and b never holds more than it granted.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_cbfc.h"
#include "rsw_llr.h"

#define VC       3
#define BUF      (16 * 1024)
#define FLEN     1000 /* data frame bytes: 16 credits of 64 */
#define CREDITS  16
#define WIRE_MAX 32768
#define N_FR     8192

enum kind {
	K_DATA,
	K_LLR,
	K_CBFC
};

struct item {
	uint64_t at;
	uint8_t kind;
	uint8_t seqd;           /* DATA: sequenced by LLR (else sent plain) */
	uint32_t id;            /* DATA: the frame */
	struct rsw_llr_hdr hdr; /* DATA (seq), LLR control */
	struct rsw_cbfc_msg m;  /* CBFC */
};

struct wire {
	struct item q[WIRE_MAX];
	uint32_t head, tail;
	uint64_t latency, rng;
	double p_data, p_cbfc, p_dup_cbfc; /* lost data, lost and duplicated credit messages */
	int data_dead;                     /* every data frame lost */
	int llr_dead;                      /* every LLR control frame lost */
	int dead;                          /* everything lost */
	uint64_t data_lost, cbfc_lost, cbfc_dup;
};

struct end {
	struct rsw_llr *l;
	struct rsw_cbfc c;
	struct wire *out;
	uint64_t stall_until; /* descheduled: neither receives nor polls before this */
	/* receiver */
	uint64_t occ, occ_max;
	uint32_t held[N_FR], n_held, held_head, drain_every;
	uint32_t got[N_FR], n_got;
	/* sender */
	uint32_t to_send, sent;
};

/* A frame: the replay ring's reference. */
struct tframe {
	int refs;
};

static struct tframe frames[N_FR];

static struct wire wab, wba;
static struct end ea, eb;

static void
release_cb(void *arg, void **h, unsigned int n)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < n; i++) {
		struct tframe *f = h[i];

		assert_true(f->refs > 0);
		f->refs--;
	}
}

static int
chance(struct wire *w, double p)
{
	if (p <= 0)
		return 0;
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (double)(w->rng >> 11) * 0x1.0p-53 < p;
}

static void
put(struct wire *w, uint64_t now, const struct item *it)
{
	if (w->dead || (it->kind == K_LLR && w->llr_dead))
		return;
	if (it->kind == K_DATA && (w->data_dead || chance(w, w->p_data))) {
		w->data_lost++;
		return;
	}
	if (it->kind == K_CBFC && chance(w, w->p_cbfc)) {
		w->cbfc_lost++;
		return;
	}
	assert_true(w->tail - w->head < WIRE_MAX);
	w->q[w->tail % WIRE_MAX] = *it;
	w->q[w->tail % WIRE_MAX].at = now + w->latency;
	w->tail++;
	if (it->kind == K_CBFC && chance(w, w->p_dup_cbfc)) {
		w->cbfc_dup++;
		assert_true(w->tail - w->head < WIRE_MAX);
		w->q[w->tail % WIRE_MAX] = w->q[(w->tail - 1) % WIRE_MAX];
		w->tail++;
	}
}

static void
setup_end(struct end *e, struct wire *out)
{
	struct rsw_llr_params lp;
	struct rsw_cbfc_params cp;

	memset(e, 0, sizeof(*e));
	rsw_llr_params_default(&lp);
	lp.replay_timeout_ns = 30 * 1000;
	lp.replay_timeout_max_ns = 1000 * 1000;
	lp.data_age_timeout_ns = 2 * 1000 * 1000;
	lp.init_interval_ns = 100 * 1000;
	e->l = calloc(1, rsw_llr_mem_size(lp.frames_max));
	assert_non_null(e->l);
	assert_int_equal(rsw_llr_init(e->l, &lp, release_cb, NULL), 0);
	rsw_cbfc_params_default(&cp);
	cp.vcs = 1u << VC;
	cp.reliable = 1;
	cp.buffer_bytes = BUF;
	cp.update_interval_ns = 5000;
	cp.refresh_ns = 100 * 1000;
	cp.consumed_interval_ns = 100 * 1000;
	cp.init_interval_ns = 50 * 1000;
	cp.fallback_timeout_ns = 500 * 1000;
	cp.watchdog_ns = 2 * 1000 * 1000;
	assert_int_equal(rsw_cbfc_init(&e->c, &cp), 0);
	e->out = out;
}

static void
link_setup(void)
{
	memset(&wab, 0, sizeof(wab));
	memset(&wba, 0, sizeof(wba));
	memset(frames, 0, sizeof(frames));
	wab.latency = wba.latency = 5000;
	wab.rng = 88172645463325252ull;
	wba.rng = 0x9e3779b97f4a7c15ull;
	setup_end(&ea, &wab);
	setup_end(&eb, &wba);
}

static void
link_free(void)
{
	free(ea.l);
	free(eb.l);
}

/* The receive step: LLR first, then CBFC on what LLR lets through. */
static void
receive(struct end *e, struct wire *in, uint64_t now)
{
	while (in->head != in->tail && in->q[in->head % WIRE_MAX].at <= now) {
		struct item *it = &in->q[in->head % WIRE_MAX];

		in->head++;
		if (it->kind == K_LLR) {
			rsw_llr_rx_ctl(e->l, &it->hdr, now);
			continue;
		}
		if (it->kind == K_CBFC) {
			rsw_cbfc_rx_msg(&e->c, &it->m, now);
			continue;
		}
		if (it->seqd && rsw_llr_rx_data(e->l, it->hdr.seq, FLEN + RSW_LLR_SHIM_LEN, now) !=
					RSW_LLR_RX_ACCEPT)
			continue;
		rsw_cbfc_rx_data(&e->c, VC, FLEN);
		assert_true(e->n_got < N_FR);
		e->got[e->n_got++] = it->id;
		e->held[(e->held_head + e->n_held++) % N_FR] = FLEN;
		e->occ += FLEN;
		if (e->occ > e->occ_max)
			e->occ_max = e->occ;
	}
}

/* The poll step: LLR's control frames and replays, then CBFC's messages. */
static void
poll_end(struct end *e, uint64_t now)
{
	uint64_t occupied[RSW_CBFC_N_VC] = {0};
	struct rsw_llr_emit em[64];
	struct rsw_cbfc_msg msgs[8];
	unsigned int k, n;

	n = rsw_llr_poll(e->l, now, em, 64);
	for (k = 0; k < n; k++) {
		struct item it = {.kind = K_LLR, .hdr = {.type = em[k].type, .seq = em[k].seq}};

		it.hdr.flags = em[k].flags;
		if (em[k].type == RSW_LLR_T_DATA) {
			it.kind = K_DATA;
			it.seqd = 1;
			it.id = (uint32_t)((struct tframe *)em[k].h - frames);
		}
		put(e->out, now, &it);
	}
	/* Every charged frame went to LLR at once (none held): where LLR stands. */
	rsw_cbfc_tx_window(&e->c, e->l->next_seq, e->l->tail_seq);
	occupied[VC] = e->occ;
	n = rsw_cbfc_poll(&e->c, now, occupied, 1, msgs, 8);
	for (k = 0; k < n; k++) {
		struct item it = {.kind = K_CBFC, .m = msgs[k]};

		put(e->out, now, &it);
	}
}

/* The sender: up to 2 frames a µs, each against credits, then through LLR. */
static void
send_some(struct end *e, uint64_t now)
{
	int k;

	for (k = 0; k < 2 && e->sent < e->to_send; k++) {
		struct item it = {.kind = K_DATA, .id = e->sent};
		enum rsw_llr_tx_verdict v;
		uint32_t seq;

		if (rsw_llr_tx_room(e->l) == 0 || !rsw_cbfc_tx_take(&e->c, VC, FLEN, now))
			break;
		v = rsw_llr_tx_data(e->l, &frames[e->sent], FLEN + RSW_LLR_SHIM_LEN, now, &seq);
		assert_true(v == RSW_LLR_TX_SEQ || v == RSW_LLR_TX_PLAIN);
		if (v == RSW_LLR_TX_SEQ) {
			frames[e->sent].refs++;
			it.seqd = 1;
			it.hdr.type = RSW_LLR_T_DATA;
			it.hdr.seq = seq;
		}
		e->sent++;
		put(e->out, now, &it);
	}
}

static void
step(struct end *e, struct wire *in, uint64_t now)
{
	if (now < e->stall_until)
		return;
	receive(e, in, now);
	if (e->drain_every && now / 1000 % e->drain_every == 0 && e->n_held > 0) {
		e->occ -= e->held[e->held_head++ % N_FR];
		e->n_held--;
	}
	poll_end(e, now);
	send_some(e, now);
}

/* Run both ends from t0 for us µs (1 µs steps); @return the time reached. */
static uint64_t
run(uint64_t t0, uint64_t us)
{
	uint64_t t;

	for (t = t0; t < t0 + us * 1000; t += 1000) {
		step(&ea, &wba, t);
		step(&eb, &wab, t);
	}
	return t;
}

/* Both machines of both ends started and synchronised; a has frames to send. */
static uint64_t
link_up(uint32_t frames_to_send)
{
	uint64_t t = 1000000;

	rsw_llr_start(ea.l, t);
	rsw_llr_start(eb.l, t);
	rsw_cbfc_start(&ea.c, t);
	rsw_cbfc_start(&eb.c, t);
	t = run(t, 100);
	assert_int_equal(ea.l->tx_state, RSW_LLR_TX_ADVANCE);
	assert_int_equal(eb.l->tx_state, RSW_LLR_TX_ADVANCE);
	assert_int_equal(ea.c.tx_state, RSW_CBFC_ACTIVE);
	ea.to_send = frames_to_send;
	eb.drain_every = 2;
	return t;
}

/*
 * At rest: b received each frame at most once and in order, holds nothing and never held
 * more than it granted; b returned the credits of exactly the frames that never arrived;
 * a may spend the whole buffer again, and b granted what a spent plus that.
 */
static void
assert_at_rest(void)
{
	uint32_t i;

	for (i = 1; i < eb.n_got; i++)
		assert_true(eb.got[i] > eb.got[i - 1]);
	assert_int_equal(eb.n_held, 0);
	assert_true(eb.occ_max <= BUF + 64 * (BUF / FLEN + 1));
	assert_int_equal(ea.l->ctr[RSW_LLR_replay_buffer_frames], 0);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_healed],
			 (uint64_t)(ea.sent - eb.n_got) * CREDITS);
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_credits_tx_available], BUF / 64);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_granted],
			 ea.c.vc[VC].ctr[RSW_CBFC_credits_consumed] +
				 ea.c.vc[VC].ctr[RSW_CBFC_credits_tx_available]);
}

/* 1 % of the data lost and replayed by LLR: every frame once, no credit healed or doubled. */
static void
test_replays_counted_once(void **state)
{
	uint64_t t;

	(void)state;
	link_setup();
	wab.p_data = 0.01;
	t = link_up(3000);
	t = run(t, 20000);
	assert_int_equal(ea.sent, 3000);
	assert_true(wab.data_lost > 0);
	assert_true(ea.l->ctr[RSW_LLR_tx_replayed] > 0);
	assert_int_equal(ea.l->ctr[RSW_LLR_tx_flushes], 0);
	run(t, 1000);
	assert_int_equal(eb.n_got, 3000);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_healed], 0);
	assert_at_rest();
	link_free();
}

/*
 * For 4 ms the data wire loses every frame and the way back every LLR frame: LLR FLUSHes the
 * frames the credits were spent on, then sends plain while its INIT goes unanswered, and
 * those are lost too. Their credits come back: the sender is not left stalled, and at rest
 * the credits add up.
 */
static void
test_flush_lost_frames_heal(void **state)
{
	uint64_t t;

	(void)state;
	link_setup();
	t = link_up(3000);
	t = run(t, 1000);
	wab.data_dead = wba.llr_dead = 1;
	t = run(t, 4000);
	wab.data_dead = wba.llr_dead = 0;
	assert_true(ea.l->ctr[RSW_LLR_tx_flushes] >= 1);
	assert_true(ea.l->ctr[RSW_LLR_tx_flushed_frames] > 0);
	assert_true(ea.l->ctr[RSW_LLR_tx_fallback_plain] > 0);
	t = run(t, 20000);
	assert_int_equal(ea.sent, 3000);
	run(t, 1000);
	assert_true(eb.n_got < 3000);
	assert_true(eb.c.vc[VC].ctr[RSW_CBFC_credits_healed] > 0);
	assert_at_rest();
	link_free();
}

/*
 * The receiver is descheduled for 4 ms with frames on the wire to it: the sender's LLR
 * FLUSHes frames that have in fact arrived (b takes them when it wakes, in the old LLR
 * session). They are counted once: not healed, not granted twice.
 */
static void
test_flush_arrived_frames_once(void **state)
{
	uint64_t t;

	(void)state;
	link_setup();
	t = link_up(3000);
	t = run(t, 1000);
	eb.stall_until = t + 4000 * 1000;
	t = run(t, 6000);
	assert_true(ea.l->ctr[RSW_LLR_tx_flushes] >= 1);
	assert_true(ea.l->ctr[RSW_LLR_tx_flushed_frames] > 0);
	t = run(t, 20000);
	run(t, 1000);
	assert_int_equal(ea.sent, 3000);
	assert_int_equal(eb.n_got, 3000);
	assert_at_rest();
	link_free();
}

/*
 * All of it at once: 1 % of the data lost, 20 % of the credit messages lost and 20 %
 * duplicated both ways, the wire dead for 3 ms and later the receiver descheduled for 4 ms.
 */
static void
test_flush_with_credit_messages_lost_and_duplicated(void **state)
{
	uint64_t t;

	(void)state;
	link_setup();
	wab.p_data = 0.01;
	wab.p_cbfc = wba.p_cbfc = 0.2;
	wab.p_dup_cbfc = wba.p_dup_cbfc = 0.2;
	t = link_up(4000);
	t = run(t, 2000);
	wab.dead = 1;
	t = run(t, 3000);
	wab.dead = 0;
	t = run(t, 3000);
	eb.stall_until = t + 4000 * 1000;
	t = run(t, 30000);
	assert_int_equal(ea.sent, 4000);
	assert_true(ea.l->ctr[RSW_LLR_tx_flushes] >= 2);
	assert_true(wab.cbfc_lost > 0 && wba.cbfc_lost > 0);
	assert_true(wab.cbfc_dup > 0 && wba.cbfc_dup > 0);
	/* A refresh at rest, with nothing lost. */
	wab.p_cbfc = wba.p_cbfc = 0;
	wab.p_data = 0;
	run(t, 1000);
	assert_at_rest();
	link_free();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replays_counted_once),
		cmocka_unit_test(test_flush_lost_frames_heal),
		cmocka_unit_test(test_flush_arrived_frames_once),
		cmocka_unit_test(test_flush_with_credit_messages_lost_and_duplicated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
