/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show queues [PORT]` (docs/cli.md): one row per (port, TC), counters from the
 * X-macros of rsw_qos.h.
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"

static const struct rsw_field_def queue_fields[] = {
	RSW_LABEL("port", "port", "the egress port"),
	RSW_LABEL("tc", "tc", "the traffic class (0-7)"),
	RSW_FOREACH_QUEUE_TRAFFIC_CTR(RSW_FIELD_OF_CTR)
		RSW_FIELD("depth_bytes", GAUGE, "bytes", "bytes in the queue now"),
	RSW_FIELD("watermark_bytes", GAUGE, "bytes",
		  "the queue's highest depth since start or `clear counters`"),
	RSW_FOREACH_QUEUE_DROP_CTR(RSW_FIELD_OF_CTR)
		RSW_FIELD("lossless", STATE, "", "the TC is lossless (qos.lossless)"),
};

const struct rsw_table_def rsw_table_queues = {
	.command = "show queues",
	.key = "queues",
	.metric_prefix = "",
	.fields = queue_fields,
	.n_fields = RSW_TABLE_N_FIELDS(queue_fields),
};

static void
queue_row(json_t *o, const struct rsw_qos_stats *s, int p, int tc)
{
	int i;

	for (i = 0; i < RSW_N_QUEUE_CTRS; i++)
		json_object_set_new(o, rsw_queue_ctr_name(i),
				    json_integer((json_int_t)rsw_cli_since(
					    s->q[p][tc][i], rsw_ctl.qos_base->q[p][tc][i])));
	json_object_set_new(o, "depth_bytes",
			    json_integer((json_int_t)__atomic_load_n(&rsw_qos.port[p].q_bytes[tc],
								     __ATOMIC_RELAXED)));
	json_object_set_new(o, "watermark_bytes", json_integer((json_int_t)s->q_watermark[p][tc]));
}

static json_t *
cmd_show_queues(int argc, char **argv, void *ctx)
{
	(void)ctx;
	return rsw_cli_per_port_tc(&rsw_table_queues, argc, argv, "tc", queue_row);
}

static int
queues_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show queues", 0, 1, "[PORT]", "per (port, TC) queue counters",
				cmd_show_queues, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module queues_cli_module = {
	.name = "cli.queues",
	.order = RSW_CLI_MODULE_ORDER,
	.init = queues_init,
};

RSW_MODULE_REGISTER(queues_cli_module);
