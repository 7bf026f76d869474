/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The neighbors: section: static ARP/ND entries, kept sorted by address so that route next
 * hops can be looked up.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"

enum {
	N_IP,
	N_MAC,
	N_PORT,
	N_N,
};

static const char *const neigh_keys[N_N] = {[N_IP] = "ip", [N_MAC] = "mac", [N_PORT] = "port"};

static int
neigh_ptr_cmp(const void *a, const void *b)
{
	const struct rsw_cfg_neighbor *x = *(const struct rsw_cfg_neighbor *const *)a;
	const struct rsw_cfg_neighbor *y = *(const struct rsw_cfg_neighbor *const *)b;
	int r = cfg_ip_cmp(&x->ip, &y->ip);

	if (r != 0)
		return r;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * The index of the port named name among the entries of ports: as written, whether or not
 * they parsed, or -1: what a neighbour's port is checked against when a port had an error.
 */
static int
port_in_file(struct ctx *c, const char *name)
{
	const yaml_node_pair_t *p;
	yaml_node_t *item, *k, *v;
	int i, n;

	if (c->ports_node == NULL || c->ports_node->type != YAML_SEQUENCE_NODE)
		return -1;
	n = cfg_seq_len(c->ports_node);
	for (i = 0; i < n; i++) {
		item = cfg_seq_item(c, c->ports_node, i);
		if (item->type != YAML_MAPPING_NODE)
			continue;
		for (p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
			k = cfg_node_at(c, p->key);
			v = cfg_node_at(c, p->value);
			if (k->type == YAML_SCALAR_NODE && strcmp(cfg_sval(k), "name") == 0 &&
			    v->type == YAML_SCALAR_NODE && strcmp(cfg_sval(v), name) == 0)
				return i;
		}
	}
	return -1;
}

static int
parse_neighbor(struct ctx *c, yaml_node_t *item, struct rsw_cfg_neighbor *nb)
{
	char ipbuf[INET6_ADDRSTRLEN];
	struct kv kv[N_N];
	const char *s;
	int port;

	nb->line = cfg_line_of(item);
	if (item->type != YAML_MAPPING_NODE)
		return cfg_fail(c, nb->line, "each entry of 'neighbors' must be a mapping");
	if (cfg_get_map(c, item, "neighbors", neigh_keys, N_N, kv) < 0)
		return -EINVAL;
	if (kv[N_IP].v == NULL)
		return cfg_fail(c, nb->line, "missing required key 'ip' in 'neighbors'");
	if (kv[N_MAC].v == NULL)
		return cfg_fail(c, nb->line, "missing required key 'mac' in 'neighbors'");
	if (kv[N_PORT].v == NULL)
		return cfg_fail(c, nb->line, "missing required key 'port' in 'neighbors'");
	if (cfg_get_ip(c, kv[N_IP].v, "ip", 0, &nb->ip) < 0)
		return -EINVAL;
	port = c->ports_partial ? -1 : cfg_own_address(c->cfg, &nb->ip);
	if (port >= 0)
		return cfg_fail(
			c, cfg_line_of(kv[N_IP].v), "neighbor %s is the address of port '%s'",
			rsw_ip_str(&nb->ip, ipbuf, sizeof(ipbuf)), c->cfg->ports[port].name);
	if (cfg_get_mac(c, kv[N_MAC].v, "mac", nb->mac) < 0)
		return -EINVAL;
	if (cfg_get_scalar(c, kv[N_PORT].v, "port", "a port name", &s) < 0)
		return -EINVAL;
	port = c->ports_partial ? port_in_file(c, s) : rsw_config_port_index(c->cfg, s);
	if (port < 0)
		return cfg_fail(c, cfg_line_of(kv[N_PORT].v), "unknown port '%.40s'", s);
	nb->port = (uint16_t)port;
	return 0;
}

int
cfg_parse_neighbors(struct ctx *c, const struct kv *sec)
{
	struct rsw_config *cfg = c->cfg;
	char ipbuf[INET6_ADDRSTRLEN];
	int i, n, first, rc = 0;

	if (cfg_is_null(sec->v))
		return 0;
	if (sec->v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, cfg_line_of(sec->v), "'neighbors' must be a list");
	n = cfg_seq_len(sec->v);
	if (n == 0)
		return 0;
	if (n > RSW_MAX_NEIGHBORS)
		return cfg_fail(c, cfg_line_of(cfg_seq_item(c, sec->v, RSW_MAX_NEIGHBORS)),
				"too many neighbors (at most %d)", RSW_MAX_NEIGHBORS);
	cfg->neighbors = calloc((size_t)n, sizeof(*cfg->neighbors));
	c->nsorted = calloc((size_t)n, sizeof(*c->nsorted));
	if (cfg->neighbors == NULL || c->nsorted == NULL)
		return cfg_fail(c, 0, "out of memory");
	/* A neighbour's first error ends its checks, not the others'; those are compared. */
	for (i = 0; i < n; i++) {
		cfg->n_neighbors = (uint32_t)(i + 1);
		if (parse_neighbor(c, cfg_seq_item(c, sec->v, i), &cfg->neighbors[i]) < 0)
			rc = -EINVAL;
		else
			c->nsorted[c->n_nsorted++] = &cfg->neighbors[i];
	}
	qsort(c->nsorted, c->n_nsorted, sizeof(*c->nsorted), neigh_ptr_cmp);
	for (i = 1, first = 0; i < (int)c->n_nsorted; i++) {
		if (cfg_ip_cmp(&c->nsorted[first]->ip, &c->nsorted[i]->ip) != 0) {
			first = i;
			continue;
		}
		rc = cfg_fail(c, c->nsorted[i]->line, "duplicate neighbor %s (first at line %d)",
			      rsw_ip_str(&c->nsorted[i]->ip, ipbuf, sizeof(ipbuf)),
			      c->nsorted[first]->line);
	}
	return rc;
}

bool
cfg_neighbor_known(struct ctx *c, const struct rsw_ip *ip)
{
	size_t lo = 0, hi = c->n_nsorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = cfg_ip_cmp(&c->nsorted[mid]->ip, ip);

		if (r == 0)
			return true;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}
