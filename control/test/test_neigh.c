/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the neighbour state machine (control/neigh: neigh.c, arp.c, nd.c, punt.c)
 * on an injected clock, with real rings and mbufs: what may not be learned first, then a
 * next hop's request (ARP, NS) read back from the queue the control thread sends on, the
 * retries and their timing, packets held while incomplete (three) sent once the reply is
 * learned or dropped (neigh_unresolved) when resolution fails, the failed entry's hold-off,
 * a failed next hop asked again with a back-off (2 s doubling to 60 s) and back when it
 * answers, a failed host asked again on traffic only, ageing reachable → stale → re-probe (an
 * NS unicast to the known MAC), and a static neighbour never replaced by what ARP says.
 */

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

static int
setup(void **state)
{
	(void)state;
	ct_start(yaml);
	return 0;
}

static int
setup6(void **state)
{
	(void)state;
	ct_start(yaml6);
	return 0;
}

static uint32_t
ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;
}

static struct rsw_ip
rip4(uint32_t a)
{
	struct rsw_ip ip = {.family = RSW_AF_INET};
	uint32_t be = rte_cpu_to_be_32(a);

	memcpy(ip.addr, &be, 4);
	return ip;
}

static int
idx4(uint32_t a)
{
	return rsw_neigh_lookup4(rte_cpu_to_be_32(a));
}

/* The state `show neighbors` gives ip ("" when it is not listed); its MAC in mac[18]. */
static const char *
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

static void
expect_state(const char *ip, const char *state, const char *mac)
{
	char m[18];

	assert_string_equal(state_of(ip, m), state);
	assert_string_equal(m, mac);
}

/* Whether neighbour idx's MAC is published to the workers, and which. */
static bool
published(int idx, uint8_t *mac)
{
	uint64_t v = __atomic_load_n(&rsw_fib_main.neigh[idx].mac_valid, __ATOMIC_ACQUIRE);

	if (mac != NULL)
		memcpy(mac, &v, 6);
	return (v & RSW_NEIGH_VALID) != 0;
}

/* An ARP frame (60 bytes) from sha/spa for tpa; dst is its Ethernet destination. */
static struct rte_mbuf *
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
static void
punt_arp(struct rte_mbuf *m, uint8_t p)
{
	ct_punt(m, RSW_PUNT_ARP, p, RSW_PK_ARP, 14);
}

/* A routed IPv4 packet (TTL 64, UDP, 64 bytes) to dst, from port 0 to port 1, waiting for neigh. */
static void
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
static void
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

static void
expect_nothing_sent(void)
{
	assert_int_equal(ct_queued(0), 0);
	assert_int_equal(ct_queued(1), 0);
}

static void
expect_pool_back(void)
{
	ct_flush();
	assert_int_equal(rte_mempool_in_use_count(ct_pool), ct_in_use);
}

/* -- bad input -- */

static void
test_learn_refused(void **state)
{
	struct rsw_ip ip = rip4(ip4(10, 0, 3, 1)), none = {0};
	const uint8_t mcast[6] = {0x01, 0, 0x5e, 0, 0, 1};

	(void)state;
	ct_flush();
	/* Not on the port's subnet, the switch's own address, a multicast MAC. */
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, true), -ENOENT);
	ip = rip4(ip4(10, 0, 2, 7));
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, true), -ENOENT); /* p1's subnet */
	ip = rip4(ip4(10, 0, 1, 254));
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, true), -ENOENT);
	ip = rip4(ip4(10, 0, 1, 7));
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, mcast, true), -ENOENT);
	/* Unknown, and not to be created. */
	assert_int_equal(rsw_ctl_neigh_learn(&ip, 0, nh_mac, false), -ENOENT);
	assert_int_equal(idx4(ip4(10, 0, 1, 7)), -ENOENT);
	assert_int_equal(rsw_ctl_neigh_want(&none, 0), -EINVAL);
	expect_state("10.0.1.7", "", "");
	expect_nothing_sent();
	expect_pool_back();
}

static void
test_arp_malformed_ignored(void **state)
{
	const uint8_t host[6] = {0x02, 0x77, 0, 0, 0, 0x07}, mcast[6] = {0x03, 0, 0, 0, 0, 7};
	struct rte_mbuf *m;
	uint8_t *b;
	int i;

	(void)state;
	ct_flush();
	for (i = 0; i < 5; i++) {
		m = arp_frame(1, bcast, i == 4 ? mcast : host, ip4(10, 0, 1, 7),
			      ip4(10, 0, 1, 254));
		b = rte_pktmbuf_mtod(m, uint8_t *);
		if (i == 0)
			b[15] = 6; /* hardware type 6 */
		else if (i == 1)
			b[16] = 0x86; /* protocol IPv6 */
		else if (i == 2)
			b[18] = 8; /* hardware length 8 */
		else if (i == 3)
			b[19] = 16; /* protocol length 16 */
		punt_arp(m, 0);
	}
	expect_nothing_sent();
	/* A request on port 1, which has no 10.0.1.0/24: answered, but its sender not learned. */
	punt_arp(arp_frame(1, bcast, host, ip4(10, 0, 1, 7), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.1.7", "", "");
	m = ct_sent(1, CTL_TC);
	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[21], 2);
	rte_pktmbuf_free(m);
	expect_nothing_sent();
	expect_pool_back();

	/* The same request, well formed: answered, and its sender learned. */
	punt_arp(arp_frame(1, bcast, host, ip4(10, 0, 1, 7), ip4(10, 0, 1, 254)), 0);
	expect_state("10.0.1.7", "reachable", "02:77:00:00:00:07");
	m = ct_sent(0, CTL_TC);
	assert_non_null(m);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	assert_memory_equal(b, host, 6);
	assert_memory_equal(b + 6, p0_mac, 6);
	assert_int_equal(b[21], 2); /* reply */
	assert_memory_equal(b + 22, p0_mac, 6);
	assert_memory_equal(b + 32, host, 6);
	rte_pktmbuf_free(m);
	expect_pool_back();
}

/* -- resolution -- */

static void
test_request_and_retries(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));

	(void)state;
	/* Building the tables wanted the next hop: incomplete, one request sent. */
	assert_true(idx >= 0);
	expect_state("10.0.2.1", "incomplete", "");
	assert_false(published(idx, NULL));
	assert_false(rsw_fib_main.neigh[idx].failed);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_nothing_sent();

	/* A retry each second, three requests in all. */
	rsw_ctl_neigh_timer(1999);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(2000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(2500);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(3000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(3999);
	expect_nothing_sent();
	assert_false(rsw_fib_main.neigh[idx].failed);

	/* No answer to the third: failed (the group member is down), no fourth request. */
	rsw_ctl_neigh_timer(4000);
	expect_nothing_sent();
	assert_true(rsw_fib_main.neigh[idx].failed);
	assert_false(published(idx, NULL));
	expect_state("10.0.2.1", "failed", "");

	/* Within a second of failing, a packet for it is dropped at once, without a request. */
	ct_now = 4999;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 1);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	expect_nothing_sent();
	/* After it, the packet is held and resolution starts again. */
	ct_now = 5000;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 2);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_state("10.0.2.1", "incomplete", "");
	/* The one held is the only mbuf out of the pool. */
	assert_int_equal(rte_mempool_in_use_count(ct_pool), ct_in_use + 1);
}

static void
test_held_then_sent(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));
	struct rte_mbuf *m;
	uint8_t mac[6];
	int i;

	(void)state;
	ct_flush();
	/* Up to three packets wait; the fourth is dropped. */
	for (i = 0; i < 4; i++)
		punt_unresolved(idx, ip4(10, 9, 0, 1), (uint8_t)i);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	expect_nothing_sent();

	/* The reply: learned, published, and the three held packets sent, rewritten, in order. */
	ct_now = 1500;
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, nh_mac, 6);
	for (i = 0; i < 3; i++) {
		const uint8_t *b;

		m = ct_sent(1, DATA_TC);
		assert_non_null(m);
		b = rte_pktmbuf_mtod(m, const uint8_t *);
		assert_memory_equal(b, nh_mac, 6);
		assert_memory_equal(b + 6, p1_mac, 6);
		assert_int_equal(b[22], 63); /* TTL */
		assert_int_equal(b[41], i);  /* the order they came in */
		assert_true(rsw_meta(m)->flags & RSW_MF_NOACCT);
		rte_pktmbuf_free(m);
	}
	expect_nothing_sent();
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);

	/* One more that a worker punted before it saw the MAC goes at once. */
	punt_unresolved(idx, ip4(10, 9, 0, 2), 9);
	m = ct_sent(1, DATA_TC);
	assert_non_null(m);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), nh_mac, 6);
	rte_pktmbuf_free(m);

	/* Resolved: no more requests. */
	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(5000);
	expect_nothing_sent();
	expect_pool_back();
}

static void
test_held_dropped_when_failed(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));

	(void)state;
	ct_flush();
	punt_unresolved(idx, ip4(10, 9, 0, 1), 1);
	punt_unresolved(idx, ip4(10, 9, 0, 1), 2);
	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(3000);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 0);
	rsw_ctl_neigh_timer(4000);
	/* Both counted on their ingress port; nothing of theirs went out. */
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 2);
	assert_int_equal(rte_ring_count(rsw_qos.port[1].ring[DATA_TC]), 0);
	expect_pool_back();
}

static void
test_connected_host_resolved(void **state)
{
	const uint8_t host[6] = {0x02, 0xdd, 0, 0, 0, 0x09};
	uint8_t b[64] = {0};
	struct rte_mbuf *m;
	uint32_t be = rte_cpu_to_be_32(ip4(10, 0, 2, 9));

	(void)state;
	ct_flush();
	/* A packet for a host on a connected subnet, not known yet: neigh is UINT32_MAX. */
	b[12] = 0x08;
	b[14] = 0x45, b[17] = 50, b[22] = 64, b[23] = 17;
	memcpy(b + 30, &be, 4);
	m = ct_mbuf(b, sizeof(b));
	rsw_meta(m)->neigh = UINT32_MAX;
	rsw_meta(m)->out_port = 1;
	rsw_meta(m)->tc = DATA_TC;
	ct_punt(m, RSW_PUNT_NEIGH, 0, RSW_PK_IPV4, 14);
	expect_state("10.0.2.9", "incomplete", "");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 9));
	punt_arp(arp_frame(2, p1_mac, host, ip4(10, 0, 2, 9), ip4(10, 0, 2, 254)), 1);
	m = ct_sent(1, DATA_TC);
	assert_non_null(m);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), host, 6);
	rte_pktmbuf_free(m);
	expect_pool_back();
}

/* -- failed neighbours asked again -- */

/* Fail 10.0.2.1's first round of requests (ct_start's, at 1000 ms): failed at 4000 ms. */
static int
fail_first_round(void)
{
	const int idx = idx4(ip4(10, 0, 2, 1));

	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(3000);
	rsw_ctl_neigh_timer(4000);
	ct_flush();
	assert_true(rsw_fib_main.neigh[idx].failed);
	expect_state("10.0.2.1", "failed", "");
	return idx;
}

/* One request for 10.0.2.1 at each time of at[] (ms) and at no time before or between. */
static void
expect_requests_at(const uint64_t *at, unsigned int n)
{
	uint64_t t = 4000;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* Checked at the millisecond before, and in steps between. */
		for (; t + 250 < at[i]; t += 250) {
			rsw_ctl_neigh_timer(t);
			expect_nothing_sent();
		}
		rsw_ctl_neigh_timer(at[i] - 1);
		expect_nothing_sent();
		rsw_ctl_neigh_timer(at[i]);
		expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
		expect_nothing_sent();
		t = at[i] + 1;
	}
}

static void
test_failed_next_hop_backoff(void **state)
{
	/* After 2 s, then 4, 8, 16, 32 s apart, then every 60 s. */
	const uint64_t at[] = {6000, 10000, 18000, 34000, 66000, 126000, 186000, 246000};
	const int idx = fail_first_round();
	uint8_t mac[6];

	(void)state;
	expect_requests_at(at, RTE_DIM(at));
	/* Still failed, the member down; nothing held, nothing counted. */
	expect_state("10.0.2.1", "failed", "");
	assert_true(rsw_fib_main.neigh[idx].failed);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 0);

	/* An answer to a retry: reachable, published, the member up again. */
	ct_now = 246100;
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, nh_mac, 6);
	assert_false(rsw_fib_main.neigh[idx].failed);
	rsw_ctl_neigh_timer(306000);
	expect_nothing_sent();

	/* Aged, re-probed three times unanswered: failed again, the back-off from 2 s again. */
	rsw_ctl_neigh_timer(246100 + 300000);
	rsw_ctl_neigh_timer(246100 + 301000);
	rsw_ctl_neigh_timer(246100 + 302000);
	ct_flush();
	rsw_ctl_neigh_timer(246100 + 303000);
	expect_state("10.0.2.1", "failed", "");
	rsw_ctl_neigh_timer(246100 + 304999);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(246100 + 305000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_pool_back();
}

static void
test_failed_next_hop_traffic(void **state)
{
	const int idx = fail_first_round();
	uint64_t t;
	int i;

	(void)state;
	/* The back-off's first two retries go unanswered (6 s, 10 s). */
	rsw_ctl_neigh_timer(6000);
	rsw_ctl_neigh_timer(10000);
	ct_flush();
	/* Traffic (as a worker sends it to a group whose only member failed: rsw_lb_ask) starts
	 * a round at once: held, three requests a second apart, then failed, held dropped. */
	ct_now = 12000;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 1);
	expect_state("10.0.2.1", "incomplete", "");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	for (t = 13000; t <= 14000; t += 1000) {
		rsw_ctl_neigh_timer(t);
		expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	}
	/* Still failed for the workers during the round: the member stays down. */
	assert_true(rsw_fib_main.neigh[idx].failed);
	rsw_ctl_neigh_timer(15000);
	expect_state("10.0.2.1", "failed", "");
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 1);
	/* The round kept the back-off (8 s): the next retry at 23 s, not sooner. */
	rsw_ctl_neigh_timer(22999);
	expect_nothing_sent();
	/* Traffic within a second of the round: dropped, no request (the rate limit). */
	ct_now = 15999;
	for (i = 0; i < 5; i++)
		punt_unresolved(idx, ip4(10, 9, 0, 1), (uint8_t)i);
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 6);
	expect_nothing_sent();
	rsw_ctl_neigh_timer(23000);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));

	/* Traffic after it: a new round; the answer sends what it held. */
	ct_now = 24000;
	punt_unresolved(idx, ip4(10, 9, 0, 1), 7);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	assert_false(rsw_fib_main.neigh[idx].failed);
	{
		struct rte_mbuf *m = ct_sent(1, DATA_TC);

		assert_non_null(m);
		assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), nh_mac, 6);
		assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[41], 7);
		rte_pktmbuf_free(m);
	}
	expect_nothing_sent();
	expect_pool_back();
}

static void
test_failed_host_asked_on_traffic(void **state)
{
	uint8_t b[64] = {0};
	struct rte_mbuf *m;
	uint32_t be = rte_cpu_to_be_32(ip4(10, 0, 2, 9));
	uint64_t t;
	int pass;

	(void)state;
	ct_flush();
	/* A packet for 10.0.2.9, a host of p1's subnet no table wants: a round, unanswered. */
	b[12] = 0x08;
	b[14] = 0x45, b[17] = 50, b[22] = 64, b[23] = 17;
	memcpy(b + 30, &be, 4);
	for (pass = 0; pass < 2; pass++) {
		m = ct_mbuf(b, sizeof(b));
		rsw_meta(m)->neigh = UINT32_MAX;
		rsw_meta(m)->out_port = 1;
		rsw_meta(m)->tc = DATA_TC;
		ct_now = pass == 0 ? 1000 : 200000;
		ct_punt(m, RSW_PUNT_NEIGH, 0, RSW_PK_IPV4, 14);
		expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 9));
		for (t = ct_now + 1000; t <= ct_now + 3000; t += 1000) {
			rsw_ctl_neigh_timer(t);
			ct_flush(); /* 10.0.2.1's requests, and 10.0.2.9's retries */
		}
		expect_state("10.0.2.9", "failed", "");
		/* No retry of it without traffic, however long (10.0.2.1's are on its own). */
		for (t = ct_now + 4000; t < ct_now + 190000; t += 1000) {
			struct rte_mbuf *r;

			rsw_ctl_neigh_timer(t);
			while ((r = ct_sent(1, CTL_TC)) != NULL) {
				assert_int_equal(rte_pktmbuf_mtod(r, uint8_t *)[41], 1); /* .1 */
				rte_pktmbuf_free(r);
			}
		}
	}
	assert_int_equal(ct_port_ctr(0, RSW_PC_neigh_unresolved), 2);
	expect_pool_back();
}

/* -- ageing -- */

static void
test_ageing(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 1));
	const uint64_t t0 = 1000, reach = 300000;

	(void)state;
	ct_flush();
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");

	/* Reachable for five minutes, then stale and re-probed; still forwarding meanwhile. */
	rsw_ctl_neigh_timer(t0 + reach - 1);
	expect_nothing_sent();
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	rsw_ctl_neigh_timer(t0 + reach);
	expect_state("10.0.2.1", "stale", "02:bb:00:00:00:01");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	assert_true(published(idx, NULL));

	/* Confirmed: reachable again, from the time of the answer. */
	ct_now = t0 + reach + 500;
	punt_arp(arp_frame(2, p1_mac, nh_mac, ip4(10, 0, 2, 1), ip4(10, 0, 2, 254)), 1);
	expect_state("10.0.2.1", "reachable", "02:bb:00:00:00:01");
	rsw_ctl_neigh_timer(t0 + reach + 5000);
	rsw_ctl_neigh_timer(t0 + 2 * reach + 499);
	expect_nothing_sent();

	/* Stale again, no answer to three probes: the MAC is withdrawn. */
	rsw_ctl_neigh_timer(t0 + 2 * reach + 500);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(t0 + 2 * reach + 1500);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	rsw_ctl_neigh_timer(t0 + 2 * reach + 2500);
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	assert_true(published(idx, NULL));
	rsw_ctl_neigh_timer(t0 + 2 * reach + 3500);
	expect_nothing_sent();
	assert_false(published(idx, NULL));
	assert_true(rsw_fib_main.neigh[idx].failed);
	expect_state("10.0.2.1", "failed", "");
	expect_pool_back();
}

/* The next frame on port 1 is an NS for fd00:2::1: to its solicited-node group, or to mac. */
static void
expect_ns(const uint8_t *mac)
{
	const uint8_t group_mac[6] = {0x33, 0x33, 0xff, 0, 0, 0x01};
	const uint8_t group[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x01};
	struct rte_mbuf *m = ct_sent(1, CTL_TC);
	const uint8_t *b;

	assert_non_null(m);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(b, mac != NULL ? mac : group_mac, 6);
	assert_memory_equal(b + 6, p1_mac, 6);
	assert_int_equal(b[12] << 8 | b[13], 0x86dd);
	assert_int_equal(b[14 + 7], 255);          /* hop limit */
	assert_memory_equal(b + 14 + 8, own6, 16); /* from the port's address */
	assert_memory_equal(b + 14 + 24, mac != NULL ? nh6 : group, 16);
	assert_int_equal(b[14 + 40], RSW_ND_NS);
	assert_memory_equal(b + 14 + 48, nh6, 16); /* target */
	rte_pktmbuf_free(m);
}

static void
test_ipv6_solicit_learn_reprobe(void **state)
{
	uint8_t buf[128];
	struct rte_mbuf *m;
	int idx = rsw_neigh_lookup6(nh6), n;
	uint64_t ns_tx = rsw_icmp_ctrs[RSW_IC_nd_ns_tx];

	(void)state;
	assert_true(idx >= RSW_MAX_NEIGHBORS);
	expect_state("fd00:2::1", "incomplete", "");
	expect_ns(NULL);
	expect_nothing_sent();
	assert_int_equal(rsw_icmp_ctrs[RSW_IC_nd_ns_tx], ns_tx);
	rsw_ctl_neigh_timer(2000);
	expect_ns(NULL);
	assert_int_equal(rsw_icmp_ctrs[RSW_IC_nd_ns_tx], ns_tx + 1);

	/* A solicited NA to the switch's address (unicast: punted as local). */
	memcpy(buf, p1_mac, 6);
	memcpy(buf + 6, nh_mac, 6);
	buf[12] = 0x86, buf[13] = 0xdd;
	n = rsw_nd_build(buf + 14, sizeof(buf) - 14, RSW_ND_NA, nh6, own6, nh6,
			 RSW_ND_NA_S | RSW_ND_NA_O, nh_mac);
	assert_true(n > 0);
	m = ct_mbuf(buf, (uint16_t)(14 + n));
	ct_punt(m, RSW_PUNT_LOCAL, 1, RSW_PK_IPV6, 14);
	expect_state("fd00:2::1", "reachable", "02:bb:00:00:00:01");
	assert_true(published(idx, NULL));
	expect_nothing_sent();

	/* Stale after five minutes: probed with a unicast NS to the MAC it had (RFC 4861 §7.3.3). */
	rsw_ctl_neigh_timer(1000 + 300000);
	expect_state("fd00:2::1", "stale", "02:bb:00:00:00:01");
	expect_ns(nh_mac);
	expect_pool_back();
}

/* -- static neighbours -- */

static void
test_static_wins(void **state)
{
	const int idx = idx4(ip4(10, 0, 2, 5));
	uint8_t mac[6];
	struct rte_mbuf *m;

	(void)state;
	ct_flush();
	assert_true(idx >= 0);
	expect_state("10.0.2.5", "static", "02:aa:00:00:00:05");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, "\x02\xaa\x00\x00\x00\x05", 6);

	/* A reply and a request claiming its address from another MAC change nothing... */
	punt_arp(arp_frame(2, p1_mac, bad_mac, ip4(10, 0, 2, 5), ip4(10, 0, 2, 254)), 1);
	punt_arp(arp_frame(1, bcast, bad_mac, ip4(10, 0, 2, 5), ip4(10, 0, 2, 254)), 1);
	{
		struct rsw_ip ip = rip4(ip4(10, 0, 2, 5));

		assert_int_equal(rsw_ctl_neigh_learn(&ip, 1, bad_mac, true), idx);
	}
	expect_state("10.0.2.5", "static", "02:aa:00:00:00:05");
	assert_true(published(idx, mac));
	assert_memory_equal(mac, "\x02\xaa\x00\x00\x00\x05", 6);
	/* ... but the request is answered. */
	m = ct_sent(1, CTL_TC);
	assert_non_null(m);
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), bad_mac, 6);
	rte_pktmbuf_free(m);

	/* It is never aged nor probed (the requests sent are all for 10.0.2.1). */
	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(10000000);
	expect_state("10.0.2.5", "static", "02:aa:00:00:00:05");
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_arp_request(1, ip4(10, 0, 2, 254), ip4(10, 0, 2, 1));
	expect_nothing_sent();
	expect_pool_back();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_learn_refused, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_arp_malformed_ignored, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_request_and_retries, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_held_then_sent, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_held_dropped_when_failed, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_connected_host_resolved, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_failed_next_hop_backoff, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_failed_next_hop_traffic, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_failed_host_asked_on_traffic, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_ageing, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_ipv6_solicit_learn_reprobe, setup6, ct_stop),
		cmocka_unit_test_setup_teardown(test_static_wins, setup, ct_stop),
	};
	int ret;

	if (ct_eal_init("neigh") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
