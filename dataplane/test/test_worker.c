/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the burst pipeline (worker.c, DESIGN.md §3 steps 2-9) end to
 * end without a NIC: bursts built byte by byte go into rsw_process_burst; every
 * port is a ring PMD (rte_eth_from_rings), so what a port sends is read back
 * from its ring after rsw_tx_drain, and punts from rsw_dp.punt. Each test
 * asserts the bytes of what comes out, the exact delta of every port counter,
 * that the mbuf pool is back where it started (nothing leaked, nothing freed
 * twice) and that the MMU gauges are back to zero. The QoS settings never drop
 * (one lossy TC, large limits): the MMU, ECN and scheduler have their own tests.
 *
 * Topology: 4 ports, port p has 10.0.p.1/24 and 2001:db8:p::1/64 (port 2's MTU
 * is 600). 192.168.0.0/16 goes through a 4-member group (10.0.p.2 on each port,
 * resolved); 172.16.0.0/16 through 10.0.1.3 (unresolved); 2001:db8:100::/48
 * through 2001:db8:1::2 (resolved).
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

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"

#define N_PORTS      4
#define MTU_SMALL    600 /* port 2 */
#define POOL_SIZE    2047
#define TXRING_SIZE  1024 /* the ring PMDs: room for anything, but port 0's */
#define TXRING_SMALL 64   /* port 0: backpressure */

static struct rte_mempool *pool;
static struct rsw_lcore_stats *st;
static struct rsw_port_stats before[N_PORTS];
static struct rsw_lb_member_stats lb_before[RSW_MAX_NEXTHOPS];
static unsigned int pool_start;
static uint32_t group_id;    /* the 4-member group */
static uint32_t neigh_unres; /* 10.0.1.3 */
static uint32_t plain_id[3]; /* the groups of 10.99.0.0/16, 10.98.0.0/16, 2001:db8:99::/48 */
static struct rte_ring *txr[N_PORTS]; /* what the ring PMD of each port transmits */
static struct rte_ring *rxr[N_PORTS];
static uint16_t eth_port[N_PORTS] = {RTE_MAX_ETHPORTS, RTE_MAX_ETHPORTS, RTE_MAX_ETHPORTS,
				     RTE_MAX_ETHPORTS};
static struct rsw_port_stats tx_seen[N_PORTS]; /* what egress() saw sent since snap() */

static const uint8_t peer_mac[6] = {0x02, 0xaa, 0x00, 0x00, 0x00, 0x01};

/* Neighbour MAC of 10.0.p.2. */
static void
nh_mac(uint16_t p, uint8_t mac[6])
{
	static const uint8_t base[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x00};

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)(0x10 + p);
}

static void
port_mac(uint16_t p, uint8_t mac[6])
{
	memcpy(mac, &rsw_dp.ports[p].mac, 6);
}

static uint32_t
ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;
}

static void
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
static void
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

static void
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
static void
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
static unsigned int
drain(struct rte_ring *r, struct rte_mbuf **out, unsigned int max)
{
	unsigned int n = 0, k;

	while (n < max && (k = rte_ring_dequeue_burst(r, (void **)out + n, max - n, NULL)) > 0)
		n += k;
	return n;
}

static void
free_all(struct rte_mbuf **m, unsigned int n)
{
	rte_pktmbuf_free_bulk(m, n);
}

/* Nothing anywhere: no egress queue, PMD ring or punt holds a frame; the MMU gauges are 0. */
static void
expect_rings_empty(void)
{
	uint16_t p;
	int tc;

	for (p = 0; p < N_PORTS; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++) {
			assert_int_equal(rte_ring_count(rsw_qos.port[p].ring[tc]), 0);
			assert_int_equal(rsw_qos.port[p].q_bytes[tc], 0);
			assert_int_equal(rsw_qos.port[p].pg_bytes[tc], 0);
		}
		assert_int_equal(rte_ring_count(txr[p]), 0);
		assert_int_equal(rsw_sched[p].n_pending, 0);
	}
	assert_int_equal(rsw_qos.used, 0);
	assert_int_equal(rte_ring_count(rsw_dp.punt), 0);
}

/*
 * Take the n frames handed to the control thread for an ICMP error, check their reason and
 * ingress port, and free them.
 */
static void
expect_error_punts(unsigned int n, uint8_t reason, uint16_t in_port)
{
	struct rte_mbuf *m[RSW_BURST];
	unsigned int k, i;

	k = rte_ring_dequeue_burst(rsw_dp.punt, (void **)m, RTE_DIM(m), NULL);
	assert_int_equal(k, n);
	for (i = 0; i < k; i++) {
		assert_int_equal(rsw_meta(m[i])->reason, reason);
		assert_int_equal(rsw_meta(m[i])->in_port, in_port);
	}
	rte_pktmbuf_free_bulk(m, k);
}

/* Switch ICMP unreachable / too-big answers on or off in the published tables. */
static void
set_icmp_unreachable(uint8_t on)
{
	rsw_fib_main.tables->icmp_unreachable = on;
}

/*
 * What port p sends: rsw_tx_drain (scheduler, PMD) until nothing is left, collecting the
 * frames from the PMD's ring in order. Counted into tx_seen for expect_deltas.
 */
static unsigned int
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

static void
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
static void
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
static void
expect_rx_only(uint16_t in, uint64_t packets, uint64_t bytes)
{
	const struct delta d[] = {
		{in, RSW_PC_rx_packets, packets},
		{in, RSW_PC_rx_bytes, bytes},
	};

	expect_deltas(d, RTE_DIM(d));
}

/* All frames handed back: the pool is where it started. */
static void
expect_pool_back(void)
{
	assert_int_equal(rte_mempool_in_use_count(pool), pool_start);
}

/* The expected bytes of frame in once routed out of port out to neighbour MAC nh. */
static void
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

static uint64_t
rx_bytes_of(const struct ut_frame *f, unsigned int n)
{
	uint64_t b = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		b += f[i].len;
	return b;
}

/* Bad input first. */

static void
test_empty_burst(void **state)
{
	(void)state;
	snap();
	rsw_process_burst(st, 0, NULL, 0);
	expect_deltas(NULL, 0);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_malformed(void **state)
{
	struct ut_frame f[6];

	(void)state;
	snap();
	frame4(&f[0], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[0].len = 13; /* no Ethernet header */
	frame4(&f[1], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[1].b[14] = 0x44; /* IHL 4 */
	frame4(&f[2], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[2].b[24] ^= 1; /* bad header checksum */
	frame4(&f[3], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[3].len = 14 + 50; /* total length beyond the frame */
	frame6(&f[4], 1, (const uint8_t[16]){0x20, 0x01, 0x0d, 0xb8, 1, 0}, 64, 1);
	f[4].len = 14 + 39;
	frame4(&f[5], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	f[5].b[22] = 1; /* TTL 1 without a checksum update: still a checksum error */
	run(1, f, 6);
	{
		const struct delta d[] = {
			{1, RSW_PC_rx_packets, 6},
			{1, RSW_PC_rx_bytes, rx_bytes_of(f, 6)},
			{1, RSW_PC_parse_errors, 6},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
}

static void
test_not_for_us_and_control(void **state)
{
	static const uint8_t lldp[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
	static const uint8_t other[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x77};
	struct ut_frame f[4];

	(void)state;
	snap();
	frame4(&f[0], 2, ip4(192, 168, 1, 1), 64, 1, 100);
	memcpy(f[0].b, other, 6);
	/* Port 1's MAC is not port 2's. */
	frame4(&f[1], 1, ip4(192, 168, 1, 1), 64, 1, 100);
	ut_eth(&f[2], lldp, peer_mac, 0x88cc);
	ut_zeros(&f[2], 46);
	frame4(&f[3], 2, ip4(192, 168, 1, 1), 64, 1, 100);
	f[3].b[12] = 0x88;
	f[3].b[13] = 0xb5;
	run(2, f, 4);
	{
		const struct delta d[] = {
			{2, RSW_PC_rx_packets, 4},        {2, RSW_PC_rx_bytes, rx_bytes_of(f, 4)},
			{2, RSW_PC_not_for_us, 2},        {2, RSW_PC_l2_control, 1},
			{2, RSW_PC_unknown_ethertype, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
}

static void
test_ttl_expired(void **state)
{
	uint8_t dst6[16];
	struct ut_frame f[4];

	(void)state;
	snap();
	frame4(&f[0], 0, ip4(192, 168, 7, 7), 1, 1, 100); /* group route */
	frame4(&f[1], 0, ip4(10, 0, 1, 2), 1, 1, 100);    /* connected */
	frame4(&f[2], 0, ip4(192, 168, 7, 7), 0, 1, 100); /* TTL 0 */
	ip6(dst6, 0x100, 5);
	frame6(&f[3], 0, dst6, 1, 1);
	run(0, f, 4);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 4},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 4)},
			{0, RSW_PC_ttl_expired, 4},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	/* Not forwarded; handed to the control thread for ICMP time exceeded. */
	expect_error_punts(4, RSW_PUNT_TTL, 0);
	expect_rings_empty();
	expect_pool_back();
	/* Nothing went through a group member either. */
	assert_memory_equal(st->lb[group_id], lb_before, sizeof(lb_before));
}

static void
test_no_route(void **state)
{
	uint8_t dst6[16] = {0xfd, 0x00, [15] = 1};
	struct ut_frame f[3];

	(void)state;
	snap();
	frame4(&f[0], 3, ip4(11, 1, 1, 1), 64, 1, 100);
	frame4(&f[1], 3, ip4(10, 0, 9, 1), 64, 1, 100);
	frame6(&f[2], 3, dst6, 64, 1);
	run(3, f, 3);
	{
		const struct delta d[] = {
			{3, RSW_PC_rx_packets, 3},
			{3, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{3, RSW_PC_no_route, 3},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();

	/* With switch.icmp_unreachable the same drops go to the control thread to answer. */
	set_icmp_unreachable(1);
	snap();
	frame4(&f[0], 3, ip4(11, 1, 1, 1), 64, 1, 100);
	frame4(&f[1], 3, ip4(10, 0, 9, 1), 64, 1, 100);
	frame6(&f[2], 3, dst6, 64, 1);
	run(3, f, 3);
	{
		const struct delta d[] = {
			{3, RSW_PC_rx_packets, 3},
			{3, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{3, RSW_PC_no_route, 3},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_error_punts(3, RSW_PUNT_NO_ROUTE, 3);
	set_icmp_unreachable(0);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_mtu_exceeded(void **state)
{
	struct rte_mbuf *out[4];
	struct ut_frame f[3];
	uint8_t nh[6];

	(void)state;
	snap();
	/* Port 2's MTU is 600: 601 is too big, 600 fits. Through the connected route. */
	frame4(&f[0], 0, ip4(10, 0, 2, 2), 64, 1, MTU_SMALL + 1);
	frame4(&f[1], 0, ip4(10, 0, 2, 2), 64, 1, MTU_SMALL);
	frame4(&f[2], 0, ip4(10, 0, 2, 2), 64, 1, 1500);
	run(0, f, 3);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 3},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{0, RSW_PC_mtu_exceeded, 2},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	assert_int_equal(egress(2, out, 4), 1);
	nh_mac(2, nh);
	expect_routed(out[0], &f[1], 14, 0, nh, 2);
	free_all(out, 1);
	expect_rings_empty();
	expect_pool_back();
}

/* Punts. */

static void
test_punt_local(void **state)
{
	struct rte_mbuf *out[8];
	struct ut_frame f[3];
	uint8_t dst6[16];
	unsigned int n, i;

	(void)state;
	snap();
	frame4(&f[0], 1, ip4(10, 0, 1, 1), 64, 1, 100);
	/* Delivered before the TTL check: TTL 1 to the switch is local too. */
	frame4(&f[1], 1, ip4(10, 0, 3, 1), 1, 1, 100);
	ip6(dst6, 1, 1);
	frame6(&f[2], 1, dst6, 1, 1);
	run(1, f, 3);
	{
		const struct delta d[] = {
			{1, RSW_PC_rx_packets, 3},
			{1, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{1, RSW_PC_punted, 3},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = drain(rsw_dp.punt, out, 8);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		const struct rsw_mbuf_meta *meta = rsw_meta(out[i]);

		assert_int_equal(meta->reason, RSW_PUNT_LOCAL);
		assert_int_equal(meta->in_port, 1);
		assert_int_equal(meta->l3_off, 14);
		assert_int_equal(meta->neigh, UINT32_MAX);
		/* Unchanged bytes. */
		assert_int_equal(rte_pktmbuf_data_len(out[i]), f[i].len);
		assert_memory_equal(rte_pktmbuf_mtod(out[i], void *), f[i].b, f[i].len);
	}
	assert_int_equal(rsw_meta(out[0])->out_port, 1);
	assert_int_equal(rsw_meta(out[1])->out_port, 3);
	assert_int_equal(rsw_meta(out[0])->kind, RSW_PK_IPV4);
	assert_int_equal(rsw_meta(out[2])->kind, RSW_PK_IPV6);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_punt_neigh(void **state)
{
	struct rte_mbuf *out[8];
	struct ut_frame f[2];
	unsigned int n;

	(void)state;
	snap();
	/* A group member without a MAC, and a connected host without an entry. */
	frame4(&f[0], 0, ip4(172, 16, 1, 1), 64, 1, 100);
	frame4(&f[1], 0, ip4(10, 0, 3, 77), 64, 1, 100);
	run(0, f, 2);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 2},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 2)},
			{0, RSW_PC_punted, 2},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = drain(rsw_dp.punt, out, 8);
	assert_int_equal(n, 2);
	assert_int_equal(rsw_meta(out[0])->reason, RSW_PUNT_NEIGH);
	assert_int_equal(rsw_meta(out[0])->neigh, neigh_unres);
	assert_int_equal(rsw_meta(out[0])->out_port, 1);
	assert_int_equal(rsw_meta(out[1])->reason, RSW_PUNT_NEIGH);
	assert_int_equal(rsw_meta(out[1])->neigh, UINT32_MAX);
	assert_int_equal(rsw_meta(out[1])->out_port, 3);
	/* Not rewritten yet: the control thread does that once resolved. */
	assert_memory_equal(rte_pktmbuf_mtod(out[0], void *), f[0].b, f[0].len);
	assert_memory_equal(rte_pktmbuf_mtod(out[1], void *), f[1].b, f[1].len);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

static void
test_punt_arp_nd_pfc(void **state)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t nd[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
	static const uint8_t pfc[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
	struct rte_mbuf *out[8];
	struct ut_frame f[3];
	uint8_t src[16], dst[16];
	unsigned int n;

	(void)state;
	snap();
	ut_eth(&f[0], bcast, peer_mac, RTE_ETHER_TYPE_ARP);
	ut_zeros(&f[0], 28);
	ip6(src, 2, 2);
	ip6(dst, 2, 1);
	ut_eth(&f[1], nd, peer_mac, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&f[1], 0, 0, 24, IPPROTO_ICMPV6, 255, src, dst);
	ut_put8(&f[1], 135);
	ut_zeros(&f[1], 23);
	ut_eth(&f[2], pfc, peer_mac, RSW_ETHER_TYPE_MAC_CTRL);
	ut_put16(&f[2], 0x0101);
	ut_zeros(&f[2], 44);
	run(2, f, 3);
	{
		const struct delta d[] = {
			{2, RSW_PC_rx_packets, 3},
			{2, RSW_PC_rx_bytes, rx_bytes_of(f, 3)},
			{2, RSW_PC_punted, 2},
			{2, RSW_PC_pfc_rx_frames, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = drain(rsw_dp.punt, out, 8);
	assert_int_equal(n, 2);
	assert_int_equal(rsw_meta(out[0])->reason, RSW_PUNT_ARP);
	assert_int_equal(rsw_meta(out[0])->in_port, 2);
	assert_int_equal(rsw_meta(out[1])->reason, RSW_PUNT_ND);
	assert_int_equal(rsw_meta(out[1])->in_port, 2);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

/* Forwarding. */

static void
test_forward_group(void **state)
{
	struct rte_mbuf *out[RSW_BURST];
	struct ut_frame f[RSW_BURST];
	unsigned int per_port[N_PORTS] = {0}, round, total = 0, i;
	uint64_t bytes = 0, lb_pkts = 0, lb_bytes = 0;
	uint16_t p;

	(void)state;
	snap();
	/* 8 bursts of 32 flows (source port i) to 192.168.x.y, received on port 3. */
	for (round = 0; round < 8; round++) {
		for (i = 0; i < RSW_BURST; i++)
			frame4(&f[i], 3, ip4(192, 168, (uint8_t)round, (uint8_t)i), 64,
			       (uint16_t)(1000 + round * RSW_BURST + i), 100);
		run(3, f, RSW_BURST);
		bytes += rx_bytes_of(f, RSW_BURST);
		for (p = 0; p < N_PORTS; p++) {
			unsigned int n = egress(p, out, RSW_BURST), k;
			uint8_t nh[6];

			nh_mac(p, nh);
			for (k = 0; k < n; k++) {
				const uint8_t *b = rte_pktmbuf_mtod(out[k], const uint8_t *);
				const struct ut_frame *in = NULL;

				/* Find the input by its UDP source port. */
				for (i = 0; i < RSW_BURST; i++)
					if (memcmp(f[i].b + 34, b + 34, 2) == 0)
						in = &f[i];
				assert_non_null(in);
				expect_routed(out[k], in, 14, 0, nh, p);
			}
			per_port[p] += n;
			total += n;
			free_all(out, n);
		}
		expect_rings_empty();
	}
	assert_int_equal(total, 8 * RSW_BURST);
	/* 256 flows over 4 members: each gets some (fair share 64). */
	for (p = 0; p < N_PORTS; p++)
		if (per_port[p] < 32)
			fail_msg("port %u got %u of 256 flows", p, per_port[p]);
	expect_rx_only(3, 8 * RSW_BURST, bytes);
	/* Per-member counters: member p is next hop 10.0.p.2 on port p. */
	for (i = 0; i < N_PORTS; i++) {
		uint64_t dp = st->lb[group_id][i].packets - lb_before[i].packets;

		assert_int_equal(dp, per_port[i]);
		lb_pkts += dp;
		lb_bytes += st->lb[group_id][i].bytes - lb_before[i].bytes;
	}
	assert_int_equal(lb_pkts, 8 * RSW_BURST);
	assert_int_equal(lb_bytes, bytes);
	expect_pool_back();
}

static void
test_forward_stable(void **state)
{
	struct rte_mbuf *out[RSW_BURST];
	struct ut_frame f;
	int first = -1, round;
	uint16_t p;

	(void)state;
	snap();
	/* One flow, 20 times: always the same egress port. */
	for (round = 0; round < 20; round++) {
		frame4(&f, 0, ip4(192, 168, 200, 1), 64, 4242, 200);
		run(0, &f, 1);
		for (p = 0; p < N_PORTS; p++) {
			unsigned int n = egress(p, out, RSW_BURST);

			if (n == 0)
				continue;
			assert_int_equal(n, 1);
			if (first < 0)
				first = p;
			assert_int_equal(p, first);
			free_all(out, n);
		}
	}
	expect_rings_empty();
	expect_pool_back();
}

static void
test_forward_connected_and_v6(void **state)
{
	struct rte_mbuf *out[8];
	struct ut_frame f[3];
	uint8_t nh[6], dst6[16];

	(void)state;
	snap();
	/* A resolved host on a connected subnet (the group's next hop 10.0.1.2). */
	frame4(&f[0], 0, ip4(10, 0, 1, 2), 2, 1, 64);
	/* IPv6 through the static route, hop limit 2 → 1. */
	ip6(dst6, 0x100, 9);
	frame6(&f[1], 0, dst6, 2, 7);
	/* Tagged IPv4 to the same host: l3_off 18. */
	{
		uint8_t mac[6];

		port_mac(0, mac);
		ut_eth(&f[2], mac, peer_mac, RTE_ETHER_TYPE_VLAN);
		ut_vlan(&f[2], 5, 100, RTE_ETHER_TYPE_IPV4);
		ut_ipv4(&f[2], 0, 64, IPPROTO_UDP, ip4(10, 9, 9, 9), ip4(10, 0, 1, 2), 8);
		ut_udp(&f[2], 1, 2, 8);
	}
	run(0, f, 3);
	/* One bulk lookup per family: the IPv4 frames come out first. */
	assert_int_equal(egress(1, out, 8), 3);
	nh_mac(1, nh);
	expect_routed(out[0], &f[0], 14, 0, nh, 1);
	expect_routed(out[1], &f[2], 18, 0, nh, 1);
	expect_routed(out[2], &f[1], 14, 1, (const uint8_t[6]){0x0c, 0x42, 0xa1, 0x00, 0x06, 0x01},
		      1);
	free_all(out, 3);
	expect_rx_only(0, 3, rx_bytes_of(f, 3));
	expect_rings_empty();
	expect_pool_back();
}

static void
test_cnp_counted(void **state)
{
	struct rte_mbuf *out[8];
	struct ut_frame f;
	uint8_t mac[6];
	unsigned int n = 0;
	uint16_t p;

	(void)state;
	snap();
	port_mac(1, mac);
	ut_eth(&f, mac, peer_mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&f, 0xc0, 64, IPPROTO_UDP, ip4(10, 9, 9, 9), ip4(192, 168, 3, 3), 8 + 12 + 16);
	ut_udp(&f, 49152, RSW_UDP_PORT_ROCEV2, 8 + 12 + 16);
	ut_bth(&f, RSW_BTH_OPCODE_CNP, 0x42, 0);
	ut_zeros(&f, 16);
	run(1, &f, 1);
	{
		const struct delta d[] = {
			{1, RSW_PC_rx_packets, 1},
			{1, RSW_PC_rx_bytes, f.len},
			{1, RSW_PC_cnp_rx, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	for (p = 0; p < N_PORTS; p++) {
		unsigned int k = egress(p, out, 8);

		n += k;
		free_all(out, k);
	}
	assert_int_equal(n, 1);
	expect_pool_back();
}

/* Full queues: what does not fit is counted, freed and its buffer given back. */

static void
test_rings_full(void **state)
{
	static void *fill[RSW_QUEUE_RING_SIZE];
	struct rte_ring *q1 = rsw_qos.port[1].ring[0];
	void **junk = fill;
	struct rte_mbuf *out[4];
	struct ut_frame f[4];
	unsigned int free_slots, i;
	uint64_t dropped = st->qos.q[1][0][RSW_QC_dropped_packets];

	(void)state;
	snap();
	/* Port 1's TC 0 queue and the punt ring full of placeholders. */
	for (i = 0; i < RTE_DIM(fill); i++)
		fill[i] = (void *)(uintptr_t)(0x1000 + i);
	free_slots = rte_ring_free_count(q1);
	assert_int_equal(rte_ring_enqueue_bulk(q1, fill, free_slots, NULL), free_slots);
	free_slots = rte_ring_free_count(rsw_dp.punt);
	assert_int_equal(rte_ring_enqueue_bulk(rsw_dp.punt, fill, free_slots, NULL), free_slots);

	frame4(&f[0], 0, ip4(10, 0, 1, 2), 64, 1, 100); /* → port 1 */
	frame4(&f[1], 0, ip4(10, 0, 1, 2), 64, 2, 100); /* → port 1 */
	frame4(&f[2], 0, ip4(10, 0, 0, 1), 64, 1, 100); /* local: punt */
	frame4(&f[3], 0, ip4(10, 0, 2, 2), 64, 1, 100); /* → port 2, not full */
	run(0, f, 4);
	assert_int_equal(st->qos.q[1][0][RSW_QC_dropped_packets] - dropped, 2);
	/* Only placeholders in the full rings (taken out before any rsw_tx_drain of port 1). */
	i = rte_ring_dequeue_burst(q1, junk, RSW_QUEUE_RING_SIZE, NULL);
	assert_int_equal(i, RSW_QUEUE_RING_SIZE - 1);
	assert_ptr_equal(junk[i - 1], (void *)(uintptr_t)(0x1000 + i - 1));
	i = rte_ring_dequeue_burst(rsw_dp.punt, junk, RSW_QUEUE_RING_SIZE, NULL);
	assert_int_equal(i, RSW_PUNT_RING_SIZE - 1);
	assert_int_equal(egress(2, out, 4), 1);
	free_all(out, 1);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 4},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 4)},
			{0, RSW_PC_punt_dropped, 1},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
}

/* rsw_tx_drain on a PMD that takes less than offered: nothing is lost, all goes out in order. */

static void
test_tx_drain(void **state)
{
	struct rte_mbuf *out[4 * RSW_BURST];
	struct ut_frame f[RSW_BURST];
	unsigned int n, i, round;
	uint64_t bytes = 0;

	(void)state;
	snap();
	/* Nothing queued. */
	assert_int_equal(rsw_tx_drain(st, 0), 0);
	/* 96 frames to 10.0.0.2 on port 0, whose PMD ring holds only TXRING_SMALL - 1. */
	for (round = 0; round < 3; round++) {
		for (i = 0; i < RSW_BURST; i++)
			frame4(&f[i], 1, ip4(10, 0, 0, 2), 64, (uint16_t)(round * RSW_BURST + i),
			       (uint16_t)(60 + i));
		run(1, f, RSW_BURST);
		bytes += rx_bytes_of(f, RSW_BURST);
	}
	for (i = 0; i < 4; i++)
		rsw_tx_drain(st, 0);
	assert_int_equal(rte_ring_count(txr[0]), TXRING_SMALL - 1);
	assert_true(rsw_sched[0].n_pending > 0);
	n = egress(0, out, RTE_DIM(out));
	assert_int_equal(n, 3 * RSW_BURST);
	/* In order: the UDP source port counts up. */
	for (i = 0; i < n; i++) {
		const uint8_t *b = rte_pktmbuf_mtod(out[i], const uint8_t *);

		assert_int_equal(b[34] << 8 | b[35], i);
	}
	free_all(out, n);
	{
		/* egress() counted only what it read itself: add what was read before. */
		const struct delta d[] = {
			{1, RSW_PC_rx_packets, 3 * RSW_BURST},
			{1, RSW_PC_rx_bytes, bytes},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	assert_int_equal(tx_seen[0].c[RSW_PC_tx_bytes], bytes);
	expect_rings_empty();
	expect_pool_back();
}

/* A 32-packet burst of every kind at once. */

static void
test_mixed_burst(void **state)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct rte_mbuf *out[RSW_BURST];
	struct ut_frame f[RSW_BURST];
	unsigned int fwd = 0, n, i;
	uint8_t dst6[16];
	uint16_t p;

	(void)state;
	snap();
	for (i = 0; i < RSW_BURST; i++) {
		switch (i % 8) {
		case 0: /* group */
			frame4(&f[i], 2, ip4(192, 168, 50, (uint8_t)i), 64, (uint16_t)i, 80);
			fwd++;
			break;
		case 1: /* connected, resolved */
			frame4(&f[i], 2, ip4(10, 0, 3, 2), 64, (uint16_t)i, 80);
			fwd++;
			break;
		case 2: /* TTL 1 */
			frame4(&f[i], 2, ip4(192, 168, 50, 1), 1, (uint16_t)i, 80);
			break;
		case 3: /* no route */
			frame4(&f[i], 2, ip4(100, 0, 0, 1), 64, (uint16_t)i, 80);
			break;
		case 4: /* local */
			frame4(&f[i], 2, ip4(10, 0, 2, 1), 64, (uint16_t)i, 80);
			break;
		case 5: /* malformed */
			frame4(&f[i], 2, ip4(192, 168, 50, 1), 64, (uint16_t)i, 80);
			f[i].b[14] = 0x43;
			break;
		case 6: /* IPv6 through the static route */
			ip6(dst6, 0x100, (uint16_t)i);
			frame6(&f[i], 2, dst6, 64, (uint16_t)i);
			fwd++;
			break;
		default: /* ARP */
			ut_eth(&f[i], bcast, peer_mac, RTE_ETHER_TYPE_ARP);
			ut_zeros(&f[i], 28);
			break;
		}
	}
	run(2, f, RSW_BURST);
	{
		const struct delta d[] = {
			{2, RSW_PC_rx_packets, RSW_BURST},
			{2, RSW_PC_rx_bytes, rx_bytes_of(f, RSW_BURST)},
			{2, RSW_PC_ttl_expired, 4},
			{2, RSW_PC_no_route, 4},
			{2, RSW_PC_parse_errors, 4},
			{2, RSW_PC_punted, 8},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	n = 0;
	for (p = 0; p < N_PORTS; p++) {
		unsigned int k = egress(p, out, RSW_BURST), j;

		for (j = 0; j < k; j++) {
			const uint8_t *b = rte_pktmbuf_mtod(out[j], const uint8_t *);

			/* Source MAC of the egress port; TTL/hop limit 63. */
			assert_memory_equal(b + 6, &rsw_dp.ports[p].mac, 6);
			if (b[12] == 0x08)
				assert_int_equal(b[14 + 8], 63);
			else
				assert_int_equal(b[14 + 7], 63);
		}
		n += k;
		free_all(out, k);
	}
	assert_int_equal(n, fwd);
	/* 8 punts (ARP, local), then the 4 TTL-expired frames for ICMP time exceeded. */
	n = drain(rsw_dp.punt, out, RSW_BURST);
	assert_int_equal(n, 12);
	for (i = 0; i < n; i++)
		assert_int_equal(rsw_meta(out[i])->reason, i < 4   ? RSW_PUNT_ARP
							   : i < 8 ? RSW_PUNT_LOCAL
								   : RSW_PUNT_TTL);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

/*
 * The admit step decided per burst (rsw_mmu_admit_burst): the frames resolve staged on an idle
 * port go straight to it, admitted whole, while CNPs and the frames of ports it does not admit
 * whole are admitted one by one. Admitted whole, one by one and cut-through, or one by one and
 * queued: what leaves and every counter are the same.
 */

/* What one run of the mixed burst did. */
struct xrun {
	struct rsw_port_stats d[N_PORTS];        /* counter deltas */
	uint64_t q3[RSW_N_QUEUE_CTRS];           /* port 3 TC 0 queue counter deltas */
	uint64_t lb;                             /* packets of the two plain routes to port 3 */
	struct rsw_lb_member_stats g[N_PORTS];   /* the ECMP group's members */
	uint64_t whole;                          /* admitted_whole delta */
	unsigned int n[N_PORTS];                 /* frames sent per port */
	struct ut_frame out[N_PORTS][RSW_BURST]; /* their bytes, in order */
};

/*
 * 32 frames received on port 0: i % 8 < 3 to 10.99.0.0/16 and 3 to 2001:db8:99::/48 (port 3:
 * staged), 4 a CNP to 10.99.0.0/16 (cnp_rx, admitted alone, forwarded), 5 too big for port 2's
 * MTU (10.98.0.0/16), 6 TTL 1, 7 to the ECMP group.
 */
static void
mixed_frames(struct ut_frame *f)
{
	uint8_t mac[6];
	unsigned int i;

	port_mac(0, mac);
	for (i = 0; i < RSW_BURST; i++) {
		uint32_t dst = ip4(10, 99, 0, (uint8_t)i);

		switch (i % 8) {
		case 4:
			ut_eth(&f[i], mac, peer_mac, RTE_ETHER_TYPE_IPV4);
			ut_ipv4(&f[i], 0, 64, IPPROTO_UDP, ip4(10, 9, 9, 9), dst, 8 + 12 + 16);
			ut_udp(&f[i], (uint16_t)i, RSW_UDP_PORT_ROCEV2, 8 + 12 + 16);
			ut_bth(&f[i], RSW_BTH_OPCODE_CNP, 0x42, 0);
			ut_zeros(&f[i], 16);
			break;
		case 5:
			frame4(&f[i], 0, ip4(10, 98, 0, 1), 64, (uint16_t)i, MTU_SMALL + 1);
			break;
		case 6:
			frame4(&f[i], 0, dst, 1, (uint16_t)i, 80);
			break;
		case 7:
			frame4(&f[i], 0, ip4(192, 168, 7, (uint8_t)i), 64, (uint16_t)i, 80);
			break;
		case 3: {
			uint8_t dst6[16];

			ip6(dst6, 0x99, (uint16_t)i);
			frame6(&f[i], 0, dst6, 64, (uint16_t)i);
			break;
		}
		default:
			frame4(&f[i], 0, dst, 64, (uint16_t)i, (uint16_t)(60 + i));
			break;
		}
	}
}

static void
mixed_run(const struct ut_frame *f, struct xrun *x)
{
	uint64_t lb = st->lb[plain_id[0]][0].packets + st->lb[plain_id[2]][0].packets;
	uint64_t q[RSW_N_QUEUE_CTRS], e = st->admitted_whole;
	struct rte_mbuf *out[RSW_BURST];
	unsigned int i, c;
	uint16_t p;

	snap();
	memcpy(q, st->qos.q[3][0], sizeof(q));
	st->lb_state.rr[group_id] = 0; /* spray: every run from the same position */
	run(0, f, RSW_BURST);
	x->whole = st->admitted_whole - e;
	for (p = 0; p < N_PORTS; p++) {
		x->n[p] = egress(p, out, RSW_BURST);
		for (i = 0; i < x->n[p]; i++) {
			x->out[p][i].len = rte_pktmbuf_pkt_len(out[i]);
			memcpy(x->out[p][i].b, rte_pktmbuf_mtod(out[i], void *), x->out[p][i].len);
		}
		free_all(out, x->n[p]);
		for (c = 0; c < RSW_N_PORT_CTRS; c++)
			x->d[p].c[c] = st->port[p].c[c] - before[p].c[c];
	}
	for (c = 0; c < RSW_N_QUEUE_CTRS; c++)
		x->q3[c] = st->qos.q[3][0][c] - q[c];
	x->lb = st->lb[plain_id[0]][0].packets + st->lb[plain_id[2]][0].packets - lb;
	for (p = 0; p < N_PORTS; p++) {
		x->g[p].packets = st->lb[group_id][p].packets - lb_before[p].packets;
		x->g[p].bytes = st->lb[group_id][p].bytes - lb_before[p].bytes;
	}
	/* The MTU and TTL errors (4 each) for the control thread to answer. */
	i = drain(rsw_dp.punt, out, RSW_BURST);
	assert_int_equal(i, 8);
	free_all(out, i);
	expect_rings_empty();
	expect_pool_back();
}

/* Run o (number r) sent the same frames from each port as run a, and moved every counter alike. */
static void
expect_same_run(const struct xrun *a, const struct xrun *o, unsigned int r)
{
	unsigned int i, j, k;

	assert_memory_equal(a->d, o->d, sizeof(a->d));
	assert_memory_equal(a->q3, o->q3, sizeof(a->q3));
	assert_int_equal(a->lb, o->lb);
	assert_memory_equal(a->g, o->g, sizeof(a->g));
	assert_memory_equal(a->n, o->n, sizeof(a->n));
	for (i = 0; i < N_PORTS; i++)
		for (k = 0; k < a->n[i]; k++) {
			for (j = 0; j < o->n[i]; j++)
				if (a->out[i][k].len == o->out[i][j].len &&
				    memcmp(a->out[i][k].b, o->out[i][j].b, a->out[i][k].len) == 0)
					break;
			if (j == o->n[i])
				fail_msg("port %u: frame %u of the first run not in run %u", i, k,
					 r);
		}
}

/*
 * The mixed burst admitted per burst (a), every frame admitted one by one with cut-through (b),
 * and queued and scheduled (c).
 */
static void
mixed_runs(const struct ut_frame *f, struct xrun *a, struct xrun *b, struct xrun *c)
{
	set_icmp_unreachable(1);
	rsw_dp.cut_through = true;
	rsw_dp.admit_burst = true;
	mixed_run(f, a);
	rsw_dp.admit_burst = false;
	mixed_run(f, b);
	rsw_dp.cut_through = false;
	mixed_run(f, c);
	rsw_dp.admit_burst = true;
	set_icmp_unreachable(0);
	assert_int_equal(b->whole + c->whole, 0);
	expect_same_run(a, b, 1);
	expect_same_run(a, c, 2);
}

/* Where frame in is among the n frames out sent (the bytes past its rewritten headers); n if not. */
static unsigned int
find_sent(const struct ut_frame *out, unsigned int n, const struct ut_frame *in)
{
	unsigned int at;

	for (at = 0; at < n; at++)
		if (out[at].len == in->len && memcmp(out[at].b + 34, in->b + 34, in->len - 34) == 0)
			break;
	return at;
}

/* Frame number at of those run a sent from port 3 is in, routed to that port's neighbour. */
static void
expect_sent3(const struct xrun *a, unsigned int at, const struct ut_frame *in, int v6)
{
	struct rte_mbuf *m;
	uint8_t mac[6];

	assert_true(at < a->n[3]);
	m = ut_mbuf(pool, &a->out[3][at]);
	assert_non_null(m);
	nh_mac(3, mac);
	expect_routed(m, in, RTE_ETHER_HDR_LEN, v6, mac, 3);
	rte_pktmbuf_free(m);
}

static void
test_admit_burst(void **state)
{
	static struct ut_frame f[RSW_BURST];
	static struct xrun a, b, c;
	unsigned int i, k = 0, at, ecmp3 = 0;

	(void)state;
	mixed_frames(f);
	mixed_runs(f, &a, &b, &c);

	/*
	 * The 16 plain-route frames and the 4 ECMP frames were admitted whole (each ECMP frame to
	 * the member the runs one by one hashed it to: mixed_runs compared), first: IPv4 then IPv6,
	 * each in arrival order; then the frames admitted alone to port 3, the CNPs.
	 */
	assert_int_equal(a.whole, 20);
	for (i = 0; i < RSW_BURST; i++) {
		if (i % 8 == 7 && find_sent(a.out[3], a.n[3], &f[i]) < a.n[3])
			ecmp3++;
		else if (i % 8 >= 3)
			continue;
		expect_sent3(&a, k++, &f[i], 0);
	}
	for (i = 3; i < RSW_BURST; i += 8)
		expect_sent3(&a, k++, &f[i], 1);
	assert_int_equal(k, 16 + ecmp3);
	for (i = 4; i < RSW_BURST; i += 8) { /* a CNP: after the staged frames */
		at = find_sent(a.out[3], a.n[3], &f[i]);
		assert_true(at >= k);
		expect_sent3(&a, at, &f[i], 0);
	}
	assert_int_equal(a.n[3], 20 + ecmp3);
	assert_int_equal(a.d[0].c[RSW_PC_rx_packets], RSW_BURST);
	assert_int_equal(a.d[0].c[RSW_PC_rx_bytes], rx_bytes_of(f, RSW_BURST));
	assert_int_equal(a.d[0].c[RSW_PC_cnp_rx], 4);
	assert_int_equal(a.d[0].c[RSW_PC_mtu_exceeded], 4);
	assert_int_equal(a.d[0].c[RSW_PC_ttl_expired], 4);
	assert_int_equal(a.d[3].c[RSW_PC_tx_packets], a.n[3]);
	assert_int_equal(a.q3[RSW_QC_enqueued_packets], a.n[3]);
	assert_int_equal(a.q3[RSW_QC_dequeued_packets], a.n[3]);
	assert_int_equal(a.lb, 20);
	assert_int_equal(a.g[0].packets + a.g[1].packets + a.g[2].packets + a.g[3].packets, 4);
}

/*
 * With a member down, the ECMP frames are still admitted whole: the down member's flows move
 * over the live members (rsw_lb_pick_live), in every run alike (mixed_runs compares).
 */
static void
test_admit_burst_member_down(void **state)
{
	static struct ut_frame f[RSW_BURST];
	static struct xrun a, b, c;
	const struct rsw_tables *t = rsw_fib_main.tables;
	struct rsw_pkt_info info;
	struct rte_ether_addr ea;
	struct rte_mbuf *m;
	uint8_t mac[6];
	uint32_t mi;

	(void)state;
	mixed_frames(f);
	/* Down: the member the first ECMP frame hashes to. */
	m = ut_mbuf(pool, &f[7]);
	assert_non_null(m);
	port_mac(0, mac);
	memcpy(ea.addr_bytes, mac, 6);
	assert_int_equal(rsw_parse_inline(m, &ea, &info), RSW_PK_IPV4);
	mi = rsw_lb_pick_hash(&t->groups[group_id], rsw_lb_hash(t, m, &info));
	rte_pktmbuf_free(m);
	rsw_lb_down[group_id] = (uint16_t)(1u << mi);
	mixed_runs(f, &a, &b, &c);
	rsw_lb_down[group_id] = 0;
	assert_int_equal(a.whole, 20);
	assert_int_equal(a.g[mi].packets, 0);
	assert_int_equal(a.g[0].packets + a.g[1].packets + a.g[2].packets + a.g[3].packets, 4);
}

/*
 * A group that sprays round-robin is admitted whole too, member for member as the runs one by
 * one pick them from the same position.
 */
static void
test_admit_burst_spray(void **state)
{
	static struct ut_frame f[RSW_BURST];
	static struct xrun a, b, c;
	struct rsw_group *g = &rsw_fib_main.tables->groups[group_id];
	int16_t mode = g->lb_mode;
	uint16_t p;

	(void)state;
	g->lb_mode = RSW_LB_SPRAY;
	mixed_frames(f);
	mixed_runs(f, &a, &b, &c);
	g->lb_mode = mode;
	assert_int_equal(a.whole, 20);
	/* The 4 ECMP frames, one per member in the spray sequence's order. */
	for (p = 0; p < N_PORTS; p++)
		assert_int_equal(a.g[p].packets, 1);
}

/* Four 100-byte IPv4 frames from port 0 to a plain route via port 3 (TC 0): 4 x 114 bytes. */
static void
burst4_to_port3(struct ut_frame f[4])
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		frame4(&f[i], 0, ip4(10, 99, 1, (uint8_t)i), 64, (uint16_t)i, 100);
}

/*
 * Send the four frames of burst4_to_port3 with cut-through on: the burst's admission must
 * admit none of them whole (admitted_whole still e).
 */
static void
whole_refused(const struct ut_frame f[4], uint64_t e)
{
	rsw_dp.cut_through = true;
	run(0, f, 4);
	assert_int_equal(st->admitted_whole, e);
}

/* A port with a frame queued is not admitted whole: nothing overtakes the frame. */
static void
test_admit_behind_queue(void **state)
{
	struct rte_mbuf *out[8];
	struct ut_frame f[5];
	uint64_t e = st->admitted_whole;
	unsigned int i, n;

	(void)state;
	snap();
	for (i = 0; i < 5; i++)
		frame4(&f[i], 0, ip4(10, 99, 1, 1), 64, (uint16_t)(100 + i), 80);
	rsw_dp.cut_through = false;
	run(0, f, 1); /* queued: nobody drained port 3 */
	assert_int_equal(rte_ring_count(rsw_qos.port[3].ring[0]), 1);
	rsw_dp.cut_through = true;
	run(0, f + 1, 4);
	assert_int_equal(st->admitted_whole, e); /* all four one by one, behind it */
	n = egress(3, out, 8);
	rsw_dp.cut_through = false;
	assert_int_equal(n, 5);
	for (i = 0; i < n; i++) {
		const struct rte_udp_hdr *u =
			rte_pktmbuf_mtod_offset(out[i], const struct rte_udp_hdr *, 34);

		assert_int_equal(rte_be_to_cpu_16(u->src_port), 100 + i);
	}
	free_all(out, n);
	expect_rx_only(0, 5, rx_bytes_of(f, 5));
	expect_rings_empty();
	expect_pool_back();
}

/* A port's staged bytes above burst_bytes[] (here ECN's kmin): admitted one by one. */
static void
test_admit_burst_check(void **state)
{
	struct rsw_qos_params *qp = &rsw_fib_main.tables->qos;
	struct rte_mbuf *out[8];
	struct ut_frame f[4];
	uint64_t e = st->admitted_whole, enq = st->qos.q[3][0][RSW_QC_enqueued_packets];
	unsigned int n;

	(void)state;
	snap();
	burst4_to_port3(f);
	qp->ecn_enabled = 1; /* TC 0: kmin 300 bytes, below the burst's 4 × 114 */
	qp->kmin[0] = 300;
	qp->kmax[0] = 1u << 20;
	rsw_qos_params_derive(qp);
	assert_int_equal(qp->burst_bytes[0], 300);
	assert_int_equal(qp->burst_bytes[1], qp->queue_limit);
	whole_refused(f, e);
	/* Not cut-through either (ECN could mark at dequeue): queued, then scheduled. */
	assert_int_equal(rte_ring_count(rsw_qos.port[3].ring[0]), 4);
	n = egress(3, out, 8);
	assert_int_equal(n, 4);
	free_all(out, n);
	assert_int_equal(st->qos.q[3][0][RSW_QC_enqueued_packets] - enq, 4);
	/* Within the limit, the same burst is admitted whole. */
	qp->kmin[0] = 4 * 114;
	rsw_qos_params_derive(qp);
	snap();
	run(0, f, 4);
	assert_int_equal(st->admitted_whole - e, 4);
	assert_int_equal(rte_ring_count(rsw_qos.port[3].ring[0]), 0);
	n = egress(3, out, 8);
	assert_int_equal(n, 4);
	free_all(out, n);
	qp->ecn_enabled = 0;
	qp->kmin[0] = qp->kmax[0] = 0;
	rsw_qos_params_derive(qp);
	rsw_dp.cut_through = false;
	expect_rings_empty();
	expect_pool_back();
}

/*
 * A lossless TC: a burst is admitted whole only if its bytes fit below the ingress PG's XOFF
 * threshold plus headroom, the bound each frame is admitted against one by one.
 */
static void
test_admit_burst_lossless_room(void **state)
{
	struct rsw_qos_params *qp = &rsw_fib_main.tables->qos, saved = *qp;
	struct rte_mbuf *out[16];
	struct ut_frame f[4];
	uint64_t e = st->admitted_whole;
	unsigned int n;

	(void)state;
	snap();
	burst4_to_port3(f);
	qp->lossless = 1u << 0; /* the frames' TC; 4 x 114 bytes in the burst */
	qp->dynamic = 0;
	qp->xoff = 300;
	qp->xon = 100;
	qp->headroom = 155; /* room for 455 bytes: one short */
	rsw_qos_params_derive(qp);
	whole_refused(f, e);
	/* Admitted one by one (what that does at the threshold is tested elsewhere). */
	n = egress(3, out, 16);
	free_all(out, n);
	n = egress(0, out, 16); /* PFC frames, if it paused the peer */
	free_all(out, n);
	/* One byte more of headroom: the same burst is admitted whole. */
	qp->headroom = 156;
	rsw_qos_params_derive(qp);
	snap();
	run(0, f, 4);
	assert_int_equal(st->admitted_whole - e, 4);
	assert_int_equal(rsw_qos.port[0].pg_bytes[0], 0);
	n = egress(3, out, 16);
	assert_int_equal(n, 4);
	free_all(out, n);
	*qp = saved;
	rsw_dp.cut_through = false;
	n = egress(0, out, 16);
	free_all(out, n);
	expect_rings_empty();
	expect_pool_back();
}

/* Set-up: EAL is up; build ports, neighbours, tables and the ring PMD. */

static int
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

static int
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
static uint32_t
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

/*
 * A connected host is reached through its subnet's adjacency (one slot per host, the FIB never
 * rebuilt): unknown, it is punted to be resolved, as before; learned (its entry created, which
 * writes the slot, then its MAC), a burst to it is admitted whole with the neighbour's
 * MAC; aged (the MAC invalidated, the slot kept), it is punted again, with its entry.
 */
static void
test_adjacency_learn(void **state)
{
	static const uint8_t mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x03, 0x4d};
	static const uint8_t addr[4] = {10, 0, 3, 77};
	static struct ut_frame f[RSW_BURST];
	struct rsw_tables *t = rsw_fib_main.tables;
	struct rte_mbuf *out[RSW_BURST];
	uint32_t host = ip4(10, 0, 3, 77);
	uint64_t whole, connected, nhv = 0;
	unsigned int i, n;
	int idx;

	(void)state;
	snap();
	/* Unknown: punted to resolve, no entry. */
	frame4(&f[0], 0, host, 64, 1, 100);
	run(0, f, 1);
	n = drain(rsw_dp.punt, out, RSW_BURST);
	assert_int_equal(n, 1);
	assert_int_equal(rsw_meta(out[0])->reason, RSW_PUNT_NEIGH);
	assert_int_equal(rsw_meta(out[0])->neigh, UINT32_MAX);
	free_all(out, n);

	/* Learned: creating the entry wrote the slot of the same generation. */
	idx = neigh(RSW_AF_INET, addr, 3, mac);
	assert_true(idx >= 0);
	assert_ptr_equal(rsw_fib_main.tables, t);
	assert_int_equal(rte_fib_lookup_bulk(t->fib4, &host, &nhv, 1), 0);
	assert_int_equal(t->results[nhv].type, RSW_RES_CONNECTED);
	assert_int_equal(rsw_adj_lookup4(t, &t->results[nhv], host), (uint32_t)idx);
	for (i = 0; i < RSW_BURST; i++)
		frame4(&f[i], 0, host, 64, (uint16_t)(i + 1), 100);
	rsw_dp.cut_through = true;
	whole = st->admitted_whole;
	connected = st->connected.packets;
	run(0, f, RSW_BURST);
	rsw_dp.cut_through = false;
	assert_int_equal(st->admitted_whole - whole, RSW_BURST);
	assert_int_equal(st->connected.packets - connected, RSW_BURST);
	n = egress(3, out, RSW_BURST);
	assert_int_equal(n, RSW_BURST);
	for (i = 0; i < n; i++)
		expect_routed(out[i], &f[i], RTE_ETHER_HDR_LEN, 0, mac, 3);
	free_all(out, n);

	/* Aged: punted with its entry, nothing sent. */
	rsw_neigh_set((uint32_t)idx, NULL);
	frame4(&f[0], 0, host, 64, 1, 100);
	run(0, f, 1);
	n = drain(rsw_dp.punt, out, RSW_BURST);
	assert_int_equal(n, 1);
	assert_int_equal(rsw_meta(out[0])->reason, RSW_PUNT_NEIGH);
	assert_int_equal(rsw_meta(out[0])->neigh, (uint32_t)idx);
	assert_int_equal(rsw_meta(out[0])->out_port, 3);
	free_all(out, n);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, RSW_BURST + 2},
			{0, RSW_PC_rx_bytes, (RSW_BURST + 2) * (RTE_ETHER_HDR_LEN + 100)},
			{0, RSW_PC_punted, 2},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
}

static int
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

static int
ring_ports_start(void)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	uint16_t p;
	int ret;

	for (p = 0; p < N_PORTS; p++) {
		unsigned int size = p == 0 ? TXRING_SMALL : TXRING_SIZE;

		snprintf(name, sizeof(name), "ut_pmd_rx%u", p);
		rxr[p] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "ut_pmd_tx%u", p);
		txr[p] = rte_ring_create(name, size, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rxr[p] == NULL || txr[p] == NULL)
			return -1;
		snprintf(name, sizeof(name), "ut%u", p);
		ret = rte_eth_from_rings(name, &rxr[p], 1, &txr[p], 1, SOCKET_ID_ANY);
		if (ret < 0)
			return -1;
		eth_port[p] = (uint16_t)ret;
		if (rte_eth_dev_configure(eth_port[p], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(eth_port[p], 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
		    rte_eth_tx_queue_setup(eth_port[p], 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(eth_port[p]) != 0)
			return -1;
	}
	return 0;
}

static int
setup(void **state)
{
	uint16_t p;

	(void)state;
	if (rsw_stats_init() != 0 || rsw_fib_init(1) != 0)
		return -1;
	st = rsw_stats[rte_lcore_id()];
	pool = rte_pktmbuf_pool_create("ut_worker", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (st == NULL || pool == NULL)
		return -1;
	if (ring_ports_start() != 0)
		return -1;
	rsw_dp.pool = pool;
	for (p = 0; p < N_PORTS; p++) {
		struct rsw_port_rt *pr = &rsw_dp.ports[p];
		const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)(p + 1)};

		memcpy(&pr->mac, mac, 6);
		pr->mtu = p == 2 ? MTU_SMALL : 1500;
		pr->eth_port = eth_port[p];
		pr->owner = (uint16_t)rte_lcore_id();
	}
	if (rsw_dp_init(N_PORTS) != 0)
		return -1;
	pool_start = rte_mempool_in_use_count(pool);
	return 0;
}

static int
teardown(void **state)
{
	char name[32];
	uint16_t p;

	(void)state;
	rsw_dp_fini();
	for (p = 0; p < N_PORTS; p++) {
		if (eth_port[p] != RTE_MAX_ETHPORTS) {
			rte_eth_dev_stop(eth_port[p]);
			rte_eth_dev_close(eth_port[p]);
			snprintf(name, sizeof(name), "net_ring_ut%u", p);
			rte_vdev_uninit(name);
		}
		rte_ring_free(rxr[p]);
		rte_ring_free(txr[p]);
	}
	rsw_fib_fini();
	rsw_stats_fini();
	rte_mempool_free(pool);
	return 0;
}

/* Before any tables are published, every IP packet is no_route. */
static void
test_no_tables(void **state)
{
	struct ut_frame f[2];
	uint8_t dst6[16];

	(void)state;
	assert_null(rsw_fib_main.tables);
	snap();
	frame4(&f[0], 0, ip4(192, 168, 1, 1), 64, 1, 100);
	ip6(dst6, 0x100, 1);
	frame6(&f[1], 0, dst6, 64, 1);
	run(0, f, 2);
	{
		const struct delta d[] = {
			{0, RSW_PC_rx_packets, 2},
			{0, RSW_PC_rx_bytes, rx_bytes_of(f, 2)},
			{0, RSW_PC_no_route, 2},
		};

		expect_deltas(d, RTE_DIM(d));
	}
	expect_rings_empty();
	expect_pool_back();
	assert_int_equal(build_tables(), 0);
	assert_non_null(rsw_fib_main.tables);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_tables), /* publishes the tables */
		cmocka_unit_test(test_empty_burst),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_not_for_us_and_control),
		cmocka_unit_test(test_ttl_expired),
		cmocka_unit_test(test_no_route),
		cmocka_unit_test(test_mtu_exceeded),
		cmocka_unit_test(test_punt_local),
		cmocka_unit_test(test_punt_neigh),
		cmocka_unit_test(test_punt_arp_nd_pfc),
		cmocka_unit_test(test_forward_group),
		cmocka_unit_test(test_forward_stable),
		cmocka_unit_test(test_forward_connected_and_v6),
		cmocka_unit_test(test_cnp_counted),
		cmocka_unit_test(test_rings_full),
		cmocka_unit_test(test_tx_drain),
		cmocka_unit_test(test_mixed_burst),
		cmocka_unit_test(test_admit_burst),
		cmocka_unit_test(test_admit_burst_member_down),
		cmocka_unit_test(test_admit_burst_spray),
		cmocka_unit_test(test_admit_behind_queue),
		cmocka_unit_test(test_admit_burst_check),
		cmocka_unit_test(test_admit_burst_lossless_room),
		cmocka_unit_test(test_adjacency_learn), /* leaves 10.0.3.77 an entry */
	};
	int ret;

	if (ut_eal_init("worker") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, setup, teardown);
	rte_eal_cleanup();
	return ret;
}
