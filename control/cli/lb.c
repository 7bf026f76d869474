/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show lb` (docs/cli.md): the next-hop groups (table `groups`) and their members
 * (table `groups.members`, nested in each group).
 */

#include <errno.h>
#include <string.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_lb.h"
#include "rsw_liveness.h"
#include "rsw_module.h"
#include "rsw_ports.h"
#include "rsw_tables_ctl.h"

static const struct rsw_field_def group_fields[] = {
	RSW_LABEL("id", "group", "the group's index"),
	RSW_LABEL("prefix", "prefix", "the first route using the group"),
	RSW_FIELD("routes", GAUGE, "routes", "routes sharing the group"),
	RSW_LABEL("mode", NULL, "the route's lb, else load_balance.mode"),
	RSW_LABEL("tc_modes", NULL, "the mode of each traffic class through the group"),
	RSW_LABEL("hash", NULL,
		  "the flow hash ECMP takes: crc32, toeplitz, nic (the NIC's RSS hash of each "
		  "frame) or nic+crc32 (the NIC's where a port gives it, crc32 on the others)"),
};

const struct rsw_table_def rsw_table_lb_groups = {
	.command = "show lb",
	.key = "groups",
	.nested = "members",
	.fields = group_fields,
	.n_fields = RSW_TABLE_N_FIELDS(group_fields),
};

static const struct rsw_field_def member_fields[] = {
	RSW_LABEL("nexthop", "nexthop", "the member's next hop"),
	RSW_LABEL("port", "port", "the member's egress port"),
	RSW_FIELD("up", STATE, "", "the member takes traffic (port up, neighbour resolvable)"),
	RSW_FIELD("packets", COUNTER, "packets", "packets the group sent to the member"),
	RSW_FIELD("bytes", COUNTER, "bytes", "bytes the group sent to the member"),
};

const struct rsw_table_def rsw_table_lb_members = {
	.command = "show lb",
	.key = "groups.members",
	.metric_prefix = "lb_member_",
	.parent = &rsw_table_lb_groups,
	.fields = member_fields,
	.n_fields = RSW_TABLE_N_FIELDS(member_fields),
};

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

/* The hash flows take (load_balance.hash_algorithm; nic: as the ports' frames allow). */
static const char *
hash_used(const struct rsw_tables *t)
{
	uint16_t p, with = 0;

	if (t->hash_algorithm == RSW_HASH_TOEPLITZ)
		return "toeplitz";
	if (t->hash_algorithm != RSW_HASH_NIC)
		return "crc32";
	for (p = 0; p < rsw_dp.n_ports; p++)
		with += rsw_port_rss_hash(p);
	return with == 0 ? "crc32" : with == rsw_dp.n_ports ? "nic" : "nic+crc32";
}

static json_t *
cmd_show_lb(int argc, char **argv, void *ctx)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	const struct rsw_tables *t = rsw_fib_main.tables;
	json_t *arr = json_array();
	char buf[64];
	uint32_t g, j;

	(void)argc;
	(void)argv;
	(void)ctx;
	for (g = 0; t != NULL && g < t->n_groups; g++) {
		const struct rsw_group *gr = &t->groups[g];
		json_t *members = json_array();

		for (j = 0; j < gr->n_members; j++) {
			const struct rsw_nexthop *nh = &t->nh[gr->members[j]];
			struct rsw_lb_member_stats s;
			struct rsw_ip ip;

			/* The member's next hop: the address of its neighbour entry. */
			if (rsw_ctl_group_nexthop(t, g, j, &ip) != 0)
				memset(&ip, 0, sizeof(ip));
			rsw_stats_lb_sum(g, j, &s);
			json_array_append_new(
				members,
				rsw_row(&rsw_table_lb_members,
					json_pack("{s:s, s:s, s:b, s:I, s:I}", "nexthop",
						  rsw_ip_str(&ip, buf, sizeof(buf)), "port",
						  cfg->ports[nh->port].name, "up",
						  rsw_ctl_lb_member_up(g, j), "packets",
						  (json_int_t)rsw_cli_since(
							  s.packets, rsw_ctl.lb_base[g][j].packets),
						  "bytes",
						  (json_int_t)rsw_cli_since(
							  s.bytes, rsw_ctl.lb_base[g][j].bytes))));
		}
		json_array_append_new(
			arr,
			rsw_row(&rsw_table_lb_groups,
				json_pack("{s:i, s:s, s:I, s:s, s:o, s:s, s:o}", "id", g, "prefix",
					  rsw_prefix_str(&gr->prefix, buf, sizeof(buf)), "routes",
					  (json_int_t)gr->n_routes, "mode",
					  rsw_cli_route_mode(gr->lb_mode), "tc_modes",
					  tc_modes(t, gr), "hash", hash_used(t), "members",
					  members)));
	}
	return json_pack("{s:o}", "groups", arr);
}

static int
lb_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show lb", 0, 0, "", "next-hop groups and member counters",
				cmd_show_lb, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module lb_cli_module = {
	.name = "cli.lb",
	.order = RSW_CLI_MODULE_ORDER,
	.init = lb_init,
};

RSW_MODULE_REGISTER(lb_cli_module);
