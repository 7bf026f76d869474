/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The QoS state of the dataplane (docs/qos.md, docs/architecture.md): the counters per (port,
 * TC), the parameters of a table generation, and the lines shared between threads per port and
 * switch-wide. The modules that use them: the shaper (rsw_shaper.h), PFC (rsw_pfc.h), ECN
 * (rsw_ecn.h), trimming (rsw_trim.h), the owner's scheduler and transmit (rsw_sched.h), the MMU
 * (rsw_mmu.h) and the send-now decision and queues (rsw_queue.h); rsw_qos.h includes the first
 * five.
 *
 * Thread-safety (each shared field says who writes and who reads it):
 * - struct rsw_qos_params lives in the table generation (RCU): read-only.
 * - struct rsw_qos_stats is one lcore's (its stats slot): written by that lcore only, read by
 *   the control thread (counters: torn reads of a 64-bit counter do not happen on x86-64).
 * - struct rsw_qos_main's gauges are shared: queuing workers add once per (queue or PG) per
 *   burst, the egress owner subtracts once per (queue or PG) per drain, both with relaxed
 *   atomics (the owner's egress-queue release with release order, the senders' reads with
 *   acquire); each group of writers has its cache lines, apart from the read-mostly ones.
 * - paused_until / last_pause are written by the worker that receives PFC on the port and read
 *   by the port's senders (64-bit relaxed atomics); paused_max only grows (compare-and-swap),
 *   so it bounds paused_until[] from above.
 * - hold_until / hold_max are written by the port's owner and read by its other senders.
 * - the shaper's bucket (sh_spent) is taken by every sender of the port with one
 *   compare-and-swap per burst (rsw_shaper_take).
 * - storm flags are written by the control thread (watchdog), read by workers.
 * - struct rsw_port_sched (rsw_sched.h) is the owner's alone.
 */

#ifndef RSW_QOS_STATE_H
#define RSW_QOS_STATE_H

#include <stdalign.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "rsw_defs.h"

#define RSW_QUEUE_RING_SIZE 4096 /* mbufs per (port, TC) ring; bytes limits apply first */
#define RSW_WIRE_OVERHEAD   24   /* FCS 4 + preamble 8 + inter-frame gap 12 */
#define RSW_DWRR_QUANTUM    1536 /* bytes per unit of DWRR weight per round */

/*
 * Per (port, TC) queue counters, in the order of `show queues`: X(name, kind, unit, help).
 * depth_bytes and watermark_bytes (gauges) come between the traffic counters and
 * lossless_drops. dropped_packets counts every lossy drop of a received frame; ecn_drops,
 * trim_drops and watchdog_drops count the ones of their cause as well, and the rest are tail
 * drops (a queue over its limit, a full buffer or ring: `show drops` queue_drops).
 */
#define RSW_FOREACH_QUEUE_TRAFFIC_CTR(X)                                                           \
	X(enqueued_packets, COUNTER, "packets", "packets put in the queue")                        \
	X(enqueued_bytes, COUNTER, "bytes", "bytes put in the queue")                              \
	X(dequeued_packets, COUNTER, "packets", "packets sent from the queue")                     \
	X(dequeued_bytes, COUNTER, "bytes", "bytes sent from the queue")                           \
	X(dropped_packets, COUNTER, "packets",                                                     \
	  "dropped: tail drop, ECN drop of Not-ECT, full trim queue, watchdog drop")               \
	X(ecn_marked, COUNTER, "packets", "packets marked CE by WRED/ECN")                         \
	X(trimmed, COUNTER, "packets", "packets of this TC trimmed by UEC trimming")

#define RSW_FOREACH_QUEUE_DROP_CTR(X)                                                              \
	X(lossless_drops, COUNTER, "packets",                                                      \
	  "dropped: lossless packets bound for this queue "                                        \
	  "found no buffer")                                                                       \
	X(ecn_drops, COUNTER, "packets", "of dropped_packets: Not-ECT packets dropped by WRED")    \
	X(trim_drops, COUNTER, "packets",                                                          \
	  "of dropped_packets: packets to trim that found the trim queue full")                    \
	X(watchdog_drops, COUNTER, "packets",                                                      \
	  "of dropped_packets: dropped by the PFC watchdog (action drop)")

#define RSW_FOREACH_QUEUE_CTR(X)                                                                   \
	RSW_FOREACH_QUEUE_TRAFFIC_CTR(X)                                                           \
	RSW_FOREACH_QUEUE_DROP_CTR(X)

enum rsw_queue_ctr {
#define RSW_X_ENUM(name, ...) RSW_QC_##name,
	RSW_FOREACH_QUEUE_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_QUEUE_CTRS
};

/*
 * Per (port, priority) PFC counters of the dataplane, in the order of `show pfc`:
 * X(name, kind, unit, help). paused_ns is kept in TSC ticks in the slots and converted when
 * read. The watchdog's pfcwd_storms and pfcwd_restores follow in `show pfc`; the watchdog
 * counts them itself (rsw_watchdog.h).
 */
#define RSW_FOREACH_PFC_CTR(X)                                                                     \
	X(tx_xoff, COUNTER, "frames", "PFC frames sent pausing the priority")                      \
	X(tx_xon, COUNTER, "frames", "PFC frames sent resuming the priority")                      \
	X(rx_xoff, COUNTER, "frames", "PFC frames received pausing the priority")                  \
	X(rx_xon, COUNTER, "frames", "PFC frames received resuming the priority")                  \
	X(rx_ignored, COUNTER, "frames",                                                           \
	  "PFC pauses received and ignored (lossy priority, storm)")                               \
	X(paused_ns, COUNTER, "ns", "time the priority was paused by the peer")

enum rsw_pfc_ctr {
#define RSW_X_ENUM(name, ...) RSW_FC_##name,
	RSW_FOREACH_PFC_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_PFC_CTRS
};

const char *rsw_queue_ctr_name(enum rsw_queue_ctr c);
const char *rsw_pfc_ctr_name(enum rsw_pfc_ctr c);

/* Per-lcore QoS counters (one slot per lcore, see rsw_stats.h). */
struct rsw_qos_stats {
	uint64_t q[RSW_MAX_PORTS][RSW_N_TC][RSW_N_QUEUE_CTRS];
	uint64_t pfc[RSW_MAX_PORTS][RSW_N_TC][RSW_N_PFC_CTRS];
	uint64_t pg_lossless_drops[RSW_MAX_PORTS][RSW_N_TC];
	uint64_t pfc_consumed[RSW_MAX_PORTS];           /* well-formed PFC/PAUSE frames received */
	uint64_t q_watermark[RSW_MAX_PORTS][RSW_N_TC];  /* bytes, reset by epoch */
	uint64_t pg_watermark[RSW_MAX_PORTS][RSW_N_TC]; /* bytes, reset by epoch */
	uint64_t buf_watermark;                         /* bytes, reset by epoch */
	uint32_t wm_epoch;                              /* last epoch this lcore applied */
};

/* QoS settings of one table generation (from qos: of the config). */
struct rsw_qos_params {
	uint8_t lossless; /* bit t: TC t lossless */
	uint8_t n_strict; /* strict TCs, highest first */
	uint8_t strict[RSW_N_TC];
	uint8_t is_strict;   /* bit t: TC t strict */
	uint8_t dynamic;     /* dynamic PFC thresholds */
	uint8_t ecn_enabled; /* bit t: WRED/ECN on TC t */
	uint8_t ecn_enqueue; /* mark at enqueue instead of dequeue */
	uint8_t pad;
	uint32_t dwrr_quantum[RSW_N_TC]; /* bytes per round */
	uint64_t total;                  /* shared buffer bytes */
	uint64_t headroom_reserved;      /* headroom × lossless (port, PG) */
	uint64_t queue_limit;            /* lossy tail drop, bytes */
	uint64_t xoff, xon;              /* static thresholds, bytes */
	uint64_t headroom;               /* per lossless (port, PG) */
	uint32_t alpha_q16;              /* dynamic: alpha × 65536 */
	uint32_t xon_offset;             /* dynamic */
	uint16_t quanta;                 /* sent in XOFF */
	uint16_t pad2;
	uint64_t kmin[RSW_N_TC], kmax[RSW_N_TC];
	uint32_t pmax_q32[RSW_N_TC]; /* pmax × 2^32 (saturated) */

	/* UEC trimming */
	uint8_t trim_tcs;          /* bit t: trim-eligible */
	uint8_t trim_tc;           /* class of trimmed packets */
	uint8_t trim_dscp;         /* DSCP_TRIMMED */
	uint8_t trim_dscp_lasthop; /* on a leaf's downlinks (= trim_dscp when not given) */
	uint16_t trim_size;        /* bytes kept, FCS excluded */
	uint8_t is_leaf;           /* switch.role leaf: downlinks are the last hop */
	uint8_t cnp_enabled;       /* qos.cnp given */
	uint64_t trim_threshold;   /* queue bytes at which trim replaces drop */

	/* RoCEv2 CNP */
	uint8_t cnp_tc;
	uint8_t pad3[7];
	uint64_t cnp_coalesce_ticks; /* 0 = off */

	/*
	 * The per-burst admission (mmu.c, rsw_mmu_admit_burst): the frames of TC t a burst stages
	 * on a port that may take them now (rsw_queue_open) are admitted whole when they are at
	 * most burst_bytes[t]: below the lossy queue limit, the trim threshold if t is trimmed and
	 * kmin if t has ECN (no mark: at enqueue q <= kmin, at dequeue cut-through).
	 */
	uint64_t burst_bytes[RSW_N_TC];
};

/*
 * Shared state of one port, a cache line per group of writers: the lines every worker writes
 * (the gauges, the shaper) are apart from one another and from the read-mostly line, so that a
 * worker adding bytes does not evict what the others only read. Writer → readers of each field
 * in its comment.
 */
struct rsw_qos_port {
	/* Egress bytes queued: queuing workers add once per (port, TC) and burst, the owner
	 * subtracts once per (port, TC) and drain; every sender reads it (rsw_port_idle). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t q_bytes[RSW_N_TC];
	/* Ingress bytes buffered: queuing workers add, the owners of the egress ports subtract;
	 * admission and PFC generation read it. */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t pg_bytes[RSW_N_TC];
	/* What keeps a port busy besides its queues' bytes; every sender reads it. Control-thread
	 * frames queued (control adds, owner subtracts), and of them the ones it made
	 * (RSW_MF_ORIG, same writers). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t ctl_frames;
	uint64_t orig_frames;
	uint64_t tx_pending; /* frames in the owner's pending list (owner, when it changes) */
	uint64_t paused_max; /* >= every paused_until[] (PFC rx worker CAS → senders) */
	uint64_t hold_max;   /* >= every hold_until[] (owner → the other senders) */
	/* TSC until which the other senders of the port do not send frames of each TC on their
	 * own tx queues: the owner sent frames of the TC from its queues on tx queue 0, and the
	 * NIC may hold them in that queue until then (owner → the other senders). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t hold_until[RSW_N_TC];
	/* TSC each priority is paused to by PFC (PFC rx worker → senders). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t paused_until[RSW_N_TC];
	/* TSC of each priority's last XOFF (PFC rx worker → watchdog). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t last_pause[RSW_N_TC];
	/* The shaper's bucket: wire bytes taken by the port's senders (rsw_shaper_take: one CAS
	 * per burst or drain). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t sh_spent;
	/* Read-mostly from here. MP/SC egress queues (set at init: control → all). */
	alignas(RTE_CACHE_LINE_SIZE) struct rte_ring *ring[RSW_N_TC];
	/* Watchdog: drop (flush, no PFC), forward (ignore pause) (control → workers). */
	alignas(RTE_CACHE_LINE_SIZE) uint8_t storm_drop[RSW_N_TC];
	uint8_t storm_ignore[RSW_N_TC];
	uint64_t speed_bps; /* shaper and pause timing; 0 = unshaped (control → all) */
	uint64_t llr;       /* 1: an LLR port, never idle: no direct send (control → all) */
	/* The shaper's rate for speed sh_speed (0: not set up): written by the first sender that
	 * sees speed_bps change (rsw_shaper_setup), sh_speed last; read by every sender. Wire
	 * bytes per TSC tick × 2^32, the bucket's depth in bytes, the TSC at set-up. */
	uint64_t sh_speed;
	uint32_t sh_burst_us; /* the shaper_burst_us sh_bucket was sized for (same writers) */
	uint64_t sh_rate_q32;
	uint64_t sh_bucket;
	uint64_t sh_t0;
};

struct rsw_qos_main {
	/* Bytes buffered switch-wide: queuing workers add once per burst, owners subtract once
	 * per drain; admission reads it. A line of its own. */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t used;
	/* Read-mostly: bumped by `clear counters` (control → workers reset watermarks). */
	alignas(RTE_CACHE_LINE_SIZE) uint32_t wm_epoch;
	uint64_t tsc_hz; /* set at init (control → all) */
	/* Shaper bucket, µs of a port's speed; 0 = 100 (control → all senders). */
	uint32_t shaper_burst_us;
	struct rsw_qos_port port[RSW_MAX_PORTS];
};

extern struct rsw_qos_main rsw_qos;

/**
 * Create the eight rings of each of n_ports ports and set the TSC rate.
 * @return 0 or -errno.
 */
int rsw_qos_init(uint16_t n_ports);

/** Free rings (draining mbufs). */
void rsw_qos_fini(void);

/** Set the fields of params derived from the others (burst_bytes[]): after any change. */
void rsw_qos_params_derive(struct rsw_qos_params *qp);

#endif /* RSW_QOS_STATE_H */
