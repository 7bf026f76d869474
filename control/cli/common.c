/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Helpers of the command files of control/cli/ (rsw_cli.h), and the module that allocates
 * the `clear counters` baselines before the commands register.
 */

#include <errno.h>
#include <stdlib.h>

#include <rte_ethdev.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_lb.h"
#include "rsw_module.h"
#include "rsw_ports.h"
#include "rsw_watchdog.h"

struct rsw_cli_main rsw_cli;

int
rsw_cli_port_arg(const char *name)
{
	return rsw_config_port_index(rsw_ctl.cfg, name);
}

int
rsw_cli_port_filter(int argc, char **argv, json_t **err)
{
	int p;

	if (argc == 0)
		return -1;
	p = rsw_cli_port_arg(argv[0]);
	if (p < 0) {
		*err = rsw_cmd_error("unknown port '%s'", argv[0]);
		return -2;
	}
	return p;
}

json_t *
rsw_cli_port_rows(int argc, char **argv, const char *key, json_t *(*row)(uint16_t p))
{
	json_t *arr, *err = NULL;
	int p, only = rsw_cli_port_filter(argc, argv, &err);

	if (only == -2)
		return err;
	arr = json_array();
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++)
		if (only < 0 || only == p)
			json_array_append_new(arr, row((uint16_t)p));
	return json_pack("{s:o}", key, arr);
}

uint64_t
rsw_cli_port_missed(uint16_t p)
{
	struct rte_eth_stats es;

	if (rte_eth_stats_get(rsw_port_eth(p), &es) != 0)
		return 0;
	return es.imissed;
}

struct rsw_qos_stats *
rsw_cli_qos_now(void)
{
	struct rsw_qos_stats *s = malloc(sizeof(*s));

	if (s != NULL)
		rsw_ctl_qos_sum(s);
	return s;
}

const char *
rsw_cli_route_mode(int lb)
{
	return rsw_lb_mode_name(lb == RSW_LB_UNSET ? rsw_ctl.cfg->lb.mode : lb);
}

json_t *
rsw_cli_per_port_tc(const struct rsw_table_def *t, int argc, char **argv, const char *tc_key,
		    rsw_cli_tc_row_fn *row)
{
	json_t *arr, *err = NULL;
	struct rsw_qos_stats *s;
	int only = rsw_cli_port_filter(argc, argv, &err), p, tc;

	if (only == -2)
		return err;
	s = rsw_cli_qos_now();
	if (s == NULL)
		return rsw_cmd_error("out of memory");
	arr = json_array();
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		if (only >= 0 && only != p)
			continue;
		for (tc = 0; tc < RSW_N_TC; tc++) {
			json_t *o = json_pack("{s:s, s:i}", "port", rsw_ctl.cfg->ports[p].name,
					      tc_key, tc);

			if (o == NULL)
				continue;
			row(o, s, p, tc);
			json_object_set_new(o, "lossless",
					    json_boolean(rsw_ctl.cfg->qos.lossless & (1u << tc)));
			json_array_append_new(arr, rsw_row(t, o));
		}
	}
	free(s);
	return json_pack("{s:o}", t->key, arr);
}

int
rsw_cli_state_init(void)
{
	if (rsw_ctl.lb_base == NULL)
		rsw_ctl.lb_base = calloc(RSW_MAX_GROUPS, sizeof(*rsw_ctl.lb_base));
	if (rsw_ctl.qos_base == NULL)
		rsw_ctl.qos_base = calloc(1, sizeof(*rsw_ctl.qos_base));
	if (rsw_ctl.lb_base == NULL || rsw_ctl.qos_base == NULL)
		return -ENOMEM;
	return 0;
}

static int
cli_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cli_state_init();
}

static struct rsw_module cli_state_module = {
	.name = "cli",
	.order = RSW_CLI_MODULE_ORDER - 1,
	.init = cli_init, /* main.c frees the baselines at exit */
};

RSW_MODULE_REGISTER(cli_state_module);
