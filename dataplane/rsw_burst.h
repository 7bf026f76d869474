/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The scratch of one burst (worker.c's rsw_process_burst), shared by the steps
 * that run on it: parse and classify fill the per-family arrays (f4, f6), the
 * lookup keys and, for the frames that are not the parse step's common case,
 * info[]; lookup the results, resolve stages each frame on its egress port (stage[]), the
 * per-burst admission (qos/mmu.c) sends a port's staged frames on as they are
 * or admits them one by one into slots per (egress port, TC), and the queue
 * step (qos/queue.c) transmits a port's staged frames, or sends each slot
 * cut-through or enqueues it. One worker's stack alone: no field is shared
 * with another thread.
 */

#ifndef RSW_BURST_H
#define RSW_BURST_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_defs.h"
#include "rsw_parse.h"
#include "rsw_stats.h"
#include "rsw_worker.h"

/*
 * The frames resolve staged per egress port p, in the order resolved: m[p], their burst indices
 * idx[p] (each frame's rsw_pkt_info, when it has one), n[p] of them, and their per-TC counts tc[p] (bytes << 32 |
 * packets: one add per frame). Arrays of power-of-two strides, so that a port's row is a shift
 * away. n and tc are cleared for every port at the burst's start (rsw_stage_init).
 */
struct rsw_stage {
	struct rte_mbuf *m[RSW_MAX_PORTS][RSW_BURST];
	uint64_t tc[RSW_MAX_PORTS][RSW_N_TC];
	uint8_t idx[RSW_MAX_PORTS][RSW_BURST];
	uint8_t n[RSW_MAX_PORTS];
	/* Once resolve is done (rsw_stage_done), for each staged port: its TCs with frames (bit
	 * t: tc[p][t] non-zero) and its bytes. */
	uint8_t tcs[RSW_MAX_PORTS];
	uint64_t bytes[RSW_MAX_PORTS];
};

struct rsw_tables;

/*
 * The routed frames of one family (pass 1 finds them, one bulk lookup takes them all), with
 * what the steps after the lookup read of each, as arrays indexed by the frame's place k in
 * the family: the frame, its burst index (its parse record, when it has one: rsw_burst.rec),
 * the lookup result, the flow hash (a result that is a group of two or more members, with
 * lb_hash_batch), the IP length and the TC.
 */
struct rsw_fam {
	struct rte_mbuf *m[RSW_BURST];
	uint64_t nh[RSW_BURST];
	uint32_t hash[RSW_BURST];
	uint16_t l3_len[RSW_BURST];
	uint8_t idx[RSW_BURST];
	uint8_t tc[RSW_BURST];
	uint16_t n;
};

/* Burst-wide scratch: what each routed packet needs between the passes. */
struct rsw_burst {
	struct rsw_fam f4, f6;
	uint32_t v4_ip[RSW_BURST];    /* IPv4 lookup keys, host order */
	uint8_t v6_ip[RSW_BURST][16]; /* IPv6 lookup keys */
	/* Parse records by burst index, valid where rec has the bit: frames of the parse step's
	 * common case have none until a step makes one (rsw_burst_record). */
	struct rsw_pkt_info info[RSW_BURST];
	uint32_t rec;
	const uint8_t *dscp_tc; /* DSCP → TC of the tables (trust DSCP), else NULL */
	/* The burst's lcore counters, tables and ingress port, for the steps' rare branches. */
	struct rsw_lcore_stats *st;
	const struct rsw_tables *t;
	uint16_t in_port;
	struct rte_mbuf *punt[RSW_BURST];
	struct rte_mbuf *err[RSW_BURST]; /* not forwarded, to be answered with ICMP */
	struct rte_mbuf *freed[RSW_BURST];
	/* Admitted frames grouped by (egress port, TC), one bulk enqueue each. */
	uint8_t slot_of[RSW_MAX_PORTS * RSW_N_TC]; /* 0xff = none; set up by the first slot */
	struct rsw_out_slot {
		uint16_t port;
		uint8_t tc;
		uint8_t n;
		uint32_t bytes;
		uint64_t room; /* bytes admitted without a check: below every threshold */
		/* The indices first: a slot of up to 10 frames touches two cache lines. */
		uint8_t info[RSW_BURST]; /* index of each frame's rsw_pkt_info in the burst */
		struct rte_mbuf *m[RSW_BURST];
	} slots[RSW_BURST];
	uint64_t used_add; /* bytes admitted by the burst */
	uint64_t buf_room; /* shared buffer free at the burst start, headroom reserve excluded */
	uint8_t fast_tcs;  /* TCs whose admission is a queue limit and the buffer only */
	uint8_t has_cnp;   /* a CNP was received in the burst */
	uint8_t pg_owner[RSW_N_TC]; /* lossless TC: the slot holding the PG's room, 0xff = none */
	uint64_t rx_bytes; /* received by the burst: bounds what it can add to the buffer */
	uint64_t now;      /* TSC at the start of the burst (flowlets) */
	uint16_t n_punt, n_err, n_freed, n_slots;
	uint32_t staged; /* bit p: stage[p] holds frames (rsw_stage_done, after resolve) */
	struct rsw_stage stage;
};

/* Count one frame dropped for reason why on port and free it with the burst. */
static inline void
rsw_burst_drop(struct rsw_burst *c, struct rsw_lcore_stats *st, uint16_t port, struct rte_mbuf *m,
	       enum rsw_port_ctr why)
{
	st->port[port].c[why]++;
	c->freed[c->n_freed++] = m;
}

/*
 * The parse record of burst frame idx (m), made now from its header when pass 1 left it out (the
 * parse step's common case, rsw_parse_fill: before or after the rewrite, which only the TTL
 * tells), classified by the DSCP map as pass 1 classified it.
 */
static inline struct rsw_pkt_info *
rsw_burst_record(struct rsw_burst *c, uint8_t idx, const struct rte_mbuf *m)
{
	struct rsw_pkt_info *info = &c->info[idx];

	if (!((c->rec >> idx) & 1)) {
		rsw_parse_fill(m, info);
		info->tc = c->dscp_tc[info->dscp];
		c->rec |= 1u << idx;
	}
	return info;
}

/**
 * rsw_process_burst on the caller's scratch c, which keeps what each step decided when it
 * returns (the trace reads it: rsw_trace.h).
 */
void rsw_process_burst_c(struct rsw_burst *c, struct rsw_lcore_stats *st, uint16_t in_port,
			 struct rte_mbuf **pkts, uint16_t n);

#endif /* RSW_BURST_H */
