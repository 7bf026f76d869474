/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The ports: section: one entry per port (name, devargs, MAC, speed, addresses, MTU, role), and
 * the questions the later sections ask about ports (whose address is this, is it connected).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "config_priv.h"

enum {
	P_NAME,
	P_DEVARGS,
	P_MAC,
	P_SPEED,
	P_IPV4,
	P_IPV6,
	P_MTU,
	P_ROLE,
	P_N,
};

static const char *const port_keys[P_N] = {
	[P_NAME] = "name", [P_DEVARGS] = "devargs", [P_MAC] = "mac", [P_SPEED] = "speed",
	[P_IPV4] = "ipv4", [P_IPV6] = "ipv6",       [P_MTU] = "mtu", [P_ROLE] = "role",
};

const char *const cfg_port_roles[] = {"downlink", "uplink"};

/* A port address: host bits kept; v4 below /31 must not be the network or broadcast address. */
static int
get_port_addr(struct ctx *c, yaml_node_t *n, const char *key, int family, struct rsw_prefix *p)
{
	const char *eg = family == RSW_AF_INET ? "10.0.1.254/24" : "fd00:0:1::fe/64";
	char nbuf[INET6_ADDRSTRLEN + 4];
	struct rsw_prefix net;
	const char *s;

	if (cfg_get_scalar(c, n, key, "an address/length", &s) < 0)
		return -EINVAL;
	if (!cfg_parse_prefix(s, p) || p->ip.family != family)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must be an %s address/length like %s (got '%.48s')", key,
				cfg_family_name(family), eg, s);
	if (p->len == 0)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must have a prefix length of 1 or more (got %s)", key, s);
	if (!cfg_ip_unicast(&p->ip))
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a unicast address (got %s)", key,
				s);
	if (family == RSW_AF_INET && p->len < 31) {
		uint32_t a, host = ~0u >> p->len;

		memcpy(&a, p->ip.addr, 4);
		a = ntohl(a);
		net = *p;
		cfg_prefix_mask(&net);
		if ((a & host) == 0)
			return cfg_fail(
				c, cfg_line_of(n),
				"'%s' %s is the subnet's network address; give the switch's own address in %s",
				key, s, rsw_prefix_str(&net, nbuf, sizeof(nbuf)));
		if ((a & host) == host)
			return cfg_fail(
				c, cfg_line_of(n),
				"'%s' %s is the subnet's broadcast address; give the switch's own address in %s",
				key, s, rsw_prefix_str(&net, nbuf, sizeof(nbuf)));
	}
	return 0;
}

static int
check_port_subnet(struct ctx *c, yaml_node_t *n, const char *key, const struct rsw_prefix *p,
		  int self)
{
	char a[INET6_ADDRSTRLEN + 4], b[INET6_ADDRSTRLEN + 4];
	int j;

	for (j = 0; j < self; j++) {
		const struct rsw_cfg_port *o = &c->cfg->ports[j];
		const struct rsw_prefix *q = p->ip.family == RSW_AF_INET
						     ? (o->has_ipv4 ? &o->ipv4 : NULL)
						     : (o->has_ipv6 ? &o->ipv6 : NULL);

		if (q != NULL && cfg_prefix_overlap(p, q))
			return cfg_fail(c, cfg_line_of(n), "'%s' %s overlaps port '%s' (%s)", key,
					rsw_prefix_str(p, a, sizeof(a)), o->name,
					rsw_prefix_str(q, b, sizeof(b)));
	}
	return 0;
}

static int
parse_port(struct ctx *c, yaml_node_t *item, int idx)
{
	struct rsw_cfg_port *port = &c->cfg->ports[idx];
	struct kv kv[P_N];
	const char *s;
	int64_t mtu;
	int j, role;

	port->line = cfg_line_of(item);
	port->mtu = 1500;
	if (item->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(item), "each entry of 'ports' must be a mapping");
	if (cfg_get_map(c, item, "ports", port_keys, P_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[P_NAME].v == NULL)
		return cfg_fail(c, port->line, "missing required key 'name' in 'ports'");
	if (cfg_get_name(c, kv[P_NAME].v, "name", port->name) < 0)
		return -EINVAL;
	for (j = 0; j < idx; j++)
		if (strcmp(c->cfg->ports[j].name, port->name) == 0)
			return cfg_fail(c, cfg_line_of(kv[P_NAME].v),
					"duplicate port name '%s' (first at line %d)", port->name,
					c->cfg->ports[j].line);
	if (kv[P_DEVARGS].v == NULL)
		return cfg_fail(c, port->line, "missing required key 'devargs' in 'ports'");
	if (cfg_get_text(c, kv[P_DEVARGS].v, "devargs", port->devargs, sizeof(port->devargs)) < 0)
		return -EINVAL;
	for (j = 0; j < idx; j++)
		if (strcmp(c->cfg->ports[j].devargs, port->devargs) == 0)
			return cfg_fail(c, cfg_line_of(kv[P_DEVARGS].v),
					"duplicate devargs '%.64s' (port '%s' has it)",
					port->devargs, c->cfg->ports[j].name);
	if (kv[P_MAC].v != NULL) {
		if (cfg_get_mac(c, kv[P_MAC].v, "mac", port->mac) < 0)
			return -EINVAL;
		port->has_mac = true;
	}
	if (kv[P_SPEED].v != NULL) {
		if (cfg_get_scalar(c, kv[P_SPEED].v, "speed", "a rate like 10G or 2.5G", &s) < 0)
			return -EINVAL;
		if (rsw_parse_rate(s, &port->speed_bps) < 0)
			return cfg_fail(
				c, cfg_line_of(kv[P_SPEED].v),
				"'speed' must be a rate in bits/s like 100M, 2.5G or 10G (got '%.32s')",
				s);
		if (port->speed_bps < RSW_SPEED_MIN_BPS || port->speed_bps > RSW_SPEED_MAX_BPS)
			return cfg_fail(c, cfg_line_of(kv[P_SPEED].v),
					"'speed' must be between 1M and 400G (got %s)", s);
	}
	if (kv[P_IPV4].v != NULL) {
		if (get_port_addr(c, kv[P_IPV4].v, "ipv4", RSW_AF_INET, &port->ipv4) < 0 ||
		    check_port_subnet(c, kv[P_IPV4].v, "ipv4", &port->ipv4, idx) < 0)
			return -EINVAL;
		port->has_ipv4 = true;
	}
	if (kv[P_IPV6].v != NULL) {
		if (get_port_addr(c, kv[P_IPV6].v, "ipv6", RSW_AF_INET6, &port->ipv6) < 0 ||
		    check_port_subnet(c, kv[P_IPV6].v, "ipv6", &port->ipv6, idx) < 0)
			return -EINVAL;
		port->has_ipv6 = true;
	}
	if (kv[P_MTU].v != NULL) {
		if (cfg_get_int(c, kv[P_MTU].v, "mtu", CFG_MIN_MTU, CFG_MAX_MTU, &mtu) < 0)
			return -EINVAL;
		port->mtu = (uint16_t)mtu;
	}
	if (port->has_ipv6 && port->mtu < CFG_MIN_MTU_IPV6)
		return cfg_fail(c, kv[P_MTU].v != NULL ? cfg_line_of(kv[P_MTU].v) : port->line,
				"'mtu' must be at least %d on a port with an IPv6 address (got %u)",
				CFG_MIN_MTU_IPV6, port->mtu);
	if (kv[P_ROLE].v != NULL) {
		if (cfg_get_enum(c, kv[P_ROLE].v, "role", cfg_port_roles, 2, &role) < 0)
			return -EINVAL;
		port->role = (enum rsw_port_role)(role + 1);
	}
	return 0;
}

int
cfg_parse_ports(struct ctx *c, const struct kv *sec)
{
	int i, n, rc = 0;

	if (sec->v == NULL)
		return cfg_fail(c, 0, "missing required key 'ports'");
	if (cfg_is_null(sec->v))
		return cfg_fail(c, sec->line, "'ports' must list at least one port");
	if (sec->v->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, cfg_line_of(sec->v), "'ports' must be a list");
	n = cfg_seq_len(sec->v);
	if (n == 0)
		return cfg_fail(c, sec->line, "'ports' must list at least one port");
	for (i = 0; i < n; i++) {
		yaml_node_t *item = cfg_seq_item(c, sec->v, i);

		if (i == RSW_MAX_PORTS)
			return cfg_fail(c, cfg_line_of(item), "too many ports (at most %d)",
					RSW_MAX_PORTS);
		/*
		 * A port's first error ends its checks, not the other ports'; the later ones
		 * are not compared with it (duplicate names, devargs, subnets).
		 */
		if (parse_port(c, item, i) < 0) {
			c->cfg->ports[i] = (struct rsw_cfg_port){.line = c->cfg->ports[i].line};
			rc = -EINVAL;
		}
		c->cfg->n_ports = (uint16_t)(i + 1);
	}
	return rc;
}

/* The port whose own address is ip, or -1. */
int
cfg_own_address(const struct rsw_config *cfg, const struct rsw_ip *ip)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *p = &cfg->ports[i];

		if (p->has_ipv4 && memcmp(&p->ipv4.ip, ip, sizeof(*ip)) == 0)
			return i;
		if (p->has_ipv6 && memcmp(&p->ipv6.ip, ip, sizeof(*ip)) == 0)
			return i;
	}
	return -1;
}

bool
cfg_connected(const struct rsw_config *cfg, const struct rsw_ip *ip)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *p = &cfg->ports[i];

		if (p->has_ipv4 && rsw_prefix_contains(&p->ipv4, ip))
			return true;
		if (p->has_ipv6 && rsw_prefix_contains(&p->ipv6, ip))
			return true;
	}
	return false;
}

int
rsw_config_port_index(const struct rsw_config *cfg, const char *name)
{
	int i;

	if (cfg == NULL || name == NULL)
		return -1;
	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}
