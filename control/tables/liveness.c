/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Next-hop group membership on the control thread (docs/load-balancing.md): a
 * member is down when its port is administratively down, when its link is
 * down (except TAP ports, whose kernel side reports link down once moved into
 * a namespace while still carrying traffic), or when its neighbour could not
 * be resolved. Workers read the per-group masks; a member that goes down loses
 * only its own flows (rsw_lb_select re-hashes them over the live members). The members
 * down only for their neighbour are published too (rsw_lb_ask): a group left with no live
 * member sends its frames their way, to be punted and ask the neighbour again.
 */

#include <string.h>

#include <rte_ethdev.h>

#include "rsw_ctl.h"
#include "rsw_lb.h"
#include "rsw_liveness.h"
#include "rsw_module.h"
#include "rsw_ports.h"

static bool
port_up(uint16_t p)
{
	struct rte_eth_link link;

	if (rsw_dp.ports[p].admin_down)
		return false;
	if (strncmp(rsw_ctl.cfg->ports[p].devargs, "net_tap", 7) == 0)
		return true;
	if (rsw_port_detached(p))
		return false;
	if (rte_eth_link_get_nowait(rsw_port_eth(p), &link) != 0)
		return true;
	return link.link_status == RTE_ETH_LINK_UP;
}

/* The live members of g; in *ask those down only because their neighbour failed. */
static uint16_t
group_live(const struct rsw_tables *t, const struct rsw_group *g, const bool *up, uint16_t *ask)
{
	uint16_t live = 0;
	uint32_t j;

	*ask = 0;
	for (j = 0; j < g->n_members; j++) {
		const struct rsw_nexthop *nh = &t->nh[g->members[j]];

		if (!up[nh->port])
			continue;
		if (rsw_fib_main.neigh[nh->neigh].failed)
			*ask |= (uint16_t)(1u << j);
		else
			live |= (uint16_t)(1u << j);
	}
	return live;
}

/* Ports' state as the masks last saw it, and when the masks were last recomputed. */
static bool seen_up[RSW_MAX_PORTS];
static uint64_t masks_ms;

void
rsw_ctl_lb_poll(void)
{
	rsw_ctl_lb_masks(rsw_fib_main.tables);
}

void
rsw_ctl_lb_masks(const struct rsw_tables *t)
{
	bool up[RSW_MAX_PORTS];
	uint32_t g;
	uint16_t p;

	if (t == NULL)
		return;
	for (p = 0; p < rsw_dp.n_ports; p++)
		seen_up[p] = up[p] = port_up(p);
	for (g = 0; g < t->n_groups; g++) {
		uint16_t ask, live = group_live(t, &t->groups[g], up, &ask);

		__atomic_store_n(&rsw_lb_ask[g], ask, __ATOMIC_RELAXED);
		__atomic_store_n(&rsw_lb_down[g], (uint16_t)~live, __ATOMIC_RELAXED);
	}
}

bool
rsw_ctl_lb_member_up(uint32_t g, uint32_t j)
{
	return g < RSW_MAX_GROUPS && j < RSW_MAX_NEXTHOPS &&
	       !(__atomic_load_n(&rsw_lb_down[g], __ATOMIC_RELAXED) & (1u << j));
}

/*
 * Every LIVENESS_LINK_MS the ports' state is read, and the masks are recomputed when a port
 * came up or went down; every LIVENESS_FULL_MS they are recomputed anyway (a neighbour whose
 * resolution failed or came back). A link that comes up carries traffic within
 * LIVENESS_LINK_MS: with one poll per 100 ms its first frames found the group still empty.
 */
#define LIVENESS_LINK_MS 5
#define LIVENESS_FULL_MS 100

static unsigned int
liveness_poll(uint64_t now_ms)
{
	bool changed = now_ms - masks_ms >= LIVENESS_FULL_MS;
	uint16_t p;

	for (p = 0; p < rsw_dp.n_ports && !changed; p++)
		changed = port_up(p) != seen_up[p];
	if (!changed)
		return 0;
	masks_ms = now_ms;
	rsw_ctl_lb_poll();
	return 1;
}

static struct rsw_module liveness_module = {
	.name = "liveness",
	.order = RSW_MODULE_ORDER_LIVENESS,
	.poll = liveness_poll,
	.period_ms = LIVENESS_LINK_MS,
};

RSW_MODULE_REGISTER(liveness_module);
