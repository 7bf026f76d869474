/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show pfc [PORT]` (docs/cli.md): one row per (port, priority): the dataplane's PFC
 * counters (rsw_qos.h) and the watchdog's storms and restores, which the watchdog counts
 * itself (rsw_pfcwd_counts); `clear counters` keeps their baseline in rsw_cli.
 */

#include <errno.h>

#include <rte_cycles.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"
#include "rsw_watchdog.h"

static const struct rsw_field_def pfc_fields[] = {
	RSW_LABEL("port", "port", "the port"),
	RSW_LABEL("priority", "priority", "the PFC priority (= TC, 0-7)"),
	RSW_FOREACH_PFC_CTR(RSW_FIELD_OF_CTR)
		RSW_FIELD("pfcwd_storms", COUNTER, "events", "PFC storms the watchdog detected"),
	RSW_FIELD("pfcwd_restores", COUNTER, "events", "storms the watchdog ended (restored)"),
	RSW_FIELD("paused", STATE, "", "the peer pauses the priority now"),
	RSW_FIELD("storm", STATE, "", "the watchdog's storm action applies now"),
	RSW_FIELD_F("lossless", STATE, "", "the priority is lossless (qos.lossless)",
		    RSW_FIELD_NO_METRIC),
};

const struct rsw_table_def rsw_table_pfc = {
	.command = "show pfc",
	.key = "pfc",
	.metric_prefix = "",
	.fields = pfc_fields,
	.n_fields = RSW_TABLE_N_FIELDS(pfc_fields),
};

static void
pfc_row(json_t *o, const struct rsw_qos_stats *s, int p, int tc)
{
	uint64_t storms, restores;
	int i;

	for (i = 0; i < RSW_N_PFC_CTRS; i++)
		json_object_set_new(o, rsw_pfc_ctr_name(i),
				    json_integer((json_int_t)rsw_cli_since(
					    s->pfc[p][tc][i], rsw_ctl.qos_base->pfc[p][tc][i])));
	rsw_pfcwd_counts((uint16_t)p, (uint8_t)tc, &storms, &restores);
	json_object_set_new(
		o, "pfcwd_storms",
		json_integer((json_int_t)rsw_cli_since(storms, rsw_cli.pfcwd_storms_base[p][tc])));
	json_object_set_new(o, "pfcwd_restores",
			    json_integer((json_int_t)rsw_cli_since(
				    restores, rsw_cli.pfcwd_restores_base[p][tc])));
	json_object_set_new(o, "paused",
			    json_boolean(__atomic_load_n(&rsw_qos.port[p].paused_until[tc],
							 __ATOMIC_RELAXED) > rte_rdtsc()));
	json_object_set_new(
		o, "storm",
		json_boolean(rsw_qos.port[p].storm_drop[tc] || rsw_qos.port[p].storm_ignore[tc]));
}

static json_t *
cmd_show_pfc(int argc, char **argv, void *ctx)
{
	(void)ctx;
	return rsw_cli_per_port_tc(&rsw_table_pfc, argc, argv, "priority", pfc_row);
}

static int
pfc_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show pfc", 0, 1, "[PORT]", "PFC counters per priority",
				cmd_show_pfc, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module pfc_cli_module = {
	.name = "cli.pfc",
	.order = RSW_CLI_MODULE_ORDER,
	.init = pfc_init,
};

RSW_MODULE_REGISTER(pfc_cli_module);
