/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * UEC trimming (rsw_trim): IPv4 and IPv6 UDP packets cut to a size, byte-exact
 * headers and checksums checked with an independent routine, the floor
 * (L2 + IP header + 24), frames already short left alone, and what is never
 * trimmed (not UDP, fragments).
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

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "rsw_parse.h"
#include "rsw_qos.h"
#include "test_common.h"

static struct rte_mempool *pool;

static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0x02, 0x01};
static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t src6[16] = {0xfd, 0, 0, 1, [15] = 1};
static const uint8_t dst6[16] = {0xfd, 0, 0, 2, [15] = 1};

/* An IPv4 UET packet: UDP 4793, a payload of n bytes counting up, ECN bits ecn. */
static void
uet4(struct ut_frame *f, uint8_t dscp, uint8_t ecn, uint16_t n, uint16_t frag, uint8_t proto)
{
	uint16_t i;

	ut_eth(f, dmac, smac, 0x0800);
	ut_ipv4_opt(f, (uint8_t)(dscp << 2 | ecn), frag, 63, proto, 0x0a000101, 0x0a090101,
		    (uint16_t)(8 + n), 0);
	ut_udp(f, 0xc123, RSW_UDP_PORT_UET, (uint16_t)(8 + n));
	for (i = 0; i < n; i++)
		ut_put8(f, (uint8_t)i);
}

static void
uet6(struct ut_frame *f, uint8_t dscp, uint8_t ecn, uint16_t n, bool tagged)
{
	uint16_t i;

	ut_eth(f, dmac, smac, tagged ? 0x8100 : 0x86dd);
	if (tagged)
		ut_vlan(f, 3, 100, 0x86dd);
	ut_ipv6(f, (uint8_t)(dscp << 2 | ecn), 0x12345, (uint16_t)(8 + n), IPPROTO_UDP, 63, src6,
		dst6);
	ut_udp(f, 0xc123, RSW_UDP_PORT_UET, (uint16_t)(8 + n));
	for (i = 0; i < n; i++)
		ut_put8(f, (uint8_t)i);
}

/* Independent UDP-over-IPv6 checksum (RFC 8200 §8.1), host order. */
static uint16_t
ref_udp6(const uint8_t *ip6, const uint8_t *udp, uint32_t len)
{
	uint8_t *buf = calloc(1, 40 + len);
	uint16_t ck;

	memcpy(buf, ip6 + 8, 32);       /* source and destination */
	buf[32] = (uint8_t)(len >> 24); /* upper-layer length, 32 bits */
	buf[33] = (uint8_t)(len >> 16);
	buf[34] = (uint8_t)(len >> 8);
	buf[35] = (uint8_t)len;
	buf[39] = IPPROTO_UDP;
	memcpy(buf + 40, udp, len);
	buf[40 + 6] = buf[40 + 7] = 0;
	ck = ut_ref_cksum(buf, 40 + len);
	free(buf);
	return ck == 0 ? 0xffff : ck;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
test_ipv4_trimmed(void **state)
{
	struct ut_frame f, exp;
	struct rte_mbuf *m;
	const uint8_t *b;

	(void)state;
	uet4(&f, 26, 2 /* ECT(0) */, 1000, 0x4000, IPPROTO_UDP);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim(m, 14, RSW_PK_IPV4, 128, 11), 128);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 128);
	assert_int_equal(rte_pktmbuf_data_len(m), 128);
	b = rte_pktmbuf_mtod(m, const uint8_t *);

	/* Expected: the first 128 bytes, with DSCP 11 (ECN kept), lengths and checksums. */
	memcpy(&exp, &f, sizeof(f));
	exp.len = 128;
	exp.b[15] = (uint8_t)(11 << 2 | 2);
	exp.b[16] = 0;
	exp.b[17] = 128 - 14; /* total length 114 */
	exp.b[24] = exp.b[25] = 0;
	{
		uint16_t ck = ut_ref_cksum(exp.b + 14, 20);

		exp.b[24] = (uint8_t)(ck >> 8);
		exp.b[25] = (uint8_t)ck;
	}
	exp.b[38] = 0;
	exp.b[39] = 128 - 14 - 20; /* UDP length 94 */
	exp.b[40] = exp.b[41] = 0; /* UDP checksum 0 over IPv4 */
	assert_memory_equal(b, exp.b, 128);
	assert_int_equal(ut_ref_cksum(b + 14, 20), 0);
	rte_pktmbuf_free(m);
}

static void
test_ipv6_trimmed(void **state)
{
	struct ut_frame f;
	struct rte_mbuf *m;
	const uint8_t *b;
	uint32_t vtc;

	(void)state;
	uet6(&f, 26, 1 /* ECT(1) */, 1200, true);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim(m, 18, RSW_PK_IPV6, 150, 21), 150);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 150);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	/* L2 and the tag untouched. */
	assert_memory_equal(b, f.b, 18);
	vtc = (uint32_t)b[18] << 24 | (uint32_t)b[19] << 16 | (uint32_t)b[20] << 8 | b[21];
	assert_int_equal(vtc >> 28, 6);
	assert_int_equal((vtc >> 22) & 0x3f, 21); /* DSCP */
	assert_int_equal((vtc >> 20) & 3, 1);     /* ECN kept */
	assert_int_equal(vtc & 0xfffff, 0x12345); /* flow label kept */
	assert_int_equal(rd16(b + 18 + 4), 150 - 18 - 40);
	assert_int_equal(rd16(b + 58 + 4), 150 - 18 - 40);
	assert_int_equal(rd16(b + 58 + 6), ref_udp6(b + 18, b + 58, 150 - 58));
	/* Payload bytes that remain are the original ones. */
	assert_memory_equal(b + 66, f.b + 66, 150 - 66);
	rte_pktmbuf_free(m);
}

static void
test_floor(void **state)
{
	struct ut_frame f;
	struct rte_mbuf *m;

	(void)state;
	/* size below the floor: IPv4 untagged floor = 14 + 20 + 24 = 58. */
	uet4(&f, 26, 0, 500, 0x4000, IPPROTO_UDP);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim_floor(m, 14, RSW_PK_IPV4), 58);
	assert_int_equal(rsw_trim(m, 14, RSW_PK_IPV4, 40, 11), 58);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 58);
	assert_int_equal(rd16(rte_pktmbuf_mtod_offset(m, uint8_t *, 16)), 44);
	rte_pktmbuf_free(m);

	/* IPv6 with a tag: 18 + 40 + 24 = 82. */
	uet6(&f, 26, 0, 500, true);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim_floor(m, 18, RSW_PK_IPV6), 82);
	assert_int_equal(rsw_trim(m, 18, RSW_PK_IPV6, 78, 11), 82);
	rte_pktmbuf_free(m);
}

static void
test_short_untouched(void **state)
{
	struct ut_frame f;
	struct rte_mbuf *m;

	(void)state;
	/* 14 + 20 + 8 + 60 = 102 bytes, trim size 128: nothing to cut. */
	uet4(&f, 26, 2, 60, 0x4000, IPPROTO_UDP);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim(m, 14, RSW_PK_IPV4, 128, 11), 0);
	assert_int_equal(rte_pktmbuf_pkt_len(m), f.len);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), f.b, f.len);
	rte_pktmbuf_free(m);
	/* Exactly the size: untouched too. */
	uet4(&f, 26, 2, 128 - 42, 0x4000, IPPROTO_UDP);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim(m, 14, RSW_PK_IPV4, 128, 11), 0);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), f.b, f.len);
	rte_pktmbuf_free(m);
}

static void
test_never_trimmed(void **state)
{
	struct ut_frame f;
	struct rte_mbuf *m;

	(void)state;
	/* TCP: not trimmed. */
	uet4(&f, 26, 2, 1000, 0x4000, IPPROTO_TCP);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim(m, 14, RSW_PK_IPV4, 128, 11), 0);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), f.b, f.len);
	rte_pktmbuf_free(m);
	/* A first fragment (MF): not trimmed. */
	uet4(&f, 26, 2, 1000, 0x2000, IPPROTO_UDP);
	m = ut_mbuf(pool, &f);
	assert_int_equal(rsw_trim(m, 14, RSW_PK_IPV4, 128, 11), 0);
	rte_pktmbuf_free(m);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_trimmed),  cmocka_unit_test(test_ipv6_trimmed),
		cmocka_unit_test(test_floor),         cmocka_unit_test(test_short_untouched),
		cmocka_unit_test(test_never_trimmed),
	};
	int ret;

	(void)argc;
	if (ut_eal_init("trim") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ut_trim", 256, 0, 0, 4096, 0);
	if (pool == NULL)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	(void)argv;
	return ret;
}
