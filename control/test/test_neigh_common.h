/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the neighbour state machine's unit tests share (test_neigh.c, test_neigh_failed.c): the
 * configuration, addresses, the frames they punt and the frames they expect sent.
 */

#ifndef TEST_NEIGH_COMMON_H
#define TEST_NEIGH_COMMON_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>
#include <jansson.h>

#include <rte_byteorder.h>

#include "ctl_test.h"
#include "rsw_icmp.h"
#include "rsw_icmp_pkt.h"

#define CTL_TC  7 /* no strict TC in the configuration: the switch's own frames go on TC 7 */
#define DATA_TC 3

static const char yaml[] = "switch: { name: ut }\n"
			   "ports:\n"
			   "  - { name: p0, devargs: net_null0, mac: 02:00:00:00:00:01,\n"
			   "      ipv4: 10.0.1.254/24, ipv6: fd00:1::fe/64 }\n"
			   "  - { name: p1, devargs: net_null1, mac: 02:00:00:00:00:02,\n"
			   "      ipv4: 10.0.2.254/24, ipv6: fd00:2::fe/64 }\n"
			   "neighbors:\n"
			   "  - { ip: 10.0.2.5, mac: 02:aa:00:00:00:05, port: p1 }\n"
			   "routes:\n"
			   "  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.1] }\n"
			   "  - { prefix: 10.8.0.0/16, nexthops: [10.0.2.5] }\n";

/* The same ports with one IPv6 route. */
static const char yaml6[] = "switch: { name: ut }\n"
			    "ports:\n"
			    "  - { name: p0, devargs: net_null0, mac: 02:00:00:00:00:01,\n"
			    "      ipv4: 10.0.1.254/24, ipv6: fd00:1::fe/64 }\n"
			    "  - { name: p1, devargs: net_null1, mac: 02:00:00:00:00:02,\n"
			    "      ipv4: 10.0.2.254/24, ipv6: fd00:2::fe/64 }\n"
			    "routes:\n"
			    "  - { prefix: 2001:db8::/32, nexthops: [fd00:2::1] }\n";

static const uint8_t p0_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t p1_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t nh_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x01};  /* 10.0.2.1's */
static const uint8_t bad_mac[6] = {0x02, 0xcc, 0, 0, 0, 0x05}; /* a claim for 10.0.2.5 */
static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t nh6[16] = {0xfd, 0, 0, 2, [15] = 0x01};  /* fd00:2::1 */
static const uint8_t own6[16] = {0xfd, 0, 0, 2, [15] = 0xfe}; /* fd00:2::fe */

static inline int
setup(void **state)
{
	(void)state;
	ct_start(yaml);
	return 0;
}

static inline int
setup6(void **state)
{
	(void)state;
	ct_start(yaml6);
	return 0;
}

static inline uint32_t
ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;
}

static inline struct rsw_ip
rip4(uint32_t a)
{
	struct rsw_ip ip = {.family = RSW_AF_INET};
	uint32_t be = rte_cpu_to_be_32(a);

	memcpy(ip.addr, &be, 4);
	return ip;
}

static inline int
idx4(uint32_t a)
{
	return rsw_neigh_lookup4(rte_cpu_to_be_32(a));
}

/* The state `show neighbors` gives ip ("" when it is not listed); its MAC in mac[18]. */
static inline const char *
state_of(const char *ip, char *mac)
{
	static char st[16];
	json_t *o = rsw_ctl_neigh_json(), *arr = json_object_get(o, "neighbors"), *e;
	size_t i;

	st[0] = '\0';
	mac[0] = '\0';
	json_array_foreach(arr, i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "ip")), ip) == 0) {
			snprintf(st, sizeof(st), "%s",
				 json_string_value(json_object_get(e, "state")));
			snprintf(mac, 18, "%s", json_string_value(json_object_get(e, "mac")));
		}
	}
	json_decref(o);
	return st;
}

static inline void
expect_state(const char *ip, const char *state, const char *mac)
{
	char m[18];

	assert_string_equal(state_of(ip, m), state);
	assert_string_equal(m, mac);
}

/* Whether neighbour idx's MAC is published to the workers, and which. */
static inline bool
published(int idx, uint8_t *mac)
{
	uint64_t v = __atomic_load_n(&rsw_fib_main.neigh[idx].mac_valid, __ATOMIC_ACQUIRE);

	if (mac != NULL)
		memcpy(mac, &v, 6);
	return (v & RSW_NEIGH_VALID) != 0;
}

/* An ARP frame (60 bytes) from sha/spa for tpa; dst is its Ethernet destination. */
static inline struct rte_mbuf *
arp_frame(uint16_t op, const uint8_t *dst, const uint8_t *sha, uint32_t spa, uint32_t tpa)
{
	uint8_t b[60] = {0};
	uint32_t be;

	memcpy(b, dst, 6);
	memcpy(b + 6, sha, 6);
	b[12] = 0x08, b[13] = 0x06;
	b[14] = 0, b[15] = 1;    /* Ethernet */
	b[16] = 0x08, b[17] = 0; /* IPv4 */
	b[18] = 6, b[19] = 4;
	b[20] = 0, b[21] = (uint8_t)op;
	memcpy(b + 22, sha, 6);
	be = rte_cpu_to_be_32(spa);
	memcpy(b + 28, &be, 4);
	be = rte_cpu_to_be_32(tpa);
	memcpy(b + 38, &be, 4);
	return ct_mbuf(b, sizeof(b));
}

/* Punt an ARP frame received on port p. */
static inline void
punt_arp(struct rte_mbuf *m, uint8_t p)
{
	ct_punt(m, RSW_PUNT_ARP, p, RSW_PK_ARP, 14);
}

/* A routed IPv4 packet (TTL 64, UDP, 64 bytes) to dst, from port 0 to port 1, waiting for neigh. */
static inline void
punt_unresolved(int neigh, uint32_t dst, uint8_t seq)
{
	uint8_t b[64] = {0};
	uint32_t be = rte_cpu_to_be_32(dst);
	struct rte_mbuf *m;

	memcpy(b, p0_mac, 6); /* as received: to the switch */
	b[6] = 0x02, b[7] = 0x77;
	b[12] = 0x08, b[13] = 0x00;
	b[14] = 0x45;
	b[17] = 50; /* total length */
	b[22] = 64; /* TTL */
	b[23] = 17;
	b[26] = 10, b[27] = 0, b[28] = 1, b[29] = 7;
	memcpy(b + 30, &be, 4);
	b[34 + 7] = seq; /* in the UDP checksum field: tells the packets apart */
	m = ct_mbuf(b, sizeof(b));
	rsw_meta(m)->neigh = (uint32_t)neigh;
	rsw_meta(m)->out_port = 1;
	rsw_meta(m)->tc = DATA_TC;
	ct_punt(m, RSW_PUNT_NEIGH, 0, RSW_PK_IPV4, 14);
}

/* The next frame sent on (p, tc) is an ARP request for tpa from port p's address. */
static inline void
expect_arp_request(uint16_t p, uint32_t spa, uint32_t tpa)
{
	struct rte_mbuf *m = ct_sent(p, CTL_TC);
	const uint8_t *b;
	uint32_t be;

	assert_non_null(m);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(b, bcast, 6);
	assert_memory_equal(b + 6, p == 0 ? p0_mac : p1_mac, 6);
	assert_int_equal(b[12] << 8 | b[13], 0x0806);
	assert_int_equal(b[20] << 8 | b[21], 1); /* request */
	assert_memory_equal(b + 22, p == 0 ? p0_mac : p1_mac, 6);
	be = rte_cpu_to_be_32(spa);
	assert_memory_equal(b + 28, &be, 4);
	be = rte_cpu_to_be_32(tpa);
	assert_memory_equal(b + 38, &be, 4);
	rte_pktmbuf_free(m);
}

static inline void
expect_nothing_sent(void)
{
	assert_int_equal(ct_queued(0), 0);
	assert_int_equal(ct_queued(1), 0);
}

static inline void
expect_pool_back(void)
{
	ct_flush();
	assert_int_equal(rte_mempool_in_use_count(ct_pool), ct_in_use);
}

/* -- bad input -- */

#endif /* TEST_NEIGH_COMMON_H */
