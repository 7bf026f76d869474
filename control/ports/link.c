/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The link layer's set-up (docs/link.md "Integration"): at start, an LLR machine for each
 * port with ports[].llr (rx queue and MTU were arranged by ports.c) and impairments for each
 * port with ports[].impair, published in rsw_links[]; at run time, impairments replaced
 * under RCU; at the end, after the workers stopped, everything released.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rsw_ctl.h"
#include "rsw_fib.h"
#include "rsw_link.h"
#include "rsw_link_ctl.h"
#include "rsw_module.h"
#include "rsw_qos.h"
#include "rsw_worker.h"

/* The impairments each port runs now (for `show ports`-like readers and reload). */
static struct rsw_cfg_impair impair_now[RSW_MAX_PORTS];

static void
impair_cfg_map(const struct rsw_cfg_impair *c, struct rsw_impair_cfg *d)
{
	d->loss = c->loss;
	d->loss_burst = c->loss_burst;
	d->corrupt = c->corrupt;
	d->delay_us = c->delay_us;
	d->seed = c->seed;
}

/* Every worker has passed a quiescent state since now (none when they do not run yet). */
static void
quiesce(void)
{
	if (rsw_fib_main.qsbr != NULL)
		rte_rcu_qsbr_synchronize(rsw_fib_main.qsbr, RTE_QSBR_THRID_INVALID);
}

int
rsw_ctl_link_impair_set(uint16_t p, const struct rsw_cfg_impair *cfg, char *err, size_t len)
{
	struct rsw_link_impair *li = NULL, *old;
	struct rsw_impair_cfg ic;

	if (p >= RSW_MAX_PORTS)
		return -EINVAL;
	if (cfg != NULL) {
		impair_cfg_map(cfg, &ic);
		if (rsw_impair_cfg_check(&ic) != 0) {
			snprintf(err, len,
				 "impair: loss and corrupt are probabilities 0..1, loss_burst "
				 "1..%u, delay_us 0..%u",
				 RSW_IMPAIR_BURST_MAX, RSW_IMPAIR_DELAY_US_MAX);
			return -EINVAL;
		}
		li = rte_zmalloc("rsw_impair", sizeof(*li), RTE_CACHE_LINE_SIZE);
		if (li == NULL) {
			snprintf(err, len, "impair: out of memory");
			return -ENOMEM;
		}
		rsw_impair_init(&li->im, &ic, rte_get_tsc_hz(), rsw_dp.pool);
		li->im.is_orig = rsw_link_is_orig; /* losses of its own frames drop nothing */
		impair_now[p] = *cfg;
	}
	old = rsw_links[p].im;
	if (li != NULL && !rsw_dp.ports[p].one_sender) {
		/*
		 * An impaired port has one sender, its owner (the delay line is one stream): the
		 * other workers stop sending straight to it first, and the impairments start once
		 * every worker has passed a quiescent state, so that none is still in a direct send
		 * it decided before.
		 */
		rsw_port_set_one_sender(p, true);
		quiesce();
	}
	__atomic_store_n(&rsw_links[p].im, li, __ATOMIC_RELEASE);
	if (old != NULL) {
		quiesce();
		rsw_impair_fini(&old->im);
		rte_free(old);
	}
	if (li == NULL)
		rsw_port_set_one_sender(p,
					false); /* the impairments are gone: direct sends again */
	return 0;
}

int
rsw_ctl_link_impair_get(uint16_t p, struct rsw_cfg_impair *cfg)
{
	if (p >= RSW_MAX_PORTS || rsw_links[p].im == NULL)
		return 0;
	*cfg = impair_now[p];
	return 1;
}

static bool
impair_same(const struct rsw_cfg_port *a, const struct rsw_cfg_port *b)
{
	if (a->has_impair != b->has_impair)
		return false;
	return !a->has_impair || memcmp(&a->impair, &b->impair, sizeof(a->impair)) == 0;
}

void
rsw_ctl_link_reload(const struct rsw_config *o, const struct rsw_config *n)
{
	char err[128];
	uint16_t p;

	for (p = 0; p < n->n_ports && p < o->n_ports; p++)
		if (!impair_same(&o->ports[p], &n->ports[p]))
			rsw_ctl_link_impair_set(p,
						n->ports[p].has_impair ? &n->ports[p].impair : NULL,
						err, sizeof(err));
}

/*
 * The timers for a software link (docs/link.md "Timers and defaults"): the replay timer's
 * floor must outlast a round trip, which here is the peer's wake-up (idle_sleep_us, both
 * ends) and, on a slow link, the time to send the bytes between two ACKs
 * (ack_spacing_bytes, a few of them queued); above it the timer follows the measured round
 * trip. The data age outlasts twice every replay a FLUSH allows (rsw_llr_replay_span_ns),
 * so that a peer that is silent for a while, not gone, is waited for.
 */
static void
llr_timers(struct rsw_llr_params *prm, uint64_t speed_bps, uint32_t idle_sleep_us)
{
	uint64_t spacing_ns = 0, t;

	if (speed_bps != 0)
		spacing_ns =
			(uint64_t)(prm->ack_spacing_bytes + 24) * 8 * 1000000000ull / speed_bps;
	t = prm->replay_timeout_ns + 2000ull * idle_sleep_us + 4 * spacing_ns;
	prm->replay_timeout_ns = t;
	if (prm->replay_timeout_max_ns < t)
		prm->replay_timeout_max_ns = t;
	t = 2 * rsw_llr_replay_span_ns(prm);
	if (t > prm->data_age_timeout_ns)
		prm->data_age_timeout_ns = t;
}

static int
llr_create(uint16_t p, const struct rsw_cfg_port *cp, const struct rsw_config *cfg)
{
	struct rsw_llr_params prm;
	struct rsw_link_llr *ll;

	rsw_llr_params_default(&prm);
	prm.fallback = (enum rsw_llr_fallback)cp->llr_fallback;
	llr_timers(&prm, rsw_qos.port[p].speed_bps, cfg->sw.idle_sleep_us);
	ll = rte_zmalloc("rsw_link_llr", sizeof(*ll), RTE_CACHE_LINE_SIZE);
	if (ll == NULL)
		return -ENOMEM;
	ll->l = rte_zmalloc("rsw_llr", rsw_llr_mem_size(prm.frames_max), RTE_CACHE_LINE_SIZE);
	if (ll->l == NULL) {
		rte_free(ll);
		return -ENOMEM;
	}
	ll->port = p;
	if (rsw_llr_init(ll->l, &prm, rsw_link_llr_release, ll) != 0) {
		rte_free(ll->l);
		rte_free(ll);
		return -EINVAL;
	}
	ll->l->charge = rsw_link_llr_charge;
	rsw_llr_start(ll->l, rsw_link_now_ns());
	rsw_qos.port[p].llr = 1; /* never idle: every frame through the scheduler */
	rsw_links[p].llr = ll;
	return 0;
}

/* What the receiver grants per VC by default: the PG's XOFF threshold (dynamic: alpha × total). */
static uint64_t
cbfc_default_buffer(const struct rsw_config *cfg)
{
	const struct rsw_cfg_qos *q = &cfg->qos;
	uint64_t b = q->pfc.xoff;

	if (q->pfc.dynamic)
		b = (uint64_t)(q->pfc.alpha * (double)q->buffer_total);
	return RTE_MIN(b, q->buffer_total);
}

static int
cbfc_create(uint16_t p, const struct rsw_cfg_port *cp, const struct rsw_config *cfg)
{
	struct rsw_cbfc_params prm;
	struct rsw_link_cbfc *lc;
	uint64_t buf = cp->cbfc.buffer ? cp->cbfc.buffer : cbfc_default_buffer(cfg);

	rsw_cbfc_params_default(&prm);
	prm.vcs = cfg->qos.lossless;
	prm.fallback = (uint8_t)cp->cbfc.fallback;
	prm.reliable = cp->llr; /* LLR replays what the wire loses */
	prm.bytes_per_credit = cp->cbfc.bytes_per_credit;
	prm.buffer_bytes = (uint32_t)RTE_MIN(buf, (uint64_t)UINT32_MAX);
	prm.session = (uint32_t)rte_rdtsc(); /* a restarted switch starts another session */
	/* A software peer answers within its wake-up: updates no tighter than that. */
	prm.update_interval_ns = RTE_MAX(prm.update_interval_ns, 2000ull * cfg->sw.idle_sleep_us);
	if (cfg->qos.pfcwd.action != RSW_PFCWD_OFF)
		prm.watchdog_ns = (uint64_t)cfg->qos.pfcwd.detect_ms * 1000000ull;
	lc = rte_zmalloc("rsw_link_cbfc", sizeof(*lc), RTE_CACHE_LINE_SIZE);
	if (lc == NULL)
		return -ENOMEM;
	lc->port = p;
	if (rsw_cbfc_init(&lc->c, &prm) != 0) {
		rte_free(lc);
		return -EINVAL;
	}
	rsw_cbfc_start(&lc->c, rsw_link_now_ns());
	rsw_qos.port[p].llr = 1; /* never idle: every frame through the scheduler's credit gate */
	rsw_links[p].cbfc = lc;
	return 0;
}

static int
link_init(const struct rsw_config *cfg)
{
	char err[128];
	uint16_t p;
	int ret;

	rsw_link_clock_init(rte_get_tsc_hz());
	for (p = 0; p < cfg->n_ports; p++) {
		const struct rsw_cfg_port *cp = &cfg->ports[p];

		if (cp->llr && (ret = llr_create(p, cp, cfg)) != 0) {
			RTE_LOG(ERR, USER1, "railsw: port %s: cannot set up LLR: %s\n", cp->name,
				strerror(-ret));
			return ret;
		}
		if (cp->cbfc.enable && (ret = cbfc_create(p, cp, cfg)) != 0) {
			RTE_LOG(ERR, USER1, "railsw: port %s: cannot set up CBFC: %s\n", cp->name,
				strerror(-ret));
			return ret;
		}
		if (cp->has_impair &&
		    (ret = rsw_ctl_link_impair_set(p, &cp->impair, err, sizeof(err))) != 0) {
			RTE_LOG(ERR, USER1, "railsw: port %s: %s\n", cp->name, err);
			return ret;
		}
	}
	return 0;
}

/* After the workers stopped: the replay rings, held frames and delay lines. */
static void
link_fini(void)
{
	uint16_t p;

	for (p = 0; p < RSW_MAX_PORTS; p++) {
		struct rsw_link_llr *ll = rsw_links[p].llr;
		struct rsw_link_impair *li = rsw_links[p].im;
		struct rsw_link_cbfc *lc = rsw_links[p].cbfc;

		rsw_links[p].llr = NULL;
		rsw_links[p].im = NULL;
		rsw_links[p].cbfc = NULL;
		if (lc != NULL) {
			rte_free(lc);
			rsw_qos.port[p].llr = 0;
		}
		if (ll != NULL) {
			rsw_llr_stop(ll->l);
			if (ll->n_held)
				rte_pktmbuf_free_bulk(ll->held, ll->n_held);
			rte_free(ll->l);
			rte_free(ll);
			rsw_qos.port[p].llr = 0;
		}
		if (li != NULL) {
			rsw_impair_fini(&li->im);
			rte_free(li);
		}
	}
}

static struct rsw_module link_module = {
	.name = "link",
	.order = RSW_MODULE_ORDER_LIVENESS - 50,
	.init = link_init,
	.fini = link_fini,
};

RSW_MODULE_REGISTER(link_module);
