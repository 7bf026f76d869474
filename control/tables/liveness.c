/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Next-hop group membership on the control thread (DESIGN.md §3 step 5): a
 * member is down when its port is administratively down, when its link is
 * down (except TAP ports, whose kernel side reports link down once moved into
 * a namespace while still carrying traffic), or when its neighbour could not
 * be resolved. Workers read the per-group masks; a member that goes down loses
 * only its own flows (rsw_lb_select re-hashes them over the live members).
 */

#include <string.h>

#include <rte_ethdev.h>

#include "rsw_ctl.h"
#include "rsw_lb.h"
#include "rsw_liveness.h"
#include "rsw_module.h"

static bool
port_up(uint16_t p)
{
	struct rte_eth_link link;

	if (rsw_dp.ports[p].admin_down)
		return false;
	if (strncmp(rsw_ctl.cfg->ports[p].devargs, "net_tap", 7) == 0)
		return true;
	if (rte_eth_link_get_nowait(rsw_dp.ports[p].eth_port, &link) != 0)
		return true;
	return link.link_status == RTE_ETH_LINK_UP;
}

static uint16_t
group_live(const struct rsw_tables *t, const struct rsw_group *g, const bool *up)
{
	uint16_t live = 0;
	uint32_t j;

	for (j = 0; j < g->n_members; j++) {
		const struct rsw_nexthop *nh = &t->nh[g->members[j]];

		if (up[nh->port] && !rsw_fib_main.neigh[nh->neigh].failed)
			live |= (uint16_t)(1u << j);
	}
	return live;
}

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
		up[p] = port_up(p);
	for (g = 0; g < t->n_groups; g++)
		__atomic_store_n(&rsw_lb_down[g], (uint16_t)~group_live(t, &t->groups[g], up),
				 __ATOMIC_RELAXED);
}

bool
rsw_ctl_lb_member_up(uint32_t g, uint32_t j)
{
	return g < RSW_MAX_GROUPS && j < RSW_MAX_NEXTHOPS &&
	       !(__atomic_load_n(&rsw_lb_down[g], __ATOMIC_RELAXED) & (1u << j));
}

static unsigned int
liveness_poll(uint64_t now_ms __rte_unused)
{
	rsw_ctl_lb_poll();
	return 0;
}

static struct rsw_module liveness_module = {
	.name = "liveness",
	.order = RSW_MODULE_ORDER_LIVENESS,
	.poll = liveness_poll,
	.period_ms = 100,
};

RSW_MODULE_REGISTER(liveness_module);
