/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the admit step of the burst pipeline (worker.c, rsw_mmu_admit_burst) end to
 * end without a NIC on ring PMD ports (test_worker_common.h: the topology): a mixed burst
 * admitted per burst, one by one with cut-through and one by one queued sends the same frames
 * and moves every counter alike, a member down or a spraying group included; and what a port
 * must not be admitted whole with (a frame queued, bytes above ECN's kmin or a lossless PG's
 * room); then a connected host through its subnet's adjacency, unknown, learned (its burst
 * admitted whole) and aged.
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_admit_burst),
		cmocka_unit_test(test_admit_burst_member_down),
		cmocka_unit_test(test_admit_burst_spray),
		cmocka_unit_test(test_admit_behind_queue),
		cmocka_unit_test(test_admit_burst_check),
		cmocka_unit_test(test_admit_burst_lossless_room),
		cmocka_unit_test(test_adjacency_learn), /* after them: rsw_dp.admit_burst on */
	};

	return ut_main("admit", tests, RTE_DIM(tests), setup_tables, ut_ring_ports_teardown, NULL,
		       0);
}
