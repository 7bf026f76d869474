/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show buffer [PORT]` (docs/cli.md): the shared buffer (table `buffer`, one object)
 * and its priority groups (table `pgs`, one row per ingress (port, PG)).
 */

#include <errno.h>
#include <stdlib.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"
#include "rsw_ports.h"

static const struct rsw_field_def buffer_fields[] = {
	RSW_FIELD("total", GAUGE, "bytes", "the shared buffer's size (qos.buffer.total)"),
	RSW_FIELD("used", GAUGE, "bytes", "bytes of the shared buffer in use now"),
	RSW_FIELD("headroom_reserved", GAUGE, "bytes", "bytes reserved as PFC headroom"),
	RSW_FIELD("watermark", GAUGE, "bytes", "the highest use since start or `clear counters`"),
	RSW_FIELD("mbufs_in_use", GAUGE, "mbufs",
		  "mbufs out of the pool (rx descriptors, queues, in flight)"),
	RSW_FIELD("mbufs_total", GAUGE, "mbufs", "mbufs in the pool"),
};

const struct rsw_table_def rsw_table_buffer = {
	.command = "show buffer",
	.key = "buffer",
	.metric_prefix = "buffer_",
	.fields = buffer_fields,
	.n_fields = RSW_TABLE_N_FIELDS(buffer_fields),
};

static const struct rsw_field_def pg_fields[] = {
	RSW_LABEL("port", "port", "the ingress port"),
	RSW_LABEL("pg", "pg", "the priority group (= TC, 0-7)"),
	RSW_FIELD("bytes", GAUGE, "bytes", "buffer bytes the PG holds now"),
	RSW_FIELD("watermark", GAUGE, "bytes",
		  "the PG's highest use since start or `clear counters`"),
	RSW_FIELD("xoff_threshold", GAUGE, "bytes",
		  "the use at which the PG sends XOFF (0: lossy)"),
	RSW_FIELD("lossless_drops", COUNTER, "packets",
		  "dropped: lossless packets of this ingress PG found no buffer"),
	RSW_FIELD_F("lossless", STATE, "", "the PG is lossless (qos.lossless)",
		    RSW_FIELD_NO_METRIC),
};

const struct rsw_table_def rsw_table_pgs = {
	.command = "show buffer",
	.key = "pgs",
	.metric_prefix = "pg_",
	.fields = pg_fields,
	.n_fields = RSW_TABLE_N_FIELDS(pg_fields),
};

static json_t *
cmd_show_buffer(int argc, char **argv, void *ctx)
{
	const struct rsw_tables *t = rsw_fib_main.tables;
	json_t *pgs, *err = NULL, *buffer;
	struct rsw_qos_stats *s;
	int only = rsw_cli_port_filter(argc, argv, &err), p, tc;
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED);
	uint64_t mb_in_use, mb_total;
	uint64_t xoff = t ? rsw_pfc_xoff(&t->qos, used) : 0, wm;

	(void)ctx;
	if (only == -2)
		return err;
	s = rsw_cli_qos_now();
	if (s == NULL)
		return rsw_cmd_error("out of memory");
	pgs = json_array();
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		if (only >= 0 && only != p)
			continue;
		for (tc = 0; tc < RSW_N_TC; tc++) {
			bool lossless = rsw_ctl.cfg->qos.lossless & (1u << tc);

			json_array_append_new(
				pgs,
				rsw_row(&rsw_table_pgs,
					json_pack(
						"{s:s, s:i, s:I, s:I, s:I, s:I, s:b}", "port",
						rsw_ctl.cfg->ports[p].name, "pg", tc, "bytes",
						(json_int_t)__atomic_load_n(
							&rsw_qos.port[p].pg_bytes[tc],
							__ATOMIC_RELAXED),
						"watermark", (json_int_t)s->pg_watermark[p][tc],
						"xoff_threshold", (json_int_t)(lossless ? xoff : 0),
						"lossless_drops",
						(json_int_t)rsw_cli_since(
							s->pg_lossless_drops[p][tc],
							rsw_ctl.qos_base->pg_lossless_drops[p][tc]),
						"lossless", lossless)));
		}
	}
	wm = s->buf_watermark;
	free(s);
	rsw_pools_usage(&mb_in_use, &mb_total);
	/* Mempool use, every socket's pool (mbufs out of the pools: rx descriptors, queues, in flight; per-lcore
	 * caches count as free), so tests can check nothing leaks. */
	buffer = rsw_row(&rsw_table_buffer,
			 json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "total",
				   (json_int_t)(t ? t->qos.total : 0), "used", (json_int_t)used,
				   "headroom_reserved",
				   (json_int_t)(t ? t->qos.headroom_reserved : 0), "watermark",
				   (json_int_t)wm, "mbufs_in_use", (json_int_t)mb_in_use,
				   "mbufs_total", (json_int_t)mb_total));
	return json_pack("{s:o, s:o}", "buffer", buffer, "pgs", pgs);
}

static int
buffer_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show buffer", 0, 1, "[PORT]", "shared buffer occupancy",
				cmd_show_buffer, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module buffer_cli_module = {
	.name = "cli.buffer",
	.order = RSW_CLI_MODULE_ORDER,
	.init = buffer_init,
};

RSW_MODULE_REGISTER(buffer_cli_module);
