/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control: section: the socket path, telemetry, the Prometheus listen address and the
 * FPM listener that takes routes from FRR zebra (control.fpm), the kernel interfaces of the
 * ports (control.kernel_interfaces) and the rates of the punt policers (its punt: key).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_priv.h"
#include "rsw_punt_dp.h"

_Static_assert(RSW_N_PUNT_CLASSES <= RSW_CFG_PUNT_CLASSES, "RSW_CFG_PUNT_CLASSES too small");

enum {
	C_SOCKET,
	C_TELEMETRY,
	C_METRICS,
	C_FPM,
	C_KIF,
	C_N,
};

static const char *const control_keys[C_N] = {
	[C_SOCKET] = "socket", [C_TELEMETRY] = "telemetry",   [C_METRICS] = "metrics_listen",
	[C_FPM] = "fpm",       [C_KIF] = "kernel_interfaces",
};

enum {
	K_NETNS,
	K_TC,
	K_PEERS,
	K_PUNT,
	K_N,
};

static const char *const kif_keys[K_N] = {
	[K_NETNS] = "netns",
	[K_TC] = "tc",
	[K_PEERS] = "bgp_peers",
	[K_PUNT] = "punt",
};

enum {
	P_RATE,
	P_BURST,
	P_N,
};

static const char *const punt_keys[P_N] = {
	[P_RATE] = "rate",
	[P_BURST] = "burst",
};

enum {
	F_LISTEN,
	F_STALE,
	F_N,
};

static const char *const fpm_keys[F_N] = {
	[F_LISTEN] = "listen",
	[F_STALE] = "stale_s",
};

/* "host:port" or "[v6]:port"; port 1..65535. */
static bool
valid_listen(const char *s)
{
	const char *colon = strrchr(s, ':');
	int64_t port;

	if (colon == NULL || colon == s)
		return false;
	if (!cfg_parse_i64(colon + 1, &port) || colon[1] == '+' || colon[1] == '-' || port < 1 ||
	    port > 65535)
		return false;
	if (s[0] == '[') {
		char buf[INET6_ADDRSTRLEN];
		size_t len = (size_t)(colon - s);
		uint8_t a[16];

		if (len < 3 || s[len - 1] != ']' || len - 2 >= sizeof(buf))
			return false;
		memcpy(buf, s + 1, len - 2);
		buf[len - 2] = '\0';
		return inet_pton(AF_INET6, buf, a) == 1;
	}
	/* A host name or IPv4 address; a bare IPv6 address needs brackets. */
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-") ==
	       (size_t)(colon - s);
}

/* control.fpm: { listen: host:port, stale_s: N }; both optional. */
static int
parse_fpm(struct ctx *c, yaml_node_t *n, struct rsw_cfg_control *ctl)
{
	struct kv kv[F_N];

	ctl->fpm_line = cfg_line_of(n);
	snprintf(ctl->fpm_listen, sizeof(ctl->fpm_listen), "%s", "127.0.0.1:2620");
	ctl->fpm_stale_s = 10;
	if (!cfg_is_null(n) && n->type != YAML_MAPPING_NODE)
		return cfg_fail(
			c, cfg_line_of(n),
			"'fpm' must be a mapping like { listen: 127.0.0.1:2620, stale_s: 10 }");
	if (cfg_get_map(c, n, "fpm", fpm_keys, F_N, kv) < 0)
		return -EINVAL;
	if (kv[F_LISTEN].v != NULL) {
		if (cfg_get_text(c, kv[F_LISTEN].v, "listen", ctl->fpm_listen,
				 sizeof(ctl->fpm_listen)) < 0)
			return -EINVAL;
		if (!valid_listen(ctl->fpm_listen))
			return cfg_fail(
				c, cfg_line_of(kv[F_LISTEN].v),
				"'listen' must be host:port like 127.0.0.1:2620 or [::1]:2620 (got '%s')",
				ctl->fpm_listen);
	}
	if (kv[F_STALE].v != NULL &&
	    cfg_get_u32(c, kv[F_STALE].v, "stale_s", 1, 3600, &ctl->fpm_stale_s) < 0)
		return -EINVAL;
	ctl->has_fpm = true;
	return 0;
}

/* The punt class named name, or -1. */
static int
punt_class_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < RSW_N_PUNT_CLASSES; i++)
		if (strcmp(name, rsw_punt_class_name(i)) == 0)
			return (int)i;
	return -1;
}

/* "arp, nd, ..." into buf. */
static const char *
punt_class_list(char *buf, size_t len)
{
	size_t o = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < RSW_N_PUNT_CLASSES && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i != 0 ? ", " : "",
				      rsw_punt_class_name(i));
	return buf;
}

/* One class of kernel_interfaces.punt: { rate: FRAMES_PER_S, burst: FRAMES }. */
static int
parse_punt_class(struct ctx *c, yaml_node_t *n, const char *name, struct rsw_cfg_punt *pc)
{
	char what[32], key[CFG_KEY_LEN];
	struct kv kv[P_N];

	snprintf(what, sizeof(what), "punt.%s", name);
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must be a mapping like { rate: 1000, burst: 200 }", what);
	if (cfg_get_map(c, n, what, punt_keys, P_N, kv) < 0)
		return -EINVAL;
	if (kv[P_RATE].v == NULL && kv[P_BURST].v == NULL)
		return cfg_fail(c, cfg_line_of(n), "'%s' needs 'rate' or 'burst'", what);
	if (kv[P_RATE].v != NULL) {
		snprintf(key, sizeof(key), "%s.rate", what);
		if (cfg_get_u32(c, kv[P_RATE].v, key, 0, RSW_CFG_PUNT_MAX_RATE, &pc->rate) < 0)
			return -EINVAL;
		pc->has_rate = true;
	}
	if (kv[P_BURST].v != NULL) {
		snprintf(key, sizeof(key), "%s.burst", what);
		if (cfg_get_u32(c, kv[P_BURST].v, key, 1, RSW_CFG_PUNT_MAX_BURST, &pc->burst) < 0)
			return -EINVAL;
		pc->has_burst = true;
	}
	return 0;
}

/*
 * kernel_interfaces.punt: { CLASS: { rate, burst }, ... }, the classes of rsw_punt_dp.h. Each
 * class's mistake is reported.
 */
static int
parse_punt(struct ctx *c, yaml_node_t *n, struct rsw_cfg_control *ctl)
{
	yaml_node_pair_t *p;
	char list[128];
	int rc = 0;

	if (cfg_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(
			c, cfg_line_of(n),
			"'punt' must be a mapping like { other: { rate: 1000, burst: 200 } }");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = cfg_node_at(c, p->key);
		struct rsw_cfg_punt *pc;
		int cls;

		if (k->type != YAML_SCALAR_NODE)
			return cfg_fail(c, cfg_line_of(k), "keys must be plain words");
		cls = punt_class_of(cfg_sval(k));
		if (cls < 0) {
			rc = cfg_fail(c, cfg_line_of(k),
				      "'punt' has no class '%.64s' (classes: %s)", cfg_sval(k),
				      punt_class_list(list, sizeof(list)));
			continue;
		}
		pc = &ctl->punt[cls];
		if (pc->line != 0) {
			rc = cfg_fail(c, cfg_line_of(k), "duplicate key '%s' (first at line %d)",
				      cfg_sval(k), pc->line);
			continue;
		}
		pc->line = cfg_line_of(k);
		if (parse_punt_class(c, cfg_node_at(c, p->value), cfg_sval(k), pc) < 0)
			rc = -EINVAL;
	}
	return rc;
}

/*
 * control.kernel_interfaces: { netns: NAME, tc: N, bgp_peers: [ADDR, ...], punt: {...} }; netns
 * required.
 */
static int
parse_kif(struct ctx *c, yaml_node_t *n, struct rsw_cfg_control *ctl)
{
	struct kv kv[K_N];
	int i, len;

	ctl->kif_line = cfg_line_of(n);
	ctl->kif_tc = -1;
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(
			c, cfg_line_of(n),
			"'kernel_interfaces' must be a mapping like { netns: rsw-ctl, tc: 7 }");
	if (cfg_get_map(c, n, "kernel_interfaces", kif_keys, K_N, kv) < 0)
		return -EINVAL;
	if (kv[K_NETNS].v == NULL)
		return cfg_fail(c, cfg_line_of(n), "'kernel_interfaces' needs 'netns'");
	if (cfg_get_text(c, kv[K_NETNS].v, "netns", ctl->kif_netns, sizeof(ctl->kif_netns)) < 0)
		return -EINVAL;
	if (ctl->kif_netns[0] == '\0' || ctl->kif_netns[0] == '.' ||
	    strspn(ctl->kif_netns,
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
		    strlen(ctl->kif_netns))
		return cfg_fail(
			c, cfg_line_of(kv[K_NETNS].v),
			"'netns' must be a namespace name of letters, digits, '.', '_' and '-' (got '%s')",
			ctl->kif_netns);
	if (kv[K_TC].v != NULL &&
	    cfg_get_tc(c, kv[K_TC].v, "tc", "of kernel_interfaces", &ctl->kif_tc) < 0)
		return -EINVAL;
	if (kv[K_PEERS].v != NULL && !cfg_is_null(kv[K_PEERS].v)) {
		if (kv[K_PEERS].v->type != YAML_SEQUENCE_NODE)
			return cfg_fail(c, cfg_line_of(kv[K_PEERS].v),
					"'bgp_peers' must be a list of addresses");
		len = cfg_seq_len(kv[K_PEERS].v);
		if (len > RSW_CFG_MAX_BGP_PEERS)
			return cfg_fail(c, cfg_line_of(kv[K_PEERS].v),
					"too many bgp_peers (at most %d)", RSW_CFG_MAX_BGP_PEERS);
		for (i = 0; i < len; i++)
			if (cfg_get_ip(c, cfg_seq_item(c, kv[K_PEERS].v, i), "bgp_peers", 0,
				       &ctl->bgp_peers[i]) < 0)
				return -EINVAL;
		ctl->n_bgp_peers = (uint16_t)len;
	}
	if (kv[K_PUNT].v != NULL && parse_punt(c, kv[K_PUNT].v, ctl) < 0)
		return -EINVAL;
	/* The interfaces are named as the ports: IFNAMSIZ holds 15 characters. */
	for (i = 0; c->ports_ok && i < c->cfg->n_ports; i++)
		if (strlen(c->cfg->ports[i].name) > 15)
			return cfg_fail(
				c, cfg_line_of(n),
				"port '%s': a kernel interface is named as its port, in at most 15 characters",
				c->cfg->ports[i].name);
	ctl->has_kif = true;
	return 0;
}

uint8_t
rsw_config_kif_tc(const struct rsw_config *cfg)
{
	const struct rsw_cfg_qos *q = &cfg->qos;
	uint8_t i, best = 0;

	if (cfg->control.kif_tc >= 0)
		return (uint8_t)cfg->control.kif_tc;
	if (q->n_strict == 0)
		return RSW_N_TC - 1;
	for (i = 0; i < q->n_strict; i++)
		if (q->strict[i] > best)
			best = q->strict[i];
	return best;
}

void
rsw_config_punt_rates(const struct rsw_config *cfg, struct rsw_punt_rates *r)
{
	unsigned int c;

	rsw_punt_rates_default(r);
	if (cfg == NULL || !cfg->control.has_kif)
		return;
	for (c = 0; c < RSW_N_PUNT_CLASSES; c++) {
		const struct rsw_cfg_punt *pc = &cfg->control.punt[c];

		if (pc->has_rate)
			r->pps[c] = pc->rate;
		if (pc->has_burst)
			r->burst[c] = pc->burst;
	}
}

int
cfg_parse_control(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_control *ctl = &c->cfg->control;
	struct kv kv[C_N];
	int rc = 0;

	if (cfg_get_map(c, sec->v, "control", control_keys, C_N, kv) < 0)
		return -EINVAL;
	/* The keys are independent: each one's error is reported. */
	if (kv[C_SOCKET].v != NULL &&
	    cfg_get_text(c, kv[C_SOCKET].v, "socket", ctl->socket, sizeof(ctl->socket)) < 0)
		rc = -EINVAL;
	if (kv[C_TELEMETRY].v != NULL &&
	    cfg_get_bool(c, kv[C_TELEMETRY].v, "telemetry", &ctl->telemetry) < 0)
		rc = -EINVAL;
	if (kv[C_METRICS].v != NULL) {
		if (cfg_get_text(c, kv[C_METRICS].v, "metrics_listen", ctl->metrics_listen,
				 sizeof(ctl->metrics_listen)) < 0)
			return -EINVAL;
		if (!valid_listen(ctl->metrics_listen))
			return cfg_fail(
				c, cfg_line_of(kv[C_METRICS].v),
				"'metrics_listen' must be host:port like 127.0.0.1:9417 or [::1]:9417 (got '%s')",
				ctl->metrics_listen);
		ctl->has_metrics = true;
	}
	if (kv[C_FPM].v != NULL && parse_fpm(c, kv[C_FPM].v, ctl) < 0)
		rc = -EINVAL;
	if (kv[C_KIF].v != NULL && parse_kif(c, kv[C_KIF].v, ctl) < 0)
		rc = -EINVAL;
	return rc;
}
