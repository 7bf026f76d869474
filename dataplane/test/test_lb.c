/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of step 5 of the packet path: rsw_lb_select (lb.c) in every mode,
 * called directly on hand-built groups (rsw_group_fill_buckets gives the bucket
 * table and spray sequence) with a zeroed per-lcore state, a fake clock for
 * flowlets and hand-set queue depths (rsw_qos.port[].q_bytes) for adaptive.
 * Members are marked down through rsw_lb_down, as the control thread does.
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
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>
#include <rte_thash.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
#include "test_common.h"

#define N_GROUPS 4
#define N_PKTS   10000
#define N_FLOWS  10000
#define TC       3
#define TICKS    1000 /* flowlet timeout of the fake clock */
/* ±2 % of the packets: the tolerance of the random shares (about 4.6 sigma at 25 %). */
#define TOL (N_PKTS * 2 / 100)

static struct rte_mempool *pool;
static struct rte_mbuf *mbuf; /* one IPv4/UDP frame, rewritten per flow */
/* Two workers' load-balancing state (about 100 KB each: not on the stack). */
static struct rsw_lb_lcore ls_a, ls_b;

struct flow {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t qp;
};

/*
 * Settings-only tables: rsw_lb_select reads no FIB, and a full generation (FIBs of about
 * 180 MB) does not fit in -m 256 next to the pool. Default mode hash, no per-TC override.
 */
static struct rsw_tables *
lb_tables_new(void)
{
	struct rsw_tables *t = calloc(1, sizeof(*t));
	unsigned int i;

	assert_non_null(t);
	t->groups = calloc(N_GROUPS, sizeof(*t->groups));
	t->nh = calloc(N_GROUPS * RSW_MAX_NEXTHOPS, sizeof(*t->nh));
	assert_non_null(t->groups);
	assert_non_null(t->nh);
	t->n_groups = N_GROUPS;
	t->hash_fields = RSW_HF_DEFAULT;
	t->lb_mode = RSW_LB_HASH;
	for (i = 0; i < RSW_N_TC; i++)
		t->lb_per_tc[i] = RSW_LB_UNSET;
	t->flowlet_ticks = TICKS;
	memcpy(t->rss_key, rsw_lb_default_rss_key, sizeof(t->rss_key));
	return t;
}

static void
lb_tables_free(struct rsw_tables *t)
{
	free(t->groups);
	free(t->nh);
	free(t);
}

/* Group gid of t with n members on ports 0..n-1, weights (NULL = equal), no route mode. */
static struct rsw_group *
group_new(struct rsw_tables *t, uint32_t gid, uint16_t n, const uint32_t *weights)
{
	struct rsw_group *g = &t->groups[gid];
	uint16_t i;

	memset(g, 0, sizeof(*g));
	g->n_members = n;
	g->lb_mode = RSW_LB_UNSET;
	for (i = 0; i < n; i++) {
		g->members[i] = gid * RSW_MAX_NEXTHOPS + i;
		g->ports[i] = i;
		t->nh[g->members[i]].port = i;
	}
	rsw_group_fill_buckets(g, weights);
	return g;
}

/* Write flow f into the frame of mbuf and describe it in info, as parse and classify would. */
static void
flow_to_pkt(const struct flow *f, uint8_t tc, struct rsw_pkt_info *info)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(mbuf, uint8_t *, 14);
	uint32_t src = rte_cpu_to_be_32(f->src), dst = rte_cpu_to_be_32(f->dst);

	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	memset(info, 0, sizeof(*info));
	info->kind = RSW_PK_IPV4;
	info->l3_off = 14;
	info->proto = IPPROTO_UDP;
	info->flags = RSW_PF_L4;
	info->tc = tc;
	info->ttl = 64;
	info->sport = f->sport;
	info->dport = f->dport;
	if (f->dport == 4791) {
		info->flags |= RSW_PF_BTH;
		info->qp = f->qp;
	}
}

/* The member rsw_lb_select picks for one packet of flow f. */
static uint32_t
pick(const struct rsw_tables *t, uint32_t gid, const struct flow *f, uint8_t tc,
     struct rsw_lb_lcore *ls, uint64_t now)
{
	struct rsw_pkt_info info;

	flow_to_pkt(f, tc, &info);
	return rsw_lb_select(t, &t->groups[gid], gid, mbuf, &info, ls, now);
}

/* The hash mode's member of flow f, computed without rsw_lb_select. */
static uint32_t
hash_member(const struct rsw_tables *t, uint32_t gid, const struct flow *f)
{
	struct rsw_pkt_info info;

	flow_to_pkt(f, 0, &info);
	return rsw_lb_pick_hash(&t->groups[gid], rsw_lb_hash(t, mbuf, &info));
}

/* Flow i of a set of distinct flows, half of them RoCEv2. */
static struct flow
flow_n(uint32_t i)
{
	struct flow f = {
		.src = 0x0a010000 | (i & 0xffff),
		.dst = 0x0a640000 | ((i * 2654435761u) >> 16),
		.sport = (uint16_t)(49152 + (i * 7919u) % 16384),
		.dport = i % 2 ? 4791 : 5001,
		.qp = (i * 40503u) & 0xffffff,
	};

	return f;
}

/* The elephant flow of the spray tests: one 5-tuple for every packet. */
static const struct flow elephant = {
	.src = 0x0a010001, .dst = 0x0a640042, .sport = 49999, .dport = 4791, .qp = 0x1234};

static void
assert_share(unsigned int got, double want, unsigned int tol, const char *what, unsigned int i)
{
	if (got + tol < want || got > want + tol)
		fail_msg("%s: member %u got %u, want %.1f ± %u", what, i, got, want, tol);
}

static void
lb_reset(void)
{
	memset(&ls_a, 0, sizeof(ls_a));
	memset(&ls_b, 0, sizeof(ls_b));
	memset(rsw_lb_down, 0, sizeof(rsw_lb_down));
	memset(rsw_qos.port, 0, sizeof(rsw_qos.port));
	rte_srand(0x5eed);
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

/* Hash. */

static void
test_lb_hash_affinity_spread(void **state)
{
	static uint8_t member[N_FLOWS];
	unsigned int counts[8] = {0}, i, j, mn, mx;
	struct rsw_tables *t = lb_tables_new();
	double want = N_FLOWS / 8.0, chi2 = 0;
	uint32_t mi;

	(void)state;
	lb_reset();
	group_new(t, 0, 8, NULL);
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		mi = pick(t, 0, &f, TC, &ls_a, i);
		assert_true(mi < 8);
		assert_int_equal(mi, hash_member(t, 0, &f));
		member[i] = (uint8_t)mi;
		counts[mi]++;
	}
	/* Affinity: every packet of a flow, on either worker, at any time, takes one member. */
	for (j = 0; j < 3; j++)
		for (i = 0; i < N_FLOWS; i++) {
			struct flow f = flow_n(i);

			assert_int_equal(pick(t, 0, &f, TC, j % 2 ? &ls_b : &ls_a, i * 977u + j),
					 member[i]);
		}
	assert_int_equal(ls_a.rr[0], 0);
	/* Spread: chi-square with 7 degrees of freedom below 24.32 (p = 0.001), max/min < 1.2. */
	mn = mx = counts[0];
	for (j = 0; j < 8; j++) {
		chi2 += (counts[j] - want) * (counts[j] - want) / want;
		mn = RTE_MIN(mn, counts[j]);
		mx = RTE_MAX(mx, counts[j]);
	}
	if (chi2 >= 24.32 || mx * 10 >= mn * 12)
		fail_msg("8 members, %u flows: chi2 %.2f, max %u, min %u", N_FLOWS, chi2, mx, mn);
	lb_tables_free(t);
}

static void
test_lb_resilient(void **state)
{
	static uint8_t before[N_FLOWS];
	struct rsw_tables *t = lb_tables_new();
	unsigned int moved, got[8], i, d, j;
	uint32_t mi;

	(void)state;
	lb_reset();
	group_new(t, 0, 8, NULL);
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		before[i] = (uint8_t)pick(t, 0, &f, TC, &ls_a, 0);
	}
	for (d = 0; d < 8; d++) {
		unsigned int on_d = 0;

		/* Member d down: only its flows move, all of them, over every live member. */
		rsw_lb_down[0] = (uint16_t)(1u << d);
		moved = 0;
		memset(got, 0, sizeof(got));
		for (i = 0; i < N_FLOWS; i++) {
			struct flow f = flow_n(i);

			mi = pick(t, 0, &f, TC, &ls_a, 0);
			assert_true(mi < 8 && mi != d);
			on_d += before[i] == d;
			if (mi != before[i]) {
				if (before[i] != d)
					fail_msg(
						"member %u down: flow %u moved from live member %u to %u",
						d, i, before[i], mi);
				moved++;
				got[mi]++;
			}
		}
		assert_int_equal(moved, on_d);
		if (moved > N_FLOWS / 8 + N_FLOWS * 2 / 100)
			fail_msg("member %u down: %u of %u flows moved", d, moved, N_FLOWS);
		for (j = 0; j < 8; j++)
			if (j != d && got[j] < moved / 7 / 2)
				fail_msg("member %u down: live member %u took %u of %u moved flows",
					 d, j, got[j], moved);
	}
	/* Two down: flows of the six others still stay. */
	rsw_lb_down[0] = 1u << 2 | 1u << 5;
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		mi = pick(t, 0, &f, TC, &ls_a, 0);
		assert_true(mi != 2 && mi != 5);
		if (before[i] != 2 && before[i] != 5)
			assert_int_equal(mi, before[i]);
	}
	/* Back up: every flow returns to its member. */
	rsw_lb_down[0] = 0;
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		assert_int_equal(pick(t, 0, &f, TC, &ls_a, 0), before[i]);
	}
	/* All down: nothing. */
	rsw_lb_down[0] = 0xff;
	assert_int_equal(pick(t, 0, &elephant, TC, &ls_a, 0), RSW_LB_NONE);
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

/* The hash input layout (lb.c), built field by field in memory as the layout describes. */
struct ref_tuple {
	uint32_t src[4];
	uint32_t dst[4];
	uint16_t sport;
	uint16_t dport;
	uint32_t proto_qp;
	uint32_t flow;
};

static uint32_t
ref_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t
ref_hash(const struct rsw_tables *t, const struct rsw_pkt_info *info)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(mbuf, const uint8_t *, info->l3_off);
	size_t alen = info->kind == RSW_PK_IPV4 ? 4 : 16;
	uint32_t f = t->hash_fields, w[11];
	struct ref_tuple k;
	uint8_t tmp[16];

	memset(&k, 0, sizeof(k));
	if (f & RSW_HF_SRC_IP)
		memcpy(k.src, l3 + (alen == 4 ? 12 : 8), alen);
	if (f & RSW_HF_DST_IP)
		memcpy(k.dst, l3 + (alen == 4 ? 16 : 24), alen);
	if (alen == 16 && (f & RSW_HF_FLOW_LABEL))
		k.flow = info->flow;
	if (f & RSW_HF_PROTO)
		k.proto_qp = (uint32_t)info->proto << 24;
	if (info->flags & RSW_PF_L4) {
		if (f & RSW_HF_SRC_PORT)
			k.sport = info->sport;
		if (f & RSW_HF_DST_PORT)
			k.dport = info->dport;
		if ((info->flags & RSW_PF_BTH) && (f & RSW_HF_ROCE_QP))
			k.proto_qp |= info->qp;
		if ((info->flags & RSW_PF_UET) && (f & RSW_HF_UET_ENTROPY))
			k.sport = info->sport;
	}
	if (t->hash_symmetric) {
		if (memcmp(k.src, k.dst, alen) > 0) {
			memcpy(tmp, k.src, alen);
			memcpy(k.src, k.dst, alen);
			memcpy(k.dst, tmp, alen);
		}
		if (k.sport > k.dport) {
			uint16_t x = k.sport;

			k.sport = k.dport;
			k.dport = x;
		}
	}
	memcpy(w, &k, sizeof(w));
	if (t->hash_algorithm == RSW_HASH_TOEPLITZ)
		return ref_mix32(rte_softrss(w, RTE_DIM(w), t->rss_key) ^ t->hash_seed);
	return ref_mix32(rte_hash_crc(w, sizeof(w), t->hash_seed) ^ t->hash_seed);
}

/*
 * The flow hash is the documented function of the documented 44-byte layout (CRC32 or
 * Toeplitz, seeded, then the finalizer), whatever the fields, family, symmetry and seed:
 * rsw_lb_hash against a plain implementation over random packets.
 */
static void
test_lb_hash_layout(void **state)
{
	struct rsw_tables *t = lb_tables_new();
	struct rsw_pkt_info info;
	uint8_t *l3 = rte_pktmbuf_mtod_offset(mbuf, uint8_t *, 14);
	unsigned int i, k;

	(void)state;
	rte_srand(99);
	for (i = 0; i < 20000; i++) {
		for (k = 0; k < 40; k++)
			l3[k] = (uint8_t)rte_rand();
		if (i % 7 == 0) /* equal addresses and ports: the symmetric tie */
			memcpy(l3 + 24, l3 + 8, 16);
		memset(&info, 0, sizeof(info));
		info.kind = i % 2 ? RSW_PK_IPV6 : RSW_PK_IPV4;
		info.l3_off = 14;
		info.proto = (uint8_t)rte_rand();
		info.flags = (uint8_t)(rte_rand() & (RSW_PF_L4 | RSW_PF_BTH | RSW_PF_UET));
		info.sport = (uint16_t)rte_rand();
		info.dport = i % 7 == 0 ? info.sport : (uint16_t)rte_rand();
		info.qp = (uint32_t)rte_rand() & 0xffffff;
		info.flow = (uint32_t)rte_rand() & 0xfffff;
		t->hash_fields = (uint32_t)rte_rand() & 0xff;
		t->hash_seed = (uint32_t)rte_rand();
		t->hash_symmetric = (uint8_t)(rte_rand() & 1);
		t->hash_algorithm = (uint8_t)(i % 3 == 0 ? RSW_HASH_TOEPLITZ : RSW_HASH_CRC32);
		assert_int_equal(rsw_lb_hash(t, mbuf, &info), ref_hash(t, &info));
	}
	lb_tables_free(t);
}

/* One frame to port_mac for test_lb_hash_express (i picks the kind; IPv4 when !v6). */
static void
express_frame(struct ut_frame *fr, const uint8_t port_mac[6], unsigned int i, int v6)
{
	static const uint8_t protos[] = {IPPROTO_UDP, IPPROTO_TCP, IPPROTO_SCTP, IPPROTO_ICMP, 47};
	static const uint16_t dports[] = {RSW_UDP_PORT_ROCEV2, RSW_UDP_PORT_UET, 53};
	/* DF, MF (a first fragment), a later fragment, none */
	static const uint16_t frags[] = {0x4000, 0x2000, 0x0001, 0};
	const uint8_t peer[6] = {2, 0, 0, 0, 0, 9};
	uint8_t proto = protos[i % RTE_DIM(protos)], src[16], dst[16];
	uint16_t sport = (uint16_t)rte_rand(), dport = (uint16_t)rte_rand();
	uint64_t r;
	unsigned int k;

	for (k = 0; k < 16; k++) {
		src[k] = (uint8_t)rte_rand();
		dst[k] = (uint8_t)rte_rand();
	}
	if (proto == IPPROTO_UDP && (i / 8) % 4 < 3)
		dport = dports[(i / 8) % 4];
	if (i % 7 == 0) { /* equal addresses and ports: the symmetric tie */
		memcpy(dst, src, 16);
		dport = sport;
	}
	ut_eth(fr, port_mac, peer, v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	if (v6) {
		ut_ipv6(fr, (uint8_t)rte_rand(), (uint32_t)rte_rand(), 8 + 12 + 16, proto, 64, src,
			dst);
	} else {
		memcpy(&r, src, 8);
		ut_ipv4_opt(fr, (uint8_t)rte_rand(), frags[(i / 3) % RTE_DIM(frags)], 64, proto,
			    (uint32_t)r, (uint32_t)(r >> 32), 8 + 12 + 16, 0);
	}
	if (proto == IPPROTO_UDP) {
		ut_udp(fr, sport, dport, 8 + 12 + 16);
	} else {
		ut_put16(fr, sport);
		ut_put16(fr, dport);
		ut_put32(fr, (uint32_t)rte_rand());
	}
	ut_bth(fr, (uint8_t)(rte_rand() & 0x7f), (uint32_t)rte_rand(), (uint32_t)rte_rand());
	ut_zeros(fr, 16);
}

/*
 * The express path's flow hash, from the IP header alone (rsw_lb_hash_express4/6), is
 * rsw_lb_hash of what rsw_parse finds, for every frame the express path takes: UDP to the
 * RoCEv2 port (a BTH and its dest QP), to the UET port and to others, TCP, SCTP, ICMP, another
 * protocol, IPv4 fragments, IPv6 with its flow label; whatever the fields, symmetry, algorithm
 * and seed. A frame whose hash the path got wrong would leave by another member than the rest
 * of its flow.
 */
static void
test_lb_hash_express(void **state)
{
	const uint8_t port_mac[6] = {2, 0, 0, 0, 0, 7};
	struct rte_ether_addr ea;
	struct rsw_tables *t = lb_tables_new();
	const struct rte_ipv4_hdr *ip4;
	const struct rte_ipv6_hdr *ip6;
	struct rsw_pkt_info info;
	struct rsw_lb_sel sel;
	struct ut_frame fr;
	struct rte_mbuf *m;
	unsigned int i, taken = 0, flags = 0, fast4 = 0;

	(void)state;
	memcpy(ea.addr_bytes, port_mac, 6);
	rte_srand(7);
	for (i = 0; i < 20000; i++) {
		express_frame(&fr, port_mac, i, (i / 5) % 2);
		m = ut_mbuf(pool, &fr);
		assert_non_null(m);
		t->hash_fields = (uint32_t)rte_rand() & 0xff;
		t->hash_seed = (uint32_t)rte_rand();
		t->hash_symmetric = (uint8_t)(rte_rand() & 1);
		t->hash_algorithm = (uint8_t)(i % 3 == 0 ? RSW_HASH_TOEPLITZ : RSW_HASH_CRC32);
		if (i % 4 == 1) {
			/* The default fields (the IPv4 fast case, rsw_lb_hash_fast4), other bits
			 * as drawn. */
			t->hash_fields |= RSW_HF_SRC_IP | RSW_HF_DST_IP | RSW_HF_PROTO |
					  RSW_HF_SRC_PORT | RSW_HF_DST_PORT;
			t->hash_symmetric = 0;
		}
		rsw_lb_sel_init(&sel, t);
		rsw_parse_inline(m, &ea, &info);
		ip4 = rsw_parse_express4(m, rsw_mac48(&ea));
		ip6 = rsw_parse_express6(m, rsw_mac48(&ea));
		if (ip4 != NULL)
			assert_int_equal(rsw_lb_hash_express4(&sel, ip4), rsw_lb_hash(t, m, &info));
		if (ip4 != NULL && sel.fast4) {
			assert_int_equal(rsw_lb_hash_fast4(&sel, ip4), rsw_lb_hash(t, m, &info));
			fast4++;
		}
		if (ip6 != NULL)
			assert_int_equal(rsw_lb_hash_express6(&sel, ip6), rsw_lb_hash(t, m, &info));
		if (ip4 != NULL || ip6 != NULL) {
			taken++;
			flags |= 1u << (info.flags & (RSW_PF_L4 | RSW_PF_BTH | RSW_PF_UET));
		}
		rte_pktmbuf_free(m);
	}
	/* The express path took them all: with and without ports, with a BTH, UET. */
	assert_int_equal(taken, 20000);
	assert_true(fast4 > 1000); /* the IPv4 fast case, checked against rsw_lb_hash */
	assert_int_equal(flags, 1u << 0 | 1u << RSW_PF_L4 | 1u << (RSW_PF_L4 | RSW_PF_BTH) |
					1u << (RSW_PF_L4 | RSW_PF_UET));
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
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lb_no_live_member),
		cmocka_unit_test(test_lb_rr_position),
		cmocka_unit_test(test_lb_rr_even),
		cmocka_unit_test(test_lb_rr_weighted),
		cmocka_unit_test(test_lb_spray_member_down),
		cmocka_unit_test(test_lb_random),
		cmocka_unit_test(test_lb_hash_affinity_spread),
		cmocka_unit_test(test_lb_resilient),
		cmocka_unit_test(test_lb_flowlet_gap),
		cmocka_unit_test(test_lb_flowlet_table_bounded),
		cmocka_unit_test(test_lb_adaptive),
		cmocka_unit_test(test_lb_hash_layout),
		cmocka_unit_test(test_lb_hash_express),
		cmocka_unit_test(test_lb_cnp_hash),
		cmocka_unit_test(test_lb_mode_precedence),
	};
	struct ut_frame fr;
	int ret;

	if (ut_eal_init("lb") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ut_lb", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "cannot create the mbuf pool\n");
		rte_eal_cleanup();
		return 1;
	}
	ut_eth(&fr, mac, mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&fr, 0, 64, IPPROTO_UDP, 0, 0, 8 + 12);
	ut_udp(&fr, 0, 4791, 8 + 12);
	ut_bth(&fr, 0x0a, 0, 0);
	mbuf = ut_mbuf(pool, &fr);
	if (mbuf == NULL) {
		fprintf(stderr, "cannot allocate an mbuf\n");
		rte_mempool_free(pool);
		rte_eal_cleanup();
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_pktmbuf_free(mbuf);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret;
}
