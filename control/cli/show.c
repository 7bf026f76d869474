/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The commands of ../shared/CLI.md served by the control thread: thin
 * handlers that read counters, tables and neighbour state and format JSON with
 * the contract's field names. Counter names come from the X-macros of
 * rsw_stats.h; `clear counters` keeps baselines here and never writes a
 * worker's slot.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "rsw_cmd.h"
#include "rsw_ctl.h"
#include "rsw_icmp.h"
#include "rsw_lb.h"
#include "rsw_liveness.h"
#include "rsw_neigh.h"
#include "rsw_ports.h"
#include "rsw_show.h"
#include "rsw_topology.h"
#include "rsw_watchdog.h"

static int
port_arg(const char *name)
{
	return rsw_config_port_index(rsw_ctl.cfg, name);
}

static uint64_t
since(uint64_t now, uint64_t base)
{
	return now >= base ? now - base : 0;
}

static uint64_t
port_missed(uint16_t p)
{
	struct rte_eth_stats es;

	if (rte_eth_stats_get(rsw_dp.ports[p].eth_port, &es) != 0)
		return 0;
	return es.imissed;
}

static json_t *
port_json(uint16_t p)
{
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[p];
	uint64_t c[RSW_N_PORT_CTRS];
	enum rsw_link_state link = rsw_port_link(p);
	char mac[RSW_MAC_STR_LEN], buf[64];
	json_t *o;
	int i;

	rsw_stats_port_sum(p, c);
	o = json_pack("{s:s, s:i, s:s, s:I, s:o, s:b}", "name", cp->name, "id", p, "mac",
		      rsw_mac_str(rsw_dp.ports[p].mac.addr_bytes, mac), "speed_bps",
		      (json_int_t)rsw_port_speed(p), "link_up",
		      link == RSW_LINK_UNKNOWN ? json_null() : json_boolean(link == RSW_LINK_UP),
		      "admin_up", !rsw_dp.ports[p].admin_down);
	if (o == NULL)
		return NULL;
	for (i = 0; i < RSW_N_PORT_CTRS; i++) {
		json_object_set_new(o, rsw_port_ctr_name(i),
				    json_integer((json_int_t)since(c[i], rsw_ctl.port_base[p][i])));
		if (i == RSW_PC_tx_bytes)
			json_object_set_new(o, "rx_missed",
					    json_integer((json_int_t)since(
						    port_missed(p), rsw_ctl.missed_base[p])));
	}
	json_object_set_new(o, "link_state", json_string(rsw_link_state_name(link)));
	json_object_set_new(o, "devargs", json_string(cp->devargs));
	json_object_set_new(o, "kind", json_string(rsw_port_kind_name(p)));
	json_object_set_new(o, "mac_ctrl", json_boolean(rsw_port_mac_ctrl(p)));
	json_object_set_new(o, "mtu", json_integer(cp->mtu));
	if (cp->has_ipv4)
		json_object_set_new(o, "ipv4",
				    json_string(rsw_prefix_str(&cp->ipv4, buf, sizeof(buf))));
	if (cp->has_ipv6)
		json_object_set_new(o, "ipv6",
				    json_string(rsw_prefix_str(&cp->ipv6, buf, sizeof(buf))));
	return o;
}

static json_t *
cmd_show_ports(int argc, char **argv, void *ctx)
{
	json_t *arr = json_array();
	int p, only = -1;

	if (argc == 1 && (only = port_arg(argv[0])) < 0) {
		json_decref(arr);
		return rsw_cmd_error("unknown port '%s'", argv[0]);
	}
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++)
		if (only < 0 || only == p)
			json_array_append_new(arr, port_json((uint16_t)p));
	return json_pack("{s:o}", "ports", arr);
}

static json_t *
cmd_show_drops(int argc, char **argv, void *ctx)
{
	uint64_t total[RSW_N_PORT_CTRS] = {0}, c[RSW_N_PORT_CTRS];
	json_t *arr = json_array();
	uint16_t p;
	int i;

	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		rsw_stats_port_sum(p, c);
		for (i = 0; i < RSW_N_PORT_CTRS; i++)
			total[i] += since(c[i], rsw_ctl.port_base[p][i]);
	}
	for (i = 0; i < RSW_N_PORT_CTRS; i++)
		if (rsw_port_ctr_is_drop(i))
			json_array_append_new(arr, json_pack("{s:s, s:I}", "reason",
							     rsw_port_ctr_name(i), "packets",
							     (json_int_t)total[i]));
	return json_pack("{s:o}", "drops", arr);
}

static const char *
route_mode(int lb)
{
	return rsw_lb_mode_name(lb == RSW_LB_UNSET ? rsw_ctl.cfg->lb.mode : lb);
}

/* The mode packets of each TC take through a group of the tables t. */
static json_t *
tc_modes(const struct rsw_tables *t, const struct rsw_group *g)
{
	json_t *a = json_array();
	uint8_t tc;

	for (tc = 0; a != NULL && tc < RSW_N_TC; tc++)
		json_array_append_new(
			a, json_string(rsw_lb_mode_name(rsw_lb_mode_for_tc(t, g->lb_mode, tc))));
	return a;
}

static void
add_port_route(json_t *arr, const struct rsw_cfg_port *cp, const struct rsw_prefix *addr)
{
	struct rsw_prefix net = *addr;
	uint8_t full = addr->ip.family == RSW_AF_INET ? 32 : 128;
	char buf[64];
	int i;

	for (i = net.len; i < full; i++)
		net.ip.addr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	json_array_append_new(arr,
			      json_pack("{s:s, s:[], s:s, s:s, s:s}", "prefix",
					rsw_prefix_str(&net, buf, sizeof(buf)), "nexthops", "mode",
					"connected", "type", "connected", "port", cp->name));
	net = *addr;
	net.len = full;
	json_array_append_new(arr, json_pack("{s:s, s:[], s:s, s:s, s:s}", "prefix",
					     rsw_prefix_str(&net, buf, sizeof(buf)), "nexthops",
					     "mode", "local", "type", "local", "port", cp->name));
}

static json_t *
cmd_show_routes(int argc, char **argv, void *ctx)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	json_t *arr = json_array();
	char buf[64];
	uint32_t i, j;
	uint16_t p;

	for (p = 0; p < cfg->n_ports; p++) {
		if (cfg->ports[p].has_ipv4)
			add_port_route(arr, &cfg->ports[p], &cfg->ports[p].ipv4);
		if (cfg->ports[p].has_ipv6)
			add_port_route(arr, &cfg->ports[p], &cfg->ports[p].ipv6);
	}
	for (i = 0; i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];
		json_t *nh = json_array();

		for (j = 0; j < r->n_nexthops; j++)
			json_array_append_new(
				nh, json_string(rsw_ip_str(&r->nexthops[j], buf, sizeof(buf))));
		json_array_append_new(arr, json_pack("{s:s, s:o, s:s, s:s}", "prefix",
						     rsw_prefix_str(&r->prefix, buf, sizeof(buf)),
						     "nexthops", nh, "mode", route_mode(r->lb),
						     "type", r->derived ? "topology" : "static"));
	}
	return json_pack("{s:o}", "routes", arr);
}

static json_t *
cmd_show_neighbors(int argc, char **argv, void *ctx)
{
	return rsw_ctl_neigh_json();
}

static json_t *
cmd_show_lb(int argc, char **argv, void *ctx)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	const struct rsw_tables *t = rsw_fib_main.tables;
	json_t *arr = json_array();
	char buf[64];
	uint32_t g, j;

	for (g = 0; t != NULL && g < t->n_groups && g < cfg->n_routes; g++) {
		const struct rsw_group *gr = &t->groups[g];
		/* Routes with the same next hops share the group: its first route names them. */
		const struct rsw_cfg_route *r =
			&cfg->routes[gr->route < cfg->n_routes ? gr->route : g];
		json_t *members = json_array();

		for (j = 0; j < gr->n_members; j++) {
			const struct rsw_nexthop *nh = &t->nh[gr->members[j]];
			struct rsw_lb_member_stats s;

			rsw_stats_lb_sum(g, j, &s);
			json_array_append_new(
				members,
				json_pack(
					"{s:s, s:s, s:b, s:I, s:I}", "nexthop",
					rsw_ip_str(&r->nexthops[j], buf, sizeof(buf)), "port",
					cfg->ports[nh->port].name, "up", rsw_ctl_lb_member_up(g, j),
					"packets",
					(json_int_t)since(s.packets, rsw_ctl.lb_base[g][j].packets),
					"bytes",
					(json_int_t)since(s.bytes, rsw_ctl.lb_base[g][j].bytes)));
		}
		json_array_append_new(
			arr, json_pack("{s:i, s:s, s:I, s:s, s:o, s:o}", "id", g, "prefix",
				       rsw_prefix_str(&gr->prefix, buf, sizeof(buf)), "routes",
				       (json_int_t)gr->n_routes, "mode", route_mode(gr->lb_mode),
				       "tc_modes", tc_modes(t, gr), "members", members));
	}
	return json_pack("{s:o}", "groups", arr);
}

static json_t *
cmd_show_config(int argc, char **argv, void *ctx)
{
	json_t *c = rsw_config_to_json(rsw_ctl.cfg);

	return c ? c : rsw_cmd_error("cannot format the configuration");
}

static json_t *
cmd_clear_counters(int argc, char **argv, void *ctx)
{
	uint32_t g, j;
	uint16_t p;

	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		rsw_stats_port_sum(p, rsw_ctl.port_base[p]);
		rsw_ctl.missed_base[p] = port_missed(p);
	}
	for (g = 0; g < RSW_MAX_GROUPS; g++)
		for (j = 0; j < RSW_MAX_NEXTHOPS; j++)
			rsw_stats_lb_sum(g, j, &rsw_ctl.lb_base[g][j]);
	rsw_ctl_qos_sum(rsw_ctl.qos_base);
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		for (j = 0; j < RSW_N_TC; j++) {
			rsw_ctl.qos_base->pfc[p][j][RSW_FC_pfcwd_storms] = rsw_ctl.wd_storms[p][j];
			rsw_ctl.qos_base->pfc[p][j][RSW_FC_pfcwd_restores] =
				rsw_ctl.wd_restores[p][j];
		}
	}
	rsw_ctl_icmp_counters_clear();
	/* Watermarks: each lcore resets its own when it sees the new epoch. */
	__atomic_fetch_add(&rsw_qos.wm_epoch, 1, __ATOMIC_RELEASE);
	return rsw_cmd_ok();
}

/* The port named by an optional argument: -1 = all, -2 = unknown (error already set). */
static int
port_filter(int argc, char **argv, json_t **err)
{
	int p;

	if (argc == 0)
		return -1;
	p = port_arg(argv[0]);
	if (p < 0) {
		*err = rsw_cmd_error("unknown port '%s'", argv[0]);
		return -2;
	}
	return p;
}

static struct rsw_qos_stats *
qos_now(void)
{
	struct rsw_qos_stats *s = malloc(sizeof(*s));

	if (s != NULL)
		rsw_ctl_qos_sum(s);
	return s;
}

/* Fills the row of one (port, TC) of a per-queue table. */
typedef void(tc_row_fn)(json_t *o, const struct rsw_qos_stats *s, int p, int tc);

/*
 * The rows of a table with one object per (port, TC): {"port", tc_key, ..., "lossless"},
 * for every port or the one argv names.
 */
static json_t *
per_port_tc(int argc, char **argv, const char *table, const char *tc_key, tc_row_fn *row)
{
	json_t *arr, *err = NULL;
	struct rsw_qos_stats *s;
	int only = port_filter(argc, argv, &err), p, tc;

	if (only == -2)
		return err;
	s = qos_now();
	if (s == NULL)
		return rsw_cmd_error("out of memory");
	arr = json_array();
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		if (only >= 0 && only != p)
			continue;
		for (tc = 0; tc < RSW_N_TC; tc++) {
			json_t *o = json_pack("{s:s, s:i}", "port", rsw_ctl.cfg->ports[p].name,
					      tc_key, tc);

			row(o, s, p, tc);
			json_object_set_new(o, "lossless",
					    json_boolean(rsw_ctl.cfg->qos.lossless & (1u << tc)));
			json_array_append_new(arr, o);
		}
	}
	free(s);
	return json_pack("{s:o}", table, arr);
}

static void
queue_row(json_t *o, const struct rsw_qos_stats *s, int p, int tc)
{
	int i;

	for (i = 0; i < RSW_N_QUEUE_CTRS; i++) {
		json_object_set_new(o, rsw_queue_ctr_name(i),
				    json_integer((json_int_t)since(s->q[p][tc][i],
								   rsw_ctl.qos_base->q[p][tc][i])));
		if (i == RSW_QC_trimmed) {
			json_object_set_new(
				o, "depth_bytes",
				json_integer((json_int_t)__atomic_load_n(
					&rsw_qos.port[p].q_bytes[tc], __ATOMIC_RELAXED)));
			json_object_set_new(o, "watermark_bytes",
					    json_integer((json_int_t)s->q_watermark[p][tc]));
		}
	}
}

static json_t *
cmd_show_queues(int argc, char **argv, void *ctx)
{
	return per_port_tc(argc, argv, "queues", "tc", queue_row);
}

static void
pfc_row(json_t *o, const struct rsw_qos_stats *s, int p, int tc)
{
	uint64_t v;
	int i;

	for (i = 0; i < RSW_N_PFC_CTRS; i++) {
		if (i == RSW_FC_pfcwd_storms)
			v = rsw_ctl.wd_storms[p][tc];
		else if (i == RSW_FC_pfcwd_restores)
			v = rsw_ctl.wd_restores[p][tc];
		else
			v = s->pfc[p][tc][i];
		json_object_set_new(
			o, rsw_pfc_ctr_name(i),
			json_integer((json_int_t)since(v, rsw_ctl.qos_base->pfc[p][tc][i])));
	}
	json_object_set_new(o, "paused",
			    json_boolean(__atomic_load_n(&rsw_qos.port[p].paused_until[tc],
							 __ATOMIC_RELAXED) > rte_rdtsc()));
	json_object_set_new(
		o, "storm",
		json_boolean(rsw_qos.port[p].storm_drop[tc] || rsw_qos.port[p].storm_ignore[tc]));
}

static json_t *
cmd_show_pfc(int argc, char **argv, void *ctx)
{
	return per_port_tc(argc, argv, "pfc", "priority", pfc_row);
}

static json_t *
cmd_show_buffer(int argc, char **argv, void *ctx)
{
	const struct rsw_tables *t = rsw_fib_main.tables;
	json_t *pgs, *err = NULL;
	struct rsw_qos_stats *s;
	int only = port_filter(argc, argv, &err), p, tc;
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED);
	uint64_t xoff = t ? rsw_pfc_xoff(&t->qos, used) : 0, wm;

	if (only == -2)
		return err;
	s = qos_now();
	if (s == NULL)
		return rsw_cmd_error("out of memory");
	pgs = json_array();
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		if (only >= 0 && only != p)
			continue;
		for (tc = 0; tc < RSW_N_TC; tc++) {
			bool lossless = rsw_ctl.cfg->qos.lossless & (1u << tc);

			json_array_append_new(
				pgs,
				json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:b}", "port",
					  rsw_ctl.cfg->ports[p].name, "pg", tc, "bytes",
					  (json_int_t)__atomic_load_n(&rsw_qos.port[p].pg_bytes[tc],
								      __ATOMIC_RELAXED),
					  "watermark", (json_int_t)s->pg_watermark[p][tc],
					  "xoff_threshold", (json_int_t)(lossless ? xoff : 0),
					  "lossless_drops",
					  (json_int_t)since(
						  s->pg_lossless_drops[p][tc],
						  rsw_ctl.qos_base->pg_lossless_drops[p][tc]),
					  "lossless", lossless));
		}
	}
	wm = s->buf_watermark;
	free(s);
	/* Mempool use (mbufs out of the pool: rx descriptors, queues, in flight; per-lcore
	 * caches count as free), so tests can check nothing leaks. */
	return json_pack("{s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:o}", "buffer", "total",
			 (json_int_t)(t ? t->qos.total : 0), "used", (json_int_t)used,
			 "headroom_reserved", (json_int_t)(t ? t->qos.headroom_reserved : 0),
			 "watermark", (json_int_t)wm, "mbufs_in_use",
			 (json_int_t)(rsw_ctl.pool ? rte_mempool_in_use_count(rsw_ctl.pool) : 0),
			 "mbufs_total", (json_int_t)(rsw_ctl.pool ? rsw_ctl.pool->size : 0), "pgs",
			 pgs);
}

static json_t *
cmd_port_admin(int argc, char **argv, void *ctx)
{
	int p = port_arg(argv[0]);

	if (p < 0)
		return rsw_cmd_error("unknown port '%s'", argv[0]);
	if (strcmp(argv[1], "down") == 0)
		rsw_port_set_admin((uint16_t)p, true);
	else if (strcmp(argv[1], "up") == 0)
		rsw_port_set_admin((uint16_t)p, false);
	else
		return rsw_cmd_error("usage: port NAME down|up");
	/* Next-hop groups drop the port now, not at the next poll. */
	rsw_ctl_lb_poll();
	return rsw_cmd_ok();
}

int
rsw_ctl_commands_register(void)
{
	int ret = 0;

	rsw_ctl.lb_base = calloc(RSW_MAX_GROUPS, sizeof(*rsw_ctl.lb_base));
	rsw_ctl.qos_base = calloc(1, sizeof(*rsw_ctl.qos_base));
	if (rsw_ctl.lb_base == NULL || rsw_ctl.qos_base == NULL)
		return -ENOMEM;
	ret |= rsw_cmd_register("show ports", 0, 1, "[PORT]", "port state and counters",
				cmd_show_ports, NULL);
	ret |= rsw_cmd_register("show drops", 0, 0, "", "every drop reason, switch-wide",
				cmd_show_drops, NULL);
	ret |= rsw_cmd_register("show routes", 0, 0, "", "connected, local and static routes",
				cmd_show_routes, NULL);
	ret |= rsw_cmd_register("show neighbors", 0, 0, "", "ARP/ND entries", cmd_show_neighbors,
				NULL);
	ret |= rsw_cmd_register("show lb", 0, 0, "", "next-hop groups and member counters",
				cmd_show_lb, NULL);
	ret |= rsw_cmd_register("show queues", 0, 1, "[PORT]", "per (port, TC) queue counters",
				cmd_show_queues, NULL);
	ret |= rsw_cmd_register("show pfc", 0, 1, "[PORT]", "PFC counters per priority",
				cmd_show_pfc, NULL);
	ret |= rsw_cmd_register("show buffer", 0, 1, "[PORT]", "shared buffer occupancy",
				cmd_show_buffer, NULL);
	ret |= rsw_cmd_register("show config", 0, 0, "", "the effective configuration",
				cmd_show_config, NULL);
	ret |= rsw_cmd_register("clear counters", 0, 0, "", "zero every counter but gauges",
				cmd_clear_counters, NULL);
	ret |= rsw_cmd_register("show topology", 0, 0, "", "this switch's place in the fabric",
				rsw_topology_cmd_show, &rsw_ctl.cfg);
	ret |= rsw_cmd_register("port", 2, 2, "NAME down|up",
				"administrative state: a down port takes no traffic",
				cmd_port_admin, NULL);
	return ret ? -EINVAL : 0;
}
