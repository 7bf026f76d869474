/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Live reload (docs/architecture.md): `railctl reload [FILE]` and SIGHUP. The new file
 * is loaded and checked, a new generation of tables is built aside (on the
 * retired generation's FIBs, which no worker reads, or new ones), the members
 * that are down are computed for it, and it is published by swapping one
 * pointer; rsw_tables_publish waits for every worker's quiescent state before
 * retiring the old generation, so no packet on an unchanged route is lost. Ports, devargs, buffer.total, the lossless
 * set and the control interfaces need a restart: such a file is refused and
 * the old configuration keeps running. The punt policers' rates
 * (kernel_interfaces.punt) are published to the workers live.
 */

#include <errno.h>
#include <string.h>

#include "rsw_cmd.h"
#include "rsw_ctl.h"
#include "rsw_link_ctl.h"
#include "rsw_liveness.h"
#include "rsw_module.h"
#include "rsw_neigh.h"
#include "rsw_ports.h"
#include "rsw_punt_ctl.h"
#include "rsw_reload.h"
#include "rsw_tables_ctl.h"

/* The first key whose change needs a restart, or NULL. */
static const char *
restart_key(const struct rsw_config *o, const struct rsw_config *n, char *buf, size_t len)
{
	uint16_t p;

	if (strcmp(o->sw.name, n->sw.name) != 0)
		return "switch.name";
	if (o->sw.role != n->sw.role)
		return "switch.role";
	if (o->sw.rss_symmetric != n->sw.rss_symmetric)
		return "switch.rss";
	if (o->n_ports != n->n_ports)
		return "ports";
	for (p = 0; p < o->n_ports; p++) {
		const struct rsw_cfg_port *a = &o->ports[p], *b = &n->ports[p];
		const char *k = NULL;

		if (strcmp(a->name, b->name) != 0)
			k = "name";
		else if (strcmp(a->devargs, b->devargs) != 0)
			k = "devargs";
		else if (a->has_mac != b->has_mac || memcmp(a->mac, b->mac, 6) != 0)
			k = "mac";
		else if (a->speed_bps != b->speed_bps)
			k = "speed";
		else if (a->mtu != b->mtu)
			k = "mtu";
		else if (a->role != b->role)
			k = "role";
		else if (a->has_ipv4 != b->has_ipv4 ||
			 (a->has_ipv4 && memcmp(&a->ipv4, &b->ipv4, sizeof(a->ipv4)) != 0))
			k = "ipv4";
		else if (a->has_ipv6 != b->has_ipv6 ||
			 (a->has_ipv6 && memcmp(&a->ipv6, &b->ipv6, sizeof(a->ipv6)) != 0))
			k = "ipv6";
		else if (a->llr != b->llr || (a->llr && a->llr_fallback != b->llr_fallback))
			k = "llr";
		else if (a->cbfc.enable != b->cbfc.enable ||
			 (a->cbfc.enable && (a->cbfc.bytes_per_credit != b->cbfc.bytes_per_credit ||
					     a->cbfc.buffer != b->cbfc.buffer ||
					     a->cbfc.fallback != b->cbfc.fallback)))
			k = "cbfc";
		else if (a->rx_desc != b->rx_desc)
			k = "rx_desc";
		else if (a->tx_desc != b->tx_desc)
			k = "tx_desc";
		if (k != NULL) {
			snprintf(buf, len, "ports.%s.%s", a->name, k);
			return buf;
		}
	}
	if (o->qos.buffer_total != n->qos.buffer_total)
		return "qos.buffer.total";
	if (o->qos.lossless != n->qos.lossless)
		return "qos.lossless";
	if (strcmp(o->control.socket, n->control.socket) != 0)
		return "control.socket";
	if (o->control.telemetry != n->control.telemetry)
		return "control.telemetry";
	if (o->control.has_metrics != n->control.has_metrics ||
	    strcmp(o->control.metrics_listen, n->control.metrics_listen) != 0)
		return "control.metrics_listen";
	if (o->control.has_fpm != n->control.has_fpm ||
	    strcmp(o->control.fpm_listen, n->control.fpm_listen) != 0 ||
	    o->control.fpm_stale_s != n->control.fpm_stale_s)
		return "control.fpm";
	if (o->control.has_kif != n->control.has_kif ||
	    strcmp(o->control.kif_netns, n->control.kif_netns) != 0 ||
	    o->control.kif_tc != n->control.kif_tc ||
	    o->control.n_bgp_peers != n->control.n_bgp_peers ||
	    memcmp(o->control.bgp_peers, n->control.bgp_peers,
		   o->control.n_bgp_peers * sizeof(o->control.bgp_peers[0])) != 0)
		return "control.kernel_interfaces";
	return NULL;
}

json_t *
rsw_ctl_reload(const char *path)
{
	char err[RSW_CFG_ERR_LEN], key[RSW_NAME_LEN + 16];
	struct rsw_config *cfg, *old = rsw_ctl.cfg;
	struct rsw_tables *t;
	const char *k;
	uint32_t g, j;

	cfg = rsw_config_load(path != NULL ? path : old->path, err, sizeof(err));
	if (cfg == NULL)
		return rsw_cmd_error("%s", err);
	k = restart_key(old, cfg, key, sizeof(key));
	if (k != NULL) {
		rsw_config_free(cfg);
		return rsw_cmd_error("requires restart: %s", k);
	}
	t = rsw_ctl_tables_build(cfg, rsw_ctl.generation + 1, err, sizeof(err));
	if (t == NULL) {
		rsw_config_free(cfg);
		return rsw_cmd_error("%s", err);
	}
	rsw_ctl.generation++;
	/* Members that are down, by the new group numbering, before the new groups are seen. */
	rsw_ctl_lb_masks(t);
	rsw_tables_publish(t);

	rsw_ctl.cfg = cfg;
	rsw_ports_set_config(cfg);
	rsw_ctl_neigh_reload(cfg);
	rsw_ctl_link_reload(old, cfg); /* impairments (docs/link.md) */
	rsw_ctl_punt_reload(cfg);      /* control.kernel_interfaces.punt (docs/routing.md) */
	rsw_dp.idle_sleep_us = cfg->sw.idle_sleep_us;
	rsw_qos.shaper_burst_us = cfg->sw.shaper_burst_us;
	/* Groups may be numbered anew: `show lb` counts from the reload. */
	for (g = 0; g < RSW_MAX_GROUPS; g++)
		for (j = 0; j < RSW_MAX_NEXTHOPS; j++)
			rsw_stats_lb_sum(g, j, &rsw_ctl.lb_base[g][j]);
	rsw_config_free(old);
	return json_pack("{s:b, s:I}", "ok", 1, "generation", (json_int_t)rsw_ctl.generation);
}

int
rsw_ctl_tables_rebuild(char *err, size_t errlen)
{
	struct rsw_tables *t;
	uint32_t g, j;

	t = rsw_ctl_tables_build(rsw_ctl.cfg, rsw_ctl.generation + 1, err, errlen);
	if (t == NULL)
		return -EINVAL;
	rsw_ctl.generation++;
	rsw_ctl_lb_masks(t);
	rsw_tables_publish(t);
	for (g = 0; g < RSW_MAX_GROUPS; g++)
		for (j = 0; j < RSW_MAX_NEXTHOPS; j++)
			rsw_stats_lb_sum(g, j, &rsw_ctl.lb_base[g][j]);
	return 0;
}

static json_t *
cmd_reload(int argc, char **argv, void *ctx)
{
	return rsw_ctl_reload(argc > 0 ? argv[0] : NULL);
}

int
rsw_ctl_reload_register(void)
{
	return rsw_cmd_register("reload", 0, 1, "[FILE]",
				"load a configuration live (the running file when none is given)",
				cmd_reload, NULL);
}

static int
reload_init(const struct rsw_config *cfg __rte_unused)
{
	int ret = rsw_ctl_reload_register();

	if (ret != 0)
		rte_log(RTE_LOG_ERR, RTE_LOGTYPE_USER1, "railsw: cannot register commands\n");
	return ret;
}

static struct rsw_module reload_module = {
	.name = "reload",
	.order = RSW_MODULE_ORDER_RELOAD,
	.init = reload_init,
};

RSW_MODULE_REGISTER(reload_module);
