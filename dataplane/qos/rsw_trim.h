/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * UEC packet trimming (docs/congestion.md; trim.c): what admission does with a frame of a
 * trim-eligible class that would be dropped.
 */

#ifndef RSW_TRIM_H
#define RSW_TRIM_H

#include <stdint.h>

#include <rte_mbuf.h>

/**
 * UEC trimming: cut a UDP packet to size bytes from the destination MAC (FCS excluded), write
 * DSCP dscp keeping the ECN bits, fix the IP and UDP lengths and checksums (IPv4 UDP checksum
 * 0, IPv6 recomputed). info describes the packet as parsed.
 * @return the new length, or 0 when the packet cannot be trimmed (not UDP, a fragment, or
 *   not longer than the floor: L2 header with tags + IP header + 24 bytes).
 */
uint32_t rsw_trim(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind, uint16_t size, uint8_t dscp);

/** The smallest a trimmed frame may be: L2 with tags + IP header + UDP + UET PDS (24). */
uint32_t rsw_trim_floor(const struct rte_mbuf *m, uint16_t l3_off, uint8_t kind);

#endif /* RSW_TRIM_H */
