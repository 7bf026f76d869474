/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What one route batch costs the control thread: a generation of tables made and published
 * as rsw_ctl_tables_build does (results, a group per route, every route added), batch after
 * batch, each batch changing a few routes. Prints the median and the worst time of each
 * step, in ms. Not a unit test: `meson test -C build --benchmark bench_tables`, or run
 * build/dataplane/test/bench_tables [ROUTES] [BATCHES].
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_lcore.h>

#include "rsw_fib.h"
#include "test_common.h"

#define MAX_BATCHES 200

static double
ms(uint64_t ticks)
{
	return (double)ticks * 1000.0 / (double)rte_get_tsc_hz();
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
report(const char *step, uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	printf("  %-28s median %8.3f ms  max %8.3f ms\n", step, ms(v[n / 2]), ms(v[n - 1]));
}

/* Route k of batch b: IPv4 /24s and /32s and IPv6 /64s; every batch moves a tenth of them. */
static struct rsw_prefix
route(uint32_t k)
{
	struct rsw_prefix p = {.ip = {.family = RSW_AF_INET}};

	if (k % 4 == 3) {
		p.ip.family = RSW_AF_INET6;
		p.ip.addr[0] = 0xfd;
		p.ip.addr[6] = (uint8_t)(k >> 8);
		p.ip.addr[7] = (uint8_t)k;
		p.len = 64;
		return p;
	}
	p.ip.addr[0] = 10;
	p.ip.addr[1] = (uint8_t)(k >> 8);
	p.ip.addr[2] = (uint8_t)k;
	p.ip.addr[3] = k % 4 == 1 ? 1 : 0;
	p.len = k % 4 == 1 ? 32 : 24;
	return p;
}

static struct rsw_tables *
make(uint64_t gen, uint32_t n_routes, uint32_t batch, int recycle, uint64_t *t_alloc,
     uint64_t *t_add)
{
	uint32_t n_groups = RTE_MIN(n_routes, (uint32_t)RSW_MAX_GROUPS), k;
	uint64_t t0 = rte_rdtsc();
	struct rsw_tables *t;

	t = (recycle ? rsw_tables_recycle : rsw_tables_alloc_routes)(gen, 2 + n_groups, n_groups,
								     n_groups, n_routes, n_routes);
	if (t == NULL)
		return NULL;
	*t_alloc = rte_rdtsc() - t0;
	t0 = rte_rdtsc();
	for (k = 0; k < n_groups; k++) {
		struct rsw_result r = {.type = RSW_RES_GROUP, .single = 1, .id = k, .port = 1};

		t->nh[t->n_nh].port = 1;
		t->groups[t->n_groups].n_members = 1;
		t->groups[t->n_groups++].members[0] = t->n_nh++;
		rsw_tables_add_result(t, &r);
	}
	for (k = 0; k < n_routes; k++) {
		/* A tenth of the routes is left out or moved to another group each batch. */
		uint32_t key = (k + batch * 7) % (n_routes + n_routes / 10);
		struct rsw_prefix p = route(key);

		if (rsw_tables_add_route(t, &p, 1 + (key + batch) % n_groups) != 0) {
			rsw_tables_free(t);
			return NULL;
		}
	}
	if (rsw_tables_commit(t) != 0) {
		rsw_tables_free(t);
		return NULL;
	}
	*t_add = rte_rdtsc() - t0;
	return t;
}

int
main(int argc, char **argv)
{
	uint32_t n_routes = argc > 1 ? (uint32_t)atoi(argv[1]) : 100;
	unsigned int batches = argc > 2 ? (unsigned int)atoi(argv[2]) : 20, b, mode;
	uint64_t gen = 1;
	static uint64_t a[MAX_BATCHES], d[MAX_BATCHES], p[MAX_BATCHES], all[MAX_BATCHES];
	static uint64_t c4[MAX_BATCHES], c6[MAX_BATCHES], f4[MAX_BATCHES], f6[MAX_BATCHES];
	struct rte_fib_conf fc4 = {
		.type = RTE_FIB_DIR24_8,
		.max_routes = RSW_FIB_DEFAULT_ROUTES,
		.dir24_8 = {.nh_sz = RTE_FIB_DIR24_8_2B, .num_tbl8 = RSW_MAX_FIB4_TBL8},
	};
	struct rte_fib6_conf fc6 = {
		.type = RTE_FIB6_TRIE,
		.max_routes = RSW_FIB_DEFAULT_ROUTES,
		.trie = {.nh_sz = RTE_FIB6_TRIE_2B, .num_tbl8 = 1 << 13},
	};

	if (ut_eal_init_mem("bench_tables", "512") != 0 || rsw_fib_init(1) != 0) {
		fprintf(stderr, "bench_tables: cannot start\n");
		return 1;
	}
	if (batches < 1)
		batches = 1;
	batches = RTE_MIN(batches, (unsigned int)MAX_BATCHES);
	if (n_routes < 1)
		n_routes = 1;
	printf("bench_tables: %u routes, %u batches, --no-huge -m 512\n", n_routes, batches);
	for (mode = 0; mode < 2; mode++) {
		for (b = 0; b < batches; b++) {
			uint64_t t0 = rte_rdtsc(), t1;
			struct rsw_tables *t = make(gen++, n_routes, b, mode, &a[b], &d[b]);

			if (t == NULL) {
				fprintf(stderr, "bench_tables: cannot make a generation\n");
				return 1;
			}
			t1 = rte_rdtsc();
			rsw_tables_publish(t);
			p[b] = rte_rdtsc() - t1;
			all[b] = rte_rdtsc() - t0;
		}
		printf(" %s:\n", mode ? "recycled (rsw_tables_recycle)"
				      : "new FIBs (rsw_tables_alloc_routes)");
		report("make (alloc)", a, batches);
		report("add routes + commit", d, batches);
		report("publish (+ retire old)", p, batches);
		report("whole batch", all, batches);
	}
	/* The allocation's parts, alone: the FIBs made and freed as a generation makes them. */
	rsw_tables_publish(NULL);
	for (b = 0; b < batches; b++) {
		uint64_t t0 = rte_rdtsc();
		struct rte_fib *x = rte_fib_create("bench4", (int)rte_socket_id(), &fc4);
		struct rte_fib6 *y;

		c4[b] = rte_rdtsc() - t0;
		t0 = rte_rdtsc();
		y = rte_fib6_create("bench6", (int)rte_socket_id(), &fc6);
		c6[b] = rte_rdtsc() - t0;
		if (x == NULL || y == NULL)
			return 1;
		t0 = rte_rdtsc();
		rte_fib_free(x);
		f4[b] = rte_rdtsc() - t0;
		t0 = rte_rdtsc();
		rte_fib6_free(y);
		f6[b] = rte_rdtsc() - t0;
	}
	printf(" parts of alloc/free:\n");
	report("rte_fib_create (DIR24_8)", c4, batches);
	report("rte_fib6_create (trie)", c6, batches);
	report("rte_fib_free", f4, batches);
	report("rte_fib6_free", f6, batches);
	rsw_fib_fini();
	rte_eal_cleanup();
	return 0;
}
