/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Injected link faults (rsw_impair.h): the last step of a port's transmit path when the
 * port has ports[].impair. Per frame, in this order: loss (an event that takes
 * loss_burst frames), corruption (one bit flipped at a uniform position), delay (a FIFO
 * of release times: the delay is the same for every frame, so the line stays sorted).
 */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "rsw_impair.h"

static const char *const ctr_names[RSW_N_IMPAIR_CTRS] = {
#define RSW_X_NAME(name, ...) #name,
	RSW_FOREACH_IMPAIR_CTR(RSW_X_NAME)
#undef RSW_X_NAME
};

static const uint8_t ctr_is_drop[RSW_N_IMPAIR_CTRS] = {
#define RSW_X_DROP(name, drop, ...) drop,
	RSW_FOREACH_IMPAIR_CTR(RSW_X_DROP)
#undef RSW_X_DROP
};

const char *
rsw_impair_ctr_name(enum rsw_impair_ctr c)
{
	return (unsigned int)c < RSW_N_IMPAIR_CTRS ? ctr_names[c] : NULL;
}

int
rsw_impair_ctr_is_drop(enum rsw_impair_ctr c)
{
	return (unsigned int)c < RSW_N_IMPAIR_CTRS ? ctr_is_drop[c] : 0;
}

static int
prob_ok(double p)
{
	return !isnan(p) && p >= 0.0 && p <= 1.0;
}

int
rsw_impair_cfg_check(const struct rsw_impair_cfg *cfg)
{
	if (cfg == NULL || !prob_ok(cfg->loss) || !prob_ok(cfg->corrupt) ||
	    cfg->loss_burst > RSW_IMPAIR_BURST_MAX || cfg->delay_us > RSW_IMPAIR_DELAY_US_MAX)
		return -EINVAL;
	return 0;
}

int
rsw_impair_init(struct rsw_impair *im, const struct rsw_impair_cfg *cfg, uint64_t hz,
		struct rte_mempool *pool)
{
	if (im == NULL || rsw_impair_cfg_check(cfg) < 0)
		return -EINVAL;
	memset(im, 0, offsetof(struct rsw_impair, dl));
	im->rng = cfg->seed;
	im->loss = cfg->loss;
	im->corrupt = cfg->corrupt;
	im->loss_burst = cfg->loss_burst == 0 ? 1 : cfg->loss_burst;
	im->delay_ticks = (uint64_t)((__uint128_t)cfg->delay_us * hz / 1000000);
	im->pool = pool;
	return 0;
}

/* Count a loss: orig when the switch made the frame (rsw_impair.is_orig). */
static inline void
count_lost(struct rsw_impair *im, int orig)
{
	if (orig)
		im->dropped_orig++;
	else
		im->ctr[RSW_IMPAIR_impair_dropped]++;
}

void
rsw_impair_fini(struct rsw_impair *im)
{
	if (im == NULL)
		return;
	while (im->dl_head != im->dl_tail) {
		struct rte_mbuf *m = im->dl[im->dl_head % RSW_IMPAIR_DELAY_MAX].m;

		count_lost(im, im->is_orig != NULL && im->is_orig(m));
		rte_pktmbuf_free(m);
		im->dl_head++;
	}
	im->ctr[RSW_IMPAIR_impair_delayed] = 0;
}

/* A uniform draw in [0, 1) with 53 bits; p = 1 always wins, p = 0 never. */
static inline int
draw(struct rsw_impair *im, double p)
{
	return (double)(rsw_impair_rand(&im->rng) >> 11) * 0x1.0p-53 < p;
}

/*
 * Flip one bit of m at a uniform position. A frame somebody else also holds (an LLR
 * replay buffer, a delay line elsewhere) is copied first, so only this transmission
 * is corrupted. @return the frame to send, or NULL if it had to be dropped.
 */
static struct rte_mbuf *
corrupt(struct rsw_impair *im, struct rte_mbuf *m)
{
	uint64_t bit = rsw_impair_rand(&im->rng) % ((uint64_t)rte_pktmbuf_pkt_len(m) * 8);
	uint32_t off = (uint32_t)(bit / 8);
	struct rte_mbuf *seg;

	if (rte_mbuf_refcnt_read(m) > 1 || RTE_MBUF_CLONED(m) || RTE_MBUF_HAS_EXTBUF(m)) {
		struct rte_mbuf *c = NULL;

		if (im->pool != NULL)
			c = rte_pktmbuf_copy(m, im->pool, 0, UINT32_MAX);
		rte_pktmbuf_free(m);
		if (c == NULL)
			return NULL;
		m = c;
	}
	for (seg = m; seg != NULL && off >= seg->data_len; seg = seg->next)
		off -= seg->data_len;
	if (seg == NULL)
		return m; /* inconsistent lengths: leave the frame as it is */
	rte_pktmbuf_mtod(seg, uint8_t *)[off] ^= (uint8_t)(1u << (bit % 8));
	im->ctr[RSW_IMPAIR_impair_corrupted]++;
	return m;
}

uint16_t
rsw_impair_burst(struct rsw_impair *im, struct rte_mbuf **pkts, uint16_t n, uint64_t now,
		 struct rte_mbuf **out, uint16_t max_out)
{
	uint16_t i, o = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int orig = im->is_orig != NULL && im->is_orig(m);

		if (im->burst_left > 0) {
			im->burst_left--;
			goto lost;
		}
		if (im->loss > 0.0 && draw(im, im->loss)) {
			im->burst_left = im->loss_burst - 1;
			goto lost;
		}
		if (im->corrupt > 0.0 && rte_pktmbuf_pkt_len(m) > 0 && draw(im, im->corrupt)) {
			m = corrupt(im, m);
			if (m == NULL) {
				count_lost(im, orig);
				continue;
			}
		}
		if (im->delay_ticks == 0) {
			out[o++] = m; /* o <= i: safe when out is pkts */
			continue;
		}
		if (im->dl_tail - im->dl_head >= RSW_IMPAIR_DELAY_MAX) {
			im->ctr[RSW_IMPAIR_impair_delay_overflow]++;
			rte_pktmbuf_free(m);
			continue;
		}
		im->dl[im->dl_tail % RSW_IMPAIR_DELAY_MAX].at = now + im->delay_ticks;
		im->dl[im->dl_tail % RSW_IMPAIR_DELAY_MAX].m = m;
		im->dl_tail++;
		continue;
	lost:
		count_lost(im, orig);
		rte_pktmbuf_free(m);
	}
	if (im->delay_ticks == 0)
		return o;
	/* The delay line, oldest first. */
	while (o < max_out && im->dl_head != im->dl_tail) {
		struct rsw_impair_slot *s = &im->dl[im->dl_head % RSW_IMPAIR_DELAY_MAX];

		if ((int64_t)(now - s->at) < 0)
			break;
		out[o++] = s->m;
		im->dl_head++;
	}
	im->ctr[RSW_IMPAIR_impair_delayed] = im->dl_tail - im->dl_head;
	return o;
}
