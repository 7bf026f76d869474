/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `trace start|stop|clear|show` (docs/cli.md): arms the workers' packet trace
 * (dataplane/trace/rsw_trace.h) and renders its records, one entry per traced frame with its
 * steps in pipeline order. Control thread only.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <rte_cycles.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"
#include "rsw_parse.h"
#include "rsw_trace.h"
#include "rsw_trace_args.h"

_Static_assert(RSW_TRACE_COUNT_MAX == RSW_TRACE_CAP, "trace: --count bound = buffer size");
_Static_assert(RSW_TRACE_COUNT_DEFAULT == RSW_TRACE_DEFAULT, "trace: default count");

static const char *const end_names[] = {
	[RSW_TE_NONE] = "unknown",  [RSW_TE_SENT] = "sent",         [RSW_TE_QUEUED] = "queued",
	[RSW_TE_PUNTED] = "punted", [RSW_TE_CONSUMED] = "consumed", [RSW_TE_DROPPED] = "dropped",
};

static const char *const res_names[] = {
	[RSW_TR_NOT] = "none",    [RSW_TR_NONE] = "no_route",
	[RSW_TR_LOCAL] = "local", [RSW_TR_CONNECTED] = "connected",
	[RSW_TR_ROUTE] = "route",
};

static const char *const kind_names[] = {
	[RSW_PK_DROP] = "drop", [RSW_PK_IPV4] = "ipv4", [RSW_PK_IPV6] = "ipv6",
	[RSW_PK_ARP] = "arp",   [RSW_PK_ND] = "nd",     [RSW_PK_MAC_CTRL] = "mac_control",
	[RSW_PK_LLDP] = "lldp",
};

static json_t *
port_name(unsigned int p)
{
	if (rsw_ctl.cfg == NULL || p >= rsw_ctl.cfg->n_ports)
		return json_null();
	return json_string(rsw_ctl.cfg->ports[p].name);
}

static int
worker_of(unsigned int lcore)
{
	unsigned int i;

	for (i = 0; i < rsw_ctl.n_workers; i++)
		if (rsw_ctl.workers[i].lcore == lcore)
			return (int)i;
	return -1;
}

static uint64_t
ns_of(uint64_t tsc)
{
	if (tsc < rsw_trace.tsc0)
		return rsw_trace.ns0;
	return rsw_trace.ns0 +
	       (uint64_t)((unsigned __int128)(tsc - rsw_trace.tsc0) * 1000000000u / rsw_trace.hz);
}

static json_t *
ip_str(uint8_t family, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (family == 0)
		return json_null();
	inet_ntop(family == 6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *
step_parse(const struct rsw_trace_rec *r)
{
	json_t *s = json_pack("{s:s, s:s}", "step", "parse", "result",
			      r->kind < RTE_DIM(kind_names) ? kind_names[r->kind] : "unknown");

	if (r->kind == RSW_PK_DROP)
		json_object_set_new(
			s, "reason",
			json_string(rsw_port_ctr_name((enum rsw_port_ctr)r->parse_drop)));
	if (r->family != 0) {
		json_object_set_new(s, "src", ip_str(r->family, r->src));
		json_object_set_new(s, "dst", ip_str(r->family, r->dst));
		json_object_set_new(s, "proto", json_integer(r->proto));
		json_object_set_new(s, "ttl", json_integer(r->ttl));
		if (r->proto == 6 || r->proto == 17) {
			json_object_set_new(s, "sport", json_integer(r->sport));
			json_object_set_new(s, "dport", json_integer(r->dport));
		}
	}
	return s;
}

static json_t *
step_lookup(const struct rsw_trace_rec *r)
{
	char buf[INET6_ADDRSTRLEN + 8];
	json_t *s = json_pack("{s:s, s:s}", "step", "lookup", "result", res_names[r->res]);

	if (r->prefix_ok) {
		inet_ntop(r->family == 6 ? AF_INET6 : AF_INET, r->prefix, buf, INET6_ADDRSTRLEN);
		snprintf(buf + strlen(buf), 8, "/%u", r->prefix_len);
		json_object_set_new(s, "prefix", json_string(buf));
	} else {
		json_object_set_new(s, "prefix", json_null());
	}
	json_object_set_new(s, "group",
			    r->group != RSW_TRACE_NONE ? json_integer(r->group) : json_null());
	json_object_set_new(s, "member",
			    r->member != RSW_TRACE_NONE ? json_integer(r->member) : json_null());
	json_object_set_new(s, "port", port_name(r->out_port));
	return s;
}

static json_t *
step_rewrite(const struct rsw_trace_rec *r)
{
	char d[18], sm[18];

	rsw_mac_str(r->dst_mac, d);
	rsw_mac_str(r->src_mac, sm);
	return json_pack("{s:s, s:s, s:s, s:i}", "step", "rewrite", "src_mac", sm, "dst_mac", d,
			 "ttl", r->ttl > 0 ? r->ttl - 1 : 0);
}

static json_t *
step_admit(const struct rsw_trace_rec *r)
{
	const char *decision = r->end == RSW_TE_DROPPED ? "dropped"
			       : r->end == RSW_TE_SENT  ? "sent"
							: "queued";

	return json_pack("{s:s, s:o, s:i, s:I, s:s, s:s, s:b}", "step", "admit", "port",
			 port_name(r->tx_port), "queue", r->queue, "bytes", (json_int_t)r->q_bytes,
			 "decision", decision, "ecn", r->ecn_marked ? "marked" : "none", "trimmed",
			 r->trimmed);
}

static json_t *
entry(const struct rsw_trace_rec *r)
{
	json_t *steps = json_array(), *e;
	int w = worker_of(r->lcore);

	json_array_append_new(steps, step_parse(r));
	if (r->classified)
		json_array_append_new(steps, json_pack("{s:s, s:i, s:i}", "step", "classify", "tc",
						       r->tc, "dscp", r->dscp));
	if (r->res != RSW_TR_NOT)
		json_array_append_new(steps, step_lookup(r));
	if (r->rewritten)
		json_array_append_new(steps, step_rewrite(r));
	if (r->admitted)
		json_array_append_new(steps, step_admit(r));
	if (r->end == RSW_TE_PUNTED)
		json_array_append_new(steps, json_pack("{s:s, s:s}", "step", "punt", "class",
						       r->reason ? r->reason : "other"));
	e = json_pack("{s:I, s:I, s:i, s:i, s:o, s:i, s:i, s:s, s:o, s:s}", "seq",
		      (json_int_t)r->seq, "ts_ns", (json_int_t)ns_of(r->tsc), "worker",
		      w >= 0 ? w : (int)r->lcore, "lcore", r->lcore, "rx_port",
		      port_name(r->rx_port), "rx_queue", r->rx_queue, "len", r->len, "summary",
		      r->summary, "steps", steps, "end", end_names[r->end]);
	if (e == NULL)
		return NULL;
	json_object_set_new(e, "end_ns",
			    json_integer((json_int_t)(ns_of(r->tsc_end) - ns_of(r->tsc))));
	json_object_set_new(e, "tx_port",
			    r->end == RSW_TE_SENT || r->end == RSW_TE_QUEUED ? port_name(r->tx_port)
									     : json_null());
	json_object_set_new(e, "tx_queue",
			    r->end == RSW_TE_SENT ? json_integer(r->tx_queue) : json_null());
	json_object_set_new(e, "reason", r->reason != NULL ? json_string(r->reason) : json_null());
	return e;
}

static int
rec_cmp(const void *a, const void *b)
{
	const struct rsw_trace_rec *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static json_t *
cmd_trace_show(int argc, char **argv, void *ctx)
{
	struct rsw_trace_rec *recs;
	unsigned int lc, n = 0, i;
	json_t *arr;

	(void)argc;
	(void)argv;
	(void)ctx;
	recs = malloc(sizeof(*recs) * RSW_TRACE_CAP * (rsw_ctl.n_workers + 1));
	arr = json_array();
	if (recs == NULL || arr == NULL) {
		free(recs);
		json_decref(arr);
		return rsw_cmd_error("out of memory");
	}
	for (i = 0; i < rsw_ctl.n_workers; i++) {
		lc = rsw_ctl.workers[i].lcore;
		n += rsw_trace_read(lc, recs + n);
	}
	qsort(recs, n, sizeof(*recs), rec_cmp);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, entry(&recs[i]));
	free(recs);
	return json_pack("{s:o}", "trace", arr);
}

static json_t *
cmd_trace_start(int argc, char **argv, void *ctx)
{
	struct rsw_trace_req q;
	struct timespec ts;
	char err[128];
	int port = RSW_TRACE_ANY_PORT, ret;

	(void)ctx;
	if (rsw_trace_parse_start(argc, argv, &q, err, sizeof(err)) != 0)
		return rsw_cmd_error("trace start: %s; usage: trace %s", err, RSW_TRACE_USAGE);
	if (q.port != NULL) {
		port = rsw_cli_port_arg(q.port);
		if (port < 0)
			return rsw_cmd_error("unknown port '%.40s'", q.port);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ret = rsw_trace_arm(q.count, (uint16_t)port, rte_rdtsc(),
			    (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
			    rte_get_tsc_hz());
	if (ret != 0)
		return rsw_cmd_error("trace start: %s", strerror(-ret));
	return rsw_cmd_ok();
}

static json_t *
cmd_trace_stop(int argc, char **argv, void *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	rsw_trace_arm(0, RSW_TRACE_ANY_PORT, 0, 0, 0);
	return rsw_cmd_ok();
}

static json_t *
cmd_trace_clear(int argc, char **argv, void *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	rsw_trace_clear();
	return rsw_cmd_ok();
}

static int
trace_init(const struct rsw_config *cfg)
{
	int ret = 0;

	(void)cfg;
	ret |= rsw_cmd_register("trace start", 0, 4, "[--port PORT] [--count N]",
				"record the next N frames (default 50) received on PORT or any",
				cmd_trace_start, NULL);
	ret |= rsw_cmd_register("trace stop", 0, 0, "", "stop recording; keep the records",
				cmd_trace_stop, NULL);
	ret |= rsw_cmd_register("trace clear", 0, 0, "", "forget the recorded frames",
				cmd_trace_clear, NULL);
	ret |= rsw_cmd_register("trace show", 0, 0, "",
				"the traced frames, each step's decision and how each ended",
				cmd_trace_show, NULL);
	return ret != 0 ? -EINVAL : 0;
}

static void
trace_fini(void)
{
	rsw_trace_arm(0, RSW_TRACE_ANY_PORT, 0, 0, 0);
}

static struct rsw_module trace_cli_module = {
	.name = "cli.trace",
	.order = RSW_CLI_MODULE_ORDER,
	.init = trace_init,
	.fini = trace_fini,
};

RSW_MODULE_REGISTER(trace_cli_module);
