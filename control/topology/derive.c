/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * This switch's place in its fabric: the addresses and peers of its ports and its routes,
 * derived from topology: and the ports' roles. The loader (config/) calls the two apply steps
 * while it loads a file, so tables/, neigh/ and the dataplane see ordinary port addresses and
 * static routes. Also the leaf's local proxy ARP, which asks the same derivation.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology_priv.h"

/* A leaf's downlink s: server s of its SU; a rail switch's: server s mod servers_per_su of
 * SU s / servers_per_su. */
static void
derive_leaf_down(const struct rsw_cfg_topology *t, struct rsw_topo_switch *sw,
		 struct rsw_topo_port *tp, uint32_t s)
{
	struct rsw_prefix host;
	uint32_t su = sw->su;

	if (rsw_topology_rail_switch(t)) {
		su = s / t->servers_per_su;
		s %= t->servers_per_su;
	}
	rsw_topology_gateway(t, su, sw->rail, &tp->ipv4);
	rsw_topology_host(t, su, sw->rail, s, &host);
	tp->peer_ip = host.ip;
	rsw_topology_server_name(su, s, tp->peer, sizeof(tp->peer));
	snprintf(tp->peer_port, sizeof(tp->peer_port), "nic%u", sw->rail);
}

/* A leaf's port. */
static int
derive_leaf_port(const struct rsw_cfg_topology *t, const struct rsw_cfg_port *cp,
		 struct rsw_topo_switch *sw, struct rsw_topo_port *tp, uint32_t *n_down,
		 uint32_t *n_up, struct rsw_topo_error *e)
{
	struct rsw_prefix spine, leaf;
	uint32_t sp, port;

	if (cp->role == RSW_PORT_ROLE_DOWNLINK) {
		uint32_t s = (*n_down)++;

		if (s >= rsw_topology_leaf_ports(t) - (rsw_topology_rail_switch(t) ? 0 : t->spines))
			return topo_terr(e, cp->line,
					 "port '%s' is downlink %u, but %s has %u servers (one "
					 "downlink each)",
					 cp->name, s + 1,
					 rsw_topology_rail_switch(t) ? "a rail" : "an SU",
					 rsw_topology_leaf_ports(t) -
						 (rsw_topology_rail_switch(t) ? 0 : t->spines));
		tp->index = (int32_t)s;
		derive_leaf_down(t, sw, tp, s);
	} else {
		uint32_t p = (*n_up)++;

		if (p >= t->spines)
			return topo_terr(
				e, cp->line, "port '%s' is uplink %u, but %s %u%s", cp->name, p + 1,
				t->design == RSW_TOPO_RAIL_ONLY ? "a leaf has" : "the fabric has",
				t->spines,
				t->design == RSW_TOPO_RAIL_ONLY ? " uplinks (spines)" : " spines");
		if (p >= RSW_MAX_NEXTHOPS)
			return topo_terr(
				e, cp->line,
				"port '%s' is uplink %u: an ECMP group has at most %d next hops",
				cp->name, p + 1, RSW_MAX_NEXTHOPS);
		tp->index = (int32_t)p;
		rsw_topology_link(t, sw->su, sw->rail, p, &spine, &leaf);
		rsw_topology_uplink_peer(t, sw->su, sw->rail, p, &sp, &port);
		tp->ipv4 = leaf;
		tp->peer_ip = spine.ip;
		rsw_topology_spine_name(t, sw->rail, sp, tp->peer, sizeof(tp->peer));
		snprintf(tp->peer_port, sizeof(tp->peer_port), "down%u", port);
	}
	return 0;
}

/* A spine's port. */
static int
derive_spine_port(const struct rsw_cfg_topology *t, const struct rsw_cfg_port *cp,
		  struct rsw_topo_switch *sw, struct rsw_topo_port *tp, uint32_t *n_down,
		  struct rsw_topo_error *e)
{
	uint32_t n = rsw_topology_spine_ports_of(t, sw->spine_idx);
	struct rsw_prefix spine, leaf;
	uint32_t l, su, rail, p;

	if (cp->role == RSW_PORT_ROLE_UPLINK)
		return topo_terr(
			e, cp->line,
			"port '%s' has role uplink: a spine has no uplinks in a two-tier fabric",
			cp->name);
	l = (*n_down)++;
	if (l >= n && t->design == RSW_TOPO_RAIL_ONLY)
		return topo_terr(e, cp->line,
				 "port '%s' is downlink %u, but %s has %u leaf uplinks", cp->name,
				 l + 1, sw->name, n);
	if (l >= n)
		return topo_terr(e, cp->line, "port '%s' is downlink %u, but a spine has %u leaves",
				 cp->name, l + 1, n);
	rsw_topology_spine_peer(t, sw->spine_idx, l, sw->rail, &su, &rail, &p);
	tp->index = (int32_t)l;
	rsw_topology_link(t, su, rail, p, &spine, &leaf);
	tp->ipv4 = spine;
	tp->peer_ip = leaf.ip;
	rsw_topology_leaf_name(t, su, rail, tp->peer, sizeof(tp->peer));
	snprintf(tp->peer_port, sizeof(tp->peer_port), "up%u", p);
	return 0;
}

/* An ipv4 given in the file wins: keep it, and find the peer inside it. */
static int
keep_explicit(const struct rsw_cfg_port *cp, bool spine, struct rsw_topo_port *tp,
	      struct rsw_topo_error *e)
{
	char a[PREFIX_STR_LEN], b[PREFIX_STR_LEN];
	uint32_t other;

	tp->explicit_ipv4 = true;
	tp->ipv4 = cp->ipv4;
	if (cp->ipv4.ip.family != RSW_AF_INET || rsw_prefix_contains(&cp->ipv4, &tp->peer_ip))
		return 0;
	/* A server outside the port's own subnet: no host route, nothing else to check. */
	if (!spine && cp->role == RSW_PORT_ROLE_DOWNLINK)
		return 0;
	if (cp->ipv4.len == 31) {
		other = topo_ip4_get(&cp->ipv4.ip) ^ 1;
		tp->peer_ip.addr[3] = (uint8_t)other;
		tp->peer_ip.addr[2] = (uint8_t)(other >> 8);
		tp->peer_ip.addr[1] = (uint8_t)(other >> 16);
		tp->peer_ip.addr[0] = (uint8_t)(other >> 24);
		return 0;
	}
	return topo_terr(
		e, cp->line,
		"port '%s': ipv4 %s does not hold %s's address %s; give a /31 or leave ipv4 "
		"out to derive it",
		cp->name, rsw_prefix_str(&cp->ipv4, a, sizeof(a)), tp->peer,
		rsw_ip_str(&tp->peer_ip, b, sizeof(b)));
}

/* Derived addresses must not overlap another port's, except the leaf's shared downlink /24. */
static int
check_overlaps(const struct rsw_config *cfg, const struct rsw_topo_switch *sw,
	       struct rsw_topo_error *e)
{
	char a[PREFIX_STR_LEN], b[PREFIX_STR_LEN];
	uint16_t i, j;

	for (i = 0; i < sw->n_ports; i++) {
		const struct rsw_topo_port *x = &sw->ports[i];

		for (j = 0; j < sw->n_ports; j++) {
			const struct rsw_topo_port *y = &sw->ports[j];
			bool shared = !sw->spine && x->role == RSW_PORT_ROLE_DOWNLINK &&
				      y->role == RSW_PORT_ROLE_DOWNLINK &&
				      topo_prefix_equal(&x->ipv4, &y->ipv4);

			if (i == j || !x->has_ipv4 || !y->has_ipv4 || x->explicit_ipv4 ||
			    x->role == RSW_PORT_ROLE_NONE || shared)
				continue;
			if (!topo_overlap4(&x->ipv4, &y->ipv4))
				continue;
			return topo_terr(e, cfg->ports[i].line,
					 "port '%s': derived ipv4 %s overlaps port '%s' (%s)",
					 cfg->ports[i].name, rsw_prefix_str(&x->ipv4, a, sizeof(a)),
					 cfg->ports[j].name,
					 rsw_prefix_str(&y->ipv4, b, sizeof(b)));
		}
	}
	return 0;
}

static void
derive_routes(const struct rsw_config *cfg, struct rsw_topo_switch *sw)
{
	const struct rsw_cfg_topology *t = &cfg->topology;
	struct rsw_topo_route *ecmp = NULL;
	uint16_t i;

	/* A leaf: one /32 per cabled server, out of its own port (the downlinks share a /24). */
	for (i = 0; i < sw->n_ports && !sw->spine; i++) {
		const struct rsw_topo_port *tp = &sw->ports[i];
		struct rsw_topo_route *r = &sw->routes[sw->n_routes];

		if (tp->role != RSW_PORT_ROLE_DOWNLINK || !tp->has_peer ||
		    !rsw_prefix_contains(&tp->ipv4, &tp->peer_ip))
			continue;
		r->prefix.ip = tp->peer_ip;
		r->prefix.len = 32;
		r->n_nexthops = 1;
		r->nexthops[0] = tp->peer_ip;
		r->has_port = true;
		r->port = i;
		sw->n_routes++;
	}
	/* A leaf: the rest of gpu_prefix over ECMP on its uplinks, in file order. */
	for (i = 0; i < sw->n_ports && !sw->spine; i++) {
		const struct rsw_topo_port *tp = &sw->ports[i];

		if (tp->role != RSW_PORT_ROLE_UPLINK)
			continue;
		if (ecmp == NULL) {
			ecmp = &sw->routes[sw->n_routes++];
			ecmp->prefix = t->gpu_prefix;
		}
		ecmp->nexthops[ecmp->n_nexthops++] = tp->peer_ip;
	}
	/* A spine: each leaf's /24 to that leaf (ECMP over parallel links, rail-only). */
	for (i = 0; i < sw->n_ports && sw->spine; i++) {
		const struct rsw_topo_port *tp = &sw->ports[i];
		struct rsw_topo_route *r = &sw->routes[sw->n_routes];
		struct rsw_prefix net;
		uint32_t su, rail, p;
		uint16_t k;

		if (tp->role != RSW_PORT_ROLE_DOWNLINK)
			continue;
		rsw_topology_spine_peer(t, sw->spine_idx, (uint32_t)tp->index, sw->rail, &su, &rail,
					&p);
		topo_leaf_subnet(t, su, rail, &net);
		for (k = 0; k < sw->n_routes; k++)
			if (topo_prefix_equal(&sw->routes[k].prefix, &net))
				break;
		if (k < sw->n_routes) {
			r = &sw->routes[k];
			if (r->n_nexthops < RSW_MAX_NEXTHOPS)
				r->nexthops[r->n_nexthops++] = tp->peer_ip;
			continue;
		}
		r->prefix = net;
		r->n_nexthops = 1;
		r->nexthops[0] = tp->peer_ip;
		sw->n_routes++;
	}
}

int
rsw_topology_derive(const struct rsw_config *cfg, struct rsw_topo_switch *sw,
		    struct rsw_topo_error *e)
{
	const struct rsw_cfg_topology *t = &cfg->topology;
	uint32_t n_down = 0, n_up = 0;
	uint16_t i;
	int ret;

	memset(sw, 0, sizeof(*sw));
	if (!t->present)
		return topo_terr(e, 0, "no topology in the configuration");
	if (!t->has_this)
		return topo_terr(e, t->line, "missing required key 'this' in 'topology'");
	sw->spine = t->this_spine;
	sw->su = t->this_spine ? 0 : t->this_su;
	sw->rail = t->this_spine && t->design != RSW_TOPO_RAIL_ONLY ? 0 : t->this_rail;
	sw->spine_idx = t->this_spine ? t->this_spine_idx : 0;
	if (sw->spine) {
		rsw_topology_spine_name(t, sw->rail, sw->spine_idx, sw->name, sizeof(sw->name));
	} else {
		rsw_topology_leaf_name(t, sw->su, sw->rail, sw->name, sizeof(sw->name));
		topo_leaf_subnet(t, sw->su, sw->rail, &sw->subnet);
	}

	if (sw->spine && cfg->sw.role != RSW_ROLE_SPINE)
		return topo_terr(
			e, topo_kline(t, RSW_TK_THIS),
			"'this' places a spine (%s) but switch.role is leaf; set role: spine",
			sw->name);
	if (!sw->spine && cfg->sw.role != RSW_ROLE_LEAF)
		return topo_terr(
			e, topo_kline(t, RSW_TK_THIS),
			"'this' places a leaf (%s, su %u, rail %u) but switch.role is spine",
			sw->name, sw->su, sw->rail);
	if (cfg->n_ports > t->radix)
		return topo_terr(e, cfg->ports[t->radix].line,
				 "port '%s' is port %u of the switch: radix is %u",
				 cfg->ports[t->radix].name, t->radix + 1, t->radix);

	sw->n_ports = cfg->n_ports;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *cp = &cfg->ports[i];
		struct rsw_topo_port *tp = &sw->ports[i];
		bool given = cp->has_ipv4 && !cp->ipv4_derived;

		tp->role = cp->role;
		tp->index = -1;
		if (cp->role == RSW_PORT_ROLE_NONE) {
			tp->has_ipv4 = cp->has_ipv4;
			tp->explicit_ipv4 = cp->has_ipv4;
			tp->ipv4 = cp->ipv4;
			continue;
		}
		if (sw->spine)
			ret = derive_spine_port(t, cp, sw, tp, &n_down, e);
		else
			ret = derive_leaf_port(t, cp, sw, tp, &n_down, &n_up, e);
		if (ret < 0)
			return ret;
		tp->has_ipv4 = true;
		tp->has_peer = true;
		if (given && keep_explicit(cp, sw->spine, tp, e) < 0)
			return -EINVAL;
	}
	if (check_overlaps(cfg, sw, e) < 0)
		return -EINVAL;
	derive_routes(cfg, sw);
	return 0;
}

/* This switch's derivation in a new allocation; NULL with *ret = -errno (e says why). */
static struct rsw_topo_switch *
derive_new(const struct rsw_config *cfg, struct rsw_topo_error *e, int *ret)
{
	struct rsw_topo_switch *sw = malloc(sizeof(*sw));

	if (sw == NULL) {
		*ret = topo_terr(e, 0, "out of memory");
		return NULL;
	}
	if (rsw_topology_derive(cfg, sw, e) < 0) {
		free(sw);
		*ret = -EINVAL;
		return NULL;
	}
	return sw;
}

int
rsw_topology_apply_ports(struct rsw_config *cfg, struct rsw_topo_error *e)
{
	struct rsw_topo_switch *sw;
	uint16_t i;
	int ret;

	if (!cfg->topology.present)
		return 0;
	sw = derive_new(cfg, e, &ret);
	if (sw == NULL)
		return ret;
	for (i = 0; i < cfg->n_ports; i++) {
		struct rsw_cfg_port *cp = &cfg->ports[i];

		if (cp->role == RSW_PORT_ROLE_NONE || (cp->has_ipv4 && !cp->ipv4_derived))
			continue;
		cp->ipv4 = sw->ports[i].ipv4;
		cp->has_ipv4 = true;
		cp->ipv4_derived = true;
	}
	free(sw);
	return 0;
}

/* A route given in routes: for prefix p. */
static bool
static_route(const struct rsw_config *cfg, const struct rsw_prefix *p)
{
	uint32_t i;

	for (i = 0; i < cfg->n_routes; i++)
		if (!cfg->routes[i].derived && topo_prefix_equal(&cfg->routes[i].prefix, p))
			return true;
	return false;
}

int
rsw_topology_apply_routes(struct rsw_config *cfg, struct rsw_topo_error *e)
{
	struct rsw_cfg_route *routes;
	struct rsw_topo_switch *sw;
	uint32_t n4 = 0, i, j;
	uint16_t k;
	int ret;

	if (!cfg->topology.present)
		return 0;
	sw = derive_new(cfg, e, &ret);
	if (sw == NULL)
		return ret;
	routes = realloc(cfg->routes, (cfg->n_routes + sw->n_routes + 1u) * sizeof(*routes));
	if (routes == NULL) {
		free(sw);
		return topo_terr(e, 0, "out of memory");
	}
	cfg->routes = routes;
	for (i = 0; i < cfg->n_routes; i++)
		n4 += cfg->routes[i].prefix.ip.family == RSW_AF_INET;
	for (k = 0; k < sw->n_routes; k++) {
		const struct rsw_topo_route *tr = &sw->routes[k];
		struct rsw_cfg_route *r = &cfg->routes[cfg->n_routes];

		if (static_route(cfg, &tr->prefix))
			continue;
		if (++n4 > RSW_MAX_ROUTES) {
			free(sw);
			return topo_terr(e, cfg->topology.line,
					 "too many IPv4 routes with the derived ones (at most %d)",
					 RSW_MAX_ROUTES);
		}
		memset(r, 0, sizeof(*r));
		r->prefix = tr->prefix;
		r->n_nexthops = tr->n_nexthops;
		for (j = 0; j < tr->n_nexthops; j++) {
			r->nexthops[j] = tr->nexthops[j];
			r->weights[j] = 1;
		}
		r->lb = RSW_LB_UNSET;
		r->derived = true;
		r->has_port = tr->has_port;
		r->port = tr->port;
		r->line = cfg->topology.line;
		cfg->n_routes++;
	}
	free(sw);
	return 0;
}

bool
rsw_topology_proxy_arp(const struct rsw_config *cfg, uint16_t port, const struct rsw_ip *target)
{
	const struct rsw_cfg_port *cp;
	uint32_t i;

	if (cfg == NULL || target == NULL || !cfg->topology.present || cfg->topology.this_spine ||
	    port >= cfg->n_ports || target->family != RSW_AF_INET)
		return false;
	cp = &cfg->ports[port];
	if (cp->role != RSW_PORT_ROLE_DOWNLINK || !cp->has_ipv4 ||
	    !rsw_prefix_contains(&cp->ipv4, target) ||
	    memcmp(cp->ipv4.ip.addr, target->addr, 4) == 0)
		return false;
	for (i = 0; i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];

		if (r->derived && r->has_port && r->port != port && r->prefix.len == 32 &&
		    memcmp(r->prefix.ip.addr, target->addr, 4) == 0)
			return true;
	}
	return false;
}
