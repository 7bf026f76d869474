/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Building one generation of forwarding tables from a configuration: local
 * host routes and connected subnets per port address, static routes as
 * next-hop groups, and the classify / load-balance settings workers read.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "rsw_ctl.h"
#include "rsw_lb.h"
#include "rsw_neigh.h"
#include "rsw_tables_ctl.h"

static int
add_port_routes(struct rsw_tables *t, uint16_t p, const struct rsw_prefix *addr)
{
	struct rsw_result r = {.port = p};
	struct rsw_prefix host = *addr, net = *addr;
	uint8_t full = addr->ip.family == RSW_AF_INET ? 32 : 128;
	int nh, ret, i;

	/* The subnet: connected. */
	for (i = net.len; i < full; i++)
		net.ip.addr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	r.type = RSW_RES_CONNECTED;
	nh = rsw_tables_add_result(t, &r);
	if (nh < 0)
		return nh;
	ret = rsw_tables_add_route(t, &net, (uint32_t)nh);
	if (ret != 0)
		return ret;
	/* The switch's own address: local. */
	host.len = full;
	r.type = RSW_RES_LOCAL;
	nh = rsw_tables_add_result(t, &r);
	if (nh < 0)
		return nh;
	return rsw_tables_add_route(t, &host, (uint32_t)nh);
}

/* The port whose connected subnet holds ip, else the port of a static neighbour, else -1. */
static int
nexthop_port(const struct rsw_config *cfg, const struct rsw_ip *ip)
{
	uint32_t i;
	uint16_t p;

	for (p = 0; p < cfg->n_ports; p++) {
		const struct rsw_cfg_port *cp = &cfg->ports[p];

		if (ip->family == RSW_AF_INET && cp->has_ipv4 && rsw_prefix_contains(&cp->ipv4, ip))
			return p;
		if (ip->family == RSW_AF_INET6 && cp->has_ipv6 &&
		    rsw_prefix_contains(&cp->ipv6, ip))
			return p;
	}
	for (i = 0; i < cfg->n_neighbors; i++)
		if (memcmp(&cfg->neighbors[i].ip, ip, sizeof(*ip)) == 0)
			return cfg->neighbors[i].port;
	return -1;
}

/*
 * Routes with the same next hops, weights, lb mode and port share one next-hop group and one
 * FIB result (the loader counted them: at most RSW_MAX_GROUPS). gset maps a route's group
 * hash to the index + 1 of the group made for it (open addressing, at most half full).
 */
#define GSET_SIZE (2 * RSW_MAX_GROUPS)

struct group_set {
	uint32_t group[GSET_SIZE]; /* group index + 1, 0 = empty */
	uint32_t nh[GSET_SIZE];    /* its FIB next-hop value */
};

/* The group route i shares, or -1 when it needs a new one (its slot is in *slot). */
static int64_t
group_find(const struct group_set *gs, const struct rsw_config *cfg, const struct rsw_tables *t,
	   uint32_t i, uint32_t *slot)
{
	const struct rsw_cfg_route *cr = &cfg->routes[i];
	uint32_t h = rsw_cfg_route_group_hash(cr) & (GSET_SIZE - 1);

	while (gs->group[h] != 0) {
		const struct rsw_group *g = &t->groups[gs->group[h] - 1];

		if (rsw_cfg_route_same_group(&cfg->routes[g->route], cr))
			break;
		h = (h + 1) & (GSET_SIZE - 1);
	}
	*slot = h;
	return gs->group[h] != 0 ? (int64_t)gs->group[h] - 1 : -1;
}

struct rsw_tables *
rsw_ctl_tables_build(const struct rsw_config *cfg, uint64_t generation, char *err, size_t errlen)
{
	char buf[64], buf2[64];
	uint32_t n_nh = 0, n_groups, i, j, slot, n4 = 0, n6;
	struct group_set *gs;
	struct rsw_tables *t;
	int64_t shared;
	uint16_t p;
	int ret;

	/* At most RSW_MAX_GROUPS distinct groups (the loader refused more). */
	for (i = 0; i < cfg->n_routes && n_nh < RSW_MAX_GROUPS * RSW_MAX_NEXTHOPS; i++)
		n_nh += cfg->routes[i].n_nexthops;
	n_groups = RTE_MIN(cfg->n_routes, (uint32_t)RSW_MAX_GROUPS);
	n_nh = RTE_MIN(n_nh, (uint32_t)(RSW_MAX_GROUPS * RSW_MAX_NEXTHOPS));
	for (i = 0; i < cfg->n_routes; i++)
		n4 += cfg->routes[i].prefix.ip.family == RSW_AF_INET;
	n6 = cfg->n_routes - n4;
	gs = calloc(1, sizeof(*gs));
	/* Room for the static routes and each port's connected and local routes. */
	t = rsw_tables_alloc_routes(generation, 1 + 2 * 2 * cfg->n_ports + n_groups, n_nh, n_groups,
				    n4 + 2 * cfg->n_ports, n6 + 2 * cfg->n_ports);
	if (gs == NULL || t == NULL) {
		snprintf(err, errlen, "cannot allocate forwarding tables: %s",
			 rte_strerror(t == NULL ? rte_errno : ENOMEM));
		free(gs);
		rsw_tables_free(t);
		return NULL;
	}

	t->trust = (uint8_t)cfg->qos.trust;
	t->default_tc = cfg->qos.default_tc;
	t->icmp_unreachable = cfg->sw.icmp_unreachable;
	memcpy(t->dscp_to_tc, cfg->qos.dscp_to_tc, sizeof(t->dscp_to_tc));
	memcpy(t->pcp_to_tc, cfg->qos.pcp_to_tc, sizeof(t->pcp_to_tc));
	t->hash_fields = cfg->lb.hash_fields;
	t->hash_seed = cfg->lb.hash_seed;
	t->hash_algorithm = (uint8_t)cfg->lb.hash_algorithm;
	t->hash_symmetric = cfg->lb.hash_symmetric;
	t->lb_mode = (int8_t)cfg->lb.mode;
	t->spray_random = cfg->lb.spray == RSW_SPRAY_RANDOM;
	t->flowlet_ticks = (uint64_t)cfg->lb.flowlet_timeout_us * rte_get_tsc_hz() / 1000000;
	for (i = 0; i < RSW_N_TC; i++)
		t->lb_per_tc[i] = (int8_t)cfg->lb.per_tc[i];
	memcpy(t->rss_key, rsw_lb_default_rss_key, sizeof(t->rss_key));
	rsw_qos_params_from_cfg(&t->qos, cfg);

	for (p = 0; p < cfg->n_ports; p++) {
		const struct rsw_cfg_port *cp = &cfg->ports[p];

		if (cp->has_ipv4 && (ret = add_port_routes(t, p, &cp->ipv4)) != 0)
			goto route_fail_port;
		if (cp->has_ipv6 && (ret = add_port_routes(t, p, &cp->ipv6)) != 0)
			goto route_fail_port;
		continue;
	route_fail_port:
		snprintf(err, errlen, "port %s: cannot add its connected routes: %s", cp->name,
			 strerror(-ret));
		goto fail;
	}

	for (i = 0; i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *cr = &cfg->routes[i];
		struct rsw_group *g = &t->groups[t->n_groups];
		struct rsw_result r = {.type = RSW_RES_GROUP, .id = t->n_groups};
		int nh;

		shared = group_find(gs, cfg, t, i, &slot);
		if (shared >= 0) {
			t->groups[shared].n_routes++;
			ret = rsw_tables_add_route(t, &cr->prefix, gs->nh[slot]);
			if (ret != 0)
				goto route_fail;
			continue;
		}
		if (t->n_groups == RSW_MAX_GROUPS) {
			snprintf(err, errlen,
				 "route %s: too many distinct next-hop groups, at most %u",
				 rsw_prefix_str(&cr->prefix, buf, sizeof(buf)), RSW_MAX_GROUPS);
			goto fail;
		}
		g->n_members = cr->n_nexthops;
		g->lb_mode = (int16_t)cr->lb;
		g->prefix = cr->prefix;
		g->route = i;
		g->n_routes = 1;
		for (j = 0; j < cr->n_nexthops; j++) {
			/* Topology host routes name their port: a leaf's downlinks share a subnet. */
			int port = cr->has_port ? cr->port : nexthop_port(cfg, &cr->nexthops[j]);
			int neigh;

			if (port < 0) {
				snprintf(err, errlen, "route %s: next hop %s is not reachable",
					 rsw_prefix_str(&cr->prefix, buf, sizeof(buf)),
					 rsw_ip_str(&cr->nexthops[j], buf2, sizeof(buf2)));
				goto fail;
			}
			neigh = rsw_ctl_neigh_want(&cr->nexthops[j], (uint16_t)port);
			if (neigh < 0) {
				snprintf(err, errlen, "route %s: neighbour table full (%u entries)",
					 rsw_prefix_str(&cr->prefix, buf, sizeof(buf)),
					 RSW_MAX_NEIGHBORS);
				goto fail;
			}
			g->ports[j] = (uint16_t)port;
			t->nh[t->n_nh].port = (uint16_t)port;
			t->nh[t->n_nh].neigh = (uint32_t)neigh;
			g->members[j] = t->n_nh++;
		}
		rsw_group_fill_buckets(g, cr->weights);
		if (g->n_members == 1) {
			r.single = 1;
			r.port = g->ports[0];
			r.neigh = t->nh[g->members[0]].neigh;
		}
		t->n_groups++;
		nh = rsw_tables_add_result(t, &r);
		ret = nh < 0 ? nh : rsw_tables_add_route(t, &cr->prefix, (uint32_t)nh);
		if (ret != 0)
			goto route_fail;
		gs->group[slot] = t->n_groups;
		gs->nh[slot] = (uint32_t)nh;
		continue;
	route_fail:
		snprintf(err, errlen, "route %s: cannot add: %s",
			 rsw_prefix_str(&cr->prefix, buf, sizeof(buf)), strerror(-ret));
		goto fail;
	}
	/* Whether some class may take a hashing mode through a group of two or more members. */
	for (i = 0; i < t->n_groups && !t->lb_hash_batch; i++) {
		for (j = 0; j < RSW_N_TC && t->groups[i].n_members > 1; j++) {
			int mode = rsw_lb_mode_for_tc(t, t->groups[i].lb_mode, (uint8_t)j);

			t->lb_hash_batch |= mode == RSW_LB_HASH || mode == RSW_LB_FLOWLET;
		}
	}
	free(gs);
	return t;
fail:
	free(gs);
	rsw_tables_free(t);
	return NULL;
}
