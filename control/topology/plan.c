/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The plan of a whole fabric for `railctl plan`: the tiers and their port use, every switch
 * and every cable with the addresses of both ends.
 */

#include <stdio.h>

#include "topology_priv.h"

/* Port speeds of the file's own switch: leaf downlinks (server side) and leaf-spine links. */
static void
plan_speeds(const struct rsw_config *cfg, uint64_t *down, uint64_t *up)
{
	const struct rsw_cfg_topology *t = &cfg->topology;
	uint16_t i;

	*down = 0;
	*up = 0;
	if (!t->has_this)
		return;
	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *cp = &cfg->ports[i];

		if (cp->speed_bps == 0)
			continue;
		if (t->this_spine) {
			if (cp->role == RSW_PORT_ROLE_DOWNLINK && *up == 0)
				*up = cp->speed_bps;
		} else if (cp->role == RSW_PORT_ROLE_DOWNLINK && *down == 0) {
			*down = cp->speed_bps;
		} else if (cp->role == RSW_PORT_ROLE_UPLINK && *up == 0) {
			*up = cp->speed_bps;
		}
	}
}

static json_t *
plan_tier(const char *tier, uint32_t count, uint32_t used, uint32_t radix, uint32_t down,
	  uint32_t up, double over, bool *bad)
{
	json_t *o = json_object();
	char ratio[48];

	rsw_cfg_json_set(o, "tier", json_string(tier), bad);
	rsw_cfg_json_set(o, "count", json_integer(count), bad);
	rsw_cfg_json_set(o, "ports_used", json_integer(used), bad);
	rsw_cfg_json_set(o, "radix", json_integer(radix), bad);
	rsw_cfg_json_set(o, "downlinks", json_integer(down), bad);
	rsw_cfg_json_set(o, "uplinks", json_integer(up), bad);
	if (up == 0) {
		rsw_cfg_json_set(o, "oversubscription", json_null(), bad);
		rsw_cfg_json_set(o, "ratio", json_string("top tier"), bad);
	} else {
		snprintf(ratio, sizeof(ratio), "%.3g:1", over);
		rsw_cfg_json_set(o, "oversubscription", json_real(over), bad);
		rsw_cfg_json_set(o, "ratio", json_string(ratio), bad);
	}
	return o;
}

static json_t *
plan_link(const char *a, const char *a_port, const struct rsw_prefix *a_ip, const char *b,
	  const char *b_port, const struct rsw_prefix *b_ip, const char *kind, uint64_t bps,
	  bool *bad)
{
	json_t *o = json_object();

	rsw_cfg_json_set(o, "a", json_string(a), bad);
	rsw_cfg_json_set(o, "a_port", json_string(a_port), bad);
	rsw_cfg_json_set(o, "a_ip", rsw_prefix_json(a_ip), bad);
	rsw_cfg_json_set(o, "b", json_string(b), bad);
	rsw_cfg_json_set(o, "b_port", json_string(b_port), bad);
	rsw_cfg_json_set(o, "b_ip", rsw_prefix_json(b_ip), bad);
	rsw_cfg_json_set(o, "kind", json_string(kind), bad);
	rsw_cfg_json_set(o, "speed_bps", bps != 0 ? json_integer((json_int_t)bps) : json_null(),
			 bad);
	return o;
}

/* A switch's entry: name, tier, ports used and spare of its radix. */
static json_t *
plan_switch(const struct rsw_cfg_topology *t, const char *name, const char *tier, uint32_t used,
	    bool *bad)
{
	json_t *o = json_object();

	rsw_cfg_json_set(o, "name", json_string(name), bad);
	rsw_cfg_json_set(o, "tier", json_string(tier), bad);
	rsw_cfg_json_set(o, "ports_used", json_integer(used), bad);
	rsw_cfg_json_set(o, "ports_spare", json_integer(t->radix - used), bad);
	return o;
}

/* One leaf: its switch entry and its cables (servers first, then spines). */
static void
plan_leaf(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, const uint64_t bps[2],
	  json_t *switches, json_t *links, bool *bad)
{
	char name[RSW_NAME_LEN], peer[RSW_NAME_LEN], port[RSW_NAME_LEN], pport[RSW_NAME_LEN];
	bool one = rsw_topology_rail_switch(t);
	uint32_t s, p, sp, spp, n_su = one ? t->sus : 1, u, d = 0;
	struct rsw_prefix gw, host, spine, leaf, net;
	json_t *o;

	rsw_topology_leaf_name(t, su, rail, name, sizeof(name));
	o = plan_switch(t, name, "leaf", rsw_topology_leaf_ports(t), bad);
	rsw_topology_gateway(t, su, rail, &gw);
	topo_leaf_subnet(t, su, rail, &net);
	if (!one)
		rsw_cfg_json_set(o, "su", json_integer(su), bad);
	rsw_cfg_json_set(o, "rail", json_integer(rail), bad);
	/* A rail switch serves one /24 per SU: the first is given, the cables have them all. */
	rsw_cfg_json_set(o, "subnet", rsw_prefix_json(&net), bad);
	rsw_cfg_json_set(o, "gateway", rsw_ip_json(&gw.ip), bad);
	rsw_cfg_json_append(switches, o, bad);

	for (u = su; u < su + n_su; u++) {
		rsw_topology_gateway(t, u, rail, &gw);
		for (s = 0; s < t->servers_per_su; s++, d++) {
			rsw_topology_host(t, u, rail, s, &host);
			snprintf(port, sizeof(port), "down%u", d);
			snprintf(pport, sizeof(pport), "nic%u", rail);
			rsw_cfg_json_append(
				links,
				plan_link(name, port, &gw,
					  rsw_topology_server_name(u, s, peer, sizeof(peer)), pport,
					  &host, "server", bps[0], bad),
				bad);
		}
	}
	for (p = 0; p < t->spines && !one; p++) {
		rsw_topology_link(t, su, rail, p, &spine, &leaf);
		rsw_topology_uplink_peer(t, su, rail, p, &sp, &spp);
		snprintf(port, sizeof(port), "up%u", p);
		snprintf(pport, sizeof(pport), "down%u", spp);
		rsw_cfg_json_append(
			links,
			plan_link(name, port, &leaf,
				  rsw_topology_spine_name(t, rail, sp, peer, sizeof(peer)), pport,
				  &spine, "fabric", bps[1], bad),
			bad);
	}
}

static void
plan_spine(const struct rsw_cfg_topology *t, uint32_t rail, uint32_t p, json_t *switches, bool *bad)
{
	char name[RSW_NAME_LEN];
	json_t *o;

	rsw_topology_spine_name(t, rail, p, name, sizeof(name));
	o = plan_switch(t, name, "spine", rsw_topology_spine_ports_of(t, p), bad);
	if (t->design == RSW_TOPO_RAIL_ONLY)
		rsw_cfg_json_set(o, "rail", json_integer(rail), bad);
	rsw_cfg_json_set(o, "spine", json_integer(p), bad);
	rsw_cfg_json_append(switches, o, bad);
}

static json_t *
plan_this(const struct rsw_cfg_topology *t)
{
	char name[RSW_NAME_LEN];

	if (!t->has_this)
		return json_null();
	if (t->this_spine)
		return json_string(rsw_topology_spine_name(t, t->this_rail, t->this_spine_idx, name,
							   sizeof(name)));
	return json_string(rsw_topology_leaf_name(t, t->this_su, t->this_rail, name, sizeof(name)));
}

json_t *
rsw_topology_plan_json(const struct rsw_config *cfg, struct rsw_topo_error *e)
{
	const struct rsw_cfg_topology *t = &cfg->topology;
	json_t *o, *tiers, *switches, *links, *speeds;
	uint64_t down_bps, up_bps, d, u, bps[2];
	uint32_t su, rail, p;
	bool bad = false;
	double over;

	if (rsw_topology_check(t, false, e) < 0)
		return NULL;
	plan_speeds(cfg, &down_bps, &up_bps);
	bps[0] = down_bps;
	bps[1] = up_bps;
	/* A side without a speed is taken as fast as the other; neither: equal speeds. */
	d = down_bps != 0 ? down_bps : up_bps != 0 ? up_bps : 1;
	u = up_bps != 0 ? up_bps : d;
	over = t->spines == 0
		       ? 0
		       : ((double)t->servers_per_su * (double)d) / ((double)t->spines * (double)u);

	o = json_object();
	tiers = json_array();
	switches = json_array();
	links = json_array();
	speeds = json_object();
	rsw_cfg_json_set(o, "design", json_string(rsw_topology_design_name(t->design)), &bad);
	rsw_cfg_json_set(o, "sus", json_integer(t->sus), &bad);
	rsw_cfg_json_set(o, "servers_per_su", json_integer(t->servers_per_su), &bad);
	rsw_cfg_json_set(o, "rails", json_integer(t->rails), &bad);
	rsw_cfg_json_set(o, "spines", json_integer(t->spines), &bad);
	rsw_cfg_json_set(o, "radix", json_integer(t->radix), &bad);
	rsw_cfg_json_set(o, "gpu_prefix", rsw_prefix_json(&t->gpu_prefix), &bad);
	rsw_cfg_json_set(o, "fabric_prefix", rsw_prefix_json(&t->fabric_prefix), &bad);
	rsw_cfg_json_set(o, "this", plan_this(t), &bad);
	rsw_cfg_json_set(o, "servers", json_integer((json_int_t)t->sus * t->servers_per_su), &bad);
	rsw_cfg_json_set(o, "server_nics",
			 json_integer((json_int_t)t->sus * t->servers_per_su * t->rails), &bad);
	rsw_cfg_json_set(speeds, "downlink_bps",
			 down_bps ? json_integer((json_int_t)down_bps) : json_null(), &bad);
	rsw_cfg_json_set(speeds, "uplink_bps",
			 up_bps ? json_integer((json_int_t)up_bps) : json_null(), &bad);
	rsw_cfg_json_set(speeds, "note",
			 json_string(down_bps == 0 && up_bps == 0
					     ? "equal port speeds assumed (no speed given)"
				     : down_bps == 0 || up_bps == 0
					     ? "one side's speed given; the other "
					       "assumed equal"
					     : "from the file's port speeds"),
			 &bad);
	rsw_cfg_json_set(o, "speeds", speeds, &bad);

	rsw_cfg_json_append(tiers,
			    plan_tier("leaf", rsw_topology_n_leaves(t), rsw_topology_leaf_ports(t),
				      t->radix, rsw_topology_leaf_ports(t) - t->spines, t->spines,
				      over, &bad),
			    &bad);
	if (rsw_topology_n_spines(t) > 0)
		rsw_cfg_json_append(tiers,
				    plan_tier("spine", rsw_topology_n_spines(t),
					      rsw_topology_spine_ports(t), t->radix,
					      rsw_topology_spine_ports(t), 0, 0, &bad),
				    &bad);
	rsw_cfg_json_set(o, "tiers", tiers, &bad);

	for (su = 0; su < (rsw_topology_rail_switch(t) ? 1 : t->sus); su++)
		for (rail = 0; rail < t->rails; rail++)
			plan_leaf(t, su, rail, bps, switches, links, &bad);
	for (rail = 0; rail < (t->design == RSW_TOPO_RAIL_ONLY ? t->rails : 1); rail++)
		for (p = 0; p < rsw_topology_spines_per_rail(t); p++)
			plan_spine(t, rail, p, switches, &bad);
	rsw_cfg_json_set(o, "bom", topo_plan_bom(t, down_bps, up_bps), &bad);
	rsw_cfg_json_set(o, "switches", switches, &bad);
	rsw_cfg_json_set(o, "links", links, &bad);
	if (bad) {
		json_decref(o);
		topo_terr(e, 0, "out of memory");
		return NULL;
	}
	return o;
}
