/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The geometry of a fabric (docs/topology.md): counts of
 * leaves, spines and ports, the addresses of links, hosts and gateways, switch names, and the
 * check of a topology: section. Pure computation on a parsed section: no DPDK, no I/O.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "topology_priv.h"

int
topo_terr(struct rsw_topo_error *e, int line, const char *fmt, ...)
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
int
topo_kline(const struct rsw_cfg_topology *t, enum rsw_topo_key k)
{
	return t->lines[k] > 0 ? t->lines[k] : t->line;
}

uint32_t
topo_ip4_get(const struct rsw_ip *ip)
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
bool
topo_overlap4(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	uint32_t m = mask4(a->len < b->len ? a->len : b->len);

	return a->ip.family == b->ip.family && a->ip.family == RSW_AF_INET &&
	       (topo_ip4_get(&a->ip) & m) == (topo_ip4_get(&b->ip) & m);
}

bool
topo_prefix_equal(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	return a->len == b->len && a->ip.family == b->ip.family &&
	       memcmp(a->ip.addr, b->ip.addr, sizeof(a->ip.addr)) == 0;
}

const char *
rsw_topology_design_name(enum rsw_topo_design d)
{
	return d == RSW_TOPO_RAIL_ONLY ? "rail-only" : "rail-optimized";
}

bool
rsw_topology_rail_switch(const struct rsw_cfg_topology *t)
{
	return t->design == RSW_TOPO_RAIL_ONLY && t->spines == 0;
}

uint32_t
rsw_topology_n_leaves(const struct rsw_cfg_topology *t)
{
	return rsw_topology_rail_switch(t) ? t->rails : t->sus * t->rails;
}

uint32_t
rsw_topology_spines_per_rail(const struct rsw_cfg_topology *t)
{
	uint64_t up = (uint64_t)t->sus * t->spines;

	if (t->design != RSW_TOPO_RAIL_ONLY)
		return t->spines;
	return t->radix == 0 ? 0 : (uint32_t)((up + t->radix - 1) / t->radix);
}

uint32_t
rsw_topology_n_spines(const struct rsw_cfg_topology *t)
{
	return t->design == RSW_TOPO_RAIL_ONLY ? t->rails * rsw_topology_spines_per_rail(t)
					       : t->spines;
}

uint32_t
rsw_topology_leaf_ports(const struct rsw_cfg_topology *t)
{
	if (rsw_topology_rail_switch(t))
		return t->sus * t->servers_per_su;
	return t->servers_per_su + t->spines;
}

uint32_t
rsw_topology_spine_ports(const struct rsw_cfg_topology *t)
{
	return rsw_topology_spine_ports_of(t, 0);
}

/*
 * Rail-only: a rail's leaf uplinks, numbered k = su x spines + p, go round-robin over the
 * rail's S spines: uplink k to spine k mod S, at its port k div S. Every leaf's run of
 * `spines` >= S consecutive k reaches every spine of its rail (parallel links where it has
 * more uplinks than S), and the spines differ by at most one port.
 */
uint32_t
rsw_topology_spine_ports_of(const struct rsw_cfg_topology *t, uint32_t p)
{
	uint64_t up = (uint64_t)t->sus * t->spines;
	uint32_t n = rsw_topology_spines_per_rail(t);

	if (t->design != RSW_TOPO_RAIL_ONLY)
		return t->sus * t->rails;
	if (p >= n || p >= up)
		return 0;
	return (uint32_t)((up - p + n - 1) / n);
}

void
rsw_topology_uplink_peer(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, uint32_t p,
			 uint32_t *spine, uint32_t *port)
{
	uint64_t k = (uint64_t)su * t->spines + p;
	uint32_t n = rsw_topology_spines_per_rail(t);

	if (t->design == RSW_TOPO_RAIL_ONLY) {
		*spine = n == 0 ? 0 : (uint32_t)(k % n);
		*port = n == 0 ? 0 : (uint32_t)(k / n);
	} else {
		*spine = p;
		*port = rsw_topology_leaf_index(t, su, rail);
	}
}

void
rsw_topology_spine_peer(const struct rsw_cfg_topology *t, uint32_t spine, uint32_t port,
			uint32_t rail, uint32_t *su, uint32_t *leaf_rail, uint32_t *p)
{
	uint64_t k = (uint64_t)port * rsw_topology_spines_per_rail(t) + spine;

	if (t->design == RSW_TOPO_RAIL_ONLY) {
		*su = t->spines == 0 ? 0 : (uint32_t)(k / t->spines);
		*leaf_rail = rail;
		*p = t->spines == 0 ? 0 : (uint32_t)(k % t->spines);
	} else {
		*su = port / t->rails;
		*leaf_rail = port % t->rails;
		*p = spine;
	}
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
	uint32_t a = topo_ip4_get(&t->fabric_prefix.ip) + (uint32_t)link_offset(t, su, rail, p);

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

void
topo_leaf_subnet(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, struct rsw_prefix *p)
{
	rsw_topology_host(t, su, rail, 0, p);
	p->ip.addr[3] = 0;
}

const char *
rsw_topology_leaf_name(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, char *buf,
		       size_t len)
{
	if (rsw_topology_rail_switch(t))
		snprintf(buf, len, "leaf-r%u", rail);
	else
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
	uint32_t min = k == RSW_TK_SPINES && t->design == RSW_TOPO_RAIL_ONLY ? 0 : 1;

	if (v < min || v > max)
		return topo_terr(e, topo_kline(t, k), "'%s' must be between %u and %u (got %u)",
				 name, min, max, v);
	return 0;
}

/* Every tier within the radix. */
static int
check_radix(const struct rsw_cfg_topology *t, struct rsw_topo_error *e)
{
	if (rsw_topology_rail_switch(t)) {
		if (rsw_topology_leaf_ports(t) > t->radix)
			return topo_terr(
				e, topo_kline(t, RSW_TK_RADIX),
				"rail 0 needs %u ports: radix is %u (spines: 0 puts a rail's %u "
				"SUs x %u servers on one switch)",
				rsw_topology_leaf_ports(t), t->radix, t->sus, t->servers_per_su);
		return 0;
	}
	if (rsw_topology_leaf_ports(t) > t->radix)
		return topo_terr(
			e, topo_kline(t, RSW_TK_RADIX),
			"leaf 0 needs %u ports: radix is %u (%u server downlinks + %u spine "
			"uplinks)",
			rsw_topology_leaf_ports(t), t->radix, t->servers_per_su, t->spines);
	/*
	 * Rail-only: every leaf has a link to every spine of its rail (round-robin, above), so a
	 * spine has a port for each of the rail's leaves: at most radix SUs. Up to that, the
	 * rail's uplinks take ceil(sus x spines / radix) <= spines spines.
	 */
	if (t->design == RSW_TOPO_RAIL_ONLY && t->sus > t->radix)
		return topo_terr(e, topo_kline(t, RSW_TK_RADIX),
				 "rail-only: every spine of a rail has a link to each of its %u "
				 "leaves, more than radix %u: at most %u SUs at this radix",
				 t->sus, t->radix, t->radix);
	/* A rail-optimized spine has a port per leaf. */
	if (t->design == RSW_TOPO_RAIL_OPTIMIZED && rsw_topology_spine_ports(t) > t->radix)
		return topo_terr(
			e, topo_kline(t, RSW_TK_RADIX),
			"spine 0 needs %u ports: radix is %u (one downlink per leaf: %u SUs x %u "
			"rails)",
			rsw_topology_spine_ports(t), t->radix, t->sus, t->rails);
	return 0;
}

/* this: inside the fabric. */
static int
check_this(const struct rsw_cfg_topology *t, struct rsw_topo_error *e)
{
	uint32_t n = rsw_topology_spines_per_rail(t);

	if (!t->this_spine && t->this_su >= t->sus)
		return topo_terr(
			e, topo_kline(t, RSW_TK_THIS),
			"'this' is outside the fabric: su %u, but there are %u SUs (0..%u)",
			t->this_su, t->sus, t->sus - 1);
	if (!t->this_spine && t->this_su > 0 && rsw_topology_rail_switch(t))
		return topo_terr(e, topo_kline(t, RSW_TK_THIS),
				 "'this' is outside the fabric: su %u, but with spines: 0 a rail "
				 "is one switch; give { rail }",
				 t->this_su);
	if ((!t->this_spine || t->design == RSW_TOPO_RAIL_ONLY) && t->this_rail >= t->rails)
		return topo_terr(
			e, topo_kline(t, RSW_TK_THIS),
			"'this' is outside the fabric: rail %u, but there are %u rails (0..%u)",
			t->this_rail, t->rails, t->rails - 1);
	if (t->this_spine && n == 0)
		return topo_terr(e, topo_kline(t, RSW_TK_THIS),
				 "'this' places a spine, but with spines: 0 the fabric has none");
	if (t->this_spine && t->this_spine_idx >= n)
		return topo_terr(
			e, topo_kline(t, RSW_TK_THIS),
			"'this' is outside the fabric: spine %u, but there are %u spines%s (0..%u)",
			t->this_spine_idx, n, t->design == RSW_TOPO_RAIL_ONLY ? " per rail" : "",
			n - 1);
	return 0;
}

/* Append e to errs (those past RSW_TOPO_MAX_ERRS are counted, not kept). */
static void
add_err(struct rsw_topo_errors *errs, const struct rsw_topo_error *e)
{
	if (errs->n < RSW_TOPO_MAX_ERRS)
		errs->e[errs->n] = *e;
	errs->n++;
}

/*
 * Every independent error of t, in the order the checks run; a check whose input had an
 * error is left out (the counts feed the sizes, the radix and this), so that one mistake
 * gives one message.
 */
int
rsw_topology_check_all(const struct rsw_cfg_topology *t, bool need_this,
		       struct rsw_topo_errors *errs)
{
	char a[PREFIX_STR_LEN], b[PREFIX_STR_LEN];
	uint64_t need, room, leaves = (uint64_t)t->sus * t->rails;
	bool counts_ok, leaves_ok = false, gpu_ok = false, fabric_ok = false;
	struct rsw_topo_error e;
	uint32_t first, len;
	int n;

	errs->n = 0;
	if (!t->present) {
		topo_terr(&e, 0, "no topology in the configuration");
		add_err(errs, &e);
		return -EINVAL;
	}
	n = errs->n;
	if (check_count(t, &e, RSW_TK_SUS, "sus", t->sus, RSW_TOPO_MAX_SUS) < 0)
		add_err(errs, &e);
	if (check_count(t, &e, RSW_TK_SERVERS, "servers_per_su", t->servers_per_su,
			RSW_TOPO_MAX_SERVERS) < 0)
		add_err(errs, &e);
	if (check_count(t, &e, RSW_TK_RAILS, "rails", t->rails, RSW_TOPO_MAX_RAILS) < 0)
		add_err(errs, &e);
	if (check_count(t, &e, RSW_TK_SPINES, "spines", t->spines, RSW_TOPO_MAX_SPINES) < 0)
		add_err(errs, &e);
	if (check_count(t, &e, RSW_TK_RADIX, "radix", t->radix, RSW_TOPO_MAX_RADIX) < 0)
		add_err(errs, &e);
	counts_ok = errs->n == n;
	if (counts_ok && t->design == RSW_TOPO_RAIL_OPTIMIZED && leaves > RSW_TOPO_LEAF_SLOTS) {
		topo_terr(&e, topo_kline(t, RSW_TK_RAILS),
			  "%u SUs x %u rails = %llu leaves: the link plan has room for at most %d "
			  "leaves per spine",
			  t->sus, t->rails, (unsigned long long)leaves, RSW_TOPO_LEAF_SLOTS);
		add_err(errs, &e);
	} else {
		leaves_ok = counts_ok;
	}

	/* gpu_prefix: hosts are <a>.<su>.<rail>.<server+1>. */
	first = t->gpu_prefix.ip.addr[0];
	if (t->gpu_prefix.ip.family != RSW_AF_INET || t->gpu_prefix.len != 8) {
		topo_terr(
			&e, topo_kline(t, RSW_TK_GPU_PREFIX),
			"'gpu_prefix' must be a /8 (got %s): hosts are <a>.<su>.<rail>.<server+1>",
			rsw_prefix_str(&t->gpu_prefix, a, sizeof(a)));
		add_err(errs, &e);
	} else if (first == 0 || first == 127 || first >= 224) {
		topo_terr(&e, topo_kline(t, RSW_TK_GPU_PREFIX),
			  "'gpu_prefix' must be a unicast /8 (got %s)",
			  rsw_prefix_str(&t->gpu_prefix, a, sizeof(a)));
		add_err(errs, &e);
	} else {
		gpu_ok = true;
	}

	/* fabric_prefix: one /31 per leaf-spine link, at the offsets of link_offset. */
	if (t->fabric_prefix.ip.family != RSW_AF_INET || t->fabric_prefix.len > 31) {
		topo_terr(&e, topo_kline(t, RSW_TK_FABRIC_PREFIX),
			  "'fabric_prefix' must be an IPv4 prefix of /31 or shorter (got %s)",
			  rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)));
		add_err(errs, &e);
	} else {
		fabric_ok = true;
	}
	if (fabric_ok && leaves_ok) {
		if (rsw_topology_rail_switch(t))
			need = 0;
		else if (t->design == RSW_TOPO_RAIL_ONLY)
			need = 2 * (((uint64_t)t->rails * t->spines - 1) * RSW_TOPO_LEAF_SLOTS +
				    t->sus - 1) +
			       2;
		else
			need = 2 * (((uint64_t)t->spines - 1) * RSW_TOPO_LEAF_SLOTS + leaves - 1) +
			       2;
		room = 1ull << (32 - t->fabric_prefix.len);
		if (need > room) {
			for (len = 31; len > 0 && (1ull << (32 - len)) < need; len--)
				;
			topo_terr(&e, topo_kline(t, RSW_TK_FABRIC_PREFIX),
				  "'fabric_prefix' %s is too small: the leaf-spine links need %llu "
				  "addresses (a /%u or larger)",
				  rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)),
				  (unsigned long long)need, len);
			add_err(errs, &e);
		}
	}
	if (gpu_ok && fabric_ok && topo_overlap4(&t->gpu_prefix, &t->fabric_prefix)) {
		topo_terr(&e, topo_kline(t, RSW_TK_FABRIC_PREFIX),
			  "'fabric_prefix' %s overlaps 'gpu_prefix' %s",
			  rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)),
			  rsw_prefix_str(&t->gpu_prefix, b, sizeof(b)));
		add_err(errs, &e);
	}

	if (counts_ok && check_radix(t, &e) < 0)
		add_err(errs, &e);
	if (!t->has_this) {
		if (need_this) {
			topo_terr(&e, t->line, "missing required key 'this' in 'topology'");
			add_err(errs, &e);
		}
	} else if (counts_ok && check_this(t, &e) < 0) {
		add_err(errs, &e);
	}
	return errs->n > 0 ? -EINVAL : 0;
}

int
rsw_topology_check(const struct rsw_cfg_topology *t, bool need_this, struct rsw_topo_error *e)
{
	struct rsw_topo_errors errs;

	if (rsw_topology_check_all(t, need_this, &errs) == 0)
		return 0;
	if (e != NULL)
		*e = errs.e[0];
	return -EINVAL;
}
