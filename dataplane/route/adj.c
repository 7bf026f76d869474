/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Adjacencies (docs/architecture.md): a connected IPv4 subnet's FIB result points at an
 * array of its host addresses, each slot the index of that host's neighbour
 * entry, so that a worker reaches a connected host with the FIB lookup and one
 * load, as it reaches a next hop. The FIB is never modified live: learning a
 * neighbour writes one slot (rsw_neigh_get), and the neighbour's state and MAC
 * stay in its entry (rsw_neigh_set), so ageing or re-learning it writes one word.
 * Control thread only.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>

#include "rsw_fib.h"

int
rsw_adj_add(struct rsw_tables *t, uint32_t nh, const struct rsw_prefix *p)
{
	struct rsw_result *r = &t->results[nh];
	struct rsw_adj_subnet *s;
	uint32_t bits = 32u - p->len, n, i, *adj, net_be;

	if (r->adj_mask != 0) {
		/* A second prefix on the same result: its slots could not tell them apart. */
		for (i = 0; i < t->n_adj_subnets; i++)
			if (t->adj_subnets[i].result == nh)
				t->adj_subnets[i].mask = 0;
		r->adj_mask = 0;
		return 0;
	}
	if (p->ip.family != RSW_AF_INET || bits == 0 || bits > RSW_ADJ_MAX_BITS)
		return 0;
	if (t->n_adj_subnets >= RSW_MAX_ADJ_SUBNETS)
		return -ENOSPC;
	n = 1u << bits;
	adj = rte_realloc(t->adj, sizeof(*adj) * (t->n_adj + n), 0);
	if (adj == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		adj[t->n_adj + i] = RSW_ADJ_NONE;
	t->adj = adj;
	s = &t->adj_subnets[t->n_adj_subnets++];
	memcpy(&net_be, p->ip.addr, sizeof(net_be)); /* addr[] is not aligned */
	s->net = rte_be_to_cpu_32(net_be) & ~(n - 1);
	s->mask = n - 1;
	s->base = t->n_adj;
	s->result = nh;
	t->n_adj += n;
	r->id = s->base;
	r->adj_mask = s->mask;
	return 0;
}

void
rsw_adj_set(struct rsw_tables *t, uint32_t ip_be, uint32_t idx)
{
	uint32_t ip = rte_be_to_cpu_32(ip_be), i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n_adj_subnets; i++) {
		const struct rsw_adj_subnet *s = &t->adj_subnets[i];

		if (s->mask != 0 && (ip & ~s->mask) == s->net)
			__atomic_store_n(&t->adj[s->base + (ip & s->mask)], idx, __ATOMIC_RELEASE);
	}
}

void
rsw_adj_fill(struct rsw_tables *t)
{
	const void *key;
	void *data;
	uint32_t it = 0;
	int32_t pos;

	if (t == NULL || t->n_adj_subnets == 0 || rsw_fib_main.neigh4 == NULL)
		return;
	while ((pos = rte_hash_iterate(rsw_fib_main.neigh4, &key, &data, &it)) >= 0) {
		uint32_t ip_be;

		memcpy(&ip_be, key, sizeof(ip_be));
		rsw_adj_set(t, ip_be, (uint32_t)pos);
	}
}
