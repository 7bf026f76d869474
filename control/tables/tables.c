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
#include "rsw_kif.h"
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
 * The port of next hop j of a routing daemon's route r, into *ip the neighbour to resolve
 * there; -1 when no port reaches it. A next hop over a kernel interface (RTA_OIF) leaves by
 * that interface's port when it is on-link there: an IPv6 link-local gateway, or the IPv4
 * 169.254.0.0/16 placeholder of BGP unnumbered (RFC 8950), whose neighbour is the peer's
 * link-local address heard on the port. Otherwise as for static routes.
 */
static int
source_nexthop(const struct rsw_config *cfg, const struct rsw_cfg_route *r, uint16_t j,
	       struct rsw_ip *ip)
{
	int p = r->oif[j] != 0 ? rsw_kif_port_of_ifindex((int)r->oif[j]) : -1;

	*ip = r->nexthops[j];
	if (p >= 0 && ip->family == RSW_AF_INET6 && ip->addr[0] == 0xfe &&
	    (ip->addr[1] & 0xc0) == 0x80)
		return p;
	if (p >= 0 && ip->family == RSW_AF_INET && ip->addr[0] == 169 && ip->addr[1] == 254 &&
	    nexthop_port(cfg, ip) < 0) {
		struct rsw_ip ll = {.family = RSW_AF_INET6};

		if (rsw_kif_ll_neighbor((uint16_t)p, NULL, ll.addr, NULL) != 0)
			return -1;
		*ip = ll;
		return p;
	}
	return nexthop_port(cfg, ip);
}

static const struct rsw_ctl_route_source *route_source;

void
rsw_ctl_tables_set_source(const struct rsw_ctl_route_source *s)
{
	route_source = s;
}

uint32_t
rsw_ctl_tables_source_count(void)
{
	return route_source != NULL ? route_source->count() : 0;
}

const struct rsw_ctl_route *
rsw_ctl_tables_source_get(uint32_t i)
{
	return route_source->get(i);
}

uint8_t
rsw_ctl_cfg_route_distance(const struct rsw_cfg_route *r)
{
	if (r->has_distance)
		return r->distance;
	return r->derived ? RSW_DISTANCE_TOPOLOGY : RSW_DISTANCE_STATIC;
}

static bool
prefix_eq(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	size_t n = a->ip.family == RSW_AF_INET ? 4 : 16;

	return a->len == b->len && a->ip.family == b->ip.family &&
	       memcmp(a->ip.addr, b->ip.addr, n) == 0;
}

/* p masked to its length (a port's subnet from its address). */
static struct rsw_prefix
prefix_net(const struct rsw_prefix *addr, bool host)
{
	struct rsw_prefix net = *addr;
	uint8_t full = addr->ip.family == RSW_AF_INET ? 32 : 128;
	int i;

	if (host) {
		net.len = full;
		return net;
	}
	for (i = net.len; i < full; i++)
		net.ip.addr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	return net;
}

/* Whether p is the subnet or the host route of a port address. */
static bool
connected_prefix(const struct rsw_config *cfg, const struct rsw_prefix *p)
{
	uint16_t q;

	for (q = 0; q < cfg->n_ports; q++) {
		const struct rsw_cfg_port *cp = &cfg->ports[q];
		struct rsw_prefix a, b;

		if (cp->has_ipv4) {
			a = prefix_net(&cp->ipv4, false);
			b = prefix_net(&cp->ipv4, true);
			if (prefix_eq(&a, p) || prefix_eq(&b, p))
				return true;
		}
		if (cp->has_ipv6) {
			a = prefix_net(&cp->ipv6, false);
			b = prefix_net(&cp->ipv6, true);
			if (prefix_eq(&a, p) || prefix_eq(&b, p))
				return true;
		}
	}
	return false;
}

bool
rsw_ctl_cfg_route_active(const struct rsw_config *cfg, uint32_t i)
{
	const struct rsw_cfg_route *cr = &cfg->routes[i];

	if (connected_prefix(cfg, &cr->prefix))
		return false;
	if (route_source != NULL) {
		const struct rsw_ctl_route *sr = route_source->find(&cr->prefix);

		if (sr != NULL && sr->active)
			return false;
	}
	return true;
}

int
rsw_ctl_group_nexthop(const struct rsw_tables *t, uint32_t g, uint32_t j, struct rsw_ip *ip)
{
	uint32_t neigh;
	void *key;

	if (t == NULL || g >= t->n_groups || j >= t->groups[g].n_members)
		return -ENOENT;
	neigh = t->nh[t->groups[g].members[j]].neigh;
	memset(ip, 0, sizeof(*ip));
	if (neigh < RSW_MAX_NEIGHBORS) {
		if (rte_hash_get_key_with_position(rsw_fib_main.neigh4, (int32_t)neigh, &key) != 0)
			return -ENOENT;
		ip->family = RSW_AF_INET;
		memcpy(ip->addr, key, 4);
	} else {
		if (rte_hash_get_key_with_position(rsw_fib_main.neigh6,
						   (int32_t)(neigh - RSW_MAX_NEIGHBORS), &key) != 0)
			return -ENOENT;
		ip->family = RSW_AF_INET6;
		memcpy(ip->addr, key, 16);
		rsw_ctl_neigh_unkey(ip); /* a link-local key carries its port */
	}
	return 0;
}

/*
 * The routes a build installs: the configuration's and the route source's, one per prefix
 * (the lowest distance; connected and local prefixes are the ports' own). A source route
 * keeps only the next hops a port reaches (a copy in own).
 */
struct route_set {
	const struct rsw_cfg_route **routes; /* [n]: configuration routes first */
	struct rsw_ctl_route **src; /* [n]: the source route, NULL for a configuration one */
	uint32_t n, n_cfg;
	struct rsw_cfg_route *own; /* resolved copies of source routes */
	bool *installed;           /* [n]: the route is in the FIB */
	uint32_t n_src;
};

/* Slots of connected prefix k hold SLOT_CONNECTED - k. */
#define SLOT_CONNECTED UINT32_MAX

static uint32_t
prefix_hash(const struct rsw_prefix *p)
{
	uint32_t h = 2166136261u;
	size_t i, n = p->ip.family == RSW_AF_INET ? 4 : 16;

	for (i = 0; i < n; i++)
		h = (h ^ p->ip.addr[i]) * 16777619u;
	return (h ^ p->len ^ (uint32_t)p->ip.family << 8) * 16777619u;
}

static void
route_set_free(struct route_set *rs)
{
	free(rs->routes);
	free(rs->src);
	free(rs->own);
	free(rs->installed);
}

static int
route_set_make(struct route_set *rs, const struct rsw_config *cfg)
{
	uint32_t n_src = route_source != NULL ? route_source->count() : 0;
	struct rsw_prefix conn[4 * RSW_MAX_PORTS];
	uint32_t size = 1, i, j, k, h, *slot, n_conn = 0;
	uint8_t *dist;
	uint16_t q;

	memset(rs, 0, sizeof(*rs));
	rs->n_src = n_src;
	while (size < 2 * (cfg->n_routes + n_src + 4 * RSW_MAX_PORTS))
		size <<= 1;
	rs->routes = calloc(cfg->n_routes + n_src + 1, sizeof(*rs->routes));
	rs->src = calloc(cfg->n_routes + n_src + 1, sizeof(*rs->src));
	rs->own = calloc(n_src + 1, sizeof(*rs->own));
	rs->installed = calloc(cfg->n_routes + n_src + 1, sizeof(*rs->installed));
	slot = calloc(size, sizeof(*slot)); /* candidate + 1; 0 = empty */
	dist = calloc(cfg->n_routes + n_src + 1, sizeof(*dist));
	if (rs->routes == NULL || rs->src == NULL || rs->own == NULL || rs->installed == NULL ||
	    slot == NULL || dist == NULL) {
		free(slot);
		free(dist);
		route_set_free(rs);
		return -ENOMEM;
	}
	/* Candidates: configuration routes (unique prefixes, the loader checked), then the source's. */
	for (i = 0; i < cfg->n_routes; i++) {
		rs->routes[rs->n] = &cfg->routes[i];
		dist[rs->n++] = rsw_ctl_cfg_route_distance(&cfg->routes[i]);
	}
	for (k = 0; k < n_src; k++) {
		struct rsw_ctl_route *sr = route_source->get(k);
		struct rsw_cfg_route *c = &rs->own[k];

		sr->n_resolved = 0;
		*c = sr->r;
		c->n_nexthops = 0;
		c->lb = RSW_LB_UNSET;
		c->has_port = false;
		c->nh_port_mask = 0;
		for (j = 0; j < sr->r.n_nexthops && j < RSW_MAX_NEXTHOPS; j++) {
			struct rsw_ip ip;
			int port = source_nexthop(cfg, &sr->r, (uint16_t)j, &ip);

			if (port < 0)
				continue;
			c->nh_port[c->n_nexthops] = (uint8_t)port;
			c->nh_port_mask |= (uint16_t)(1u << c->n_nexthops);
			c->nexthops[c->n_nexthops] = ip;
			c->weights[c->n_nexthops++] = sr->r.weights[j] ? sr->r.weights[j] : 1;
		}
		sr->n_resolved = c->n_nexthops;
		if (c->n_nexthops == 0)
			continue;
		rs->routes[rs->n] = c;
		rs->src[rs->n] = sr;
		dist[rs->n++] = sr->distance;
	}
	/* Connected and local prefixes first: they win over any route. */
	for (q = 0; q < cfg->n_ports; q++) {
		const struct rsw_cfg_port *cp = &cfg->ports[q];
		const struct rsw_prefix *a[2] = {cp->has_ipv4 ? &cp->ipv4 : NULL,
						 cp->has_ipv6 ? &cp->ipv6 : NULL};

		for (k = 0; k < 4; k++) {
			if (a[k / 2] == NULL)
				continue;
			conn[n_conn++] = prefix_net(a[k / 2], k % 2 == 1);
		}
	}
	for (k = 0; k < n_conn; k++) {
		h = prefix_hash(&conn[k]) & (size - 1);
		while (slot[h] != 0)
			h = (h + 1) & (size - 1);
		slot[h] = SLOT_CONNECTED - k;
	}
	/* One winner per prefix: the lowest distance, the earlier candidate on a tie. */
	for (i = 0; i < rs->n; i++) {
		const struct rsw_prefix *p = &rs->routes[i]->prefix;

		h = prefix_hash(p) & (size - 1);
		while (slot[h] != 0 && !prefix_eq(slot[h] > SLOT_CONNECTED - n_conn
							  ? &conn[SLOT_CONNECTED - slot[h]]
							  : &rs->routes[slot[h] - 1]->prefix,
						  p))
			h = (h + 1) & (size - 1);
		if (slot[h] > SLOT_CONNECTED - n_conn) {
			rs->routes[i] = NULL; /* a port's own prefix */
		} else if (slot[h] == 0) {
			slot[h] = i + 1;
		} else if (dist[i] < dist[slot[h] - 1]) {
			rs->routes[slot[h] - 1] = NULL;
			slot[h] = i + 1;
		} else {
			rs->routes[i] = NULL;
		}
	}
	/* Compact, keeping the order. */
	for (i = 0, j = 0; i < rs->n; i++) {
		if (rs->routes[i] == NULL)
			continue;
		rs->routes[j] = rs->routes[i];
		rs->src[j] = rs->src[i];
		rs->n_cfg += rs->src[j] == NULL;
		j++;
	}
	rs->n = j;
	free(slot);
	free(dist);
	return 0;
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
group_find(const struct group_set *gs, const struct route_set *rs, const struct rsw_tables *t,
	   uint32_t i, uint32_t *slot)
{
	const struct rsw_cfg_route *cr = rs->routes[i];
	uint32_t h = rsw_cfg_route_group_hash(cr) & (GSET_SIZE - 1);

	while (gs->group[h] != 0) {
		const struct rsw_group *g = &t->groups[gs->group[h] - 1];

		if (rsw_cfg_route_same_group(rs->routes[g->route], cr))
			break;
		h = (h + 1) & (GSET_SIZE - 1);
	}
	*slot = h;
	return gs->group[h] != 0 ? (int64_t)gs->group[h] - 1 : -1;
}

/*
 * The build, on the retired generation (recycle) or on new FIBs. *retry: it failed because a
 * recycled generation's FIBs could not take the routes (their stale ones in the way).
 */
static struct rsw_tables *
tables_build(const struct rsw_config *cfg, uint64_t generation, bool recycle, bool *retry,
	     char *err, size_t errlen)
{
	char buf[64], buf2[64];
	uint32_t n_nh = 0, n_groups, i, j, slot, n4 = 0, n6;
	struct route_set rs;
	struct group_set *gs;
	struct rsw_tables *t;
	int64_t shared;
	uint16_t p;
	int ret;

	if (route_set_make(&rs, cfg) != 0) {
		snprintf(err, errlen, "cannot allocate forwarding tables: %s", strerror(ENOMEM));
		return NULL;
	}
	/* At most RSW_MAX_GROUPS distinct groups (the loader refused more). */
	for (i = 0; i < rs.n && n_nh < RSW_MAX_GROUPS * RSW_MAX_NEXTHOPS; i++)
		n_nh += rs.routes[i]->n_nexthops;
	n_groups = RTE_MIN(rs.n, (uint32_t)RSW_MAX_GROUPS);
	n_nh = RTE_MIN(n_nh, (uint32_t)(RSW_MAX_GROUPS * RSW_MAX_NEXTHOPS));
	for (i = 0; i < rs.n; i++)
		n4 += rs.routes[i]->prefix.ip.family == RSW_AF_INET;
	n6 = rs.n - n4;
	gs = calloc(1, sizeof(*gs));
	/* Room for the routes and each port's connected and local routes. */
	t = (recycle ? rsw_tables_recycle : rsw_tables_alloc_routes)(
		generation, 2 + 2 * 2 * cfg->n_ports + n_groups, n_nh, n_groups,
		n4 + 2 * cfg->n_ports, n6 + 2 * cfg->n_ports + 1);
	if (gs == NULL || t == NULL) {
		snprintf(err, errlen, "cannot allocate forwarding tables: %s",
			 rte_strerror(t == NULL ? rte_errno : ENOMEM));
		free(gs);
		rsw_tables_free(t);
		route_set_free(&rs);
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
	rsw_qos_params_from_cfg(&t->qos, cfg, rsw_ctl.n_workers);

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
	/*
	 * With kernel interfaces, unicast to a link-local address is the switch's (its kernel
	 * interfaces hold the link-local addresses): local, whatever the port.
	 */
	if (cfg->control.has_kif && cfg->n_ports > 0) {
		struct rsw_result lr = {.type = RSW_RES_LOCAL, .port = 0};
		struct rsw_prefix ll = {.ip = {.family = RSW_AF_INET6, .addr = {0xfe, 0x80}},
					.len = 10};
		int nh = rsw_tables_add_result(t, &lr);

		ret = nh < 0 ? nh : rsw_tables_add_route(t, &ll, (uint32_t)nh);
		if (ret != 0) {
			snprintf(err, errlen, "cannot add the link-local route: %s",
				 strerror(-ret));
			goto fail;
		}
	}

	for (i = 0; i < rs.n; i++) {
		const struct rsw_cfg_route *cr = rs.routes[i];
		struct rsw_group *g = &t->groups[t->n_groups];
		struct rsw_result r = {.type = RSW_RES_GROUP, .id = t->n_groups};
		bool soft = rs.src[i] != NULL; /* a source route left out is no error */
		int nh;

		shared = group_find(gs, &rs, t, i, &slot);
		if (shared >= 0) {
			ret = rsw_tables_add_route(t, &cr->prefix, gs->nh[slot]);
			if (ret != 0)
				goto route_fail;
			t->groups[shared].n_routes++;
			rs.installed[i] = true;
			continue;
		}
		if (soft && (t->n_groups == RSW_MAX_GROUPS || t->n_results == t->max_results))
			continue;
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
			int port = cr->has_port ? cr->port
				   : cr->nh_port_mask & (1u << j)
					   ? cr->nh_port[j]
					   : nexthop_port(cfg, &cr->nexthops[j]);
			int neigh;

			if (port < 0 && soft)
				break;
			if (port < 0) {
				snprintf(err, errlen, "route %s: next hop %s is not reachable",
					 rsw_prefix_str(&cr->prefix, buf, sizeof(buf)),
					 rsw_ip_str(&cr->nexthops[j], buf2, sizeof(buf2)));
				goto fail;
			}
			neigh = rsw_ctl_neigh_want(&cr->nexthops[j], (uint16_t)port);
			if (neigh < 0 && soft)
				break;
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
		if (j < cr->n_nexthops) {
			/* A source route whose next hop went away: its members are given back. */
			t->n_nh -= j;
			continue;
		}
		rsw_group_fill_buckets(g, cr->weights);
		if (g->n_members == 1) {
			r.single = 1;
			r.port = g->ports[0];
			r.neigh = t->nh[g->members[0]].neigh;
		}
		nh = rsw_tables_add_result(t, &r);
		ret = nh < 0 ? nh : rsw_tables_add_route(t, &cr->prefix, (uint32_t)nh);
		if (ret != 0)
			goto route_fail;
		t->n_groups++;
		rs.installed[i] = true;
		gs->group[slot] = t->n_groups;
		gs->nh[slot] = (uint32_t)nh;
		continue;
	route_fail:
		if (soft)
			continue; /* its group slot is made again by the next route */
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
	/* Per group, the TCs that hash through it with the burst's hashes (rsw_resolve_member). */
	for (i = 0; i < t->n_groups && t->lb_hash_batch; i++)
		for (j = 0; j < RSW_N_TC; j++)
			if (rsw_lb_mode_for_tc(t, t->groups[i].lb_mode, (uint8_t)j) == RSW_LB_HASH)
				t->groups[i].hash_tcs |= (uint8_t)(1u << j);
	/* A recycled generation's stale routes go; a build on it that missed a route is redone. */
	if (rsw_tables_commit(t) != 0) {
		snprintf(err, errlen, "cannot update the forwarding tables");
		goto fail;
	}
	/* The build stands: the source routes learn which of them are installed. */
	for (i = 0; i < rs.n_src; i++)
		route_source->get(i)->active = false;
	for (i = 0; i < rs.n; i++)
		if (rs.src[i] != NULL)
			rs.src[i]->active = rs.installed[i];
	free(gs);
	route_set_free(&rs);
	return t;
fail:
	*retry = t->failed;
	free(gs);
	route_set_free(&rs);
	rsw_tables_free(t);
	return NULL;
}

struct rsw_tables *
rsw_ctl_tables_build(const struct rsw_config *cfg, uint64_t generation, char *err, size_t errlen)
{
	bool retry = false;
	struct rsw_tables *t = tables_build(cfg, generation, true, &retry, err, errlen);

	if (t == NULL && retry)
		t = tables_build(cfg, generation, false, &retry, err, errlen);
	return t;
}
