/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/* The NSCC-like window and REPS-like entropy recycling of rsw_nscc.h. */

#include "rsw_nscc.h"

void
rsw_nscc_init(struct rsw_nscc *c, const struct rsw_nscc_params *p)
{
	*c = (struct rsw_nscc){.cwnd = p->max_cwnd, .cwnd_min_seen = p->max_cwnd};
}

static void
clamp(struct rsw_nscc *c, const struct rsw_nscc_params *p)
{
	if (c->cwnd > p->max_cwnd)
		c->cwnd = p->max_cwnd;
	if (c->cwnd < p->min_cwnd)
		c->cwnd = p->min_cwnd;
	if (c->cwnd < c->cwnd_min_seen)
		c->cwnd_min_seen = c->cwnd;
}

int
rsw_nscc_feedback(struct rsw_nscc *c, const struct rsw_nscc_params *p, uint32_t acked,
		  uint32_t marked, uint32_t trimmed, uint64_t delay_ns)
{
	double n, fm, ft;
	uint64_t delay;

	c->acked += acked;
	c->marked += marked < acked ? marked : acked;
	c->trimmed += trimmed;
	if (delay_ns) {
		c->delay_sum += delay_ns;
		c->delay_n++;
	}
	n = (double)c->acked + c->trimmed;
	if (n < c->cwnd || n < 1)
		return 0;
	fm = c->marked / n;
	ft = c->trimmed / n;
	delay = c->delay_n ? c->delay_sum / c->delay_n : 0;
	if (ft > 0 || (fm > 0 && delay > p->target_ns)) {
		/* A trim is an overflow wherever it happened: cut on it whatever the delay. */
		c->cwnd *= 1 - p->beta * (ft + (delay > p->target_ns ? fm : 0));
		c->cuts++;
	} else if (fm > 0) {
		c->holds++; /* marks with a short queue: a transient, or another hop's */
	} else if (delay > p->target_ns) {
		c->cwnd += p->ai;
		c->grows++;
	} else {
		c->cwnd += p->fast_gain * (p->max_cwnd - c->cwnd) + p->ai;
		c->grows++;
	}
	clamp(c, p);
	c->acked = c->marked = c->trimmed = 0;
	c->delay_sum = 0;
	c->delay_n = 0;
	return 1;
}

void
rsw_nscc_timeout(struct rsw_nscc *c, const struct rsw_nscc_params *p)
{
	c->cwnd = p->min_cwnd;
	c->cuts++;
	clamp(c, p);
}

void
rsw_reps_init(struct rsw_reps *r, uint16_t base, uint16_t size, uint32_t seed, int recycle)
{
	*r = (struct rsw_reps){.base = base, .size = size, .rnd = seed | 1, .recycle = recycle};
}

uint16_t
rsw_reps_next(struct rsw_reps *r)
{
	uint32_t x = r->rnd;

	if (r->recycle && r->head != r->tail) {
		r->reused++;
		return r->ring[r->head++ % RSW_REPS_RING];
	}
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	r->rnd = x;
	r->fresh++;
	return (uint16_t)(r->base + (x & (uint32_t)(r->size - 1)));
}

void
rsw_reps_feedback(struct rsw_reps *r, uint16_t entropy, int marked)
{
	if (!r->recycle || marked || r->tail - r->head >= RSW_REPS_RING)
		return;
	r->ring[r->tail++ % RSW_REPS_RING] = entropy;
}
