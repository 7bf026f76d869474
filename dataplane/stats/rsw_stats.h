/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Per-lcore counters. Each list exists once, as an X-macro: the enum, the
 * names printed by railctl/JSON/telemetry/Prometheus all come from it, so the
 * names of docs/cli.md cannot drift.
 *
 * Thread-safety: a worker writes only its own slot (plain adds, once per burst);
 * the control thread reads every slot and sums. 64-bit loads and stores are
 * atomic on the platforms DPDK supports, so a reader sees each counter whole.
 */

#ifndef RSW_STATS_H
#define RSW_STATS_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rsw_defs.h"
#include "rsw_lb_state.h"
#include "rsw_qos.h"

/*
 * Port counters, in the order of `show ports`: X(name, is_drop, kind, unit, help). The
 * ones marked drop are also drop reasons (`show drops`). rx_missed comes from the PMD and
 * sits between the traffic and the event counters in `show ports`; it is not here.
 * Every column is the one description of the field (describe, docs, Prometheus HELP).
 */
#define RSW_FOREACH_PORT_TRAFFIC_CTR(X)                                                            \
	X(rx_packets, 0, COUNTER, "packets", "frames received (taken from the port's rx queues)")  \
	X(rx_bytes, 0, COUNTER, "bytes", "bytes of the frames received")                           \
	X(tx_packets, 0, COUNTER, "packets", "frames sent out of the port")                        \
	X(tx_bytes, 0, COUNTER, "bytes", "bytes of the frames sent")

#define RSW_FOREACH_PORT_EVENT_CTR(X)                                                              \
	X(parse_errors, 1, COUNTER, "packets", "dropped: truncated or malformed headers")          \
	X(not_for_us, 1, COUNTER, "packets", "dropped: unicast to another MAC than the port's")    \
	X(l2_control, 1, COUNTER, "packets",                                                       \
	  "dropped: link-local multicast, broadcast, LLDP, STP and other L2 control")              \
	X(unknown_ethertype, 1, COUNTER, "packets", "dropped: neither IPv4, IPv6 nor ARP")         \
	X(no_route, 1, COUNTER, "packets", "dropped: no route to the destination")                 \
	X(ttl_expired, 1, COUNTER, "packets", "dropped: TTL or hop limit expired")                 \
	X(mtu_exceeded, 1, COUNTER, "packets", "dropped: larger than the egress port's MTU")       \
	X(neigh_unresolved, 1, COUNTER, "packets", "dropped: the next hop's MAC is not resolved")  \
	X(punted, 0, COUNTER, "packets", "frames handed to the control thread (ARP, ND, ICMP)")    \
	X(cnp_rx, 0, COUNTER, "packets", "RoCEv2 CNPs received, coalesced ones included")          \
	X(cnp_tx, 0, COUNTER, "packets", "RoCEv2 CNPs transmitted, counted at dequeue")            \
	X(cnp_coalesced, 0, COUNTER, "packets",                                                    \
	  "consumed: CNPs absorbed on this ingress port by qos.cnp.coalesce_us")                   \
	X(tx_dropped, 1, COUNTER, "packets", "dropped: the port's tx queue was full")              \
	X(punt_dropped, 1, COUNTER, "packets", "dropped: the control thread's punt ring was full") \
	X(punt_policed, 1, COUNTER, "packets",                                                     \
	  "dropped: over the rate of their punt class (show punt)")                                \
	X(group_empty, 1, COUNTER, "packets",                                                      \
	  "dropped: routed to a next-hop group with no live member")                               \
	X(port_down, 1, COUNTER, "packets",                                                        \
	  "dropped: received on, or routed to, an administratively down port")                     \
	X(pfc_rx_frames, 0, COUNTER, "packets", "PFC and PAUSE frames received (consumed)")        \
	X(impair_dropped, 1, COUNTER, "packets",                                                   \
	  "dropped: lost on purpose on transmit (impair: loss), originated frames included")       \
	X(impair_corrupted, 0, COUNTER, "packets",                                                 \
	  "frames sent with one bit flipped (impair: corrupt)")                                    \
	X(impair_delay_overflow, 1, COUNTER, "packets",                                            \
	  "dropped: the impairment delay line (impair: delay_us) was full")                        \
	X(llr_rx_missing_seq, 1, COUNTER, "packets",                                               \
	  "dropped by LLR: data frames after a missing sequence (the peer replays them)")          \
	X(llr_rx_duplicate_seq, 1, COUNTER, "packets",                                             \
	  "dropped by LLR: data frames whose sequence was already received")                       \
	X(llr_rx_bad_integrity, 1, COUNTER, "packets",                                             \
	  "dropped by LLR: frames whose checksum failed, or truncated (the peer replays them)")    \
	X(llr_rx_not_synced, 1, COUNTER, "packets",                                                \
	  "dropped by LLR: sequenced frames received before the peer's INIT")                      \
	X(llr_tx_fallback_dropped, 1, COUNTER, "packets",                                          \
	  "dropped by LLR: frames met while the peer had not answered INIT (fallback discard)")    \
	X(llr_tx_encap_failed, 1, COUNTER, "packets",                                              \
	  "dropped by LLR: no headroom for the shim, or a frame too short or segmented")           \
	X(llr_consumed, 0, COUNTER, "packets", "LLR control frames received (consumed)")           \
	X(llr_originated, 0, COUNTER, "packets",                                                   \
	  "LLR frames made: ACK, NACK, INIT, INIT_ECHO and replays (originated)")                  \
	X(cbfc_rx_bad, 1, COUNTER, "packets",                                                      \
	  "dropped by CBFC: credit messages corrupted or malformed (the next one heals)")          \
	X(cbfc_consumed, 0, COUNTER, "packets", "CBFC credit messages received (consumed)")        \
	X(cbfc_originated, 0, COUNTER, "packets",                                                  \
	  "CBFC credit messages made: INIT, INIT_ECHO, CREDIT, CONSUMED (originated)")

#define RSW_FOREACH_PORT_CTR(X)                                                                    \
	RSW_FOREACH_PORT_TRAFFIC_CTR(X)                                                            \
	RSW_FOREACH_PORT_EVENT_CTR(X)

enum rsw_port_ctr {
#define RSW_X_ENUM(name, ...) RSW_PC_##name,
	RSW_FOREACH_PORT_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_PORT_CTRS
};

/** Name of a port counter as docs/cli.md spells it. */
const char *rsw_port_ctr_name(enum rsw_port_ctr c);

/** Whether a port counter counts dropped packets (it is listed by `show drops`). */
int rsw_port_ctr_is_drop(enum rsw_port_ctr c);

struct __rte_cache_aligned rsw_port_stats {
	uint64_t c[RSW_N_PORT_CTRS];
};

/*
 * Switch-wide frame counters of each lcore, the parts of the `show drops` totals that no port
 * or queue counter holds (control/cli/drops.c sums them): X(name, help).
 * - forwarded: received frames handed to a PMD (cut-through, a port admitted whole, scheduler, the
 *   pending list); counted where rte_eth_tx_burst took them (qos/sched.c), a frame the control
 *   thread made (RSW_MF_ORIG) excluded.
 * - originated: frames railsw made and queued or sent: the control thread's (ARP, ND and ICMP
 *   replies, requests and errors: rsw_ctl_send) and the PFC frames of the scheduler.
 * - consumed: received frames the control thread took for itself (ARP, ND, ICMP and other
 *   packets for the switch: punt.c). The worker's consumed frames are counted elsewhere:
 *   PFC/PAUSE in rsw_qos_stats.pfc_consumed, coalesced CNPs in cnp_coalesced.
 * - punt_taken: punted frames the control thread took off the punt ring (errors to answer with
 *   ICMP excluded: they are counted dropped): punted - punt_taken are in flight.
 */
#define RSW_FOREACH_TOTAL_CTR(X)                                                                   \
	X(forwarded, "received frames sent out of a port")                                         \
	X(originated, "frames railsw made and queued or sent")                                     \
	X(consumed, "received frames the control thread took for itself")                          \
	X(punt_taken, "punted frames the control thread took off the punt ring")

enum rsw_total_ctr {
#define RSW_X_ENUM(name, ...) RSW_TOT_##name,
	RSW_FOREACH_TOTAL_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_TOTAL_CTRS
};

/* Packets and bytes sent through one member of one next-hop group. */
struct rsw_lb_member_stats {
	uint64_t packets;
	uint64_t bytes;
};

/*
 * Count one frame of len bytes on a member. The packet count is one add to memory that the
 * compiler cannot see into: GCC 12 otherwise pairs the two adds into a vector update per frame
 * (docs/perf.md).
 */
static __rte_always_inline void
rsw_lb_count(struct rsw_lb_member_stats *lb, uint32_t len)
{
#if defined(RTE_ARCH_X86_64)
	__asm__("addq $1, %0" : "+m"(lb->packets) : : "cc");
#else
	lb->packets++;
#endif
	lb->bytes += len;
}

/*
 * A worker's own loop counters (`show workers`), counted in its loop (worker.c): plain adds
 * to its own cache line. X(name, help).
 * - rx_packets: frames its rx bursts returned (before LLR took its control frames);
 * - bursts: rx bursts that returned frames;
 * - loops, busy_loops: turns of its loop, and those that found work (frames received,
 *   sent or drained): busy_pct = busy_loops / loops.
 */
#define RSW_FOREACH_WORKER_CTR(X)                                                                  \
	X(rx_packets, "frames its rx bursts returned")                                             \
	X(bursts, "rx bursts that returned frames")                                                \
	X(loops, "turns of its loop")                                                              \
	X(busy_loops, "turns of its loop that found work")

enum rsw_worker_ctr {
#define RSW_X_ENUM(name, ...) RSW_WK_##name,
	RSW_FOREACH_WORKER_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_WORKER_CTRS
};

struct __rte_cache_aligned rsw_worker_stats {
	uint64_t c[RSW_N_WORKER_CTRS];
};

/*
 * One lcore's slot. Allocated per lcore (rte_zmalloc) at start-up.
 * Writer: that lcore. Readers: the control thread.
 */
struct rsw_lcore_stats {
	struct rsw_port_stats port[RSW_MAX_PORTS];
	struct rsw_lb_member_stats lb[RSW_MAX_GROUPS][RSW_MAX_NEXTHOPS];
	struct rsw_qos_stats qos;
	uint64_t tot[RSW_N_TOTAL_CTRS]; /* switch-wide frame counters (RSW_FOREACH_TOTAL_CTR) */
	struct rsw_lb_lcore lb_state;   /* not counters: this lcore's round-robin and flowlets */
	uint64_t admitted_whole;        /* frames sent by ports admitted whole (qos/mmu.c; tests) */
	/* Frames and bytes resolved to hosts of connected subnets (route/resolve.c; tests, perf). */
	struct rsw_lb_member_stats connected;
	struct rsw_worker_stats wk; /* its loop, when the lcore is a worker (`show workers`) */
};

/* Slots indexed by lcore id; NULL where the lcore has none. */
extern struct rsw_lcore_stats *rsw_stats[RTE_MAX_LCORE];

/**
 * Allocate the slot of every enabled lcore.
 * @return 0, or -ENOMEM.
 */
int rsw_stats_init(void);

/** Free every slot. */
void rsw_stats_fini(void);

/** Sum port counters of port over every lcore into out[RSW_N_PORT_CTRS]. */
void rsw_stats_port_sum(uint16_t port, uint64_t out[RSW_N_PORT_CTRS]);

/** Sum the switch-wide frame counters over every lcore into out[RSW_N_TOTAL_CTRS]. */
void rsw_stats_total_sum(uint64_t out[RSW_N_TOTAL_CTRS]);

/** Sum one group member's counters over every lcore. */
void rsw_stats_lb_sum(uint32_t group, uint32_t member, struct rsw_lb_member_stats *out);

/**
 * Count n packets dropped for a reason (a port counter) on port, and free them in bulk.
 * Every drop in dataplane/ goes through here.
 */
static inline void
rsw_drop(struct rsw_lcore_stats *st, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
	 enum rsw_port_ctr reason)
{
	if (n == 0)
		return;
	st->port[port].c[reason] += n;
	rte_pktmbuf_free_bulk(pkts, n);
}

#endif /* RSW_STATS_H */
