/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `clear counters` (docs/cli.md): takes a baseline of every counter the `show`
 * commands print (never writing a worker's slot) and resets the watermarks.
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_fpm.h"
#include "rsw_icmp.h"
#include "rsw_kif.h"
#include "rsw_module.h"
#include "rsw_watchdog.h"

static json_t *
cmd_clear_counters(int argc, char **argv, void *ctx)
{
	uint32_t g, j;
	uint16_t p;
	uint8_t tc;

	(void)argc;
	(void)argv;
	(void)ctx;
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		rsw_stats_port_sum(p, rsw_ctl.port_base[p]);
		rsw_ctl.missed_base[p] = rsw_cli_port_missed(p);
		rsw_kif_counters(p, rsw_ctl.kif_base[p]);
		for (tc = 0; tc < RSW_N_TC; tc++)
			rsw_pfcwd_counts(p, tc, &rsw_cli.pfcwd_storms_base[p][tc],
					 &rsw_cli.pfcwd_restores_base[p][tc]);
	}
	for (g = 0; g < RSW_MAX_GROUPS; g++)
		for (j = 0; j < RSW_MAX_NEXTHOPS; j++)
			rsw_stats_lb_sum(g, j, &rsw_ctl.lb_base[g][j]);
	rsw_ctl_qos_sum(rsw_ctl.qos_base);
	rsw_cli_drops_clear();
	rsw_ctl_icmp_counters_clear();
	rsw_fpm_counters_clear();
	rsw_cli_punt_clear();
	rsw_cli_llr_clear();
	rsw_cli_cbfc_clear();
	rsw_cli_workers_clear();
	/* Watermarks: each lcore resets its own when it sees the new epoch. */
	__atomic_fetch_add(&rsw_qos.wm_epoch, 1, __ATOMIC_RELEASE);
	return rsw_cmd_ok();
}

static int
clear_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("clear counters", 0, 0, "", "zero every counter but gauges",
				cmd_clear_counters, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module clear_cli_module = {
	.name = "cli.clear",
	.order = RSW_CLI_MODULE_ORDER,
	.init = clear_init,
};

RSW_MODULE_REGISTER(clear_cli_module);
