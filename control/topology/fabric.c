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

/* Append one error to errs (those past RSW_TOPO_MAX_ERRS are counted, not kept). */
static int __attribute__((format(printf, 3, 4)))
add_err(struct rsw_topo_errors *errs, int line, const char *fmt, ...)
{
	va_list ap;

	if (errs->n < RSW_TOPO_MAX_ERRS) {
		errs->e[errs->n].line = line;
		va_start(ap, fmt);
		vsnprintf(errs->e[errs->n].msg, sizeof(errs->e[errs->n].msg), fmt, ap);
		va_end(ap);
	}
	errs->n++;
	return -EINVAL;
}

static int
check_count(const struct rsw_cfg_topology *t, struct rsw_topo_errors *errs, enum rsw_topo_key k,
	    const char *name, uint32_t v, uint32_t max)
{
	if (v < 1 || v > max)
		return add_err(errs, topo_kline(t, k), "'%s' must be between 1 and %u (got %u)",
			       name, max, v);
	return 0;
}

/* The spine tier within the radix. */
static void
check_spine_radix(const struct rsw_cfg_topology *t, struct rsw_topo_errors *errs)
{
	if (rsw_topology_spine_ports(t) <= t->radix)
		return;
	if (t->design == RSW_TOPO_RAIL_ONLY)
		add_err(errs, topo_kline(t, RSW_TK_RADIX),
			"spine 0 needs %u ports: radix is %u (one downlink per leaf of "
			"its rail: %u SUs)",
			rsw_topology_spine_ports(t), t->radix, t->sus);
	else
		add_err(errs, topo_kline(t, RSW_TK_RADIX),
			"spine 0 needs %u ports: radix is %u (one downlink per leaf: %u SUs x %u "
			"rails)",
			rsw_topology_spine_ports(t), t->radix, t->sus, t->rails);
}

/* this: inside the fabric (the counts are valid). */
static void
check_this(const struct rsw_cfg_topology *t, struct rsw_topo_errors *errs)
{
	if (!t->this_spine && t->this_su >= t->sus)
		add_err(errs, topo_kline(t, RSW_TK_THIS),
			"'this' is outside the fabric: su %u, but there are %u SUs (0..%u)",
			t->this_su, t->sus, t->sus - 1);
	if ((!t->this_spine || t->design == RSW_TOPO_RAIL_ONLY) && t->this_rail >= t->rails)
		add_err(errs, topo_kline(t, RSW_TK_THIS),
			"'this' is outside the fabric: rail %u, but there are %u rails (0..%u)",
			t->this_rail, t->rails, t->rails - 1);
	if (t->this_spine && t->this_spine_idx >= t->spines)
		add_err(errs, topo_kline(t, RSW_TK_THIS),
			"'this' is outside the fabric: spine %u, but there are %u spines%s (0..%u)",
			t->this_spine_idx, t->spines,
			t->design == RSW_TOPO_RAIL_ONLY ? " per rail" : "", t->spines - 1);
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
	bool counts_ok, gpu_ok = false, fabric_ok = false, leaves_ok = false;
	uint32_t first, len;
	int n;

	errs->n = 0;
	if (!t->present)
		return add_err(errs, 0, "no topology in the configuration");
	n = errs->n;
	check_count(t, errs, RSW_TK_SUS, "sus", t->sus, RSW_TOPO_MAX_SUS);
	check_count(t, errs, RSW_TK_SERVERS, "servers_per_su", t->servers_per_su,
		    RSW_TOPO_MAX_SERVERS);
	check_count(t, errs, RSW_TK_RAILS, "rails", t->rails, RSW_TOPO_MAX_RAILS);
	check_count(t, errs, RSW_TK_SPINES, "spines", t->spines, RSW_TOPO_MAX_SPINES);
	check_count(t, errs, RSW_TK_RADIX, "radix", t->radix, RSW_TOPO_MAX_RADIX);
	counts_ok = errs->n == n;
	if (counts_ok && t->design == RSW_TOPO_RAIL_OPTIMIZED && leaves > RSW_TOPO_LEAF_SLOTS)
		add_err(errs, topo_kline(t, RSW_TK_RAILS),
			"%u SUs x %u rails = %llu leaves: the link plan has room for at most %d "
			"leaves per spine",
			t->sus, t->rails, (unsigned long long)leaves, RSW_TOPO_LEAF_SLOTS);
	else
		leaves_ok = counts_ok;

	/* gpu_prefix: hosts are <a>.<su>.<rail>.<server+1>. */
	first = t->gpu_prefix.ip.addr[0];
	if (t->gpu_prefix.ip.family != RSW_AF_INET || t->gpu_prefix.len != 8)
		add_err(errs, topo_kline(t, RSW_TK_GPU_PREFIX),
			"'gpu_prefix' must be a /8 (got %s): hosts are <a>.<su>.<rail>.<server+1>",
			rsw_prefix_str(&t->gpu_prefix, a, sizeof(a)));
	else if (first == 0 || first == 127 || first >= 224)
		add_err(errs, topo_kline(t, RSW_TK_GPU_PREFIX),
			"'gpu_prefix' must be a unicast /8 (got %s)",
			rsw_prefix_str(&t->gpu_prefix, a, sizeof(a)));
	else
		gpu_ok = true;

	/* fabric_prefix: one /31 per leaf-spine link, at the offsets of link_offset. */
	if (t->fabric_prefix.ip.family != RSW_AF_INET || t->fabric_prefix.len > 31)
		add_err(errs, topo_kline(t, RSW_TK_FABRIC_PREFIX),
			"'fabric_prefix' must be an IPv4 prefix of /31 or shorter (got %s)",
			rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)));
	else
		fabric_ok = true;
	if (fabric_ok && leaves_ok) {
		if (t->design == RSW_TOPO_RAIL_ONLY)
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
			add_err(errs, topo_kline(t, RSW_TK_FABRIC_PREFIX),
				"'fabric_prefix' %s is too small: the leaf-spine links need %llu "
				"addresses (a /%u or larger)",
				rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)),
				(unsigned long long)need, len);
		}
	}
	if (gpu_ok && fabric_ok && topo_overlap4(&t->gpu_prefix, &t->fabric_prefix))
		add_err(errs, topo_kline(t, RSW_TK_FABRIC_PREFIX),
			"'fabric_prefix' %s overlaps 'gpu_prefix' %s",
			rsw_prefix_str(&t->fabric_prefix, a, sizeof(a)),
			rsw_prefix_str(&t->gpu_prefix, b, sizeof(b)));

	/* Every tier within the radix. */
	if (counts_ok && rsw_topology_leaf_ports(t) > t->radix)
		add_err(errs, topo_kline(t, RSW_TK_RADIX),
			"leaf 0 needs %u ports: radix is %u (%u server downlinks + %u spine "
			"uplinks)",
			rsw_topology_leaf_ports(t), t->radix, t->servers_per_su, t->spines);
	else if (counts_ok)
		check_spine_radix(t, errs);

	if (!t->has_this) {
		if (need_this)
			add_err(errs, t->line, "missing required key 'this' in 'topology'");
	} else if (counts_ok) {
		check_this(t, errs);
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
