/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of step 5 of the packet path: rsw_lb_select (lb.c) in every mode but hash
 * (test_lb_hash.c), called directly on hand-built groups (rsw_group_fill_buckets gives the
 * bucket table and spray sequence) with a zeroed per-lcore state, a fake clock for flowlets
 * and hand-set queue depths (rsw_qos.port[].q_bytes) for adaptive; then CNPs and the
 * precedence of the modes. Members are marked down through rsw_lb_down, as the control thread
 * does.
 */

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
#include "test_common.h"
#include "test_lb_select.h"
#define N_PKTS 10000
/* ±2 % of the packets: the tolerance of the random shares (about 4.6 sigma at 25 %). */
#define TOL (N_PKTS * 2 / 100)

static void
assert_share(unsigned int got, double want, unsigned int tol, const char *what, unsigned int i)
{
	if (got + tol < want || got > want + tol)
		fail_msg("%s: member %u got %u, want %.1f ± %u", what, i, got, want, tol);
}

/* Bad input first. */

static void
test_lb_no_live_member(void **state)
{
	static const int modes[] = {RSW_LB_HASH, RSW_LB_SPRAY, RSW_LB_ADAPTIVE, RSW_LB_FLOWLET};
	struct rsw_tables *t = lb_tables_new();
	struct rsw_pkt_info info;
	unsigned int i, r;

	(void)state;
	lb_reset();
	group_new(t, 0, 4, NULL);
	/* An empty group (never built by tables.c, still safe). */
	t->groups[1].n_members = 0;
	t->groups[1].lb_mode = RSW_LB_UNSET;
	for (i = 0; i < RTE_DIM(modes); i++) {
		t->lb_mode = (int8_t)modes[i];
		for (r = 0; r < 2; r++) {
			t->spray_random = (uint8_t)r;
			/* Every member down: no member, in every mode, CNPs included. */
			rsw_lb_down[0] = 0x000f;
			assert_int_equal(pick(t, 0, &elephant, TC, &ls_a, 1), RSW_LB_NONE);
			flow_to_pkt(&elephant, TC, &info);
			info.flags |= RSW_PF_CNP;
			assert_int_equal(rsw_lb_select(t, &t->groups[0], 0, mbuf, &info, &ls_a, 2),
					 RSW_LB_NONE);
			assert_int_equal(pick(t, 1, &elephant, TC, &ls_a, 3), RSW_LB_NONE);
			/* Bits above n_members mean nothing: all 4 members are live. */
			rsw_lb_down[0] = 0xfff0;
			assert_true(pick(t, 0, &elephant, TC, &ls_a, 4) < 4);
		}
	}
	/* A flowlet whose member went down is not kept. */
	memset(rsw_lb_down, 0, sizeof(rsw_lb_down));
	t->lb_mode = RSW_LB_FLOWLET;
	i = pick(t, 0, &elephant, TC, &ls_a, 100);
	rsw_lb_down[0] = (uint16_t)(1u << i);
	for (r = 0; r < 100; r++)
		assert_int_not_equal(pick(t, 0, &elephant, TC, &ls_a, 101 + r), i);
	lb_tables_free(t);
}

/* Spray, round-robin. */

/*
 * The position walks the spray sequence and wraps (no division per frame); a position beyond
 * the sequence (left by a longer one of an older generation) starts over at its first entry;
 * a down member's entries are walked past.
 */
static void
test_lb_rr_position(void **state)
{
	struct rsw_group g;
	uint32_t pos = 7, i;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.n_members = 3;
	g.spray_len = 3;
	g.spray_seq[0] = 2;
	g.spray_seq[1] = 0;
	g.spray_seq[2] = 1;
	assert_int_equal(rsw_lb_spray_rr(&g, 0x7, &pos), 2);
	assert_int_equal(pos, 1);
	assert_int_equal(rsw_lb_spray_rr(&g, 0x7, &pos), 0);
	assert_int_equal(rsw_lb_spray_rr(&g, 0x7, &pos), 1);
	assert_int_equal(pos, 0);
	for (i = 0; i < 3000; i++)
		assert_int_equal(rsw_lb_spray_rr(&g, 0x7, &pos), g.spray_seq[i % 3]);
	/* Member 0 down: 2, 1, 2, 1, ... and the position passes over its entry. */
	for (i = 0; i < 10; i++)
		assert_int_equal(rsw_lb_spray_rr(&g, 0x6, &pos), i % 2 ? 1 : 2);
	assert_int_equal(pos, 0); /* 10 picks over 15 entries */
	pos = 1;
	assert_int_equal(rsw_lb_spray_rr(&g, 0, &pos), RSW_LB_NONE);
	assert_int_equal(pos, 1); /* a full turn */
}

static void
test_lb_rr_even(void **state)
{
	unsigned int counts[RSW_MAX_NEXTHOPS] = {0}, cb[4] = {0}, i, j, mn, mx;
	struct rsw_tables *t = lb_tables_new();
	uint32_t mi;

	(void)state;
	lb_reset();
	t->lb_mode = RSW_LB_SPRAY;
	group_new(t, 0, 4, NULL);
	group_new(t, 1, 4, NULL);
	/* 4000 packets of one flow on 4 members: exactly 1000 each, never more than 1 apart. */
	for (i = 0; i < 4000; i++) {
		mi = pick(t, 0, &elephant, TC, &ls_a, i);
		assert_true(mi < 4);
		counts[mi]++;
		/* Another group on the same worker and another worker do not disturb it. */
		if (i % 3 == 0)
			pick(t, 1, &elephant, TC, &ls_a, i);
		if (i % 2 == 0)
			cb[pick(t, 0, &elephant, TC, &ls_b, i)]++;
		mn = mx = counts[0];
		for (j = 1; j < 4; j++) {
			mn = RTE_MIN(mn, counts[j]);
			mx = RTE_MAX(mx, counts[j]);
		}
		if (mx - mn > 1)
			fail_msg("after %u packets: %u %u %u %u", i + 1, counts[0], counts[1],
				 counts[2], counts[3]);
	}
	for (j = 0; j < 4; j++) {
		assert_int_equal(counts[j], 1000);
		assert_int_equal(cb[j], 500);
	}
	/* 16 members: each gets exactly 1/16. */
	memset(&ls_a, 0, sizeof(ls_a));
	memset(counts, 0, sizeof(counts));
	group_new(t, 2, RSW_MAX_NEXTHOPS, NULL);
	for (i = 0; i < 16 * 250; i++)
		counts[pick(t, 2, &elephant, TC, &ls_a, i)]++;
	for (j = 0; j < RSW_MAX_NEXTHOPS; j++)
		assert_int_equal(counts[j], 250);
	lb_tables_free(t);
}

static void
test_lb_rr_weighted(void **state)
{
	static const uint32_t w13[] = {1, 3};
	static const uint32_t w1234[] = {1, 2, 3, 4};
	static const uint32_t wbig[] = {1, 1000};
	struct rsw_tables *t = lb_tables_new();
	unsigned int counts[RSW_MAX_NEXTHOPS], i, j, n, c;
	struct rsw_group *g;
	uint32_t mi, prev;

	(void)state;
	lb_reset();
	t->lb_mode = RSW_LB_SPRAY;
	/* 1:3, exact over every cycle of 4 packets. */
	g = group_new(t, 0, 2, w13);
	assert_int_equal(g->spray_len, 4);
	for (c = 0; c < 1000; c++) {
		memset(counts, 0, sizeof(counts));
		for (i = 0; i < 4; i++)
			counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
		assert_int_equal(counts[0], 1);
		assert_int_equal(counts[1], 3);
	}
	/* 1:2:3:4, exact over every cycle of 10. */
	g = group_new(t, 1, 4, w1234);
	assert_int_equal(g->spray_len, 10);
	for (c = 0; c < 100; c++) {
		memset(counts, 0, sizeof(counts));
		for (i = 0; i < 10; i++)
			counts[pick(t, 1, &elephant, TC, &ls_a, 0)]++;
		for (j = 0; j < 4; j++)
			assert_int_equal(counts[j], w1234[j]);
	}
	/* 1:1000 is scaled to the sequence length; the light member still gets a turn. */
	g = group_new(t, 2, 2, wbig);
	assert_true(g->spray_len <= RSW_LB_BUCKETS);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < g->spray_len; i++)
		counts[pick(t, 2, &elephant, TC, &ls_a, 0)]++;
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[1], g->spray_len - 1u);
	/* Equal weights interleave: no member twice in a row, across cycle ends too. */
	for (n = 2; n <= RSW_MAX_NEXTHOPS; n++) {
		memset(&ls_a, 0, sizeof(ls_a));
		group_new(t, 3, (uint16_t)n, NULL);
		prev = RSW_LB_NONE;
		for (i = 0; i < 5 * n + 1; i++) {
			mi = pick(t, 3, &elephant, TC, &ls_a, 0);
			if (mi == prev)
				fail_msg("%u members: member %u twice in a row at packet %u", n, mi,
					 i);
			prev = mi;
		}
	}
	lb_tables_free(t);
}

/* A member down under spray: its turns go evenly to the live members, not to one of them. */
static void
test_lb_spray_member_down(void **state)
{
	static const uint32_t w1234[] = {1, 2, 3, 4};
	struct rsw_tables *t = lb_tables_new();
	unsigned int counts[4], i, j;

	(void)state;
	lb_reset();
	t->lb_mode = RSW_LB_SPRAY;
	/* Round-robin, 1 of 4 down: exactly a third each. */
	group_new(t, 0, 4, NULL);
	rsw_lb_down[0] = 1u << 1;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 3000; i++)
		counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
	assert_int_equal(counts[1], 0);
	for (j = 0; j < 4; j++)
		if (j != 1)
			assert_int_equal(counts[j], 1000);
	/* Weighted 1:2:3:4 with the heaviest down: the others keep 1:2:3. */
	group_new(t, 1, 4, w1234);
	rsw_lb_down[1] = 1u << 3;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 6000; i++)
		counts[pick(t, 1, &elephant, TC, &ls_a, 0)]++;
	assert_int_equal(counts[0], 1000);
	assert_int_equal(counts[1], 2000);
	assert_int_equal(counts[2], 3000);
	assert_int_equal(counts[3], 0);
	/* Back up: even again, from the next cycle on. */
	rsw_lb_down[0] = 0;
	memset(&ls_a, 0, sizeof(ls_a));
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 4000; i++)
		counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
	for (j = 0; j < 4; j++)
		assert_int_equal(counts[j], 1000);
	/* Random, 1 of 4 down: a third each within ±2 %. */
	t->spray_random = 1;
	rsw_lb_down[0] = 1u << 2;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
	assert_int_equal(counts[2], 0);
	for (j = 0; j < 4; j++)
		if (j != 2)
			assert_share(counts[j], N_PKTS / 3.0, TOL, "random, one down", j);
	lb_tables_free(t);
}

/* Spray, random. */

static void
test_lb_random(void **state)
{
	static const uint32_t w13[] = {1, 3};
	static const uint32_t w1124[] = {1, 1, 2, 4};
	struct rsw_tables *t = lb_tables_new();
	unsigned int counts[4], i, j;

	(void)state;
	lb_reset();
	t->lb_mode = RSW_LB_SPRAY;
	t->spray_random = 1;
	group_new(t, 0, 4, NULL);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
	for (j = 0; j < 4; j++)
		assert_share(counts[j], N_PKTS / 4.0, TOL, "random 4", j);
	/* Not a round-robin in disguise: the round-robin position is left alone. */
	assert_int_equal(ls_a.rr[0], 0);

	group_new(t, 1, 2, w13);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 1, &elephant, TC, &ls_a, 0)]++;
	assert_share(counts[0], N_PKTS / 4.0, TOL, "random 1:3", 0);
	assert_share(counts[1], N_PKTS * 3 / 4.0, TOL, "random 1:3", 1);

	group_new(t, 2, 4, w1124);
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 2, &elephant, TC, &ls_a, 0)]++;
	for (j = 0; j < 4; j++)
		assert_share(counts[j], N_PKTS * w1124[j] / 8.0, TOL, "random 1:1:2:4", j);
	lb_tables_free(t);
}

/* Flowlet. */

static void
test_lb_flowlet_gap(void **state)
{
	struct rsw_tables *t = lb_tables_new();
	unsigned int i, k, moved = 0, n = 500;
	uint64_t now = 1000000;
	uint32_t m0, mi;

	(void)state;
	lb_reset();
	t->lb_mode = RSW_LB_FLOWLET;
	group_new(t, 0, 4, NULL);
	for (i = 0; i < n; i++) {
		struct flow f = flow_n(i);

		now += 10 * TICKS;
		m0 = pick(t, 0, &f, TC, &ls_a, now);
		assert_true(m0 < 4);
		/* The flow's member gets the deepest queue: only a new flowlet may leave it. */
		rsw_qos.port[m0].q_bytes[TC] = 1 << 20;
		/* Packets closer than the timeout, for 10 timeouts: the member holds. */
		for (k = 0; k < 20; k++) {
			now += TICKS / 2;
			assert_int_equal(pick(t, 0, &f, TC, &ls_a, now), m0);
		}
		now += TICKS - 1;
		assert_int_equal(pick(t, 0, &f, TC, &ls_a, now), m0);
		/* A gap of 3 timeouts: a new flowlet, the less loaded of two (m0 only if drawn twice). */
		now += 3 * TICKS;
		mi = pick(t, 0, &f, TC, &ls_a, now);
		assert_true(mi < 4);
		moved += mi != m0;
		/* The new member then holds in its turn. */
		for (k = 0; k < 5; k++) {
			now += TICKS / 4;
			assert_int_equal(pick(t, 0, &f, TC, &ls_a, now), mi);
		}
		rsw_qos.port[m0].q_bytes[TC] = 0;
	}
	/* P(stay) = (1/4)^2: about 31 of 500; 60 is over 5 sigma. */
	if (moved < n - 60)
		fail_msg("only %u of %u flowlets left the deep member after a gap", moved, n);
	lb_tables_free(t);
}

static void
test_lb_flowlet_table_bounded(void **state)
{
	struct rsw_tables *t = lb_tables_new();
	unsigned int i, valid = 0;
	uint64_t now = 5;

	(void)state;
	lb_reset();
	t->lb_mode = RSW_LB_FLOWLET;
	group_new(t, 0, 4, NULL);
	group_new(t, 1, 4, NULL);
	assert_int_equal(RTE_DIM(ls_a.flowlet), RSW_FLOWLET_ENTRIES);
	/* Far more flows than entries, in two groups: the table stays its size. */
	for (i = 0; i < 5 * RSW_FLOWLET_ENTRIES; i++) {
		struct flow f = flow_n(i);

		assert_true(pick(t, i % 2, &f, TC, &ls_a, now++) < 4);
	}
	for (i = 0; i < RSW_FLOWLET_ENTRIES; i++) {
		const struct rsw_flowlet *fl = &ls_a.flowlet[i];

		if (!fl->valid)
			continue;
		valid++;
		assert_true(fl->group < 2 && fl->member < 4);
		assert_int_equal(fl->tag & (RSW_FLOWLET_ENTRIES - 1), i);
	}
	assert_true(valid > RSW_FLOWLET_ENTRIES / 2 && valid <= RSW_FLOWLET_ENTRIES);
	/* The other worker's table was never touched. */
	for (i = 0; i < RSW_FLOWLET_ENTRIES; i++)
		assert_int_equal(ls_b.flowlet[i].valid, 0);
	lb_tables_free(t);
}

/* Adaptive. */

static void
test_lb_adaptive(void **state)
{
	static const unsigned int want16[] = {7, 5, 3, 1}; /* P(min of two draws = k), /16 */
	struct rsw_tables *t = lb_tables_new();
	unsigned int counts[4], i, j;

	(void)state;
	lb_reset();
	t->lb_mode = RSW_LB_ADAPTIVE;
	group_new(t, 0, 4, NULL);
	group_new(t, 1, 2, NULL);

	/* Two members, one deep: the shallow one wins every pick it is drawn for (3/4). */
	rsw_qos.port[0].q_bytes[TC] = 200000;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 1, &elephant, TC, &ls_a, 0)]++;
	assert_share(counts[1], N_PKTS * 3 / 4.0, TOL, "adaptive, 2 members", 1);
	/* Four members of depths 0 < 1 < 2 < 3 KB: the shallower of two, always. */
	for (j = 0; j < 4; j++)
		rsw_qos.port[j].q_bytes[TC] = 1000u * j;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
	for (j = 0; j < 4; j++)
		assert_share(counts[j], N_PKTS * want16[j] / 16.0, TOL, "adaptive, 4 depths", j);
	/*
	 * One deep member, three empty: a tie between two empty ones must not round-robin onto
	 * the deep one, which is taken only when drawn twice (1/16).
	 */
	memset(rsw_qos.port, 0, sizeof(rsw_qos.port));
	rsw_qos.port[2].q_bytes[TC] = 64000;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
	assert_share(counts[2], N_PKTS / 16.0, TOL, "adaptive, one deep", 2);
	for (j = 0; j < 4; j++)
		if (j != 2)
			assert_share(counts[j], N_PKTS * 5 / 16.0, TOL, "adaptive, one deep", j);
	/* Only the packet's own TC counts: another TC's depth changes nothing. */
	memset(rsw_qos.port, 0, sizeof(rsw_qos.port));
	rsw_qos.port[0].q_bytes[0] = 1 << 20;
	rsw_qos.port[1].q_bytes[7] = 1 << 20;
	/* Equal depths: round-robin (a draw of one member twice takes it), even within ±2 %. */
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < N_PKTS; i++)
		counts[pick(t, 0, &elephant, TC, &ls_a, 0)]++;
	for (j = 0; j < 4; j++)
		assert_share(counts[j], N_PKTS / 4.0, TOL, "adaptive, ties", j);
	assert_true(ls_a.rr[0] < t->groups[0].spray_len); /* the tie-break's position */
	/* A down member is never picked, even with the emptiest queue. */
	for (j = 0; j < 4; j++)
		rsw_qos.port[j].q_bytes[TC] = j == 0 ? 0 : 5000;
	rsw_lb_down[0] = 1u << 0;
	for (i = 0; i < 1000; i++)
		assert_int_not_equal(pick(t, 0, &elephant, TC, &ls_a, 0), 0);
	lb_tables_free(t);
}

/* CNPs and mode precedence. */

static void
test_lb_cnp_hash(void **state)
{
	static const int modes[] = {RSW_LB_SPRAY, RSW_LB_ADAPTIVE, RSW_LB_FLOWLET};
	struct rsw_tables *t = lb_tables_new();
	unsigned int i, k, seen;
	struct rsw_pkt_info info;
	uint32_t want, mi;
	uint64_t now = 0;

	(void)state;
	lb_reset();
	group_new(t, 0, 4, NULL);
	for (i = 0; i < RTE_DIM(modes); i++)
		for (k = 0; k < 3; k++) {
			/* By default, per TC or per route: spray, adaptive or flowlet ... */
			t->lb_mode = k == 0 ? (int8_t)modes[i] : RSW_LB_HASH;
			t->lb_per_tc[TC] = k == 1 ? (int8_t)modes[i] : RSW_LB_UNSET;
			t->groups[0].lb_mode = (int16_t)(k == 2 ? modes[i] : RSW_LB_UNSET);
			/* ... CNPs of a QP take the hash's member, packet after packet. */
			want = hash_member(t, 0, &elephant);
			for (seen = 0; seen < 1000; seen++) {
				flow_to_pkt(&elephant, TC, &info);
				info.flags |= RSW_PF_CNP;
				now += 10 * TICKS; /* every CNP a new flowlet */
				rsw_qos.port[want].q_bytes[TC] = 1 << 20;
				mi = rsw_lb_select(t, &t->groups[0], 0, mbuf, &info, &ls_a, now);
				assert_int_equal(mi, want);
			}
			rsw_qos.port[want].q_bytes[TC] = 0;
		}
	/* The same flow's data packets are sprayed over every member. */
	t->lb_mode = RSW_LB_SPRAY;
	t->lb_per_tc[TC] = RSW_LB_UNSET;
	t->groups[0].lb_mode = RSW_LB_UNSET;
	seen = 0;
	for (i = 0; i < 8; i++)
		seen |= 1u << pick(t, 0, &elephant, TC, &ls_a, 0);
	assert_int_equal(seen, 0xf);
	lb_tables_free(t);
}

/* Members one flow of class tc takes over n packets, as a bit mask. */
static unsigned int
members_seen(const struct rsw_tables *t, uint32_t gid, uint8_t tc, unsigned int n)
{
	unsigned int seen = 0, i;

	for (i = 0; i < n; i++)
		seen |= 1u << pick(t, gid, &elephant, tc, &ls_a, i);
	return seen;
}

static void
test_lb_mode_precedence(void **state)
{
	struct rsw_tables *t = lb_tables_new();
	struct rsw_group *g;
	struct rsw_pkt_info info;
	unsigned int one;

	(void)state;
	lb_reset();
	g = group_new(t, 0, 4, NULL);
	one = 1u << hash_member(t, 0, &elephant);
	flow_to_pkt(&elephant, TC, &info);

	/* Default only. */
	t->lb_mode = RSW_LB_HASH;
	assert_int_equal(rsw_lb_mode_of(t, g, &info), RSW_LB_HASH);
	assert_int_equal(members_seen(t, 0, TC, 100), one);
	/* Per TC over the default: TC 3 sprayed, TC 0 still hashed. */
	t->lb_per_tc[TC] = RSW_LB_SPRAY;
	assert_int_equal(rsw_lb_mode_of(t, g, &info), RSW_LB_SPRAY);
	assert_int_equal(members_seen(t, 0, TC, 100), 0xf);
	assert_int_equal(members_seen(t, 0, 0, 100), one);
	/* Route over per TC: a hash route keeps TC 3 on one member. */
	g->lb_mode = RSW_LB_HASH;
	assert_int_equal(rsw_lb_mode_of(t, g, &info), RSW_LB_HASH);
	assert_int_equal(members_seen(t, 0, TC, 100), one);
	/* Route over the default: a spray route spreads TC 0. */
	g->lb_mode = RSW_LB_SPRAY;
	assert_int_equal(members_seen(t, 0, 0, 100), 0xf);
	/* An explicit per-TC hash under a spray default. */
	g->lb_mode = RSW_LB_UNSET;
	t->lb_mode = RSW_LB_SPRAY;
	t->lb_per_tc[TC] = RSW_LB_HASH;
	assert_int_equal(members_seen(t, 0, TC, 100), one);
	assert_int_equal(members_seen(t, 0, 1, 100), 0xf);
	/* Per TC flowlet and adaptive resolve too. */
	t->lb_per_tc[TC] = RSW_LB_FLOWLET;
	assert_int_equal(rsw_lb_mode_of(t, g, &info), RSW_LB_FLOWLET);
	t->lb_per_tc[TC] = RSW_LB_ADAPTIVE;
	assert_int_equal(rsw_lb_mode_of(t, g, &info), RSW_LB_ADAPTIVE);
	info.flags |= RSW_PF_CNP;
	assert_int_equal(rsw_lb_mode_of(t, g, &info), RSW_LB_HASH);
	lb_tables_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lb_no_live_member),
		cmocka_unit_test(test_lb_rr_position),
		cmocka_unit_test(test_lb_rr_even),
		cmocka_unit_test(test_lb_rr_weighted),
		cmocka_unit_test(test_lb_spray_member_down),
		cmocka_unit_test(test_lb_random),
		cmocka_unit_test(test_lb_flowlet_gap),
		cmocka_unit_test(test_lb_flowlet_table_bounded),
		cmocka_unit_test(test_lb_adaptive),
		cmocka_unit_test(test_lb_cnp_hash),
		cmocka_unit_test(test_lb_mode_precedence),
	};

	return ut_main("lb", tests, RTE_DIM(tests), setup, teardown, &pool, 63);
}
