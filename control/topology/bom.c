/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The bill of materials and capacity figures of a fabric's plan (`railctl plan`, "bom"):
 * switches and cables by kind, optics, switch ports used and spare, the headroom to grow and
 * what is left when one spine fails. Arithmetic on the topology: section alone.
 */

#include "topology_priv.h"

static json_t *
bps_json(uint64_t bps)
{
	return bps != 0 ? json_integer((json_int_t)bps) : json_null();
}

/* Cables of one kind: count and speed (null: no port of the file gave one). */
static json_t *
bom_cable(const char *kind, uint64_t count, uint64_t bps, bool *bad)
{
	json_t *o = json_object();

	rsw_cfg_json_set(o, "kind", json_string(kind), bad);
	rsw_cfg_json_set(o, "count", json_integer((json_int_t)count), bad);
	rsw_cfg_json_set(o, "speed_bps", bps_json(bps), bad);
	return o;
}

static json_t *
bom_pair(const char *a, uint64_t x, const char *b, uint64_t y, bool *bad)
{
	json_t *o = json_object();

	rsw_cfg_json_set(o, a, json_integer((json_int_t)x), bad);
	rsw_cfg_json_set(o, b, json_integer((json_int_t)y), bad);
	return o;
}

/*
 * The most links one leaf has to one spine: 1 (rail-optimized); rail-only, its uplinks
 * round-robin over the rail's n spines: ceil(spines / n).
 */
static uint32_t
worst_links(const struct rsw_cfg_topology *t, uint32_t n)
{
	if (t->design != RSW_TOPO_RAIL_ONLY)
		return 1;
	return (t->spines + n - 1) / n;
}

void
topo_bom_counts(const struct rsw_cfg_topology *t, struct topo_bom *b)
{
	uint32_t n = rsw_topology_spines_per_rail(t), p, most = 0;
	uint64_t spine_used = 0;

	b->leaves = rsw_topology_n_leaves(t);
	b->spines = rsw_topology_n_spines(t);
	b->server_leaf = (uint64_t)t->sus * t->servers_per_su * t->rails;
	b->leaf_spine = rsw_topology_rail_switch(t) ? 0 : (uint64_t)b->leaves * t->spines;
	for (p = 0; p < n; p++) {
		uint32_t k = rsw_topology_spine_ports_of(t, p);

		spine_used += k;
		most = k > most ? k : most;
	}
	if (t->design == RSW_TOPO_RAIL_ONLY)
		spine_used *= t->rails;
	b->leaf_used = (uint64_t)b->leaves * rsw_topology_leaf_ports(t);
	b->spine_used = spine_used;
	b->used = b->leaf_used + b->spine_used;
	b->total = ((uint64_t)b->leaves + b->spines) * t->radix;
	b->spare = b->total - b->used;
	/* One spine fails: the fabric loses its links (the busiest spine: the worst case). */
	b->after_spine_loss =
		b->leaf_spine == 0 ? -1.0 : (double)(b->leaf_spine - most) / (double)b->leaf_spine;
	/* What one leaf keeps of its uplinks in the worst case: every link to that spine. */
	if (b->leaf_spine == 0)
		b->leaf_after_spine_loss = -1.0;
	else
		b->leaf_after_spine_loss =
			(double)(t->spines - worst_links(t, n)) / (double)t->spines;
	/*
	 * Headroom: spare ports of the busiest switch of each tier, and what they can still take
	 * (rail-only: the spare ports of a rail's spines, which stay within one port of each
	 * other, over the uplinks of a new leaf).
	 */
	b->leaf_spare = t->radix - rsw_topology_leaf_ports(t);
	b->spine_spare = n == 0 ? 0 : t->radix - most;
	if (rsw_topology_rail_switch(t))
		b->more_sus = b->leaf_spare / t->servers_per_su;
	else if (t->design == RSW_TOPO_RAIL_ONLY)
		b->more_sus = (uint32_t)(((uint64_t)n * t->radix - (uint64_t)t->sus * t->spines) /
					 t->spines);
	else
		b->more_sus = b->spine_spare / t->rails;
	if (b->more_sus > RSW_TOPO_MAX_SUS - t->sus)
		b->more_sus = RSW_TOPO_MAX_SUS - t->sus;
	b->more_servers = rsw_topology_rail_switch(t) ? b->leaf_spare / t->sus : b->leaf_spare;
	if (b->more_servers > RSW_TOPO_MAX_SERVERS - t->servers_per_su)
		b->more_servers = RSW_TOPO_MAX_SERVERS - t->servers_per_su;
}

static json_t *
frac_json(double f)
{
	return f < 0 ? json_null() : json_real(f);
}

json_t *
topo_plan_bom(const struct rsw_cfg_topology *t, uint64_t down_bps, uint64_t up_bps)
{
	json_t *o = json_object(), *cables = json_array(), *head = json_object(), *ports;
	struct topo_bom b;
	bool bad = false;

	topo_bom_counts(t, &b);
	rsw_cfg_json_set(o, "switches", bom_pair("leaf", b.leaves, "spine", b.spines, &bad), &bad);
	rsw_cfg_json_set(o, "radix", json_integer(t->radix), &bad);
	rsw_cfg_json_set(o, "spines_per_rail",
			 t->design == RSW_TOPO_RAIL_ONLY
				 ? json_integer(rsw_topology_spines_per_rail(t))
				 : json_null(),
			 &bad);
	rsw_cfg_json_set(o, "cables",
			 bom_pair("server_leaf", b.server_leaf, "leaf_spine", b.leaf_spine, &bad),
			 &bad);
	rsw_cfg_json_append(cables, bom_cable("server_leaf", b.server_leaf, down_bps, &bad), &bad);
	if (b.leaf_spine > 0)
		rsw_cfg_json_append(
			cables, bom_cable("leaf_spine", b.leaf_spine, up_bps ? up_bps : 0, &bad),
			&bad);
	rsw_cfg_json_set(o, "cables_by_speed", cables, &bad);
	/* One transceiver per cable end, where the cables are optical. */
	rsw_cfg_json_set(
		o, "optics",
		bom_pair("server_leaf", 2 * b.server_leaf, "leaf_spine", 2 * b.leaf_spine, &bad),
		&bad);
	ports = bom_pair("used", b.used, "spare", b.spare, &bad);
	rsw_cfg_json_set(ports, "leaf",
			 bom_pair("used", b.leaf_used, "spare",
				  (uint64_t)b.leaves * t->radix - b.leaf_used, &bad),
			 &bad);
	rsw_cfg_json_set(ports, "spine",
			 bom_pair("used", b.spine_used, "spare",
				  (uint64_t)b.spines * t->radix - b.spine_used, &bad),
			 &bad);
	rsw_cfg_json_set(o, "ports", ports, &bad);
	rsw_cfg_json_set(o, "capacity_after_spine_loss", frac_json(b.after_spine_loss), &bad);
	rsw_cfg_json_set(o, "leaf_uplinks_after_spine_loss", frac_json(b.leaf_after_spine_loss),
			 &bad);
	rsw_cfg_json_set(head, "leaf_ports_spare", json_integer(b.leaf_spare), &bad);
	rsw_cfg_json_set(head, "spine_ports_spare",
			 b.spines > 0 ? json_integer(b.spine_spare) : json_null(), &bad);
	rsw_cfg_json_set(head, "more_sus", json_integer(b.more_sus), &bad);
	rsw_cfg_json_set(head, "more_servers_per_su", json_integer(b.more_servers), &bad);
	rsw_cfg_json_set(head, "full", json_boolean(b.spare == 0 || b.more_sus == 0), &bad);
	rsw_cfg_json_set(o, "headroom", head, &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
