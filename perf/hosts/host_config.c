/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/* rswhost: the configuration (hosts, flows, DCQCN) and the statistics it writes. */

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_ether.h>

#include "host.h"

/* ---- configuration and output -------------------------------------------- */

static int
parse_mac(const char *s, struct rte_ether_addr *a)
{
	return rte_ether_unformat_addr(s, a);
}

static double
jnum(json_t *o, const char *k, double def)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : def;
}

static const char *
jstr(json_t *o, const char *k, const char *def)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : def;
}

static int
host_index(const char *name)
{
	int i;

	for (i = 0; i < g.nhosts; i++)
		if (strcmp(g.hosts[i].name, name) == 0)
			return i;
	return -1;
}

static void
dcqcn_params(struct rsw_dcqcn_params *p, double line)
{
	json_t *o = g.dcqcn_over;

	rsw_dcqcn_params_default(p, line, g.time_scale);
	if (o == NULL)
		return;
	p->g = jnum(o, "g", p->g);
	p->cnp_interval_ns = (uint64_t)jnum(o, "cnp_interval_us", p->cnp_interval_ns / 1e3) * 1000;
	p->alpha_ns = (uint64_t)jnum(o, "alpha_us", p->alpha_ns / 1e3) * 1000;
	p->timer_ns = (uint64_t)jnum(o, "timer_us", p->timer_ns / 1e3) * 1000;
	p->byte_counter = (uint64_t)jnum(o, "byte_counter", (double)p->byte_counter);
	p->f = (unsigned int)jnum(o, "f", p->f);
	p->rai_bps = jnum(o, "rai_bps", p->rai_bps);
	p->rhai_bps = jnum(o, "rhai_bps", p->rhai_bps);
	p->min_bps = jnum(o, "min_bps", p->min_bps);
}

/* "after": a flow id or a list of them (resolved to indexes once every flow is read). */
static int
parse_after(struct flow *f, json_t *af)
{
	json_t *x;
	size_t i;

	if (json_is_integer(af)) {
		f->after[f->nafter++] = (int)json_integer_value(af);
	} else if (json_is_array(af)) {
		if (json_array_size(af) > MAX_AFTER) {
			fprintf(stderr, "rswhost: flow %d: more than %d flows in after\n", f->id,
				MAX_AFTER);
			return -1;
		}
		json_array_foreach(af, i, x)
		{
			f->after[f->nafter++] = (int)json_integer_value(x);
		}
	}
	f->after_left = f->nafter;
	return 0;
}

int
load_config(const char *path)
{
	json_error_t err;
	json_t *c = json_load_file(path, 0, &err), *a, *v;
	size_t i;
	int k;

	if (c == NULL) {
		fprintf(stderr, "rswhost: %s:%d: %s\n", path, err.line, err.text);
		return -1;
	}
	g.duration_s = jnum(c, "duration_s", 5);
	g.max_s = jnum(c, "max_s", g.duration_s + 30);
	g.drain_s = jnum(c, "drain_s", 3);
	g.payload = (uint32_t)jnum(c, "payload", 1024);
	g.window = (uint32_t)jnum(c, "window", 64);
	g.ack_every = (uint32_t)jnum(c, "ack_every", 4);
	g.ack_delay_tsc = (uint64_t)(jnum(c, "ack_delay_us", 1000) * 1e-6 * (double)g.hz);
	g.rto_s = jnum(c, "rto_ms", 20) / 1e3;
	g.idle_us = jnum(c, "idle_us", 20);
	g.settle_ms = jnum(c, "settle_ms", 150);
	g.bin_s = jnum(c, "bin_ms", 10) / 1e3;
	g.time_scale = jnum(c, "dcqcn_time_scale", 20);
	g.ctrl_dscp = (uint8_t)jnum(c, "ctrl_dscp", 46);
	g.cnp_dscp = (uint8_t)jnum(c, "cnp_dscp", 48);
	g.trim_dscp[0] = (uint8_t)jnum(c, "trim_dscp", 11);
	g.trim_dscp[1] = (uint8_t)jnum(c, "trim_dscp_lasthop", 21);
	g.dcqcn_over = json_object_get(c, "dcqcn");
	g.pace = jnum(c, "pace", 1.0);
	g.catchup_tsc = (uint64_t)(jnum(c, "catchup_us", 0) * 1e-6 * (double)g.hz);
	v = json_object_get(c, "nscc");
	g.nscc = (struct rsw_nscc_params){
		.max_cwnd = jnum(v, "max_cwnd_pkts", 16),
		.min_cwnd = jnum(v, "min_cwnd_pkts", 1),
		.target_ns = (uint64_t)(jnum(v, "target_delay_us", 2000) * 1e3),
		.beta = jnum(v, "beta", 0.5),
		.fast_gain = jnum(v, "fast_gain", 0.5),
		.ai = jnum(v, "ai_pkts", 1),
	};
	if (g.pace < 0.5 || g.pace > 1.0 || g.nscc.max_cwnd < 1 || g.nscc.min_cwnd < 1 ||
	    g.nscc.min_cwnd > g.nscc.max_cwnd || g.nscc.beta <= 0 || g.nscc.beta > 1) {
		fprintf(stderr, "rswhost: pace must be 0.5..1, nscc 1 <= min_cwnd_pkts <= "
				"max_cwnd_pkts, 0 < beta <= 1\n");
		return -1;
	}
	if ((g.window & (g.window - 1)) != 0 || g.window < 64 || g.window > 4096) {
		fprintf(stderr, "rswhost: window must be a power of two in 64..4096\n");
		return -1;
	}
	if (g.payload < 64 || g.payload > 1400) {
		fprintf(stderr, "rswhost: payload must be 64..1400 bytes\n");
		return -1;
	}
	g.nbins = (int)(g.max_s / g.bin_s) + 2;

	a = json_object_get(c, "hosts");
	json_array_foreach(a, i, v)
	{
		struct host *h;
		struct in_addr ip;
		int ret;

		if (g.nhosts >= MAX_HOSTS) {
			fprintf(stderr, "rswhost: more than %d hosts\n", MAX_HOSTS);
			return -1;
		}
		h = &g.hosts[g.nhosts];
		snprintf(h->name, sizeof(h->name), "%s", jstr(v, "name", "?"));
		if (parse_mac(jstr(v, "mac", ""), &h->mac) < 0 ||
		    parse_mac(jstr(v, "gw_mac", ""), &h->gw) < 0 ||
		    inet_pton(AF_INET, jstr(v, "ip", ""), &ip) != 1) {
			fprintf(stderr, "rswhost: host %s: bad mac, gw_mac or ip\n", h->name);
			return -1;
		}
		h->ip = ip.s_addr;
		h->speed_bps = jnum(v, "speed_bps", 100e6);
		h->tsc_per_byte = 8.0 / (h->speed_bps * g.pace) * (double)g.hz;
		ret = rte_dev_probe(jstr(v, "devargs", ""));
		if (ret < 0) {
			fprintf(stderr, "rswhost: host %s: cannot probe %s: %s\n", h->name,
				jstr(v, "devargs", ""), strerror(-ret));
			return -1;
		}
		{
			char name[64];
			const char *d = jstr(v, "devargs", "");
			size_t l = strcspn(d, ",");

			snprintf(name, sizeof(name), "%.*s", (int)l, d);
			if (rte_eth_dev_get_port_by_name(name, &h->port) != 0) {
				fprintf(stderr, "rswhost: no port %s\n", name);
				return -1;
			}
		}
		dcqcn_params(&g.dp[g.nhosts], h->speed_bps);
		g.nhosts++;
	}

	a = json_object_get(c, "flows");
	json_array_foreach(a, i, v)
	{
		struct flow *f;
		const char *tr;

		if (g.nflows >= MAX_FLOWS) {
			fprintf(stderr, "rswhost: more than %d flows\n", MAX_FLOWS);
			return -1;
		}
		f = &g.flows[g.nflows];
		f->id = (int)jnum(v, "id", g.nflows);
		snprintf(f->role, sizeof(f->role), "%s", jstr(v, "role", "background"));
		f->src = host_index(jstr(v, "src", ""));
		f->dst = host_index(jstr(v, "dst", ""));
		tr = jstr(v, "transport", "roce");
		f->tr = strcmp(tr, "uet") == 0 ? T_UET : T_ROCE;
		f->bytes = (uint64_t)jnum(v, "bytes", 0);
		f->start_s = jnum(v, "start_s", 0);
		if (parse_after(f, json_object_get(v, "after")) < 0)
			return -1;
		f->stop_s = jnum(v, "stop_s", g.duration_s);
		f->nqp = (int)jnum(v, "qps", 1);
		f->spray = strcmp(jstr(v, "entropy", "flow"), "packet") == 0 ||
			   strcmp(jstr(v, "entropy", "flow"), "reps") == 0;
		f->cc = strcmp(jstr(v, "cc", "none"), "nscc") == 0;
		f->dcqcn = json_is_true(json_object_get(v, "dcqcn"));
		f->dscp = (uint8_t)jnum(v, "dscp", 26);
		f->prio = (uint8_t)jnum(v, "prio", 3) & 7;
		f->sport_base = (uint16_t)jnum(v, "sport", 49152 + 16 * g.nflows);
		rsw_reps_init(&f->reps, f->sport_base, 256, (uint32_t)jnum(v, "seed", 1 + g.nflows),
			      strcmp(jstr(v, "entropy", "flow"), "reps") == 0);
		if (f->src < 0 || f->dst < 0 || f->src == f->dst || f->nqp < 1 || f->nqp > 16 ||
		    (strcmp(tr, "roce") != 0 && f->tr != T_UET)) {
			fprintf(stderr,
				"rswhost: flow %d: bad src, dst, qps (1..16) or transport\n",
				f->id);
			return -1;
		}
		f->bins = calloc(g.nbins, sizeof(*f->bins));
		f->rate_bins = calloc(g.nbins, sizeof(*f->rate_bins));
		if (f->bins == NULL || f->rate_bins == NULL)
			return -ENOMEM;
		for (k = 0; k < f->nqp; k++) {
			struct qp *q;
			uint64_t share = f->bytes / f->nqp + (k < (int)(f->bytes % f->nqp));
			struct host *h = &g.hosts[f->src];

			if (g.nqps >= MAX_QPS || h->nsend >= MAX_QPS)
				return -ENOSPC;
			q = &g.qps[g.nqps];
			q->flow = f;
			q->qpn = (uint32_t)++g.nqps;
			q->sport = (uint16_t)(f->sport_base + k * 37);
			q->bytes = share;
			q->total = f->bytes ? (uint32_t)((share + g.payload - 1) / g.payload)
					    : RSW_PSN_UNBOUNDED;
			if (f->bytes && q->total == 0)
				q->rx_done = 1;
			rsw_gbn_tx_init(&q->gtx, q->total, g.window);
			rsw_gbn_rx_init(&q->grx);
			q->ustate = calloc(g.window, 1);
			q->usent = calloc(g.window, sizeof(uint64_t));
			q->urq = calloc(g.window, sizeof(uint32_t));
			q->ugot = calloc(g.window, 1);
			if (!q->ustate || !q->usent || !q->urq || !q->ugot)
				return -ENOMEM;
			rsw_uet_tx_init(&q->utx, q->total, g.window, q->ustate, q->usent, q->urq);
			rsw_uet_rx_init(&q->urx, g.window, q->ugot);
			rsw_dcqcn_rp_init(&q->rp, &g.dp[f->src]);
			rsw_nscc_init(&q->cc, &g.nscc);
			f->qps[k] = q;
			h->send[h->nsend++] = q;
		}
		g.nflows++;
	}
	a = json_object_get(c, "pings");
	json_array_foreach(a, i, v)
	{
		struct ping *pg;

		if (g.npings >= MAX_PINGS) {
			fprintf(stderr, "rswhost: more than %d pings\n", MAX_PINGS);
			return -1;
		}
		pg = &g.pings[g.npings];
		pg->src = host_index(jstr(v, "src", ""));
		pg->dst = host_index(jstr(v, "dst", ""));
		pg->count = (int)jnum(v, "count", 100);
		pg->dscp = (uint8_t)jnum(v, "dscp", 26);
		if (pg->src < 0 || pg->dst < 0 || pg->src == pg->dst || pg->count < 1 ||
		    pg->count > 100000) {
			fprintf(stderr, "rswhost: ping %d: bad src, dst or count (1..100000)\n",
				g.npings);
			return -1;
		}
		pg->rtt_us = calloc(pg->count, sizeof(double));
		if (pg->rtt_us == NULL)
			return -ENOMEM;
		g.npings++;
	}
	for (int fi = 0; fi < g.nflows; fi++) {
		struct flow *f = &g.flows[fi];
		int w;

		for (int j = 0; j < f->nafter; j++) {
			for (w = 0; w < g.nflows && g.flows[w].id != f->after[j]; w++)
				;
			if (w == g.nflows || w == fi || g.flows[w].bytes == 0) {
				fprintf(stderr,
					"rswhost: flow %d: after %d is no finite flow of this run\n",
					f->id, f->after[j]);
				return -1;
			}
			f->after[j] = w;
		}
	}
	return 0;
}

/* The NSCC-like windows' and REPS' counters of flow @p f, summed over its QPs. */
static void
flow_cc_stats(json_t *j, const struct flow *f)
{
	uint64_t cuts = 0, holds = 0, grows = 0;
	double wmin = 1e18;
	int k;

	for (k = 0; k < f->nqp; k++) {
		cuts += f->qps[k]->cc.cuts;
		holds += f->qps[k]->cc.holds;
		grows += f->qps[k]->cc.grows;
		if (f->qps[k]->cc.cwnd_min_seen < wmin)
			wmin = f->qps[k]->cc.cwnd_min_seen;
	}
	json_object_set_new(j, "cc", json_string(f->cc ? "nscc" : "none"));
	if (f->cc) {
		json_object_set_new(j, "cwnd_cuts", json_integer((json_int_t)cuts));
		json_object_set_new(j, "cwnd_holds", json_integer((json_int_t)holds));
		json_object_set_new(j, "cwnd_grows", json_integer((json_int_t)grows));
		json_object_set_new(j, "cwnd_min_pkts", json_real(wmin));
	}
	json_object_set_new(j, "entropy_reused", json_integer((json_int_t)f->reps.reused));
}

/* Every probe's round-trip times, µs. */
static json_t *
ping_stats(void)
{
	json_t *a = json_array();
	int i, k;

	for (i = 0; i < g.npings; i++) {
		const struct ping *pg = &g.pings[i];
		json_t *j = json_object(), *r = json_array();

		for (k = 0; k < pg->got; k++)
			json_array_append_new(r, json_real(pg->rtt_us[k]));
		json_object_set_new(j, "src", json_string(g.hosts[pg->src].name));
		json_object_set_new(j, "dst", json_string(g.hosts[pg->dst].name));
		json_object_set_new(j, "sent", json_integer(pg->sent));
		json_object_set_new(j, "rtt_us", r);
		json_array_append_new(a, j);
	}
	return a;
}

int
write_stats(const char *path, double cpu_s, double wall_s)
{
	json_t *o = json_object(), *flows = json_array(), *hosts = json_array(), *dc = json_array();
	int i, k, b, last_bin = 0;

	for (i = 0; i < g.nflows; i++)
		for (b = 0; b < g.nbins; b++)
			if (g.flows[i].bins[b])
				last_bin = RTE_MAX(last_bin, b);
	for (i = 0; i < g.nflows; i++) {
		struct flow *f = &g.flows[i];
		json_t *j = json_object(), *bins = json_array(), *rates = json_array();
		uint64_t delivered = 0, ooo = 0, dup = 0, to = 0;
		double active, fct = -1;

		for (k = 0; k < f->nqp; k++) {
			struct qp *q = f->qps[k];

			delivered += q->delivered;
			if (f->tr == T_ROCE) {
				ooo += q->grx.out_of_order;
				dup += q->grx.duplicates;
				to += q->gtx.timeouts;
			} else {
				ooo += q->urx.out_of_order;
				dup += q->urx.duplicates;
				to += q->utx.timeouts;
			}
		}
		if (f->bytes && f->done_tsc)
			fct = secs(f->done_tsc - f->start_tsc);
		else if (!f->bytes && f->last_rx_tsc)
			fct = secs(f->last_rx_tsc - f->start_tsc);
		active = f->bytes ? (fct > 0 ? fct : secs(rte_rdtsc() - f->start_tsc))
				  : f->stop_s - f->start_s;
		json_object_set_new(j, "id", json_integer(f->id));
		json_object_set_new(j, "role", json_string(f->role));
		json_object_set_new(j, "src", json_string(g.hosts[f->src].name));
		json_object_set_new(j, "dst", json_string(g.hosts[f->dst].name));
		json_object_set_new(j, "transport", json_string(f->tr == T_ROCE ? "roce" : "uet"));
		json_object_set_new(j, "qps", json_integer(f->nqp));
		json_object_set_new(j, "entropy", json_string(f->spray ? "packet" : "flow"));
		json_object_set_new(j, "dcqcn", json_boolean(f->dcqcn));
		json_object_set_new(j, "bytes",
				    json_integer((json_int_t)(f->bytes ? f->bytes : delivered)));
		json_object_set_new(j, "delivered_bytes", json_integer((json_int_t)delivered));
		json_object_set_new(j, "goodput_bps",
				    json_real(active > 0 ? delivered * 8.0 / active : 0));
		json_object_set_new(j, "fct_s", fct >= 0 ? json_real(fct) : json_null());
		json_object_set_new(j, "complete", json_boolean(f->bytes == 0 || f->done_tsc));
		json_object_set_new(j, "start_s", json_real(f->start_s));
		/* When it started: start_s, or its predecessor's delivery (null: never). */
		json_object_set_new(j, "started_s",
				    f->start_tsc == UINT64_MAX
					    ? json_null()
					    : json_real(secs(f->start_tsc - g.t0)));
		json_object_set_new(j, "tx_packets", json_integer((json_int_t)f->tx_pkts));
		json_object_set_new(j, "retransmits", json_integer((json_int_t)f->retx_pkts));
		json_object_set_new(j, "retransmit_bytes", json_integer((json_int_t)f->retx_bytes));
		json_object_set_new(j, "out_of_order", json_integer((json_int_t)ooo));
		json_object_set_new(j, "duplicates", json_integer((json_int_t)dup));
		json_object_set_new(j, "timeouts", json_integer((json_int_t)to));
		json_object_set_new(j, "cnps", json_integer((json_int_t)f->cnps));
		json_object_set_new(j, "nacks", json_integer((json_int_t)f->nacks_rx));
		json_object_set_new(j, "trimmed", json_integer((json_int_t)f->trimmed_rx));
		json_object_set_new(j, "pause_s",
				    json_real(secs(g.hosts[f->src].paused_tsc[f->prio])));
		flow_cc_stats(j, f);
		for (b = 0; b <= last_bin; b++) {
			json_array_append_new(bins, json_integer((json_int_t)f->bins[b]));
			json_array_append_new(rates, json_real(f->rate_bins[b]));
		}
		json_object_set_new(j, "delivered_per_bin", bins);
		json_object_set_new(j, "rate_per_bin_bps", rates);
		json_array_append_new(flows, j);
	}
	for (i = 0; i < g.nhosts; i++) {
		struct host *h = &g.hosts[i];
		json_t *j = json_object(), *p = json_array();

		for (k = 0; k < 8; k++)
			json_array_append_new(p, json_real(secs(h->paused_tsc[k])));
		json_object_set_new(j, "name", json_string(h->name));
		json_object_set_new(j, "speed_bps", json_real(h->speed_bps));
		json_object_set_new(j, "tx_packets", json_integer((json_int_t)h->tx_pkts));
		json_object_set_new(j, "tx_bytes", json_integer((json_int_t)h->tx_bytes));
		json_object_set_new(j, "rx_packets", json_integer((json_int_t)h->rx_pkts));
		json_object_set_new(j, "rx_bytes", json_integer((json_int_t)h->rx_bytes));
		json_object_set_new(j, "tx_data", json_integer((json_int_t)h->tx_data));
		json_object_set_new(j, "tx_ctrl", json_integer((json_int_t)h->tx_ctrl));
		json_object_set_new(j, "rx_data", json_integer((json_int_t)h->rx_data));
		json_object_set_new(j, "rx_ctrl", json_integer((json_int_t)h->rx_ctrl));
		json_object_set_new(j, "rx_trimmed", json_integer((json_int_t)h->rx_trimmed));
		json_object_set_new(j, "rx_pfc", json_integer((json_int_t)h->rx_pfc));
		json_object_set_new(j, "rx_pause", json_integer((json_int_t)h->rx_pause));
		json_object_set_new(j, "rx_other", json_integer((json_int_t)h->rx_other));
		json_object_set_new(j, "tx_ring_full", json_integer((json_int_t)h->tx_full));
		json_object_set_new(j, "unsent", json_integer(h->ntx));
		json_object_set_new(j, "paused_s", p);
		json_array_append_new(hosts, j);
	}
	{
		const struct rsw_dcqcn_params *p = &g.dp[0];
		json_t *j = json_object();

		json_object_set_new(j, "line_bps", json_real(p->line_bps));
		json_object_set_new(j, "g", json_real(p->g));
		json_object_set_new(j, "cnp_interval_us", json_real(p->cnp_interval_ns / 1e3));
		json_object_set_new(j, "alpha_us", json_real(p->alpha_ns / 1e3));
		json_object_set_new(j, "timer_us", json_real(p->timer_ns / 1e3));
		json_object_set_new(j, "byte_counter", json_integer((json_int_t)p->byte_counter));
		json_object_set_new(j, "f", json_integer(p->f));
		json_object_set_new(j, "rai_bps", json_real(p->rai_bps));
		json_object_set_new(j, "rhai_bps", json_real(p->rhai_bps));
		json_object_set_new(j, "min_bps", json_real(p->min_bps));
		json_object_set_new(j, "time_scale", json_real(g.time_scale));
		json_array_append_new(dc, j);
	}
	json_object_set_new(o, "flows", flows);
	json_object_set_new(o, "pings", ping_stats());
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "dcqcn", json_array_get(dc, 0));
	json_incref(json_array_get(dc, 0));
	json_decref(dc);
	json_object_set_new(o, "bin_s", json_real(g.bin_s));
	json_object_set_new(o, "payload", json_integer(g.payload));
	json_object_set_new(o, "window", json_integer(g.window));
	json_object_set_new(o, "wall_s", json_real(wall_s));
	json_object_set_new(o, "t0_unix", json_real(g.t0_unix));
	json_object_set_new(o, "cpu_s", json_real(cpu_s));
	json_object_set_new(o, "outstanding_qps", json_integer(outstanding()));
	if (json_dump_file(o, path, JSON_COMPACT) != 0) {
		fprintf(stderr, "rswhost: cannot write %s\n", path);
		json_decref(o);
		return -1;
	}
	json_decref(o);
	return 0;
}
