/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 3 of the packet path (docs/architecture.md, docs/congestion.md): the traffic class
 * of a frame (DSCP or PCP map, CNPs to qos.cnp.tc) and CNP coalescing (classify.c).
 */

#ifndef RSW_CLASSIFY_H
#define RSW_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "rsw_fib.h"
#include "rsw_lb_state.h"
#include "rsw_parse.h"

/**
 * Step 3: the traffic class of a parsed IP packet: qos.cnp.tc for a CNP when CNP handling is
 * configured, else the PCP or DSCP map of the generation (qos.trust).
 */
static inline uint8_t
rsw_classify(const struct rsw_tables *t, const struct rsw_pkt_info *info)
{
	if (unlikely(info->flags & RSW_PF_CNP) && t->qos.cnp_enabled)
		return t->qos.cnp_tc; /* whatever its DSCP */
	if (t->trust == RSW_TRUST_PCP)
		return info->n_vlan ? t->pcp_to_tc[info->pcp] : t->default_tc;
	return t->dscp_to_tc[info->dscp];
}

/**
 * qos.cnp.coalesce_us: whether a CNP to the same (destination IP, dest QP) was forwarded less
 * than the interval before now (TSC), in which case this one is not. Records this one
 * otherwise. ls is the calling lcore's own state.
 */
bool rsw_cnp_coalesced(const struct rsw_tables *t, struct rsw_lb_lcore *ls,
		       const struct rte_mbuf *m, const struct rsw_pkt_info *info, uint64_t now);

#endif /* RSW_CLASSIFY_H */
