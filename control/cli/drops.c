/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show drops` (../shared/CLI.md): every drop reason switch-wide: the port counters marked
 * drop in rsw_stats.h, then the buffer's, summed over every (port, TC) queue: `queue_drops`
 * (tail drops, ECN drops of Not-ECT frames, full trim queue, watchdog drops: the queues'
 * dropped_packets) and `lossless_drops`.
 */

#include <errno.h>
#include <stdlib.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"

static const struct rsw_field_def drop_fields[] = {
	RSW_LABEL("reason", "reason", "the drop reason: a drop counter's name"),
	RSW_FIELD("packets", COUNTER, "packets", "packets dropped for the reason, switch-wide"),
};

const struct rsw_table_def rsw_table_drops = {
	.command = "show drops",
	.key = "drops",
	.metric_prefix = "drop_",
	.fields = drop_fields,
	.n_fields = RSW_TABLE_N_FIELDS(drop_fields),
};

static json_t *
cmd_show_drops(int argc, char **argv, void *ctx)
{
	uint64_t total[RSW_N_PORT_CTRS] = {0}, c[RSW_N_PORT_CTRS], queue = 0, lossless = 0;
	struct rsw_qos_stats *q = rsw_cli_qos_now();
	json_t *arr = json_array();
	uint16_t p;
	int i, tc;

	(void)argc;
	(void)argv;
	(void)ctx;
	if (q == NULL) {
		json_decref(arr);
		return NULL;
	}
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		rsw_stats_port_sum(p, c);
		for (i = 0; i < RSW_N_PORT_CTRS; i++)
			total[i] += rsw_cli_since(c[i], rsw_ctl.port_base[p][i]);
		for (tc = 0; tc < RSW_N_TC; tc++) {
			queue += rsw_cli_since(q->q[p][tc][RSW_QC_dropped_packets],
					       rsw_ctl.qos_base->q[p][tc][RSW_QC_dropped_packets]);
			lossless +=
				rsw_cli_since(q->q[p][tc][RSW_QC_lossless_drops],
					      rsw_ctl.qos_base->q[p][tc][RSW_QC_lossless_drops]);
		}
	}
	free(q);
	for (i = 0; i < RSW_N_PORT_CTRS; i++)
		if (rsw_port_ctr_is_drop(i))
			json_array_append_new(
				arr, rsw_row(&rsw_table_drops,
					     json_pack("{s:s, s:I}", "reason", rsw_port_ctr_name(i),
						       "packets", (json_int_t)total[i])));
	json_array_append_new(
		arr, rsw_row(&rsw_table_drops, json_pack("{s:s, s:I}", "reason", "queue_drops",
							 "packets", (json_int_t)queue)));
	json_array_append_new(
		arr, rsw_row(&rsw_table_drops, json_pack("{s:s, s:I}", "reason", "lossless_drops",
							 "packets", (json_int_t)lossless)));
	return json_pack("{s:o}", "drops", arr);
}

static int
drops_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show drops", 0, 0, "", "every drop reason, switch-wide",
				cmd_show_drops, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module drops_cli_module = {
	.name = "cli.drops",
	.order = RSW_CLI_MODULE_ORDER,
	.init = drops_init,
};

RSW_MODULE_REGISTER(drops_cli_module);
