/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The switch: section: name, role, idle sleep, router ID, ICMP unreachables and RSS.
 */

#include <errno.h>

#include "config_priv.h"

enum {
	SW_NAME,
	SW_ROLE,
	SW_IDLE,
	SW_ROUTER_ID,
	SW_ICMP,
	SW_SHAPER_BURST,
	SW_RSS,
	SW_N,
};

static const char *const switch_keys[SW_N] = {
	[SW_NAME] = "name",
	[SW_ROLE] = "role",
	[SW_IDLE] = "idle_sleep_us",
	[SW_ROUTER_ID] = "router_id",
	[SW_ICMP] = "icmp_unreachable",
	[SW_SHAPER_BURST] = "shaper_burst_us",
	[SW_RSS] = "rss",
};

const char *const cfg_switch_roles[] = {"leaf", "spine"};

static int
parse_icmp(struct ctx *c, yaml_node_t *n, struct rsw_cfg_switch *sw)
{
	static const char *const keys[] = {"enable", "rate_pps"};
	struct kv kv[2];

	/* Shorthand: icmp_unreachable: false. */
	if (n->type == YAML_SCALAR_NODE && !cfg_is_null(n))
		return cfg_get_bool(c, n, "icmp_unreachable", &sw->icmp_unreachable);
	if (cfg_get_map(c, n, "switch.icmp_unreachable", keys, 2, kv) < 0)
		return -EINVAL;
	if (kv[0].v != NULL && cfg_get_bool(c, kv[0].v, "enable", &sw->icmp_unreachable) < 0)
		return -EINVAL;
	if (kv[1].v != NULL &&
	    cfg_get_u32(c, kv[1].v, "rate_pps", 1, CFG_MAX_PPS, &sw->icmp_rate_pps) < 0)
		return -EINVAL;
	return 0;
}

/* rss: { symmetric: BOOL }: the RSS key of every port with RSS (ports.c). */
static int
parse_rss(struct ctx *c, yaml_node_t *n, int line, struct rsw_cfg_switch *sw)
{
	static const char *const keys[] = {"symmetric"};
	struct kv kv[1];

	sw->rss_line = line;
	if (cfg_get_map(c, n, "switch.rss", keys, 1, kv) < 0)
		return -EINVAL;
	if (kv[0].v != NULL && cfg_get_bool(c, kv[0].v, "symmetric", &sw->rss_symmetric) < 0)
		return -EINVAL;
	return 0;
}

int
cfg_parse_switch(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_switch *sw = &c->cfg->sw;
	struct kv kv[SW_N];
	int role, rc = 0;

	if (sec->v == NULL)
		return cfg_fail(c, 0, "missing required key 'switch'");
	sw->line = sec->line;
	if (cfg_get_map(c, sec->v, "switch", switch_keys, SW_N, kv) < 0)
		return -EINVAL;
	/* The keys are independent: each one's error is reported. */
	if (kv[SW_NAME].v == NULL)
		rc = cfg_fail(c, sec->line, "missing required key 'name' in 'switch'");
	else if (cfg_get_name(c, kv[SW_NAME].v, "name", sw->name) < 0)
		rc = -EINVAL;
	if (kv[SW_ROLE].v != NULL) {
		if (cfg_get_enum(c, kv[SW_ROLE].v, "role", cfg_switch_roles, 2, &role) < 0)
			rc = -EINVAL;
		else
			sw->role = (enum rsw_switch_role)role;
	}
	if (kv[SW_IDLE].v != NULL && cfg_get_u32(c, kv[SW_IDLE].v, "idle_sleep_us", 0,
						 CFG_MAX_IDLE_US, &sw->idle_sleep_us) < 0)
		rc = -EINVAL;
	if (kv[SW_SHAPER_BURST].v != NULL &&
	    cfg_get_u32(c, kv[SW_SHAPER_BURST].v, "shaper_burst_us", 1, CFG_MAX_BURST_US,
			&sw->shaper_burst_us) < 0)
		rc = -EINVAL;
	if (kv[SW_ROUTER_ID].v != NULL) {
		if (cfg_get_ip(c, kv[SW_ROUTER_ID].v, "router_id", RSW_AF_INET, &sw->router_id) < 0)
			rc = -EINVAL;
		else
			sw->has_router_id = true;
	}
	if (kv[SW_ICMP].v != NULL && parse_icmp(c, kv[SW_ICMP].v, sw) < 0)
		rc = -EINVAL;
	if (kv[SW_RSS].v != NULL && parse_rss(c, kv[SW_RSS].v, kv[SW_RSS].line, sw) < 0)
		rc = -EINVAL;
	return rc;
}
