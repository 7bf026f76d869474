/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * IPv6 Neighbor Discovery (nd.c, RFC 4861): NS and NA received.
 */

#ifndef RSW_ND_H
#define RSW_ND_H

#include <rte_mbuf.h>

/**
 * Handle an ICMPv6 NS or NA punted to the control thread (RSW_PUNT_ND, or a unicast one
 * among RSW_PUNT_LOCAL): validate (RFC 4861 §7.1), learn the sender, answer an NS for the
 * ingress port's address with an NA. Consumes m.
 */
void rsw_ctl_nd_input(struct rte_mbuf *m);

#endif /* RSW_ND_H */
