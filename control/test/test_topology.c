/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the fabric topology (control/topology/ and its use by the loader): every
 * error with its exact "FILE:LINE: message", bad input first; then the derivation of both
 * designs against hand-computed tables of port addresses, /31s and routes; explicit
 * addresses and static routes winning; proxy ARP between the servers of a leaf. The
 * planner's and `show topology`'s JSON and the example files: test_topology_json.c.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "cfg_test.h"
#include "rsw_config.h"
#include "rsw_topology.h"
#include "test_topology_common.h"

static const char *
pstr(const struct rsw_prefix *p)
{
	static char buf[4][64];
	static int n;

	n = (n + 1) % 4;
	return rsw_prefix_str(p, buf[n], sizeof(buf[n]));
}

static const char *
istr(const struct rsw_ip *ip)
{
	static char buf[4][64];
	static int n;

	n = (n + 1) % 4;
	return rsw_ip_str(ip, buf[n], sizeof(buf[n]));
}

/* A checked topology built in C: 2 SUs x 4 servers, 4 rails, 2 spines, radix 64. */
static struct rsw_cfg_topology
topo(enum rsw_topo_design d)
{
	struct rsw_config *cfg = expect_ok(d == RSW_TOPO_RAIL_ONLY ? RO_LEAF : LEAF);
	struct rsw_cfg_topology t = cfg->topology;

	rsw_config_free(cfg);
	return t;
}

/* Bad input first. */

static void
test_check_bad(void **state)
{
	struct rsw_cfg_topology t, none = {0};
	struct rsw_topo_error e = {0};

	(void)state;
	assert_int_equal(rsw_topology_check(&none, false, &e), -EINVAL);
	assert_string_equal(e.msg, "no topology in the configuration");
	assert_int_equal(rsw_topology_check(&none, false, NULL), -EINVAL);

	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	assert_int_equal(rsw_topology_check(&t, true, &e), 0);
	t.rails = 0;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'rails' must be between 1 and 256 (got 0)");
	assert_int_equal(e.line, 14);
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.sus = 0;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'sus' must be between 1 and 256 (got 0)");
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.spines = 0;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'spines' must be between 1 and 4096 (got 0)");
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.servers_per_su = 254;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'servers_per_su' must be between 1 and 253 (got 254)");
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.radix = 0;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'radix' must be between 1 and 4096 (got 0)");

	/* Radix: 8 leaves need 8 spine ports. */
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.radix = 7;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(
		e.msg,
		"spine 0 needs 8 ports: radix is 7 (one downlink per leaf: 2 SUs x 4 rails)");
	assert_int_equal(e.line, 16);
	t.radix = 5;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(
		e.msg, "leaf 0 needs 6 ports: radix is 5 (4 server downlinks + 2 spine uplinks)");
	t = topo(RSW_TOPO_RAIL_ONLY);
	t.sus = 9;
	t.radix = 8;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "rail-only: every spine of a rail has a link to each of its 9 "
				   "leaves, more than radix 8: at most 8 SUs at this radix");
	t.sus = 8; /* 16 uplinks on 2 spines of radix 8 */
	assert_int_equal(rsw_topology_check(&t, true, &e), 0);
	assert_int_equal(rsw_topology_spines_per_rail(&t), 2);

	/* The link plan's 4096 leaf slots per spine. */
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.sus = 256;
	t.rails = 17;
	t.radix = 4096;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "256 SUs x 17 rails = 4352 leaves: the link plan has room for "
				   "at most 4096 leaves per spine");

	/* Prefixes. */
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.gpu_prefix.len = 16;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'gpu_prefix' must be a /8 (got 10.0.0.0/16): hosts are "
				   "<a>.<su>.<rail>.<server+1>");
	assert_int_equal(e.line, 18);
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.gpu_prefix.ip.addr[0] = 224;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'gpu_prefix' must be a unicast /8 (got 224.0.0.0/8)");
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.fabric_prefix.len = 24;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'fabric_prefix' 172.16.0.0/24 is too small: the leaf-spine "
				   "links need 8208 addresses (a /18 or larger)");
	assert_int_equal(e.line, 19);
	t.fabric_prefix.len = 19; /* 8192 addresses: one short */
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	t.fabric_prefix.len = 18;
	assert_int_equal(rsw_topology_check(&t, true, &e), 0);
	t = topo(RSW_TOPO_RAIL_ONLY); /* 4 rails x 2 spines planes */
	t.fabric_prefix.len = 17;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'fabric_prefix' 172.16.0.0/17 is too small: the leaf-spine "
				   "links need 57348 addresses (a /16 or larger)");
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.fabric_prefix.ip.addr[0] = 10;
	t.fabric_prefix.ip.addr[1] = 16;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "'fabric_prefix' 10.16.0.0/12 overlaps 'gpu_prefix' 10.0.0.0/8");

	/* this. */
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.this_su = 2;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg,
			    "'this' is outside the fabric: su 2, but there are 2 SUs (0..1)");
	assert_int_equal(e.line, 17);
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.this_rail = 4;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg,
			    "'this' is outside the fabric: rail 4, but there are 4 rails (0..3)");
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.this_spine = true;
	t.this_spine_idx = 2;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg,
			    "'this' is outside the fabric: spine 2, but there are 2 spines (0..1)");
	t = topo(RSW_TOPO_RAIL_ONLY);
	t.this_spine = true;
	t.this_spine_idx = 5;
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(
		e.msg,
		"'this' is outside the fabric: spine 5, but there are 1 spines per rail (0..0)");
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.has_this = false;
	assert_int_equal(rsw_topology_check(&t, false, &e), 0);
	assert_int_equal(rsw_topology_check(&t, true, &e), -EINVAL);
	assert_string_equal(e.msg, "missing required key 'this' in 'topology'");
	assert_int_equal(e.line, 10);
}

static void
test_load_errors(void **state)
{
	(void)state;
	/* Keys and types. */
	expect_err(rep(LEAF, "  radix: 64\n", "  radx: 64\n"),
		   "t.yaml:16: unknown key 'radx' in 'topology'; did you mean 'radix'?");
	expect_err(rep(LEAF, "rail: 1 }", "rail: 1, gpu: 0 }"),
		   "t.yaml:17: unknown key 'gpu' in 'topology.this'");
	expect_err(rep(LEAF, "  sus: 2\n", "  sus: 2\n  sus: 3\n"),
		   "t.yaml:13: duplicate key 'sus' (first at line 12)");
	expect_err(rep(LEAF, "  sus: 2\n", ""),
		   "t.yaml:10: missing required key 'sus' in 'topology'");
	expect_err(rep(LEAF, "rails: 4", "rails: 0"),
		   "t.yaml:14: 'rails' must be between 1 and 256 (got 0)");
	expect_err(rep(LEAF, "sus: 2", "sus: 0"),
		   "t.yaml:12: 'sus' must be between 1 and 256 (got 0)");
	expect_err(rep(LEAF, "spines: 2", "spines: 0"),
		   "t.yaml:15: 'spines' must be between 1 and 4096 (got 0)");
	expect_err(rep(LEAF, "spines: 2", "spines: two"), "t.yaml:15: 'spines' must be an integer");
	expect_err(rep(LEAF, "rail-optimized", "fat-tree"),
		   "t.yaml:11: 'design' must be rail-optimized | rail-only (got 'fat-tree')");
	expect_err(LEAF "  bogus: 1\n", "t.yaml:20: unknown key 'bogus' in 'topology'");
	expect_err("switch: { name: a }\nports: [{ name: p0, devargs: t0 }]\ntopology: [1]\n",
		   "t.yaml:3: 'topology' must be a mapping");

	/* Prefixes. */
	expect_err(rep(LEAF, "10.0.0.0/8", "10.0.0.0/16"),
		   "t.yaml:18: 'gpu_prefix' must be a /8 (got 10.0.0.0/16): hosts are "
		   "<a>.<su>.<rail>.<server+1>");
	expect_err(
		rep(LEAF, "10.0.0.0/8", "10.1.0.0/8"),
		"t.yaml:18: 'gpu_prefix' 10.1.0.0/8 has host bits set; did you mean 10.0.0.0/8?");
	expect_err(
		rep(LEAF, "10.0.0.0/8", "fd00::/8"),
		"t.yaml:18: 'gpu_prefix' must be an IPv4 prefix like 10.0.0.0/8 (got 'fd00::/8')");
	expect_err(
		rep(LEAF, "172.16.0.0/12", "172.16.0.0/20"),
		"t.yaml:19: 'fabric_prefix' 172.16.0.0/20 is too small: the leaf-spine links need "
		"8208 addresses (a /18 or larger)");

	/* Radix. */
	expect_err(rep(LEAF, "radix: 64", "radix: 5"),
		   "t.yaml:16: leaf 0 needs 6 ports: radix is 5 (4 server downlinks + 2 spine "
		   "uplinks)");
	expect_err(
		rep(SPINE, "rails: 4\n", "rails: 8\n  radix: 8\n"),
		"t.yaml:18: spine 0 needs 16 ports: radix is 8 (one downlink per leaf: 2 SUs x 8 "
		"rails)");

	/* this. */
	expect_err(rep(LEAF, "  this: { su: 0, rail: 1 }\n", ""),
		   "t.yaml:10: missing required key 'this' in 'topology'");
	expect_err(rep(LEAF, "{ su: 0, rail: 1 }", "{ su: 2, rail: 1 }"),
		   "t.yaml:17: 'this' is outside the fabric: su 2, but there are 2 SUs (0..1)");
	expect_err(rep(LEAF, "{ su: 0, rail: 1 }", "{ su: 0 }"),
		   "t.yaml:17: 'this' must be { su, rail } for a leaf or { spine } for a spine");
	expect_err(rep(LEAF, "{ su: 0, rail: 1 }", "{ rail: 1, spine: 0 }"),
		   "t.yaml:17: 'this' must be { su, rail } for a leaf or { spine } for a spine");
	expect_err(
		rep(RO_SPINE, "{ rail: 2, spine: 0 }", "{ spine: 0 }"),
		"t.yaml:15: 'this' must be { su, rail } for a leaf or { rail, spine } (rail-only) "
		"for a spine");
	expect_err(rep(LEAF, "{ su: 0, rail: 1 }", "{ su: -1, rail: 1 }"),
		   "t.yaml:17: 'this.su' must be between 0 and 255 (got -1)");
	expect_err(rep(LEAF, "{ su: 0, rail: 1 }", "7"),
		   "t.yaml:17: 'this' must be a mapping like { su: 0, rail: 1 }");

	/* The switch against its place. */
	expect_err(rep(LEAF, "  name: l1\n", "  name: l1\n  role: spine\n"),
		   "t.yaml:18: 'this' places a leaf (leaf-su0-r1, su 0, rail 1) but switch.role is "
		   "spine");
	expect_err(rep(SPINE, "  role: spine\n", ""),
		   "t.yaml:18: 'this' places a spine (spine-1) but switch.role is leaf; set role: "
		   "spine");
	expect_err(
		rep(LEAF, "  - { name: u0,",
		    "  - { name: d4, devargs: t9, role: downlink }\n  - { name: u0,"),
		"t.yaml:8: port 'd4' is downlink 5, but an SU has 4 servers (one downlink each)");
	expect_err(rep(LEAF, "topology:\n",
		       "  - { name: u2, devargs: t9, role: uplink }\ntopology:\n"),
		   "t.yaml:10: port 'u2' is uplink 3, but the fabric has 2 spines");
	expect_err(rep(RO_LEAF, "topology:\n",
		       "  - { name: u2, devargs: t9, role: uplink }\ntopology:\n"),
		   "t.yaml:8: port 'u2' is uplink 3, but a leaf has 2 uplinks (spines)");
	expect_err(
		rep(SPINE, "topology:\n",
		    "  - { name: u0, devargs: t9, role: uplink }\ntopology:\n"),
		"t.yaml:13: port 'u0' has role uplink: a spine has no uplinks in a two-tier fabric");
	expect_err(rep(SPINE, "topology:\n",
		       "  - { name: l8, devargs: t9, role: downlink }\ntopology:\n"),
		   "t.yaml:13: port 'l8' is downlink 9, but a spine has 8 leaves");
	expect_err(rep(RO_SPINE, "topology:\n",
		       "  - { name: l4, devargs: t9, role: downlink }\ntopology:\n"),
		   "t.yaml:9: port 'l4' is downlink 5, but spine-r2-0 has 4 leaf uplinks");
	expect_err(rep(rep(rep(LEAF, "radix: 64", "radix: 6"), "sus: 2", "sus: 1"), "topology:\n",
		       "  - { name: m0, devargs: t9 }\ntopology:\n"),
		   "t.yaml:10: port 'm0' is port 7 of the switch: radix is 6");
	expect_err(
		rep(LEAF, "name: u0, devargs: t4,", "name: u0, devargs: t4, ipv4: 192.168.0.1/24,"),
		"t.yaml:8: port 'u0': ipv4 192.168.0.1/24 does not hold spine-0's address "
		"172.16.0.2; give a /31 or leave ipv4 out to derive it");
	expect_err(rep(LEAF, "topology:\n",
		       "  - { name: m0, devargs: t9, ipv4: 172.16.0.1/24 }\ntopology:\n"),
		   "t.yaml:8: port 'u0': derived ipv4 172.16.0.3/31 overlaps port 'm0' "
		   "(172.16.0.1/24)");
	expect_err(
		rep(LEAF, "topology:\n",
		    "  - { name: m0, devargs: t9, ipv4: 10.0.1.1/16 }\ntopology:\n"),
		"t.yaml:4: port 'd0': derived ipv4 10.0.1.254/24 overlaps port 'm0' (10.0.1.1/16)");
	/* A neighbour on a derived address: the derivation runs before neighbours. */
	expect_err(LEAF "neighbors:\n  - { ip: 172.16.0.3, mac: 02:00:00:00:00:01, port: u0 }\n",
		   "t.yaml:21: neighbor 172.16.0.3 is the address of port 'u0'");
}

/* Rail-optimized, hand-computed: leaf-su0-r1, L = 0 x 4 + 1 = 1. */
static void
test_rail_optimized_leaf(void **state)
{
	static const char *const addr[] = {
		"10.0.1.254/24", "10.0.1.254/24", "10.0.1.254/24",
		"10.0.1.254/24", "172.16.0.3/31", "172.16.32.3/31", /* offsets 2 and 8194 */
	};
	static const char *const peer[][3] = {
		{"server-su0-0", "nic1", "10.0.1.1"}, {"server-su0-1", "nic1", "10.0.1.2"},
		{"server-su0-2", "nic1", "10.0.1.3"}, {"server-su0-3", "nic1", "10.0.1.4"},
		{"spine-0", "down1", "172.16.0.2"},   {"spine-1", "down1", "172.16.32.2"},
	};
	struct rsw_config *cfg = expect_ok(LEAF);
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch sw;
	const struct rsw_cfg_route *r;
	int i;

	(void)state;
	assert_int_equal(cfg->n_ports, 6);
	for (i = 0; i < 6; i++) {
		assert_true(cfg->ports[i].has_ipv4);
		assert_true(cfg->ports[i].ipv4_derived);
		assert_string_equal(pstr(&cfg->ports[i].ipv4), addr[i]);
	}
	assert_int_equal(rsw_topology_derive(cfg, &sw, &e), 0);
	assert_string_equal(sw.name, "leaf-su0-r1");
	assert_false(sw.spine);
	assert_string_equal(pstr(&sw.subnet), "10.0.1.0/24");
	for (i = 0; i < 6; i++) {
		assert_int_equal(sw.ports[i].index, i < 4 ? i : i - 4);
		assert_false(sw.ports[i].explicit_ipv4);
		assert_string_equal(sw.ports[i].peer, peer[i][0]);
		assert_string_equal(sw.ports[i].peer_port, peer[i][1]);
		assert_string_equal(istr(&sw.ports[i].peer_ip), peer[i][2]);
	}

	/* Routes: one /32 per server out of its own port, then gpu_prefix over both spines. */
	assert_int_equal(cfg->n_routes, 5);
	for (i = 0; i < 4; i++) {
		char want[32];

		r = &cfg->routes[i];
		snprintf(want, sizeof(want), "10.0.1.%d/32", i + 1);
		assert_string_equal(pstr(&r->prefix), want);
		assert_int_equal(r->n_nexthops, 1);
		want[strlen(want) - 3] = '\0';
		assert_string_equal(istr(&r->nexthops[0]), want);
		assert_true(r->derived);
		assert_true(r->has_port);
		assert_int_equal(r->port, i);
	}
	r = &cfg->routes[4];
	assert_string_equal(pstr(&r->prefix), "10.0.0.0/8");
	assert_int_equal(r->n_nexthops, 2);
	assert_string_equal(istr(&r->nexthops[0]), "172.16.0.2");
	assert_string_equal(istr(&r->nexthops[1]), "172.16.32.2");
	assert_int_equal(r->weights[0], 1);
	assert_int_equal(r->weights[1], 1);
	assert_int_equal(r->lb, RSW_LB_UNSET);
	assert_false(r->has_port);
	assert_true(r->derived);
	assert_int_equal(r->line, 10);
	rsw_config_free(cfg);
}

/* Another place and other prefixes: leaf-su1-r3 of 3 spines, L = 1 x 4 + 3 = 7. */
static void
test_rail_optimized_leaf2(void **state)
{
	static const char *const yaml =
		"switch: { name: x }\n"
		"ports:\n"
		"  - { name: d0, devargs: t0, role: downlink }\n"
		"  - { name: u0, devargs: t1, role: uplink }\n"
		"  - { name: u1, devargs: t2, role: uplink }\n"
		"  - { name: u2, devargs: t3, role: uplink }\n"
		"topology:\n"
		"  { sus: 2, servers_per_su: 4, rails: 4, spines: 3, radix: 8,\n"
		"    this: { su: 1, rail: 3 }, gpu_prefix: 11.0.0.0/8,\n"
		"    fabric_prefix: 100.64.0.0/10 }\n";
	struct rsw_config *cfg = expect_ok(yaml);

	(void)state;
	assert_int_equal(cfg->topology.design, RSW_TOPO_RAIL_OPTIMIZED);
	assert_string_equal(pstr(&cfg->ports[0].ipv4), "11.1.3.254/24");
	assert_string_equal(pstr(&cfg->ports[1].ipv4), "100.64.0.15/31");  /* offset 14 */
	assert_string_equal(pstr(&cfg->ports[2].ipv4), "100.64.32.15/31"); /* 8206 */
	assert_string_equal(pstr(&cfg->ports[3].ipv4), "100.64.64.15/31"); /* 16398 */
	assert_int_equal(cfg->n_routes, 2);
	assert_string_equal(pstr(&cfg->routes[0].prefix), "11.1.3.1/32");
	assert_string_equal(pstr(&cfg->routes[1].prefix), "11.0.0.0/8");
	assert_int_equal(cfg->routes[1].n_nexthops, 3);
	assert_string_equal(istr(&cfg->routes[1].nexthops[0]), "100.64.0.14");
	assert_string_equal(istr(&cfg->routes[1].nexthops[1]), "100.64.32.14");
	assert_string_equal(istr(&cfg->routes[1].nexthops[2]), "100.64.64.14");
	rsw_config_free(cfg);
}

/* spine-1: port L holds 172.16.0.0 + 2 x (1 x 4096 + L) = 172.16.32.(2L). */
static void
test_rail_optimized_spine(void **state)
{
	static const char *const subnet[] = {
		"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24",
		"10.1.0.0/24", "10.1.1.0/24", "10.1.2.0/24", "10.1.3.0/24",
	};
	struct rsw_config *cfg = expect_ok(SPINE);
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch sw;
	char want[32], name[RSW_NAME_LEN];
	int i;

	(void)state;
	assert_int_equal(rsw_topology_derive(cfg, &sw, &e), 0);
	assert_string_equal(sw.name, "spine-1");
	assert_true(sw.spine);
	assert_int_equal(cfg->n_routes, 8);
	for (i = 0; i < 8; i++) {
		snprintf(want, sizeof(want), "172.16.32.%d/31", 2 * i);
		assert_string_equal(pstr(&cfg->ports[i].ipv4), want);
		snprintf(want, sizeof(want), "172.16.32.%d", 2 * i + 1);
		assert_string_equal(istr(&sw.ports[i].peer_ip), want);
		assert_string_equal(sw.ports[i].peer,
				    rsw_topology_leaf_name(&cfg->topology, (uint32_t)i / 4,
							   (uint32_t)i % 4, name, sizeof(name)));
		assert_string_equal(sw.ports[i].peer_port, "up1");
		assert_string_equal(pstr(&cfg->routes[i].prefix), subnet[i]);
		assert_int_equal(cfg->routes[i].n_nexthops, 1);
		assert_string_equal(istr(&cfg->routes[i].nexthops[0]), want);
		assert_false(cfg->routes[i].has_port);
	}
	/* Fewer ports than leaves: the first leaves only. */
	cfg->n_ports = 3;
	assert_int_equal(rsw_topology_derive(cfg, &sw, &e), 0);
	assert_int_equal(sw.n_routes, 3);
	rsw_config_free(cfg);
}

/* Rail-only: leaf su 1 of rail 2 (L = 1); spine p of rail 2 is plane 2 x 2 + p. */
static void
test_rail_only_leaf(void **state)
{
	struct rsw_config *cfg = expect_ok(RO_LEAF);
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch sw;

	(void)state;
	assert_int_equal(cfg->topology.design, RSW_TOPO_RAIL_ONLY);
	assert_string_equal(pstr(&cfg->ports[0].ipv4), "10.1.2.254/24");
	assert_string_equal(pstr(&cfg->ports[1].ipv4), "10.1.2.254/24");
	assert_string_equal(pstr(&cfg->ports[2].ipv4), "172.16.128.3/31"); /* 2 x (4 x 4096 + 1) */
	assert_string_equal(pstr(&cfg->ports[3].ipv4), "172.16.160.3/31"); /* 2 x (5 x 4096 + 1) */
	assert_int_equal(rsw_topology_derive(cfg, &sw, &e), 0);
	assert_string_equal(sw.name, "leaf-su1-r2");
	/* 2 SUs x 2 uplinks fit one spine of radix 64: both uplinks reach spine-r2-0, at its
	 * ports k = su x 2 + p. */
	assert_string_equal(sw.ports[2].peer, "spine-r2-0");
	assert_string_equal(sw.ports[2].peer_port, "down2");
	assert_string_equal(sw.ports[3].peer, "spine-r2-0");
	assert_string_equal(sw.ports[3].peer_port, "down3");
	assert_string_equal(sw.ports[1].peer, "server-su1-1");
	assert_string_equal(sw.ports[1].peer_port, "nic2");
	assert_int_equal(cfg->n_routes, 3);
	assert_string_equal(pstr(&cfg->routes[0].prefix), "10.1.2.1/32");
	assert_string_equal(pstr(&cfg->routes[1].prefix), "10.1.2.2/32");
	assert_int_equal(cfg->routes[1].port, 1);
	assert_string_equal(pstr(&cfg->routes[2].prefix), "10.0.0.0/8");
	assert_string_equal(istr(&cfg->routes[2].nexthops[0]), "172.16.128.2");
	assert_string_equal(istr(&cfg->routes[2].nexthops[1]), "172.16.160.2");
	rsw_config_free(cfg);
}

static void
test_rail_only_spine(void **state)
{
	struct rsw_config *cfg = expect_ok(RO_SPINE);
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch sw;

	(void)state;
	/* Port k = su x 2 + p: the /31 of (su, p) at 2 x ((2 x 2 + p) x 4096 + su). */
	assert_string_equal(pstr(&cfg->ports[0].ipv4), "172.16.128.0/31");
	assert_string_equal(pstr(&cfg->ports[1].ipv4), "172.16.160.0/31");
	assert_string_equal(pstr(&cfg->ports[2].ipv4), "172.16.128.2/31");
	assert_string_equal(pstr(&cfg->ports[3].ipv4), "172.16.160.2/31");
	assert_int_equal(rsw_topology_derive(cfg, &sw, &e), 0);
	assert_string_equal(sw.name, "spine-r2-0");
	assert_string_equal(sw.ports[0].peer, "leaf-su0-r2");
	assert_string_equal(sw.ports[1].peer, "leaf-su0-r2");
	assert_string_equal(sw.ports[1].peer_port, "up1");
	assert_string_equal(sw.ports[2].peer, "leaf-su1-r2");
	assert_string_equal(sw.ports[2].peer_port, "up0");
	/* Only the leaves of its rail, each over its two parallel links. */
	assert_int_equal(cfg->n_routes, 2);
	assert_string_equal(pstr(&cfg->routes[0].prefix), "10.0.2.0/24");
	assert_int_equal(cfg->routes[0].n_nexthops, 2);
	assert_string_equal(istr(&cfg->routes[0].nexthops[0]), "172.16.128.1");
	assert_string_equal(istr(&cfg->routes[0].nexthops[1]), "172.16.160.1");
	assert_string_equal(pstr(&cfg->routes[1].prefix), "10.1.2.0/24");
	assert_string_equal(istr(&cfg->routes[1].nexthops[0]), "172.16.128.3");
	assert_string_equal(istr(&cfg->routes[1].nexthops[1]), "172.16.160.3");
	rsw_config_free(cfg);
}

/* Counts and helpers of both designs. */
static void
test_counts(void **state)
{
	struct rsw_cfg_topology t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	struct rsw_prefix s, l;
	char buf[RSW_NAME_LEN];

	(void)state;
	assert_int_equal(rsw_topology_n_leaves(&t), 8);
	assert_int_equal(rsw_topology_n_spines(&t), 2);
	assert_int_equal(rsw_topology_leaf_ports(&t), 6);
	assert_int_equal(rsw_topology_spine_ports(&t), 8);
	assert_int_equal(rsw_topology_leaf_index(&t, 1, 3), 7);
	rsw_topology_link(&t, 1, 3, 1, &s, &l);
	assert_string_equal(pstr(&s), "172.16.32.14/31");
	assert_string_equal(pstr(&l), "172.16.32.15/31");
	rsw_topology_link(&t, 0, 0, 0, &s, NULL);
	assert_string_equal(pstr(&s), "172.16.0.0/31");
	rsw_topology_host(&t, 1, 2, 3, &s);
	assert_string_equal(pstr(&s), "10.1.2.4/24");
	rsw_topology_gateway(&t, 1, 2, &s);
	assert_string_equal(pstr(&s), "10.1.2.254/24");
	assert_string_equal(rsw_topology_spine_name(&t, 3, 1, buf, sizeof(buf)), "spine-1");
	assert_string_equal(rsw_topology_server_name(1, 3, buf, sizeof(buf)), "server-su1-3");
	assert_string_equal(rsw_topology_design_name(t.design), "rail-optimized");

	t = topo(RSW_TOPO_RAIL_ONLY);
	assert_int_equal(rsw_topology_n_leaves(&t), 8);
	assert_int_equal(rsw_topology_spines_per_rail(&t), 1); /* 2 SUs x 2 uplinks <= 64 */
	assert_int_equal(rsw_topology_n_spines(&t), 4);
	assert_int_equal(rsw_topology_leaf_ports(&t), 6);
	assert_int_equal(rsw_topology_spine_ports(&t), 4);
	assert_int_equal(rsw_topology_leaf_index(&t, 1, 3), 1);
	rsw_topology_link(&t, 1, 3, 1, &s, &l); /* 2 x ((3 x 2 + 1) x 4096 + 1) = 57346 */
	assert_string_equal(pstr(&s), "172.16.224.2/31");
	assert_string_equal(pstr(&l), "172.16.224.3/31");
	assert_string_equal(rsw_topology_spine_name(&t, 3, 1, buf, sizeof(buf)), "spine-r3-1");
	assert_string_equal(rsw_topology_design_name(t.design), "rail-only");

	/* The largest fabric: the last link ends the /12 exactly... within it. */
	t = topo(RSW_TOPO_RAIL_OPTIMIZED);
	t.sus = 256;
	t.rails = 16;
	t.spines = 128;
	t.servers_per_su = 8;
	t.radix = 4096;
	assert_int_equal(rsw_topology_check(&t, true, NULL), 0);
	rsw_topology_link(&t, 255, 15, 127, &s, &l);
	assert_string_equal(pstr(&l), "172.31.255.255/31");
}

/* An explicit ipv4 wins; so does a static route. */
static void
test_explicit_wins(void **state)
{
	struct rsw_config *cfg;
	struct rsw_topo_error e = {0};
	struct rsw_topo_switch sw;
	const char *y;

	(void)state;
	/* Uplink u0 on its own /31: the spine is the other address. */
	y = rep(LEAF, "name: u0, devargs: t4,", "name: u0, devargs: t4, ipv4: 192.168.7.1/31,");
	cfg = expect_ok(y);
	assert_string_equal(pstr(&cfg->ports[4].ipv4), "192.168.7.1/31");
	assert_false(cfg->ports[4].ipv4_derived);
	assert_string_equal(pstr(&cfg->ports[5].ipv4), "172.16.32.3/31");
	assert_string_equal(istr(&cfg->routes[4].nexthops[0]), "192.168.7.0");
	assert_string_equal(istr(&cfg->routes[4].nexthops[1]), "172.16.32.2");
	assert_int_equal(rsw_topology_derive(cfg, &sw, &e), 0);
	assert_true(sw.ports[4].explicit_ipv4);
	rsw_config_free(cfg);

	/* Uplink on a wider subnet that holds the derived spine address: kept, same peer. */
	cfg = expect_ok(
		rep(LEAF, "name: u0, devargs: t4,", "name: u0, devargs: t4, ipv4: 172.16.0.1/30,"));
	assert_string_equal(istr(&cfg->routes[4].nexthops[0]), "172.16.0.2");
	rsw_config_free(cfg);

	/* Downlink d1 on another subnet: no host route for server 1. */
	cfg = expect_ok(
		rep(LEAF, "name: d1, devargs: t1,", "name: d1, devargs: t1, ipv4: 10.77.0.1/24,"));
	assert_string_equal(pstr(&cfg->ports[1].ipv4), "10.77.0.1/24");
	assert_int_equal(cfg->n_routes, 4);
	assert_string_equal(pstr(&cfg->routes[1].prefix), "10.0.1.3/32");
	rsw_config_free(cfg);

	/* The derived gateway written out is the same thing. */
	cfg = expect_ok(
		rep(LEAF, "name: d0, devargs: t0,", "name: d0, devargs: t0, ipv4: 10.0.1.254/24,"));
	assert_int_equal(cfg->n_routes, 5);
	assert_false(cfg->ports[0].ipv4_derived);
	assert_true(cfg->ports[1].ipv4_derived);
	rsw_config_free(cfg);

	/* A static route for the same prefix replaces the derived one. */
	cfg = expect_ok(LEAF "routes:\n  - { prefix: 10.0.0.0/8, nexthops: [172.16.0.2] }\n");
	assert_int_equal(cfg->n_routes, 5);
	assert_false(cfg->routes[0].derived);
	assert_int_equal(cfg->routes[0].n_nexthops, 1);
	assert_int_equal(cfg->routes[4].derived, true);
	assert_string_equal(pstr(&cfg->routes[4].prefix), "10.0.1.4/32");
	rsw_config_free(cfg);

	/* Static routes may use derived subnets; ports without a role are left alone. */
	cfg = expect_ok(rep(LEAF, "topology:\n",
			    "  - { name: m0, devargs: t9, ipv4: 192.168.0.1/24 }\ntopology:\n"));
	rsw_config_free(cfg);
	cfg = expect_ok(LEAF "routes:\n  - { prefix: 99.0.0.0/8, nexthops: [172.16.32.2] }\n");
	assert_int_equal(cfg->n_routes, 6);
	rsw_config_free(cfg);
}

/* Servers of one leaf reach each other through the switch: it answers ARP for them. */
static void
test_proxy_arp(void **state)
{
	struct rsw_config *cfg = expect_ok(LEAF);
	struct rsw_ip ip = {.family = RSW_AF_INET, .addr = {10, 0, 1, 3}};

	(void)state;
	assert_false(rsw_topology_proxy_arp(NULL, 0, &ip));
	assert_false(rsw_topology_proxy_arp(cfg, 0, NULL));
	assert_false(rsw_topology_proxy_arp(cfg, 99, &ip));
	assert_true(rsw_topology_proxy_arp(cfg, 0, &ip));  /* server 2 asked on d0 */
	assert_false(rsw_topology_proxy_arp(cfg, 2, &ip)); /* on its own port: it answers */
	assert_false(rsw_topology_proxy_arp(cfg, 4, &ip)); /* an uplink */
	ip.addr[3] = 254;
	assert_false(rsw_topology_proxy_arp(cfg, 0, &ip)); /* the switch itself */
	ip.addr[3] = 9;
	assert_false(rsw_topology_proxy_arp(cfg, 0, &ip)); /* no such server */
	ip.addr[2] = 2;
	ip.addr[3] = 1;
	assert_false(rsw_topology_proxy_arp(cfg, 0, &ip)); /* another subnet */
	rsw_config_free(cfg);

	cfg = expect_ok(SPINE);
	ip.addr[2] = 1;
	assert_false(rsw_topology_proxy_arp(cfg, 0, &ip));
	rsw_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_bad),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_rail_optimized_leaf),
		cmocka_unit_test(test_rail_optimized_leaf2),
		cmocka_unit_test(test_rail_optimized_spine),
		cmocka_unit_test(test_rail_only_leaf),
		cmocka_unit_test(test_rail_only_spine),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_explicit_wins),
		cmocka_unit_test(test_proxy_arp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
