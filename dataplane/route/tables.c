/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 4 of the packet path: table generations (struct rsw_tables), built
 * aside by the control thread and published by one pointer swap (RCU). DPDK
 * 22.11's rte_fib has no RCU hook of its own, so a live FIB is never
 * modified: a generation is built on FIBs no worker reads, new ones (unique
 * names) or the retired generation's once the workers have left it (recycle.c).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_version.h>

#include "rsw_fib.h"

RTE_LOG_REGISTER_DEFAULT(rsw_fib_logtype, INFO);
#define FIB_LOG(level, ...) rte_log(RTE_LOG_##level, rsw_fib_logtype, "fib: " __VA_ARGS__)

#define RSW_FIB4_TBL8 RSW_MAX_FIB4_TBL8 /* 2-byte next hops: 2 MiB of tbl8 */
#define RSW_FIB6_TBL8 (1 << 13)

struct rsw_tables *
rsw_tables_alloc(uint64_t generation, uint32_t max_results, uint32_t max_nh, uint32_t max_groups)
{
	return rsw_tables_alloc_routes(generation, max_results, max_nh, max_groups,
				       RSW_FIB_DEFAULT_ROUTES, RSW_FIB_DEFAULT_ROUTES);
}

struct rsw_tables *
rsw_tables_alloc_routes(uint64_t generation, uint32_t max_results, uint32_t max_nh,
			uint32_t max_groups, uint32_t max_routes4, uint32_t max_routes6)
{
	struct rte_fib_conf c4 = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = RSW_FIB_NO_ROUTE,
		.max_routes = (int)RTE_MAX(max_routes4, (uint32_t)RSW_FIB_DEFAULT_ROUTES),
		.dir24_8 = {.nh_sz = RTE_FIB_DIR24_8_2B, .num_tbl8 = RSW_FIB4_TBL8},
	};
	struct rte_fib6_conf c6 = {
		.type = RTE_FIB6_TRIE,
		.default_nh = RSW_FIB_NO_ROUTE,
		.max_routes = (int)RTE_MAX(max_routes6, (uint32_t)RSW_FIB_DEFAULT_ROUTES),
		.trie = {.nh_sz = RTE_FIB6_TRIE_2B, .num_tbl8 = RSW_FIB6_TBL8},
	};
	struct rsw_tables *t;
	char name[64];

	if (max_results < 1 || max_results > RSW_FIB_MAX_NH) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* Two generations at most: the published one and this one. */
	rsw_tables_free(rsw_fib_main.spare);
	rsw_fib_main.spare = NULL;
	t = rte_zmalloc("rsw_tables", sizeof(*t), RTE_CACHE_LINE_SIZE);
	if (t == NULL)
		goto nomem;
	t->generation = generation;
	t->results = rte_zmalloc("rsw_results", sizeof(*t->results) * max_results, 0);
	t->nh = rte_zmalloc("rsw_nh", sizeof(*t->nh) * (max_nh ? max_nh : 1), 0);
	t->groups = rte_zmalloc("rsw_groups", sizeof(*t->groups) * (max_groups ? max_groups : 1),
				RTE_CACHE_LINE_SIZE);
	if (t->results == NULL || t->nh == NULL || t->groups == NULL)
		goto nomem;
	t->n_results = 1; /* results[0]: no route */
	t->max_results = max_results;
	t->cap_results = max_results;
	t->cap_nh = max_nh ? max_nh : 1;
	t->cap_groups = max_groups ? max_groups : 1;
	t->fib_routes4 = (uint32_t)c4.max_routes;
	t->fib_routes6 = (uint32_t)c6.max_routes;

	snprintf(name, sizeof(name), "rsw4_%" PRIu64, generation);
	t->fib4 = rte_fib_create(name, (int)rte_socket_id(), &c4);
	snprintf(name, sizeof(name), "rsw6_%" PRIu64, generation);
	t->fib6 = rte_fib6_create(name, (int)rte_socket_id(), &c6);
	if (t->fib4 == NULL || t->fib6 == NULL) {
		FIB_LOG(ERR, "cannot create FIB generation %" PRIu64 ": %s\n", generation,
			rte_strerror(rte_errno));
		goto nomem;
	}
	return t;
nomem:
	rsw_tables_free(t);
	rte_errno = ENOMEM;
	return NULL;
}

void
rsw_tables_free(struct rsw_tables *t)
{
	if (t == NULL)
		return;
	rte_fib_free(t->fib4);
	rte_fib6_free(t->fib6);
	rte_free(t->results);
	rte_free(t->nh);
	rte_free(t->groups);
	rte_free(t->adj);
	rte_free(t->keys);
	rte_free(t->stale);
	rte_free(t);
}

int
rsw_tables_add_result(struct rsw_tables *t, const struct rsw_result *r)
{
	if (t->n_results >= t->max_results)
		return -ENOSPC;
	t->results[t->n_results] = *r;
	return (int)t->n_results++;
}

int
rsw_tables_add_route(struct rsw_tables *t, const struct rsw_prefix *p, uint32_t nh)
{
	int ret;

	/* The workers index results[] with what the FIB returns, unchecked. */
	if (nh >= t->n_results)
		return -EINVAL;
	if (p->ip.family == RSW_AF_INET) {
		uint32_t ip = (uint32_t)p->ip.addr[0] << 24 | (uint32_t)p->ip.addr[1] << 16 |
			      (uint32_t)p->ip.addr[2] << 8 | p->ip.addr[3];

		ret = rte_fib_add(t->fib4, ip, p->len, nh);
	} else {
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
		ret = rte_fib6_add(t->fib6, (const struct rte_ipv6_addr *)p->ip.addr, p->len, nh);
#else
		ret = rte_fib6_add(t->fib6, p->ip.addr, p->len, nh);
#endif
	}
	/* A recycled generation's FIBs also hold stale routes: a failure may be theirs. */
	t->failed |= ret != 0 && t->recycled;
	if (ret != 0)
		return ret;
	rsw_tables_track(t, p);
	if (p->ip.family == RSW_AF_INET && t->results[nh].type == RSW_RES_CONNECTED)
		return rsw_adj_add(t, nh, p);
	return 0;
}

/*
 * Smooth weighted round-robin (as nginx): each step every member gains its weight, the
 * richest is chosen and pays the total. Over a cycle of sum(weights) steps each member is
 * chosen weight times, spread out. Weights are scaled down to fit RSW_LB_BUCKETS steps.
 */
static void
fill_spray_seq(struct rsw_group *g, const uint32_t *weights, uint64_t total)
{
	int64_t cur[RSW_MAX_NEXTHOPS] = {0};
	uint32_t w[RSW_MAX_NEXTHOPS], sum = 0, i, k;

	for (i = 0; i < g->n_members; i++) {
		uint64_t wi = weights ? weights[i] : 1;

		if (total > RSW_LB_BUCKETS)
			wi = (wi * RSW_LB_BUCKETS) / total;
		w[i] = wi ? (uint32_t)wi : 1;
		sum += w[i];
	}
	while (sum > RSW_LB_BUCKETS) {
		/* Rounding up the small weights can overshoot: trim the largest. */
		uint32_t big = 0;

		for (i = 1; i < g->n_members; i++)
			if (w[i] > w[big])
				big = i;
		w[big]--;
		sum--;
	}
	for (k = 0; k < sum; k++) {
		uint32_t best = 0;

		for (i = 0; i < g->n_members; i++) {
			cur[i] += w[i];
			if (cur[i] > cur[best])
				best = i;
		}
		cur[best] -= sum;
		g->spray_seq[k] = (uint8_t)best;
	}
	g->spray_len = (uint16_t)sum;
}

void
rsw_group_fill_buckets(struct rsw_group *g, const uint32_t *weights)
{
	uint64_t total = 0, acc = 0;
	uint32_t i, b = 0;

	for (i = 0; i < g->n_members; i++)
		total += weights ? weights[i] : 1;
	if (total == 0)
		return;
	/* Member i takes the buckets up to its cumulative share, spread by striding. */
	for (i = 0; i < g->n_members; i++) {
		uint32_t end;

		acc += weights ? weights[i] : 1;
		end = (uint32_t)(acc * RSW_LB_BUCKETS / total);
		for (; b < end; b++)
			g->buckets[b] = (uint8_t)i;
	}
	for (; b < RSW_LB_BUCKETS; b++)
		g->buckets[b] = (uint8_t)(g->n_members - 1);
	fill_spray_seq(g, weights, total);
}

void
rsw_tables_publish(struct rsw_tables *t)
{
	struct rsw_tables *old = rsw_fib_main.tables;

	if (t != NULL && t->stale != NULL && rsw_tables_commit(t) != 0)
		FIB_LOG(ERR, "generation %" PRIu64 " published with stale routes\n", t->generation);
	rsw_adj_fill(t); /* the neighbours learned while t was built */
	__atomic_store_n(&rsw_fib_main.tables, t, __ATOMIC_RELEASE);
	if (old == NULL) {
		if (t == NULL) {
			rsw_tables_free(rsw_fib_main.spare);
			rsw_fib_main.spare = NULL;
		}
		return;
	}
	/* After this, no worker reads old: it may be freed, or built on again. */
	rte_rcu_qsbr_synchronize(rsw_fib_main.qsbr, RTE_QSBR_THRID_INVALID);
	rsw_tables_free(rsw_fib_main.spare);
	rsw_fib_main.spare = NULL;
	if (t != NULL && !old->untracked && !old->failed)
		rsw_fib_main.spare = old;
	else
		rsw_tables_free(old);
}
