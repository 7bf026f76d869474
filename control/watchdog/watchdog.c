/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control side of QoS (docs/qos.md): summing the per-lcore QoS
 * counters, and the PFC watchdog, as SONiC's pfcwd: a lossless TC paused
 * continuously for detect_ms while its queue holds packets and nothing is
 * dequeued is a storm; the action applies until no pause frame has arrived
 * for restore_ms.
 */

#include <string.h>

#include <rte_cycles.h>

#include "rsw_ctl.h"
#include "rsw_module.h"
#include "rsw_watchdog.h"

/* The watchdog's state per (port, TC). Thread-safety: control thread only. */
struct rsw_watchdog_main {
	uint64_t paused_since[RSW_MAX_PORTS][RSW_N_TC]; /* ms; 0 = not paused */
	uint64_t deq[RSW_MAX_PORTS][RSW_N_TC];          /* dequeued_packets at last look */
	uint64_t storms[RSW_MAX_PORTS][RSW_N_TC];       /* storms detected since start */
	uint64_t restores[RSW_MAX_PORTS][RSW_N_TC];     /* storms ended since start */
};

static struct rsw_watchdog_main wd;

void
rsw_ctl_qos_sum(struct rsw_qos_stats *out)
{
	unsigned int lc, p, tc, i;

	memset(out, 0, sizeof(*out));
	for (lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct rsw_qos_stats *s;

		if (rsw_stats[lc] == NULL)
			continue;
		s = &rsw_stats[lc]->qos;
		for (p = 0; p < rsw_dp.n_ports; p++) {
			for (tc = 0; tc < RSW_N_TC; tc++) {
				for (i = 0; i < RSW_N_QUEUE_CTRS; i++)
					out->q[p][tc][i] +=
						__atomic_load_n(&s->q[p][tc][i], __ATOMIC_RELAXED);
				for (i = 0; i < RSW_N_PFC_CTRS; i++)
					out->pfc[p][tc][i] += __atomic_load_n(&s->pfc[p][tc][i],
									      __ATOMIC_RELAXED);
				out->pg_lossless_drops[p][tc] += __atomic_load_n(
					&s->pg_lossless_drops[p][tc], __ATOMIC_RELAXED);
				out->q_watermark[p][tc] =
					RTE_MAX(out->q_watermark[p][tc], s->q_watermark[p][tc]);
				out->pg_watermark[p][tc] =
					RTE_MAX(out->pg_watermark[p][tc], s->pg_watermark[p][tc]);
			}
		}
		out->buf_watermark = RTE_MAX(out->buf_watermark, s->buf_watermark);
	}
	/* paused_ns is kept in TSC ticks. */
	for (p = 0; p < rsw_dp.n_ports; p++)
		for (tc = 0; tc < RSW_N_TC; tc++)
			out->pfc[p][tc][RSW_FC_paused_ns] =
				(uint64_t)((__uint128_t)out->pfc[p][tc][RSW_FC_paused_ns] *
					   1000000000 / rsw_qos.tsc_hz);
}

void
rsw_ctl_pfcwd_poll(uint64_t now_ms)
{
	const struct rsw_cfg_qos *q = &rsw_ctl.cfg->qos;
	const uint64_t now_tsc = rte_rdtsc();
	const uint64_t ms_tsc = rsw_qos.tsc_hz / 1000;
	struct rsw_qos_stats *sum;
	uint16_t p;
	int tc;

	if (q->pfcwd.action == RSW_PFCWD_OFF || q->lossless == 0)
		return;
	sum = malloc(sizeof(*sum));
	if (sum == NULL)
		return;
	rsw_ctl_qos_sum(sum);
	for (p = 0; p < rsw_dp.n_ports; p++) {
		struct rsw_qos_port *qport = &rsw_qos.port[p];

		for (tc = 0; tc < RSW_N_TC; tc++) {
			uint64_t deq = sum->q[p][tc][RSW_QC_dequeued_packets];
			uint64_t last = __atomic_load_n(&qport->last_pause[tc], __ATOMIC_RELAXED);
			bool stormed = qport->storm_drop[tc] || qport->storm_ignore[tc] ||
				       wd.storms[p][tc] > wd.restores[p][tc];
			bool paused;

			if (!(q->lossless & (1u << tc)))
				continue;
			if (stormed) {
				/* Restore after restore_ms without pause frames. Signed: a pause
				 * frame a worker stamped after now_tsc was read (while the sum
				 * above ran) is newer than now, not 2^64 ticks old. */
				if ((int64_t)(now_tsc - last) >=
				    (int64_t)(q->pfcwd.restore_ms * ms_tsc)) {
					/* A pause honoured before the storm is void now. */
					__atomic_store_n(&qport->paused_until[tc], 0,
							 __ATOMIC_RELAXED);
					qport->storm_drop[tc] = 0;
					qport->storm_ignore[tc] = 0;
					wd.restores[p][tc]++;
					wd.paused_since[p][tc] = 0;
				}
				continue;
			}
			paused = __atomic_load_n(&qport->paused_until[tc], __ATOMIC_RELAXED) >
				 now_tsc;
			if (!paused || deq != wd.deq[p][tc] ||
			    __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_RELAXED) == 0) {
				wd.paused_since[p][tc] = paused ? now_ms : 0;
				wd.deq[p][tc] = deq;
				continue;
			}
			if (wd.paused_since[p][tc] == 0) {
				wd.paused_since[p][tc] = now_ms;
				continue;
			}
			if (now_ms - wd.paused_since[p][tc] < q->pfcwd.detect_ms)
				continue;
			/* A storm. */
			wd.storms[p][tc]++;
			if (q->pfcwd.action == RSW_PFCWD_DROP)
				qport->storm_drop[tc] = 1;
			else if (q->pfcwd.action == RSW_PFCWD_FORWARD)
				qport->storm_ignore[tc] = 1;
		}
	}
	free(sum);
}

void
rsw_pfcwd_counts(uint16_t p, uint8_t tc, uint64_t *storms, uint64_t *restores)
{
	*storms = wd.storms[p][tc];
	*restores = wd.restores[p][tc];
}

static unsigned int
pfcwd_poll(uint64_t now_ms)
{
	rsw_ctl_pfcwd_poll(now_ms);
	return 0;
}

static struct rsw_module pfcwd_module = {
	.name = "pfcwd",
	.order = RSW_MODULE_ORDER_PFCWD,
	.poll = pfcwd_poll,
	.period_ms = 10,
};

RSW_MODULE_REGISTER(pfcwd_module);
