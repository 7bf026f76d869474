/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Per-lcore counter slots and their sums, read by the control thread.
 */

#include <errno.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rsw_stats.h"

struct rsw_lcore_stats *rsw_stats[RTE_MAX_LCORE];

static const char *const port_ctr_names[RSW_N_PORT_CTRS] = {
#define RSW_X_NAME(name, ...) [RSW_PC_##name] = #name,
	RSW_FOREACH_PORT_CTR(RSW_X_NAME)
#undef RSW_X_NAME
};

static const uint8_t port_ctr_drop[RSW_N_PORT_CTRS] = {
#define RSW_X_DROP(name, is_drop, ...) [RSW_PC_##name] = is_drop,
	RSW_FOREACH_PORT_CTR(RSW_X_DROP)
#undef RSW_X_DROP
};

const char *
rsw_port_ctr_name(enum rsw_port_ctr c)
{
	return (unsigned int)c < RSW_N_PORT_CTRS ? port_ctr_names[c] : "?";
}

int
rsw_port_ctr_is_drop(enum rsw_port_ctr c)
{
	return (unsigned int)c < RSW_N_PORT_CTRS ? port_ctr_drop[c] : 0;
}

int
rsw_stats_init(void)
{
	unsigned int lc;

	RTE_LCORE_FOREACH(lc) {
		rsw_stats[lc] = rte_zmalloc("rsw_stats", sizeof(struct rsw_lcore_stats),
					    RTE_CACHE_LINE_SIZE);
		if (rsw_stats[lc] == NULL) {
			rsw_stats_fini();
			return -ENOMEM;
		}
	}
	return 0;
}

void
rsw_stats_fini(void)
{
	unsigned int lc;

	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		rte_free(rsw_stats[lc]);
		rsw_stats[lc] = NULL;
	}
}

void
rsw_stats_port_sum(uint16_t port, uint64_t out[RSW_N_PORT_CTRS])
{
	unsigned int lc, i;

	memset(out, 0, sizeof(uint64_t) * RSW_N_PORT_CTRS);
	if (port >= RSW_MAX_PORTS)
		return;
	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct rsw_lcore_stats *st = rsw_stats[lc];

		if (st == NULL)
			continue;
		for (i = 0; i < RSW_N_PORT_CTRS; i++)
			out[i] += __atomic_load_n(&st->port[port].c[i], __ATOMIC_RELAXED);
	}
}

void
rsw_stats_total_sum(uint64_t out[RSW_N_TOTAL_CTRS])
{
	unsigned int lc, i;

	memset(out, 0, sizeof(uint64_t) * RSW_N_TOTAL_CTRS);
	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct rsw_lcore_stats *st = rsw_stats[lc];

		if (st == NULL)
			continue;
		for (i = 0; i < RSW_N_TOTAL_CTRS; i++)
			out[i] += __atomic_load_n(&st->tot[i], __ATOMIC_RELAXED);
	}
}

void
rsw_stats_lb_sum(uint32_t group, uint32_t member, struct rsw_lb_member_stats *out)
{
	unsigned int lc;

	out->packets = 0;
	out->bytes = 0;
	if (group >= RSW_MAX_GROUPS || member >= RSW_MAX_NEXTHOPS)
		return;
	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct rsw_lcore_stats *st = rsw_stats[lc];

		if (st == NULL)
			continue;
		out->packets += __atomic_load_n(&st->lb[group][member].packets, __ATOMIC_RELAXED);
		out->bytes += __atomic_load_n(&st->lb[group][member].bytes, __ATOMIC_RELAXED);
	}
}
