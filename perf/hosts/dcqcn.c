/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * DCQCN reaction and notification points (rsw_dcqcn.h). The update rules follow the
 * DCQCN paper §4 and the authors' ns-3 code (bobzhuyb/ns3-rdma, qbb-net-device.cc):
 * on a CNP  rt ← rc, rc ← rc·(1 − α/2), α ← (1 − g)·α + g;
 * every α interval without a CNP  α ← (1 − g)·α;
 * on each timer (T) or byte-counter (B) event, with i = min(t, bc) stages done:
 * max(t, bc) < F → fast recovery rc ← (rt + rc)/2;
 * min(t, bc) > F → hyper increase rt += (i − F)·R_HAI, then rc ← (rt + rc)/2;
 * otherwise → additive increase rt += R_AI, then rc ← (rt + rc)/2.
 */

#include "rsw_dcqcn.h"

void
rsw_dcqcn_params_default(struct rsw_dcqcn_params *p, double line_bps, double time_scale)
{
	double k = line_bps / 40e9; /* the ns-3 figures are for 40 Gb/s */

	if (time_scale < 1)
		time_scale = 1;
	p->line_bps = line_bps;
	p->min_bps = line_bps / 1000;
	p->g = 1.0 / 256;
	p->cnp_interval_ns = (uint64_t)(50e3 * time_scale);
	p->alpha_ns = (uint64_t)(55e3 * time_scale);
	p->timer_ns = (uint64_t)(60e3 * time_scale);
	/* What the link carries in one T at line rate (300 KB at 40 Gb/s and 60 µs). */
	p->byte_counter = (uint64_t)(line_bps / 8 * (double)p->timer_ns / 1e9);
	if (p->byte_counter < 4096)
		p->byte_counter = 4096;
	p->f = 5;
	p->rai_bps = 40e6 * k;
	p->rhai_bps = 200e6 * k;
}

void
rsw_dcqcn_rp_init(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p)
{
	*rp = (struct rsw_dcqcn_rp){
		.rc = p->line_bps,
		.rt = p->line_bps,
		.alpha = 1.0,
	};
}

static void
increase(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p)
{
	unsigned int hi = rp->t_stage > rp->bc_stage ? rp->t_stage : rp->bc_stage;
	unsigned int lo = rp->t_stage < rp->bc_stage ? rp->t_stage : rp->bc_stage;

	rp->increases++;
	if (hi < p->f) {
		/* fast recovery: toward the target, which stays */
	} else if (lo > p->f) {
		rp->rt += (lo - p->f) * p->rhai_bps;
	} else {
		rp->rt += p->rai_bps;
	}
	if (rp->rt > p->line_bps)
		rp->rt = p->line_bps;
	rp->rc = (rp->rt + rp->rc) / 2;
	if (rp->rc > p->line_bps)
		rp->rc = p->line_bps;
	if (rp->rc >= p->line_bps && rp->rt >= p->line_bps)
		rp->active = 0;
}

void
rsw_dcqcn_rp_cnp(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p, uint64_t now)
{
	rp->cnps++;
	rp->rt = rp->rc;
	rp->rc = rp->rc * (1 - rp->alpha / 2);
	if (rp->rc < p->min_bps)
		rp->rc = p->min_bps;
	rp->alpha = (1 - p->g) * rp->alpha + p->g;
	rp->t_stage = 0;
	rp->bc_stage = 0;
	rp->bytes = 0;
	rp->alpha_due = now + p->alpha_ns;
	rp->timer_due = now + p->timer_ns;
	rp->active = 1;
}

void
rsw_dcqcn_rp_sent(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p, uint64_t n)
{
	if (!rp->active)
		return;
	rp->bytes += n;
	while (rp->active && rp->bytes >= p->byte_counter) {
		rp->bytes -= p->byte_counter;
		rp->bc_stage++;
		increase(rp, p);
	}
}

void
rsw_dcqcn_rp_tick(struct rsw_dcqcn_rp *rp, const struct rsw_dcqcn_params *p, uint64_t now)
{
	if (rp->alpha_due != 0) {
		while (now >= rp->alpha_due) {
			rp->alpha = (1 - p->g) * rp->alpha;
			rp->alpha_due += p->alpha_ns;
		}
	}
	if (!rp->active)
		return;
	while (rp->active && now >= rp->timer_due) {
		rp->timer_due += p->timer_ns;
		rp->t_stage++;
		increase(rp, p);
	}
}

int
rsw_dcqcn_np_ce(struct rsw_dcqcn_np *np, const struct rsw_dcqcn_params *p, uint64_t now)
{
	np->ce_rx++;
	if (np->sent_any && now - np->last_cnp < p->cnp_interval_ns)
		return 0;
	np->sent_any = 1;
	np->last_cnp = now;
	np->cnp_tx++;
	return 1;
}
