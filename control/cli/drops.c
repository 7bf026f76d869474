/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show drops` (docs/cli.md): every drop reason switch-wide, and the totals that account
 * for every received frame. The reasons: the port counters marked drop in rsw_stats.h, then
 * the buffer's, summed over every (port, TC) queue: queue_drops (the queues' dropped_packets
 * less the three below), lossless_drops, ecn_drops (Not-ECT frames WRED dropped), trim_drops
 * (full trim queue) and watchdog_drops. The totals, since the last `clear counters`:
 * received = forwarded + consumed + queued + dropped, dropped = the sum of the reasons.
 *
 * Each total is the sum of a list below: a new counter joins a total by a line in its list
 * (a port counter that is a drop reason joins `dropped` by its is_drop column alone).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_link.h"
#include "rsw_module.h"
#include "rsw_neigh.h"

static const struct rsw_field_def drop_fields[] = {
	RSW_LABEL("reason", "reason", "the drop reason: a drop counter's name"),
	RSW_FIELD("packets", COUNTER, "packets", "packets dropped for the reason, switch-wide"),
};

const struct rsw_table_def rsw_table_drops = {
	.command = "show drops",
	.key = "drops",
	.metric_prefix = "drop_",
	.fields = drop_fields,
	.n_fields = RSW_TABLE_N_FIELDS(drop_fields),
};

static const struct rsw_field_def total_fields[] = {
	RSW_FIELD("received", COUNTER, "packets",
		  "frames taken from the ports' rx queues (rx_missed not among them)"),
	RSW_FIELD("forwarded", COUNTER, "packets",
		  "received frames sent out of a port (trimmed ones included)"),
	RSW_FIELD("consumed", COUNTER, "packets",
		  "received frames the switch took for itself (ARP, ND, ICMP to it, PFC/PAUSE, "
		  "coalesced CNPs)"),
	RSW_FIELD("originated", COUNTER, "packets",
		  "frames the switch made (replies, requests, ICMP errors, PFC)"),
	RSW_FIELD("queued", GAUGE, "packets",
		  "received frames inside the switch now (egress queues, held for a neighbour, "
		  "punted)"),
	RSW_FIELD("dropped", COUNTER, "packets",
		  "received frames dropped: the sum of the drop reasons' packets"),
};

const struct rsw_table_def rsw_table_drop_totals = {
	.command = "show drops",
	.key = "totals",
	.metric_prefix = "frames_",
	.fields = total_fields,
	.n_fields = RSW_TABLE_N_FIELDS(total_fields),
};

/* The buffer's drop reasons: a queue counter each; queue_drops is what the others leave. */
static const struct {
	const char *reason;
	enum rsw_queue_ctr ctr;
} queue_reasons[] = {
	{"queue_drops", RSW_QC_dropped_packets},   {"lossless_drops", RSW_QC_lossless_drops},
	{"ecn_drops", RSW_QC_ecn_drops},           {"trim_drops", RSW_QC_trim_drops},
	{"watchdog_drops", RSW_QC_watchdog_drops},
};

/* Port counters counted `consumed` (summed over the ports, since `clear counters`). */
static const enum rsw_port_ctr consumed_port_ctrs[] = {RSW_PC_cnp_coalesced, RSW_PC_llr_consumed,
						       RSW_PC_cbfc_consumed};
/*
 * The port counters of frames the switch made, in `originated` (LLR ACK/NACK/INIT, replays,
 * CBFC credit messages).
 */
static const enum rsw_port_ctr originated_port_ctrs[] = {RSW_PC_llr_originated,
							 RSW_PC_cbfc_originated};

/* The lcores' frame counters (rsw_stats.h totals) in each total. */
static const enum rsw_total_ctr forwarded_ctrs[] = {RSW_TOT_forwarded};
static const enum rsw_total_ctr consumed_ctrs[] = {RSW_TOT_consumed};
static const enum rsw_total_ctr originated_ctrs[] = {RSW_TOT_originated};

/* `clear counters` baselines of what rsw_ctl does not keep. */
static uint64_t tot_base[RSW_N_TOTAL_CTRS];
static uint64_t pfc_consumed_base;

/* The PFC/PAUSE frames the workers consumed, since start. */
static uint64_t
pfc_consumed_now(void)
{
	uint64_t n = 0;
	unsigned int lc;
	uint16_t p;

	for (lc = 0; lc < RTE_MAX_LCORE; lc++)
		for (p = 0; rsw_stats[lc] != NULL && p < rsw_dp.n_ports; p++)
			n += __atomic_load_n(&rsw_stats[lc]->qos.pfc_consumed[p], __ATOMIC_RELAXED);
	return n;
}

void
rsw_cli_drops_clear(void)
{
	rsw_stats_total_sum(tot_base);
	pfc_consumed_base = pfc_consumed_now();
}

/* Received frames in the egress queues now: the rings, the scheduler's staging and pending. */
static uint64_t
queued_egress(void)
{
	uint64_t n = 0, port, orig;
	uint16_t p;
	int tc;

	for (p = 0; p < rsw_dp.n_ports; p++) {
		const struct rsw_port_sched *ps = &rsw_sched[p];

		/* The owner's state, read as it changes: a gauge. */
		port = __atomic_load_n(&ps->n_pending, __ATOMIC_RELAXED);
		orig = (uint64_t)__builtin_popcount(
			__atomic_load_n(&ps->pending_orig, __ATOMIC_RELAXED));
		for (tc = 0; tc < RSW_N_TC; tc++) {
			uint16_t hn = __atomic_load_n(&ps->head_n[tc], __ATOMIC_RELAXED);
			uint16_t hi = __atomic_load_n(&ps->head_i[tc], __ATOMIC_RELAXED);

			if (rsw_qos.port[p].ring[tc] != NULL)
				port += rte_ring_count(rsw_qos.port[p].ring[tc]);
			port += hn > hi ? (uint64_t)(hn - hi) : 0;
		}
		/* Less the frames the switch made (in the rings and staging, then pending). */
		orig += __atomic_load_n(&rsw_qos.port[p].orig_frames, __ATOMIC_RELAXED);
		n += port > orig ? port - orig : 0;
	}
	return n;
}

/* Received frames waiting for a neighbour's MAC. */
static uint64_t
queued_held(void)
{
	return rsw_ctl_neigh_held();
}

/* Punted frames in the punt ring, not yet taken by the control thread. */
static uint64_t
queued_punted(uint64_t punted, const uint64_t tot[RSW_N_TOTAL_CTRS])
{
	return punted > tot[RSW_TOT_punt_taken] ? punted - tot[RSW_TOT_punt_taken] : 0;
}

/*
 * Frames the link layer holds (docs/link.md): in an impairment's delay line (the switch's own
 * PFC or LLR frames there too, rarely: counted all the same) and held by a full LLR window.
 * Read on the control thread, which alone replaces the impairments (under RCU).
 */
static uint64_t
queued_link(void)
{
	uint64_t n = 0;
	uint16_t p;

	for (p = 0; p < rsw_ctl.cfg->n_ports && p < RSW_MAX_PORTS; p++) {
		const struct rsw_link_impair *li =
			__atomic_load_n(&rsw_links[p].im, __ATOMIC_ACQUIRE);
		const struct rsw_link_llr *ll = rsw_links[p].llr;

		if (li != NULL)
			n += (uint32_t)(__atomic_load_n(&li->im.dl_tail, __ATOMIC_RELAXED) -
					__atomic_load_n(&li->im.dl_head, __ATOMIC_RELAXED));
		if (ll != NULL)
			n += __atomic_load_n(&ll->n_held, __ATOMIC_RELAXED);
	}
	return n;
}

/* The parts of `queued` that are gauges of their own. */
static uint64_t (*const queued_parts[])(void) = {queued_egress, queued_held, queued_link};

/* Sum of the lcores' counters of list (since `clear counters`). */
static uint64_t
tot_sum(const uint64_t tot[RSW_N_TOTAL_CTRS], const enum rsw_total_ctr *list, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += rsw_cli_since(tot[list[i]], tot_base[list[i]]);
	return s;
}

static json_t *
drop_row(const char *reason, uint64_t packets)
{
	return rsw_row(&rsw_table_drops,
		       json_pack("{s:s, s:I}", "reason", reason, "packets", (json_int_t)packets));
}

static json_t *
cmd_show_drops(int argc, char **argv, void *ctx)
{
	uint64_t total[RSW_N_PORT_CTRS] = {0}, c[RSW_N_PORT_CTRS], tot[RSW_N_TOTAL_CTRS];
	uint64_t qr[RTE_DIM(queue_reasons)] = {0}, punted_raw = 0, dropped = 0, queued = 0;
	uint64_t consumed, originated;
	struct rsw_qos_stats *q = rsw_cli_qos_now();
	json_t *arr = json_array(), *totals;
	uint16_t p;
	size_t i;
	int tc;

	(void)argc;
	(void)argv;
	(void)ctx;
	if (q == NULL) {
		json_decref(arr);
		return NULL;
	}
	/* Counters and gauges are read one after the other: exact once the switch is quiet. */
	for (i = 0; i < RTE_DIM(queued_parts); i++)
		queued += queued_parts[i]();
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		rsw_stats_port_sum(p, c);
		punted_raw += c[RSW_PC_punted];
		for (i = 0; i < RSW_N_PORT_CTRS; i++)
			total[i] += rsw_cli_since(c[i], rsw_ctl.port_base[p][i]);
		for (tc = 0; tc < RSW_N_TC; tc++) {
			uint64_t by_cause = 0, all;

			for (i = 0; i < RTE_DIM(queue_reasons); i++) {
				enum rsw_queue_ctr k = queue_reasons[i].ctr;
				uint64_t v = rsw_cli_since(q->q[p][tc][k],
							   rsw_ctl.qos_base->q[p][tc][k]);

				qr[i] += k == RSW_QC_dropped_packets ? 0 : v;
				if (k != RSW_QC_dropped_packets && k != RSW_QC_lossless_drops)
					by_cause += v;
			}
			all = rsw_cli_since(q->q[p][tc][RSW_QC_dropped_packets],
					    rsw_ctl.qos_base->q[p][tc][RSW_QC_dropped_packets]);
			qr[0] += all > by_cause ? all - by_cause : 0; /* queue_drops */
		}
	}
	free(q);
	rsw_stats_total_sum(tot);
	queued += queued_punted(punted_raw, tot);

	for (i = 0; i < RSW_N_PORT_CTRS; i++) {
		if (!rsw_port_ctr_is_drop(i))
			continue;
		json_array_append_new(arr, drop_row(rsw_port_ctr_name(i), total[i]));
		dropped += total[i];
	}
	for (i = 0; i < RTE_DIM(queue_reasons); i++) {
		json_array_append_new(arr, drop_row(queue_reasons[i].reason, qr[i]));
		dropped += qr[i];
	}

	consumed = tot_sum(tot, consumed_ctrs, RTE_DIM(consumed_ctrs)) +
		   rsw_cli_since(pfc_consumed_now(), pfc_consumed_base);
	for (i = 0; i < RTE_DIM(consumed_port_ctrs); i++)
		consumed += total[consumed_port_ctrs[i]];
	originated = tot_sum(tot, originated_ctrs, RTE_DIM(originated_ctrs));
	for (i = 0; i < RTE_DIM(originated_port_ctrs); i++)
		originated += total[originated_port_ctrs[i]];
	totals = rsw_row(
		&rsw_table_drop_totals,
		json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "received",
			  (json_int_t)total[RSW_PC_rx_packets], "forwarded",
			  (json_int_t)tot_sum(tot, forwarded_ctrs, RTE_DIM(forwarded_ctrs)),
			  "consumed", (json_int_t)consumed, "originated", (json_int_t)originated,
			  "queued", (json_int_t)queued, "dropped", (json_int_t)dropped));
	return json_pack("{s:o, s:o}", "drops", arr, "totals", totals ? totals : json_object());
}

static int
drops_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show drops", 0, 0, "", "every drop reason, switch-wide",
				cmd_show_drops, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module drops_cli_module = {
	.name = "cli.drops",
	.order = RSW_CLI_MODULE_ORDER,
	.init = drops_init,
};

RSW_MODULE_REGISTER(drops_cli_module);
