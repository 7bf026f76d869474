/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Punt classification and policing in the worker (control-plane policing, as SONiC's CoPP):
 * every frame a worker hands to the control thread is put in a class (arp, nd, icmp, bgp,
 * bfd, lldp, other, unresolved), counted, and policed by its class's token bucket before it
 * reaches the punt ring, so that a storm of one class (a SYN flood, an ARP storm) cannot
 * starve another (BGP keepalives). The rates are per worker lcore: the defaults below, or
 * what control.kernel_interfaces.punt sets (struct rsw_punt_rates, filled by the control).
 *
 * Thread-safety: the control thread fills a struct rsw_punt_cfg and publishes it by swapping
 * rsw_punt_cur (before workers start, and on `reload`: rsw_punt_set_rates); a worker loads the
 * pointer once per call. Each lcore writes only its own slot of rsw_punt_lc; the control
 * thread reads and sums them.
 */

#ifndef RSW_PUNT_DP_H
#define RSW_PUNT_DP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rsw_defs.h"
#include "rsw_stats.h"

/*
 * The punt classes, in the order of `show punt`: X(name, pps, burst). pps is the default rate
 * of each worker's policer, burst the frames it lets through at once after an idle time
 * (control.kernel_interfaces.punt changes them).
 * unresolved: routed packets held while their next hop is resolved.
 */
#define RSW_FOREACH_PUNT_CLASS(X)                                                                  \
	X(arp, 2000, 400)                                                                          \
	X(nd, 2000, 400)                                                                           \
	X(icmp, 1000, 200)                                                                         \
	X(bgp, 10000, 1000)                                                                        \
	X(bfd, 5000, 500)                                                                          \
	X(lldp, 200, 50)                                                                           \
	X(other, 1000, 200)                                                                        \
	X(unresolved, 5000, 500)

enum rsw_punt_class {
#define RSW_X_PUNT_ENUM(name, ...) RSW_PUNT_C_##name,
	RSW_FOREACH_PUNT_CLASS(RSW_X_PUNT_ENUM)
#undef RSW_X_PUNT_ENUM
	RSW_N_PUNT_CLASSES
};

/* Counters of one class on one lcore. */
enum rsw_punt_ctr {
	RSW_PUNT_packets, /* frames put on the punt ring */
	RSW_PUNT_bytes,   /* their bytes */
	RSW_PUNT_policed, /* frames over the class's rate, dropped (punt_policed) */
	RSW_N_PUNT_CTRS
};

#define RSW_PUNT_MAX_PEERS 64

/* The policers' parameters, per class: what the control fills from its configuration. */
struct rsw_punt_rates {
	uint32_t pps[RSW_N_PUNT_CLASSES];   /* frames per second per worker; 0: drop every frame */
	uint32_t burst[RSW_N_PUNT_CLASSES]; /* frames let through at once (0 is taken as 1) */
};

/* A cost that no bucket pays: the class's rate is 0, every frame is policed. */
#define RSW_PUNT_COST_DROP UINT64_MAX

/* What the workers read (rsw_punt_cur): set by rsw_punt_configure and rsw_punt_set_rates. */
struct rsw_punt_cfg {
	uint64_t cost[RSW_N_PUNT_CLASSES];  /* TSC cycles per frame: hz / pps, or COST_DROP */
	uint64_t burst[RSW_N_PUNT_CLASSES]; /* cycles of credit a bucket holds: cost × burst */
	uint32_t epoch;                     /* bumped by each rsw_punt_set_rates: buckets refill */
	uint16_t n_peers;                   /* 0: every TCP frame to or from port 179 is bgp */
	struct rsw_ip peers[RSW_PUNT_MAX_PEERS]; /* sources of class bgp */
	bool kernel;                 /* kernel interfaces: LLDP is punted, not dropped */
	uint64_t hz;                 /* TSC cycles per second */
	struct rsw_punt_rates rates; /* the rates cost and burst come from */
};

/* The parameters in force; workers load it once per rsw_punt_enqueue. */
extern struct rsw_punt_cfg *rsw_punt_cur;

/* One lcore's policers and counters. */
struct __rte_cache_aligned rsw_punt_lcore {
	uint64_t tat[RSW_N_PUNT_CLASSES]; /* theoretical arrival time of the next frame (GCRA) */
	uint32_t epoch;                   /* rsw_punt_cur->epoch the buckets were filled for */
	uint64_t c[RSW_N_PUNT_CLASSES][RSW_N_PUNT_CTRS];
};

/* One slot per lcore, and a last one for threads that are not EAL lcores. */
extern struct rsw_punt_lcore rsw_punt_lc[RTE_MAX_LCORE + 1];

/** Name of a punt class as `show punt` spells it ("arp", ...). */
const char *rsw_punt_class_name(enum rsw_punt_class c);

/**
 * Set the policers from rates in frames per second (pps[c] 0 = every frame of c policed;
 * NULL = the defaults), burst sizes (NULL = the defaults) and a TSC of hz cycles per second;
 * peers[n] are the sources of class bgp. Zeroes every counter. Control thread, before
 * workers start.
 */
void rsw_punt_configure(const uint32_t *pps, const uint32_t *burst, uint64_t hz,
			const struct rsw_ip *peers, uint16_t n_peers, bool kernel);

/** The defaults of RSW_FOREACH_PUNT_CLASS into r. */
void rsw_punt_rates_default(struct rsw_punt_rates *r);

/** The rates in force into r. */
void rsw_punt_rates_get(struct rsw_punt_rates *r);

/**
 * Publish new rates while workers run (`reload`): a copy of the parameters in force with r's
 * rates goes in the spare slot and rsw_punt_cur points to it; each lcore refills its buckets
 * at its next burst. Counters keep counting. Control thread; before the next call the caller
 * waits until every worker has passed a quiescent state (the old slot is then unused).
 */
void rsw_punt_set_rates(const struct rsw_punt_rates *r);

/**
 * The class of a frame a worker punts (its rsw_mbuf_meta filled: kind, reason, l3_off).
 */
enum rsw_punt_class rsw_punt_classify(const struct rte_mbuf *m);

/**
 * Classify, police, count and enqueue n punted frames received on in_port to rsw_dp.punt, at
 * TSC time now: policed frames are dropped as punt_policed, those the ring cannot take as
 * punt_dropped; the rest count as punted. LLDP frames are dropped as l2_control when the ports
 * have no kernel interfaces.
 */
void rsw_punt_enqueue(struct rsw_lcore_stats *st, uint16_t in_port, struct rte_mbuf **pkts,
		      uint16_t n, uint64_t now);

/** Sum of counter k of class c over every lcore (control thread). */
uint64_t rsw_punt_sum(enum rsw_punt_class c, enum rsw_punt_ctr k);

#endif /* RSW_PUNT_DP_H */
