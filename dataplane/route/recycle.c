/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 4 of the packet path: building a generation on the retired one. Once
 * rsw_tables_publish has seen every worker leave the previous generation, it
 * keeps it as rsw_fib_main.spare instead of freeing it. The next build takes
 * it (rsw_tables_recycle): results, next hops, groups and settings start
 * empty as in a new generation, while the FIBs keep their prefixes, listed
 * sorted in stale. The build adds its routes (rte_fib_add replaces the next
 * hop of a prefix already there), every prefix added is tracked in keys, and
 * rsw_tables_commit deletes the stale prefixes the build did not add again.
 * The FIBs then hold exactly what a new generation would, at the cost of the
 * routes added and deleted instead of two new FIBs (a DIR-24-8 tbl24 of
 * 32 MiB allocated and zeroed, another freed and zeroed).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_version.h>

#include "rsw_fib.h"

static struct rsw_fib_key
key_of(const struct rsw_prefix *p)
{
	struct rsw_fib_key k = {.family = p->ip.family, .len = p->len};
	uint8_t full = p->ip.family == RSW_AF_INET ? 32 : 128;
	unsigned int i;

	/* The FIB masks the address to its length: so does the key. */
	if (k.len > full)
		k.len = full;
	memcpy(k.addr, p->ip.addr, full / 8u);
	for (i = k.len; i < full; i++)
		k.addr[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
	return k;
}

static int
key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct rsw_fib_key));
}

void
rsw_tables_track(struct rsw_tables *t, const struct rsw_prefix *p)
{
	if (t->untracked)
		return;
	if (t->n_keys == t->cap_keys) {
		uint32_t cap = t->cap_keys ? 2 * t->cap_keys : 256;
		struct rsw_fib_key *k = rte_realloc(t->keys, sizeof(*k) * cap, 0);

		if (k == NULL) {
			/* Not known: such a generation is freed when retired, never recycled. */
			t->untracked = 1;
			t->failed |= t->recycled;
			return;
		}
		t->keys = k;
		t->cap_keys = cap;
	}
	t->keys[t->n_keys++] = key_of(p);
	t->keys_sorted = 0;
}

/* Sort t's keys and drop the duplicates (a prefix added twice). */
static void
keys_sort(struct rsw_tables *t)
{
	uint32_t i, n = 0;

	if (t->keys_sorted)
		return;
	if (t->n_keys > 1)
		qsort(t->keys, t->n_keys, sizeof(*t->keys), key_cmp);
	for (i = 0; i < t->n_keys; i++)
		if (n == 0 || key_cmp(&t->keys[n - 1], &t->keys[i]) != 0)
			t->keys[n++] = t->keys[i];
	t->n_keys = n;
	t->keys_sorted = 1;
}

/* Grow *a to n entries of size sz (rte_zmalloc) when it has fewer; zero its first n. */
static int
array_ready(void **a, uint32_t *cap, uint32_t n, size_t sz, unsigned int align)
{
	n = n ? n : 1;
	if (*cap < n) {
		void *b = rte_zmalloc("rsw_tables", sz * n, align);

		if (b == NULL)
			return -ENOMEM;
		rte_free(*a);
		*a = b;
		*cap = n;
		return 0;
	}
	memset(*a, 0, sz * n);
	return 0;
}

struct rsw_tables *
rsw_tables_recycle(uint64_t generation, uint32_t max_results, uint32_t max_nh, uint32_t max_groups,
		   uint32_t max_routes4, uint32_t max_routes6)
{
	struct rsw_tables *s = rsw_fib_main.spare, keep;
	uint32_t i, n4 = 0;

	if (s == NULL || max_results < 1 || max_results > RSW_FIB_MAX_NH)
		return rsw_tables_alloc_routes(generation, max_results, max_nh, max_groups,
					       max_routes4, max_routes6);
	rsw_fib_main.spare = NULL;
	keys_sort(s);
	for (i = 0; i < s->n_keys; i++)
		n4 += s->keys[i].family == RSW_AF_INET;
	/* Stale and new routes are in the FIBs together until the commit. */
	if ((uint64_t)n4 + max_routes4 > s->fib_routes4 ||
	    (uint64_t)(s->n_keys - n4) + max_routes6 > s->fib_routes6 ||
	    array_ready((void **)&s->results, &s->cap_results, max_results, sizeof(*s->results),
			0) != 0 ||
	    array_ready((void **)&s->nh, &s->cap_nh, max_nh, sizeof(*s->nh), 0) != 0 ||
	    array_ready((void **)&s->groups, &s->cap_groups, max_groups, sizeof(*s->groups),
			RTE_CACHE_LINE_SIZE) != 0) {
		rsw_tables_free(s);
		return rsw_tables_alloc_routes(generation, max_results, max_nh, max_groups,
					       max_routes4, max_routes6);
	}
	rte_free(s->adj); /* adjacencies are made again with the connected routes */
	keep = *s;
	memset(s, 0, sizeof(*s));
	s->fib4 = keep.fib4;
	s->fib6 = keep.fib6;
	s->results = keep.results;
	s->cap_results = keep.cap_results;
	s->nh = keep.nh;
	s->cap_nh = keep.cap_nh;
	s->groups = keep.groups;
	s->cap_groups = keep.cap_groups;
	s->fib_routes4 = keep.fib_routes4;
	s->fib_routes6 = keep.fib_routes6;
	rte_free(keep.stale);
	s->stale = keep.keys;
	s->n_stale = keep.n_keys;
	s->recycled = 1;
	s->generation = generation;
	s->n_results = 1; /* results[0]: no route */
	s->max_results = max_results;
	return s;
}

static int
key_delete(struct rsw_tables *t, const struct rsw_fib_key *k)
{
	if (k->family == RSW_AF_INET) {
		uint32_t ip = (uint32_t)k->addr[0] << 24 | (uint32_t)k->addr[1] << 16 |
			      (uint32_t)k->addr[2] << 8 | k->addr[3];

		return rte_fib_delete(t->fib4, ip, k->len);
	}
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
	return rte_fib6_delete(t->fib6, (const struct rte_ipv6_addr *)k->addr, k->len);
#else
	return rte_fib6_delete(t->fib6, k->addr, k->len);
#endif
}

int
rsw_tables_commit(struct rsw_tables *t)
{
	uint32_t i, j = 0;
	int ret;

	if (t->stale == NULL)
		return t->failed ? -ENOSPC : 0;
	keys_sort(t);
	/* Both sorted: one walk finds the stale prefixes not added again. */
	for (i = 0; i < t->n_stale && !t->failed; i++) {
		while (j < t->n_keys && key_cmp(&t->keys[j], &t->stale[i]) < 0)
			j++;
		if (j < t->n_keys && key_cmp(&t->keys[j], &t->stale[i]) == 0)
			continue;
		ret = key_delete(t, &t->stale[i]);
		if (ret != 0)
			t->failed = 1;
	}
	rte_free(t->stale);
	t->stale = NULL;
	t->n_stale = 0;
	return t->failed ? -ENOSPC : 0;
}
