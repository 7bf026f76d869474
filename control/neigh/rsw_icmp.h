/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * ICMP and ICMPv6 of the control thread (icmp.c): echo replies, errors, `show icmp`.
 */

#ifndef RSW_ICMP_H
#define RSW_ICMP_H

#include <stdint.h>

#include <rte_mbuf.h>

/* Control-thread ICMP and ND counters of `show icmp`: X(name, kind, unit, help), names as in
 * the JSON. */
#define RSW_FOREACH_ICMP_CTR(X)                                                                    \
	X(echo_replies, COUNTER, "packets", "ICMP and ICMPv6 echo replies sent")                   \
	X(time_exceeded, COUNTER, "packets", "ICMP type 11 / ICMPv6 type 3 sent")                  \
	X(unreachable, COUNTER, "packets", "ICMP net unreachable / ICMPv6 no route sent")          \
	X(too_big, COUNTER, "packets", "ICMP fragmentation needed / ICMPv6 packet too big sent")   \
	X(rate_limited, COUNTER, "packets", "errors not sent: the token bucket was empty")         \
	X(suppressed, COUNTER, "packets",                                                          \
	  "errors not sent: about an ICMP error, multicast, no source address")                    \
	X(nd_ns_rx, COUNTER, "packets", "valid NS for one of the switch's addresses")              \
	X(nd_na_rx, COUNTER, "packets", "valid NA received")                                       \
	X(nd_na_tx, COUNTER, "packets", "NA sent")                                                 \
	X(nd_ns_tx, COUNTER, "packets", "NS sent (resolution)")                                    \
	X(nd_invalid, COUNTER, "packets", "NS/NA failing RFC 4861 section 7.1 validation")

enum rsw_icmp_ctr {
#define RSW_ICMP_CTR_ENUM(n, ...) RSW_IC_##n,
	RSW_FOREACH_ICMP_CTR(RSW_ICMP_CTR_ENUM)
#undef RSW_ICMP_CTR_ENUM
	RSW_N_ICMP_CTRS
};

/* Written and read by the control thread only; defined in neigh.c, the area's bottom. */
extern uint64_t rsw_icmp_ctrs[RSW_N_ICMP_CTRS];

/**
 * Handle a packet addressed to the switch (RSW_PUNT_LOCAL) other than a unicast NS/NA
 * (punt.c gives those to rsw_ctl_nd_input): answer ICMP and ICMPv6 echo requests; the rest
 * is consumed. Consumes m.
 */
void rsw_ctl_icmp_local(struct rte_mbuf *m);

/**
 * Answer a packet the worker did not forward (RSW_PUNT_TTL, RSW_PUNT_NO_ROUTE,
 * RSW_PUNT_MTU) with an ICMP or ICMPv6 error back out of its ingress port, rate-limited to
 * switch.icmp_unreachable.rate_pps. Consumes m.
 */
void rsw_ctl_icmp_error(struct rte_mbuf *m);

/** Zero the `show icmp` counters (for `clear counters`). */
void rsw_ctl_icmp_counters_clear(void);

/** Register `show icmp`. @return 0 or -errno. */
int rsw_ctl_icmp_commands_register(void);

#endif /* RSW_ICMP_H */
