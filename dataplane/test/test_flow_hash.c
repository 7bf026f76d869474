/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the bucket table of a next-hop group (rsw_group_fill_buckets) and of the
 * flow hash and member choice (lb.c: rsw_lb_hash, rsw_lb_pick_hash) over synthetic flows:
 * fair shares, stability, the hashed fields, symmetry, the seed and the IPv6 flow label.
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

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "test_common.h"
#include "test_lb_common.h"

#define N_FLOWS   10000
#define N_MEMBERS 4
/* Each member of a 4-member group gets its fair share of N_FLOWS flows within ±20 %. */
#define FAIR_LO (N_FLOWS / N_MEMBERS * 8 / 10)
#define FAIR_HI (N_FLOWS / N_MEMBERS * 12 / 10)

/* Tables for the flow hash tests: one group of N_MEMBERS members. */
static struct rsw_tables *
lb_tables_new(void)
{
	return lb_tables_alloc(1, N_MEMBERS);
}

/* Group bucket tables. */

static void
count_buckets(const struct rsw_group *g, unsigned int *counts)
{
	unsigned int b;

	memset(counts, 0, sizeof(*counts) * RSW_MAX_NEXTHOPS);
	for (b = 0; b < RSW_LB_BUCKETS; b++) {
		assert_true(g->buckets[b] < g->n_members);
		counts[g->buckets[b]]++;
	}
}

static void
test_group_buckets(void **state)
{
	static const uint32_t w13[] = {1, 3};
	static const uint32_t w4[] = {5, 5, 5, 5};
	static const uint32_t w01[] = {0, 1};
	static const uint32_t w12[] = {1, 2};
	unsigned int counts[RSW_MAX_NEXTHOPS];
	struct rsw_group g;
	uint64_t seed = 3;
	unsigned int i, round;

	(void)state;
	memset(&g, 0, sizeof(g));
	/* Equal weights, implicit and explicit. */
	g.n_members = 4;
	rsw_group_fill_buckets(&g, NULL);
	count_buckets(&g, counts);
	for (i = 0; i < 4; i++)
		assert_int_equal(counts[i], 64);
	memset(g.buckets, 0xff, sizeof(g.buckets));
	rsw_group_fill_buckets(&g, w4);
	count_buckets(&g, counts);
	for (i = 0; i < 4; i++)
		assert_int_equal(counts[i], 64);
	/* 1:3. */
	g.n_members = 2;
	rsw_group_fill_buckets(&g, w13);
	count_buckets(&g, counts);
	assert_int_equal(counts[0], 64);
	assert_int_equal(counts[1], 192);
	/* A zero weight gets nothing; 1:2 does not divide 256 and still covers every bucket. */
	rsw_group_fill_buckets(&g, w01);
	count_buckets(&g, counts);
	assert_int_equal(counts[0], 0);
	assert_int_equal(counts[1], 256);
	rsw_group_fill_buckets(&g, w12);
	count_buckets(&g, counts);
	assert_int_equal(counts[0], 85);
	assert_int_equal(counts[1], 171);
	/* 16 members. */
	g.n_members = RSW_MAX_NEXTHOPS;
	rsw_group_fill_buckets(&g, NULL);
	count_buckets(&g, counts);
	for (i = 0; i < RSW_MAX_NEXTHOPS; i++)
		assert_int_equal(counts[i], 16);
	/* 1 member. */
	g.n_members = 1;
	rsw_group_fill_buckets(&g, NULL);
	count_buckets(&g, counts);
	assert_int_equal(counts[0], 256);
	/* Random weights: each share within one bucket of exact proportion. */
	for (round = 0; round < 1000; round++) {
		uint32_t w[RSW_MAX_NEXTHOPS];
		uint64_t total = 0;

		g.n_members = (uint16_t)(1 + ut_rand(&seed) % RSW_MAX_NEXTHOPS);
		for (i = 0; i < g.n_members; i++)
			total += w[i] = (uint32_t)(1 + ut_rand(&seed) % 1000);
		rsw_group_fill_buckets(&g, w);
		count_buckets(&g, counts);
		for (i = 0; i < g.n_members; i++) {
			double want = (double)w[i] * RSW_LB_BUCKETS / (double)total;

			if (counts[i] + 1.0 < want || counts[i] > want + 1.0)
				fail_msg("round %u member %u: %u buckets for %.2f", round, i,
					 counts[i], want);
		}
	}
}

/* Flow hash and member choice. */

/* A 4-member group with equal weights in t->groups[0]. */
static struct rsw_group *
group4(struct rsw_tables *t)
{
	struct rsw_group *g = &t->groups[0];
	uint32_t i;

	g->n_members = N_MEMBERS;
	for (i = 0; i < N_MEMBERS; i++) {
		g->members[i] = i;
		t->nh[i].port = (uint16_t)i;
	}
	rsw_group_fill_buckets(g, NULL);
	t->n_groups = 1;
	t->n_nh = N_MEMBERS;
	return g;
}

/* Write flow f into the IPv4/UDP frame of m and describe it in info, as parse would. */
static void
flow_to_pkt(const struct flow *f, struct rte_mbuf *m, struct rsw_pkt_info *info)
{
	flow_write(f, m, info);
	if (f->dport == 4793)
		info->flags |= RSW_PF_UET;
}

static uint32_t
flow_hash(const struct rsw_tables *t, const struct flow *f, struct rte_mbuf *m)
{
	struct rsw_pkt_info info;

	flow_to_pkt(f, m, &info);
	return rsw_lb_hash(t, m, &info);
}

static struct flow *
random_flows(uint64_t seed)
{
	struct flow *fl = calloc(N_FLOWS, sizeof(*fl));
	int i;

	assert_non_null(fl);
	for (i = 0; i < N_FLOWS; i++) {
		uint64_t r = ut_rand(&seed);

		fl[i].src = 0x0a000000 | (uint32_t)(r & 0xffff);
		fl[i].dst = 0x0a800000 | (uint32_t)((r >> 16) & 0xffff);
		fl[i].sport = (uint16_t)(49152 + (r >> 32) % 16384);
		fl[i].dport = (r >> 48) % 2 ? 4791 : 80;
		fl[i].qp = (uint32_t)(ut_rand(&seed) & 0xffffff);
	}
	return fl;
}

/* Members of every flow; each member's share must be fair (±20 %). */
static void
members_of(const struct rsw_tables *t, const struct rsw_group *g, const struct flow *fl,
	   uint8_t *member, struct rte_mbuf *m)
{
	unsigned int counts[N_MEMBERS] = {0}, i;

	for (i = 0; i < N_FLOWS; i++) {
		member[i] = (uint8_t)rsw_lb_pick_hash(g, flow_hash(t, &fl[i], m));
		assert_true(member[i] < N_MEMBERS);
		counts[member[i]]++;
	}
	for (i = 0; i < N_MEMBERS; i++)
		if (counts[i] < FAIR_LO || counts[i] > FAIR_HI)
			fail_msg("member %u: %u of %u flows, fair share %u..%u", i, counts[i],
				 N_FLOWS, FAIR_LO, FAIR_HI);
}

static void
test_lb_spread_and_stable(void **state)
{
	static uint8_t member[N_FLOWS];
	struct rsw_tables *t = lb_tables_new();
	struct rsw_group *g = group4(t);
	struct flow *fl = random_flows(1);
	struct rte_mbuf *m = flow_mbuf();
	unsigned int i, round;

	(void)state;
	members_of(t, g, fl, member, m);
	/* The same flow always gets the same member (and the same hash). */
	for (round = 0; round < 3; round++)
		for (i = 0; i < N_FLOWS; i += 7) {
			uint32_t h = flow_hash(t, &fl[i], m);

			assert_int_equal(h, flow_hash(t, &fl[i], m));
			assert_int_equal(rsw_lb_pick_hash(g, h), member[i]);
		}
	/* Toeplitz spreads as well. */
	t->hash_algorithm = RSW_HASH_TOEPLITZ;
	members_of(t, g, fl, member, m);
	rte_pktmbuf_free(m);
	free(fl);
	lb_tables_free(t);
}

static void
test_lb_hash_fields(void **state)
{
	unsigned int counts[N_MEMBERS] = {0}, i, n_used = 0;
	struct rsw_tables *t = lb_tables_new();
	struct rsw_group *g = group4(t);
	struct rte_mbuf *m = flow_mbuf();
	struct flow f = {.src = 0x0a000001, .dst = 0x0a800001, .dport = 80};
	uint32_t h0;

	(void)state;
	/* Flows that differ only in source port spread with the default fields, ... */
	for (i = 0; i < 1000; i++) {
		f.sport = (uint16_t)(10000 + i);
		counts[rsw_lb_pick_hash(g, flow_hash(t, &f, m))]++;
	}
	for (i = 0; i < N_MEMBERS; i++) {
		assert_true(counts[i] > 1000 / N_MEMBERS / 2);
		n_used += counts[i] > 0;
	}
	assert_int_equal(n_used, N_MEMBERS);
	/* ... and all take one path when the source port is not hashed. */
	t->hash_fields = RSW_HF_DEFAULT & ~RSW_HF_SRC_PORT;
	f.sport = 10000;
	h0 = flow_hash(t, &f, m);
	for (i = 0; i < 1000; i++) {
		f.sport = (uint16_t)(10000 + i);
		assert_int_equal(flow_hash(t, &f, m), h0);
	}
	/* RoCE: the dest QP spreads flows with equal 5-tuples, unless it is not hashed. */
	f.dport = 4791;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 1000; i++) {
		f.qp = i * 7919;
		counts[rsw_lb_pick_hash(g, flow_hash(t, &f, m))]++;
	}
	for (i = 0; i < N_MEMBERS; i++)
		assert_true(counts[i] > 1000 / N_MEMBERS / 2);
	t->hash_fields &= ~RSW_HF_ROCE_QP;
	f.qp = 0;
	h0 = flow_hash(t, &f, m);
	for (i = 0; i < 1000; i++) {
		f.qp = i * 7919;
		assert_int_equal(flow_hash(t, &f, m), h0);
	}
	/* UET: the entropy (source port) is hashed when asked for, even without src_port. */
	f.dport = 4793;
	t->hash_fields = RSW_HF_SRC_IP | RSW_HF_DST_IP | RSW_HF_UET_ENTROPY;
	memset(counts, 0, sizeof(counts));
	for (i = 0; i < 1000; i++) {
		f.sport = (uint16_t)(20000 + i);
		counts[rsw_lb_pick_hash(g, flow_hash(t, &f, m))]++;
	}
	for (i = 0; i < N_MEMBERS; i++)
		assert_true(counts[i] > 1000 / N_MEMBERS / 2);
	/* No fields at all: one hash for everything. */
	t->hash_fields = 0;
	h0 = flow_hash(t, &f, m);
	f.src ^= 0xff;
	assert_int_equal(flow_hash(t, &f, m), h0);
	rte_pktmbuf_free(m);
	lb_tables_free(t);
}

static void
test_lb_symmetric(void **state)
{
	struct rsw_tables *t = lb_tables_new();
	struct flow *fl = random_flows(2);
	struct rte_mbuf *m = flow_mbuf();
	unsigned int i, same = 0, alg;

	(void)state;
	/* Plain UDP: the reverse of a RoCEv2 flow (dport 4791) is not a RoCEv2 flow. */
	for (i = 0; i < 1000; i++)
		fl[i].dport = (uint16_t)(1024 + i);
	for (alg = RSW_HASH_CRC32; alg <= RSW_HASH_TOEPLITZ; alg++) {
		t->hash_algorithm = (uint8_t)alg;
		/* Not symmetric: the two directions of a flow hash differently. */
		t->hash_symmetric = 0;
		same = 0;
		for (i = 0; i < 1000; i++) {
			struct flow r = fl[i];

			r.src = fl[i].dst;
			r.dst = fl[i].src;
			r.sport = fl[i].dport;
			r.dport = fl[i].sport;
			same += flow_hash(t, &fl[i], m) == flow_hash(t, &r, m);
		}
		assert_true(same < 10);
		/* Symmetric: (a→b) and (b→a) hash equal. */
		t->hash_symmetric = 1;
		for (i = 0; i < 1000; i++) {
			struct flow r = fl[i];

			r.src = fl[i].dst;
			r.dst = fl[i].src;
			r.sport = fl[i].dport;
			r.dport = fl[i].sport;
			assert_int_equal(flow_hash(t, &fl[i], m), flow_hash(t, &r, m));
		}
	}
	rte_pktmbuf_free(m);
	free(fl);
	lb_tables_free(t);
}

static void
test_lb_seed(void **state)
{
	static uint8_t m0[N_FLOWS], m1[N_FLOWS];
	struct rsw_tables *t = lb_tables_new();
	struct rsw_group *g = group4(t);
	struct flow *fl = random_flows(3);
	struct rte_mbuf *m = flow_mbuf();
	unsigned int i, moved = 0;

	(void)state;
	members_of(t, g, fl, m0, m);
	t->hash_seed = 0x5eed0001;
	members_of(t, g, fl, m1, m);
	for (i = 0; i < N_FLOWS; i++)
		moved += m0[i] != m1[i];
	/* Most flows change member with another seed. */
	if (moved < N_FLOWS / 2)
		fail_msg("only %u of %u flows moved with a new seed", moved, N_FLOWS);
	rte_pktmbuf_free(m);
	free(fl);
	lb_tables_free(t);
}

static void
test_lb_ipv6_flow_label(void **state)
{
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	static const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
	unsigned int counts[N_MEMBERS] = {0}, i;
	struct rsw_tables *t = lb_tables_new();
	struct rsw_group *g = group4(t);
	struct rsw_pkt_info info = {
		.kind = RSW_PK_IPV6,
		.l3_off = 14,
		.proto = 0, /* an extension header first: no L4 */
	};
	struct rte_mbuf *m;
	struct ut_frame fr;
	uint32_t h0;

	(void)state;
	ut_eth(&fr, mac, mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&fr, 0, 0, 8, 0, 64, src, dst);
	ut_zeros(&fr, 8);
	m = ut_mbuf(pool, &fr);
	assert_non_null(m);
	t->hash_fields = RSW_HF_DEFAULT | RSW_HF_FLOW_LABEL;
	for (i = 0; i < 1000; i++) {
		info.flow = i * 7u + 1;
		counts[rsw_lb_pick_hash(g, rsw_lb_hash(t, m, &info))]++;
	}
	for (i = 0; i < N_MEMBERS; i++)
		assert_true(counts[i] > 1000 / N_MEMBERS / 2);
	t->hash_fields = RSW_HF_DEFAULT;
	info.flow = 0;
	h0 = rsw_lb_hash(t, m, &info);
	for (i = 0; i < 1000; i++) {
		info.flow = i * 7u + 1;
		assert_int_equal(rsw_lb_hash(t, m, &info), h0);
	}
	rte_pktmbuf_free(m);
	lb_tables_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* Group bucket tables. */
		cmocka_unit_test(test_group_buckets),
		/* Flow hash and member choice. */
		cmocka_unit_test(test_lb_spread_and_stable),
		cmocka_unit_test(test_lb_hash_fields),
		cmocka_unit_test(test_lb_symmetric),
		cmocka_unit_test(test_lb_seed),
		cmocka_unit_test(test_lb_ipv6_flow_label),
	};

	return ut_main("flow_hash", tests, RTE_DIM(tests), NULL, NULL, &pool, 255);
}
