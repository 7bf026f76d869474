/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Injected link faults (ports[].impair, docs/link.md "Impairments"): the last step before
 * a port's rte_eth_tx_burst loses, corrupts and delays what the port transmits, data,
 * PFC/PAUSE and LLR control frames alike, as a faulty wire would. Deterministic: the
 * same seed and the same frames give the same faults.
 *
 * Zero cost where not configured: the port's struct rsw_impair pointer is NULL and the
 * transmit step tests only that.
 *
 * Thread-safety: one struct rsw_impair per port, used by the lcore that transmits on the
 * port. The control thread reads ctr[] and replaces the whole struct (`port NAME impair`)
 * through the worker's publication mechanism, never under the worker's feet.
 */

#ifndef RSW_IMPAIR_H
#define RSW_IMPAIR_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/*
 * Counters: X(name, is_drop, kind, unit, help). impair_dropped and impair_corrupted are
 * the names of docs/cli.md (`show ports`, `show drops`).
 */
#define RSW_FOREACH_IMPAIR_CTR(X)                                                                  \
	X(impair_dropped, 1, COUNTER, "packets", "dropped: lost on purpose (impair: loss)")        \
	X(impair_corrupted, 0, COUNTER, "packets",                                                 \
	  "frames sent with one bit flipped (impair: corrupt)")                                    \
	X(impair_delay_overflow, 1, COUNTER, "packets",                                            \
	  "dropped: the delay line (impair: delay_us) was full")                                   \
	X(impair_delayed, 0, GAUGE, "packets", "frames in the delay line now")

enum rsw_impair_ctr {
#define RSW_X_ENUM(name, ...) RSW_IMPAIR_##name,
	RSW_FOREACH_IMPAIR_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_IMPAIR_CTRS
};

/** Name of an impairment counter (NULL out of range). */
const char *rsw_impair_ctr_name(enum rsw_impair_ctr c);

/** Whether an impairment counter counts dropped frames (a `show drops` reason). */
int rsw_impair_ctr_is_drop(enum rsw_impair_ctr c);

/* What a port injects (the keys of ports[].impair). */
struct rsw_impair_cfg {
	double loss;         /* probability that a loss event starts at a frame; 0..1 */
	uint32_t loss_burst; /* frames lost per loss event; >= 1 (0 is taken as 1) */
	double corrupt;      /* probability that a frame leaves with one bit flipped; 0..1 */
	uint32_t delay_us;   /* added to every frame; 0..RSW_IMPAIR_DELAY_US_MAX */
	uint64_t seed;       /* the pseudo-random sequence */
};

#define RSW_IMPAIR_DELAY_MAX    4096    /* frames the delay line holds */
#define RSW_IMPAIR_DELAY_US_MAX 1000000 /* one second */
#define RSW_IMPAIR_BURST_MAX    1000000 /* the largest loss_burst */

/* A frame waiting in the delay line. */
struct rsw_impair_slot {
	uint64_t at; /* when it may leave (the caller's clock) */
	struct rte_mbuf *m;
};

struct rsw_impair {
	uint64_t rng; /* splitmix64 state */
	double loss;  /* as configured */
	double corrupt;
	uint32_t loss_burst;
	uint32_t burst_left;      /* frames still to lose in the current event */
	uint64_t delay_ticks;     /* delay_us in the caller's clock */
	uint32_t dl_head;         /* delay line: next slot out (free-running) */
	uint32_t dl_tail;         /* next slot in */
	struct rte_mempool *pool; /* copies of shared frames before a bit flip */
	/* Optional: whether a frame was made by the switch itself (then a loss counts in
	 * dropped_orig, not impair_dropped: no received frame was dropped). Set by the caller
	 * after rsw_impair_init; NULL counts every loss in impair_dropped. */
	int (*is_orig)(const struct rte_mbuf *m);
	uint64_t dropped_orig; /* losses of frames is_orig says the switch made */
	uint64_t ctr[RSW_N_IMPAIR_CTRS];
	struct rsw_impair_slot dl[RSW_IMPAIR_DELAY_MAX];
};

/**
 * Check a configuration.
 * @return 0, or -EINVAL (a probability outside 0..1 or not a number, loss_burst or
 *   delay_us out of range).
 */
int rsw_impair_cfg_check(const struct rsw_impair_cfg *cfg);

/**
 * Initialise im (zeroed or not) from cfg.
 * @param hz
 *   Ticks per second of the clock later given to rsw_impair_burst (rte_get_tsc_hz()).
 * @param pool
 *   Pool for the copy a frame gets before its bit flip when the frame is shared (an LLR
 *   replay buffer holds it); NULL: shared frames are not corrupted.
 * @return 0, or -EINVAL from rsw_impair_cfg_check.
 */
int rsw_impair_init(struct rsw_impair *im, const struct rsw_impair_cfg *cfg, uint64_t hz,
		    struct rte_mempool *pool);

/** Free the frames still in the delay line (counted as dropped). im may be NULL. */
void rsw_impair_fini(struct rsw_impair *im);

/**
 * Impair frames about to be sent. Every frame of pkts is taken: lost ones are freed and
 * counted, the others (one bit flipped in some) go to out now or, with a delay, into the
 * delay line, from which frames whose time has come go to out, oldest first.
 * @param pkts, n
 *   Frames to send (n may be 0: only the delay line is served).
 * @param now
 *   The clock (ticks of hz).
 * @param out
 *   Receives the frames to send now; may be pkts itself.
 * @param max_out
 *   Room in out; at least n when there is no delay.
 * @return the number of frames in out.
 */
uint16_t rsw_impair_burst(struct rsw_impair *im, struct rte_mbuf **pkts, uint16_t n, uint64_t now,
			  struct rte_mbuf **out, uint16_t max_out);

/** The next pseudo-random number of a splitmix64 state (exposed for the tests). */
static inline uint64_t
rsw_impair_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif /* RSW_IMPAIR_H */
