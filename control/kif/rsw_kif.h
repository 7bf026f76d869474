/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Kernel interfaces (control.kernel_interfaces, kif.c): one kernel TAP per port, made inside
 * the named network namespace, named as the port, with its MAC and addresses, its carrier
 * following the port's admin state and link. The control thread serves the TAP descriptors:
 * punt.c hands a port's TAP the frames railsw does not answer itself, and what the kernel
 * writes leaves by the paired port in kernel_interfaces.tc. Control thread only.
 */

#ifndef RSW_KIF_H
#define RSW_KIF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_defs.h"

/* The counters of a port's kernel interface, in the order of `show kif`. */
#define RSW_FOREACH_KIF_CTR(X)                                                                     \
	X(to_kernel)   /* frames written to the TAP */                                             \
	X(from_kernel) /* frames the kernel wrote, sent on the port */                             \
	X(filtered)    /* kernel frames not sent: PAUSE/PFC, answers railsw gives */               \
	X(errors)      /* short writes, reads that failed, no mbuf */

enum rsw_kif_ctr {
#define RSW_X_KIF_ENUM(name) RSW_KIF_##name,
	RSW_FOREACH_KIF_CTR(RSW_X_KIF_ENUM)
#undef RSW_X_KIF_ENUM
	RSW_N_KIF_CTRS
};

/** Whether the ports have kernel interfaces (the module is up). */
bool rsw_kif_enabled(void);

/**
 * Enter the kernel interfaces' namespace on this thread, for a socket that must live there
 * (the FPM listener). *saved gets what rsw_kif_netns_leave needs; without kernel interfaces
 * nothing changes (*saved = -1). @return 0 or -errno.
 */
int rsw_kif_netns_enter(int *saved);

/** Go back to the namespace rsw_kif_netns_enter left. */
void rsw_kif_netns_leave(int saved);

/**
 * Hand a copy of the frame m, received on port p, to p's kernel interface (m is not
 * consumed). Nothing happens without kernel interfaces.
 */
void rsw_kif_deliver(uint16_t p, const struct rte_mbuf *m);

/** The port whose kernel interface has ifindex ifindex (in the namespace), else -1. */
int rsw_kif_port_of_ifindex(int ifindex);

/**
 * A link-local neighbour on port p (an IPv6 link-local source seen in ND or an RA there), for
 * BGP unnumbered: ip NULL = the one heard last, else that address. Its address goes to
 * ip_out and its MAC to mac, where not NULL.
 * @return 0, or -ENOENT.
 */
int rsw_kif_ll_neighbor(uint16_t p, const uint8_t *ip, uint8_t *ip_out, uint8_t *mac);

/** Port p's counters since start into c (zeroes without kernel interfaces). */
void rsw_kif_counters(uint16_t p, uint64_t c[RSW_N_KIF_CTRS]);

/**
 * How many link-local neighbours were heard for the first time on their port so far (a new
 * address in a port's rsw_kif_ll_neighbor list): when it grows, a table build may resolve
 * next hops over that port that had none (fpm.c checks it every poll).
 */
uint64_t rsw_kif_ll_heard(void);

/**
 * `show kif`: [{"port","ifname","ifindex","carrier",...}], a row per port (ifname "" without
 * kernel interfaces); the counters since the last `clear counters` (rsw_ctl.kif_base).
 */
json_t *rsw_kif_json(void);

#endif /* RSW_KIF_H */
