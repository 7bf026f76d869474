/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * IPv6 Neighbor Discovery (nd.c, RFC 4861): NS/NA input and solicitation.
 */

#ifndef RSW_ND_H
#define RSW_ND_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_config.h"

/**
 * Handle an ICMPv6 NS or NA punted to the control thread (RSW_PUNT_ND, or a unicast one
 * among RSW_PUNT_LOCAL): validate (RFC 4861 §7.1), learn the sender, answer an NS for the
 * ingress port's address with an NA. Consumes m.
 */
void rsw_ctl_nd_input(struct rte_mbuf *m);

/**
 * Send an NS for target on port p from the port's IPv6 address: to target's
 * solicited-node group, or unicast to mac when given (re-probing a known entry).
 */
void rsw_ctl_nd_solicit(uint16_t p, const struct rsw_ip *target, const uint8_t *mac);

#endif /* RSW_ND_H */
