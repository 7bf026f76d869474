/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of steps 4 and 5 of the packet path: table generations (fib.c)
 * built directly with rsw_tables_* and looked up with rte_fib(6)_lookup_bulk
 * as the worker does; the neighbour table; and the adjacencies of connected
 * subnets. The bucket tables of groups and the flow hash: test_flow_hash.c.
 */

#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "test_common.h"

static uint64_t generation = 100;

static struct rsw_prefix
pfx4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t len)
{
	struct rsw_prefix p = {.ip = {.family = RSW_AF_INET, .addr = {a, b, c, d}}, .len = len};

	return p;
}

static struct rsw_prefix
pfx6(const uint8_t addr[16], uint8_t len)
{
	struct rsw_prefix p = {.ip = {.family = RSW_AF_INET6}, .len = len};

	memcpy(p.ip.addr, addr, 16);
	return p;
}

static struct rsw_tables *
tables_new(void)
{

	struct rsw_tables *t = rsw_tables_alloc(generation++, 64, 16, 4);

	assert_non_null(t);
	t->hash_fields = RSW_HF_DEFAULT;
	memcpy(t->rss_key, rsw_lb_default_rss_key, sizeof(t->rss_key));
	return t;
}

static int
add_connected(struct rsw_tables *t, uint16_t port)
{
	struct rsw_result r = {.type = RSW_RES_CONNECTED, .port = port};
	int nh = rsw_tables_add_result(t, &r);

	assert_true(nh >= 1);
	return nh;
}

static uint64_t
lookup4(const struct rsw_tables *t, uint32_t ip)
{
	uint64_t nh = 0xdead;

	assert_int_equal(rte_fib_lookup_bulk(t->fib4, &ip, &nh, 1), 0);
	return nh;
}

static uint64_t
lookup6(const struct rsw_tables *t, const uint8_t ip[16])
{
	uint8_t ips[1][16];
	uint64_t nh = 0xdead;

	memcpy(ips[0], ip, 16);
	assert_int_equal(rte_fib6_lookup_bulk(t->fib6, ips, &nh, 1), 0);
	return nh;
}

/* Bad input first. */

static void
test_tables_bad_input(void **state)
{
	struct rsw_result r = {.type = RSW_RES_LOCAL};
	struct rsw_prefix p;
	struct rsw_tables *t;
	int i;

	(void)state;
	rsw_tables_free(NULL);
	rte_errno = 0;
	assert_null(rsw_tables_alloc(generation++, 0, 1, 1));
	assert_int_equal(rte_errno, EINVAL);
	rte_errno = 0;
	assert_null(rsw_tables_alloc(generation++, RSW_FIB_MAX_NH + 1, 1, 1));
	assert_int_equal(rte_errno, EINVAL);

	/* No room past max_results (results[0] is the no-route entry). */
	t = rsw_tables_alloc(generation++, 4, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->n_results, 1);
	for (i = 1; i < 4; i++)
		assert_int_equal(rsw_tables_add_result(t, &r), i);
	assert_int_equal(rsw_tables_add_result(t, &r), -ENOSPC);
	assert_int_equal(t->n_results, 4);

	/* Prefix lengths out of range. */
	p = pfx4(10, 0, 0, 0, 33);
	assert_true(rsw_tables_add_route(t, &p, 1) < 0);
	p = pfx6((const uint8_t[16]){0x20, 0x01}, 129);
	assert_true(rsw_tables_add_route(t, &p, 1) < 0);
	/* A FIB next hop beyond the 2-byte range. */
	p = pfx4(10, 0, 0, 0, 8);
	assert_true(rsw_tables_add_route(t, &p, 1u << 16) < 0);
	/* A result that does not exist (the workers index results[] with it unchecked). */
	assert_int_equal(rsw_tables_add_route(t, &p, 4), -EINVAL);
	assert_int_equal(rsw_tables_add_route(t, &p, 3), 0);
	rsw_tables_free(t);

	/* Two generations cannot share a number (the FIB names would clash). */
	t = rsw_tables_alloc(7, 4, 0, 0);
	assert_non_null(t);
	rte_log_set_global_level(RTE_LOG_EMERG); /* the expected failure logs */
	assert_null(rsw_tables_alloc(7, 4, 0, 0));
	rte_log_set_global_level(RTE_LOG_ERR);
	rsw_tables_free(t);
}

static void
test_fib4_lpm(void **state)
{
	struct rsw_prefix p;
	struct rsw_tables *t;
	uint32_t ips[8];
	uint64_t nhs[8];
	int r8, r16, r24, r32, i;

	(void)state;
	t = tables_new();
	/* Nothing added yet: every address is no route. */
	assert_int_equal(lookup4(t, 0x0a010203), RSW_FIB_NO_ROUTE);
	r8 = add_connected(t, 1);
	r16 = add_connected(t, 2);
	r24 = add_connected(t, 3);
	r32 = add_connected(t, 4);
	/* Added out of order, overlapping. */
	p = pfx4(10, 1, 2, 0, 24);
	assert_int_equal(rsw_tables_add_route(t, &p, (uint32_t)r24), 0);
	p = pfx4(10, 0, 0, 0, 8);
	assert_int_equal(rsw_tables_add_route(t, &p, (uint32_t)r8), 0);
	p = pfx4(10, 1, 2, 3, 32);
	assert_int_equal(rsw_tables_add_route(t, &p, (uint32_t)r32), 0);
	p = pfx4(10, 1, 0, 0, 16);
	assert_int_equal(rsw_tables_add_route(t, &p, (uint32_t)r16), 0);

	ips[0] = 0x0a090909; /* 10.9.9.9 */
	ips[1] = 0x0a010909; /* 10.1.9.9 */
	ips[2] = 0x0a010209; /* 10.1.2.9 */
	ips[3] = 0x0a010203; /* 10.1.2.3 */
	ips[4] = 0x0a010204; /* 10.1.2.4 */
	ips[5] = 0x0b000001; /* 11.0.0.1 */
	ips[6] = 0x00000000;
	ips[7] = 0xffffffff;
	assert_int_equal(rte_fib_lookup_bulk(t->fib4, ips, nhs, 8), 0);
	assert_int_equal(nhs[0], r8);
	assert_int_equal(nhs[1], r16);
	assert_int_equal(nhs[2], r24);
	assert_int_equal(nhs[3], r32);
	assert_int_equal(nhs[4], r24);
	for (i = 5; i < 8; i++)
		assert_int_equal(nhs[i], RSW_FIB_NO_ROUTE);
	assert_int_equal(t->results[nhs[3]].type, RSW_RES_CONNECTED);
	assert_int_equal(t->results[nhs[3]].port, 4);
	assert_int_equal(t->results[RSW_FIB_NO_ROUTE].type, RSW_RES_NONE);

	/* A default route catches the rest; the /32 still wins. */
	p = pfx4(0, 0, 0, 0, 0);
	assert_int_equal(rsw_tables_add_route(t, &p, (uint32_t)add_connected(t, 5)), 0);
	assert_int_equal(t->results[lookup4(t, 0x0b000001)].port, 5);
	assert_int_equal(lookup4(t, 0x0a010203), r32);
	rsw_tables_free(t);
}

static void
test_fib6_lpm(void **state)
{
	static const uint8_t net[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0};
	static const uint8_t host[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t other[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
	static const uint8_t next64[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, [15] = 1};
	static const uint8_t far[16] = {0xfd, 0x00, [15] = 1};
	struct rsw_prefix p;
	struct rsw_tables *t;
	int r64, r128;

	(void)state;
	t = tables_new();
	r64 = add_connected(t, 1);
	r128 = add_connected(t, 2);
	p = pfx6(host, 128);
	assert_int_equal(rsw_tables_add_route(t, &p, (uint32_t)r128), 0);
	p = pfx6(net, 64);
	assert_int_equal(rsw_tables_add_route(t, &p, (uint32_t)r64), 0);
	assert_int_equal(lookup6(t, host), r128);
	assert_int_equal(lookup6(t, other), r64);
	assert_int_equal(lookup6(t, next64), RSW_FIB_NO_ROUTE);
	assert_int_equal(lookup6(t, far), RSW_FIB_NO_ROUTE);
	/* IPv4 and IPv6 tables are separate. */
	assert_int_equal(lookup4(t, 0x20010db8), RSW_FIB_NO_ROUTE);
	rsw_tables_free(t);
}

static void
test_tables_publish(void **state)
{
	struct rsw_tables *t1, *t2;
	uint64_t gen1;
	char name[64];

	(void)state;
	t1 = tables_new();
	rsw_tables_publish(t1);
	assert_ptr_equal(rsw_fib_main.tables, t1);
	gen1 = t1->generation;
	snprintf(name, sizeof(name), "rsw4_%" PRIu64, gen1);
	assert_ptr_equal(rte_fib_find_existing(name), t1->fib4);
	/*
	 * Publishing replaces and frees the old generation (no reader is registered). Two
	 * generations do not fit in -m 256, so the first goes through an empty publish.
	 */
	rsw_tables_publish(NULL);
	assert_null(rsw_fib_main.tables);
	assert_null(rte_fib_find_existing(name));
	snprintf(name, sizeof(name), "rsw6_%" PRIu64, gen1);
	assert_null(rte_fib6_find_existing(name));
	t2 = tables_new();
	rsw_tables_publish(t2);
	assert_ptr_equal(rsw_fib_main.tables, t2);
	/* rsw_fib_fini (teardown) frees the current generation. */
}

/* Neighbour table. */

static void
test_neigh(void **state)
{
	static const uint8_t mac[6] = {0x0c, 0x42, 0xa1, 0x01, 0x02, 0x03};
	struct rsw_ip a4 = {.family = RSW_AF_INET, .addr = {10, 0, 0, 1}};
	struct rsw_ip b4 = {.family = RSW_AF_INET, .addr = {10, 0, 0, 2}};
	/* An IPv6 address whose first 4 bytes equal a4. */
	struct rsw_ip a6 = {.family = RSW_AF_INET6, .addr = {10, 0, 0, 1, [15] = 1}};
	uint8_t a6_addr[16];
	uint32_t a4_be;
	int ia, ib, i6;

	(void)state;
	memcpy(&a4_be, a4.addr, 4);
	memcpy(a6_addr, a6.addr, 16);
	/* Unknown addresses. */
	assert_int_equal(rsw_neigh_lookup4(a4_be), -ENOENT);
	assert_int_equal(rsw_neigh_lookup6(a6_addr), -ENOENT);

	ia = rsw_neigh_get(&a4, 3);
	assert_true(ia >= 0 && ia < RSW_MAX_NEIGHBORS);
	assert_int_equal(rsw_neigh_get(&a4, 3), ia);
	ib = rsw_neigh_get(&b4, 2);
	assert_true(ib >= 0 && ib != ia);
	i6 = rsw_neigh_get(&a6, 1);
	assert_true(i6 >= RSW_MAX_NEIGHBORS && i6 < RSW_NEIGH_SLOTS);
	assert_int_equal(rsw_neigh_get(&a6, 1), i6);
	assert_int_equal(rsw_neigh_lookup4(a4_be), ia);
	assert_int_equal(rsw_neigh_lookup6(a6_addr), i6);
	assert_int_equal(rsw_fib_main.neigh[ia].port, 3);
	assert_int_equal(rsw_fib_main.neigh[ib].port, 2);
	assert_int_equal(rsw_fib_main.neigh[i6].port, 1);

	/* Not valid until a MAC is set. */
	assert_int_equal(rsw_fib_main.neigh[ia].mac_valid, 0);
	rsw_neigh_set((uint32_t)ia, mac);
	assert_true(rsw_fib_main.neigh[ia].mac_valid & RSW_NEIGH_VALID);
	assert_memory_equal(&rsw_fib_main.neigh[ia].mac_valid, mac, 6);
	assert_int_equal(rsw_fib_main.neigh[ib].mac_valid, 0);
	assert_int_equal(rsw_fib_main.neigh[i6].mac_valid, 0);
	rsw_neigh_set((uint32_t)i6, mac);
	assert_true(rsw_fib_main.neigh[i6].mac_valid & RSW_NEIGH_VALID);
	/* NULL invalidates. */
	rsw_neigh_set((uint32_t)ia, NULL);
	assert_int_equal(rsw_fib_main.neigh[ia].mac_valid, 0);
	assert_int_equal(rsw_neigh_get(&a4, 3), ia);
}

static void
test_neigh_full(void **state)
{
	struct rsw_ip ip = {.family = RSW_AF_INET};
	int i, idx, ok = 0;

	(void)state;
	/* Fill the IPv4 side: every entry gets a distinct slot, then the table says no. */
	for (i = 0; i < RSW_MAX_NEIGHBORS + 16; i++) {
		ip.addr[0] = 172;
		ip.addr[1] = 16;
		ip.addr[2] = (uint8_t)(i >> 8);
		ip.addr[3] = (uint8_t)i;
		idx = rsw_neigh_get(&ip, 0);
		if (idx < 0)
			break;
		assert_true(idx < RSW_MAX_NEIGHBORS);
		ok++;
	}
	assert_int_equal(idx, -ENOSPC);
	/* Exactly RSW_MAX_NEIGHBORS IPv4 entries, two of them added by test_neigh. */
	assert_int_equal(ok, RSW_MAX_NEIGHBORS - 2);
	/* The IPv6 side is separate and still has room. */
	ip.family = RSW_AF_INET6;
	ip.addr[0] = 0xfd;
	idx = rsw_neigh_get(&ip, 0);
	assert_true(idx >= RSW_MAX_NEIGHBORS);
}

static uint32_t
be4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return rte_cpu_to_be_32((uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d);
}

/*
 * Adjacencies: a connected IPv4 subnet of up to RSW_ADJ_MAX_BITS host bits gets one slot per
 * host, filled from the neighbour table when the generation is published; larger subnets, /32s,
 * IPv6 and a result shared by two prefixes search the hash. Runs after test_neigh_full: every
 * 172.16.(i >> 8).(i & 255) for i < RSW_MAX_NEIGHBORS - 2 has an entry.
 */
static void
test_adjacency(void **state)
{
	const unsigned int have = RSW_MAX_NEIGHBORS - 2; /* entries test_neigh_full made */
	struct rsw_prefix p24 = pfx4(172, 16, 1, 0, 24), p20 = pfx4(172, 16, 0, 0, 20);
	struct rsw_prefix p16 = pfx4(10, 7, 0, 0, 16), p32 = pfx4(192, 0, 2, 1, 32);
	struct rsw_prefix pa = pfx4(192, 168, 7, 0, 24), pb = pfx4(192, 168, 8, 0, 24);
	struct rsw_prefix p6 = {.ip = {.family = RSW_AF_INET6, .addr = {0xfd, [15] = 0}},
				.len = 120};
	struct rsw_tables *t;
	int r24, r20, r16, r32, rs, r6;
	unsigned int h;

	(void)state;
	rsw_tables_publish(NULL); /* two generations do not fit in -m 256 */
	t = tables_new();
	r24 = add_connected(t, 1);
	r20 = add_connected(t, 2);
	r16 = add_connected(t, 3);
	r32 = add_connected(t, 4);
	rs = add_connected(t, 5);
	r6 = add_connected(t, 6);
	assert_int_equal(rsw_tables_add_route(t, &p24, (uint32_t)r24), 0);
	assert_int_equal(rsw_tables_add_route(t, &p20, (uint32_t)r20), 0);
	assert_int_equal(rsw_tables_add_route(t, &p16, (uint32_t)r16), 0);
	assert_int_equal(rsw_tables_add_route(t, &p32, (uint32_t)r32), 0);
	assert_int_equal(rsw_tables_add_route(t, &pa, (uint32_t)rs), 0);
	assert_int_equal(t->results[rs].adj_mask, 0xff);
	assert_int_equal(rsw_tables_add_route(t, &pb, (uint32_t)rs), 0);
	assert_int_equal(rsw_tables_add_route(t, &p6, (uint32_t)r6), 0);

	assert_int_equal(t->results[r24].adj_mask, 0xff);
	assert_int_equal(t->results[r20].adj_mask, 0xfff);
	assert_int_equal(t->results[r16].adj_mask, 0); /* 16 host bits: more than the cap */
	assert_int_equal(t->results[r32].adj_mask, 0); /* no host besides the address */
	assert_int_equal(t->results[rs].adj_mask, 0);  /* two subnets on one result */
	assert_int_equal(t->results[r6].adj_mask, 0);  /* IPv6 searches the hash */
	assert_int_equal(t->n_adj, 256 + 256 + 4096);
	/* Empty until published: the slots are filled from the neighbour table then. */
	assert_int_equal(rsw_adj_lookup4(t, &t->results[r24], 0xac100109), RSW_ADJ_NONE);

	rsw_tables_publish(t);
	for (h = 0; h < 256; h++)
		assert_int_equal(rsw_adj_lookup4(t, &t->results[r24], 0xac100100 + h),
				 (uint32_t)rsw_neigh_lookup4(be4(172, 16, 1, (uint8_t)h)));
	for (h = 0; h < 4096; h++) {
		uint32_t got = rsw_adj_lookup4(t, &t->results[r20], 0xac100000 + h);

		if (h < have)
			assert_int_equal(got, (uint32_t)rsw_neigh_lookup4(
						      be4(172, 16, (uint8_t)(h >> 8), (uint8_t)h)));
		else
			assert_int_equal(got, RSW_ADJ_NONE); /* no entry: unresolved */
	}
	/* The FIB's result is the slot's owner: 172.16.1.9 under the /24, 172.16.2.9 the /20. */
	assert_int_equal(lookup4(t, 0xac100109), (uint64_t)r24);
	assert_int_equal(lookup4(t, 0xac100209), (uint64_t)r20);
	/* A slot written under the workers' feet: one store, the FIB untouched. */
	rsw_adj_set(t, be4(172, 16, 1, 9), 0x7fff0077);
	assert_int_equal(rsw_adj_lookup4(t, &t->results[r24], 0xac100109), 0x7fff0077);
	assert_int_equal(rsw_adj_lookup4(t, &t->results[r20], 0xac100109), 0x7fff0077);
	assert_int_equal(rsw_adj_lookup4(t, &t->results[r24], 0xac100108),
			 (uint32_t)rsw_neigh_lookup4(be4(172, 16, 1, 8)));
	/* Outside every adjacency subnet: nothing written. */
	rsw_adj_set(t, be4(10, 7, 0, 1), 0x7fff0078);
	rsw_adj_set(t, be4(192, 168, 7, 1), 0x7fff0079);
	for (h = 0; h < t->n_adj; h++)
		assert_true(t->adj[h] != 0x7fff0078 && t->adj[h] != 0x7fff0079);
}

static int
setup(void **state)
{
	(void)state;
	return rsw_fib_init(1);
}

static int
teardown(void **state)
{
	(void)state;
	rsw_fib_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_bad_input),
		cmocka_unit_test(test_fib4_lpm),
		cmocka_unit_test(test_fib6_lpm),
		cmocka_unit_test(test_tables_publish),
		cmocka_unit_test(test_neigh),
		cmocka_unit_test(test_neigh_full),
		cmocka_unit_test(test_adjacency), /* after test_neigh_full */
	};

	return ut_main("fib", tests, RTE_DIM(tests), setup, teardown, NULL, 0);
}
