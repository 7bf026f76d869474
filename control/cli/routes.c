/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show routes` (docs/cli.md): connected, local, static and topology-derived routes, and
 * the routes of the route source (FPM), each with its source, administrative distance and
 * whether it is the active entry of its prefix (the one in the forwarding tables).
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"
#include "rsw_tables_ctl.h"

static const struct rsw_field_def route_fields[] = {
	RSW_LABEL("prefix", "prefix", "the destination prefix"),
	RSW_LABEL("nexthops", NULL, "the next hops (empty for connected and local routes)"),
	RSW_LABEL("mode", NULL, "load balancing mode, or connected / local"),
	RSW_LABEL("type", NULL, "connected, local, static, topology or fpm"),
	RSW_FIELD_F("port", LABEL, "", "the port of a connected or local route",
		    RSW_FIELD_OPTIONAL),
	RSW_LABEL("source", NULL,
		  "connected, local, static, topology, or the protocol zebra names (bgp, ...)"),
	RSW_FIELD_F("distance", GAUGE, "",
		    "administrative distance: the lowest of a prefix's entries wins",
		    RSW_FIELD_NO_METRIC),
	RSW_FIELD_F("active", STATE, "", "the entry is the one in the forwarding tables",
		    RSW_FIELD_NO_METRIC),
	RSW_FIELD_F("resolved", GAUGE, "",
		    "next hops a port reaches (only those are used; an FPM route may have fewer)",
		    RSW_FIELD_NO_METRIC),
};

const struct rsw_table_def rsw_table_routes = {
	.command = "show routes",
	.key = "routes",
	.fields = route_fields,
	.n_fields = RSW_TABLE_N_FIELDS(route_fields),
};

static void
add_port_route(json_t *arr, const struct rsw_cfg_port *cp, const struct rsw_prefix *addr)
{
	struct rsw_prefix net = *addr;
	uint8_t full = addr->ip.family == RSW_AF_INET ? 32 : 128;
	char buf[64];
	int i;

	for (i = net.len; i < full; i++)
		net.ip.addr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	json_array_append_new(
		arr, rsw_row(&rsw_table_routes,
			     json_pack("{s:s, s:[], s:s, s:s, s:s, s:s, s:i, s:b, s:i}", "prefix",
				       rsw_prefix_str(&net, buf, sizeof(buf)), "nexthops", "mode",
				       "connected", "type", "connected", "port", cp->name, "source",
				       "connected", "distance", RSW_DISTANCE_CONNECTED, "active", 1,
				       "resolved", 0)));
	net = *addr;
	net.len = full;
	json_array_append_new(
		arr,
		rsw_row(&rsw_table_routes,
			json_pack("{s:s, s:[], s:s, s:s, s:s, s:s, s:i, s:b, s:i}", "prefix",
				  rsw_prefix_str(&net, buf, sizeof(buf)), "nexthops", "mode",
				  "local", "type", "local", "port", cp->name, "source", "local",
				  "distance", RSW_DISTANCE_CONNECTED, "active", 1, "resolved", 0)));
}

static json_t *
cmd_show_routes(int argc, char **argv, void *ctx)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	json_t *arr = json_array();
	char buf[64];
	uint32_t i, j, n;
	uint16_t p;

	(void)argc;
	(void)argv;
	(void)ctx;
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
		json_array_append_new(
			arr, rsw_row(&rsw_table_routes,
				     json_pack("{s:s, s:o, s:s, s:s, s:s, s:i, s:b, s:i}", "prefix",
					       rsw_prefix_str(&r->prefix, buf, sizeof(buf)),
					       "nexthops", nh, "mode", rsw_cli_route_mode(r->lb),
					       "type", r->derived ? "topology" : "static", "source",
					       r->derived ? "topology" : "static", "distance",
					       rsw_ctl_cfg_route_distance(r), "active",
					       rsw_ctl_cfg_route_active(cfg, i), "resolved",
					       (int)r->n_nexthops)));
	}
	n = rsw_ctl_tables_source_count();
	for (i = 0; i < n; i++) {
		const struct rsw_ctl_route *sr = rsw_ctl_tables_source_get(i);
		json_t *nh = json_array();

		for (j = 0; j < sr->r.n_nexthops; j++)
			json_array_append_new(
				nh, json_string(rsw_ip_str(&sr->r.nexthops[j], buf, sizeof(buf))));
		json_array_append_new(
			arr, rsw_row(&rsw_table_routes,
				     json_pack("{s:s, s:o, s:s, s:s, s:s, s:i, s:b, s:i}", "prefix",
					       rsw_prefix_str(&sr->r.prefix, buf, sizeof(buf)),
					       "nexthops", nh, "mode",
					       rsw_cli_route_mode(RSW_LB_UNSET), "type", "fpm",
					       "source", sr->source, "distance", sr->distance,
					       "active", sr->active, "resolved", sr->n_resolved)));
	}
	return json_pack("{s:o}", "routes", arr);
}

static int
routes_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show routes", 0, 0, "",
				"connected, local, static, topology and FPM routes",
				cmd_show_routes, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module routes_cli_module = {
	.name = "cli.routes",
	.order = RSW_CLI_MODULE_ORDER,
	.init = routes_init,
};

RSW_MODULE_REGISTER(routes_cli_module);
