/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 4 of the packet path, what outlives a table generation: the RCU variable
 * workers report to, and the neighbour table (ARP/ND entries, written by the
 * control thread, read lock-free by workers). Generations are in tables.c.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rsw_fib.h"

struct rsw_fib_main rsw_fib_main;

int
rsw_fib_init(unsigned int n_workers)
{
	struct rte_hash_parameters hp = {
		.entries = RSW_MAX_NEIGHBORS,
		.socket_id = (int)rte_socket_id(),
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	size_t sz;

	hp.name = "rsw_neigh4";
	hp.key_len = 4;
	rsw_fib_main.neigh4 = rte_hash_create(&hp);
	hp.name = "rsw_neigh6";
	hp.key_len = 16;
	rsw_fib_main.neigh6 = rte_hash_create(&hp);
	/* One entry more: RSW_NEIGH_NONE, zero (never valid) for the table's life. */
	rsw_fib_main.neigh = rte_zmalloc(
		"rsw_neigh", sizeof(struct rsw_neigh) * (RSW_NEIGH_NONE + 1), RTE_CACHE_LINE_SIZE);
	sz = rte_rcu_qsbr_get_memsize(n_workers);
	rsw_fib_main.qsbr = rte_zmalloc("rsw_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (rsw_fib_main.neigh4 == NULL || rsw_fib_main.neigh6 == NULL ||
	    rsw_fib_main.neigh == NULL || rsw_fib_main.qsbr == NULL) {
		rsw_fib_fini();
		return -ENOMEM;
	}
	if (rte_rcu_qsbr_init(rsw_fib_main.qsbr, n_workers) != 0) {
		rsw_fib_fini();
		return -EINVAL;
	}
	return 0;
}

void
rsw_fib_fini(void)
{
	rsw_tables_free(rsw_fib_main.tables);
	rsw_fib_main.tables = NULL;
	rsw_tables_free(rsw_fib_main.spare);
	rsw_fib_main.spare = NULL;
	rte_hash_free(rsw_fib_main.neigh4);
	rte_hash_free(rsw_fib_main.neigh6);
	rte_free(rsw_fib_main.neigh);
	rte_free(rsw_fib_main.qsbr);
	memset(&rsw_fib_main, 0, sizeof(rsw_fib_main));
}

int
rsw_neigh_get(const struct rsw_ip *ip, uint16_t port)
{
	struct rte_hash *h = ip->family == RSW_AF_INET ? rsw_fib_main.neigh4 : rsw_fib_main.neigh6;
	uint32_t base = ip->family == RSW_AF_INET ? 0 : RSW_MAX_NEIGHBORS;
	int idx;

	if (ip->family != RSW_AF_INET && ip->family != RSW_AF_INET6)
		return -EINVAL;
	idx = rte_hash_lookup(h, ip->addr);

	if (idx >= 0)
		return (int)base + idx;
	idx = rte_hash_add_key(h, ip->addr);
	if (idx < 0)
		return idx;
	if (idx >= RSW_MAX_NEIGHBORS)
		return -ENOSPC;
	rsw_fib_main.neigh[base + idx].port = port;
	if (ip->family == RSW_AF_INET) {
		uint32_t ip_be;

		/* The entry is complete: its connected subnet's slot may point at it now. */
		memcpy(&ip_be, ip->addr, sizeof(ip_be));
		rsw_adj_set(rsw_fib_main.tables, ip_be, (uint32_t)idx);
	}
	return (int)base + idx;
}

void
rsw_neigh_set(uint32_t idx, const uint8_t *mac)
{
	uint64_t v = 0;

	if (mac != NULL) {
		memcpy(&v, mac, 6);
		v |= RSW_NEIGH_VALID;
	}
	/* Invalidated only when resolution gives up; a new entry starts neither. */
	rsw_fib_main.neigh[idx].failed = mac == NULL;
	__atomic_store_n(&rsw_fib_main.neigh[idx].mac_valid, v, __ATOMIC_RELEASE);
}
