/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The routes: section: static routes, each with its next hops (resolvable through a port's
 * subnet or a static neighbour), weights and load-balance mode.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"

enum {
	R_PREFIX,
	R_NEXTHOPS,
	R_WEIGHTS,
	R_LB,
	R_DISTANCE,
	R_N,
};

static const char *const route_keys[R_N] = {
	[R_PREFIX] = "prefix", [R_NEXTHOPS] = "nexthops", [R_WEIGHTS] = "weights",
	[R_LB] = "lb",         [R_DISTANCE] = "distance",
};

/*
 * The port whose connected subnet (*host false) or own address (*host true) is exactly p,
 * or -1: a static route there would replace the port's connected or local route.
 */
static int
connected_port(const struct rsw_config *cfg, const struct rsw_prefix *p, bool *host)
{
	int i, k, b, full;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *cp = &cfg->ports[i];

		for (k = 0; k < 2; k++) {
			const struct rsw_prefix *a = k == 0 ? &cp->ipv4 : &cp->ipv6;
			struct rsw_prefix net;

			if (!(k == 0 ? cp->has_ipv4 : cp->has_ipv6) || a->ip.family != p->ip.family)
				continue;
			full = a->ip.family == RSW_AF_INET ? 32 : 128;
			net = *a;
			for (b = net.len; b < full; b++)
				net.ip.addr[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
			if (p->len == full &&
			    memcmp(a->ip.addr, p->ip.addr, (size_t)full / 8) == 0) {
				*host = true;
				return i;
			}
			if (p->len == net.len &&
			    memcmp(net.ip.addr, p->ip.addr, (size_t)full / 8) == 0) {
				*host = false;
				return i;
			}
		}
	}
	return -1;
}

static int
parse_nexthop(struct ctx *c, yaml_node_t *n, struct rsw_cfg_route *r, int k)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN + 4];
	struct rsw_ip *ip = &r->nexthops[k];
	int j;

	if (cfg_get_ip(c, n, "nexthops", 0, ip) < 0)
		return -EINVAL;
	rsw_ip_str(ip, a, sizeof(a));
	if (ip->family != r->prefix.ip.family)
		return cfg_fail(c, cfg_line_of(n), "next hop %s is %s but prefix %s is %s", a,
				cfg_family_name(ip->family),
				rsw_prefix_str(&r->prefix, b, sizeof(b)),
				cfg_family_name(r->prefix.ip.family));
	for (j = 0; j < k; j++)
		if (cfg_ip_cmp(&r->nexthops[j], ip) == 0)
			return cfg_fail(c, cfg_line_of(n), "duplicate next hop %s", a);
	j = cfg_own_address(c->cfg, ip);
	if (j >= 0)
		return cfg_fail(c, cfg_line_of(n), "next hop %s is the address of port '%s'", a,
				c->cfg->ports[j].name);
	if (!cfg_connected(c->cfg, ip) && !cfg_neighbor_known(c, ip))
		return cfg_fail(
			c, cfg_line_of(n),
			"next hop %s is not resolvable: it is in no port's subnet and is not a static neighbor",
			a);
	return 0;
}

static int
parse_route(struct ctx *c, yaml_node_t *item, struct rsw_cfg_route *r)
{
	struct kv kv[R_N];
	yaml_node_t *nh;
	const char *s;
	int i, n;

	r->line = cfg_line_of(item);
	r->lb = RSW_LB_UNSET;
	if (item->type != YAML_MAPPING_NODE)
		return cfg_fail(c, r->line, "each entry of 'routes' must be a mapping");
	if (cfg_get_map(c, item, "routes", route_keys, R_N, kv) < 0)
		return -EINVAL;
	if (kv[R_PREFIX].v == NULL)
		return cfg_fail(c, r->line, "missing required key 'prefix' in 'routes'");
	if (kv[R_NEXTHOPS].v == NULL)
		return cfg_fail(c, r->line, "missing required key 'nexthops' in 'routes'");
	if (cfg_get_scalar(c, kv[R_PREFIX].v, "prefix", "an address/length", &s) < 0)
		return -EINVAL;
	if (!cfg_parse_prefix(s, &r->prefix))
		return cfg_fail(
			c, cfg_line_of(kv[R_PREFIX].v),
			"'prefix' must be an address/length like 10.9.0.0/16 or fd00:9::/48 (got '%.48s')",
			s);
	cfg_prefix_mask(&r->prefix);

	nh = kv[R_NEXTHOPS].v;
	if (nh->type == YAML_SCALAR_NODE && !cfg_is_null(nh)) {
		/* nexthops: 10.0.2.1 is a list of one. */
		r->n_nexthops = 1;
		if (parse_nexthop(c, nh, r, 0) < 0)
			return -EINVAL;
	} else {
		if (nh->type != YAML_SEQUENCE_NODE)
			return cfg_fail(c, cfg_line_of(nh),
					"'nexthops' must be a list of addresses");
		n = cfg_seq_len(nh);
		if (n < 1 || n > RSW_MAX_NEXTHOPS)
			return cfg_fail(c, cfg_line_of(nh),
					"'nexthops' must list 1 to %d next hops (got %d)",
					RSW_MAX_NEXTHOPS, n);
		for (i = 0; i < n; i++)
			if (parse_nexthop(c, cfg_seq_item(c, nh, i), r, i) < 0)
				return -EINVAL;
		r->n_nexthops = (uint16_t)n;
	}
	for (i = 0; i < RSW_MAX_NEXTHOPS; i++)
		r->weights[i] = i < r->n_nexthops ? 1 : 0;

	if (kv[R_WEIGHTS].v != NULL) {
		yaml_node_t *w = kv[R_WEIGHTS].v;

		if (w->type != YAML_SEQUENCE_NODE)
			return cfg_fail(c, cfg_line_of(w), "'weights' must be a list of integers");
		n = cfg_seq_len(w);
		if (n != r->n_nexthops)
			return cfg_fail(
				c, cfg_line_of(w),
				"'weights' has %d entries but 'nexthops' has %u; give one weight per next hop",
				n, r->n_nexthops);
		for (i = 0; i < n; i++)
			if (cfg_get_u32(c, cfg_seq_item(c, w, i), "weights", 1, CFG_MAX_WEIGHT,
					&r->weights[i]) < 0)
				return -EINVAL;
	}
	if (kv[R_LB].v != NULL && cfg_get_lb_mode(c, kv[R_LB].v, "lb", &r->lb) < 0)
		return -EINVAL;
	if (kv[R_DISTANCE].v != NULL) {
		uint32_t d;

		if (cfg_get_u32(c, kv[R_DISTANCE].v, "distance", 0, 255, &d) < 0)
			return -EINVAL;
		r->has_distance = true;
		r->distance = (uint8_t)d;
	} else {
		char pbuf[INET6_ADDRSTRLEN + 4];
		bool host = false;
		int p = connected_port(c->cfg, &r->prefix, &host);

		/* The connected route wins: without a distance, the route is a mistake. */
		if (p >= 0)
			return cfg_fail(
				c, cfg_line_of(kv[R_PREFIX].v),
				"route %s is %s of port '%s': the connected route wins; give it a 'distance:' to keep it as a backup",
				rsw_prefix_str(&r->prefix, pbuf, sizeof(pbuf)),
				host ? "the address" : "a connected subnet", c->cfg->ports[p].name);
	}
	return 0;
}

static int
route_ptr_cmp(const void *a, const void *b)
{
	const struct rsw_cfg_route *x = *(const struct rsw_cfg_route *const *)a;
	const struct rsw_cfg_route *y = *(const struct rsw_cfg_route *const *)b;
	int r = cfg_ip_cmp(&x->prefix.ip, &y->prefix.ip);

	if (r != 0)
		return r;
	if (x->prefix.len != y->prefix.len)
		return x->prefix.len < y->prefix.len ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int
cfg_parse_routes(struct ctx *c, const struct kv *sec)
{
	struct rsw_config *cfg = c->cfg;
	struct rsw_cfg_route **sorted;
	char pbuf[INET6_ADDRSTRLEN + 4];
	int i, n, n4 = 0, n6 = 0, n_ok = 0, first, rc = 0;

	if (cfg_is_null(sec->v))
		return 0;
	if (sec->v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, cfg_line_of(sec->v), "'routes' must be a list");
	n = cfg_seq_len(sec->v);
	if (n == 0)
		return 0;
	if (n > 2 * RSW_MAX_ROUTES)
		return cfg_fail(c, cfg_line_of(cfg_seq_item(c, sec->v, 2 * RSW_MAX_ROUTES)),
				"too many routes (at most %d per family)", RSW_MAX_ROUTES);
	cfg->routes = calloc((size_t)n, sizeof(*cfg->routes));
	sorted = malloc((size_t)n * sizeof(*sorted));
	if (cfg->routes == NULL || sorted == NULL) {
		free(sorted);
		return cfg_fail(c, 0, "out of memory");
	}
	/* A route's first error ends its checks, not the others'; those are compared. */
	for (i = 0; i < n; i++) {
		struct rsw_cfg_route *r = &cfg->routes[i];

		cfg->n_routes = (uint32_t)(i + 1);
		if (parse_route(c, cfg_seq_item(c, sec->v, i), r) < 0) {
			rc = -EINVAL;
			continue;
		}
		if ((r->prefix.ip.family == RSW_AF_INET ? ++n4 : ++n6) > RSW_MAX_ROUTES) {
			rc = cfg_fail(c, r->line, "too many %s routes (at most %d)",
				      cfg_family_name(r->prefix.ip.family), RSW_MAX_ROUTES);
			goto out;
		}
		sorted[n_ok++] = r;
	}
	qsort(sorted, (size_t)n_ok, sizeof(*sorted), route_ptr_cmp);
	for (i = 1, first = 0; i < n_ok; i++) {
		if (cfg_ip_cmp(&sorted[first]->prefix.ip, &sorted[i]->prefix.ip) != 0 ||
		    sorted[first]->prefix.len != sorted[i]->prefix.len) {
			first = i;
			continue;
		}
		rc = cfg_fail(c, sorted[i]->line, "duplicate route %s (first at line %d)",
			      rsw_prefix_str(&sorted[i]->prefix, pbuf, sizeof(pbuf)),
			      sorted[first]->line);
	}
out:
	free(sorted);
	return rc;
}
