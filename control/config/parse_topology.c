/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The topology: section, parsed into struct rsw_cfg_topology; topology/ checks the fabric and
 * derives this switch's addresses and routes from it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "config_priv.h"
#include "rsw_topology.h"

static const char *const topo_keys[RSW_N_TK] = {
	[RSW_TK_DESIGN] = "design",
	[RSW_TK_SUS] = "sus",
	[RSW_TK_SERVERS] = "servers_per_su",
	[RSW_TK_RAILS] = "rails",
	[RSW_TK_SPINES] = "spines",
	[RSW_TK_RADIX] = "radix",
	[RSW_TK_THIS] = "this",
	[RSW_TK_GPU_PREFIX] = "gpu_prefix",
	[RSW_TK_FABRIC_PREFIX] = "fabric_prefix",
};

static const char *const topo_designs[] = {
	[RSW_TOPO_RAIL_OPTIMIZED] = "rail-optimized",
	[RSW_TOPO_RAIL_ONLY] = "rail-only",
};

enum {
	TH_SU,
	TH_RAIL,
	TH_SPINE,
	TH_N,
};

static const char *const this_keys[TH_N] = {
	[TH_SU] = "su", [TH_RAIL] = "rail", [TH_SPINE] = "spine"};

/* this: { su, rail } (a leaf), { spine } (a spine), rail-only { rail, spine } (a spine). */
static int
parse_this(struct ctx *c, yaml_node_t *n, struct rsw_cfg_topology *t)
{
	bool rail_only = t->design == RSW_TOPO_RAIL_ONLY;
	struct kv kv[TH_N];
	int64_t v;

	if (cfg_is_null(n) || n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(n),
				"'this' must be a mapping like { su: 0, rail: 1 }");
	if (cfg_get_map(c, n, "topology.this", this_keys, TH_N, kv) < 0)
		return -EINVAL;
	if (kv[TH_SPINE].v == NULL && kv[TH_SU].v != NULL && kv[TH_RAIL].v != NULL) {
		t->this_spine = false;
	} else if (rail_only && t->spines == 0 && kv[TH_SPINE].v == NULL && kv[TH_SU].v == NULL &&
		   kv[TH_RAIL].v != NULL) {
		t->this_spine = false; /* a rail that is one switch: { rail } */
	} else if (kv[TH_SPINE].v != NULL && kv[TH_SU].v == NULL &&
		   (kv[TH_RAIL].v != NULL) == rail_only) {
		t->this_spine = true;
	} else {
		return cfg_fail(c, cfg_line_of(n),
				"'this' must be { su, rail } for a leaf or %s for a spine",
				rail_only ? "{ rail, spine } (rail-only)" : "{ spine }");
	}
	if (kv[TH_SU].v != NULL) {
		if (cfg_get_int(c, kv[TH_SU].v, "this.su", 0, RSW_TOPO_MAX_SUS - 1, &v) < 0)
			return -EINVAL;
		t->this_su = (uint32_t)v;
	}
	if (kv[TH_RAIL].v != NULL) {
		if (cfg_get_int(c, kv[TH_RAIL].v, "this.rail", 0, RSW_TOPO_MAX_RAILS - 1, &v) < 0)
			return -EINVAL;
		t->this_rail = (uint32_t)v;
	}
	if (kv[TH_SPINE].v != NULL) {
		if (cfg_get_int(c, kv[TH_SPINE].v, "this.spine", 0, RSW_TOPO_MAX_SPINES - 1, &v) <
		    0)
			return -EINVAL;
		t->this_spine_idx = (uint32_t)v;
	}
	t->has_this = true;
	return 0;
}

/* An IPv4 network prefix: host bits must be zero. */
static int
get_topo_prefix(struct ctx *c, yaml_node_t *n, const char *key, struct rsw_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 4];
	struct rsw_prefix net;
	const char *s;

	if (cfg_get_scalar(c, n, key, "an IPv4 prefix", &s) < 0)
		return -EINVAL;
	if (!cfg_parse_prefix(s, p) || p->ip.family != RSW_AF_INET)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must be an IPv4 prefix like 10.0.0.0/8 (got '%.48s')", key,
				s);
	net = *p;
	cfg_prefix_mask(&net);
	if (memcmp(&net, p, sizeof(net)) != 0)
		return cfg_fail(c, cfg_line_of(n), "'%s' %s has host bits set; did you mean %s?",
				key, s, rsw_prefix_str(&net, buf, sizeof(buf)));
	return 0;
}

int
cfg_parse_topology(struct ctx *c, const struct kv *sec)
{
	static const struct {
		int key;
		int64_t max;
	} counts[] = {
		{RSW_TK_SUS, RSW_TOPO_MAX_SUS},     {RSW_TK_SERVERS, RSW_TOPO_MAX_SERVERS},
		{RSW_TK_RAILS, RSW_TOPO_MAX_RAILS}, {RSW_TK_SPINES, RSW_TOPO_MAX_SPINES},
		{RSW_TK_RADIX, RSW_TOPO_MAX_RADIX},
	};
	struct rsw_cfg_topology *t = &c->cfg->topology;
	uint32_t *val[RSW_N_TK] = {
		[RSW_TK_SUS] = &t->sus,     [RSW_TK_SERVERS] = &t->servers_per_su,
		[RSW_TK_RAILS] = &t->rails, [RSW_TK_SPINES] = &t->spines,
		[RSW_TK_RADIX] = &t->radix,
	};
	struct kv kv[RSW_N_TK];
	bool missing = false, design_ok = true;
	int design, rc = 0;
	size_t i;

	t->line = sec->line;
	if (cfg_get_map(c, sec->v, "topology", topo_keys, RSW_N_TK, kv) < 0)
		return -EINVAL;
	t->present = true;
	for (i = 0; i < RSW_N_TK; i++)
		t->lines[i] = kv[i].line;
	/* The keys are independent (but 'this' depends on the design); the first missing one. */
	if (kv[RSW_TK_DESIGN].v != NULL) {
		design_ok = cfg_get_enum(c, kv[RSW_TK_DESIGN].v, "design", topo_designs, 2,
					 &design) == 0;
		if (design_ok)
			t->design = (enum rsw_topo_design)design;
		else
			rc = -EINVAL;
	}
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		int k = counts[i].key;

		if (kv[k].v == NULL) {
			if (k == RSW_TK_RADIX || missing)
				continue;
			rc = cfg_fail(c, sec->line, "missing required key '%s' in 'topology'",
				      topo_keys[k]);
			missing = true;
			continue;
		}
		/* spines: 0 is a rail-only fabric of one switch per rail. */
		if (cfg_get_u32(c, kv[k].v, topo_keys[k],
				k == RSW_TK_SPINES && t->design == RSW_TOPO_RAIL_ONLY ? 0 : 1,
				counts[i].max, val[k]) < 0)
			rc = -EINVAL;
	}
	if (kv[RSW_TK_GPU_PREFIX].v != NULL &&
	    get_topo_prefix(c, kv[RSW_TK_GPU_PREFIX].v, "gpu_prefix", &t->gpu_prefix) < 0)
		rc = -EINVAL;
	if (kv[RSW_TK_FABRIC_PREFIX].v != NULL &&
	    get_topo_prefix(c, kv[RSW_TK_FABRIC_PREFIX].v, "fabric_prefix", &t->fabric_prefix) < 0)
		rc = -EINVAL;
	if (design_ok && kv[RSW_TK_THIS].v != NULL && parse_this(c, kv[RSW_TK_THIS].v, t) < 0)
		rc = -EINVAL;
	return rc;
}
