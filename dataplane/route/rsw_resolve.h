/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 4-6 of the packet path (DESIGN.md §3) after the bulk lookup: what a
 * FIB result means for each frame (local, connected, a route or a group, no
 * route), load balancing over a group, the egress MTU and admin state, the
 * neighbour, the rewrite, then admission (rsw_mmu.h). Frames the control thread
 * must see (local, unresolved, TTL, ICMP errors) are punted with metadata.
 */

#ifndef RSW_RESOLVE_H
#define RSW_RESOLVE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_burst.h"
#include "rsw_fib.h"
#include "rsw_parse.h"

/**
 * Hand a packet to the control thread (it is counted as punted by the caller). Out of line:
 * inline, the compiler prepared its metadata words on the forwarding path of every packet.
 */
void rsw_punt_meta(struct rte_mbuf *m, const struct rsw_pkt_info *info, uint16_t in_port,
		   uint8_t reason, uint32_t neigh, uint16_t out_port);

/**
 * Resolve, rewrite and stage the frames of one family f (kind: RSW_PK_IPV4 or RSW_PK_IPV6)
 * looked up together (f->nh). Drops are counted and gathered in c->freed, punts in c->punt
 * and c->err, the frames to forward staged on their egress ports (c->stage). A frame to punt
 * gets its parse record made first (rsw_burst_record).
 */
void rsw_resolve_burst(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
		       uint16_t in_port, const struct rsw_fam *f, uint8_t kind);

#endif /* RSW_RESOLVE_H */
