/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The QoS parameters of a table generation (struct rsw_qos_params, the dataplane's own) filled
 * from the configuration's qos: section. The dataplane never reads the configuration.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>

#include "rsw_qos_cfg.h"
#include "rsw_worker.h"

uint64_t
rsw_qos_default_headroom(const struct rsw_config *cfg, unsigned int n_workers)
{
	const struct rsw_cfg_qos *q = &cfg->qos;
	uint64_t frame = 0, per_max, base = q->pfc.headroom, extra;
	unsigned int n_lossless = (unsigned int)__builtin_popcount(q->lossless), i;

	if (n_workers <= 1 || n_lossless == 0 || cfg->n_ports == 0)
		return base;
	for (i = 0; i < cfg->n_ports; i++)
		frame = RTE_MAX(frame, (uint64_t)cfg->ports[i].mtu + RTE_ETHER_HDR_LEN + 8);
	extra = (uint64_t)(n_workers - 1) * RSW_BURST * frame;
	/* What the loader checked for the configured values must still hold. */
	per_max = q->buffer_total / ((uint64_t)cfg->n_ports * n_lossless);
	per_max -= RTE_MIN(per_max, base + (q->pfc.dynamic ? 0 : q->pfc.xoff));
	return base + RTE_MIN(extra, per_max);
}

void
rsw_qos_params_from_cfg(struct rsw_qos_params *qp, const struct rsw_config *cfg,
			unsigned int n_workers)
{
	const struct rsw_cfg_qos *q = &cfg->qos;
	unsigned int n_lossless = (unsigned int)__builtin_popcount(q->lossless);
	uint32_t base = RSW_DWRR_QUANTUM;
	int i;

	memset(qp, 0, sizeof(*qp));
	qp->lossless = q->lossless;
	qp->n_strict = q->n_strict;
	for (i = 0; i < q->n_strict; i++) {
		qp->strict[i] = q->strict[i];
		qp->is_strict |= (uint8_t)(1u << q->strict[i]);
	}
	/*
	 * DRR sends at least one frame per visit only when the quantum covers the largest frame:
	 * with 1536 bytes and a 9000 MTU, a 4 KB frame alone in its class took three rounds over
	 * every TC. The base quantum is the largest frame of any port (L2 with two tags).
	 */
	for (i = 0; i < cfg->n_ports; i++)
		base = RTE_MAX(base, (uint32_t)cfg->ports[i].mtu + RTE_ETHER_HDR_LEN + 8);
	for (i = 0; i < RSW_N_TC; i++) {
		qp->dwrr_quantum[i] = (q->dwrr[i] ? q->dwrr[i] : 1) * base;
		if (q->ecn[i].enabled) {
			double p = q->ecn[i].pmax * 4294967296.0;

			qp->ecn_enabled |= (uint8_t)(1u << i);
			qp->kmin[i] = q->ecn[i].kmin;
			qp->kmax[i] = q->ecn[i].kmax;
			qp->pmax_q32[i] = p >= 4294967295.0 ? UINT32_MAX : (uint32_t)p;
		}
	}
	qp->ecn_enqueue = q->ecn_mark_enqueue;
	qp->dynamic = q->pfc.dynamic;
	qp->total = q->buffer_total;
	qp->queue_limit = q->queue_limit;
	qp->xoff = q->pfc.xoff;
	qp->xon = q->pfc.xon;
	qp->headroom =
		q->pfc.headroom_set ? q->pfc.headroom : rsw_qos_default_headroom(cfg, n_workers);
	qp->headroom_reserved = qp->headroom * cfg->n_ports * n_lossless;
	qp->alpha_q16 = (uint32_t)(q->pfc.alpha * 65536.0);
	qp->xon_offset = (uint32_t)q->pfc.xon_offset;
	qp->quanta = q->pfc.quanta;
	if (q->trim.enabled) {
		qp->trim_tcs = q->trim.tcs;
		qp->trim_tc = q->trim.tc;
		qp->trim_dscp = q->trim.dscp;
		qp->trim_dscp_lasthop =
			q->trim.has_dscp_lasthop ? q->trim.dscp_lasthop : q->trim.dscp;
		qp->trim_size = q->trim.size;
		qp->trim_threshold = q->trim.threshold;
	}
	qp->is_leaf = cfg->sw.role == RSW_ROLE_LEAF;
	if (q->cnp.enabled) {
		qp->cnp_enabled = 1;
		qp->cnp_tc = q->cnp.tc;
		qp->cnp_coalesce_ticks = (uint64_t)q->cnp.coalesce_us * rte_get_tsc_hz() / 1000000;
	}
	rsw_qos_params_derive(qp);
}
