/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the fabric topology's JSON (control/topology/): `show topology` (and the
 * topology section of `show config`), the planner's view of the whole fabric from a plan or
 * a switch's file, and the example files in config/ through the loader and the planner.
 * Runs from control/test (meson workdir). The checks and the derivation: test_topology.c.
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
#include "test_topology_common.h"

/* json helpers beside test_json_common.h's */

static const char *
jstr(json_t *o, const char *path)
{
	json_t *v = jget(o, path);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void
test_show_json(void **state)
{
	struct rsw_config *cfg = expect_ok(LEAF), *none;
	json_t *o;

	(void)state;
	o = rsw_topology_show_json(cfg);
	assert_non_null(o);
	assert_string_equal(jstr(o, "design"), "rail-optimized");
	assert_string_equal(jstr(o, "role"), "leaf");
	assert_string_equal(jstr(o, "name"), "leaf-su0-r1");
	assert_int_equal(jint(o, "this.su"), 0);
	assert_int_equal(jint(o, "this.rail"), 1);
	assert_string_equal(jstr(o, "subnet"), "10.0.1.0/24");
	assert_int_equal(json_array_size(jget(o, "ports")), 6);
	assert_string_equal(jstr(o, "ports.0.name"), "d0");
	assert_string_equal(jstr(o, "ports.0.role"), "downlink");
	assert_string_equal(jstr(o, "ports.0.ipv4"), "10.0.1.254/24");
	assert_true(json_is_true(jget(o, "ports.0.derived")));
	assert_string_equal(jstr(o, "ports.0.peer.name"), "server-su0-0");
	assert_string_equal(jstr(o, "ports.0.peer.ip"), "10.0.1.1");
	assert_string_equal(jstr(o, "ports.5.ipv4"), "172.16.32.3/31");
	assert_string_equal(jstr(o, "ports.5.peer.name"), "spine-1");
	assert_string_equal(jstr(o, "ports.5.peer.port"), "down1");
	assert_string_equal(jstr(o, "ports.5.peer.ip"), "172.16.32.2");
	assert_int_equal(json_array_size(jget(o, "routes")), 5);
	assert_string_equal(jstr(o, "routes.0.prefix"), "10.0.1.1/32");
	assert_string_equal(jstr(o, "routes.0.port"), "d0");
	assert_string_equal(jstr(o, "routes.4.prefix"), "10.0.0.0/8");
	assert_string_equal(jstr(o, "routes.4.nexthops.1"), "172.16.32.2");
	assert_true(json_is_null(jget(o, "routes.4.port")));
	json_decref(o);

	/* The command handler reads the configuration through a pointer to it. */
	o = rsw_topology_cmd_show(0, NULL, &cfg);
	assert_string_equal(jstr(o, "name"), "leaf-su0-r1");
	json_decref(o);
	o = rsw_topology_cmd_show(0, NULL, NULL);
	assert_non_null(json_object_get(o, "error"));
	json_decref(o);

	/* show config carries the section. */
	o = rsw_config_to_json(cfg);
	assert_string_equal(jstr(o, "topology.design"), "rail-optimized");
	assert_int_equal(jint(o, "topology.this.rail"), 1);
	assert_string_equal(jstr(o, "topology.fabric_prefix"), "172.16.0.0/12");
	assert_string_equal(jstr(o, "ports.4.ipv4"), "172.16.0.3/31");
	json_decref(o);
	rsw_config_free(cfg);

	/* Spine, rail-only: this has rail and spine. */
	cfg = expect_ok(RO_SPINE);
	o = rsw_topology_show_json(cfg);
	assert_string_equal(jstr(o, "role"), "spine");
	assert_string_equal(jstr(o, "name"), "spine-r2-0");
	assert_int_equal(jint(o, "this.rail"), 2);
	assert_int_equal(jint(o, "this.spine"), 0);
	assert_true(json_is_null(jget(o, "subnet")));
	assert_string_equal(jstr(o, "ports.2.peer.name"), "leaf-su1-r2");
	assert_string_equal(jstr(o, "ports.2.peer.port"), "up0");
	json_decref(o);
	rsw_config_free(cfg);

	/* No topology. */
	none = expect_ok("switch: { name: a }\nports: [{ name: p0, devargs: t0 }]\n");
	o = rsw_topology_show_json(none);
	assert_string_equal(jstr(o, "error"), "no topology in the configuration");
	json_decref(o);
	rsw_config_free(none);
}

/* A file for rsw_config_load_plan; returns its path (static). */
static const char *
write_file(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/rsw-topo-%d.yaml", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static struct rsw_config *
plan_load(const char *text)
{
	const char *path = write_file(text);
	struct rsw_config *cfg;

	memset(err, 0, sizeof(err));
	cfg = rsw_config_load_plan(path, err, sizeof(err));
	unlink(path);
	return cfg;
}

static void
test_plan_json(void **state)
{
	struct rsw_topo_error e = {0};
	struct rsw_config *cfg;
	json_t *o;
	size_t i;

	(void)state;
	/* Bad plans. */
	assert_null(plan_load("switch: { name: a }\nports: [{ name: p0, devargs: t0 }]\n"));
	assert_non_null(strstr(err, ": missing required key 'topology'"));
	assert_null(plan_load("topology: { sus: 2, servers_per_su: 4, rails: 0, spines: 2 }\n"));
	assert_non_null(strstr(err, ":1: 'rails' must be between 1 and 256 (got 0)"));
	assert_null(plan_load("topology:\n  sus: 2\n  servers_per_su: 4\n  rails: 8\n"
			      "  spines: 2\n  radix: 8\n"));
	assert_non_null(strstr(err, ":6: spine 0 needs 16 ports: radix is 8"));
	cfg = expect_ok("switch: { name: a }\nports: [{ name: p0, devargs: t0 }]\n");
	assert_null(rsw_topology_plan_json(cfg, &e));
	assert_string_equal(e.msg, "no topology in the configuration");
	rsw_config_free(cfg);

	/* A topology alone is a plan: no switch, no `this`. */
	cfg = plan_load("topology: { sus: 2, servers_per_su: 4, rails: 4, spines: 2 }\n");
	assert_non_null(cfg);
	o = rsw_topology_plan_json(cfg, &e);
	assert_non_null(o);
	assert_true(json_is_null(jget(o, "this")));
	assert_int_equal(jint(o, "radix"), 64);
	json_decref(o);
	rsw_config_free(cfg);

	/* The leaf's file: the whole fabric. */
	cfg = expect_ok(LEAF);
	o = rsw_topology_plan_json(cfg, &e);
	assert_non_null(o);
	assert_string_equal(jstr(o, "design"), "rail-optimized");
	assert_string_equal(jstr(o, "this"), "leaf-su0-r1");
	assert_int_equal(jint(o, "servers"), 8);
	assert_int_equal(jint(o, "server_nics"), 32);
	assert_string_equal(jstr(o, "tiers.0.tier"), "leaf");
	assert_int_equal(jint(o, "tiers.0.count"), 8);
	assert_int_equal(jint(o, "tiers.0.ports_used"), 6);
	assert_int_equal(jint(o, "tiers.0.radix"), 64);
	assert_true(json_real_value(jget(o, "tiers.0.oversubscription")) == 2.0);
	assert_string_equal(jstr(o, "tiers.0.ratio"), "2:1");
	assert_string_equal(jstr(o, "tiers.1.tier"), "spine");
	assert_int_equal(jint(o, "tiers.1.count"), 2);
	assert_int_equal(jint(o, "tiers.1.ports_used"), 8);
	assert_true(json_is_null(jget(o, "tiers.1.oversubscription")));
	assert_true(json_is_null(jget(o, "speeds.downlink_bps")));
	assert_int_equal(json_array_size(jget(o, "switches")), 10);
	assert_string_equal(jstr(o, "switches.1.name"), "leaf-su0-r1");
	assert_string_equal(jstr(o, "switches.1.subnet"), "10.0.1.0/24");
	assert_string_equal(jstr(o, "switches.9.name"), "spine-1");
	/* 8 leaves x (4 servers + 2 spines) cables, leaf by leaf: servers, then spines. */
	assert_int_equal(json_array_size(jget(o, "links")), 48);
	assert_string_equal(jstr(o, "links.0.a"), "leaf-su0-r0");
	assert_string_equal(jstr(o, "links.0.a_port"), "down0");
	assert_string_equal(jstr(o, "links.0.a_ip"), "10.0.0.254/24");
	assert_string_equal(jstr(o, "links.0.b"), "server-su0-0");
	assert_string_equal(jstr(o, "links.0.b_port"), "nic0");
	assert_string_equal(jstr(o, "links.0.b_ip"), "10.0.0.1/24");
	assert_string_equal(jstr(o, "links.0.kind"), "server");
	assert_string_equal(jstr(o, "links.11.a"), "leaf-su0-r1");
	assert_string_equal(jstr(o, "links.11.a_port"), "up1");
	assert_string_equal(jstr(o, "links.11.a_ip"), "172.16.32.3/31");
	assert_string_equal(jstr(o, "links.11.b"), "spine-1");
	assert_string_equal(jstr(o, "links.11.b_port"), "down1");
	assert_string_equal(jstr(o, "links.11.b_ip"), "172.16.32.2/31");
	assert_string_equal(jstr(o, "links.11.kind"), "fabric");
	assert_string_equal(jstr(o, "links.47.a"), "leaf-su1-r3");
	assert_string_equal(jstr(o, "links.47.a_ip"), "172.16.32.15/31");
	assert_string_equal(jstr(o, "links.47.b_port"), "down7");
	/* Every address appears once on a fabric link. */
	for (i = 0; i < 48; i++) {
		json_t *l = json_array_get(jget(o, "links"), i);
		size_t k;

		if (strcmp(json_string_value(json_object_get(l, "kind")), "fabric") != 0)
			continue;
		for (k = 0; k < i; k++) {
			json_t *m = json_array_get(jget(o, "links"), k);

			assert_string_not_equal(json_string_value(json_object_get(l, "a_ip")),
						json_string_value(json_object_get(m, "a_ip")));
		}
	}
	json_decref(o);
	rsw_config_free(cfg);

	/* Rail-only, speeds from the file: 4 x 100G down vs 2 x 400G up = 0.5:1. */
	cfg = expect_ok(
		rep(rep(RO_LEAF, "name: d0, devargs: t0,", "name: d0, devargs: t0, speed: 100G,"),
		    "name: u0, devargs: t2,", "name: u0, devargs: t2, speed: 400G,"));
	o = rsw_topology_plan_json(cfg, &e);
	assert_non_null(o);
	assert_string_equal(jstr(o, "tiers.0.ratio"), "0.5:1");
	assert_int_equal(jint(o, "speeds.downlink_bps"), 100000000000LL);
	/* One spine per rail: 2 SUs x 2 uplinks = 4 of its 64 ports. */
	assert_int_equal(jint(o, "tiers.1.count"), 4);
	assert_int_equal(jint(o, "tiers.1.ports_used"), 4);
	assert_string_equal(jstr(o, "switches.8.name"), "spine-r0-0");
	assert_int_equal(jint(o, "switches.8.rail"), 0);
	assert_string_equal(jstr(o, "switches.11.name"), "spine-r3-0");
	assert_int_equal(jint(o, "switches.11.ports_spare"), 60);
	/* leaf-su1-r2 (the 7th leaf): its 2nd uplink, parallel to its 1st, on spine-r2-0. */
	assert_string_equal(jstr(o, "links.41.a"), "leaf-su1-r2");
	assert_string_equal(jstr(o, "links.41.a_ip"), "172.16.160.3/31");
	assert_string_equal(jstr(o, "links.41.b"), "spine-r2-0");
	assert_string_equal(jstr(o, "links.41.b_port"), "down3");
	json_decref(o);
	rsw_config_free(cfg);
}

/* The example files pass the loader and the planner. */
static void
test_example_files(void **state)
{
	static const char *const files[] = {
		"../../config/fabric-2su-leaf.yaml",
		"../../config/fabric-2su-spine.yaml",
		"../../config/rail-only-leaf.yaml",
	};
	struct rsw_topo_error e = {0};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct rsw_config *cfg = rsw_config_load(files[i], err, sizeof(err));
		json_t *o;

		if (cfg == NULL)
			print_error("%s\n", err);
		assert_non_null(cfg);
		o = rsw_topology_plan_json(cfg, &e);
		assert_non_null(o);
		json_decref(o);
		rsw_config_free(cfg);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_show_json),
		cmocka_unit_test(test_plan_json),
		cmocka_unit_test(test_example_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
