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
 * address (a router with one system MAC, or fe80::1 configured on every link). Last, the
 * FPM server itself (fpm.c, fed over a TCP socket): a link-local neighbour heard for the
 * first time (rsw_kif_ll_heard, wrapped too) starts a build that resolves a next hop over a
 * port that had heard none, without waiting for zebra's next change.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>
#include <jansson.h>

#include "ctl_test.h"
#include "fpm_priv.h"
#include "rsw_fpm.h"

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
static uint64_t ll_heard; /* neighbours heard for the first time, as kif.c counts them */

int __wrap_rsw_kif_port_of_ifindex(int ifindex);
int __wrap_rsw_kif_ll_neighbor(uint16_t p, const uint8_t *ip, uint8_t *ip_out, uint8_t *mac);
uint64_t __wrap_rsw_kif_ll_heard(void);

uint64_t
__wrap_rsw_kif_ll_heard(void)
{
	return ll_heard;
}

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
	ll_heard++;
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
	/* The kernel interfaces' module registers its source so at start (kif.c). */
	rsw_ctl_neigh_set_ll_source(__wrap_rsw_kif_ll_neighbor);
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

static const struct rsw_ctl_route *
route(void)
{
	struct rsw_prefix p = {.ip = {.family = RSW_AF_INET, .addr = {10, 4}}, .len = 16};

	return fpm_rib_find(rib, &p);
}

/*
 * 10.4.0.0/16's group in the published tables (cr its route in the source): two members, on
 * ports 0 and 1 (in either order), each with its own neighbour entry on that port holding
 * that port's MAC.
 */
static void
expect_two_ports_of(const struct rsw_ctl_route *cr)
{
	const struct rsw_tables *t = rsw_fib_main.tables;
	const struct rsw_result *r = ct_route4(10, 4, 1, 1);
	const struct rsw_group *g;
	bool seen[2] = {false, false};
	uint32_t j, neigh[2];

	assert_non_null(cr);
	assert_true(cr->active);
	assert_int_equal(cr->n_resolved, 2);
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

static void
expect_two_ports(void)
{
	expect_two_ports_of(route());
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
	ct_publish();
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
	ct_publish();
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
	ct_publish();
	assert_true(route()->active);
	assert_int_equal(route()->n_resolved, 1);
	r = ct_route4(10, 4, 1, 1);
	assert_non_null(r);
	assert_int_equal(r->single, 1);
	assert_int_equal(r->port, 0);
	hear(1, "fe80::52:2", 0x02);
	ct_publish();
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
	ct_publish();
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

/* --- the FPM server: a route over a port that has heard no peer yet --- */

static int fpm_client = -1;

/* A free TCP port on 127.0.0.1 (bound, then let go). */
static uint16_t
free_tcp_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static int
setup_fpm(void **state)
{
	char yaml[512];
	uint16_t port = free_tcp_port();
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

	(void)state;
	memset(ll, 0, sizeof(ll));
	snprintf(yaml, sizeof(yaml), "%scontrol: { fpm: { listen: \"127.0.0.1:%u\" } }\n", base,
		 port);
	ct_start(yaml);
	assert_int_equal(rsw_fpm_open(rsw_ctl.cfg), 0);
	fpm_client = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fpm_client >= 0);
	assert_int_equal(connect(fpm_client, (struct sockaddr *)&a, sizeof(a)), 0);
	return 0;
}

static int
teardown_fpm(void **state)
{
	if (fpm_client >= 0)
		close(fpm_client);
	fpm_client = -1;
	rsw_fpm_close();
	ct_flush();
	return ct_stop(state);
}

static void
put_bytes(uint8_t *b, size_t *len, const void *p, size_t n)
{
	assert_true(*len + n <= 256);
	memcpy(b + *len, p, n);
	*len += n;
}

/*
 * What zebra's dplane_fpm_nl writes for 10.4.0.0/16 learnt over two unnumbered sessions: an
 * FPM frame holding RTM_NEWROUTE (host order), proto bgp, RTA_DST and an RTA_MULTIPATH of
 * 169.254.0.1 RTNH_F_ONLINK over ifindex 7 (p0) and 8 (p1).
 */
static void
zebra_sends_route(void)
{
	const uint8_t dst[4] = {10, 4, 0, 0}, gw[4] = {169, 254, 0, 1};
	const uint8_t rtm[12] = {2 /* AF_INET */, 16, 0, 0, 254, 186 /* bgp */, 0, 1};
	const uint16_t nl_type = 24 /* RTM_NEWROUTE */, nl_flags = 0x0500; /* CREATE|REPLACE */
	const uint32_t ifx[2] = {IFX_P0, IFX_P1}, z = 0;
	uint16_t alen, atype, mp_at, nl_at;
	uint8_t b[256];
	size_t len = 4;
	unsigned int i;

	b[0] = 1; /* FPM version */
	b[1] = 1; /* netlink */
	nl_at = (uint16_t)len;
	put_bytes(b, &len, &z, 4); /* nlmsg_len, set below */
	put_bytes(b, &len, &nl_type, 2);
	put_bytes(b, &len, &nl_flags, 2);
	put_bytes(b, &len, &z, 4);
	put_bytes(b, &len, &z, 4);
	put_bytes(b, &len, rtm, sizeof(rtm));
	alen = 8;
	atype = 1; /* RTA_DST */
	put_bytes(b, &len, &alen, 2);
	put_bytes(b, &len, &atype, 2);
	put_bytes(b, &len, dst, 4);
	mp_at = (uint16_t)len;
	alen = 4 + 2 * (8 + 8);
	atype = 9; /* RTA_MULTIPATH */
	put_bytes(b, &len, &alen, 2);
	put_bytes(b, &len, &atype, 2);
	for (i = 0; i < 2; i++) {
		const uint8_t rtnh[4] = {16, 0, 4 /* RTNH_F_ONLINK */, 0};

		put_bytes(b, &len, rtnh, 4);
		put_bytes(b, &len, &ifx[i], 4);
		alen = 8;
		atype = 5; /* RTA_GATEWAY */
		put_bytes(b, &len, &alen, 2);
		put_bytes(b, &len, &atype, 2);
		put_bytes(b, &len, gw, 4);
	}
	assert_int_equal(len - mp_at, 4 + 2 * (8 + 8));
	{
		uint32_t nl_len = (uint32_t)(len - nl_at);

		memcpy(b + nl_at, &nl_len, 4);
	}
	b[2] = (uint8_t)(len >> 8);
	b[3] = (uint8_t)len;
	assert_int_equal(write(fpm_client, b, len), (ssize_t)len);
}

/*
 * zebra sends 10.4.0.0/16 over p0 and p1 while only p0 has heard its peer: one member. p1's
 * peer is then heard for the first time and nothing else happens: the next poll builds a
 * generation with both members. A poll with nothing new, or a neighbour heard while every
 * next hop is resolved, builds none.
 */
static void
test_fpm_ll_heard_starts_build(void **state)
{
	const struct rsw_result *r;
	uint64_t now = 10000000, gens;
	int i;

	(void)state;
	hear(0, "fe80::52:1", 0x01);
	zebra_sends_route();
	for (i = 0; i < 20 && rsw_fpm_stats()->routes_added == 0; i++)
		rsw_fpm_poll(now += 100);
	assert_int_equal(rsw_fpm_stats()->routes_added, 1);
	assert_int_equal(rsw_fpm_stats()->errors, 0);
	rsw_fpm_poll(now += 100);
	assert_int_equal(rsw_ctl_tables_source_count(), 1);
	assert_int_equal(rsw_ctl_tables_source_get(0)->n_resolved, 1);
	r = ct_route4(10, 4, 1, 1);
	assert_non_null(r);
	assert_int_equal(r->single, 1);
	assert_int_equal(r->port, 0);
	gens = rsw_fpm_stats()->generations;
	rsw_fpm_poll(now += 100);
	assert_int_equal(rsw_fpm_stats()->generations, gens); /* nothing new: no build */

	hear(1, "fe80::52:2", 0x02); /* p1's peer, heard for the first time */
	rsw_fpm_poll(now += 100);
	assert_int_equal(rsw_fpm_stats()->generations, gens + 1);
	expect_two_ports_of(rsw_ctl_tables_source_get(0));

	hear(0, "fe80::52:3", 0x03); /* every next hop resolved: nothing to build for */
	rsw_fpm_poll(now += 100);
	assert_int_equal(rsw_fpm_stats()->generations, gens + 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_multipath_distinct_ll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multipath_same_ll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multipath_ll_heard_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_paths_same_ll, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fpm_ll_heard_starts_build, setup_fpm,
						teardown_fpm),
	};
	int ret;

	if (ct_eal_init("unnum") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
