/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The ports: section: one entry per port (name, devargs, MAC, speed, addresses, MTU, role), and
 * the questions the later sections ask about ports (whose address is this, is it connected).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
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
	P_IMPAIR,
	P_LLR,
	P_RX_DESC,
	P_TX_DESC,
	P_CBFC,
	P_N,
};

static const char *const port_keys[P_N] = {
	[P_NAME] = "name",   [P_DEVARGS] = "devargs", [P_MAC] = "mac",
	[P_SPEED] = "speed", [P_IPV4] = "ipv4",       [P_IPV6] = "ipv6",
	[P_MTU] = "mtu",     [P_ROLE] = "role",       [P_IMPAIR] = "impair",
	[P_LLR] = "llr",     [P_RX_DESC] = "rx_desc", [P_TX_DESC] = "tx_desc",
	[P_CBFC] = "cbfc",
};

enum {
	IM_LOSS,
	IM_LOSS_BURST,
	IM_CORRUPT,
	IM_DELAY_US,
	IM_SEED,
	IM_N,
};

static const char *const impair_keys[IM_N] = {
	[IM_LOSS] = "loss",       [IM_LOSS_BURST] = "loss_burst",
	[IM_CORRUPT] = "corrupt", [IM_DELAY_US] = "delay_us",
	[IM_SEED] = "seed",
};

enum {
	LLR_ENABLE,
	LLR_FALLBACK,
	LLR_N,
};

static const char *const llr_keys[LLR_N] = {[LLR_ENABLE] = "enable", [LLR_FALLBACK] = "fallback"};

const char *const cfg_llr_fallbacks[] = {"best-effort", "discard", "block"};

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

/* A probability: a decimal number from 0 to 1. */
static int
get_prob(struct ctx *c, yaml_node_t *n, const char *key, double *out)
{
	const char *s;
	char *end;
	double v;

	if (cfg_get_scalar(c, n, key, "a probability from 0 to 1", &s) < 0)
		return -EINVAL;
	/* Decimal only: no hex, inf or nan, which strtod would take. */
	v = strspn(s, "0123456789.eE+-") == strlen(s) ? strtod(s, &end) : -1;
	if (strspn(s, "0123456789.eE+-") != strlen(s) || end == s || *end != '\0' || !(v >= 0) ||
	    v > 1)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must be a probability from 0 to 1 (got '%.32s')", key, s);
	*out = v;
	return 0;
}

/* impair: { loss, loss_burst, corrupt, delay_us, seed } */
static int
parse_impair(struct ctx *c, yaml_node_t *n, struct rsw_cfg_port *port)
{
	struct rsw_cfg_impair *im = &port->impair;
	struct kv kv[IM_N];
	int64_t v;

	if (cfg_get_map(c, n, "impair", impair_keys, IM_N, kv) < 0)
		return -EINVAL;
	im->loss_burst = 1;
	im->seed = 1;
	if (kv[IM_LOSS].v != NULL && get_prob(c, kv[IM_LOSS].v, "loss", &im->loss) < 0)
		return -EINVAL;
	if (kv[IM_CORRUPT].v != NULL && get_prob(c, kv[IM_CORRUPT].v, "corrupt", &im->corrupt) < 0)
		return -EINVAL;
	if (kv[IM_LOSS_BURST].v != NULL &&
	    cfg_get_u32(c, kv[IM_LOSS_BURST].v, "loss_burst", 1, 1000000, &im->loss_burst) < 0)
		return -EINVAL;
	if (kv[IM_DELAY_US].v != NULL &&
	    cfg_get_u32(c, kv[IM_DELAY_US].v, "delay_us", 0, 1000000, &im->delay_us) < 0)
		return -EINVAL;
	if (kv[IM_SEED].v != NULL) {
		if (cfg_get_int(c, kv[IM_SEED].v, "seed", 0, INT64_MAX, &v) < 0)
			return -EINVAL;
		im->seed = (uint64_t)v;
	}
	port->has_impair = true;
	return 0;
}

/* llr: true | false | { enable, fallback } */
static int
parse_llr(struct ctx *c, yaml_node_t *n, struct rsw_cfg_port *port)
{
	struct kv kv[LLR_N];
	int fb;

	if (n->type == YAML_SCALAR_NODE)
		return cfg_get_bool(c, n, "llr", &port->llr);
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(n),
				"'llr' must be true, false or a mapping { enable, fallback }");
	if (cfg_get_map(c, n, "llr", llr_keys, LLR_N, kv) < 0)
		return -EINVAL;
	port->llr = true;
	if (kv[LLR_ENABLE].v != NULL && cfg_get_bool(c, kv[LLR_ENABLE].v, "enable", &port->llr) < 0)
		return -EINVAL;
	if (kv[LLR_FALLBACK].v != NULL) {
		if (cfg_get_enum(c, kv[LLR_FALLBACK].v, "fallback", cfg_llr_fallbacks, 3, &fb) < 0)
			return -EINVAL;
		port->llr_fallback = (enum rsw_cfg_llr_fallback)fb;
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
	uint32_t u;
	int j, role;

	port->line = cfg_line_of(item);
	port->mtu = 1500;
	port->rx_desc = RSW_CFG_RX_DESC;
	port->tx_desc = RSW_CFG_TX_DESC;
	if (item->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(item), "each entry of 'ports' must be a mapping");
	if (cfg_get_map(c, item, "ports", port_keys, P_N, kv) < 0)
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
	port->devargs_line = cfg_line_of(kv[P_DEVARGS].v);
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
		port->mtu_line = cfg_line_of(kv[P_MTU].v);
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
	if (kv[P_IMPAIR].v != NULL && parse_impair(c, kv[P_IMPAIR].v, port) < 0)
		return -EINVAL;
	if (kv[P_LLR].v != NULL && parse_llr(c, kv[P_LLR].v, port) < 0)
		return -EINVAL;
	if (kv[P_CBFC].v != NULL && cfg_parse_cbfc(c, kv[P_CBFC].v, port) < 0)
		return -EINVAL;
	port->llr_line = kv[P_LLR].line;
	/* The PMD's own limits are known at start only (ports.c checks them there). */
	if (kv[P_RX_DESC].v != NULL) {
		if (cfg_get_u32(c, kv[P_RX_DESC].v, "rx_desc", 1, RSW_CFG_MAX_DESC, &u) < 0)
			return -EINVAL;
		port->rx_desc = (uint16_t)u;
		port->rx_desc_line = cfg_line_of(kv[P_RX_DESC].v);
	}
	if (kv[P_TX_DESC].v != NULL) {
		if (cfg_get_u32(c, kv[P_TX_DESC].v, "tx_desc", 1, RSW_CFG_MAX_DESC, &u) < 0)
			return -EINVAL;
		port->tx_desc = (uint16_t)u;
		port->tx_desc_line = cfg_line_of(kv[P_TX_DESC].v);
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
