/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Fixtures of the tests of the burst pipeline (worker.c, docs/architecture.md) end to end
 * without a NIC (test_worker.c, test_forward.c, test_admit.c): bursts built byte by byte go
 * into rsw_process_burst; every port is a ring PMD (test_dp_common.h), so what a port sends
 * is read back from its ring after rsw_tx_drain, and punts from rsw_dp.punt. Each test
 * asserts the bytes of what comes out, the exact delta of every port counter, that the mbuf
 * pool is back where it started (nothing leaked, nothing freed twice) and that the MMU gauges
 * are back to zero. The QoS settings never drop (one lossy TC, large limits): the MMU, ECN and
 * scheduler have their own tests.
 *
 * Topology: 4 ports, port p has 10.0.p.1/24 and 2001:db8:p::1/64 (port 2's MTU
 * is 600). 192.168.0.0/16 goes through a 4-member group (10.0.p.2 on each port,
 * resolved); 172.16.0.0/16 through 10.0.1.3 (unresolved); 2001:db8:100::/48
 * through 2001:db8:1::2 (resolved).
 */

#ifndef RSW_TEST_WORKER_COMMON_H
#define RSW_TEST_WORKER_COMMON_H

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"
#include "test_dp_common.h"

#define N_PORTS      4
#define MTU_SMALL    600 /* port 2 */
#define POOL_SIZE    2047
#define TXRING_SIZE  1024 /* the ring PMDs: room for anything, but port 0's */
#define TXRING_SMALL 64   /* port 0: backpressure */

static struct rsw_port_stats before[N_PORTS];
static struct rsw_lb_member_stats lb_before[RSW_MAX_NEXTHOPS];
static uint32_t group_id;    /* the 4-member group */
static uint32_t neigh_unres; /* 10.0.1.3 */
static uint32_t plain_id[3]; /* the groups of 10.99.0.0/16, 10.98.0.0/16, 2001:db8:99::/48 */
static struct rsw_port_stats tx_seen[N_PORTS]; /* what egress() saw sent since snap() */

static const uint8_t peer_mac[6] = {0x02, 0xaa, 0x00, 0x00, 0x00, 0x01};

/* Neighbour MAC of 10.0.p.2. */
static inline void
nh_mac(uint16_t p, uint8_t mac[6])
{
	static const uint8_t base[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x00};

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)(0x10 + p);
}

static inline void
port_mac(uint16_t p, uint8_t mac[6])
{
	memcpy(mac, &rsw_dp.ports[p].mac, 6);
}

static inline uint32_t
ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;
}

static inline void
ip6(uint8_t out[16], uint16_t w2, uint16_t last)
{
	memset(out, 0, 16);
	out[0] = 0x20;
	out[1] = 0x01;
	out[2] = 0x0d;
	out[3] = 0xb8;
	out[4] = (uint8_t)(w2 >> 8);
	out[5] = (uint8_t)w2;
	out[14] = (uint8_t)(last >> 8);
	out[15] = (uint8_t)last;
}

/* An IPv4/UDP frame received on in_port, total IP length l3_len (>= 28). */
static inline void
frame4(struct ut_frame *f, uint16_t in_port, uint32_t dst, uint8_t ttl, uint16_t sport,
       uint16_t l3_len)
{
	uint8_t mac[6];

	port_mac(in_port, mac);
	ut_eth(f, mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(f, 0, ttl, IPPROTO_UDP, ip4(10, 9, 9, 9), dst, (uint16_t)(l3_len - 20));
	ut_udp(f, sport, 5000, (uint16_t)(l3_len - 20));
	ut_zeros(f, (size_t)l3_len - 28);
	f->b[f->len - 1] = 0x5a; /* the payload's last byte survives */
}

static inline void
frame6(struct ut_frame *f, uint16_t in_port, const uint8_t dst[16], uint8_t hlim, uint16_t sport)
{
	uint8_t mac[6], src[16];

	port_mac(in_port, mac);
	ip6(src, 0x99, 1);
	ut_eth(f, mac, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(f, 0, 0x12345, 8 + 16, IPPROTO_UDP, hlim, src, dst);
	ut_udp(f, sport, 5000, 8 + 16);
	ut_zeros(f, 16);
}

/* Run one burst of frames f[0..n-1] received on in_port. */
static inline void
run(uint16_t in_port, const struct ut_frame *f, uint16_t n)
{
	struct rte_mbuf *pkts[RSW_BURST];
	uint16_t i;

	assert_true(n <= RSW_BURST);
	for (i = 0; i < n; i++) {
		pkts[i] = ut_mbuf(pool, &f[i]);
		assert_non_null(pkts[i]);
	}
	rsw_process_burst(st, in_port, pkts, n);
}

/* Dequeue everything from r into out (up to max). */
static inline unsigned int
drain(struct rte_ring *r, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = 0, k;

	while (n < max && (k = rte_ring_dequeue_burst(r, (void **)out + n, max - n, NULL)) > 0)
		n += k;
	return n;
}

static inline void
free_all(struct rte_mbuf **m, unsigned int n)
{
	rte_pktmbuf_free_bulk(m, n);
}

/* Nothing anywhere: no egress queue, PMD ring or punt holds a frame; the MMU gauges are 0. */
static inline void
expect_rings_empty(void)
{
	uint16_t p;

	ut_expect_queues_empty(N_PORTS);
	for (p = 0; p < N_PORTS; p++) {
		assert_int_equal(rte_ring_count(txr[p]), 0);
		assert_int_equal(rsw_sched[p].n_pending, 0);
	}
	assert_int_equal(rsw_qos.used, 0);
	assert_int_equal(rte_ring_count(rsw_dp.punt), 0);
}

/* Switch ICMP unreachable / too-big answers on or off in the published tables. */
static inline void
set_icmp_unreachable(uint8_t on)
{
	rsw_fib_main.tables->icmp_unreachable = on;
}

/*
 * What port p sends: rsw_tx_drain (scheduler, PMD) until nothing is left, collecting the
 * frames from the PMD's ring in order. Counted into tx_seen for expect_deltas.
 */
static inline unsigned int
egress(uint16_t p, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = 0, round, k;

	for (round = 0; round < 1000; round++) {
		uint16_t work = rsw_tx_drain(st, p);

		k = (unsigned int)rte_ring_dequeue_burst(txr[p], (void **)out + n, max - n, NULL);
		for (unsigned int j = n; j < n + k; j++) {
			tx_seen[p].c[RSW_PC_tx_packets]++;
			tx_seen[p].c[RSW_PC_tx_bytes] += rte_pktmbuf_pkt_len(out[j]);
		}
		n += k;
		if (work == 0 && k == 0)
			break;
		assert_true(n < max || rte_ring_count(txr[p]) == 0);
	}
	return n;
}

static inline void
snap(void)
{
	memset(tx_seen, 0, sizeof(tx_seen));
	memcpy(before, st->port, sizeof(before));
	memcpy(lb_before, st->lb[group_id], sizeof(lb_before));
	expect_rings_empty();
	assert_int_equal(rte_mempool_in_use_count(pool), pool_start);
}

struct delta {
	uint16_t port;
	enum rsw_port_ctr c;
	uint64_t n;
};

/* Every port counter moved by exactly what d lists (others not at all). */
static inline void
expect_deltas(const struct delta *d, unsigned int n)
{
	uint16_t p;
	unsigned int c, i;

	for (p = 0; p < N_PORTS; p++)
		for (c = 0; c < RSW_N_PORT_CTRS; c++) {
			uint64_t want = tx_seen[p].c[c], got = st->port[p].c[c] - before[p].c[c];

			for (i = 0; i < n; i++)
				if (d[i].port == p && d[i].c == c)
					want += d[i].n;
			if (got != want)
				fail_msg("port %u %s: +%" PRIu64 ", expected +%" PRIu64, p,
					 rsw_port_ctr_name(c), got, want);
		}
}

/* Only port in's rx counters moved, by packets and bytes (and what egress() saw sent). */
static inline void
expect_rx_only(uint16_t in, uint64_t packets, uint64_t bytes)
{
	const struct delta d[] = {
		{in, RSW_PC_rx_packets, packets},
		{in, RSW_PC_rx_bytes, bytes},
	};

	expect_deltas(d, RTE_DIM(d));
}

/* All frames handed back: the pool is where it started. */
static inline void
expect_pool_back(void)
{
	assert_int_equal(rte_mempool_in_use_count(pool), pool_start);
}

/* The expected bytes of frame in once routed out of port out to neighbour MAC nh. */
static inline void
expect_routed(const struct rte_mbuf *m, const struct ut_frame *in, uint16_t l3_off, int v6,
	      const uint8_t nh[6], uint16_t out)
{
	struct ut_frame want = *in;
	const uint8_t *got = rte_pktmbuf_mtod(m, const uint8_t *);

	memcpy(want.b, nh, 6);
	port_mac(out, want.b + 6);
	if (v6) {
		want.b[l3_off + 7]--;
	} else {
		uint16_t ck;

		want.b[l3_off + 8]--;
		want.b[l3_off + 10] = want.b[l3_off + 11] = 0;
		ck = ut_ref_cksum(want.b + l3_off, 20);
		want.b[l3_off + 10] = (uint8_t)(ck >> 8);
		want.b[l3_off + 11] = (uint8_t)ck;
		assert_int_equal(ut_ref_cksum(got + l3_off, 20), 0);
	}
	assert_int_equal(rte_pktmbuf_pkt_len(m), in->len);
	assert_int_equal(rte_pktmbuf_data_len(m), in->len);
	assert_memory_equal(got, want.b, in->len);
}

static inline uint64_t
rx_bytes_of(const struct ut_frame *f, unsigned int n)
{
	uint64_t b = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		b += f[i].len;
	return b;
}

/* The tables: the ports' subnets and addresses, neighbours, groups and routes. */

static inline int
add_route(struct rsw_tables *t, uint8_t family, const uint8_t *addr, uint8_t len,
	  const struct rsw_result *r)
{
	struct rsw_prefix pf = {.ip = {.family = family}, .len = len};
	int nh = rsw_tables_add_result(t, r);

	if (nh < 0)
		return nh;
	memcpy(pf.ip.addr, addr, family == RSW_AF_INET ? 4 : 16);
	return rsw_tables_add_route(t, &pf, (uint32_t)nh);
}

static inline int
neigh(uint8_t family, const uint8_t *addr, uint16_t port, const uint8_t *mac)
{
	struct rsw_ip ip = {.family = family};
	int idx;

	memcpy(ip.addr, addr, family == RSW_AF_INET ? 4 : 16);
	idx = rsw_neigh_get(&ip, port);
	if (idx >= 0 && mac != NULL)
		rsw_neigh_set((uint32_t)idx, mac);
	return idx;
}

/* Add a group of one member (port p, neighbour entry neigh_idx) to t. @return its index. */
static inline uint32_t
group_of_one(struct rsw_tables *t, uint16_t p, uint32_t neigh_idx)
{
	struct rsw_group *g = &t->groups[t->n_groups];

	g->n_members = 1;
	t->nh[t->n_nh].port = p;
	t->nh[t->n_nh].neigh = neigh_idx;
	g->members[0] = t->n_nh++;
	rsw_group_fill_buckets(g, NULL);
	return t->n_groups++;
}

static inline int
build_tables(void)
{
	struct rsw_tables *t = rsw_tables_alloc(1, 64, 16, 8);
	struct rsw_group *g;
	uint32_t nbr[N_PORTS];
	uint8_t a[16], mac[6];
	uint16_t p;
	int idx;

	if (t == NULL)
		return -1;
	t->hash_fields = RSW_HF_DEFAULT;
	memcpy(t->rss_key, rsw_lb_default_rss_key, sizeof(t->rss_key));
	/* One lossy TC (every DSCP maps to TC 0), unshaped, limits nothing here reaches. */
	for (p = 0; p < RSW_N_TC; p++)
		t->qos.dwrr_quantum[p] = RSW_DWRR_QUANTUM;
	t->qos.total = 64u << 20;
	t->qos.queue_limit = 16u << 20;
	rsw_qos_params_derive(&t->qos);
	for (p = 0; p < N_PORTS; p++) {
		const struct rsw_result conn = {.type = RSW_RES_CONNECTED, .port = p};
		const struct rsw_result local = {.type = RSW_RES_LOCAL, .port = p};
		uint8_t v4[4] = {10, 0, (uint8_t)p, 0};

		if (add_route(t, RSW_AF_INET, v4, 24, &conn) != 0)
			return -1;
		v4[3] = 1;
		if (add_route(t, RSW_AF_INET, v4, 32, &local) != 0)
			return -1;
		ip6(a, p, 0);
		if (add_route(t, RSW_AF_INET6, a, 64, &conn) != 0)
			return -1;
		ip6(a, p, 1);
		if (add_route(t, RSW_AF_INET6, a, 128, &local) != 0)
			return -1;
	}
	/* 192.168.0.0/16: member p is 10.0.p.2 on port p, resolved. */
	g = &t->groups[t->n_groups];
	g->n_members = N_PORTS;
	for (p = 0; p < N_PORTS; p++) {
		const uint8_t v4[4] = {10, 0, (uint8_t)p, 2};

		nh_mac(p, mac);
		idx = neigh(RSW_AF_INET, v4, p, mac);
		if (idx < 0)
			return -1;
		t->nh[t->n_nh].port = p;
		t->nh[t->n_nh].neigh = (uint32_t)idx;
		g->members[p] = t->n_nh++;
		nbr[p] = (uint32_t)idx;
	}
	rsw_group_fill_buckets(g, NULL);
	group_id = t->n_groups++;
	t->lb_hash_batch = 1; /* as tables.c sets it: the group hashes */
	{
		const struct rsw_result r = {.type = RSW_RES_GROUP, .id = group_id};
		const uint8_t net[4] = {192, 168, 0, 0};

		if (add_route(t, RSW_AF_INET, net, 16, &r) != 0)
			return -1;
	}
	/* 172.16.0.0/16 via 10.0.1.3, unresolved. */
	{
		const uint8_t v4[4] = {10, 0, 1, 3};
		const uint8_t net[4] = {172, 16, 0, 0};
		struct rsw_result r = {.type = RSW_RES_GROUP};

		idx = neigh(RSW_AF_INET, v4, 1, NULL);
		if (idx < 0)
			return -1;
		neigh_unres = (uint32_t)idx;
		r.id = group_of_one(t, 1, (uint32_t)idx);
		if (add_route(t, RSW_AF_INET, net, 16, &r) != 0)
			return -1;
	}
	/* 2001:db8:100::/48 via 2001:db8:1::2, resolved. */
	{
		const uint8_t nmac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x06, 0x01};
		struct rsw_result r = {.type = RSW_RES_GROUP};

		ip6(a, 1, 2);
		idx = neigh(RSW_AF_INET6, a, 1, nmac);
		if (idx < 0)
			return -1;
		r.id = group_of_one(t, 1, (uint32_t)idx);
		ip6(a, 0x100, 0);
		if (add_route(t, RSW_AF_INET6, a, 48, &r) != 0)
			return -1;
	}
	/* Plain routes (one next hop): 10.99.0.0/16 via 10.0.3.2, 10.98.0.0/16 via 10.0.2.2
	 * (port 2: MTU 600). */
	for (p = 3; p >= 2; p--) {
		const uint8_t net[4] = {10, (uint8_t)(96 + p), 0, 0};
		struct rsw_result r = {.type = RSW_RES_GROUP, .single = 1, .port = p};

		r.id = plain_id[3 - p] = group_of_one(t, p, nbr[p]);
		r.neigh = nbr[p];
		if (add_route(t, RSW_AF_INET, net, 16, &r) != 0)
			return -1;
	}
	/* 2001:db8:99::/48 via 2001:db8:3::2 (port 3, the MAC of 10.0.3.2), a plain route. */
	{
		struct rsw_result r = {.type = RSW_RES_GROUP, .single = 1, .port = 3};

		nh_mac(3, mac);
		ip6(a, 3, 2);
		idx = neigh(RSW_AF_INET6, a, 3, mac);
		if (idx < 0)
			return -1;
		r.id = plain_id[2] = group_of_one(t, 3, (uint32_t)idx);
		r.neigh = (uint32_t)idx;
		ip6(a, 0x99, 0);
		if (add_route(t, RSW_AF_INET6, a, 48, &r) != 0)
			return -1;
	}
	rsw_tables_publish(t);
	return 0;
}

/*
 * Group set-up: the ring PMD ports (port 0's transmit ring small, port 2's MTU too) and the
 * packet path, no tables yet (test_no_tables).
 */
static inline int
setup(void **state)
{
	static const unsigned int txring[N_PORTS] = {TXRING_SMALL, TXRING_SIZE, TXRING_SIZE,
						     TXRING_SIZE};
	static const uint16_t mtu[N_PORTS] = {1500, 1500, MTU_SMALL, 1500};

	(void)state;
	return ut_ring_ports_setup("ut", "ut_worker", POOL_SIZE, N_PORTS, txring, mtu);
}

/* Group set-up of the tests that do not start with test_no_tables: the tables published too. */
static inline int
setup_tables(void **state)
{
	return setup(state) != 0 || build_tables() != 0 ? -1 : 0;
}

#endif /* RSW_TEST_WORKER_COMMON_H */
