/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of BGP unnumbered (RFC 8950) next hops from the FPM RIB to the forwarding
 * tables (control/fpm/fpm_rib.c, control/tables/tables.c, control/neigh/neigh.c): an IPv4
 * route zebra sends over two unnumbered sessions on two ports, RTA_MULTIPATH with two
 * next hops that are both 169.254.0.1 on-link, told apart only by their RTA_OIF. The kernel
 * interfaces are stood in for (the linker's --wrap of rsw_kif_port_of_ifindex and
 * rsw_kif_ll_neighbor): ifindex 7 is port p0, 8 is p1, and each port has heard one
 * link-local neighbour. The route must be active with two members on the two ports, each
 * resolved to the MAC heard on its own port, also when both peers use the same link-local
 * address (a router with one system MAC, or fe80::1 configured on every link).
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
#include "fpm_priv.h"

static const char base[] = "switch: { name: ut }\n"
			   "ports:\n"
			   "  - { name: p0, devargs: net_null0 }\n"
			   "  - { name: p1, devargs: net_null1 }\n";

/* --- the kernel interfaces, stood in for --- */

#define IFX_P0 7
#define IFX_P1 8

static struct {
	bool heard;
	uint8_t ip[16];
	uint8_t mac[6];
} ll[2];

int __wrap_rsw_kif_port_of_ifindex(int ifindex);
int __wrap_rsw_kif_ll_neighbor(uint16_t p, const uint8_t *ip, uint8_t *ip_out, uint8_t *mac);

int
__wrap_rsw_kif_port_of_ifindex(int ifindex)
{
	return ifindex == IFX_P0 ? 0 : ifindex == IFX_P1 ? 1 : -1;
}

int
__wrap_rsw_kif_ll_neighbor(uint16_t p, const uint8_t *ip, uint8_t *ip_out, uint8_t *mac)
{
	if (p >= 2 || !ll[p].heard || (ip != NULL && memcmp(ip, ll[p].ip, 16) != 0))
		return -ENOENT;
	if (ip_out != NULL)
		memcpy(ip_out, ll[p].ip, 16);
	if (mac != NULL)
		memcpy(mac, ll[p].mac, 6);
	return 0;
}

static void
hear(uint16_t p, const char *ip, uint8_t mac_last)
{
	const uint8_t mac[6] = {0x02, 0x52, 0, 0, 0, mac_last};

	ll[p].heard = true;
	assert_int_equal(inet_pton(AF_INET6, ip, ll[p].ip), 1);
	memcpy(ll[p].mac, mac, 6);
}

/* --- the FPM RIB as the route source --- */

static struct fpm_rib *rib;

static uint32_t
src_count(void)
{
	return fpm_rib_count(rib);
}

static struct rsw_ctl_route *
src_get(uint32_t i)
{
	return fpm_rib_get(rib, i);
}

static struct rsw_ctl_route *
src_find(const struct rsw_prefix *p)
{
	return fpm_rib_find(rib, p);
}

static const struct rsw_ctl_route_source src = {src_count, src_get, src_find};

static int
setup(void **state)
{
	(void)state;
	memset(ll, 0, sizeof(ll));
	ct_start(base);
	rib = fpm_rib_new(16);
	assert_non_null(rib);
	rsw_ctl_tables_set_source(&src);
	return 0;
}

static int
teardown(void **state)
{
	rsw_ctl_tables_set_source(NULL);
	fpm_rib_free(rib);
	rib = NULL;
	ct_flush();
	return ct_stop(state);
}

/* RTM_NEWROUTE 10.b.0.0/16, proto bgp, RTA_MULTIPATH: 169.254.0.1 onlink over each oif. */
static void
send_route_b(uint8_t b, const uint32_t *oif, uint16_t n)
{
	struct rsw_fpm_msg m = {.op = RSW_FPM_OP_ROUTE_ADD};
	char err[RSW_FPM_ERR_LEN];
	uint16_t i;

	m.nl_type = RSW_RTM_NEWROUTE;
	m.route.prefix.ip.family = RSW_AF_INET;
	m.route.prefix.ip.addr[0] = 10;
	m.route.prefix.ip.addr[1] = b;
	m.route.prefix.len = 16;
	m.route.protocol = RSW_RTPROT_BGP;
	m.route.type = RSW_RTN_UNICAST;
	m.route.table = RSW_FPM_MAIN_TABLE;
	m.route.n_nh = n;
	for (i = 0; i < n; i++) {
		m.route.nh[i].gw.family = RSW_AF_INET;
		assert_int_equal(inet_pton(AF_INET, "169.254.0.1", m.route.nh[i].gw.addr), 1);
		m.route.nh[i].oif = oif[i];
		m.route.nh[i].weight = 1;
		m.route.nh[i].onlink = true;
	}
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_ADDED);
}

static void
send_route(const uint32_t *oif, uint16_t n)
{
	send_route_b(4, oif, n);
}

static void
publish(void)
{
	char err[RSW_CFG_ERR_LEN];
	struct rsw_tables *t =
		rsw_ctl_tables_build(rsw_ctl.cfg, ++rsw_ctl.generation, err, sizeof(err));

	if (t == NULL)
		print_error("%s\n", err);
	assert_non_null(t);
	rsw_tables_publish(t);
}

static const struct rsw_ctl_route *
route(void)
{
	struct rsw_prefix p = {.ip = {.family = RSW_AF_INET, .addr = {10, 4}}, .len = 16};

	return fpm_rib_find(rib, &p);
}

/*
 * 10.4.0.0/16's group in the published tables: two members, on ports 0 and 1 (in either
 * order), each with its own neighbour entry on that port holding that port's MAC.
 */
static void
expect_two_ports(void)
{
	const struct rsw_tables *t = rsw_fib_main.tables;
	const struct rsw_result *r = ct_route4(10, 4, 1, 1);
	const struct rsw_group *g;
	bool seen[2] = {false, false};
	uint32_t j, neigh[2];

	assert_true(route()->active);
	assert_int_equal(route()->n_resolved, 2);
	assert_non_null(r);
	assert_int_equal(r->type, RSW_RES_GROUP);
	assert_int_equal(r->single, 0);
	g = &t->groups[r->id];
	assert_int_equal(g->n_members, 2);
	for (j = 0; j < 2; j++) {
		uint16_t p = g->ports[j];
		uint64_t want = RSW_NEIGH_VALID;

		assert_true(p < 2);
		assert_false(seen[p]);
		seen[p] = true;
		assert_int_equal(t->nh[g->members[j]].port, p);
		neigh[j] = t->nh[g->members[j]].neigh;
		assert_int_equal(rsw_fib_main.neigh[neigh[j]].port, p);
		memcpy(&want, ll[p].mac, 6);
		want |= RSW_NEIGH_VALID;
		assert_int_equal(rsw_fib_main.neigh[neigh[j]].mac_valid, want);
	}
	assert_int_not_equal(neigh[0], neigh[1]);
}

/* Two peers with their own link-local addresses: two next hops, one per port. */
static void
test_multipath_distinct_ll(void **state)
{
	const uint32_t oif[2] = {IFX_P0, IFX_P1};

	(void)state;
	hear(0, "fe80::52:1", 0x01);
	hear(1, "fe80::52:2", 0x02);
	send_route(oif, 2);
	publish();
	expect_two_ports();
}

/* Both peers on fe80::1 (one address on every link, as many routers have): still two. */
static void
test_multipath_same_ll(void **state)
{
	const uint32_t oif[2] = {IFX_P0, IFX_P1};

	(void)state;
	hear(0, "fe80::1", 0x01);
	hear(1, "fe80::1", 0x02);
	send_route(oif, 2);
	publish();
	expect_two_ports();
}

/* The second port's peer heard only after the route came: one next hop, then two. */
static void
test_multipath_ll_heard_late(void **state)
{
	const uint32_t oif[2] = {IFX_P0, IFX_P1};
	const struct rsw_result *r;

	(void)state;
	hear(0, "fe80::52:1", 0x01);
	send_route(oif, 2);
	publish();
	assert_true(route()->active);
	assert_int_equal(route()->n_resolved, 1);
	r = ct_route4(10, 4, 1, 1);
	assert_non_null(r);
	assert_int_equal(r->single, 1);
	assert_int_equal(r->port, 0);
	hear(1, "fe80::52:2", 0x02);
	publish();
	expect_two_ports();
}

/* One route over each port, both peers fe80::1: two groups, not one shared by both. */
static void
test_single_paths_same_ll(void **state)
{
	const uint32_t oif0 = IFX_P0, oif1 = IFX_P1;
	const struct rsw_result *r0, *r1;

	(void)state;
	hear(0, "fe80::1", 0x01);
	hear(1, "fe80::1", 0x02);
	send_route_b(5, &oif0, 1);
	send_route_b(6, &oif1, 1);
	publish();
	r0 = ct_route4(10, 5, 1, 1);
	r1 = ct_route4(10, 6, 1, 1);
	assert_non_null(r0);
	assert_non_null(r1);
	assert_int_equal(r0->single, 1);
	assert_int_equal(r1->single, 1);
	assert_int_equal(r0->port, 0);
	assert_int_equal(r1->port, 1);
	assert_int_not_equal(r0->neigh, r1->neigh);
	assert_int_equal(rsw_fib_main.neigh[r1->neigh].port, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_multipath_distinct_ll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multipath_same_ll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multipath_ll_heard_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_paths_same_ll, setup, teardown),
	};
	int ret;

	if (ct_eal_init("unnum") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
