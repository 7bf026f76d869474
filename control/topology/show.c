/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The topology as JSON: the topology: section for `show config`, and this switch's derived
 * ports and routes for `show topology`. A failed allocation anywhere sets *bad; the caller
 * drops the whole document.
 */

#include <stdlib.h>

#include "topology_priv.h"

void
topo_jset(json_t *o, const char *k, json_t *v, bool *bad)
{
	if (o == NULL || v == NULL || json_object_set_new(o, k, v) < 0)
		*bad = true;
}

void
topo_jappend(json_t *a, json_t *v, bool *bad)
{
	if (a == NULL || v == NULL || json_array_append_new(a, v) < 0)
		*bad = true;
}

json_t *
topo_jip(const struct rsw_ip *ip)
{
	char buf[PREFIX_STR_LEN];

	return json_string(rsw_ip_str(ip, buf, sizeof(buf)));
}

json_t *
topo_jprefix(const struct rsw_prefix *p)
{
	char buf[PREFIX_STR_LEN];

	return json_string(rsw_prefix_str(p, buf, sizeof(buf)));
}

static json_t *
json_this(const struct rsw_cfg_topology *t, bool *bad)
{
	json_t *o;

	if (!t->has_this)
		return json_null();
	o = json_object();
	if (!t->this_spine) {
		topo_jset(o, "su", json_integer(t->this_su), bad);
		topo_jset(o, "rail", json_integer(t->this_rail), bad);
		return o;
	}
	if (t->design == RSW_TOPO_RAIL_ONLY)
		topo_jset(o, "rail", json_integer(t->this_rail), bad);
	topo_jset(o, "spine", json_integer(t->this_spine_idx), bad);
	return o;
}

json_t *
rsw_topology_to_json(const struct rsw_cfg_topology *t)
{
	json_t *o = json_object();
	bool bad = false;

	topo_jset(o, "design", json_string(rsw_topology_design_name(t->design)), &bad);
	topo_jset(o, "sus", json_integer(t->sus), &bad);
	topo_jset(o, "servers_per_su", json_integer(t->servers_per_su), &bad);
	topo_jset(o, "rails", json_integer(t->rails), &bad);
	topo_jset(o, "spines", json_integer(t->spines), &bad);
	topo_jset(o, "radix", json_integer(t->radix), &bad);
	topo_jset(o, "this", json_this(t, &bad), &bad);
	topo_jset(o, "gpu_prefix", topo_jprefix(&t->gpu_prefix), &bad);
	topo_jset(o, "fabric_prefix", topo_jprefix(&t->fabric_prefix), &bad);
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
	topo_jset(o, "design", json_string(rsw_topology_design_name(cfg->topology.design)), &bad);
	topo_jset(o, "role", json_string(sw->spine ? "spine" : "leaf"), &bad);
	topo_jset(o, "name", json_string(sw->name), &bad);
	topo_jset(o, "this", json_this(&cfg->topology, &bad), &bad);
	topo_jset(o, "subnet", sw->spine ? json_null() : topo_jprefix(&sw->subnet), &bad);
	for (i = 0; i < sw->n_ports; i++) {
		const struct rsw_topo_port *tp = &sw->ports[i];
		const char *role = port_role_name(tp->role);
		json_t *p = json_object(), *peer = json_null();

		if (tp->has_peer) {
			peer = json_object();
			topo_jset(peer, "name", json_string(tp->peer), &bad);
			topo_jset(peer, "port", json_string(tp->peer_port), &bad);
			topo_jset(peer, "ip", topo_jip(&tp->peer_ip), &bad);
		}
		topo_jset(p, "name", json_string(cfg->ports[i].name), &bad);
		topo_jset(p, "role", role != NULL ? json_string(role) : json_null(), &bad);
		topo_jset(p, "ipv4", tp->has_ipv4 ? topo_jprefix(&tp->ipv4) : json_null(), &bad);
		topo_jset(p, "derived", json_boolean(tp->has_ipv4 && !tp->explicit_ipv4), &bad);
		topo_jset(p, "peer", peer, &bad);
		topo_jappend(ports, p, &bad);
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
			topo_jappend(nh, topo_jip(&r->nexthops[j]), &bad);
		topo_jset(rt, "prefix", topo_jprefix(&r->prefix), &bad);
		topo_jset(rt, "nexthops", nh, &bad);
		topo_jset(rt, "port",
			  r->has_port && r->port < cfg->n_ports
				  ? json_string(cfg->ports[r->port].name)
				  : json_null(),
			  &bad);
		topo_jappend(routes, rt, &bad);
	}
	topo_jset(o, "ports", ports, &bad);
	topo_jset(o, "routes", routes, &bad);
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
