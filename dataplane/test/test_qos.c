/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of steps 8-10 of the packet path (docs/architecture.md, docs/qos.md): the WRED/ECN
 * curve and CE marking (ecn.c), PFC pause timing, encoding and reception
 * (pfc.c), and QoS parameters from a loaded configuration (mmu.c), on the
 * fixtures of test_qos_common.h. The port scheduler: test_sched.c; buffer
 * accounting end to end and cut-through: test_buffer.c.
 */

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

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_config.h"
#include "rsw_fib.h"
#include "rsw_qos.h"
#include "rsw_qos_cfg.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"
#include "test_qos_common.h"

static struct rsw_qos_stats qs; /* counters of the rsw_pfc_rx tests */

/* ECN: the WRED curve. */

static void
test_ecn_decide(void **state)
{
	struct rsw_qos_params qp;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned int i, hits;
	double share;

	(void)state;
	qp_init(&qp);
	set_ecn(&qp, 3, 10000, 20000, 0.5);
	/* q <= kmin: never, whatever the draw. */
	assert_int_equal(rsw_ecn_decide(&qp, 3, 0, 0), 0);
	assert_int_equal(rsw_ecn_decide(&qp, 3, 10000, 0), 0);
	/* q >= kmax: always. */
	assert_int_equal(rsw_ecn_decide(&qp, 3, 20000, UINT32_MAX), 1);
	assert_int_equal(rsw_ecn_decide(&qp, 3, UINT64_MAX, UINT32_MAX), 1);
	/* Just above kmin: a tiny probability, so draw 0 marks and a large draw does not. */
	assert_int_equal(rsw_ecn_decide(&qp, 3, 10001, 0), 1);
	assert_int_equal(rsw_ecn_decide(&qp, 3, 10001, 1u << 20), 0);
	/* Mid-curve: pmax / 2 = 0.25 (σ of the share over 100k draws: 0.0014; bound 7σ). */
	for (hits = 0, i = 0; i < 100000; i++)
		hits += (unsigned int)rsw_ecn_decide(&qp, 3, 15000, (uint32_t)(ut_rand(&s) >> 32));
	share = hits / 100000.0;
	assert_true(share > 0.24 && share < 0.26);
	/* Three quarters: 0.375. */
	for (hits = 0, i = 0; i < 100000; i++)
		hits += (unsigned int)rsw_ecn_decide(&qp, 3, 17500, (uint32_t)(ut_rand(&s) >> 32));
	share = hits / 100000.0;
	assert_true(share > 0.365 && share < 0.385);
	/* pmax 1: half-way marks half. */
	set_ecn(&qp, 0, 1000, 3000, 1.0);
	assert_int_equal(qp.pmax_q32[0], UINT32_MAX);
	for (hits = 0, i = 0; i < 100000; i++)
		hits += (unsigned int)rsw_ecn_decide(&qp, 0, 2000, (uint32_t)(ut_rand(&s) >> 32));
	share = hits / 100000.0;
	assert_true(share > 0.49 && share < 0.51);
}

/* An IPv4 header at l3 in buf: tos, random other fields, correct checksum. */
static void
ipv4_hdr(uint8_t *l3, uint8_t tos, uint64_t *s)
{
	uint64_t r = ut_rand(s);
	uint16_t ck;

	memset(l3, 0, 20);
	l3[0] = 0x45;
	l3[1] = tos;
	l3[2] = 0;
	l3[3] = (uint8_t)(20 + (r & 0x7f));
	l3[4] = (uint8_t)(r >> 8);
	l3[5] = (uint8_t)(r >> 16);
	l3[8] = (uint8_t)(r >> 24);
	l3[9] = IPPROTO_UDP;
	memcpy(l3 + 12, (const uint8_t *)&r + 2, 4);
	l3[16] = 10;
	l3[19] = (uint8_t)(r >> 56);
	ck = ut_ref_cksum(l3, 20);
	l3[10] = (uint8_t)(ck >> 8);
	l3[11] = (uint8_t)ck;
}

static void
test_ecn_mark_ipv4(void **state)
{
	static const int want[4] = {-1, 1, 1, 0}; /* Not-ECT, ECT(1), ECT(0), CE */
	uint64_t s = 42;
	unsigned int i, l3_off;

	(void)state;
	for (i = 0; i < 4000; i++) {
		uint8_t ecn = (uint8_t)(i % 4), dscp = (uint8_t)((i / 4) % 64);
		struct ut_frame f, exp;
		struct rte_mbuf *m;
		uint16_t ck;

		l3_off = (i / 256) % 2 ? 18 : 14; /* untagged and tagged */
		memset(f.b, 0xee, 64);
		f.len = 64;
		ipv4_hdr(f.b + l3_off, (uint8_t)(dscp << 2 | ecn), &s);
		exp = f;
		if (want[ecn] == 1) {
			/* Expected: CE, checksum computed from scratch. */
			exp.b[l3_off + 1] = (uint8_t)(dscp << 2 | 3);
			exp.b[l3_off + 10] = exp.b[l3_off + 11] = 0;
			ck = ut_ref_cksum(exp.b + l3_off, 20);
			exp.b[l3_off + 10] = (uint8_t)(ck >> 8);
			exp.b[l3_off + 11] = (uint8_t)ck;
		}
		m = ut_mbuf_ext(pool, f.b, f.len);
		assert_non_null(m);
		assert_int_equal(rsw_ecn_mark(m, (uint16_t)l3_off, RSW_PK_IPV4), want[ecn]);
		/* The whole frame is as expected; the header still verifies. */
		assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), exp.b, f.len);
		assert_int_equal(ut_ref_cksum(rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off), 20),
				 0);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(rte_mempool_in_use_count(pool), pool_start);
}

static void
test_ecn_mark_ipv6(void **state)
{
	static const int want[4] = {-1, 1, 1, 0};
	uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}, dst[16] = {0xfd, [15] = 2};
	unsigned int ecn, dscp;

	(void)state;
	for (dscp = 0; dscp < 64; dscp++) {
		for (ecn = 0; ecn < 4; ecn++) {
			struct ut_frame f, exp;
			struct rte_mbuf *m;
			uint8_t tclass = (uint8_t)(dscp << 2 | ecn);

			ut_eth(&f, nh_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
			ut_ipv6(&f, tclass, 0xabcde, 8, IPPROTO_UDP, 64, src, dst);
			ut_udp(&f, 1, 2, 8);
			exp = f;
			if (want[ecn] == 1) {
				/* Traffic class bits 20-27 of the first word; flow label kept. */
				uint32_t w = 6u << 28 | (uint32_t)(tclass | 3) << 20 | 0xabcde;

				exp.b[14] = (uint8_t)(w >> 24);
				exp.b[15] = (uint8_t)(w >> 16);
				exp.b[16] = (uint8_t)(w >> 8);
				exp.b[17] = (uint8_t)w;
			}
			m = ut_mbuf_ext(pool, f.b, f.len);
			assert_non_null(m);
			assert_int_equal(rsw_ecn_mark(m, 14, RSW_PK_IPV6), want[ecn]);
			assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), exp.b, f.len);
			rte_pktmbuf_free(m);
		}
	}
}

/* PFC: pause time, frame encoding, reception. */

static void
test_pfc_pause_ticks(void **state)
{
	(void)state;
	/* 1 quantum = 512 bit times. At 1 GHz: 1M → 512 µs, 10M → 51.2 µs, 100G → 5.12 ns. */
	assert_int_equal(rsw_pfc_pause_ticks(1, 1000000, TSC_HZ), 512000);
	assert_int_equal(rsw_pfc_pause_ticks(1, 10000000, TSC_HZ), 51200);
	assert_int_equal(rsw_pfc_pause_ticks(1, 100000000000ull, TSC_HZ), 5);
	/* 65535 quanta: 33.55392 s at 1M, 3.355392 s at 10M, 3355.392 µs at 10G, 335.5392 µs at
	 * 100G (ticks truncated). */
	assert_int_equal(rsw_pfc_pause_ticks(65535, 1000000, TSC_HZ), 33553920000ull);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 10000000, TSC_HZ), 3355392000ull);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 10000000000ull, TSC_HZ), 3355392);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 100000000000ull, TSC_HZ), 335539);
	/* 400G at a 4 GHz TSC: 83.8848 µs (802.1Qbb: a quantum is 512 bit times); no overflow at
	 * the extremes. */
	assert_int_equal(rsw_pfc_pause_ticks(65535, 400000000000ull, 4000000000ull), 335539);
	assert_int_equal(rsw_pfc_pause_ticks(65535, 1000000, 4000000000ull), 134215680000ull);
	/* Quanta 0 is no pause; an unknown speed gives none either. */
	assert_int_equal(rsw_pfc_pause_ticks(0, 10000000, TSC_HZ), 0);
	/* Unknown speed: timed as 10 Gb/s (65535 × 512 bits = 3355.392 µs at 10G). */
	assert_int_equal(rsw_pfc_pause_ticks(65535, 0, TSC_HZ), 3355392ull);
}

static void
test_pfc_encode(void **state)
{
	static const uint8_t src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	/* XOFF for priority 3, 65535 quanta (IEEE 802.1Qbb: class-enable vector 0x0008). */
	static const uint8_t xoff3[RSW_PFC_FRAME_LEN] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x88, 0x08, 0x01, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* pad: */
	};
	/* Priorities 0, 4 and 7 with their own times; the times of disabled classes are 0. */
	static const uint8_t mixed[RSW_PFC_FRAME_LEN] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x88, 0x08, 0x01, 0x01, 0x00, 0x91, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01,
	};
	const uint16_t t3[RSW_N_TC] = {0, 0, 0, 65535, 0, 0, 0, 0};
	const uint16_t tm[RSW_N_TC] = {0x1234, 7, 7, 7, 5, 7, 7, 0x8001};
	const uint16_t zero[RSW_N_TC] = {0};
	uint8_t buf[RSW_PFC_FRAME_LEN + 4], xon[RSW_PFC_FRAME_LEN];

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	rsw_pfc_encode(buf, src, 0x08, t3);
	assert_memory_equal(buf, xoff3, RSW_PFC_FRAME_LEN);
	/* Nothing written past the 60 bytes. */
	assert_int_equal(buf[RSW_PFC_FRAME_LEN], 0xa5);
	assert_int_equal(buf[RSW_PFC_FRAME_LEN + 3], 0xa5);

	rsw_pfc_encode(buf, src, 0x91, tm);
	assert_memory_equal(buf, mixed, RSW_PFC_FRAME_LEN);

	/* XON for priority 3: the vector is set, the time 0. */
	memcpy(xon, xoff3, sizeof(xon));
	xon[24] = xon[25] = 0;
	rsw_pfc_encode(buf, src, 0x08, zero);
	assert_memory_equal(buf, xon, RSW_PFC_FRAME_LEN);
}

/* A PFC (or other MAC Control) PDU from its opcode, 20 bytes, padded to 46. */
static void
pfc_pdu(uint8_t pdu[46], uint16_t opcode, uint8_t reserved, uint8_t enable,
	const uint16_t time[RSW_N_TC])
{
	int i;

	memset(pdu, 0, 46);
	pdu[0] = (uint8_t)(opcode >> 8);
	pdu[1] = (uint8_t)opcode;
	pdu[2] = reserved;
	pdu[3] = enable;
	for (i = 0; i < RSW_N_TC; i++) {
		pdu[4 + 2 * i] = (uint8_t)(time[i] >> 8);
		pdu[5 + 2 * i] = (uint8_t)time[i];
	}
}

static struct rsw_qos_params pfc_qp;

static void
pfc_rx_reset(void)
{
	sched_reset();
	memset(&qs, 0, sizeof(qs));
	qp_init(&pfc_qp);
	pfc_qp.lossless = 0x18;                     /* TC 3 and 4 */
	rsw_qos.port[1].speed_bps = 10000000000ull; /* 65535 quanta = 3355392 ns */
}

static void
expect_no_pause(uint16_t p)
{
	int tc;

	for (tc = 0; tc < RSW_N_TC; tc++)
		assert_int_equal(rsw_qos.port[p].paused_until[tc], 0);
}

static void
test_pfc_rx_bad(void **state)
{
	const uint16_t t[RSW_N_TC] = {100, 100, 100, 100, 100, 100, 100, 100};
	static const struct rsw_qos_stats zero;
	uint8_t pdu[46];

	(void)state;
	pfc_rx_reset();
	/* Shorter than opcode + one time. */
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 0, T0), -EINVAL);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 3, T0), -EINVAL);
	/* PFC without all eight times. */
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 19, T0), -EINVAL);
	/* Reserved octet of the class-enable vector set. */
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0x01, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	/* Unknown opcodes: 0, 0x0102, 0x0003 (EPON GATE), 0xffff. */
	pfc_pdu(pdu, 0x0000, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	pfc_pdu(pdu, 0x0102, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	pfc_pdu(pdu, 0x0003, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	pfc_pdu(pdu, 0xffff, 0, 0x18, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), -EINVAL);
	/* None of it paused anything or moved a counter. */
	expect_no_pause(1);
	assert_memory_equal(&qs, &zero, sizeof(qs));
	/* An empty vector is valid and does nothing but count the frame consumed. */
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x00, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 20, T0), 0);
	expect_no_pause(1);
	assert_int_equal(qs.pfc_consumed[1], 1);
	qs.pfc_consumed[1] = 0;
	assert_memory_equal(&qs, &zero, sizeof(qs));
}

static void
test_pfc_rx_xoff_xon(void **state)
{
	uint16_t t[RSW_N_TC] = {0};
	uint8_t pdu[46];
	int tc;

	(void)state;
	pfc_rx_reset();
	/* XOFF priority 3, 65535 quanta at 10G: paused for 3355392 ticks from now. */
	t[3] = 65535;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x08, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], T0 + 3355392);
	assert_int_equal(rsw_qos.port[1].last_pause[3], T0);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xoff], 1);
	assert_int_equal(qs.pfc[1][3][RSW_FC_paused_ns], 3355392); /* ticks in the slot */
	for (tc = 0; tc < RSW_N_TC; tc++)
		if (tc != 3)
			assert_int_equal(rsw_qos.port[1].paused_until[tc], 0);
	/* What the owner sees: TC 3 paused until then, nothing after. */
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0), 0x08);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 3355391), 0x08);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 3355392), 0);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[0], T0), 0);
	/* Other ports are untouched. */
	expect_no_pause(0);
	expect_no_pause(2);

	/* A refresh 1000 ticks later replaces the time: only the extension is counted. */
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 1000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], T0 + 1000 + 3355392);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xoff], 2);
	assert_int_equal(qs.pfc[1][3][RSW_FC_paused_ns], 3355392 + 1000);

	/* XON (time 0) 2000 ticks in: released at once; the time not served is given back. */
	t[3] = 0;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x08, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 2000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], 0);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xon], 1);
	assert_int_equal(qs.pfc[1][3][RSW_FC_paused_ns], 2000);
	/* Released although the port's bound still lies ahead. */
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 2000), 0);

	/* Only enabled classes take their time: priority 4 enabled with 10 quanta, priority 3's
	 * time field set but its bit clear. */
	t[3] = 65535;
	t[4] = 10;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x10, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 3000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[4], T0 + 3000 + 512);
	assert_int_equal(rsw_paused_mask(&rsw_qos.port[1], T0 + 3000), 0x10);
	assert_int_equal(qs.pfc[1][4][RSW_FC_rx_xoff], 1);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_xoff], 2);

	/* A frame padded to 46 bytes or cut at exactly 20 is the same frame. */
	t[4] = 20;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x10, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 20, T0 + 3000), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[4], T0 + 3000 + 1024);
}

static void
test_pfc_rx_lossy_and_pause(void **state)
{
	uint16_t t[RSW_N_TC] = {0};
	uint8_t pdu[46];
	int tc;

	(void)state;
	pfc_rx_reset();
	/* Priorities 0 and 7 are lossy: ignored and counted; priority 3 in the same frame acts. */
	t[0] = t[3] = t[7] = 1000;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x89, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0), 0);
	assert_int_equal(qs.pfc[1][0][RSW_FC_rx_ignored], 1);
	assert_int_equal(qs.pfc[1][7][RSW_FC_rx_ignored], 1);
	assert_int_equal(qs.pfc[1][0][RSW_FC_rx_xoff], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[0], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[7], 0);
	assert_int_equal(rsw_qos.port[1].paused_until[3], T0 + 51200);
	assert_int_equal(qs.pfc[1][3][RSW_FC_rx_ignored], 0);

	/* A TC the watchdog took over (forward or drop): not honoured, but seen. */
	rsw_qos.port[1].storm_ignore[4] = 1;
	t[4] = 1000;
	pfc_pdu(pdu, RSW_PFC_OPCODE, 0, 0x10, t);
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 5), 0);
	assert_int_equal(rsw_qos.port[1].paused_until[4], 0);
	assert_int_equal(rsw_qos.port[1].last_pause[4], T0 + 5);
	assert_int_equal(qs.pfc[1][4][RSW_FC_rx_ignored], 1);
	assert_int_equal(qs.pfc[1][4][RSW_FC_rx_xoff], 0);
	rsw_qos.port[1].storm_ignore[4] = 0;

	/* 802.3x PAUSE (opcode 1, one time): every class of the port, lossy ones included. */
	pdu[0] = 0x00;
	pdu[1] = 0x01;
	pdu[2] = 0x00;
	pdu[3] = 0x64; /* 100 quanta = 5120 ns at 10G */
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 46, T0 + 10), 0);
	for (tc = 0; tc < RSW_N_TC; tc++) {
		assert_int_equal(rsw_qos.port[1].paused_until[tc], T0 + 10 + 5120);
		assert_int_equal(qs.pfc[1][tc][RSW_FC_rx_xoff], tc == 3 ? 2 : 1);
	}
	/* PAUSE 0 releases all. */
	pdu[3] = 0;
	assert_int_equal(rsw_pfc_rx(&qs, &pfc_qp, 1, pdu, 4, T0 + 20), 0);
	expect_no_pause(1);
	for (tc = 0; tc < RSW_N_TC; tc++)
		assert_int_equal(qs.pfc[1][tc][RSW_FC_rx_xon], 1);
	sched_reset();
}

/* Parameters from a loaded configuration. */

#define CFG_HEAD                                                                                   \
	"switch:\n"                                                                                \
	"  name: s1\n"                                                                             \
	"ports:\n"                                                                                 \
	"  - { name: p0, devargs: net_tap0, speed: 10M, ipv4: 10.0.1.254/24 }\n"                   \
	"  - { name: p1, devargs: net_tap1, speed: 10M, ipv4: 10.0.2.254/24 }\n"                   \
	"  - { name: p2, devargs: net_tap2, ipv4: 10.0.3.254/24 }\n"

static struct rsw_config *
load(const char *yaml)
{
	char err[RSW_CFG_ERR_LEN] = "";
	struct rsw_config *cfg =
		rsw_config_load_buf("t.yaml", yaml, strlen(yaml), err, sizeof(err));

	if (cfg == NULL)
		fail_msg("config: %s", err);
	return cfg;
}

static void
test_params_from_cfg(void **state)
{
	struct rsw_config *cfg;
	struct rsw_qos_params qp;
	int tc;

	(void)state;
	cfg = load(CFG_HEAD "qos:\n"
			    "  scheduler:\n"
			    "    strict: [7, 6]\n"
			    "    dwrr: { 0: 1, 1: 3, 3: 4 }\n"
			    "  lossless: [3, 4]\n"
			    "  buffer:\n"
			    "    total: 4MB\n"
			    "    queue_limit: 128KB\n"
			    "    pfc: { xoff: 32KB, xon: 16KB, headroom: 40KB, quanta: 1000 }\n"
			    "  ecn:\n"
			    "    3: { kmin: 16KB, kmax: 64KB, pmax: 0.2 }\n"
			    "    0: { kmin: 1000, kmax: 2000, pmax: 1.0 }\n"
			    "  ecn_mark_point: enqueue\n");
	rsw_qos_params_from_cfg(&qp, cfg, 4); /* a headroom given is kept, whatever the workers */
	assert_int_equal(qp.lossless, 0x18);
	assert_int_equal(qp.n_strict, 2);
	assert_int_equal(qp.strict[0], 7);
	assert_int_equal(qp.strict[1], 6);
	assert_int_equal(qp.is_strict, 0xc0);
	assert_int_equal(qp.dwrr_quantum[0], RSW_DWRR_QUANTUM);
	assert_int_equal(qp.dwrr_quantum[1], 3 * RSW_DWRR_QUANTUM);
	assert_int_equal(qp.dwrr_quantum[2], RSW_DWRR_QUANTUM); /* unlisted: weight 1 */
	assert_int_equal(qp.dwrr_quantum[3], 4 * RSW_DWRR_QUANTUM);
	assert_int_equal(qp.total, 4u << 20);
	assert_int_equal(qp.queue_limit, 128u << 10);
	assert_int_equal(qp.dynamic, 0);
	assert_int_equal(qp.xoff, 32u << 10);
	assert_int_equal(qp.xon, 16u << 10);
	assert_int_equal(qp.headroom, 40u << 10);
	/* Headroom is reserved for every (port, lossless PG): 3 ports × 2 PGs. */
	assert_int_equal(qp.headroom_reserved, 3 * 2 * (40u << 10));
	assert_int_equal(qp.quanta, 1000);
	assert_int_equal(qp.ecn_enabled, 0x09);
	assert_int_equal(qp.ecn_enqueue, 1);
	assert_int_equal(qp.kmin[3], 16u << 10);
	assert_int_equal(qp.kmax[3], 64u << 10);
	assert_int_equal(qp.pmax_q32[3], 858993459); /* 0.2 × 2^32, truncated */
	assert_int_equal(qp.kmin[0], 1000);
	assert_int_equal(qp.kmax[0], 2000);
	assert_int_equal(qp.pmax_q32[0], UINT32_MAX); /* 1.0 saturates */
	/* Static thresholds do not move with the buffer use. */
	assert_int_equal(rsw_pfc_xoff(&qp, 0), 32u << 10);
	assert_int_equal(rsw_pfc_xoff(&qp, 4u << 20), 32u << 10);
	assert_int_equal(rsw_pfc_xon(&qp, 32u << 10), 16u << 10);
	rsw_config_free(cfg);

	/* Dynamic thresholds: xoff = alpha × (total − used − reserved headroom). */
	cfg = load(CFG_HEAD
		   "qos:\n"
		   "  lossless: [3]\n"
		   "  buffer:\n"
		   "    total: 16MB\n"
		   "    pfc: { mode: dynamic, alpha: 0.125, xon_offset: 3KB, headroom: 64KB }\n");
	rsw_qos_params_from_cfg(&qp, cfg, 1);
	assert_int_equal(qp.dynamic, 1);
	assert_int_equal(qp.alpha_q16, 8192);
	assert_int_equal(qp.xon_offset, 3072);
	assert_int_equal(qp.headroom_reserved, 3 * (64u << 10));
	assert_int_equal(qp.quanta, 65535); /* default */
	assert_int_equal(qp.n_strict, 0);
	assert_int_equal(qp.ecn_enabled, 0);
	assert_int_equal(qp.ecn_enqueue, 0);
	for (tc = 0; tc < RSW_N_TC; tc++)
		assert_int_equal(qp.dwrr_quantum[tc], RSW_DWRR_QUANTUM);
	assert_int_equal(rsw_pfc_xoff(&qp, 0), ((16u << 20) - 3 * (64u << 10)) / 8);
	assert_int_equal(rsw_pfc_xoff(&qp, 1u << 20), ((15u << 20) - 3 * (64u << 10)) / 8);
	assert_int_equal(rsw_pfc_xon(&qp, 100000), 100000 - 3072);
	assert_int_equal(rsw_pfc_xon(&qp, 1000), 0);
	/* A full buffer leaves nothing: xoff 0, never a negative (wrapped) threshold. */
	assert_int_equal(rsw_pfc_xoff(&qp, 16u << 20), 0);
	assert_int_equal(rsw_pfc_xoff(&qp, 32u << 20), 0);
	rsw_config_free(cfg);

	/* No headroom given: the default, plus 32 frames of the largest MTU per other worker that
	 * may admit frames of the same PG at once; within what buffer.total leaves. */
	cfg = load(CFG_HEAD "qos:\n  lossless: [3]\n  buffer: { total: 16MB }\n");
	rsw_qos_params_from_cfg(&qp, cfg, 1);
	assert_int_equal(qp.headroom, 64u << 10);
	rsw_qos_params_from_cfg(&qp, cfg, 4);
	assert_int_equal(qp.headroom, (64u << 10) + 3 * 32 * (1500 + 14 + 8));
	assert_int_equal(qp.headroom_reserved, 3 * qp.headroom);
	rsw_config_free(cfg);
	cfg = load(CFG_HEAD "qos:\n  lossless: [3]\n  buffer: { total: 512KB }\n");
	rsw_qos_params_from_cfg(&qp, cfg, 4);
	/* 3 ports × (96 KiB xoff + headroom) within 512 KiB. */
	assert_int_equal(qp.headroom, (512u << 10) / 3 - (96u << 10));
	rsw_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* Bad input first. */
		cmocka_unit_test(test_pfc_rx_bad),
		cmocka_unit_test(test_ecn_decide),
		cmocka_unit_test(test_ecn_mark_ipv4),
		cmocka_unit_test(test_ecn_mark_ipv6),
		cmocka_unit_test(test_pfc_pause_ticks),
		cmocka_unit_test(test_pfc_encode),
		cmocka_unit_test(test_pfc_rx_xoff_xon),
		cmocka_unit_test(test_pfc_rx_lossy_and_pause),
		cmocka_unit_test(test_params_from_cfg),
	};

	return ut_main("qos", tests, RTE_DIM(tests), setup, ut_ring_ports_teardown, NULL, 0);
}
