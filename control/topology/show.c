/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The topology as JSON: the topology: section for `show config`, and this switch's derived
 * ports and routes for `show topology`. A failed allocation anywhere sets *bad; the caller
 * drops the whole document.
 */

#include <stdlib.h>

#include "topology_priv.h"

static json_t *
json_this(const struct rsw_cfg_topology *t, bool *bad)
{
	json_t *o;

	if (!t->has_this)
		return json_null();
	o = json_object();
	if (!t->this_spine) {
		rsw_cfg_json_set(o, "su", json_integer(t->this_su), bad);
		rsw_cfg_json_set(o, "rail", json_integer(t->this_rail), bad);
		return o;
	}
	if (t->design == RSW_TOPO_RAIL_ONLY)
		rsw_cfg_json_set(o, "rail", json_integer(t->this_rail), bad);
	rsw_cfg_json_set(o, "spine", json_integer(t->this_spine_idx), bad);
	return o;
}

json_t *
rsw_topology_to_json(const struct rsw_cfg_topology *t)
{
	json_t *o = json_object();
	bool bad = false;

	rsw_cfg_json_set(o, "design", json_string(rsw_topology_design_name(t->design)), &bad);
	rsw_cfg_json_set(o, "sus", json_integer(t->sus), &bad);
	rsw_cfg_json_set(o, "servers_per_su", json_integer(t->servers_per_su), &bad);
	rsw_cfg_json_set(o, "rails", json_integer(t->rails), &bad);
	rsw_cfg_json_set(o, "spines", json_integer(t->spines), &bad);
	rsw_cfg_json_set(o, "radix", json_integer(t->radix), &bad);
	rsw_cfg_json_set(o, "this", json_this(t, &bad), &bad);
	rsw_cfg_json_set(o, "gpu_prefix", rsw_prefix_json(&t->gpu_prefix), &bad);
	rsw_cfg_json_set(o, "fabric_prefix", rsw_prefix_json(&t->fabric_prefix), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static const char *
port_role_name(enum rsw_port_role r)
{
	return r == RSW_PORT_ROLE_DOWNLINK ? "downlink"
	       : r == RSW_PORT_ROLE_UPLINK ? "uplink"
					   : NULL;
}

json_t *
rsw_topology_show_json(const struct rsw_config *cfg)
{
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch *sw;
	json_t *o, *ports, *routes;
	bool bad = false;
	uint32_t i, j;

	if (!cfg->topology.present)
		return json_pack("{s:s}", "error", "no topology in the configuration");
	sw = malloc(sizeof(*sw));
	if (sw == NULL)
		return NULL;
	if (rsw_topology_derive(cfg, sw, &e) < 0) {
		free(sw);
		return json_pack("{s:s}", "error", e.msg);
	}
	o = json_object();
	ports = json_array();
	routes = json_array();
	rsw_cfg_json_set(o, "design", json_string(rsw_topology_design_name(cfg->topology.design)),
			 &bad);
	rsw_cfg_json_set(o, "role", json_string(sw->spine ? "spine" : "leaf"), &bad);
	rsw_cfg_json_set(o, "name", json_string(sw->name), &bad);
	rsw_cfg_json_set(o, "this", json_this(&cfg->topology, &bad), &bad);
	rsw_cfg_json_set(o, "subnet", sw->spine ? json_null() : rsw_prefix_json(&sw->subnet), &bad);
	for (i = 0; i < sw->n_ports; i++) {
		const struct rsw_topo_port *tp = &sw->ports[i];
		const char *role = port_role_name(tp->role);
		json_t *p = json_object(), *peer = json_null();

		if (tp->has_peer) {
			peer = json_object();
			rsw_cfg_json_set(peer, "name", json_string(tp->peer), &bad);
			rsw_cfg_json_set(peer, "port", json_string(tp->peer_port), &bad);
			rsw_cfg_json_set(peer, "ip", rsw_ip_json(&tp->peer_ip), &bad);
		}
		rsw_cfg_json_set(p, "name", json_string(cfg->ports[i].name), &bad);
		rsw_cfg_json_set(p, "role", role != NULL ? json_string(role) : json_null(), &bad);
		rsw_cfg_json_set(p, "ipv4", tp->has_ipv4 ? rsw_prefix_json(&tp->ipv4) : json_null(),
				 &bad);
		rsw_cfg_json_set(p, "derived", json_boolean(tp->has_ipv4 && !tp->explicit_ipv4),
				 &bad);
		rsw_cfg_json_set(p, "peer", peer, &bad);
		rsw_cfg_json_append(ports, p, &bad);
	}
	/* The routes in effect: derived ones a static route did not replace. */
	for (i = 0; i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];
		json_t *rt, *nh;

		if (!r->derived)
			continue;
		rt = json_object();
		nh = json_array();
		for (j = 0; j < r->n_nexthops; j++)
			rsw_cfg_json_append(nh, rsw_ip_json(&r->nexthops[j]), &bad);
		rsw_cfg_json_set(rt, "prefix", rsw_prefix_json(&r->prefix), &bad);
		rsw_cfg_json_set(rt, "nexthops", nh, &bad);
		rsw_cfg_json_set(rt, "port",
				 r->has_port && r->port < cfg->n_ports
					 ? json_string(cfg->ports[r->port].name)
					 : json_null(),
				 &bad);
		rsw_cfg_json_append(routes, rt, &bad);
	}
	rsw_cfg_json_set(o, "ports", ports, &bad);
	rsw_cfg_json_set(o, "routes", routes, &bad);
	free(sw);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *
rsw_topology_cmd_show(int argc, char **argv, void *ctx)
{
	const struct rsw_config *const *cfg = ctx;
	json_t *o;

	(void)argc;
	(void)argv;
	if (cfg == NULL || *cfg == NULL)
		return json_pack("{s:s}", "error", "no configuration loaded");
	o = rsw_topology_show_json(*cfg);
	return o != NULL ? o : json_pack("{s:s}", "error", "out of memory");
}
