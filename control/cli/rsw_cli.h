/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the command files of control/cli/ share (common.c): argument checks, `clear
 * counters` baselines, the (port, TC) table builder. One file per noun (ports.c, queues.c,
 * pfc.c, buffer.c, drops.c, lb.c, routes.c, neighbors.c, topology.c, config.c, clear.c,
 * describe.c) registers its own commands as a module (rsw_module.h).
 *
 * Thread-safety: control thread only.
 */

#ifndef RSW_CLI_H
#define RSW_CLI_H

#include <jansson.h>
#include <stdint.h>

#include "rsw_cmd.h"
#include "rsw_config.h"
#include "rsw_qos.h"
#include "rsw_table.h"

/* Module order of the command files: after the state they read, in any order among them. */
#define RSW_CLI_MODULE_ORDER 500

/* The cli area's own state. The port, LB and QoS baselines live in rsw_ctl (reload.c resets
 * the LB ones). */
struct rsw_cli_main {
	/* The watchdog's storms and restores of each (port, TC) at the last `clear counters`. */
	uint64_t pfcwd_storms_base[RSW_MAX_PORTS][RSW_N_TC];
	uint64_t pfcwd_restores_base[RSW_MAX_PORTS][RSW_N_TC];
};

extern struct rsw_cli_main rsw_cli;

/** now - base, or 0 if a counter went back (a port restarted). */
static inline uint64_t
rsw_cli_since(uint64_t now, uint64_t base)
{
	return now >= base ? now - base : 0;
}

/** The index of the port named name, or -1. */
int rsw_cli_port_arg(const char *name);

/** The port named by an optional argument: -1 = all, -2 = unknown (*err set). */
int rsw_cli_port_filter(int argc, char **argv, json_t **err);

/**
 * The reply {key: [row(p), ...]} of a `show NOUN [PORT]` command: a row per port, or the one
 * port argv[0] names. @return the reply, or {"error"} for an unknown port.
 */
json_t *rsw_cli_port_rows(int argc, char **argv, const char *key, json_t *(*row)(uint16_t p));

/** `clear counters` of `show punt` (punt.c): takes the baseline. */
void rsw_cli_punt_clear(void);

/** The PMD's rx misses of port p (0 when the PMD cannot tell). */
uint64_t rsw_cli_port_missed(uint16_t p);

/** The QoS counters summed now (malloc'd; NULL when out of memory). */
struct rsw_qos_stats *rsw_cli_qos_now(void);

/** The name of a route's or group's mode (RSW_LB_UNSET: the configured default). */
const char *rsw_cli_route_mode(int lb);

/** Fills the fields of the row of one (port, TC) of a per-queue table. */
typedef void(rsw_cli_tc_row_fn)(json_t *o, const struct rsw_qos_stats *s, int p, int tc);

/**
 * The reply of a table with one row per (port, TC): {t->key: [{"port", tc_key, ...,
 * "lossless"}]}, for every port or the one argv names.
 */
json_t *rsw_cli_per_port_tc(const struct rsw_table_def *t, int argc, char **argv,
			    const char *tc_key, rsw_cli_tc_row_fn *row);

/** `clear counters`: take the baselines of the `show drops` totals that rsw_ctl lacks. */
void rsw_cli_drops_clear(void);
/** `clear counters`: the LLR counters' baseline (llr.c). */
void rsw_cli_llr_clear(void);
/** `clear counters`: the CBFC counters' baseline (cbfc.c). */
void rsw_cli_cbfc_clear(void);

/** `clear counters` of `show workers` (workers.c): takes the baseline. */
void rsw_cli_workers_clear(void);

/** `port NAME impair ...` (llr.c): argv[0] NAME, argv[1] "impair", then the words. */
json_t *rsw_cli_port_impair(int argc, char **argv);

/** Allocate the baselines the commands read (the first cli module's init). */
int rsw_cli_state_init(void);

#endif /* RSW_CLI_H */
