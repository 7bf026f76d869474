/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * DPDK telemetry commands /railsw/ports|queues|pfc|lb|drops|totals|buffer|punt|llr|workers|cbfc
 * (docs/observability.md).
 * The callbacks run on DPDK's telemetry thread, which must never touch the control
 * thread's state, so the control thread runs the `show` commands of docs/cli.md through
 * the command registry every RSW_TEL_PERIOD_MS and publishes the JSON documents as
 * a snapshot; the callbacks read that snapshot under a mutex and convert it into
 * rte_tel_data. The commands and keys are those of the tables' definitions (rsw_table.h),
 * so field names are exactly those of `railctl --json` and `describe`.
 *
 * Telemetry replies are capped at 16 KiB and containers nest one level deep (a dict of
 * dicts of scalars), so per-port tables take the port as a parameter (/railsw/queues,p0)
 * and a group's members are listed by /railsw/lb,GROUP.
 */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>
#include <rte_telemetry.h>

#include "rsw_cmd.h"
#include "rsw_ctl.h"
#include "rsw_module.h"
#include "rsw_neigh.h"
#include "rsw_table.h"
#include "rsw_telemetry.h"

RTE_LOG_REGISTER(rsw_tel_logtype, rsw.telemetry, INFO);
#define TEL_LOG(level, fmt, ...)                                                                   \
	rte_log(RTE_LOG_##level, rsw_tel_logtype, "rsw.telemetry: " fmt "\n", ##__VA_ARGS__)

/* How often the control thread refreshes the snapshot. */
#define RSW_TEL_PERIOD_MS 200
/* A reply must fit DPDK's 16 KiB output buffer, with room for the JSON telemetry adds. */
#define RSW_TEL_MAX_REPLY (14 * 1024)

/* The tables of the snapshot: the `show` command and the key of its reply. */
enum rsw_tel_table {
	RSW_TEL_PORTS,
	RSW_TEL_QUEUES,
	RSW_TEL_PFC,
	RSW_TEL_LB,
	RSW_TEL_DROPS,
	RSW_TEL_BUFFER,
	RSW_TEL_PUNT,
	RSW_TEL_LLR,
	RSW_TEL_WORKERS,
	RSW_TEL_CBFC,
	RSW_TEL_N,
};

/* The table each snapshot entry holds (rsw_table.h): its command and the key of its rows. */
static const struct rsw_table_def *const tel_table[RSW_TEL_N] = {
	[RSW_TEL_PORTS] = &rsw_table_ports,     [RSW_TEL_QUEUES] = &rsw_table_queues,
	[RSW_TEL_PFC] = &rsw_table_pfc,         [RSW_TEL_LB] = &rsw_table_lb_groups,
	[RSW_TEL_DROPS] = &rsw_table_drops,     [RSW_TEL_BUFFER] = &rsw_table_buffer,
	[RSW_TEL_PUNT] = &rsw_table_punt,       [RSW_TEL_LLR] = &rsw_table_llr,
	[RSW_TEL_WORKERS] = &rsw_table_workers, [RSW_TEL_CBFC] = &rsw_table_cbfc,
};

/*
 * Thread-safety: snap[] is written by the control thread (rsw_telemetry_poll,
 * rsw_telemetry_fini) under lock and read by the telemetry callbacks under lock. A
 * published document is never modified, only replaced and released.
 */
struct rsw_telemetry_main {
	pthread_mutex_t lock;    /* protects snap[] */
	json_t *snap[RSW_TEL_N]; /* `show` replies of the last refresh; NULL before/after */
	uint64_t last_ms;        /* control thread: time of the last refresh */
	bool enabled;            /* control thread: control.telemetry */
	bool registered;         /* control thread: commands registered (never undone) */
};

static struct rsw_telemetry_main rsw_tel = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* One JSON scalar into a telemetry dict; objects, arrays and null are left out. */
static void
tel_dict_add(struct rte_tel_data *d, const char *key, const json_t *v)
{
	char buf[64];

	switch (json_typeof(v)) {
	case JSON_INTEGER:
		if (json_integer_value(v) >= 0)
			rte_tel_data_add_dict_u64(d, key, (uint64_t)json_integer_value(v));
		else
			rte_tel_data_add_dict_int(d, key, (int)json_integer_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		rte_tel_data_add_dict_u64(d, key, json_is_true(v) ? 1 : 0);
		break;
	case JSON_STRING:
		rte_tel_data_add_dict_string(d, key, json_string_value(v));
		break;
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		rte_tel_data_add_dict_string(d, key, buf);
		break;
	default:
		break;
	}
}

/* Every scalar member of a JSON object, in order, into the dict d (already started). */
static void
tel_dict_fill(struct rte_tel_data *d, const json_t *o)
{
	const char *key;
	json_t *v;
	int n = 0;

	json_object_foreach((json_t *)o, key, v)
	{
		if (n++ >= RTE_TEL_MAX_DICT_ENTRIES)
			break;
		tel_dict_add(d, key, v);
	}
}

/* A new telemetry dict holding the scalars of o (for a container), or NULL. */
static struct rte_tel_data *
tel_dict_of(const json_t *o)
{
	struct rte_tel_data *c = rte_tel_data_alloc();

	if (c == NULL)
		return NULL;
	rte_tel_data_start_dict(c);
	tel_dict_fill(c, o);
	return c;
}

/* The reply is an error: {"error": message}. */
static int tel_error(struct rte_tel_data *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
tel_error(struct rte_tel_data *d, const char *fmt, ...)
{
	char msg[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", msg);
	return 0;
}

/* The rows of snapshot table t; NULL when there are none yet. Call under lock. */
static const json_t *
snap_list(enum rsw_tel_table t)
{
	const json_t *l =
		rsw_tel.snap[t] ? json_object_get(rsw_tel.snap[t], tel_table[t]->key) : NULL;

	return json_is_array(l) ? l : NULL;
}

static bool
params_given(const char *params)
{
	return params != NULL && params[0] != '\0';
}

/* Whether row (an object) has field equal to the string s. */
static bool
row_is(const json_t *row, const char *field, const char *s)
{
	const char *v = json_string_value(json_object_get(row, field));

	return v != NULL && strcmp(v, s) == 0;
}

/* Whether a port of the snapshot is named name. Call under lock. */
static bool
port_known(const char *name)
{
	const json_t *ports = snap_list(RSW_TEL_PORTS), *row;
	size_t i;

	json_array_foreach(ports, i, row) if (row_is(row, "name", name)) return true;
	return false;
}

/* "p0, p1, ..." of the snapshot, for error messages. Call under lock. */
static const char *
port_names(char *buf, size_t len)
{
	const json_t *ports = snap_list(RSW_TEL_PORTS), *row;
	size_t i, used = 0;

	buf[0] = '\0';
	json_array_foreach(ports, i, row)
	{
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 json_string_value(json_object_get(row, "name")));

		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

/*
 * /railsw/ports[,PORT]: {"p0": {name, id, mac, ..., rx_packets, ...}, ...}; /railsw/llr[,PORT]
 * the same with the rows of `show llr` (t, named by name_key).
 */
static int
tel_port_table_locked(enum rsw_tel_table t, const char *name_key, const char *params,
		      struct rte_tel_data *d)
{
	const json_t *ports = snap_list(t), *row;
	char names[RTE_TEL_MAX_STRING_LEN];
	size_t i, n = 0;

	if (ports == NULL)
		return tel_error(d, "no data yet");
	if (params_given(params) && !port_known(params))
		return tel_error(d, "unknown port '%s' (ports: %s)", params,
				 port_names(names, sizeof(names)));
	if (!params_given(params)) {
		char *s = json_dumps(ports, JSON_COMPACT);

		n = s ? strlen(s) : 0;
		free(s);
		if (n > RSW_TEL_MAX_REPLY)
			return tel_error(d, "too many ports for one reply: ask %s,PORT",
					 t == RSW_TEL_LLR ? "/railsw/llr" : "/railsw/ports");
	}
	rte_tel_data_start_dict(d);
	json_array_foreach(ports, i, row)
	{
		const char *name = json_string_value(json_object_get(row, name_key));
		struct rte_tel_data *c;

		if (name == NULL || (params_given(params) && strcmp(name, params) != 0))
			continue;
		c = tel_dict_of(row);
		if (c == NULL || rte_tel_data_add_dict_container(d, name, c, 0) != 0) {
			rte_tel_data_free(c);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * /railsw/queues,PORT and /railsw/pfc,PORT: {"0": {port, tc|priority, ...}, ..., "7": ...},
 * keyed by the row's index field (DPDK 22.11 arrays cannot hold dicts).
 */
static int
tel_port_rows_locked(enum rsw_tel_table t, const char *index, const char *cmd, const char *params,
		     struct rte_tel_data *d)
{
	const json_t *rows = snap_list(t), *row;
	char names[RTE_TEL_MAX_STRING_LEN];
	size_t i;

	if (rows == NULL)
		return tel_error(d, "no data yet");
	if (!params_given(params))
		return tel_error(d, "usage: %s,PORT (ports: %s)", cmd,
				 port_names(names, sizeof(names)));
	if (!port_known(params))
		return tel_error(d, "unknown port '%s' (ports: %s)", params,
				 port_names(names, sizeof(names)));
	rte_tel_data_start_dict(d);
	json_array_foreach(rows, i, row)
	{
		struct rte_tel_data *c;
		char id[24];

		if (!row_is(row, "port", params))
			continue;
		snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(row, index)));
		c = tel_dict_of(row);
		if (c == NULL || rte_tel_data_add_dict_container(d, id, c, 0) != 0) {
			rte_tel_data_free(c);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Parse a group id; -1 if params is not a decimal number. */
static long
group_arg(const char *params)
{
	char *end;
	long g;

	errno = 0;
	g = strtol(params, &end, 10);
	if (errno != 0 || end == params || *end != '\0' || g < 0)
		return -1;
	return g;
}

/*
 * /railsw/lb: {"0": {id, prefix, routes, mode, members, members_up, packets, bytes}, ...};
 * /railsw/lb,GROUP: {"0": {group, prefix, mode, nexthop, port, up, packets, bytes}, ...},
 * keyed by member index.
 */
static int
tel_lb_locked(const char *params, struct rte_tel_data *d)
{
	const json_t *groups = snap_list(RSW_TEL_LB), *gr, *m;
	long want = -1;
	size_t i, j;

	if (groups == NULL)
		return tel_error(d, "no data yet");
	if (params_given(params)) {
		want = group_arg(params);
		if (want < 0 || (size_t)want >= json_array_size(groups))
			return tel_error(d, "unknown group '%s' (groups: 0..%zu)", params,
					 json_array_size(groups) ? json_array_size(groups) - 1 : 0);
		gr = json_array_get(groups, (size_t)want);
		rte_tel_data_start_dict(d);
		json_array_foreach(json_object_get(gr, "members"), j, m)
		{
			struct rte_tel_data *c = tel_dict_of(m);
			char id[24];

			if (c == NULL)
				return -ENOMEM;
			rte_tel_data_add_dict_u64(c, "group", (uint64_t)want);
			tel_dict_add(c, "prefix", json_object_get(gr, "prefix"));
			tel_dict_add(c, "mode", json_object_get(gr, "mode"));
			snprintf(id, sizeof(id), "%zu", j);
			if (rte_tel_data_add_dict_container(d, id, c, 0) != 0) {
				rte_tel_data_free(c);
				return -ENOMEM;
			}
		}
		return 0;
	}
	rte_tel_data_start_dict(d);
	json_array_foreach(groups, i, gr)
	{
		uint64_t pkts = 0, bytes = 0, up = 0;
		struct rte_tel_data *c = tel_dict_of(gr);
		char id[24];

		if (c == NULL)
			return -ENOMEM;
		json_array_foreach(json_object_get(gr, "members"), j, m)
		{
			pkts += (uint64_t)json_integer_value(json_object_get(m, "packets"));
			bytes += (uint64_t)json_integer_value(json_object_get(m, "bytes"));
			up += json_is_true(json_object_get(m, "up"));
		}
		rte_tel_data_add_dict_u64(c, "members",
					  json_array_size(json_object_get(gr, "members")));
		rte_tel_data_add_dict_u64(c, "members_up", up);
		rte_tel_data_add_dict_u64(c, "packets", pkts);
		rte_tel_data_add_dict_u64(c, "bytes", bytes);
		snprintf(id, sizeof(id), "%zu", i);
		if (rte_tel_data_add_dict_container(d, id, c, 0) != 0) {
			rte_tel_data_free(c);
			return -ENOMEM;
		}
	}
	return 0;
}

/* /railsw/drops: {"no_route": N, ...}, every drop reason switch-wide. */
static int
tel_drops_locked(struct rte_tel_data *d)
{
	const json_t *rows = snap_list(RSW_TEL_DROPS), *row;
	size_t i;

	if (rows == NULL)
		return tel_error(d, "no data yet");
	rte_tel_data_start_dict(d);
	json_array_foreach(rows, i, row)
	{
		const char *reason = json_string_value(json_object_get(row, "reason"));

		if (reason != NULL)
			tel_dict_add(d, reason, json_object_get(row, "packets"));
	}
	return 0;
}

/* /railsw/totals: {received, forwarded, consumed, originated, queued, dropped} (show drops). */
static int
tel_totals_locked(struct rte_tel_data *d)
{
	const json_t *o = rsw_tel.snap[RSW_TEL_DROPS] ? json_object_get(rsw_tel.snap[RSW_TEL_DROPS],
									rsw_table_drop_totals.key)
						      : NULL;

	if (!json_is_object(o))
		return tel_error(d, "no data yet");
	rte_tel_data_start_dict(d);
	tel_dict_fill(d, o);
	return 0;
}

/* /railsw/punt: {"arp": {class, packets, bytes, policed, rate, burst}, ...}. */
static int
tel_punt_locked(struct rte_tel_data *d)
{
	const json_t *rows = snap_list(RSW_TEL_PUNT), *row;
	size_t i;

	if (rows == NULL)
		return tel_error(d, "no data yet");
	rte_tel_data_start_dict(d);
	json_array_foreach(rows, i, row)
	{
		const char *cls = json_string_value(json_object_get(row, "class"));
		struct rte_tel_data *c;

		if (cls == NULL || (c = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(c);
		tel_dict_fill(c, row);
		if (rte_tel_data_add_dict_container(d, cls, c, 0) != 0)
			rte_tel_data_free(c);
	}
	return 0;
}

/*
 * /railsw/workers: {"0": {worker, lcore, rx_queues, rx_packets, ...}, ...}, rx_queues as one
 * string "p0:0,p1:0" (telemetry dicts hold no lists of strings inside containers).
 */
static int
tel_workers_locked(struct rte_tel_data *d)
{
	const json_t *rows = snap_list(RSW_TEL_WORKERS), *row, *q;
	char key[16], qs[RTE_TEL_MAX_STRING_LEN];
	size_t i, j, len;

	if (rows == NULL)
		return tel_error(d, "no data yet");
	rte_tel_data_start_dict(d);
	json_array_foreach(rows, i, row)
	{
		struct rte_tel_data *c = tel_dict_of(row);

		if (c == NULL)
			continue;
		qs[0] = '\0';
		len = 0;
		json_array_foreach(json_object_get(row, "rx_queues"), j, q)
		{
			int n = snprintf(qs + len, sizeof(qs) - len, "%s%s", j ? "," : "",
					 json_string_value(q) ?: "");

			if (n < 0 || (size_t)n >= sizeof(qs) - len)
				break;
			len += (size_t)n;
		}
		rte_tel_data_add_dict_string(c, "rx_queues", qs);
		snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(row, "worker")));
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0)
			rte_tel_data_free(c);
	}
	return 0;
}

/* /railsw/buffer: {total, used, headroom_reserved, watermark, mbufs_in_use, mbufs_total}. */
static int
tel_buffer_locked(struct rte_tel_data *d)
{
	const json_t *b = rsw_tel.snap[RSW_TEL_BUFFER]
				  ? json_object_get(rsw_tel.snap[RSW_TEL_BUFFER],
						    tel_table[RSW_TEL_BUFFER]->key)
				  : NULL;

	if (!json_is_object(b))
		return tel_error(d, "no data yet");
	rte_tel_data_start_dict(d);
	tel_dict_fill(d, b);
	return 0;
}

/* Telemetry thread: one callback for every command, dispatched on its name. */
static int
tel_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int ret;

	pthread_mutex_lock(&rsw_tel.lock);
	if (strcmp(cmd, "/railsw/ports") == 0)
		ret = tel_port_table_locked(RSW_TEL_PORTS, "name", params, d);
	else if (strcmp(cmd, "/railsw/llr") == 0)
		ret = tel_port_table_locked(RSW_TEL_LLR, "port", params, d);
	else if (strcmp(cmd, "/railsw/queues") == 0)
		ret = tel_port_rows_locked(RSW_TEL_QUEUES, "tc", cmd, params, d);
	else if (strcmp(cmd, "/railsw/pfc") == 0)
		ret = tel_port_rows_locked(RSW_TEL_PFC, "priority", cmd, params, d);
	else if (strcmp(cmd, "/railsw/cbfc") == 0)
		ret = tel_port_rows_locked(RSW_TEL_CBFC, "vc", cmd, params, d);
	else if (strcmp(cmd, "/railsw/lb") == 0)
		ret = tel_lb_locked(params, d);
	else if (strcmp(cmd, "/railsw/drops") == 0)
		ret = tel_drops_locked(d);
	else if (strcmp(cmd, "/railsw/totals") == 0)
		ret = tel_totals_locked(d);
	else if (strcmp(cmd, "/railsw/buffer") == 0)
		ret = tel_buffer_locked(d);
	else if (strcmp(cmd, "/railsw/punt") == 0)
		ret = tel_punt_locked(d);
	else if (strcmp(cmd, "/railsw/workers") == 0)
		ret = tel_workers_locked(d);
	else
		ret = -EINVAL;
	pthread_mutex_unlock(&rsw_tel.lock);
	return ret;
}

/* Build a new snapshot from the `show` commands and publish it. Control thread. */
static void
tel_refresh(void)
{
	json_t *fresh[RSW_TEL_N], *old[RSW_TEL_N];
	int t;

	for (t = 0; t < RSW_TEL_N; t++) {
		fresh[t] = rsw_cmd_exec(tel_table[t]->command, strlen(tel_table[t]->command));
		if (fresh[t] != NULL && json_object_get(fresh[t], "error") != NULL) {
			json_decref(fresh[t]);
			fresh[t] = NULL;
		}
	}
	pthread_mutex_lock(&rsw_tel.lock);
	for (t = 0; t < RSW_TEL_N; t++) {
		old[t] = rsw_tel.snap[t];
		rsw_tel.snap[t] = fresh[t];
	}
	pthread_mutex_unlock(&rsw_tel.lock);
	for (t = 0; t < RSW_TEL_N; t++)
		json_decref(old[t]);
}

int
rsw_telemetry_init(const struct rsw_config *cfg)
{
	static const struct {
		const char *cmd;
		const char *help;
	} cmds[] = {
		{"/railsw/ports", "Port state and counters (show ports). Parameters: [port name]"},
		{"/railsw/queues",
		 "Queue counters per traffic class (show queues). Parameters: port name"},
		{"/railsw/pfc", "PFC counters per priority (show pfc). Parameters: port name"},
		{"/railsw/lb",
		 "Next-hop groups (show lb); with a group id, its members. Parameters: [group id]"},
		{"/railsw/drops",
		 "Every drop reason, switch-wide (show drops). Takes no parameters"},
		{"/railsw/totals",
		 "Frames received, forwarded, consumed, originated, queued and dropped (show drops "
		 "totals). Takes no parameters"},
		{"/railsw/buffer", "Shared buffer occupancy (show buffer). Takes no parameters"},
		{"/railsw/punt", "Punted frames by class (show punt). Takes no parameters"},
		{"/railsw/llr",
		 "Link-Level Retry state and counters (show llr). Parameters: [port name]"},
		{"/railsw/workers",
		 "Per worker: rx queues, frames received, sent and handed off, busy % (show "
		 "workers). Takes no parameters"},
		{"/railsw/cbfc",
		 "Credit-based flow control per lossless TC (show cbfc). Parameters: port name"},
	};
	unsigned int i;
	int ret;

	rsw_tel.enabled = cfg->control.telemetry;
	if (!rsw_tel.enabled)
		return 0;
	tel_refresh();
	rsw_tel.last_ms = rsw_now_ms();
	if (rsw_tel.registered)
		return 0;
	for (i = 0; i < RTE_DIM(cmds); i++) {
		ret = rte_telemetry_register_cmd(cmds[i].cmd, tel_cb, cmds[i].help);
		if (ret != 0) {
			TEL_LOG(ERR, "cannot register %s: %s", cmds[i].cmd, strerror(-ret));
			return ret;
		}
	}
	rsw_tel.registered = true;
	return 0;
}

void
rsw_telemetry_poll(uint64_t now_ms)
{
	if (!rsw_tel.enabled || now_ms - rsw_tel.last_ms < RSW_TEL_PERIOD_MS)
		return;
	rsw_tel.last_ms = now_ms;
	tel_refresh();
}

void
rsw_telemetry_fini(void)
{
	json_t *old[RSW_TEL_N];
	int t;

	/* The commands stay registered (DPDK 22.11 has no unregister): they answer "no data". */
	pthread_mutex_lock(&rsw_tel.lock);
	for (t = 0; t < RSW_TEL_N; t++) {
		old[t] = rsw_tel.snap[t];
		rsw_tel.snap[t] = NULL;
	}
	pthread_mutex_unlock(&rsw_tel.lock);
	for (t = 0; t < RSW_TEL_N; t++)
		json_decref(old[t]);
	rsw_tel.enabled = false;
}

/* A failure is not fatal: railsw runs without its telemetry commands. */
static int
telemetry_init(const struct rsw_config *cfg)
{
	if (rsw_telemetry_init(cfg) != 0)
		rte_log(RTE_LOG_WARNING, rsw_tel_logtype,
			"railsw: telemetry commands unavailable\n");
	return 0;
}

static unsigned int
telemetry_poll(uint64_t now_ms)
{
	rsw_telemetry_poll(now_ms);
	return 0;
}

static struct rsw_module telemetry_module = {
	.name = "telemetry",
	.order = RSW_MODULE_ORDER_TELEMETRY,
	.init = telemetry_init,
	.poll = telemetry_poll,
	.fini = rsw_telemetry_fini,
};

RSW_MODULE_REGISTER(telemetry_module);
