/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Fabric topology: the addressing plan of CONFIG.md "Topology derivation" (docs/topology.md)
 * turned into this switch's port addresses and routes, and the plan of a whole fabric for
 * `railctl plan`. The loader (config.c) calls rsw_topology_check and the two apply steps
 * while it loads a file, so tables.c, neigh.c and the dataplane see ordinary port
 * addresses and static routes; `show topology` and `railctl plan` format the same
 * derivation as JSON. Pure computation on a configuration: no DPDK, no I/O, no worker.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_topology.h"

#define PREFIX_STR_LEN 48 /* "255.255.255.255/32" and IPv6 */

static int terr(struct rsw_topo_error *e, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
terr(struct rsw_topo_error *e, int line, const char *fmt, ...)
{
	va_list ap;

	if (e != NULL) {
		e->line = line;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The line of key k, else of 'topology:'. */
static int
kline(const struct rsw_cfg_topology *t, enum rsw_topo_key k)
{
	return t->lines[k] > 0 ? t->lines[k] : t->line;
}

static uint32_t
ip4_get(const struct rsw_ip *ip)
{
	return (uint32_t)ip->addr[0] << 24 | (uint32_t)ip->addr[1] << 16 |
	       (uint32_t)ip->addr[2] << 8 | ip->addr[3];
}

static void
prefix4_set(struct rsw_prefix *p, uint32_t a, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->ip.family = RSW_AF_INET;
	p->ip.addr[0] = (uint8_t)(a >> 24);
	p->ip.addr[1] = (uint8_t)(a >> 16);
	p->ip.addr[2] = (uint8_t)(a >> 8);
	p->ip.addr[3] = (uint8_t)a;
	p->len = len;
}

static uint32_t
mask4(uint8_t len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

/* Whether two IPv4 prefixes (host bits ignored) share an address. */
static bool
overlap4(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	uint32_t m = mask4(a->len < b->len ? a->len : b->len);

	return a->ip.family == b->ip.family && a->ip.family == RSW_AF_INET &&
	       (ip4_get(&a->ip) & m) == (ip4_get(&b->ip) & m);
}

static bool
prefix_equal(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	return a->len == b->len && a->ip.family == b->ip.family &&
	       memcmp(a->ip.addr, b->ip.addr, sizeof(a->ip.addr)) == 0;
}

const char *
rsw_topology_design_name(enum rsw_topo_design d)
{
	return d == RSW_TOPO_RAIL_ONLY ? "rail-only" : "rail-optimized";
}

uint32_t
rsw_topology_n_leaves(const struct rsw_cfg_topology *t)
{
	return t->sus * t->rails;
}

uint32_t
rsw_topology_n_spines(const struct rsw_cfg_topology *t)
{
	return t->design == RSW_TOPO_RAIL_ONLY ? t->rails * t->spines : t->spines;
}

uint32_t
rsw_topology_leaf_ports(const struct rsw_cfg_topology *t)
{
	return t->servers_per_su + t->spines;
}

uint32_t
rsw_topology_spine_ports(const struct rsw_cfg_topology *t)
{
	return t->design == RSW_TOPO_RAIL_ONLY ? t->sus : t->sus * t->rails;
}

uint32_t
rsw_topology_leaf_index(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail)
{
	return t->design == RSW_TOPO_RAIL_ONLY ? su : su * t->rails + rail;
}

/* Offset of the link's /31 in fabric_prefix (64-bit: the check bounds it by the prefix). */
static uint64_t
link_offset(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, uint32_t p)
{
	uint64_t l = rsw_topology_leaf_index(t, su, rail);
	uint64_t plane = t->design == RSW_TOPO_RAIL_ONLY ? (uint64_t)rail * t->spines + p : p;

	return 2 * (plane * RSW_TOPO_LEAF_SLOTS + l);
}

void
rsw_topology_link(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, uint32_t p,
		  struct rsw_prefix *spine_addr, struct rsw_prefix *leaf_addr)
{
	uint32_t a = ip4_get(&t->fabric_prefix.ip) + (uint32_t)link_offset(t, su, rail, p);

	if (spine_addr != NULL)
		prefix4_set(spine_addr, a, 31);
	if (leaf_addr != NULL)
		prefix4_set(leaf_addr, a + 1, 31);
}

void
rsw_topology_host(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, uint32_t server,
		  struct rsw_prefix *addr)
{
	prefix4_set(addr,
		    (uint32_t)t->gpu_prefix.ip.addr[0] << 24 | (su & 0xff) << 16 |
			    (rail & 0xff) << 8 | ((server + 1) & 0xff),
		    24);
}

void
rsw_topology_gateway(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail,
		     struct rsw_prefix *addr)
{
	rsw_topology_host(t, su, rail, RSW_TOPO_GATEWAY - 1, addr);
}

static void
leaf_subnet(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, struct rsw_prefix *p)
{
	rsw_topology_host(t, su, rail, 0, p);
	p->ip.addr[3] = 0;
}

const char *
rsw_topology_leaf_name(uint32_t su, uint32_t rail, char *buf, size_t len)
{
	snprintf(buf, len, "leaf-su%u-r%u", su, rail);
	return buf;
}

const char *
rsw_topology_spine_name(const struct rsw_cfg_topology *t, uint32_t rail, uint32_t p, char *buf,
			size_t len)
{
	if (t->design == RSW_TOPO_RAIL_ONLY)
		snprintf(buf, len, "spine-r%u-%u", rail, p);
	else
		snprintf(buf, len, "spine-%u", p);
	return buf;
}

const char *
rsw_topology_server_name(uint32_t su, uint32_t server, char *buf, size_t len)
{
	snprintf(buf, len, "server-su%u-%u", su, server);
	return buf;
}

static int
check_count(const struct rsw_cfg_topology *t, struct rsw_topo_error *e, enum rsw_topo_key k,
	    const char *name, uint32_t v, uint32_t max)
{
	if (v < 1 || v > max)
		return terr(e, kline(t, k), "'%s' must be between 1 and %u (got %u)", name, max, v);
	return 0;
}

int
rsw_topology_check(const struct rsw_cfg_topology *t, bool need_this, struct rsw_topo_error *e)
{
	char a[PREFIX_STR_LEN], b[PREFIX_STR_LEN];
	uint64_t need, room, leaves = (uint64_t)t->sus * t->rails;
	uint32_t first, len;

	if (!t->present)
		return terr(e, 0, "no topology in the configuration");
	if (check_count(t, e, RSW_TK_SUS, "sus", t->sus, RSW_TOPO_MAX_SUS) < 0 ||
	    check_count(t, e, RSW_TK_SERVERS, "servers_per_su", t->servers_per_su,
			RSW_TOPO_MAX_SERVERS) < 0 ||
	    check_count(t, e, RSW_TK_RAILS, "rails", t->rails, RSW_TOPO_MAX_RAILS) < 0 ||
	    check_count(t, e, RSW_TK_SPINES, "spines", t->spines, RSW_TOPO_MAX_SPINES) < 0 ||
	    check_count(t, e, RSW_TK_RADIX, "radix", t->radix, RSW_TOPO_MAX_RADIX) < 0)
		return -EINVAL;
	if (t->design == RSW_TOPO_RAIL_OPTIMIZED && leaves > RSW_TOPO_LEAF_SLOTS)
		return terr(
			e, kline(t, RSW_TK_RAILS),
			"%u SUs x %u rails = %llu leaves: the link plan has room for at most %d "
			"leaves per spine",
			t->sus, t->rails, (unsigned long long)leaves, RSW_TOPO_LEAF_SLOTS);

	/* gpu_prefix: hosts are <a>.<su>.<rail>.<server+1>. */
	first = t->gpu_prefix.ip.addr[0];
	if (t->gpu_prefix.ip.family != RSW_AF_INET || t->gpu_prefix.len != 8)
		return terr(
			e, kline(t, RSW_TK_GPU_PREFIX),
			"'gpu_prefix' must be a /8 (got %s): hosts are <a>.<su>.<rail>.<server+1>",
			rsw_prefix_str(&t->gpu_prefix, a, sizeof(a)));
	if (first == 0 || first == 127 || first >= 224)
		return terr(e, kline(t, RSW_TK_GPU_PREFIX),
			    "'gpu_prefix' must be a unicast /8 (got %s)",
			    rsw_prefix_str(&t->gpu_prefix, a, sizeof(a)));

	/* fabric_prefix: one /31 per leaf-spine link, at the offsets of link_offset. */
	if (t->fabric_prefix.ip.family != RSW_AF_INET || t->fabric_prefix.len > 31)
		return terr(e, kline(t, RSW_TK_FABRIC_PREFIX),
			    "'fabric_prefix' must be an IPv4 prefix of /31 or shorter (got %s)",
			    rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)));
	if (t->design == RSW_TOPO_RAIL_ONLY)
		need = 2 * (((uint64_t)t->rails * t->spines - 1) * RSW_TOPO_LEAF_SLOTS + t->sus -
			    1) +
		       2;
	else
		need = 2 * (((uint64_t)t->spines - 1) * RSW_TOPO_LEAF_SLOTS + leaves - 1) + 2;
	room = 1ull << (32 - t->fabric_prefix.len);
	if (need > room) {
		for (len = 31; len > 0 && (1ull << (32 - len)) < need; len--)
			;
		return terr(e, kline(t, RSW_TK_FABRIC_PREFIX),
			    "'fabric_prefix' %s is too small: the leaf-spine links need %llu "
			    "addresses (a /%u or larger)",
			    rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)),
			    (unsigned long long)need, len);
	}
	if (overlap4(&t->gpu_prefix, &t->fabric_prefix))
		return terr(e, kline(t, RSW_TK_FABRIC_PREFIX),
			    "'fabric_prefix' %s overlaps 'gpu_prefix' %s",
			    rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)),
			    rsw_prefix_str(&t->gpu_prefix, b, sizeof(b)));

	/* Every tier within the radix. */
	if (rsw_topology_leaf_ports(t) > t->radix)
		return terr(e, kline(t, RSW_TK_RADIX),
			    "leaf 0 needs %u ports: radix is %u (%u server downlinks + %u spine "
			    "uplinks)",
			    rsw_topology_leaf_ports(t), t->radix, t->servers_per_su, t->spines);
	if (rsw_topology_spine_ports(t) > t->radix) {
		if (t->design == RSW_TOPO_RAIL_ONLY)
			return terr(e, kline(t, RSW_TK_RADIX),
				    "spine 0 needs %u ports: radix is %u (one downlink per leaf of "
				    "its rail: %u SUs)",
				    rsw_topology_spine_ports(t), t->radix, t->sus);
		return terr(
			e, kline(t, RSW_TK_RADIX),
			"spine 0 needs %u ports: radix is %u (one downlink per leaf: %u SUs x %u "
			"rails)",
			rsw_topology_spine_ports(t), t->radix, t->sus, t->rails);
	}

	/* this: inside the fabric. */
	if (!t->has_this) {
		if (need_this)
			return terr(e, t->line, "missing required key 'this' in 'topology'");
		return 0;
	}
	if (!t->this_spine && t->this_su >= t->sus)
		return terr(e, kline(t, RSW_TK_THIS),
			    "'this' is outside the fabric: su %u, but there are %u SUs (0..%u)",
			    t->this_su, t->sus, t->sus - 1);
	if ((!t->this_spine || t->design == RSW_TOPO_RAIL_ONLY) && t->this_rail >= t->rails)
		return terr(e, kline(t, RSW_TK_THIS),
			    "'this' is outside the fabric: rail %u, but there are %u rails (0..%u)",
			    t->this_rail, t->rails, t->rails - 1);
	if (t->this_spine && t->this_spine_idx >= t->spines)
		return terr(
			e, kline(t, RSW_TK_THIS),
			"'this' is outside the fabric: spine %u, but there are %u spines%s (0..%u)",
			t->this_spine_idx, t->spines,
			t->design == RSW_TOPO_RAIL_ONLY ? " per rail" : "", t->spines - 1);
	return 0;
}

/* A leaf's port. */
static int
derive_leaf_port(const struct rsw_cfg_topology *t, const struct rsw_cfg_port *cp,
		 struct rsw_topo_switch *sw, struct rsw_topo_port *tp, uint32_t *n_down,
		 uint32_t *n_up, struct rsw_topo_error *e)
{
	struct rsw_prefix spine, leaf;
	uint32_t l = rsw_topology_leaf_index(t, sw->su, sw->rail);

	if (cp->role == RSW_PORT_ROLE_DOWNLINK) {
		uint32_t s = (*n_down)++;

		if (s >= t->servers_per_su)
			return terr(e, cp->line,
				    "port '%s' is downlink %u, but an SU has %u servers (one "
				    "downlink each)",
				    cp->name, s + 1, t->servers_per_su);
		tp->index = (int32_t)s;
		rsw_topology_gateway(t, sw->su, sw->rail, &tp->ipv4);
		rsw_topology_host(t, sw->su, sw->rail, s, &leaf);
		tp->peer_ip = leaf.ip;
		rsw_topology_server_name(sw->su, s, tp->peer, sizeof(tp->peer));
		snprintf(tp->peer_port, sizeof(tp->peer_port), "nic%u", sw->rail);
	} else {
		uint32_t p = (*n_up)++;

		if (p >= t->spines)
			return terr(e, cp->line, "port '%s' is uplink %u, but %s has %u spines",
				    cp->name, p + 1,
				    t->design == RSW_TOPO_RAIL_ONLY ? "each rail" : "the fabric",
				    t->spines);
		if (p >= RSW_MAX_NEXTHOPS)
			return terr(
				e, cp->line,
				"port '%s' is uplink %u: an ECMP group has at most %d next hops",
				cp->name, p + 1, RSW_MAX_NEXTHOPS);
		tp->index = (int32_t)p;
		rsw_topology_link(t, sw->su, sw->rail, p, &spine, &leaf);
		tp->ipv4 = leaf;
		tp->peer_ip = spine.ip;
		rsw_topology_spine_name(t, sw->rail, p, tp->peer, sizeof(tp->peer));
		snprintf(tp->peer_port, sizeof(tp->peer_port), "down%u", l);
	}
	return 0;
}

/* A spine's port. */
static int
derive_spine_port(const struct rsw_cfg_topology *t, const struct rsw_cfg_port *cp,
		  struct rsw_topo_switch *sw, struct rsw_topo_port *tp, uint32_t *n_down,
		  struct rsw_topo_error *e)
{
	struct rsw_prefix spine, leaf;
	uint32_t l, su, rail;

	if (cp->role == RSW_PORT_ROLE_UPLINK)
		return terr(
			e, cp->line,
			"port '%s' has role uplink: a spine has no uplinks in a two-tier fabric",
			cp->name);
	l = (*n_down)++;
	if (l >= rsw_topology_spine_ports(t))
		return terr(e, cp->line, "port '%s' is downlink %u, but a spine has %u leaves",
			    cp->name, l + 1, rsw_topology_spine_ports(t));
	if (t->design == RSW_TOPO_RAIL_ONLY) {
		su = l;
		rail = sw->rail;
	} else {
		su = l / t->rails;
		rail = l % t->rails;
	}
	tp->index = (int32_t)l;
	rsw_topology_link(t, su, rail, sw->spine_idx, &spine, &leaf);
	tp->ipv4 = spine;
	tp->peer_ip = leaf.ip;
	rsw_topology_leaf_name(su, rail, tp->peer, sizeof(tp->peer));
	snprintf(tp->peer_port, sizeof(tp->peer_port), "up%u", sw->spine_idx);
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
		other = ip4_get(&cp->ipv4.ip) ^ 1;
		tp->peer_ip.addr[3] = (uint8_t)other;
		tp->peer_ip.addr[2] = (uint8_t)(other >> 8);
		tp->peer_ip.addr[1] = (uint8_t)(other >> 16);
		tp->peer_ip.addr[0] = (uint8_t)(other >> 24);
		return 0;
	}
	return terr(e, cp->line,
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
				      prefix_equal(&x->ipv4, &y->ipv4);

			if (i == j || !x->has_ipv4 || !y->has_ipv4 || x->explicit_ipv4 ||
			    x->role == RSW_PORT_ROLE_NONE || shared)
				continue;
			if (!overlap4(&x->ipv4, &y->ipv4))
				continue;
			return terr(e, cfg->ports[i].line,
				    "port '%s': derived ipv4 %s overlaps port '%s' (%s)",
				    cfg->ports[i].name, rsw_prefix_str(&x->ipv4, a, sizeof(a)),
				    cfg->ports[j].name, rsw_prefix_str(&y->ipv4, b, sizeof(b)));
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
	/* A spine: each leaf's /24 to that leaf. */
	for (i = 0; i < sw->n_ports && sw->spine; i++) {
		const struct rsw_topo_port *tp = &sw->ports[i];
		struct rsw_topo_route *r = &sw->routes[sw->n_routes];
		uint32_t su, rail;

		if (tp->role != RSW_PORT_ROLE_DOWNLINK)
			continue;
		if (t->design == RSW_TOPO_RAIL_ONLY) {
			su = (uint32_t)tp->index;
			rail = sw->rail;
		} else {
			su = (uint32_t)tp->index / t->rails;
			rail = (uint32_t)tp->index % t->rails;
		}
		leaf_subnet(t, su, rail, &r->prefix);
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
		return terr(e, 0, "no topology in the configuration");
	if (!t->has_this)
		return terr(e, t->line, "missing required key 'this' in 'topology'");
	sw->spine = t->this_spine;
	sw->su = t->this_spine ? 0 : t->this_su;
	sw->rail = t->this_spine && t->design != RSW_TOPO_RAIL_ONLY ? 0 : t->this_rail;
	sw->spine_idx = t->this_spine ? t->this_spine_idx : 0;
	if (sw->spine) {
		rsw_topology_spine_name(t, sw->rail, sw->spine_idx, sw->name, sizeof(sw->name));
	} else {
		rsw_topology_leaf_name(sw->su, sw->rail, sw->name, sizeof(sw->name));
		leaf_subnet(t, sw->su, sw->rail, &sw->subnet);
	}

	if (sw->spine && cfg->sw.role != RSW_ROLE_SPINE)
		return terr(e, kline(t, RSW_TK_THIS),
			    "'this' places a spine (%s) but switch.role is leaf; set role: spine",
			    sw->name);
	if (!sw->spine && cfg->sw.role != RSW_ROLE_LEAF)
		return terr(e, kline(t, RSW_TK_THIS),
			    "'this' places a leaf (%s, su %u, rail %u) but switch.role is spine",
			    sw->name, sw->su, sw->rail);
	if (cfg->n_ports > t->radix)
		return terr(e, cfg->ports[t->radix].line,
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

int
rsw_topology_apply_ports(struct rsw_config *cfg, struct rsw_topo_error *e)
{
	struct rsw_topo_switch *sw;
	uint16_t i;

	if (!cfg->topology.present)
		return 0;
	sw = malloc(sizeof(*sw));
	if (sw == NULL)
		return terr(e, 0, "out of memory");
	if (rsw_topology_derive(cfg, sw, e) < 0) {
		free(sw);
		return -EINVAL;
	}
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
		if (!cfg->routes[i].derived && prefix_equal(&cfg->routes[i].prefix, p))
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

	if (!cfg->topology.present)
		return 0;
	sw = malloc(sizeof(*sw));
	if (sw == NULL)
		return terr(e, 0, "out of memory");
	if (rsw_topology_derive(cfg, sw, e) < 0) {
		free(sw);
		return -EINVAL;
	}
	routes = realloc(cfg->routes, (cfg->n_routes + sw->n_routes + 1u) * sizeof(*routes));
	if (routes == NULL) {
		free(sw);
		return terr(e, 0, "out of memory");
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
			return terr(e, cfg->topology.line,
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

/* JSON. A failed allocation anywhere sets *bad; the caller drops the whole document. */

static void
jset(json_t *o, const char *k, json_t *v, bool *bad)
{
	if (o == NULL || v == NULL || json_object_set_new(o, k, v) < 0)
		*bad = true;
}

static void
jappend(json_t *a, json_t *v, bool *bad)
{
	if (a == NULL || v == NULL || json_array_append_new(a, v) < 0)
		*bad = true;
}

static json_t *
jip(const struct rsw_ip *ip)
{
	char buf[PREFIX_STR_LEN];

	return json_string(rsw_ip_str(ip, buf, sizeof(buf)));
}

static json_t *
jprefix(const struct rsw_prefix *p)
{
	char buf[PREFIX_STR_LEN];

	return json_string(rsw_prefix_str(p, buf, sizeof(buf)));
}

static json_t *
json_this(const struct rsw_cfg_topology *t, bool *bad)
{
	json_t *o;

	if (!t->has_this)
		return json_null();
	o = json_object();
	if (!t->this_spine) {
		jset(o, "su", json_integer(t->this_su), bad);
		jset(o, "rail", json_integer(t->this_rail), bad);
		return o;
	}
	if (t->design == RSW_TOPO_RAIL_ONLY)
		jset(o, "rail", json_integer(t->this_rail), bad);
	jset(o, "spine", json_integer(t->this_spine_idx), bad);
	return o;
}

json_t *
rsw_topology_to_json(const struct rsw_cfg_topology *t)
{
	json_t *o = json_object();
	bool bad = false;

	jset(o, "design", json_string(rsw_topology_design_name(t->design)), &bad);
	jset(o, "sus", json_integer(t->sus), &bad);
	jset(o, "servers_per_su", json_integer(t->servers_per_su), &bad);
	jset(o, "rails", json_integer(t->rails), &bad);
	jset(o, "spines", json_integer(t->spines), &bad);
	jset(o, "radix", json_integer(t->radix), &bad);
	jset(o, "this", json_this(t, &bad), &bad);
	jset(o, "gpu_prefix", jprefix(&t->gpu_prefix), &bad);
	jset(o, "fabric_prefix", jprefix(&t->fabric_prefix), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *
port_role_name(enum rsw_port_role r)
{
	return r == RSW_PORT_ROLE_DOWNLINK ? "downlink"
	       : r == RSW_PORT_ROLE_UPLINK ? "uplink"
					   : NULL;
}

json_t *
rsw_topology_show_json(const struct rsw_config *cfg)
{
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch *sw;
	json_t *o, *ports, *routes;
	bool bad = false;
	uint32_t i, j;

	if (!cfg->topology.present)
		return json_pack("{s:s}", "error", "no topology in the configuration");
	sw = malloc(sizeof(*sw));
	if (sw == NULL)
		return NULL;
	if (rsw_topology_derive(cfg, sw, &e) < 0) {
		free(sw);
		return json_pack("{s:s}", "error", e.msg);
	}
	o = json_object();
	ports = json_array();
	routes = json_array();
	jset(o, "design", json_string(rsw_topology_design_name(cfg->topology.design)), &bad);
	jset(o, "role", json_string(sw->spine ? "spine" : "leaf"), &bad);
	jset(o, "name", json_string(sw->name), &bad);
	jset(o, "this", json_this(&cfg->topology, &bad), &bad);
	jset(o, "subnet", sw->spine ? json_null() : jprefix(&sw->subnet), &bad);
	for (i = 0; i < sw->n_ports; i++) {
		const struct rsw_topo_port *tp = &sw->ports[i];
		const char *role = port_role_name(tp->role);
		json_t *p = json_object(), *peer = json_null();

		if (tp->has_peer) {
			peer = json_object();
			jset(peer, "name", json_string(tp->peer), &bad);
			jset(peer, "port", json_string(tp->peer_port), &bad);
			jset(peer, "ip", jip(&tp->peer_ip), &bad);
		}
		jset(p, "name", json_string(cfg->ports[i].name), &bad);
		jset(p, "role", role != NULL ? json_string(role) : json_null(), &bad);
		jset(p, "ipv4", tp->has_ipv4 ? jprefix(&tp->ipv4) : json_null(), &bad);
		jset(p, "derived", json_boolean(tp->has_ipv4 && !tp->explicit_ipv4), &bad);
		jset(p, "peer", peer, &bad);
		jappend(ports, p, &bad);
	}
	/* The routes in effect: derived ones a static route did not replace. */
	for (i = 0; i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];
		json_t *rt, *nh;

		if (!r->derived)
			continue;
		rt = json_object();
		nh = json_array();
		for (j = 0; j < r->n_nexthops; j++)
			jappend(nh, jip(&r->nexthops[j]), &bad);
		jset(rt, "prefix", jprefix(&r->prefix), &bad);
		jset(rt, "nexthops", nh, &bad);
		jset(rt, "port",
		     r->has_port && r->port < cfg->n_ports ? json_string(cfg->ports[r->port].name)
							   : json_null(),
		     &bad);
		jappend(routes, rt, &bad);
	}
	jset(o, "ports", ports, &bad);
	jset(o, "routes", routes, &bad);
	free(sw);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *
rsw_topology_cmd_show(int argc, char **argv, void *ctx)
{
	const struct rsw_config *const *cfg = ctx;
	json_t *o;

	(void)argc;
	(void)argv;
	if (cfg == NULL || *cfg == NULL)
		return json_pack("{s:s}", "error", "no configuration loaded");
	o = rsw_topology_show_json(*cfg);
	return o != NULL ? o : json_pack("{s:s}", "error", "out of memory");
}

/* The plan. */

/* Port speeds of the file's own switch: leaf downlinks (server side) and leaf-spine links. */
static void
plan_speeds(const struct rsw_config *cfg, uint64_t *down, uint64_t *up)
{
	const struct rsw_cfg_topology *t = &cfg->topology;
	uint16_t i;

	*down = 0;
	*up = 0;
	if (!t->has_this)
		return;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *cp = &cfg->ports[i];

		if (cp->speed_bps == 0)
			continue;
		if (t->this_spine) {
			if (cp->role == RSW_PORT_ROLE_DOWNLINK && *up == 0)
				*up = cp->speed_bps;
		} else if (cp->role == RSW_PORT_ROLE_DOWNLINK && *down == 0) {
			*down = cp->speed_bps;
		} else if (cp->role == RSW_PORT_ROLE_UPLINK && *up == 0) {
			*up = cp->speed_bps;
		}
	}
}

static json_t *
plan_tier(const char *tier, uint32_t count, uint32_t used, uint32_t radix, uint32_t down,
	  uint32_t up, double over, bool *bad)
{
	json_t *o = json_object();
	char ratio[48];

	jset(o, "tier", json_string(tier), bad);
	jset(o, "count", json_integer(count), bad);
	jset(o, "ports_used", json_integer(used), bad);
	jset(o, "radix", json_integer(radix), bad);
	jset(o, "downlinks", json_integer(down), bad);
	jset(o, "uplinks", json_integer(up), bad);
	if (up == 0) {
		jset(o, "oversubscription", json_null(), bad);
		jset(o, "ratio", json_string("top tier"), bad);
	} else {
		snprintf(ratio, sizeof(ratio), "%.3g:1", over);
		jset(o, "oversubscription", json_real(over), bad);
		jset(o, "ratio", json_string(ratio), bad);
	}
	return o;
}

static json_t *
plan_link(const char *a, const char *a_port, const struct rsw_prefix *a_ip, const char *b,
	  const char *b_port, const struct rsw_prefix *b_ip, const char *kind, bool *bad)
{
	json_t *o = json_object();

	jset(o, "a", json_string(a), bad);
	jset(o, "a_port", json_string(a_port), bad);
	jset(o, "a_ip", jprefix(a_ip), bad);
	jset(o, "b", json_string(b), bad);
	jset(o, "b_port", json_string(b_port), bad);
	jset(o, "b_ip", jprefix(b_ip), bad);
	jset(o, "kind", json_string(kind), bad);
	return o;
}

/* One leaf: its switch entry and its cables (servers first, then spines). */
static void
plan_leaf(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, json_t *switches,
	  json_t *links, bool *bad)
{
	char name[RSW_NAME_LEN], peer[RSW_NAME_LEN], port[RSW_NAME_LEN], pport[RSW_NAME_LEN];
	struct rsw_prefix gw, host, spine, leaf, net;
	uint32_t l = rsw_topology_leaf_index(t, su, rail), s, p;
	json_t *o = json_object();

	rsw_topology_leaf_name(su, rail, name, sizeof(name));
	rsw_topology_gateway(t, su, rail, &gw);
	leaf_subnet(t, su, rail, &net);
	jset(o, "name", json_string(name), bad);
	jset(o, "tier", json_string("leaf"), bad);
	jset(o, "su", json_integer(su), bad);
	jset(o, "rail", json_integer(rail), bad);
	jset(o, "subnet", jprefix(&net), bad);
	jset(o, "gateway", jip(&gw.ip), bad);
	jset(o, "ports_used", json_integer(rsw_topology_leaf_ports(t)), bad);
	jappend(switches, o, bad);

	for (s = 0; s < t->servers_per_su; s++) {
		rsw_topology_host(t, su, rail, s, &host);
		snprintf(port, sizeof(port), "down%u", s);
		snprintf(pport, sizeof(pport), "nic%u", rail);
		jappend(links,
			plan_link(name, port, &gw,
				  rsw_topology_server_name(su, s, peer, sizeof(peer)), pport, &host,
				  "server", bad),
			bad);
	}
	for (p = 0; p < t->spines; p++) {
		rsw_topology_link(t, su, rail, p, &spine, &leaf);
		snprintf(port, sizeof(port), "up%u", p);
		snprintf(pport, sizeof(pport), "down%u", l);
		jappend(links,
			plan_link(name, port, &leaf,
				  rsw_topology_spine_name(t, rail, p, peer, sizeof(peer)), pport,
				  &spine, "fabric", bad),
			bad);
	}
}

static void
plan_spine(const struct rsw_cfg_topology *t, uint32_t rail, uint32_t p, json_t *switches, bool *bad)
{
	char name[RSW_NAME_LEN];
	json_t *o = json_object();

	jset(o, "name", json_string(rsw_topology_spine_name(t, rail, p, name, sizeof(name))), bad);
	jset(o, "tier", json_string("spine"), bad);
	if (t->design == RSW_TOPO_RAIL_ONLY)
		jset(o, "rail", json_integer(rail), bad);
	jset(o, "spine", json_integer(p), bad);
	jset(o, "ports_used", json_integer(rsw_topology_spine_ports(t)), bad);
	jappend(switches, o, bad);
}

static json_t *
plan_this(const struct rsw_cfg_topology *t)
{
	char name[RSW_NAME_LEN];

	if (!t->has_this)
		return json_null();
	if (t->this_spine)
		return json_string(rsw_topology_spine_name(t, t->this_rail, t->this_spine_idx, name,
							   sizeof(name)));
	return json_string(rsw_topology_leaf_name(t->this_su, t->this_rail, name, sizeof(name)));
}

json_t *
rsw_topology_plan_json(const struct rsw_config *cfg, struct rsw_topo_error *e)
{
	const struct rsw_cfg_topology *t = &cfg->topology;
	json_t *o, *tiers, *switches, *links, *speeds;
	uint64_t down_bps, up_bps, d, u;
	uint32_t su, rail, p;
	bool bad = false;
	double over;

	if (rsw_topology_check(t, false, e) < 0)
		return NULL;
	plan_speeds(cfg, &down_bps, &up_bps);
	/* A side without a speed is taken as fast as the other; neither: equal speeds. */
	d = down_bps != 0 ? down_bps : up_bps != 0 ? up_bps : 1;
	u = up_bps != 0 ? up_bps : d;
	over = ((double)t->servers_per_su * (double)d) / ((double)t->spines * (double)u);

	o = json_object();
	tiers = json_array();
	switches = json_array();
	links = json_array();
	speeds = json_object();
	jset(o, "design", json_string(rsw_topology_design_name(t->design)), &bad);
	jset(o, "sus", json_integer(t->sus), &bad);
	jset(o, "servers_per_su", json_integer(t->servers_per_su), &bad);
	jset(o, "rails", json_integer(t->rails), &bad);
	jset(o, "spines", json_integer(t->spines), &bad);
	jset(o, "radix", json_integer(t->radix), &bad);
	jset(o, "gpu_prefix", jprefix(&t->gpu_prefix), &bad);
	jset(o, "fabric_prefix", jprefix(&t->fabric_prefix), &bad);
	jset(o, "this", plan_this(t), &bad);
	jset(o, "servers", json_integer((json_int_t)t->sus * t->servers_per_su), &bad);
	jset(o, "server_nics", json_integer((json_int_t)t->sus * t->servers_per_su * t->rails),
	     &bad);
	jset(speeds, "downlink_bps", down_bps ? json_integer((json_int_t)down_bps) : json_null(),
	     &bad);
	jset(speeds, "uplink_bps", up_bps ? json_integer((json_int_t)up_bps) : json_null(), &bad);
	jset(speeds, "note",
	     json_string(down_bps == 0 && up_bps == 0 ? "equal port speeds assumed (no speed given)"
			 : down_bps == 0 || up_bps == 0 ? "one side's speed given; the other "
							  "assumed equal"
							: "from the file's port speeds"),
	     &bad);
	jset(o, "speeds", speeds, &bad);

	jappend(tiers,
		plan_tier("leaf", rsw_topology_n_leaves(t), rsw_topology_leaf_ports(t), t->radix,
			  t->servers_per_su, t->spines, over, &bad),
		&bad);
	jappend(tiers,
		plan_tier("spine", rsw_topology_n_spines(t), rsw_topology_spine_ports(t), t->radix,
			  rsw_topology_spine_ports(t), 0, 0, &bad),
		&bad);
	jset(o, "tiers", tiers, &bad);

	for (su = 0; su < t->sus; su++)
		for (rail = 0; rail < t->rails; rail++)
			plan_leaf(t, su, rail, switches, links, &bad);
	if (t->design == RSW_TOPO_RAIL_ONLY) {
		for (rail = 0; rail < t->rails; rail++)
			for (p = 0; p < t->spines; p++)
				plan_spine(t, rail, p, switches, &bad);
	} else {
		for (p = 0; p < t->spines; p++)
			plan_spine(t, 0, p, switches, &bad);
	}
	jset(o, "switches", switches, &bad);
	jset(o, "links", links, &bad);
	if (bad) {
		json_decref(o);
		terr(e, 0, "out of memory");
		return NULL;
	}
	return o;
}
