/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of recycled generations (route/recycle.c): a generation built on the retired
 * one's FIBs must look up exactly as one built on new FIBs, batch after batch of random
 * route changes (adds, deletes, next hops changed, IPv4 and IPv6, host bits set, a prefix
 * added twice). A stale route left in a recycled FIB shows as a lookup that differs.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_eal.h>
#include <rte_fib.h>
#include <rte_fib6.h>

#include "rsw_fib.h"
#include "test_common.h"

#define N_SLOTS   600 /* prefixes a batch may hold */
#define N_RESULTS 40  /* results the routes point at */
#define N_BATCHES 40
#define N_PROBES  (8 * N_SLOTS + 512)

/* The route set of a batch: slot k holds a prefix, or not. */
struct route_model {
	struct rsw_prefix p[N_SLOTS];
	uint32_t nh[N_SLOTS];
	uint8_t on[N_SLOTS];
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* A random prefix; its host bits are left as drawn now and then (the FIB masks them). */
static struct rsw_prefix
rnd_prefix(void)
{
	struct rsw_prefix p = {.ip = {.family = rnd(3) == 0 ? RSW_AF_INET6 : RSW_AF_INET}};
	unsigned int i;

	if (p.ip.family == RSW_AF_INET) {
		static const uint8_t lens[] = {1, 8, 12, 16, 20, 22, 24, 24, 25, 28, 30, 32, 32};

		p.len = lens[rnd(RTE_DIM(lens))];
		p.ip.addr[0] = (uint8_t)(10 + rnd(2)); /* dense: prefixes cover each other */
		for (i = 1; i < 4; i++)
			p.ip.addr[i] = (uint8_t)rnd(i == 1 ? 4 : 256);
	} else {
		static const uint8_t lens[] = {12, 16, 32, 48, 56, 64, 64, 96, 120, 128};

		p.len = lens[rnd(RTE_DIM(lens))];
		p.ip.addr[0] = 0xfd;
		p.ip.addr[1] = (uint8_t)rnd(2);
		for (i = 2; i < 16; i++)
			p.ip.addr[i] = (uint8_t)(i == 7 || i == 15 ? rnd(256) : rnd(3));
	}
	if (rnd(4) != 0) {
		uint8_t full = p.ip.family == RSW_AF_INET ? 32 : 128;

		for (i = p.len; i < full; i++)
			p.ip.addr[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
	}
	return p;
}

/* One batch of changes: some routes go, some come, some get another next hop. */
static void
model_step(struct route_model *m)
{
	unsigned int k;

	for (k = 0; k < N_SLOTS; k++) {
		uint32_t r = rnd(100);

		if (m->on[k] && r < 8) {
			m->on[k] = 0;
		} else if (m->on[k] && r < 20) {
			m->nh[k] = 1 + rnd(N_RESULTS);
		} else if (!m->on[k] && r < 15) {
			m->on[k] = 1;
			m->p[k] = rnd_prefix();
			m->nh[k] = 1 + rnd(N_RESULTS);
		}
	}
}

/* A generation of the model's routes, on new FIBs or on the retired one's. */
static struct rsw_tables *
model_build(const struct route_model *m, uint64_t gen, int recycle)
{
	struct rsw_prefix conn = {.ip = {.family = RSW_AF_INET, .addr = {192, 168, 1}}, .len = 24};
	struct rsw_result c = {.type = RSW_RES_CONNECTED, .port = 1};
	struct rsw_tables *t;
	unsigned int k;
	int nh;

	t = (recycle ? rsw_tables_recycle : rsw_tables_alloc_routes)(gen, N_RESULTS + 2, 1, 1,
								     N_SLOTS, N_SLOTS);
	assert_non_null(t);
	for (k = 1; k <= N_RESULTS; k++) {
		struct rsw_result r = {.type = RSW_RES_GROUP, .single = 1, .port = (uint16_t)k};

		assert_int_equal(rsw_tables_add_result(t, &r), (int)k);
	}
	nh = rsw_tables_add_result(t, &c);
	assert_int_equal(rsw_tables_add_route(t, &conn, (uint32_t)nh), 0);
	for (k = 0; k < N_SLOTS; k++) {
		if (!m->on[k])
			continue;
		assert_int_equal(rsw_tables_add_route(t, &m->p[k], m->nh[k]), 0);
		/* Now and then a prefix twice, the second next hop winning as in a new FIB. */
		if (k % 50 == 0)
			assert_int_equal(
				rsw_tables_add_route(t, &m->p[k], 1 + (m->nh[k] % N_RESULTS)), 0);
	}
	assert_int_equal(rsw_tables_commit(t), 0);
	return t;
}

/* Addresses around a prefix: its first, its last, one before and one past, one inside. */
static unsigned int
probes_of(const struct rsw_prefix *p, uint32_t *v4, uint8_t (*v6)[16], unsigned int *n4,
	  unsigned int *n6)
{
	if (p->ip.family == RSW_AF_INET) {
		uint32_t a = (uint32_t)p->ip.addr[0] << 24 | (uint32_t)p->ip.addr[1] << 16 |
			     (uint32_t)p->ip.addr[2] << 8 | p->ip.addr[3];
		uint32_t host = p->len == 0 ? UINT32_MAX : (1u << (32 - p->len)) - 1;

		a &= ~host;
		v4[(*n4)++] = a;
		v4[(*n4)++] = a | host;
		v4[(*n4)++] = a - 1;
		v4[(*n4)++] = (a | host) + 1;
		v4[(*n4)++] = a | (rnd(UINT32_MAX) & host);
	} else {
		unsigned int i, j;

		for (j = 0; j < 5; j++) {
			uint8_t *x = v6[(*n6)++];

			memcpy(x, p->ip.addr, 16);
			for (i = p->len; i < 128; i++) {
				uint8_t bit = (uint8_t)(0x80u >> (i % 8));
				int set = j == 1 || (j == 2 && rnd(2));

				x[i / 8] = (uint8_t)(set ? x[i / 8] | bit : x[i / 8] & ~bit);
			}
			if (j == 3 && x[15]-- == 0)
				x[14]--;
			if (j == 4 && ++x[15] == 0)
				x[14]++;
		}
	}
	return 5;
}

static void
assert_same_lookups(const struct rsw_tables *a, const struct rsw_tables *b,
		    const struct route_model *now, const struct route_model *before)
{
	static uint32_t v4[N_PROBES];
	static uint8_t v6[N_PROBES][16];
	static uint64_t ra[N_PROBES], rb[N_PROBES];
	unsigned int n4 = 0, n6 = 0, k, i;

	for (k = 0; k < N_SLOTS; k++) {
		/* The routes of now, and those of before that may be left stale. */
		if (now->on[k])
			probes_of(&now->p[k], v4, v6, &n4, &n6);
		if (before->on[k])
			probes_of(&before->p[k], v4, v6, &n4, &n6);
	}
	for (i = 0; i < 256; i++) {
		v4[n4++] = 0x0a000000u | rnd(1u << 18);
		memset(v6[n6], 0, 16);
		v6[n6][0] = 0xfd;
		v6[n6][15] = (uint8_t)i;
		n6++;
	}
	assert_int_equal(rte_fib_lookup_bulk(a->fib4, v4, ra, n4), 0);
	assert_int_equal(rte_fib_lookup_bulk(b->fib4, v4, rb, n4), 0);
	for (i = 0; i < n4; i++)
		if (ra[i] != rb[i])
			fail_msg("IPv4 %08x: %" PRIu64 " recycled, %" PRIu64 " new", v4[i], ra[i],
				 rb[i]);
	assert_int_equal(rte_fib6_lookup_bulk(a->fib6, v6, ra, n6), 0);
	assert_int_equal(rte_fib6_lookup_bulk(b->fib6, v6, rb, n6), 0);
	for (i = 0; i < n6; i++)
		if (ra[i] != rb[i])
			fail_msg("IPv6 probe %u: %" PRIu64 " recycled, %" PRIu64 " new", i, ra[i],
				 rb[i]);
}

static void
test_recycle_random(void **state)
{
	static struct route_model now, before;
	uint64_t gen = 1;
	unsigned int b, recycled = 0;

	(void)state;
	rsw_tables_publish(model_build(&now, gen++, 1)); /* empty, nothing to recycle */
	assert_null(rsw_fib_main.spare);
	for (b = 0; b < N_BATCHES; b++) {
		struct rsw_tables *r, *n;

		before = now;
		model_step(&now);
		r = model_build(&now, gen++, 1);
		recycled += r->recycled;
		n = model_build(&now, gen++, 0);
		assert_int_equal(r->n_results, n->n_results);
		assert_int_equal(r->n_adj, n->n_adj);
		assert_int_equal(r->n_adj_subnets, n->n_adj_subnets);
		assert_int_equal(r->results[N_RESULTS + 1].adj_mask, 0xff);
		assert_same_lookups(r, n, &now, &before);
		rsw_tables_free(n);
		rsw_tables_publish(r);
		/* The generation r replaced is the next one's FIBs. */
		assert_non_null(rsw_fib_main.spare);
	}
	/* Every batch but the first after the empty start was built on a retired generation. */
	assert_true(recycled >= N_BATCHES - 1);
	rsw_tables_publish(NULL);
	assert_null(rsw_fib_main.spare);
}

/* Publishing NULL frees the retired generation too; a new one drops the spare first. */
static void
test_recycle_spare(void **state)
{
	struct rsw_prefix p = {.ip = {.family = RSW_AF_INET, .addr = {10, 1, 2, 3}}, .len = 32};
	struct rsw_result r = {.type = RSW_RES_LOCAL};
	struct rsw_tables *t1, *t2, *t3;
	uint32_t ip = 0x0a010203;
	uint64_t nh = 0;

	(void)state;
	t1 = rsw_tables_recycle(900, 4, 1, 1, 1, 1);
	assert_non_null(t1);
	assert_false(t1->recycled); /* no spare */
	assert_int_equal(rsw_tables_add_result(t1, &r), 1);
	assert_int_equal(rsw_tables_add_route(t1, &p, 1), 0);
	rsw_tables_publish(t1);
	t2 = rsw_tables_alloc(901, 4, 1, 1);
	rsw_tables_publish(t2);
	assert_ptr_equal(rsw_fib_main.spare, t1);
	/* t1's FIBs, its route gone once committed (published). */
	t3 = rsw_tables_recycle(902, 4, 1, 1, 1, 1);
	assert_ptr_equal(t3, t1);
	assert_null(rsw_fib_main.spare);
	assert_int_equal(t3->generation, 902);
	assert_int_equal(t3->n_results, 1);
	assert_int_equal(t3->results[1].type, RSW_RES_NONE);
	rsw_tables_publish(t3);
	assert_int_equal(rte_fib_lookup_bulk(t3->fib4, &ip, &nh, 1), 0);
	assert_int_equal(nh, RSW_FIB_NO_ROUTE);
	assert_ptr_equal(rsw_fib_main.spare, t2);
	rsw_tables_publish(NULL);
	assert_null(rsw_fib_main.tables);
	assert_null(rsw_fib_main.spare);
}

static int
setup(void **state)
{
	(void)state;
	return rsw_fib_init(1);
}

static int
teardown(void **state)
{
	(void)state;
	rsw_fib_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recycle_spare),
		cmocka_unit_test(test_recycle_random),
	};

	int ret;

	/* Three generations at once (published, recycled, new): -m 512, as the lab runs. */
	if (ut_eal_init_mem("fib_recycle", "512") != 0)
		return 1;
	ret = cmocka_run_group_tests_name("fib_recycle", tests, setup, teardown);
	rte_eal_cleanup();
	return ret;
}
