/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The bill of materials and capacity figures of `railctl plan` ("bom"), on fabrics whose
 * counts are worked out by hand in each test's comment: rail-optimized, rail-only (a rail's
 * uplinks packed onto one spine), a full fabric and rails of one switch (`spines: 0`).
 * Also the derivation of a rail switch and the refusal of a rail-only plan that would need
 * a second spine per rail.
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

	/* 5 SUs would need a second spine per rail: refused, leaves on two spines have no
	 * path between them in two tiers. */
	assert_null(plan_of("topology: { design: rail-only, sus: 5, servers_per_su: 4, rails: 2, "
			    "spines: 2, radix: 8 }\n"));
	assert_non_null(strstr(err, "rail-only: a rail's 5 SUs x 2 uplinks need 2 spines of "
				    "radix 8, and leaves packed onto different spines have no path "
				    "between them: at most 4 SUs at this radix and spines"));
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
		cmocka_unit_test(test_bom_rail_optimized), cmocka_unit_test(test_bom_rail_only),
		cmocka_unit_test(test_bom_full_fabric),    cmocka_unit_test(test_bom_rail_switch),
		cmocka_unit_test(test_rail_switch_derive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
