/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The simulated link of the LLR machine tests (test_llr.c, test_llr_timer.c): two ends a
 * and b, each a struct rsw_llr, joined by two wires with a latency, scripted losses (by
 * sequence, by control type, a dead wire, a duplicated frame) and random losses and
 * corruption, on a clock that advances 1 µs a step. An end can be stalled (descheduled):
 * it neither receives nor polls until a given time, and what is sent to it waits on the
 * wire. Include after cmocka.h.
 */

#ifndef RSW_TEST_LLR_SIM_H
#define RSW_TEST_LLR_SIM_H

#include <stdint.h>
#include <stdlib.h>

#include <rte_common.h>

#include "rsw_llr.h"

#define WIRE_MAX 8192
#define N_FR     4096

/* A frame of the simulation: the ring's reference is counted in refs. */
struct tframe {
	uint32_t id;
	int refs;
};

struct tpkt {
	uint64_t at;            /* arrival time */
	struct rsw_llr_hdr hdr; /* seq, type, flags */
	struct tframe *f;       /* DATA */
	int bad;                /* corrupted on the wire */
};

struct wire {
	struct tpkt q[WIRE_MAX];
	uint32_t head, tail;
	uint64_t latency;
	/* Losses: by DATA sequence (once each), by control type (the next k), or everything. */
	uint32_t lose_seq[16];
	int n_lose_seq;
	uint8_t lose_ctl_type;
	int lose_ctl_count;
	int dead;
	int dup_seq_set;
	uint32_t dup_seq; /* DATA with this sequence arrives twice (once) */
	/* Randomized faults. */
	uint64_t rng;
	double p_loss, p_bad;
	uint64_t lost, corrupted;           /* by the random faults */
	uint64_t data_lost, data_corrupted; /* the DATA frames among them */
};

struct end {
	struct rsw_llr *l;
	struct wire *out;     /* what this end sends */
	uint64_t stall_until; /* descheduled: neither receives nor polls before this time */
	uint32_t delivered[N_FR * 32];
	uint32_t n_delivered;
	uint64_t released;
};

static struct tframe frames[N_FR];

static inline void
release_cb(void *arg, void **h, unsigned int n)
{
	struct end *e = arg;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct tframe *f = h[i];

		assert_true(f->refs > 0);
		f->refs--;
	}
	e->released += n;
}

static inline struct rsw_llr *
llr_new(const struct rsw_llr_params *p, struct end *e)
{
	struct rsw_llr *l = calloc(1, rsw_llr_mem_size(p->frames_max));

	assert_non_null(l);
	assert_int_equal(rsw_llr_init(l, p, release_cb, e), 0);
	return l;
}

static inline uint64_t
xrand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static inline int
chance(struct wire *w, double p)
{
	return p > 0 && (double)(xrand(&w->rng) >> 11) * 0x1.0p-53 < p;
}

static inline void
wire_put(struct wire *w, const struct tpkt *p, uint64_t now)
{
	int i;

	if (w->dead)
		return;
	if (p->hdr.type == RSW_LLR_T_DATA) {
		for (i = 0; i < w->n_lose_seq; i++) {
			if (w->lose_seq[i] == p->hdr.seq) {
				w->lose_seq[i] = w->lose_seq[--w->n_lose_seq];
				return;
			}
		}
	} else if (w->lose_ctl_count > 0 && p->hdr.type == w->lose_ctl_type) {
		w->lose_ctl_count--;
		return;
	}
	if (chance(w, w->p_loss)) {
		w->lost++;
		w->data_lost += p->hdr.type == RSW_LLR_T_DATA;
		return;
	}
	assert_true(w->tail - w->head < WIRE_MAX);
	w->q[w->tail % WIRE_MAX] = *p;
	w->q[w->tail % WIRE_MAX].at = now + w->latency;
	if (chance(w, w->p_bad)) {
		w->q[w->tail % WIRE_MAX].bad = 1;
		w->corrupted++;
		w->data_corrupted += p->hdr.type == RSW_LLR_T_DATA;
	}
	w->tail++;
	if (w->dup_seq_set && p->hdr.type == RSW_LLR_T_DATA && p->hdr.seq == w->dup_seq) {
		w->dup_seq_set = 0;
		wire_put(w, p, now);
	}
}

/* Send one new frame from e (f gets the ring's reference). @return the verdict. */
static inline enum rsw_llr_tx_verdict
send_new(struct end *e, struct tframe *f, uint64_t now)
{
	struct tpkt p = {0};
	enum rsw_llr_tx_verdict v;
	uint32_t seq;

	v = rsw_llr_tx_data(e->l, f, 1000, now, &seq);
	if (v == RSW_LLR_TX_SEQ) {
		f->refs++;
		p.hdr.type = RSW_LLR_T_DATA;
		p.hdr.seq = seq;
		p.f = f;
		wire_put(e->out, &p, now);
	}
	return v;
}

/* Run e's timers and put what it sends on its wire. */
static inline void
poll_end(struct end *e, uint64_t now)
{
	struct rsw_llr_emit em[64];
	unsigned int n, i;

	do {
		n = rsw_llr_poll(e->l, now, em, RTE_DIM(em));
		for (i = 0; i < n; i++) {
			struct tpkt p = {0};

			p.hdr.type = em[i].type;
			p.hdr.flags = em[i].flags;
			p.hdr.seq = em[i].seq;
			p.f = em[i].h;
			if (p.f != NULL)
				assert_true(p.f->refs == 1); /* a replay is the ring's frame */
			wire_put(e->out, &p, now);
		}
	} while (n == RTE_DIM(em));
}

/* Deliver to e what has arrived on w by now. */
static inline void
deliver(struct wire *w, struct end *e, uint64_t now)
{
	while (w->head != w->tail && w->q[w->head % WIRE_MAX].at <= now) {
		struct tpkt *p = &w->q[w->head % WIRE_MAX];

		w->head++;
		if (p->bad) {
			rsw_llr_rx_bad(e->l, now);
			continue;
		}
		if (p->hdr.type != RSW_LLR_T_DATA) {
			rsw_llr_rx_ctl(e->l, &p->hdr, now);
			continue;
		}
		if (rsw_llr_rx_data(e->l, p->hdr.seq, 1000, now) == RSW_LLR_RX_ACCEPT) {
			assert_true(e->n_delivered < RTE_DIM(e->delivered));
			e->delivered[e->n_delivered++] = p->f->id;
		}
	}
}

struct link {
	struct wire ab, ba;
	struct end a, b;
	uint64_t now;
};

static struct link *lk;

static inline void
link_setup(const struct rsw_llr_params *p)
{
	uint32_t i;

	lk = calloc(1, sizeof(*lk));
	assert_non_null(lk);
	lk->ab.latency = lk->ba.latency = 2000; /* 2 µs each way */
	lk->a.out = &lk->ab;
	lk->b.out = &lk->ba;
	lk->a.l = llr_new(p, &lk->a);
	lk->b.l = llr_new(p, &lk->b);
	for (i = 0; i < N_FR; i++) {
		frames[i].id = i;
		frames[i].refs = 0;
	}
	lk->now = 1000000;
}

static inline void
link_free(void)
{
	free(lk->a.l);
	free(lk->b.l);
	free(lk);
	lk = NULL;
}

/* Advance the simulated clock by dt in steps of 1 µs, every end not stalled polled each step. */
static inline void
run(uint64_t dt)
{
	uint64_t end = lk->now + dt;

	while (lk->now < end) {
		lk->now += 1000;
		if (lk->now >= lk->b.stall_until)
			deliver(&lk->ab, &lk->b, lk->now);
		if (lk->now >= lk->a.stall_until)
			deliver(&lk->ba, &lk->a, lk->now);
		if (lk->now >= lk->a.stall_until)
			poll_end(&lk->a, lk->now);
		if (lk->now >= lk->b.stall_until)
			poll_end(&lk->b, lk->now);
	}
}

/* Both ends enabled and the handshake done both ways. */
static inline void
link_up(const struct rsw_llr_params *p)
{
	link_setup(p);
	rsw_llr_start(lk->a.l, lk->now);
	rsw_llr_start(lk->b.l, lk->now);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_INIT);
	run(20000);
	assert_int_equal(lk->a.l->tx_state, RSW_LLR_TX_ADVANCE);
	assert_int_equal(lk->b.l->tx_state, RSW_LLR_TX_ADVANCE);
	assert_int_equal(lk->a.l->rx_state, RSW_LLR_RX_SEND_ACKS);
	assert_int_equal(lk->b.l->rx_state, RSW_LLR_RX_SEND_ACKS);
}

/* Send frames [first, first + n) from a, one per µs. */
static inline void
send_range(uint32_t first, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		assert_int_equal(send_new(&lk->a, &frames[first + i], lk->now), RSW_LLR_TX_SEQ);
		run(1000);
	}
}

/* b got [0, n) exactly once and in order; a's ring is empty and every reference back. */
static inline void
assert_delivered_all(uint32_t n)
{
	uint32_t i;

	assert_int_equal(lk->b.n_delivered, n);
	for (i = 0; i < n; i++)
		assert_int_equal(lk->b.delivered[i], i);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_frames], 0);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_replay_buffer_bytes], 0);
	assert_int_equal(lk->a.released, n);
	for (i = 0; i < n; i++)
		assert_int_equal(frames[i].refs, 0);
	assert_int_equal(lk->a.l->ctr[RSW_LLR_tx_frames], n);
	assert_int_equal(lk->b.l->ctr[RSW_LLR_rx_frames], n);
}

#endif /* RSW_TEST_LLR_SIM_H */
