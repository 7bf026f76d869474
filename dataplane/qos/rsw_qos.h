/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 8-10 of the packet path (docs/architecture.md, docs/qos.md): eight egress queues per
 * port, the shared-buffer MMU (ingress PG and egress queue accounting, lossy
 * tail drop, lossless headroom), ECN/WRED marking, PFC generation and
 * reception, the per-port shaper and the strict + DWRR scheduler.
 *
 * Thread-safety (each shared field says who writes and who reads it):
 * - struct rsw_qos_params lives in the table generation (RCU): read-only.
 * - struct rsw_qos_main's gauges are shared: queuing workers add once per (queue or PG) per
 *   burst, the egress owner subtracts once per (queue or PG) per drain, both with relaxed
 *   atomics; each group of writers has its cache lines, apart from the read-mostly ones.
 * - paused_until / last_pause are written by the worker that receives PFC on the port and read
 *   by the port's senders (64-bit relaxed atomics); paused_max only grows (compare-and-swap),
 *   so it bounds paused_until[] from above.
 * - the shaper's bucket (sh_spent) is taken by every sender of the port with one
 *   compare-and-swap per burst (rsw_shaper_take).
 * - storm flags are written by the control thread (watchdog), read by workers.
 * - struct rsw_port_sched is the owner's alone.
 */

#ifndef RSW_QOS_H
#define RSW_QOS_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rsw_defs.h"

#define RSW_QUEUE_RING_SIZE   4096 /* mbufs per (port, TC) ring; bytes limits apply first */
#define RSW_WIRE_OVERHEAD     24   /* FCS 4 + preamble 8 + inter-frame gap 12 */
#define RSW_DWRR_QUANTUM      1536 /* bytes per unit of DWRR weight per round */
#define RSW_PFC_FRAME_LEN     60   /* PFC frame without FCS */
#define RSW_PFC_OPCODE        0x0101
#define RSW_PAUSE_OPCODE      0x0001
#define RSW_PFC_DEFAULT_SPEED 10000000000ULL /* pause timing when a port's speed is unknown */

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
	 * on an idle port are admitted whole when they are at most burst_bytes[t]: below the lossy
	 * queue limit, the trim threshold if t is trimmed and kmin if t has ECN (no mark: at
	 * enqueue q <= kmin, at dequeue cut-through).
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

/* A port's scheduler and PFC generator state: the owner's alone. */
struct rsw_port_sched {
	int32_t deficit[RSW_N_TC];
	uint8_t dwrr_cur;   /* TC the DWRR pointer is on */
	uint8_t dwrr_fresh; /* quantum not yet added for the current visit */
	uint8_t xoff_sent;  /* bit p: XOFF in force for priority p */
	uint8_t n_pending;
	uint32_t pending_orig;         /* bit i: pending[i] was made by railsw (RSW_MF_ORIG) */
	uint64_t refresh_at[RSW_N_TC]; /* TSC to refresh XOFF */
	uint16_t head_n[RSW_N_TC];     /* frames staged per TC */
	uint16_t head_i[RSW_N_TC];
	struct rte_mbuf *head[RSW_N_TC][32];
	struct rte_mbuf *pending[32]; /* taken by the scheduler, not yet by the PMD */
	uint64_t last_pfc_gen;
	/* Tx queue 0's model (ports with other senders): the TSC by which it has sent what the
	 * owner handed it, at the port's speed shared by its n_txq queues (wire ticks per byte
	 * × 2^32, for the speed q0_speed). */
	uint64_t q0_free;
	uint64_t q0_speed;
	uint64_t q0_tpb_q32;
};

/**
 * Create the eight rings of each of n_ports ports and set the TSC rate.
 * @return 0 or -errno.
 */
int rsw_qos_init(uint16_t n_ports);

extern struct rsw_port_sched rsw_sched[RSW_MAX_PORTS];

/** Wire bytes (frame + 24) of n frames of bytes in all: what they take from the shaper. */
static inline uint64_t
rsw_wire_bytes(uint64_t bytes, uint64_t frames)
{
	return bytes + frames * RSW_WIRE_OVERHEAD;
}

/**
 * Set port p's shaper up for speed_bps (any sender, the first to see the speed or
 * switch.shaper_burst_us change): the bucket holds two largest frames or shaper_burst_us (100 µs
 * by default) at line rate, whichever is larger, and starts full.
 */
void rsw_shaper_setup(uint16_t p, uint64_t speed_bps, uint64_t now);

/*
 * The shaper of port p is one token bucket shared by every sender of the port, kept as the
 * bytes it has given out (sh_spent) against the bytes it has earned since set-up: the tokens
 * at now are earned(now) - max(spent, earned(now) - bucket), so the bucket never holds more than
 * its depth and nothing has to refill it. Bytes earned at now, counted from the bucket's depth.
 */
static inline uint64_t
rsw_shaper_earned(const struct rsw_qos_port *qport, uint64_t now)
{
	uint64_t t0 = __atomic_load_n(&qport->sh_t0, __ATOMIC_RELAXED);

	if (unlikely((int64_t)(now - t0) < 0))
		now = t0; /* a burst that started before the set-up */
	return qport->sh_bucket + (uint64_t)(((__uint128_t)(now - t0) * qport->sh_rate_q32) >> 32);
}

/** Port p's shaper ready for its current speed_bps (0: unshaped). @return whether shaped. */
static inline bool
rsw_shaper_on(uint16_t p, uint64_t now)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t speed = __atomic_load_n(&qport->speed_bps, __ATOMIC_RELAXED);

	if (likely(speed == 0))
		return false;
	if (unlikely(__atomic_load_n(&qport->sh_speed, __ATOMIC_ACQUIRE) != speed ||
		     qport->sh_burst_us != rsw_qos.shaper_burst_us))
		rsw_shaper_setup(p, speed, now);
	return true;
}

/** Wire bytes port p's shaper holds at now (rsw_shaper_on first). */
static inline uint64_t
rsw_shaper_avail(uint16_t p, uint64_t now)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t e = rsw_shaper_earned(qport, now);
	uint64_t s = __atomic_load_n(&qport->sh_spent, __ATOMIC_RELAXED);

	if (s >= e)
		return 0;
	return RTE_MIN(e - s, qport->sh_bucket);
}

/*
 * Take bytes from port p's shaper at now, when (or, with force, whether or not) the bucket
 * holds them on top of ahead bytes (rsw_shaper_take, rsw_shaper_take_behind).
 */
static inline bool
rsw_shaper_take_over(uint16_t p, uint64_t now, uint64_t bytes, uint64_t ahead, bool force)
{
	struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t e = rsw_shaper_earned(qport, now), floor = e - qport->sh_bucket;
	uint64_t s = __atomic_load_n(&qport->sh_spent, __ATOMIC_RELAXED), base;

	do {
		base = s > floor ? s : floor;
		if (!force && base + ahead + bytes > e)
			return false;
	} while (!__atomic_compare_exchange_n(&qport->sh_spent, &s, base + bytes, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/**
 * Take wire bytes from port p's shaper at now (rsw_shaper_on first): one compare-and-swap,
 * retried only when another sender took tokens in between. Without force, nothing is taken
 * unless the bucket holds them all; with force (a sender that already dequeued what it sends on
 * the tokens it saw), always taken: the bucket may go into debt by what other senders took
 * meanwhile, and later senders wait for it to be paid. @return whether taken.
 */
static inline bool
rsw_shaper_take(uint16_t p, uint64_t now, uint64_t bytes, bool force)
{
	return rsw_shaper_take_over(p, now, bytes, 0, force);
}

/**
 * rsw_shaper_take without force for a sender that passes ahead bytes queued on the port (other
 * TCs' backlogs, which the scheduler sends): taken only when the bucket holds those and bytes
 * as well, so that a backlog never waits for tokens that direct sends took. @return whether
 * taken.
 */
static inline bool
rsw_shaper_take_behind(uint16_t p, uint64_t now, uint64_t bytes, uint64_t ahead)
{
	return rsw_shaper_take_over(p, now, bytes, ahead, false);
}

/** TCs of a port that received PFC holds at now (unless the watchdog ignores the pause). */
static inline uint8_t
rsw_paused_mask(const struct rsw_qos_port *qport, uint64_t now)
{
	uint8_t mask = 0;
	int tc;

	if (likely(__atomic_load_n(&qport->paused_max, __ATOMIC_RELAXED) <= now))
		return 0; /* no pause runs past now: nothing to look at */
	for (tc = 0; tc < RSW_N_TC; tc++)
		if (__atomic_load_n(&qport->paused_until[tc], __ATOMIC_RELAXED) > now &&
		    !qport->storm_ignore[tc])
			mask |= (uint8_t)(1u << tc);
	return mask;
}

/**
 * Whether port p has frames queued: bytes in its eight queues, frames of the control thread, or
 * frames the PMD refused (the owner's pending list). Two lines of gauges: no ring is touched.
 * Frames the scheduler staged are still in the gauges (a frame's bytes, or its control-thread
 * count, are released once the PMD has it or it waits in the pending list, which tx_pending
 * shows first), so they need no check of their own.
 */
static inline bool
rsw_port_queued(uint16_t p)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t q = 0;
	int tc;

	/* Acquire: a release seen here comes after the pending list published before it. */
	for (tc = 0; tc < RSW_N_TC; tc++)
		q |= __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_ACQUIRE);
	q |= __atomic_load_n(&qport->ctl_frames, __ATOMIC_ACQUIRE);
	q |= __atomic_load_n(&qport->tx_pending, __ATOMIC_ACQUIRE);
	return q != 0;
}

/**
 * Whether port p is idle: nothing queued (rsw_port_queued) and no LLR (an LLR port is one
 * ordered stream through its scheduler): the owner's test before its scheduler. The senders'
 * test is per (port, TC) (rsw_send_now_port, rsw_queue.h).
 */
static inline bool
rsw_port_idle(uint16_t p)
{
	return !rsw_qos.port[p].llr && !rsw_port_queued(p);
}

/** Owner only: port p's pending list changed; publish its length (rsw_port_idle reads it). */
static inline void
rsw_pending_publish(uint16_t p)
{
	__atomic_store_n(&rsw_qos.port[p].tx_pending, rsw_sched[p].n_pending, __ATOMIC_RELEASE);
}

struct rsw_lcore_stats;

/**
 * The owner's transmit step for port p: PFC generation, shaper, strict + DWRR scheduling,
 * ECN at dequeue, buffer release, tx. @return frames handled (0 = idle).
 */
uint16_t rsw_sched_port(struct rsw_lcore_stats *st, const struct rsw_qos_params *qp, uint16_t p,
			uint64_t now);

/**
 * Owner only: transmit n frames (bytes in all) on port p; what the PMD does not take waits in
 * the scheduler's pending list and goes first next time (the caller leaves it the room: at
 * most 32 - n_pending frames). Counts tx_packets and tx_bytes of what went.
 */
void rsw_port_tx(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **m, uint16_t n,
		 uint64_t bytes);

/**
 * A worker other than the owner: transmit n frames (bytes in all) on port p on its own tx queue
 * q (rsw_direct_txq). Counts tx_packets, tx_bytes and `forwarded` of what the PMD took.
 * @return the frames sent: the rest are still the caller's.
 */
uint16_t rsw_port_tx_queue(struct rsw_lcore_stats *st, uint16_t p, uint16_t q, struct rte_mbuf **m,
			   uint16_t n, uint64_t bytes);

/**
 * rsw_port_tx of frames some of which railsw made: bit i of orig set where m[i] carries
 * RSW_MF_ORIG (the scheduler's frames). Counts the others `forwarded` (rsw_stats.h totals);
 * rsw_port_tx is this with orig 0 (cut-through and admitted-whole frames are all received ones).
 */
void rsw_port_tx_orig(struct rsw_lcore_stats *st, uint16_t p, struct rte_mbuf **m, uint16_t n,
		      uint64_t bytes, uint32_t orig);

/** Free rings (draining mbufs). */
void rsw_qos_fini(void);

/** Set the fields of params derived from the others (burst_bytes[]): after any change. */
void rsw_qos_params_derive(struct rsw_qos_params *qp);

/**
 * PFC/PAUSE frame received on port p (frame starts at the MAC Control opcode, len bytes).
 * Updates pause state and counters (pfc_consumed: a well-formed frame, taken by the switch).
 * @return 0, or -EINVAL for a malformed frame.
 */
int rsw_pfc_rx(struct rsw_qos_stats *qs, const struct rsw_qos_params *qp, uint16_t p,
	       const uint8_t *opcode, uint32_t len, uint64_t now);

/**
 * Encode a PFC frame into buf[RSW_PFC_FRAME_LEN]: dst 01:80:c2:00:00:01, src, 0x8808,
 * opcode 0x0101, class-enable vector, eight times (time[p] used where bit p is set).
 */
void rsw_pfc_encode(uint8_t *buf, const uint8_t *src_mac, uint8_t enable,
		    const uint16_t time[RSW_N_TC]);

/**
 * TSC ticks a pause of quanta lasts at speed_bps (quanta × 512 bit times); a speed of 0
 * (unknown) counts as RSW_PFC_DEFAULT_SPEED, so XOFF refresh and received pauses keep a
 * duration.
 */
uint64_t rsw_pfc_pause_ticks(uint16_t quanta, uint64_t speed_bps, uint64_t tsc_hz);

/**
 * WRED decision for queue depth q of TC tc: 0 pass, 1 mark (or drop when not ECT).
 * rnd is a uniform 32-bit random number.
 */
static inline int
rsw_ecn_decide(const struct rsw_qos_params *qp, uint8_t tc, uint64_t q, uint32_t rnd)
{
	uint64_t kmin = qp->kmin[tc], kmax = qp->kmax[tc], p;

	if (q <= kmin)
		return 0;
	if (q >= kmax)
		return 1;
	/* p = pmax × (q − kmin) / (kmax − kmin), in 2^-32 units. */
	p = (uint64_t)qp->pmax_q32[tc] * (q - kmin) / (kmax - kmin);
	return rnd < p;
}

/**
 * Set CE in an IPv4 or IPv6 packet whose ECN field is ECT(0) or ECT(1) (IPv4 checksum
 * updated per RFC 1624). @return 1 marked, 0 already CE, -1 not ECT.
 */
int rsw_ecn_mark(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind);

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

/** XOFF threshold of an ingress PG under params and the current buffer use. */
static inline uint64_t
rsw_pfc_xoff(const struct rsw_qos_params *qp, uint64_t used)
{
	uint64_t free_b;

	if (!qp->dynamic)
		return qp->xoff;
	free_b = qp->total > used + qp->headroom_reserved ? qp->total - used - qp->headroom_reserved
							  : 0;
	return (free_b * qp->alpha_q16) >> 16;
}

static inline uint64_t
rsw_pfc_xon(const struct rsw_qos_params *qp, uint64_t xoff)
{
	if (!qp->dynamic)
		return qp->xon;
	return xoff > qp->xon_offset ? xoff - qp->xon_offset : 0;
}

#endif /* RSW_QOS_H */
