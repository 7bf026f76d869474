/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 5 of the packet path: pick a member of a next-hop group. Hash mode
 * hashes the configured fields (5-tuple, RoCE dest QP, UET entropy, IPv6 flow
 * label) with CRC32 or Toeplitz and indexes the group's fixed bucket table, so
 * a member change moves only that member's flows (resilient hashing).
 */

#ifndef RSW_LB_H
#define RSW_LB_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_fib.h"
#include "rsw_parse.h"

/**
 * Toeplitz key used when none is configured: the well-known Microsoft RSS key (40 bytes),
 * extended with its own first 12 bytes.
 */
extern const uint8_t rsw_lb_default_rss_key[RSW_RSS_KEY_LEN];

/**
 * Flow hash of one parsed IPv4/IPv6 packet under t's hash settings.
 * Symmetric mode gives both directions of a flow the same hash.
 */
uint32_t rsw_lb_hash(const struct rsw_tables *t, const struct rte_mbuf *m,
		     const struct rsw_pkt_info *info);

/** Member index of group g for a flow hash. */
static inline uint32_t
rsw_lb_pick_hash(const struct rsw_group *g, uint32_t hash)
{
	return g->buckets[(hash ^ (hash >> 8) ^ (hash >> 16) ^ (hash >> 24)) &
			  (RSW_LB_BUCKETS - 1)];
}

#endif /* RSW_LB_H */
