/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The bill of materials and capacity figures of `railctl plan` ("bom"), on fabrics whose
 * counts are worked out by hand in each test's comment: rail-optimized, rail-only (a rail's
 * uplinks on one spine, and round-robin over several), a full fabric and rails of one switch
 * (`spines: 0`). Also the derivation of a rail switch, the agreement of the loader's
 * derivation with the plan's cables when a rail has two spines, and the refusal of a
 * rail-only plan whose leaves cannot all reach every spine.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "cfg_test.h"
#include "rsw_config.h"
#include "rsw_topology.h"
#include "test_json_common.h"

static double
jreal(json_t *o, const char *path)
{
	json_t *v = jget(o, path);

	assert_true(json_is_real(v));
	return json_real_value(v);
}

/* The plan of a topology-only file, or NULL with err filled. */
static json_t *
plan_of(const char *text)
{
	char path[64];
	struct rsw_topo_error e = {0};
	struct rsw_config *cfg;
	json_t *o = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/rsw-bom-%d.yaml", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	memset(err, 0, sizeof(err));
	cfg = rsw_config_load_plan(path, err, sizeof(err));
	unlink(path);
	if (cfg != NULL) {
		o = rsw_topology_plan_json(cfg, &e);
		if (o == NULL)
			snprintf(err, sizeof(err), "%s", e.msg);
	}
	rsw_config_free(cfg);
	return o;
}

/*
 * Rail-optimized, 2 SUs x 4 servers, 4 rails, 2 spines, radix 64: 8 leaves of 4 + 2 = 6
 * ports, 2 spines of 8; 2 x 4 x 4 = 32 server cables, 8 x 2 = 16 leaf-spine. Ports: 48 + 16
 * = 64 used of 10 x 64 = 640. A spine down takes 8 of 16 links: 0.5 left, each leaf keeps
 * 1 of 2 uplinks. Headroom: 64 - 8 = 56 spine ports = 14 SUs of 4 leaves; 58 per leaf.
 */
static void
test_bom_rail_optimized(void **state)
{
	json_t *o = plan_of("topology: { sus: 2, servers_per_su: 4, rails: 4, spines: 2 }\n");

	(void)state;
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.switches.leaf"), 8);
	assert_int_equal(jint(o, "bom.switches.spine"), 2);
	assert_int_equal(jint(o, "bom.cables.server_leaf"), 32);
	assert_int_equal(jint(o, "bom.cables.leaf_spine"), 16);
	assert_int_equal(jint(o, "bom.optics.server_leaf"), 64);
	assert_int_equal(jint(o, "bom.optics.leaf_spine"), 32);
	assert_int_equal(jint(o, "bom.ports.used"), 64);
	assert_int_equal(jint(o, "bom.ports.spare"), 576);
	assert_int_equal(jint(o, "bom.ports.leaf.used"), 48);
	assert_int_equal(jint(o, "bom.ports.spine.spare"), 112);
	assert_true(jreal(o, "bom.capacity_after_spine_loss") == 0.5);
	assert_true(jreal(o, "bom.leaf_uplinks_after_spine_loss") == 0.5);
	assert_int_equal(jint(o, "bom.headroom.spine_ports_spare"), 56);
	assert_int_equal(jint(o, "bom.headroom.leaf_ports_spare"), 58);
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 14);
	assert_int_equal(jint(o, "bom.headroom.more_servers_per_su"), 58);
	assert_false(json_is_true(jget(o, "bom.headroom.full")));
	assert_int_equal(jint(o, "switches.9.ports_spare"), 56);
	json_decref(o);
}

/*
 * Rail-only, same sizes, 2 uplinks per leaf: a rail has 2 x 2 = 4 uplinks, one spine of
 * radix 64 takes them (ceil(4 / 64) = 1): 4 spines of 4 ports, each leaf's 2 uplinks
 * parallel to its rail's spine. Ports: 48 + 16 = 64 of 12 x 64 = 768. A spine down takes 4
 * of 16 links (0.75 left) and all of its rail's leaves' uplinks (0 left). Headroom: 60
 * spine ports = 30 SUs of 2 uplinks.
 */
static void
test_bom_rail_only(void **state)
{
	json_t *o = plan_of("topology: { design: rail-only, sus: 2, servers_per_su: 4, rails: 4, "
			    "spines: 2 }\n");

	(void)state;
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.switches.leaf"), 8);
	assert_int_equal(jint(o, "bom.switches.spine"), 4);
	assert_int_equal(jint(o, "bom.spines_per_rail"), 1);
	assert_int_equal(jint(o, "bom.cables.leaf_spine"), 16);
	assert_int_equal(jint(o, "bom.ports.used"), 64);
	assert_int_equal(jint(o, "bom.ports.spare"), 704);
	assert_int_equal(jint(o, "bom.ports.spine.used"), 16);
	assert_true(jreal(o, "bom.capacity_after_spine_loss") == 0.75);
	assert_true(jreal(o, "bom.leaf_uplinks_after_spine_loss") == 0.0);
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 30);
	assert_int_equal(jint(o, "tiers.1.ports_used"), 4);
	json_decref(o);

	/* 4 SUs x 2 uplinks = 8 = radix: one full spine per rail, no room for another SU. */
	o = plan_of("topology: { design: rail-only, sus: 4, servers_per_su: 4, rails: 2, "
		    "spines: 2, radix: 8 }\n");
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.switches.spine"), 2);
	assert_int_equal(jint(o, "bom.headroom.spine_ports_spare"), 0);
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 0);
	assert_true(json_is_true(jget(o, "bom.headroom.full")));
	json_decref(o);

	/*
	 * 5 SUs x 2 uplinks = 10 > 8: ceil(10 / 8) = 2 spines per rail, uplinks round-robin
	 * (k = su x 2 + p to spine k mod 2): each leaf has one link to each spine, 5 ports a
	 * spine. 4 spines, 20 spine ports used, 20 leaf-spine links; a spine down takes 5
	 * (0.75 left) and one of each leaf's 2 uplinks (0.5). Headroom: 2 x 8 - 10 = 6 spare
	 * ports in a rail = 3 SUs of 2 uplinks; 3 spare on each spine.
	 */
	o = plan_of("topology: { design: rail-only, sus: 5, servers_per_su: 4, rails: 2, "
		    "spines: 2, radix: 8 }\n");
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.spines_per_rail"), 2);
	assert_int_equal(jint(o, "bom.switches.spine"), 4);
	assert_int_equal(jint(o, "bom.cables.leaf_spine"), 20);
	assert_int_equal(jint(o, "bom.ports.spine.used"), 20);
	assert_int_equal(jint(o, "bom.ports.spine.spare"), 12);
	assert_true(jreal(o, "bom.capacity_after_spine_loss") == 0.75);
	assert_true(jreal(o, "bom.leaf_uplinks_after_spine_loss") == 0.5);
	assert_int_equal(jint(o, "bom.headroom.spine_ports_spare"), 3);
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 3);
	assert_int_equal(jint(o, "tiers.1.ports_used"), 5);
	json_decref(o);

	/* 9 SUs: a spine would need a port for each of its rail's 9 leaves, radix 8. */
	assert_null(plan_of("topology: { design: rail-only, sus: 9, servers_per_su: 4, rails: 2, "
			    "spines: 2, radix: 8 }\n"));
	assert_non_null(strstr(err,
			       ".yaml:1: rail-only: every spine of a rail has a link to "
			       "each of its 9 leaves, more than radix 8: at most 8 SUs at this "
			       "radix"));
}

/* The fabric link of plan o with end (sw, port), as the a or the b side; NULL: none. */
static json_t *
plan_cable(json_t *o, const char *sw, const char *port, bool *b_side)
{
	json_t *links = jget(o, "links"), *l;
	size_t i;

	json_array_foreach(links, i, l)
	{
		const char *a = json_string_value(json_object_get(l, "a"));
		const char *ap = json_string_value(json_object_get(l, "a_port"));
		const char *b = json_string_value(json_object_get(l, "b"));
		const char *bp = json_string_value(json_object_get(l, "b_port"));

		if (strcmp(a, sw) == 0 && strcmp(ap, port) == 0) {
			*b_side = false;
			return l;
		}
		if (strcmp(b, sw) == 0 && strcmp(bp, port) == 0) {
			*b_side = true;
			return l;
		}
	}
	return NULL;
}

/*
 * Every leaf of a rail reaches every spine of its rail, and the spines' ports are used
 * once each: counts[rail][su][spine] links, checked from the plan's cables.
 */
static void
check_spread(json_t *o, uint32_t rails, uint32_t sus, uint32_t per_rail, uint32_t uplinks,
	     uint32_t radix)
{
	static uint8_t used[16][8][64];   /* [rail][spine][port] */
	static uint32_t count[16][16][8]; /* [rail][su][spine] */
	json_t *links = jget(o, "links"), *l;
	uint32_t r, su, sp, lo = uplinks / per_rail, hi = (uplinks + per_rail - 1) / per_rail;
	size_t i;

	assert_true(rails <= 16 && sus <= 16 && per_rail <= 8 && radix <= 64);
	memset(used, 0, sizeof(used));
	memset(count, 0, sizeof(count));
	json_array_foreach(links, i, l)
	{
		unsigned ls, lr, pr, ps, pp;

		if (strcmp(json_string_value(json_object_get(l, "kind")), "fabric") != 0)
			continue;
		assert_int_equal(sscanf(json_string_value(json_object_get(l, "a")), "leaf-su%u-r%u",
					&ls, &lr),
				 2);
		assert_int_equal(sscanf(json_string_value(json_object_get(l, "b")), "spine-r%u-%u",
					&pr, &ps),
				 2);
		assert_int_equal(
			sscanf(json_string_value(json_object_get(l, "b_port")), "down%u", &pp), 1);
		assert_int_equal(lr, pr); /* a rail's leaves reach only its own spines */
		assert_true(ls < sus && lr < rails && ps < per_rail && pp < radix);
		assert_int_equal(used[pr][ps][pp], 0);
		used[pr][ps][pp] = 1;
		count[lr][ls][ps]++;
	}
	for (r = 0; r < rails; r++)
		for (su = 0; su < sus; su++)
			for (sp = 0; sp < per_rail; sp++) {
				/* At least one link to each spine, and an even spread. */
				assert_true(count[r][su][sp] >= 1);
				assert_true(count[r][su][sp] >= lo && count[r][su][sp] <= hi);
			}
}

/*
 * Rail-only, 8 SUs x 32 servers x 8 rails, 16 uplinks per leaf (2:1), radix 64: a rail's
 * 8 x 16 = 128 uplinks take ceil(128 / 64) = 2 spines, round-robin: leaf su's uplink p is
 * k = 16 su + p, to spine k mod 2 (= p mod 2) at port k div 2 (= 8 su + p div 2). Each
 * leaf has 8 parallel links to each of its rail's 2 spines; each spine uses 8 x 8 = 64
 * ports (full). 64 leaves of 32 + 16 = 48 ports, 16 spines: 64 x 48 + 16 x 64 = 4096 of
 * 80 x 64 = 5120 used, the 1024 spare all on leaves (16 each). 2048 server cables, 1024
 * leaf-spine. A spine down: 960 of 1024 links (0.9375) and half of each of its rail's
 * leaves' uplinks (0.5). No room for another SU.
 */
static void
test_bom_rail_only_spread(void **state)
{
	json_t *o = plan_of("topology: { design: rail-only, sus: 8, servers_per_su: 32, rails: 8, "
			    "spines: 16, radix: 64 }\n");
	json_t *l;
	bool b;

	(void)state;
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.spines_per_rail"), 2);
	assert_int_equal(jint(o, "bom.switches.leaf"), 64);
	assert_int_equal(jint(o, "bom.switches.spine"), 16);
	assert_int_equal(jint(o, "bom.cables.server_leaf"), 2048);
	assert_int_equal(jint(o, "bom.cables.leaf_spine"), 1024);
	assert_int_equal(jint(o, "bom.ports.used"), 4096);
	assert_int_equal(jint(o, "bom.ports.spare"), 1024);
	assert_int_equal(jint(o, "bom.ports.spine.used"), 1024);
	assert_int_equal(jint(o, "bom.ports.spine.spare"), 0);
	assert_int_equal(jint(o, "bom.ports.leaf.spare"), 1024);
	assert_true(jreal(o, "bom.capacity_after_spine_loss") == 0.9375);
	assert_true(jreal(o, "bom.leaf_uplinks_after_spine_loss") == 0.5);
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 0);
	assert_true(json_is_true(jget(o, "bom.headroom.full")));
	assert_int_equal(jint(o, "tiers.1.count"), 16);
	assert_int_equal(jint(o, "tiers.1.ports_used"), 64);
	assert_int_equal(jint(o, "switches.64.ports_used"), 64); /* spine-r0-0 */
	assert_int_equal(jint(o, "switches.65.ports_used"), 64); /* spine-r0-1 */
	assert_string_equal(json_string_value(jget(o, "switches.79.name")), "spine-r7-1");
	assert_int_equal(json_array_size(jget(o, "links")), 2048 + 1024);
	check_spread(o, 8, 8, 2, 16, 64);
	/* leaf-su1-r3 up3: k = 19, spine-r3-1 down9; the last uplink ends the last spine. */
	l = plan_cable(o, "leaf-su1-r3", "up3", &b);
	assert_non_null(l);
	assert_false(b);
	assert_string_equal(json_string_value(jget(l, "b")), "spine-r3-1");
	assert_string_equal(json_string_value(jget(l, "b_port")), "down9");
	l = plan_cable(o, "leaf-su7-r7", "up15", &b);
	assert_string_equal(json_string_value(jget(l, "b")), "spine-r7-1");
	assert_string_equal(json_string_value(jget(l, "b_port")), "down63");
	l = plan_cable(o, "spine-r0-0", "down0", &b);
	assert_true(b);
	assert_string_equal(json_string_value(jget(l, "a")), "leaf-su0-r0");
	assert_string_equal(json_string_value(jget(l, "a_port")), "up0");
	json_decref(o);
}

#define UNEVEN "design: rail-only, sus: 3, servers_per_su: 2, rails: 1, spines: 5, radix: 8"

/*
 * Uplinks that do not divide evenly: 3 SUs x 5 uplinks = 15 on radix 8 takes 2 spines
 * (k mod 2): spine-r0-0 gets k = 0, 2, ..., 14 (8 ports, full), spine-r0-1 k = 1, ..., 13
 * (7). Leaf su 0 has 3 links to spine 0 and 2 to spine 1; leaf su 1 (k = 5..9) the
 * reverse, its up0 on spine-r0-1 down2. A spine down: 7 of 15 links left (busiest spine),
 * and the worst-hit leaf keeps 2 of 5 uplinks (0.4). One spare port: no room for an SU.
 */
static void
test_bom_rail_only_uneven(void **state)
{
	json_t *o = plan_of("topology: { " UNEVEN " }\n"), *l;
	bool b;

	(void)state;
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.spines_per_rail"), 2);
	assert_int_equal(jint(o, "switches.3.ports_used"), 8);
	assert_int_equal(jint(o, "switches.4.ports_used"), 7);
	assert_int_equal(jint(o, "bom.ports.spine.spare"), 1);
	assert_true(jreal(o, "bom.capacity_after_spine_loss") == 7.0 / 15.0);
	assert_true(jreal(o, "bom.leaf_uplinks_after_spine_loss") == 0.4);
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 0);
	check_spread(o, 1, 3, 2, 5, 8);
	l = plan_cable(o, "leaf-su1-r0", "up0", &b);
	assert_string_equal(json_string_value(jget(l, "b")), "spine-r0-1");
	assert_string_equal(json_string_value(jget(l, "b_port")), "down2");
	l = plan_cable(o, "leaf-su0-r0", "up4", &b);
	assert_string_equal(json_string_value(jget(l, "b")), "spine-r0-0");
	assert_string_equal(json_string_value(jget(l, "b_port")), "down2");
	json_decref(o);
}

/* A switch's file for plan switch sw: its ports named as the plan's, this: its place. */
static const char *
switch_file(json_t *sw, const char *topo)
{
	static char buf[4096];
	bool spine = strcmp(json_string_value(jget(sw, "tier")), "spine") == 0;
	uint32_t n = (uint32_t)jint(sw, "ports_used"), i, down = spine ? n : 2;
	int len;

	len = snprintf(buf, sizeof(buf), "switch: { name: x, role: %s }\nports:\n",
		       spine ? "spine" : "leaf");
	for (i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len,
				"  - { name: %s%u, devargs: t%u, role: %s }\n",
				i < down ? "down" : "up", i < down ? i : i - down, i,
				i < down ? "downlink" : "uplink");
	if (spine)
		snprintf(buf + len, sizeof(buf) - len,
			 "topology: { %s, this: { rail: %lld, spine: %lld } }\n", topo,
			 jint(sw, "rail"), jint(sw, "spine"));
	else
		snprintf(buf + len, sizeof(buf) - len,
			 "topology: { %s, this: { su: %lld, rail: %lld } }\n", topo, jint(sw, "su"),
			 jint(sw, "rail"));
	return buf;
}

/*
 * The loader and the plan number the same cables: each switch of the uneven fabric, loaded
 * from its own file, derives for every port the peer, peer port and addresses the plan's
 * cable has. Spine-r0-1's routes: each leaf's /24 over its parallel links (2, 3, 2).
 */
static void
test_spread_derive(void **state)
{
	json_t *o = plan_of("topology: { " UNEVEN " }\n"), *sw, *l;
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch d;
	char buf[64];
	size_t i;
	bool b;

	(void)state;
	assert_non_null(o);
	json_array_foreach(jget(o, "switches"), i, sw)
	{
		const char *name = json_string_value(jget(sw, "name"));
		struct rsw_config *cfg = expect_ok(switch_file(sw, UNEVEN));
		uint16_t k;

		assert_int_equal(rsw_topology_derive(cfg, &d, &e), 0);
		assert_string_equal(d.name, name);
		for (k = 0; k < cfg->n_ports; k++) {
			l = plan_cable(o, name, cfg->ports[k].name, &b);
			assert_non_null(l);
			assert_string_equal(d.ports[k].peer,
					    json_string_value(jget(l, b ? "a" : "b")));
			assert_string_equal(d.ports[k].peer_port,
					    json_string_value(jget(l, b ? "a_port" : "b_port")));
			assert_string_equal(rsw_prefix_str(&cfg->ports[k].ipv4, buf, sizeof(buf)),
					    json_string_value(jget(l, b ? "b_ip" : "a_ip")));
		}
		if (strcmp(name, "spine-r0-1") == 0) {
			assert_int_equal(cfg->n_routes, 3);
			assert_string_equal(
				rsw_prefix_str(&cfg->routes[0].prefix, buf, sizeof(buf)),
				"10.0.0.0/24");
			assert_int_equal(cfg->routes[0].n_nexthops, 2);
			assert_int_equal(cfg->routes[1].n_nexthops, 3);
			assert_int_equal(cfg->routes[2].n_nexthops, 2);
			/* down2 = k 5 = leaf su 1's up0: the /31 at 2 x (0 x 4096 + 1). */
			assert_string_equal(rsw_prefix_str(&cfg->ports[2].ipv4, buf, sizeof(buf)),
					    "172.16.0.2/31");
			assert_string_equal(d.ports[2].peer, "leaf-su1-r0");
			assert_string_equal(d.ports[2].peer_port, "up0");
		}
		rsw_config_free(cfg);
	}
	/* A spine's file with more downlinks than the round-robin gives it. */
	sw = jget(o, "switches.4");
	json_object_set_new(sw, "ports_used", json_integer(8));
	expect_err(switch_file(sw, UNEVEN),
		   "t.yaml:10: port 'down7' is downlink 8, but spine-r0-1 has 7 leaf uplinks");
	json_decref(o);
}

/*
 * The full fabric: 8 SUs x 32 servers x 8 rails, 8 spines, radix 64. 64 leaves of 32 + 8 =
 * 40 ports (24 spare); 8 spines of 64 x 1 = 64 ports (0 spare). 2048 server cables, 512
 * leaf-spine; 64 x 40 + 8 x 64 = 3072 ports used of 72 x 64 = 4608. One spine down: 448 of
 * 512 links (0.875). Oversubscription 32:8 = 4:1. No room for another SU.
 */
static void
test_bom_full_fabric(void **state)
{
	json_t *o = plan_of("topology: { sus: 8, servers_per_su: 32, rails: 8, spines: 8, "
			    "radix: 64 }\n");

	(void)state;
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.switches.leaf"), 64);
	assert_int_equal(jint(o, "bom.switches.spine"), 8);
	assert_int_equal(jint(o, "bom.cables.server_leaf"), 2048);
	assert_int_equal(jint(o, "bom.cables.leaf_spine"), 512);
	assert_int_equal(jint(o, "bom.ports.used"), 3072);
	assert_int_equal(jint(o, "bom.ports.spare"), 1536);
	assert_int_equal(jint(o, "bom.ports.spine.spare"), 0);
	assert_true(jreal(o, "bom.capacity_after_spine_loss") == 0.875);
	assert_int_equal(jint(o, "bom.headroom.spine_ports_spare"), 0);
	assert_int_equal(jint(o, "bom.headroom.leaf_ports_spare"), 24);
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 0);
	assert_true(json_is_true(jget(o, "bom.headroom.full")));
	assert_true(jreal(o, "tiers.0.oversubscription") == 4.0);
	assert_int_equal(json_array_size(jget(o, "links")), 2048 + 512);
	json_decref(o);
}

/*
 * spines: 0 (rail-only): 2 rails of one switch each, 2 SUs x 4 servers = 8 ports of radix
 * 16; 16 server cables, no spine tier. Headroom: 8 spare ports = 2 SUs of 4, or 4 more
 * servers in each of the 2 SUs. Radix 7 is refused.
 */
static void
test_bom_rail_switch(void **state)
{
	json_t *o = plan_of("topology: { design: rail-only, sus: 2, servers_per_su: 4, rails: 2, "
			    "spines: 0, radix: 16 }\n");
	json_t *l;

	(void)state;
	assert_non_null(o);
	assert_int_equal(jint(o, "bom.switches.leaf"), 2);
	assert_int_equal(jint(o, "bom.switches.spine"), 0);
	assert_int_equal(jint(o, "bom.cables.server_leaf"), 16);
	assert_int_equal(jint(o, "bom.cables.leaf_spine"), 0);
	assert_int_equal(jint(o, "bom.ports.used"), 16);
	assert_int_equal(jint(o, "bom.ports.spare"), 16);
	assert_true(json_is_null(jget(o, "bom.capacity_after_spine_loss")));
	assert_int_equal(jint(o, "bom.headroom.more_sus"), 2);
	assert_int_equal(jint(o, "bom.headroom.more_servers_per_su"), 4);
	assert_int_equal(json_array_size(jget(o, "tiers")), 1);
	assert_string_equal(json_string_value(jget(o, "switches.1.name")), "leaf-r1");
	/* leaf-r1's 5th downlink: server 0 of SU 1, its gateway 10.1.1.254. */
	l = jget(o, "links.12");
	assert_string_equal(json_string_value(jget(l, "a")), "leaf-r1");
	assert_string_equal(json_string_value(jget(l, "a_port")), "down4");
	assert_string_equal(json_string_value(jget(l, "a_ip")), "10.1.1.254/24");
	assert_string_equal(json_string_value(jget(l, "b")), "server-su1-0");
	json_decref(o);

	assert_null(plan_of("topology: { design: rail-only, sus: 2, servers_per_su: 4, rails: 2, "
			    "spines: 0, radix: 7 }\n"));
	assert_non_null(strstr(err, "rail 0 needs 8 ports: radix is 7"));
	/* spines: 0 is only rail-only. */
	assert_null(plan_of("topology: { sus: 2, servers_per_su: 4, rails: 2, spines: 0 }\n"));
	assert_non_null(strstr(err, "'spines' must be between 1 and 4096 (got 0)"));
}

/* A rail switch's own file: { rail } places it; SU 1's servers behind down4..down7. */
static void
test_rail_switch_derive(void **state)
{
	struct rsw_config *cfg = expect_ok(
		"switch: { name: r1 }\n"
		"ports:\n"
		"  - { name: down0, devargs: t0, role: downlink }\n"
		"  - { name: down1, devargs: t1, role: downlink }\n"
		"  - { name: down2, devargs: t2, role: downlink }\n"
		"  - { name: down3, devargs: t3, role: downlink }\n"
		"  - { name: down4, devargs: t4, role: downlink }\n"
		"topology: { design: rail-only, sus: 2, servers_per_su: 4, rails: 2, spines: 0,\n"
		"            radix: 16, this: { rail: 1 } }\n");
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch sw;
	char buf[64];

	(void)state;
	assert_int_equal(rsw_topology_derive(cfg, &sw, &e), 0);
	assert_string_equal(sw.name, "leaf-r1");
	assert_string_equal(rsw_prefix_str(&cfg->ports[0].ipv4, buf, sizeof(buf)), "10.0.1.254/24");
	assert_string_equal(rsw_prefix_str(&cfg->ports[4].ipv4, buf, sizeof(buf)), "10.1.1.254/24");
	assert_string_equal(sw.ports[4].peer, "server-su1-0");
	/* A /32 per server and nothing else: no uplinks. */
	assert_int_equal(cfg->n_routes, 5);
	assert_string_equal(rsw_prefix_str(&cfg->routes[4].prefix, buf, sizeof(buf)),
			    "10.1.1.1/32");
	rsw_config_free(cfg);

	expect_err_prefix("switch: { name: r1 }\n"
			  "ports: [{ name: up0, devargs: t0, role: uplink }]\n"
			  "topology: { design: rail-only, sus: 2, servers_per_su: 4, rails: 2, "
			  "spines: 0, radix: 16, this: { rail: 1 } }\n",
			  "t.yaml:2: port 'up0' is uplink 1, but a leaf has 0 uplinks");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bom_rail_optimized),
		cmocka_unit_test(test_bom_rail_only),
		cmocka_unit_test(test_bom_full_fabric),
		cmocka_unit_test(test_bom_rail_switch),
		cmocka_unit_test(test_rail_switch_derive),
		cmocka_unit_test(test_bom_rail_only_spread),
		cmocka_unit_test(test_bom_rail_only_uneven),
		cmocka_unit_test(test_spread_derive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
