/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the burst pipeline (worker.c) forwarding, end to end without a NIC on ring
 * PMD ports (test_worker_common.h: the topology): through the group, a connected host and the
 * IPv6 route; CNPs; full queues; rsw_tx_drain on a PMD that takes less than offered; a burst
 * of every kind at once. The admit step per burst: test_admit.c.
 */

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
#include "test_worker_common.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forward_group),
		cmocka_unit_test(test_forward_stable),
		cmocka_unit_test(test_forward_connected_and_v6),
		cmocka_unit_test(test_cnp_counted),
		cmocka_unit_test(test_rings_full),
		cmocka_unit_test(test_tx_drain),
		cmocka_unit_test(test_mixed_burst),
	};

	return ut_main("forward", tests, RTE_DIM(tests), setup_tables, ut_ring_ports_teardown, NULL,
		       0);
}
