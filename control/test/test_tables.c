/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of table building (control/tables/tables.c, rsw_ctl_tables_build) at its
 * limits (docs/reliability.md "Table limits"): a next hop no port reaches, a neighbour table
 * filled by learned hosts (also at reload: refused, the running tables stay), more distinct
 * next-hop groups than RSW_MAX_GROUPS and the IPv6 FIB's tbl8 groups (the known gap) each
 * give a clear error and no tables, never a crash; exactly RSW_MAX_GROUPS groups build. Then
 * what a good configuration builds: local and connected routes per port address, routes
 * with the same next hops sharing one group; a route source (FPM) against the configuration's
 * routes and the ports' subnets, by distance.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>
#include <jansson.h>

#include "ctl_test.h"
#include "rsw_reload.h"

static const char base[] = "switch: { name: ut }\n"
			   "ports:\n"
			   "  - { name: p0, devargs: net_null0, ipv4: 10.0.0.254/19 }\n"
			   "  - { name: p1, devargs: net_null1, ipv4: 10.0.32.254/24,"
			   " ipv6: fd00:2::fe/64 }\n"
			   "routes:\n"
			   "  - { prefix: 10.9.0.0/16, nexthops: [10.0.32.1, 10.0.32.2] }\n"
			   "  - { prefix: 10.8.0.0/16, nexthops: [10.0.32.1, 10.0.32.2] }\n"
			   "  - { prefix: 10.7.0.0/16, nexthops: [10.0.32.1] }\n";

/* A growing text. */
struct text {
	char *s;
	size_t len, cap;
};

static void
add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->cap - t->len < 256) {
		t->cap = t->cap ? 2 * t->cap : 65536;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	va_start(ap, fmt);
	n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < t->cap - t->len);
	t->len += (size_t)n;
}

static int
setup(void **state)
{
	(void)state;
	ct_start(base);
	return 0;
}

/* Load yaml (as file name); the configuration. */
static struct rsw_config *
load(const char *name, const char *yaml)
{
	char path[128], err[RSW_CFG_ERR_LEN];
	struct rsw_config *cfg;

	ct_write(name, yaml, path);
	cfg = rsw_config_load(path, err, sizeof(err));
	if (cfg == NULL)
		print_error("%s\n", err);
	assert_non_null(cfg);
	return cfg;
}

/* Building cfg fails with exactly msg, or with suffix: a message from msg to suffix. */
static void
expect_build_error(const struct rsw_config *cfg, const char *msg, const char *suffix)
{
	char err[RSW_CFG_ERR_LEN] = "";
	struct rsw_tables *t = rsw_ctl_tables_build(cfg, 99, err, sizeof(err));
	size_t n = strlen(err), k = suffix != NULL ? strlen(suffix) : 0;

	assert_null(t);
	if (suffix == NULL) {
		assert_string_equal(err, msg);
		return;
	}
	if (strncmp(err, msg, strlen(msg)) != 0 || n < k || strcmp(err + n - k, suffix) != 0)
		print_error("expected: %s...%s\n     got: %s\n", msg, suffix, err);
	assert_int_equal(strncmp(err, msg, strlen(msg)), 0);
	assert_true(n >= k);
	assert_string_equal(err + n - k, suffix);
}

/* -- limits -- */

static void
test_nexthop_unreachable(void **state)
{
	struct rsw_config *cfg = load("t.yaml", base);
	struct rsw_ip *nh = &cfg->routes[1].nexthops[1];
	char err[RSW_CFG_ERR_LEN];
	struct rsw_tables *t;

	(void)state;
	/* The loader refuses such a file; a configuration changed after it is refused here. */
	nh->addr[2] = 99; /* 10.0.99.2: no port's subnet, no static neighbour */
	expect_build_error(cfg, "route 10.8.0.0/16: next hop 10.0.99.2 is not reachable", NULL);
	nh->addr[2] = 32;
	t = rsw_ctl_tables_build(cfg, 99, err, sizeof(err));
	assert_non_null(t);
	rsw_tables_free(t);
	rsw_config_free(cfg);
}

static void
test_neigh_table_full(void **state)
{
	const uint8_t mac[6] = {0x02, 0x55, 0, 0, 0, 1};
	struct rsw_config *cfg;
	struct rsw_ip ip = {.family = RSW_AF_INET, .addr = {10, 0, 0, 0}};
	uint32_t i, learned = 0;
	struct rsw_tables *t;
	char err[RSW_CFG_ERR_LEN], path[128];
	json_t *r;

	(void)state;
	/* Hosts of p0's /19 learned until the table is full: 4096 with the 2 next hops. */
	for (i = 1; i < 8192; i++) {
		ip.addr[2] = (uint8_t)(i >> 8);
		ip.addr[3] = (uint8_t)i;
		if (i == 254)
			continue; /* the switch's own */
		if (rsw_ctl_neigh_learn(&ip, 0, mac, true) < 0)
			break;
		learned++;
	}
	assert_int_equal(learned + 2, RSW_MAX_NEIGHBORS);

	/* A generation whose next hops are known builds; one that needs a new entry cannot. */
	cfg = load("t.yaml", base);
	t = rsw_ctl_tables_build(cfg, 2, err, sizeof(err));
	assert_non_null(t);
	rsw_tables_free(t);
	rsw_config_free(cfg);
	cfg = load("t.yaml", ct_rep(base, "nexthops: [10.0.32.1] }", "nexthops: [10.0.32.3] }"));
	expect_build_error(cfg, "route 10.7.0.0/16: neighbour table full (4096 entries)", NULL);
	rsw_config_free(cfg);

	/* At reload: the running file still builds; the other is refused, and nothing changes. */
	r = rsw_ctl_reload(NULL);
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	assert_int_equal(rsw_ctl.generation, 2);
	ct_write("full.yaml", ct_rep(base, "nexthops: [10.0.32.1] }", "nexthops: [10.0.32.3] }"),
		 path);
	r = rsw_ctl_reload(path);
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "route 10.7.0.0/16: neighbour table full (4096 entries)");
	json_decref(r);
	assert_int_equal(rsw_ctl.generation, 2);
	assert_int_equal(rsw_fib_main.tables->generation, 2);
	assert_non_null(ct_route4(10, 7, 1, 1));
	ct_flush();
}

/* A configuration of n routes 10.x.y.0/24, route i via 10.0.(i / 250).(i % 250 + 1). */
static char *
many_groups(uint32_t n)
{
	struct text t = {0};
	uint32_t i;

	add(&t, "switch: { name: ut }\nports:\n"
		"  - { name: p0, devargs: net_null0, ipv4: 10.0.0.254/19 }\nroutes:\n");
	for (i = 0; i < n; i++)
		add(&t, "  - { prefix: 10.%u.%u.0/24, nexthops: [10.0.%u.%u] }\n", 100 + i / 256,
		    i % 256, i / 250, i % 250 + 1);
	return t.s;
}

static void
test_groups_at_and_beyond_limit(void **state)
{
	char *yaml = many_groups(RSW_MAX_GROUPS + 1), *last;
	char err[RSW_CFG_ERR_LEN];
	struct rsw_config *cfg;
	struct rsw_tables *t;

	(void)state;
	/* The last route shares the first one's next hop: RSW_MAX_GROUPS groups, loaded. */
	last = strrchr(yaml, '[');
	assert_non_null(last);
	memcpy(last, "[10.0.0.1]  }\n", 15);
	cfg = load("groups.yaml", yaml);
	t = rsw_ctl_tables_build(cfg, 2, err, sizeof(err));
	if (t == NULL)
		print_error("%s\n", err);
	assert_non_null(t);
	assert_int_equal(t->n_groups, RSW_MAX_GROUPS);
	assert_int_equal(t->groups[0].n_routes, 2);
	rsw_tables_free(t);

	/* One more distinct group than the tables hold (the loader would have refused it). */
	cfg->routes[RSW_MAX_GROUPS].nexthops[0].addr[3] = 252;
	expect_build_error(
		cfg, "route 10.104.0.0/24: too many distinct next-hop groups, at most 1024", NULL);
	rsw_config_free(cfg);
	free(yaml);
	ct_flush();
}

static void
test_ipv6_tbl8_exhausted(void **state)
{
	struct text y = {0};
	struct rsw_config *cfg;
	uint32_t i;

	(void)state;
	/* /128s in distinct /24s take 13 tbl8 groups each: 8192 run out before 700 routes. */
	add(&y, "%s", base);
	for (i = 0; i < 700; i++)
		add(&y, "  - { prefix: %x:%x00::1/128, nexthops: [fd00:2::1] }\n", 0x2a00 + i / 256,
		    i % 256);
	cfg = load("v6.yaml", y.s);
	expect_build_error(cfg, "route 2a0", ": cannot add: No space left on device");
	rsw_config_free(cfg);
	free(y.s);
}

/* -- what is built -- */

static void
test_routes_built(void **state)
{
	const struct rsw_tables *t = rsw_fib_main.tables;
	const struct rsw_result *r;
	uint32_t g9, g8;

	(void)state;
	/* The port addresses: local, their subnets connected. */
	r = ct_route4(10, 0, 0, 254);
	assert_non_null(r);
	assert_int_equal(r->type, RSW_RES_LOCAL);
	assert_int_equal(r->port, 0);
	r = ct_route4(10, 0, 31, 9);
	assert_non_null(r);
	assert_int_equal(r->type, RSW_RES_CONNECTED);
	assert_int_equal(r->port, 0);
	r = ct_route4(10, 0, 32, 9);
	assert_non_null(r);
	assert_int_equal(r->type, RSW_RES_CONNECTED);
	assert_int_equal(r->port, 1);
	assert_null(ct_route4(10, 0, 33, 1));
	assert_null(ct_route4(10, 6, 0, 1));

	/* Equal next hops share a group; a single one is a plain route with its neighbour. */
	g9 = ct_route4(10, 9, 0, 1)->id;
	g8 = ct_route4(10, 8, 0, 1)->id;
	assert_int_equal(g9, g8);
	assert_int_equal(t->n_groups, 2);
	assert_int_equal(t->groups[g9].n_members, 2);
	assert_int_equal(t->groups[g9].n_routes, 2);
	r = ct_route4(10, 7, 0, 1);
	assert_int_equal(r->type, RSW_RES_GROUP);
	assert_int_equal(r->single, 1);
	assert_int_equal(r->port, 1);
	assert_int_equal(r->neigh, ct_neigh4(10, 0, 32, 1));
	assert_int_equal(t->nh[t->groups[g9].members[1]].neigh, ct_neigh4(10, 0, 32, 2));
	ct_flush();
}

/* The TCs that hash through a group of two members (hash_tcs), under the load_balance mode lb. */
static uint8_t
group_hash_tcs(const char *lb)
{
	char yaml[1024], err[RSW_CFG_ERR_LEN];
	struct rsw_config *cfg;
	struct rsw_tables *t;
	uint8_t tcs = 0xaa;
	uint32_t g;

	snprintf(yaml, sizeof(yaml), "%sload_balance: %s\n", base, lb);
	cfg = load("lb.yaml", yaml);
	t = rsw_ctl_tables_build(cfg, 99, err, sizeof(err));
	assert_non_null(t);
	for (g = 0; g < t->n_groups; g++)
		if (t->groups[g].n_members == 2)
			tcs = t->groups[g].hash_tcs;
	rsw_tables_free(t);
	rsw_config_free(cfg);
	return tcs;
}

/* Resolve's shortcut is the mode of each TC: hash everywhere, but for a TC that sprays. */
static void
test_group_hash_tcs(void **state)
{
	(void)state;
	assert_int_equal(group_hash_tcs("{ mode: hash }"), 0xff);
	assert_int_equal(group_hash_tcs("{ mode: hash, per_tc: { 3: spray } }"), 0xf7);
	assert_int_equal(group_hash_tcs("{ mode: spray, per_tc: { 0: hash, 7: flowlet } }"), 0x01);
	assert_int_equal(group_hash_tcs("{ mode: spray }"), 0);
}

/* -- a route source (FPM) and precedence -- */

static struct rsw_ctl_route src_routes[4];
static uint32_t n_src;

static uint32_t
src_count(void)
{
	return n_src;
}

static struct rsw_ctl_route *
src_get(uint32_t i)
{
	return &src_routes[i];
}

static struct rsw_ctl_route *
src_find(const struct rsw_prefix *p)
{
	uint32_t i;

	for (i = 0; i < n_src; i++)
		if (src_routes[i].r.prefix.len == p->len &&
		    memcmp(&src_routes[i].r.prefix.ip, &p->ip, sizeof(p->ip)) == 0)
			return &src_routes[i];
	return NULL;
}

static const struct rsw_ctl_route_source src = {src_count, src_get, src_find};

static void
src_route(uint32_t i, uint8_t b, uint8_t c, uint8_t len, uint8_t distance, const char *gw1,
	  const char *gw2)
{
	struct rsw_ctl_route *r = &src_routes[i];

	memset(r, 0, sizeof(*r));
	r->r.prefix.ip.family = RSW_AF_INET;
	r->r.prefix.ip.addr[0] = 10;
	r->r.prefix.ip.addr[1] = b;
	r->r.prefix.ip.addr[2] = c;
	r->r.prefix.len = len;
	r->r.lb = RSW_LB_UNSET;
	r->source = "bgp";
	r->distance = distance;
	if (gw1 != NULL) {
		r->r.nexthops[0].family = RSW_AF_INET;
		assert_int_equal(inet_pton(AF_INET, gw1, r->r.nexthops[0].addr), 1);
		r->r.weights[r->r.n_nexthops++] = 1;
	}
	if (gw2 != NULL) {
		r->r.nexthops[1].family = RSW_AF_INET;
		assert_int_equal(inet_pton(AF_INET, gw2, r->r.nexthops[1].addr), 1);
		r->r.weights[r->r.n_nexthops++] = 1;
	}
}

static void
test_route_source_precedence(void **state)
{
	const struct rsw_result *r;

	(void)state;
	/* 10.9/16 loses to the static route (1 < 20); 10.0.32/24 is p1's subnet; 10.5/16 keeps
	 * its one reachable next hop; 10.4/16 over 169.254.0.1 (RFC 8950) has none. */
	src_route(0, 9, 0, 16, 20, "10.0.32.3", NULL);
	src_route(1, 0, 32, 24, 20, "10.0.0.1", NULL);
	src_route(2, 5, 0, 16, 20, "10.0.32.1", "169.254.0.1");
	src_route(3, 4, 0, 16, 20, "169.254.0.1", NULL);
	n_src = 4;
	rsw_ctl_tables_set_source(&src);
	ct_publish();
	assert_false(src_routes[0].active);
	assert_false(src_routes[1].active);
	assert_true(src_routes[2].active);
	assert_int_equal(src_routes[2].n_resolved, 1);
	assert_false(src_routes[3].active);
	assert_int_equal(src_routes[3].n_resolved, 0);
	assert_true(rsw_ctl_cfg_route_active(rsw_ctl.cfg, 0));
	assert_int_equal(ct_route4(10, 9, 0, 1)->single, 0); /* the static 2-way group */
	assert_int_equal(ct_route4(10, 0, 32, 9)->type, RSW_RES_CONNECTED);
	r = ct_route4(10, 5, 0, 1);
	assert_non_null(r);
	assert_int_equal(r->single, 1);
	assert_int_equal(r->neigh, ct_neigh4(10, 0, 32, 1));
	assert_null(ct_route4(10, 4, 0, 1));

	/* A lower distance than the static route's: the source's route is installed. */
	src_routes[0].distance = 0;
	ct_publish();
	assert_true(src_routes[0].active);
	assert_false(rsw_ctl_cfg_route_active(rsw_ctl.cfg, 0));
	r = ct_route4(10, 9, 0, 1);
	assert_int_equal(r->single, 1);
	assert_int_equal(r->neigh, ct_neigh4(10, 0, 32, 3));
	/* Gone from the source: the static route again. */
	n_src = 0;
	ct_publish();
	assert_int_equal(ct_route4(10, 9, 0, 1)->single, 0);
	assert_null(ct_route4(10, 5, 0, 1));
	rsw_ctl_tables_set_source(NULL);
	ct_flush();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nexthop_unreachable, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_neigh_table_full, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_groups_at_and_beyond_limit, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_ipv6_tbl8_exhausted, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_routes_built, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_group_hash_tcs, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_route_source_precedence, setup, ct_stop),
	};
	int ret;

	if (ct_eal_init("tables") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
