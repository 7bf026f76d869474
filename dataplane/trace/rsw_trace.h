/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Packet trace (`railctl trace`, docs/cli.md): the next N frames received (on one port or any),
 * on any worker, each recorded with every step's decision. Off, it costs the worker one load
 * and one predictable branch per burst (rsw_trace_armed). Armed, a worker claims frames from a
 * switch-wide budget (one compare-and-swap per burst) and runs each claimed frame through the
 * pipeline as a burst of its own, reading what every step decided from the burst's scratch and
 * from its own counters (a drop reason is the counter that moved), into its own record buffer.
 *
 * Who writes and reads what:
 * - rsw_trace.ctl (budget in the low 32 bits, the next sequence number in the high 32): the
 *   control thread stores it to arm and to stop (rsw_trace_arm); workers take frames from it
 *   with a compare-and-swap. Workers load it once per burst (relaxed).
 * - rsw_trace.port: the control thread, while the budget is 0, before arming (release
 *   compare-and-swap of ctl); workers read it after an acquire load of ctl that found a
 *   budget. tsc0, ns0, hz: the control thread alone (it dates the records with them).
 * - rsw_trace_buf[lcore]: allocated by the control thread before the first arming, never
 *   freed while workers run. rec[] and head are written by that lcore's worker alone: a record
 *   first, then head (release). base is written by the control thread alone (`trace clear`):
 *   records below it are not shown. The control thread reads head (acquire), copies the
 *   newest RSW_TRACE_CAP records (the ring has one slot more: the one the worker may be
 *   writing), and reads head again: a record the worker may have written over meanwhile is
 *   left out (rsw_trace_read).
 */

#ifndef RSW_TRACE_H
#define RSW_TRACE_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rsw_stats.h"

#define RSW_TRACE_CAP 1024 /* records per worker; also the most one `trace start` takes */
/* Slots of a worker's ring: one more than it shows, the one the worker may be writing. */
#define RSW_TRACE_SLOTS    (RSW_TRACE_CAP + 1)
#define RSW_TRACE_DEFAULT  50 /* frames `trace start` records without --count */
#define RSW_TRACE_ANY_PORT UINT16_MAX
#define RSW_TRACE_NONE     UINT32_MAX /* no group, member, neighbour */
#define RSW_TRACE_SUMMARY  128

/* How a traced frame ended (`end` of `trace show`, docs/cli.md). */
enum rsw_trace_end {
	RSW_TE_NONE = 0, /* not known (no tables) */
	RSW_TE_SENT,     /* handed to the egress port's tx queue, no wait in an egress queue */
	RSW_TE_QUEUED,   /* put in an egress queue, for the port's owner to send */
	RSW_TE_PUNTED,   /* handed to the control thread (reason: the punt class) */
	RSW_TE_CONSUMED, /* taken by the switch (PAUSE/PFC, a coalesced CNP) */
	RSW_TE_DROPPED,  /* dropped (reason: the drop reason as `show drops` names it) */
};

/* What the lookup step found (rsw_trace_rec.res). */
enum rsw_trace_res {
	RSW_TR_NOT = 0,   /* not looked up */
	RSW_TR_NONE,      /* no route */
	RSW_TR_LOCAL,     /* an address of the switch */
	RSW_TR_CONNECTED, /* a host of a connected subnet */
	RSW_TR_ROUTE,     /* a route (a next-hop group, one member for a plain route) */
};

/* One traced frame. Written by its worker only; see the file comment for the reader. */
struct rsw_trace_rec {
	uint64_t seq;     /* switch-wide, in the order frames were claimed */
	uint64_t tsc;     /* when the worker took it up */
	uint64_t tsc_end; /* when its end was known */
	uint16_t lcore, rx_port, rx_queue, len;
	/* parse + classify */
	uint8_t kind;                         /* enum rsw_pkt_kind */
	uint8_t parse_drop;                   /* enum rsw_port_ctr when kind is RSW_PK_DROP */
	uint8_t tc, dscp, ttl, proto, family; /* family: 4, 6 or 0 */
	uint8_t classified;                   /* tc and dscp are set */
	uint8_t src[16], dst[16];
	uint16_t sport, dport; /* with proto UDP or TCP */
	/* lookup */
	uint8_t res;        /* enum rsw_trace_res */
	uint8_t prefix_len; /* with prefix_ok */
	uint8_t prefix_ok;
	uint8_t prefix[16];
	uint32_t group;    /* RSW_TR_ROUTE: group index */
	uint32_t member;   /* index in the group, RSW_TRACE_NONE when not known */
	uint16_t out_port; /* lookup's egress port, RSW_TRACE_ANY_PORT when none */
	/* rewrite */
	uint8_t rewritten;
	uint8_t dst_mac[6], src_mac[6];
	/* admit */
	uint8_t admitted; /* reached admission on out_port */
	uint8_t queue;    /* the egress queue (TC) */
	uint8_t ecn_marked, trimmed;
	uint64_t q_bytes; /* the queue's bytes when the frame was admitted */
	/* end */
	uint8_t end; /* enum rsw_trace_end */
	uint16_t tx_port;
	int32_t tx_queue;   /* sent: the port's tx queue; else -1 */
	const char *reason; /* dropped: the drop reason; punted: the class; else NULL */
	char summary[RSW_TRACE_SUMMARY];
};

struct rsw_trace_buf {
	alignas(RTE_CACHE_LINE_SIZE) uint64_t head; /* records written (worker) */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t base; /* records cleared (control) */
	struct rsw_trace_rec rec[RSW_TRACE_SLOTS];
};

struct rsw_trace_main {
	alignas(RTE_CACHE_LINE_SIZE) uint64_t ctl; /* seq << 32 | budget */
	uint16_t port;                             /* RSW_TRACE_ANY_PORT: any */
	uint64_t tsc0, ns0, hz;                    /* a TSC reading and its wall-clock ns */
};

extern struct rsw_trace_main rsw_trace;
extern struct rsw_trace_buf *rsw_trace_buf[RTE_MAX_LCORE];

/** Whether frames are to be traced: a worker's one test per burst. */
static __rte_always_inline bool
rsw_trace_armed(void)
{
	return unlikely((uint32_t)__atomic_load_n(&rsw_trace.ctl, __ATOMIC_RELAXED) != 0);
}

/**
 * Control thread: give every lcore that may run a worker its record buffer (once).
 * @return 0 or -ENOMEM.
 */
int rsw_trace_init(void);

/** Control thread: free the buffers (workers stopped). */
void rsw_trace_fini(void);

/**
 * Control thread: record the next count frames (1..RSW_TRACE_CAP) received on port (index, or
 * RSW_TRACE_ANY_PORT); count 0 stops (what was recorded stays). tsc/ns: the clock pair that
 * dates records. @return 0, or -EINVAL (count too large), -ENOMEM (no buffers).
 */
int rsw_trace_arm(uint32_t count, uint16_t port, uint64_t tsc, uint64_t ns, uint64_t hz);

/** Control thread: frames still to be recorded. */
uint32_t rsw_trace_budget(void);

/** Control thread: forget every record (the budget is not changed). */
void rsw_trace_clear(void);

/**
 * Control thread: copy lcore's records not cleared into out (room for RSW_TRACE_CAP), oldest
 * first. @return how many.
 */
unsigned int rsw_trace_read(unsigned int lcore, struct rsw_trace_rec *out);

/**
 * Take up to want frames from the budget: 0 when unarmed or port does not match.
 * *seq: the first one's sequence number.
 */
uint32_t rsw_trace_claim(uint16_t port, uint32_t want, uint64_t *seq);

/** The worker's next record in buf (not yet visible), and publish it. */
static inline struct rsw_trace_rec *
rsw_trace_next(struct rsw_trace_buf *buf)
{
	return &buf->rec[buf->head % RSW_TRACE_SLOTS];
}

static inline void
rsw_trace_publish(struct rsw_trace_buf *buf)
{
	__atomic_store_n(&buf->head, buf->head + 1, __ATOMIC_RELEASE);
}

/**
 * The worker's burst when armed (rsw_trace_armed): n frames received on port index in_port,
 * rx queue rx_queue, by lcore. The claimed frames run the pipeline one by one, recorded; the
 * others as they would untraced, in order.
 */
void rsw_trace_burst(struct rsw_lcore_stats *st, unsigned int lcore, uint16_t in_port,
		     uint16_t rx_queue, struct rte_mbuf **pkts, uint16_t n);

#endif /* RSW_TRACE_H */
