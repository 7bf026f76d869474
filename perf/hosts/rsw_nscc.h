/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Congestion control and entropy feedback for the lab hosts' UET-like transport, pure C
 * with no DPDK (times in nanoseconds given by the caller):
 * - an NSCC-like window (after SMaRTT, Bonato et al. 2024, and UEC's NSCC): a window of
 *   packets in flight that starts at, and grows back toward, one BDP; once per window of
 *   feedback it is cut in proportion to the ECN-marked and the trimmed fractions of that
 *   feedback when the measured delay is above its target, held when marks come with a
 *   delay below the target (a transient queue), and grown when nothing is marked.
 * - REPS-like entropy recycling (Bonato et al., "REPS", 2024): entropies whose packets
 *   came back unmarked are reused, oldest first; with none to reuse the sender draws a
 *   fresh one from its pool (oblivious spraying is REPS with recycling off).
 * rswhost (host_io.c) drives both; test/test_nscc.c checks them by hand-worked sequences.
 */

#ifndef RSW_NSCC_H
#define RSW_NSCC_H

#include <stdint.h>

struct rsw_nscc_params {
	double max_cwnd;    /* packets: one BDP (the window starts and is capped here) */
	double min_cwnd;    /* packets: the floor (1) */
	uint64_t target_ns; /* delay target: base RTT plus the queueing allowed */
	double beta;        /* multiplicative-decrease gain on a marked/trimmed fraction */
	double fast_gain;   /* per epoch, below target and unmarked: grow by this share
				     of the gap to max_cwnd */
	double ai;          /* per epoch, above target and unmarked: grow by this (pkts) */
};

struct rsw_nscc {
	double cwnd;          /* packets allowed in flight */
	uint32_t acked;       /* packets acknowledged in this epoch */
	uint32_t marked;      /* of them ECN-marked */
	uint32_t trimmed;     /* trims (NACKs) in this epoch */
	uint64_t delay_sum;   /* ns, over the epoch's delay samples */
	uint32_t delay_n;     /* delay samples in the epoch */
	uint64_t cuts;        /* epochs that cut the window */
	uint64_t holds;       /* epochs that held it */
	uint64_t grows;       /* epochs that grew it */
	double cwnd_min_seen; /* smallest window so far */
};

void rsw_nscc_init(struct rsw_nscc *c, const struct rsw_nscc_params *p);
/**
 * Feedback: @p acked packets acknowledged, @p marked of them ECN-marked, @p trimmed trims
 * NACKed, @p delay_ns a delay sample (0: none). Ends the epoch when it holds a window's
 * feedback, and then adjusts the window. @return 1 if the epoch ended.
 */
int rsw_nscc_feedback(struct rsw_nscc *c, const struct rsw_nscc_params *p, uint32_t acked,
		      uint32_t marked, uint32_t trimmed, uint64_t delay_ns);
/** A retransmission timeout: the window falls to the floor. */
void rsw_nscc_timeout(struct rsw_nscc *c, const struct rsw_nscc_params *p);

#define RSW_REPS_RING 64 /* entropies held for reuse */

struct rsw_reps {
	uint16_t ring[RSW_REPS_RING];
	uint32_t head, tail; /* pop at head, push at tail */
	uint32_t rnd;        /* xorshift state for fresh entropies */
	uint16_t base;       /* the pool: base + 0 .. size − 1 */
	uint16_t size;       /* power of two */
	int recycle;         /* 0: oblivious spraying */
	uint64_t reused;     /* entropies taken from the ring */
	uint64_t fresh;      /* entropies drawn fresh */
};

void rsw_reps_init(struct rsw_reps *r, uint16_t base, uint16_t size, uint32_t seed, int recycle);
/** The entropy of the next packet. */
uint16_t rsw_reps_next(struct rsw_reps *r);
/** An ACK returned @p entropy, @p marked or not: an unmarked one is kept for reuse. */
void rsw_reps_feedback(struct rsw_reps *r, uint16_t entropy, int marked);

#endif /* RSW_NSCC_H */
