/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of credit-based flow control (dataplane/link/rsw_cbfc.h): the credit message
 * codec (bad input first), then two machines joined by a simulated FIFO wire on a simulated
 * clock: the handshake, a peer that does not answer (fallback), a slow receiver that must
 * never be overrun, lost credit updates and lost data frames that heal, the watchdog, and a
 * receiver that restarts.
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

#include "llr_shim.h"
#include "rsw_cbfc.h"

static const uint8_t mac_a[6] = {2, 0, 0, 0, 0, 1};
static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0, 0, 0x0f};

/* --- The codec ------------------------------------------------------------------------ */

static void
test_frame_bad(void **state)
{
	struct rsw_cbfc_msg m = {.type = RSW_CBFC_T_CREDIT, .vcs = 0x08, .bpc = 64, .session = 7};
	struct rsw_cbfc_msg out;
	uint8_t f[RSW_CBFC_FRAME_LEN + 8];
	size_t i;

	(void)state;
	/* Not a credit message: short, or another EtherType. */
	memset(f, 0, sizeof(f));
	assert_int_equal(rsw_cbfc_frame_decode(f, 0, &out), RSW_CBFC_FRAME_NOT_CBFC);
	assert_int_equal(rsw_cbfc_frame_decode(f, 13, &out), RSW_CBFC_FRAME_NOT_CBFC);
	f[12] = 0x88;
	f[13] = 0xB5; /* LLR */
	assert_int_equal(rsw_cbfc_frame_decode(f, sizeof(f), &out), RSW_CBFC_FRAME_NOT_CBFC);
	/* Encoder: unknown type and flags refused. */
	m.type = 0;
	assert_int_equal(rsw_cbfc_frame_encode(f, dst, mac_a, &m), -EINVAL);
	m.type = 5;
	assert_int_equal(rsw_cbfc_frame_encode(f, dst, mac_a, &m), -EINVAL);
	m.type = RSW_CBFC_T_CREDIT;
	m.flags = 0x02;
	assert_int_equal(rsw_cbfc_frame_encode(f, dst, mac_a, &m), -EINVAL);
	m.flags = 0;
	m.value[3] = 12345;
	assert_int_equal(rsw_cbfc_frame_encode(f, dst, mac_a, &m), RSW_CBFC_FRAME_LEN);
	/* Truncated anywhere: malformed; every single bit flipped: caught. */
	for (i = 14; i < RSW_CBFC_FRAME_LEN; i++)
		assert_int_equal(rsw_cbfc_frame_decode(f, i, &out), RSW_CBFC_FRAME_MALFORMED);
	for (i = 14 * 8; i < RSW_CBFC_FRAME_LEN * 8; i++) {
		enum rsw_cbfc_frame_err e;

		f[i / 8] ^= (uint8_t)(1u << (i % 8));
		e = rsw_cbfc_frame_decode(f, RSW_CBFC_FRAME_LEN, &out);
		if (i / 8 == 12 || i / 8 == 13)
			assert_int_equal(e, RSW_CBFC_FRAME_NOT_CBFC);
		else
			assert_int_equal(e, RSW_CBFC_FRAME_BAD_CRC);
		f[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	/* Padding after the message is ignored. */
	assert_int_equal(rsw_cbfc_frame_decode(f, sizeof(f), &out), RSW_CBFC_FRAME_OK);
}

/* A message of type with bpc, re-checksummed: whether the decoder takes it. */
static enum rsw_cbfc_frame_err
decode_with(uint8_t type, uint8_t flags, uint16_t bpc)
{
	struct rsw_cbfc_msg m = {.type = RSW_CBFC_T_CREDIT, .vcs = 1, .bpc = 64};
	struct rsw_cbfc_msg out;
	uint8_t f[RSW_CBFC_FRAME_LEN];
	uint32_t crc;

	rsw_cbfc_frame_encode(f, dst, mac_a, &m);
	/* Write the fields the encoder refuses or checks, then fix the checksum. */
	f[14] = (uint8_t)((RSW_CBFC_VERSION << 4) | type);
	f[16] = flags;
	f[18] = (uint8_t)(bpc >> 8);
	f[19] = (uint8_t)bpc;
	crc = rsw_llr_crc32c(f, 56);
	f[56] = (uint8_t)(crc >> 24);
	f[57] = (uint8_t)(crc >> 16);
	f[58] = (uint8_t)(crc >> 8);
	f[59] = (uint8_t)crc;
	return rsw_cbfc_frame_decode(f, sizeof(f), &out);
}

static void
test_frame_fields(void **state)
{
	(void)state;
	assert_int_equal(decode_with(0, 0, 64), RSW_CBFC_FRAME_MALFORMED);
	assert_int_equal(decode_with(5, 0, 64), RSW_CBFC_FRAME_MALFORMED);
	assert_int_equal(decode_with(RSW_CBFC_T_CREDIT, 0x02, 64), RSW_CBFC_FRAME_MALFORMED);
	assert_int_equal(decode_with(RSW_CBFC_T_INIT, RSW_CBFC_F_REINIT, 64),
			 RSW_CBFC_FRAME_MALFORMED);
	assert_int_equal(decode_with(RSW_CBFC_T_CREDIT, 0, 31), RSW_CBFC_FRAME_MALFORMED);
	assert_int_equal(decode_with(RSW_CBFC_T_CREDIT, 0, 2049), RSW_CBFC_FRAME_MALFORMED);
	assert_int_equal(decode_with(RSW_CBFC_T_CONSUMED, 0, 64), RSW_CBFC_FRAME_MALFORMED);
	assert_int_equal(decode_with(RSW_CBFC_T_CONSUMED, 0, 0), RSW_CBFC_FRAME_OK);
	assert_int_equal(decode_with(RSW_CBFC_T_INIT, 0, 32), RSW_CBFC_FRAME_OK);
	assert_int_equal(decode_with(RSW_CBFC_T_CREDIT, RSW_CBFC_F_REINIT, 2048),
			 RSW_CBFC_FRAME_OK);
}

static void
test_frame_roundtrip(void **state)
{
	struct rsw_cbfc_msg m = {
		.type = RSW_CBFC_T_INIT_ECHO, .vcs = 0x88, .bpc = 128, .session = 0xdeadbeef};
	struct rsw_cbfc_msg out;
	uint8_t f[RSW_CBFC_FRAME_LEN];

	(void)state;
	m.value[3] = 0xfffffff0u;
	m.value[7] = 42;
	m.value[1] = 99; /* not in vcs: sent as 0 */
	assert_int_equal(rsw_cbfc_frame_encode(f, dst, mac_a, &m), RSW_CBFC_FRAME_LEN);
	assert_memory_equal(f, dst, 6);
	assert_memory_equal(f + 6, mac_a, 6);
	assert_int_equal(f[12], 0x88);
	assert_int_equal(f[13], 0xB6);
	assert_int_equal(rsw_cbfc_frame_decode(f, sizeof(f), &out), RSW_CBFC_FRAME_OK);
	assert_int_equal(out.type, RSW_CBFC_T_INIT_ECHO);
	assert_int_equal(out.vcs, 0x88);
	assert_int_equal(out.bpc, 128);
	assert_int_equal(out.session, 0xdeadbeef);
	assert_int_equal(out.value[3], 0xfffffff0u);
	assert_int_equal(out.value[7], 42);
	assert_int_equal(out.value[1], 0);
}

static void
test_params_bad(void **state)
{
	struct rsw_cbfc_params p;
	struct rsw_cbfc c;

	(void)state;
	rsw_cbfc_params_default(&p);
	assert_int_equal(rsw_cbfc_init(&c, &p), -EINVAL); /* no VC */
	p.vcs = 0x08;
	assert_int_equal(rsw_cbfc_init(NULL, &p), -EINVAL);
	assert_int_equal(rsw_cbfc_init(&c, NULL), -EINVAL);
	p.bytes_per_credit = 31;
	assert_int_equal(rsw_cbfc_init(&c, &p), -EINVAL);
	p.bytes_per_credit = 2049;
	assert_int_equal(rsw_cbfc_init(&c, &p), -EINVAL);
	p.bytes_per_credit = 64;
	p.buffer_bytes = 63;
	assert_int_equal(rsw_cbfc_init(&c, &p), -EINVAL);
	p.buffer_bytes = 1 << 20;
	p.spacing_bytes = 799;
	assert_int_equal(rsw_cbfc_init(&c, &p), -EINVAL);
	p.spacing_bytes = 65537;
	assert_int_equal(rsw_cbfc_init(&c, &p), -EINVAL);
	p.spacing_bytes = 0;
	p.refresh_ns = 0;
	assert_int_equal(rsw_cbfc_init(&c, &p), -EINVAL);
	p.refresh_ns = 1000;
	assert_int_equal(rsw_cbfc_init(&c, &p), 0);
	/* The default spacing: a quarter of the buffer within the published bounds. */
	assert_int_equal(c.p.spacing_bytes, RSW_CBFC_SPACING_MAX);
	p.buffer_bytes = 1024;
	assert_int_equal(rsw_cbfc_init(&c, &p), 0);
	assert_int_equal(c.p.spacing_bytes, RSW_CBFC_SPACING_MIN);
	/* Off: nothing gated, nothing sent. */
	assert_int_equal(rsw_cbfc_tx_take(&c, 3, 1500, 1), 1);
	assert_int_equal(c.vc[3].ctr[RSW_CBFC_credits_consumed], 0);
	assert_string_equal(rsw_cbfc_state_name(RSW_CBFC_FALLBACK), "fallback");
	assert_string_equal(rsw_cbfc_state_name(9), "unknown");
	assert_string_equal(rsw_cbfc_vc_ctr_name(RSW_CBFC_stalled_ns), "stalled_ns");
	assert_null(rsw_cbfc_vc_ctr_name(RSW_N_CBFC_VC_CTRS));
	assert_string_equal(rsw_cbfc_ctr_name(RSW_CBFC_credit_msgs_rx), "credit_msgs_rx");
	assert_int_equal(rsw_cbfc_credits(1, 64), 1);
	assert_int_equal(rsw_cbfc_credits(64, 64), 1);
	assert_int_equal(rsw_cbfc_credits(65, 64), 2);
}

/* --- A simulated link ----------------------------------------------------------------- */

#define WIRE_MAX 65536
#define VC       3
#define BUF      (16 * 1024)

struct item {
	uint64_t at;
	int is_msg;
	struct rsw_cbfc_msg m; /* a credit message */
	uint32_t len;          /* a data frame */
};

struct wire {
	struct item q[WIRE_MAX];
	uint32_t head, tail;
	uint64_t latency;
	uint64_t rng;
	double p_lose_msg;  /* credit messages lost */
	double p_lose_data; /* data frames lost */
	int dead;           /* nothing arrives */
	uint64_t lost_data;
};

struct end {
	struct rsw_cbfc c;
	int enabled;          /* runs CBFC; else its receiver ignores credit messages */
	struct wire *out;     /* what it sends */
	uint64_t occ;         /* receiver: bytes held on VC */
	uint64_t occ_max;     /* the most it held */
	uint64_t received;    /* receiver: data frames */
	uint32_t drain_every; /* receiver: one frame leaves every this many µs (0: never) */
	uint32_t held[WIRE_MAX];
	uint32_t n_held, held_head;
	uint64_t to_send, sent; /* sender: frames of 1000 bytes queued / sent */
	/* A sender under LLR, roughly: each frame a sequence; a lost frame stays in the replay
	 * ring (the tail stops at it) until flushed, the others are acknowledged at once. */
	int llr, llr_stuck;
	uint32_t llr_next, llr_tail;
};

static double
rnd(struct wire *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (double)(w->rng >> 11) / (double)(1ull << 53);
}

static void
wire_put(struct wire *w, uint64_t now, const struct item *it)
{
	assert_true(w->tail - w->head < WIRE_MAX);
	w->q[w->tail % WIRE_MAX] = *it;
	w->q[w->tail % WIRE_MAX].at = now + w->latency;
	w->tail++;
}

static void
setup_end(struct end *e, struct wire *out, uint8_t fallback)
{
	struct rsw_cbfc_params p;

	memset(e, 0, sizeof(*e));
	rsw_cbfc_params_default(&p);
	p.vcs = 1u << VC;
	p.buffer_bytes = BUF;
	p.fallback = fallback;
	p.update_interval_ns = 5000;
	p.refresh_ns = 100 * 1000;
	p.consumed_interval_ns = 100 * 1000;
	p.init_interval_ns = 50 * 1000;
	p.fallback_timeout_ns = 500 * 1000;
	p.watchdog_ns = 2 * 1000 * 1000;
	assert_int_equal(rsw_cbfc_init(&e->c, &p), 0);
	e->out = out;
	e->enabled = 1;
}

/* One µs of one end: receive what arrived, drain, poll, send. */
static void
step(struct end *e, struct wire *in, uint64_t now)
{
	uint64_t occupied[RSW_CBFC_N_VC] = {0};
	struct rsw_cbfc_msg msgs[8];
	unsigned int k, n;

	while (in->head != in->tail && in->q[in->head % WIRE_MAX].at <= now) {
		struct item *it = &in->q[in->head % WIRE_MAX];

		in->head++;
		if (in->dead)
			continue;
		if (it->is_msg) {
			if (e->enabled)
				rsw_cbfc_rx_msg(&e->c, &it->m, now);
			continue;
		}
		e->received++;
		if (e->enabled)
			rsw_cbfc_rx_data(&e->c, VC, it->len);
		e->held[(e->held_head + e->n_held++) % WIRE_MAX] = it->len;
		e->occ += it->len;
		if (e->occ > e->occ_max)
			e->occ_max = e->occ;
	}
	if (e->drain_every && now % e->drain_every == 0 && e->n_held > 0) {
		e->occ -= e->held[e->held_head % WIRE_MAX];
		e->held_head++;
		e->n_held--;
	}
	if (!e->enabled)
		return;
	occupied[VC] = e->occ;
	if (e->llr) {
		if (!e->llr_stuck)
			e->llr_tail = e->llr_next;
		rsw_cbfc_tx_window(&e->c, e->llr_next, e->llr_tail);
	}
	n = rsw_cbfc_poll(&e->c, now, occupied, 1, msgs, 8);
	for (k = 0; k < n; k++) {
		struct item it = {.is_msg = 1, .m = msgs[k]};

		if (e->out->p_lose_msg > 0 && rnd(e->out) < e->out->p_lose_msg)
			continue;
		wire_put(e->out, now, &it);
	}
	/* The sender: up to 4 frames a µs, each against credits. */
	for (k = 0; k < 4 && e->sent < e->to_send; k++) {
		struct item it = {.len = 1000};

		if (!rsw_cbfc_tx_take(&e->c, VC, it.len, now))
			break;
		e->sent++;
		e->llr_next++;
		if (e->out->p_lose_data > 0 && rnd(e->out) < e->out->p_lose_data) {
			e->out->lost_data++;
			e->llr_stuck |= e->llr; /* never replayed here: in the ring until a FLUSH */
			continue;
		}
		wire_put(e->out, now, &it);
	}
}

static struct wire wab, wba; /* a → b, b → a */
static struct end ea, eb;

static void
link_setup(uint8_t fallback)
{
	memset(&wab, 0, sizeof(wab));
	memset(&wba, 0, sizeof(wba));
	wab.latency = wba.latency = 5000;
	wab.rng = 88172645463325252ull;
	wba.rng = 0x9e3779b97f4a7c15ull;
	setup_end(&ea, &wab, fallback);
	setup_end(&eb, &wba, fallback);
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

static void
test_handshake(void **state)
{
	uint64_t t;

	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	rsw_cbfc_start(&ea.c, 1000);
	rsw_cbfc_start(&eb.c, 1000);
	assert_int_equal(ea.c.tx_state, RSW_CBFC_INIT);
	/* Before the handshake the receiver guards the VC with PFC; lossy TCs never lose it. */
	assert_false(rsw_cbfc_rx_no_pfc(&eb.c, VC));
	assert_false(rsw_cbfc_rx_no_pfc(&eb.c, 2));
	t = run(1000, 50);
	assert_int_equal(ea.c.tx_state, RSW_CBFC_ACTIVE);
	assert_int_equal(eb.c.tx_state, RSW_CBFC_ACTIVE);
	assert_true(rsw_cbfc_tx_gated(&ea.c, VC));
	assert_false(rsw_cbfc_tx_gated(&ea.c, 2));
	assert_true(rsw_cbfc_rx_no_pfc(&eb.c, VC));
	/* The initial grant: the whole buffer. */
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_credits_tx_available], BUF / 64);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_granted], BUF / 64);
	assert_int_equal(ea.c.ctr[RSW_CBFC_inits_tx], 1);
	assert_int_equal(eb.c.ctr[RSW_CBFC_inits_rx], 1);
	/* A lossy TC is never gated: a take always passes and spends nothing. */
	assert_int_equal(rsw_cbfc_tx_take(&ea.c, 2, 9000, t), 1);
	assert_int_equal(ea.c.vc[2].ctr[RSW_CBFC_credits_consumed], 0);
}

static void
test_no_peer_fallback(void **state)
{
	uint64_t n0;

	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	eb.enabled = 0; /* a peer without CBFC */
	rsw_cbfc_start(&ea.c, 1000);
	run(1000, 400);
	assert_int_equal(ea.c.tx_state, RSW_CBFC_INIT);
	run(401000, 200);
	assert_int_equal(ea.c.tx_state, RSW_CBFC_FALLBACK);
	assert_int_equal(ea.c.ctr[RSW_CBFC_fallbacks], 1);
	/* In fallback, INIT goes ten times less often: every 500 µs here, not 50. */
	n0 = ea.c.ctr[RSW_CBFC_inits_tx];
	run(601000, 5000);
	assert_in_range(ea.c.ctr[RSW_CBFC_inits_tx] - n0, 9, 11);
	assert_false(rsw_cbfc_tx_gated(&ea.c, VC));
	assert_false(rsw_cbfc_rx_no_pfc(&ea.c, VC)); /* fallback pfc: PFC guards the VC */
	ea.to_send = 100;
	run(5601000, 100);
	assert_int_equal(eb.received, 100); /* not gated: sent as without CBFC */
	/* The peer starts speaking CBFC later: found by the slower INITs of fallback. */
	eb.enabled = 1;
	rsw_cbfc_start(&eb.c, 5701000);
	run(5701000, 600);
	assert_int_equal(ea.c.tx_state, RSW_CBFC_ACTIVE);
	/* The INIT carried what was spent before: the receiver starts from the same count. */
	assert_int_equal(eb.c.vc[VC].arrived, ea.c.vc[VC].consumed);

	/* fallback none: nothing guards the VC, not even before a handshake. */
	link_setup(RSW_CBFC_FB_NONE);
	eb.enabled = 0;
	rsw_cbfc_start(&ea.c, 1000);
	assert_true(rsw_cbfc_rx_no_pfc(&ea.c, VC));
	assert_false(rsw_cbfc_rx_no_pfc(&ea.c, 2));
}

/* Both ends up, a backlog at a; b drains slowly. @return the time reached. */
static uint64_t
incast(uint64_t frames, uint32_t drain_every, uint64_t us)
{
	uint64_t t;

	rsw_cbfc_start(&ea.c, 1000);
	rsw_cbfc_start(&eb.c, 1000);
	t = run(1000, 50);
	ea.to_send = frames;
	eb.drain_every = drain_every;
	return run(t, us);
}

/* At rest: everything arrived and drained; what b granted is what a spent and may spend. */
static void
assert_at_rest(void)
{
	assert_int_equal(eb.n_held, 0);
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_credits_tx_available], BUF / 64);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_granted],
			 ea.c.vc[VC].ctr[RSW_CBFC_credits_consumed] +
				 ea.c.vc[VC].ctr[RSW_CBFC_credits_tx_available]);
}

static void
test_slow_receiver(void **state)
{
	uint64_t t, na, nb;

	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	/* 3000 frames of 1000 B offered at 4 a µs; b takes one every 2 µs. */
	t = incast(3000, 2, 12000);
	assert_int_equal(ea.sent, 3000);
	assert_int_equal(eb.received, 3000);
	/* Never more than granted: the buffer plus one credit of rounding per held frame. */
	assert_true(eb.occ_max <= BUF + 64 * (BUF / 1000 + 1));
	assert_true(eb.occ_max >= BUF / 2); /* and the credits kept the link busy */
	assert_true(ea.c.vc[VC].ctr[RSW_CBFC_stalled_ns] > 0);
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_watchdog_stalls], 0);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_healed], 0);
	assert_at_rest();
	/* A link at rest falls silent once the last change was repeated. */
	t = run(t, 5000);
	na = ea.c.ctr[RSW_CBFC_credit_msgs_tx];
	nb = eb.c.ctr[RSW_CBFC_credit_msgs_tx];
	run(t, 20000);
	assert_int_equal(ea.c.ctr[RSW_CBFC_credit_msgs_tx], na);
	assert_int_equal(eb.c.ctr[RSW_CBFC_credit_msgs_tx], nb);
}

static void
test_lost_updates_heal(void **state)
{
	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	wba.p_lose_msg = 0.3; /* b's credit updates */
	incast(3000, 2, 20000);
	assert_int_equal(eb.received, 3000);
	assert_true(eb.occ_max <= BUF + 64 * (BUF / 1000 + 1));
	wba.p_lose_msg = 0;
	run(30000000, 300); /* a refresh at rest */
	assert_at_rest();
}

static void
test_lost_data_heals(void **state)
{
	uint64_t t;

	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	wab.p_lose_data = 0.01;
	t = incast(3000, 2, 20000);
	assert_int_equal(ea.sent, 3000);
	assert_true(wab.lost_data > 0);
	assert_int_equal(eb.received + wab.lost_data, 3000);
	/* The sender's CONSUMED returned the credits of the lost frames. */
	run(t, 300);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_healed], wab.lost_data * 16);
	assert_at_rest();
}

/*
 * Under LLR a frame missing at a CONSUMED may be replayed later: while the ring holds it,
 * nothing is healed. A FLUSH drops it for good: the next CONSUMED returns its credits, and
 * the credits add up again (this simulation never replays, so only the FLUSH ends it).
 */
static void
test_reliable_flush_heals(void **state)
{
	uint64_t t;

	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	ea.c.p.reliable = eb.c.p.reliable = 1;
	ea.llr = 1;
	wab.p_lose_data = 0.01;
	t = incast(1000, 2, 5000);
	assert_true(wab.lost_data > 0);
	assert_int_equal(eb.received + wab.lost_data, ea.sent);
	t = run(t, 2000);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_healed], 0);
	assert_int_equal(eb.c.vc[VC].arrived, eb.received * 16);
	/* The lost frames' credits are spent while LLR might replay them. */
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_credits_tx_available],
			 BUF / 64 - wab.lost_data * 16);
	/* FLUSH: the ring is emptied, its frames never sent again. */
	ea.llr_stuck = 0;
	run(t, 500);
	assert_int_equal(eb.c.vc[VC].ctr[RSW_CBFC_credits_healed], wab.lost_data * 16);
	assert_at_rest();
}

static void
test_watchdog(void **state)
{
	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	incast(1000, 0, 1000); /* b never drains */
	assert_int_equal(eb.received, BUF / 1024);
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_watchdog_stalls], 0);
	run(1052000, 2000);
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_watchdog_stalls], 1);
	run(3052000, 3000); /* one stall, counted once */
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_watchdog_stalls], 1);
	/* Credit returns: the stall ends and its time is counted. */
	eb.drain_every = 1;
	run(6052000, 5000);
	assert_int_equal(ea.sent, 1000);
	assert_true(ea.c.vc[VC].ctr[RSW_CBFC_stalled_ns] >= 5000000ull);
}

static void
test_receiver_restart(void **state)
{
	uint64_t t;
	uint32_t s0;

	(void)state;
	link_setup(RSW_CBFC_FB_PFC);
	t = incast(500, 1, 1000);
	assert_int_equal(eb.received, 500);
	s0 = ea.c.tx_session;
	/* b restarts: it lost a's session; a's next CONSUMED is answered with REINIT. */
	setup_end(&eb, &wba, RSW_CBFC_FB_PFC);
	eb.drain_every = 1;
	rsw_cbfc_start(&eb.c, t);
	ea.to_send = 1000;
	t = run(t, 2000);
	assert_true(ea.c.tx_session != s0);
	assert_int_equal(ea.c.tx_state, RSW_CBFC_ACTIVE);
	assert_true(eb.c.rx_synced);
	assert_int_equal(eb.received, 500);
	run(t, 300);
	assert_int_equal(eb.n_held, 0);
	assert_int_equal(ea.c.vc[VC].ctr[RSW_CBFC_credits_tx_available], BUF / 64);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_bad),
		cmocka_unit_test(test_frame_fields),
		cmocka_unit_test(test_frame_roundtrip),
		cmocka_unit_test(test_params_bad),
		cmocka_unit_test(test_handshake),
		cmocka_unit_test(test_no_peer_fallback),
		cmocka_unit_test(test_slow_receiver),
		cmocka_unit_test(test_lost_updates_heal),
		cmocka_unit_test(test_lost_data_heals),
		cmocka_unit_test(test_watchdog),
		cmocka_unit_test(test_receiver_restart),
		cmocka_unit_test(test_reliable_flush_heals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
