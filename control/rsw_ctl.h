/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the control modules share (docs/architecture.md): the running configuration,
 * the mbuf pool, the workers, the tables generation and the `clear counters`
 * baselines. Each module keeps the rest of its state to itself. Only the control
 * thread (EAL main lcore) touches anything declared here.
 */

#ifndef RSW_CTL_H
#define RSW_CTL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "rsw_config.h"
#include "rsw_fib.h"
#include "rsw_kif.h"
#include "rsw_stats.h"
#include "rsw_worker.h"

struct rsw_ctl_main {
	struct rsw_config *cfg;                             /* the running configuration */
	struct rte_mempool *pool;                           /* every mbuf of the switch */
	unsigned int n_workers;                             /* worker lcores */
	struct rsw_worker workers[RTE_MAX_LCORE];           /* [n_workers] */
	uint64_t generation;                                /* tables generation */
	uint64_t port_base[RSW_MAX_PORTS][RSW_N_PORT_CTRS]; /* `clear counters` baselines */
	uint64_t missed_base[RSW_MAX_PORTS];
	struct rsw_lb_member_stats (*lb_base)[RSW_MAX_NEXTHOPS]; /* [RSW_MAX_GROUPS] */
	struct rsw_qos_stats *qos_base; /* `clear counters` baselines of QoS counters */
	uint64_t kif_base[RSW_MAX_PORTS][RSW_N_KIF_CTRS]; /* and of the kernel interfaces' */
};

extern struct rsw_ctl_main rsw_ctl;

#define RSW_MAC_STR_LEN 18

/** "02:00:00:00:00:01" (lowercase) into buf[RSW_MAC_STR_LEN]. Returns buf. */
static inline const char *
rsw_mac_str(const uint8_t *mac, char *buf)
{
	snprintf(buf, RSW_MAC_STR_LEN, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
		 mac[3], mac[4], mac[5]);
	return buf;
}

#endif /* RSW_CTL_H */
