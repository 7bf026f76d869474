/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * A worker's own load-balancing state (round-robin positions, flowlet table),
 * kept in its per-lcore slot (rsw_stats.h). Apart from rsw_lb.h so the stats
 * header needs no parser or table types.
 */

#ifndef RSW_LB_STATE_H
#define RSW_LB_STATE_H

#include <stdint.h>

#include "rsw_defs.h"

#define RSW_FLOWLET_ENTRIES 4096 /* per lcore, direct-mapped: never grows */
#define RSW_LB_NONE         UINT32_MAX

/* One flowlet: the member a flow took and when it was last seen. */
struct rsw_flowlet {
	uint32_t tag;   /* flow hash */
	uint16_t group; /* group id */
	uint8_t member;
	uint8_t valid;
	uint64_t last; /* TSC */
};

#define RSW_CNP_COALESCE_ENTRIES 1024 /* per lcore, direct-mapped */

/* The last CNP forwarded for a (destination IP, dest QP) (qos.cnp.coalesce_us). */
struct rsw_cnp_seen {
	uint32_t key;
	uint32_t valid;
	uint64_t last; /* TSC */
};

/* A worker's own load-balancing state (written by that lcore only). */
struct rsw_lb_lcore {
	uint32_t rr[RSW_MAX_GROUPS]; /* round-robin position per group */
	struct rsw_flowlet flowlet[RSW_FLOWLET_ENTRIES];
	struct rsw_cnp_seen cnp[RSW_CNP_COALESCE_ENTRIES];
};

#endif /* RSW_LB_STATE_H */
