/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Routes from FRR zebra over FPM (fpm.c, docs/routing.md): a TCP listener on
 * control.fpm.listen that takes one zebra (dplane_fpm_nl) at a time, parses its stream
 * (rsw_fpm_parse.h), keeps its routes in a RIB and makes them a route source of the tables
 * (rsw_tables_ctl.h). Changes are batched: at most one new table generation every
 * RSW_FPM_BATCH_MS. After a reconnect, the routes zebra has not sent again within stale_s
 * seconds of its last message are dropped (FRR 8.4 sends no end-of-replay marker).
 *
 * Thread-safety: control thread only (a module polled from the control loop).
 */

#ifndef RSW_FPM_H
#define RSW_FPM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "rsw_config.h"

#define RSW_FPM_BATCH_MS 50 /* route changes reach the workers at most this often */

/* `show fpm` counters (since start). */
struct rsw_fpm_stats {
	bool listening;          /* the listener is open */
	bool connected;          /* a zebra is connected */
	uint64_t connects;       /* sessions accepted */
	uint64_t messages;       /* netlink messages received */
	uint64_t routes_added;   /* route adds and replaces taken */
	uint64_t routes_deleted; /* route deletes taken, stale routes dropped included */
	uint64_t errors;         /* bad frames or messages, routes that could not be taken */
	uint64_t generations;    /* table generations built for FPM changes */
	uint64_t stale_dropped;  /* routes dropped by the stale timer */
	char last_error[160];    /* the last error's reason, "" if none */
};

/**
 * Open the listener of cfg->control (nothing when fpm: is not configured).
 * @return 0, or -errno (the address cannot be parsed or bound).
 */
int rsw_fpm_open(const struct rsw_config *cfg);

/**
 * Accept, read and apply what zebra sent, drop stale routes, build a generation if due.
 * @return the messages handled (0: nothing came).
 */
unsigned int rsw_fpm_poll(uint64_t now_ms);

/** Close the listener and the session; the routes are forgotten. */
void rsw_fpm_close(void);

/** `clear counters`: zero the counters (control-thread counters, no baseline needed). */
void rsw_fpm_counters_clear(void);

/** The counters. */
const struct rsw_fpm_stats *rsw_fpm_stats(void);

/** `show fpm`: {"fpm":{"listen","connected","messages","routes_added",...}}. */
json_t *rsw_fpm_json(void);

#endif /* RSW_FPM_H */
