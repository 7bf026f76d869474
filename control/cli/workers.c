/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show workers` (docs/cli.md): one row per worker lcore, since the last `clear
 * counters`: the (port, queue) pairs it polls, the frames it received (its rx bursts) and
 * sent (rte_eth_tx_burst on any port: the port tx_packets counters of its slot), the frames it
 * queued for another sender (handed_off: enqueued on a (port, TC) queue of a port whose
 * scheduler another lcore runs, less those it sent straight on its own tx queue of the port), its rx bursts that returned frames, and the share of the
 * turns of its loop that found work (busy_pct; loops and busy_loops are the two counts, for
 * rates over an interval such as `railctl top`'s).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"

static const struct rsw_field_def worker_fields[] = {
	RSW_LABEL("worker", "worker", "the worker's index (0 .. workers - 1)"),
	RSW_LABEL("lcore", "lcore", "its EAL lcore id"),
	RSW_LABEL("rx_queues", NULL, "the (port, rx queue) pairs it polls, \"PORT:QUEUE\""),
	RSW_FIELD("rx_packets", COUNTER, "packets", "frames its rx bursts returned"),
	RSW_FIELD("tx_packets", COUNTER, "packets",
		  "frames it handed to a PMD (rte_eth_tx_burst), on any port"),
	RSW_FIELD("handed_off", COUNTER, "packets",
		  "frames it queued for another sender: on a port whose scheduler another lcore "
		  "runs"),
	RSW_FIELD("bursts", COUNTER, "bursts", "rx bursts that returned frames"),
	RSW_FIELD("busy_pct", GAUGE, "percent",
		  "turns of its loop that found work, in whole percent of its turns (since start "
		  "or `clear counters`)"),
	RSW_FIELD("loops", COUNTER, "loops", "turns of its loop"),
	RSW_FIELD("busy_loops", COUNTER, "loops", "turns of its loop that found work"),
};

const struct rsw_table_def rsw_table_workers = {
	.command = "show workers",
	.key = "workers",
	.metric_prefix = "worker_",
	.fields = worker_fields,
	.n_fields = RSW_TABLE_N_FIELDS(worker_fields),
};

/* The columns of a row that are counters: the worker's own, then the two summed ones. */
enum {
	WK_TX = RSW_N_WORKER_CTRS,
	WK_HANDED,
	WK_N
};

/* `clear counters` baselines, per worker index. */
static uint64_t wk_base[RTE_MAX_LCORE][WK_N];

/* Worker i's counters now: its loop's, its tx_packets and its handed-off frames. */
static void
worker_now(unsigned int i, uint64_t v[WK_N])
{
	const struct rsw_worker *w = &rsw_ctl.workers[i];
	const struct rsw_lcore_stats *st = rsw_stats[w->lcore];
	uint16_t p, owner;
	unsigned int k, tc;

	memset(v, 0, sizeof(uint64_t) * WK_N);
	if (st == NULL)
		return;
	for (k = 0; k < RSW_N_WORKER_CTRS; k++)
		v[k] = __atomic_load_n(&st->wk.c[k], __ATOMIC_RELAXED);
	for (p = 0; p < rsw_dp.n_ports; p++) {
		v[WK_TX] += __atomic_load_n(&st->port[p].c[RSW_PC_tx_packets], __ATOMIC_RELAXED);
		owner = __atomic_load_n(&rsw_dp.ports[p].owner, __ATOMIC_RELAXED);
		if (owner == w->lcore)
			continue;
		/* A worker that is not the port's owner counts a frame it sent straight on its
		 * own tx queue enqueued and dequeued at once, and one it queued for the owner
		 * enqueued only (the owner counts it dequeued): the difference is handed off. */
		for (tc = 0; tc < RSW_N_TC; tc++)
			v[WK_HANDED] += __atomic_load_n(&st->qos.q[p][tc][RSW_QC_enqueued_packets],
							__ATOMIC_RELAXED) -
					__atomic_load_n(&st->qos.q[p][tc][RSW_QC_dequeued_packets],
							__ATOMIC_RELAXED);
	}
}

void
rsw_cli_workers_clear(void)
{
	unsigned int i;

	for (i = 0; i < rsw_ctl.n_workers && i < RTE_MAX_LCORE; i++)
		worker_now(i, wk_base[i]);
}

static json_t *
rx_queues(const struct rsw_worker *w)
{
	json_t *a = json_array();
	char buf[RSW_NAME_LEN + 8];
	uint16_t i;

	for (i = 0; a != NULL && i < w->n_rxq; i++) {
		snprintf(buf, sizeof(buf), "%s:%u", rsw_ctl.cfg->ports[w->rxq[i].port].name,
			 w->rxq[i].queue);
		json_array_append_new(a, json_string(buf));
	}
	return a;
}

static json_t *
worker_row(unsigned int i)
{
	const struct rsw_worker *w = &rsw_ctl.workers[i];
	uint64_t now[WK_N], v[WK_N], busy;
	unsigned int k;

	worker_now(i, now);
	for (k = 0; k < WK_N; k++)
		v[k] = rsw_cli_since(now[k], wk_base[i][k]);
	/* busy_pct: whole percent, rounded (0 before the first loop) */
	busy = v[RSW_WK_loops] != 0
		       ? (v[RSW_WK_busy_loops] * 100 + v[RSW_WK_loops] / 2) / v[RSW_WK_loops]
		       : 0;
	return rsw_row(&rsw_table_workers,
		       json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "worker",
				 (json_int_t)i, "lcore", (json_int_t)w->lcore, "rx_queues",
				 rx_queues(w), "rx_packets", (json_int_t)v[RSW_WK_rx_packets],
				 "tx_packets", (json_int_t)v[WK_TX], "handed_off",
				 (json_int_t)v[WK_HANDED], "bursts", (json_int_t)v[RSW_WK_bursts],
				 "busy_pct", (json_int_t)busy, "loops", (json_int_t)v[RSW_WK_loops],
				 "busy_loops", (json_int_t)v[RSW_WK_busy_loops]));
}

static json_t *
cmd_show_workers(int argc, char **argv, void *ctx)
{
	json_t *rows = json_array();
	unsigned int i;

	(void)argc;
	(void)argv;
	(void)ctx;
	if (rows == NULL)
		return NULL;
	for (i = 0; i < rsw_ctl.n_workers && i < RTE_MAX_LCORE; i++)
		json_array_append_new(rows, worker_row(i));
	return json_pack("{s:o}", "workers", rows);
}

static int
workers_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show workers", 0, 0, "",
				"per worker: its rx queues, frames received, sent and handed off, "
				"busy %",
				cmd_show_workers, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module workers_cli_module = {
	.name = "cli.workers",
	.order = RSW_CLI_MODULE_ORDER,
	.init = workers_init,
};

RSW_MODULE_REGISTER(workers_cli_module);
