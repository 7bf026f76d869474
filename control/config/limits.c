/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the forwarding tables can hold, checked at load time: distinct next-hop groups (and
 * which routes share one), neighbour addresses per family, and the IPv4 FIB's tbl8 groups.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"

bool
rsw_cfg_route_same_group(const struct rsw_cfg_route *a, const struct rsw_cfg_route *b)
{
	uint16_t j;

	if (a->n_nexthops != b->n_nexthops || a->lb != b->lb || a->has_port != b->has_port ||
	    (a->has_port && a->port != b->port) || a->nh_port_mask != b->nh_port_mask ||
	    memcmp(a->nexthops, b->nexthops, a->n_nexthops * sizeof(a->nexthops[0])) != 0 ||
	    memcmp(a->weights, b->weights, a->n_nexthops * sizeof(a->weights[0])) != 0)
		return false;
	/* Link-local next hops (BGP unnumbered) are the same address on different links. */
	for (j = 0; j < a->n_nexthops; j++)
		if ((a->nh_port_mask & (1u << j)) && a->nh_port[j] != b->nh_port[j])
			return false;
	return true;
}

/* FNV-1a, 32 bits. */
static uint32_t
fnv1a(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

uint32_t
rsw_cfg_route_group_hash(const struct rsw_cfg_route *r)
{
	uint32_t h = 2166136261u;
	int32_t lb = r->lb;
	uint16_t port = r->has_port ? r->port : UINT16_MAX;

	h = fnv1a(h, &r->n_nexthops, sizeof(r->n_nexthops));
	h = fnv1a(h, &lb, sizeof(lb));
	h = fnv1a(h, &port, sizeof(port));
	h = fnv1a(h, r->nexthops, r->n_nexthops * sizeof(r->nexthops[0]));
	return fnv1a(h, r->weights, r->n_nexthops * sizeof(r->weights[0]));
}

/* The smallest power of two >= 2n (an open-addressing table at most half full). */
static uint32_t
set_size(uint32_t n)
{
	uint32_t sz = 64;

	while (sz < 2 * n)
		sz <<= 1;
	return sz;
}

/* Insert ip into the set of neighbour addresses; @return 1 if it was new, 0 if not. */
static int
ip_set_add(const struct rsw_ip **set, uint32_t mask, const struct rsw_ip *ip)
{
	uint32_t h = fnv1a(2166136261u, ip, sizeof(*ip)) & mask;

	while (set[h] != NULL) {
		if (memcmp(set[h], ip, sizeof(*ip)) == 0)
			return 0;
		h = (h + 1) & mask;
	}
	set[h] = ip;
	return 1;
}

/* Insert a /24 block (key + 1, so 0 means empty); @return 1 if it was new. */
static int
block_set_add(uint32_t *set, uint32_t mask, uint32_t block)
{
	uint32_t h = (block * 2654435761u) & mask;

	while (set[h] != 0) {
		if (set[h] == block + 1)
			return 0;
		h = (h + 1) & mask;
	}
	set[h] = block + 1;
	return 1;
}

/* The /24 block of an IPv4 prefix longer than /24 (it needs a DIR-24-8 tbl8), else -1. */
static int64_t
tbl8_block(const struct rsw_prefix *p)
{
	if (p->ip.family != RSW_AF_INET || p->len <= 24)
		return -1;
	return (int64_t)p->ip.addr[0] << 16 | p->ip.addr[1] << 8 | p->ip.addr[2];
}

/*
 * What the forwarding tables can hold (docs/config.md "Limits"), checked here so that a
 * configuration that does not fit is refused with its line, never when tables are built:
 * distinct next-hop groups (routes with the same next hops share one), neighbour addresses
 * per family (static neighbours and route next hops), and the IPv4 FIB's tbl8 groups (one
 * per /24 block that holds a prefix longer than /24, port addresses included).
 */
int
cfg_check_table_limits(struct ctx *c)
{
	const struct rsw_config *cfg = c->cfg;
	uint32_t gsz = set_size(cfg->n_routes), nsz = set_size(2 * RSW_MAX_NEIGHBORS + 2);
	uint32_t bsz = set_size(RSW_MAX_FIB4_TBL8 + 1), n_groups = 0, n_blocks = 0, i, j;
	uint32_t n_neigh[2] = {0, 0}, *gset, *bset;
	const struct rsw_ip **nset;
	int line_groups = 0, rc = 0;
	int64_t b;

	if (cfg->n_routes == 0 && cfg->n_neighbors == 0 && cfg->n_ports == 0)
		return 0;
	gset = calloc(gsz, sizeof(*gset));
	nset = calloc(nsz, sizeof(*nset));
	bset = calloc(bsz, sizeof(*bset));
	if (gset == NULL || nset == NULL || bset == NULL) {
		rc = cfg_fail(c, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < cfg->n_neighbors; i++)
		n_neigh[cfg->neighbors[i].ip.family == RSW_AF_INET6] +=
			(uint32_t)ip_set_add(nset, nsz - 1, &cfg->neighbors[i].ip);
	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *cp = &cfg->ports[i];
		struct rsw_prefix host;

		if (!cp->has_ipv4)
			continue;
		host = cp->ipv4;
		host.len = 32;
		n_blocks += (uint32_t)block_set_add(bset, bsz - 1, (uint32_t)tbl8_block(&host));
	}
	for (i = 0; i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];
		uint32_t h = rsw_cfg_route_group_hash(r) & (gsz - 1);
		int fam = r->prefix.ip.family == RSW_AF_INET6;
		char pbuf[INET6_ADDRSTRLEN + 4];

		while (gset[h] != 0 && !rsw_cfg_route_same_group(&cfg->routes[gset[h] - 1], r))
			h = (h + 1) & (gsz - 1);
		if (gset[h] == 0) {
			gset[h] = i + 1;
			if (++n_groups == RSW_MAX_GROUPS + 1)
				line_groups = r->line;
		}
		for (j = 0; j < r->n_nexthops; j++) {
			n_neigh[fam] += (uint32_t)ip_set_add(nset, nsz - 1, &r->nexthops[j]);
			if (n_neigh[fam] > RSW_MAX_NEIGHBORS) {
				rc = cfg_fail(
					c, r->line,
					"too many neighbours: route %s brings the %s addresses "
					"(static neighbours and next hops) to more than %d",
					rsw_prefix_str(&r->prefix, pbuf, sizeof(pbuf)),
					cfg_family_name(r->prefix.ip.family), RSW_MAX_NEIGHBORS);
				goto out;
			}
		}
		b = tbl8_block(&r->prefix);
		if (b >= 0 && block_set_add(bset, bsz - 1, (uint32_t)b) &&
		    ++n_blocks > RSW_MAX_FIB4_TBL8) {
			rc = cfg_fail(
				c, r->line,
				"too many IPv4 routes longer than /24: route %s is in the %uth /24 "
				"block holding such routes, at most %d",
				rsw_prefix_str(&r->prefix, pbuf, sizeof(pbuf)), n_blocks,
				RSW_MAX_FIB4_TBL8);
			goto out;
		}
	}
	if (n_groups > RSW_MAX_GROUPS)
		rc = cfg_fail(c, line_groups,
			      "too many distinct next-hop groups: %u, at most %d (routes with the "
			      "same next hops, weights and lb share one)",
			      n_groups, RSW_MAX_GROUPS);
out:
	free(gset);
	free(nset);
	free(bset);
	return rc;
}
