/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The shaper of a port (docs/qos.md §7): one token bucket at the port's speed, counting wire
 * bytes, shared by every sender of the port (the owner's scheduler and the workers that send
 * straight): set up by the first sender that sees the speed change, taken with one
 * compare-and-swap per burst or drain. Its fields are struct rsw_qos_port's sh_* (writers and
 * readers there).
 */

#ifndef RSW_SHAPER_H
#define RSW_SHAPER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "rsw_qos_state.h"

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

#endif /* RSW_SHAPER_H */
