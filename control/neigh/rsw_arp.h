/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * ARP (arp.c, RFC 826): requests and replies received.
 */

#ifndef RSW_ARP_H
#define RSW_ARP_H

#include <rte_mbuf.h>

/**
 * Handle an ARP frame punted to the control thread (RSW_PUNT_ARP) on its ingress port: learn
 * the sender (an existing entry updated; one created when the frame is aimed at the switch),
 * answer a request for the port's address, or for another downlink's server on a topology
 * leaf (proxy ARP), in place. Consumes m.
 */
void rsw_ctl_arp_input(struct rte_mbuf *m);

#endif /* RSW_ARP_H */
