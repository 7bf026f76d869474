/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the checksum code of steps 2 and 6 of the packet path:
 * rsw_cksum (RFC 1071) against a reference written here, on the RFC's own
 * example, odd and empty lengths and a real IPv4 header; rsw_ipv4_cksum_ok20 against
 * the same reference; rsw_cksum_update16
 * (RFC 1624 eqn. 3) against a full recomputation; and rsw_rewrite on IPv4,
 * tagged IPv4 and IPv6 frames, compared byte for byte with an edited copy.
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

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rsw_parse.h"
#include "rsw_worker.h"
#include "test_common.h"

static struct rte_mempool *pool;

/*
 * A second reference, written differently from ut_ref_cksum: the one's-complement sum of
 * big-endian 16-bit words with an end-around carry after every addition. Host order result.
 */
static uint16_t
ref_sum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < len; i += 2) {
		sum += (uint32_t)p[i] << 8 | (i + 1 < len ? p[i + 1] : 0);
		if (sum > 0xffff)
			sum -= 0xffff;
	}
	return (uint16_t)sum;
}

/* rsw_cksum returns the value ready to store: compare in network order. */
static void
expect_cksum(const uint8_t *p, size_t len)
{
	uint16_t want = (uint16_t)~ref_sum(p, len);

	assert_int_equal(ut_ref_cksum(p, len), want);
	if (rsw_cksum(p, len) != rte_cpu_to_be_16(want))
		fail_msg("len %zu: rsw_cksum %04x, reference %04x", len,
			 rte_be_to_cpu_16(rsw_cksum(p, len)), want);
}

/* Bad or edge input first: empty, one byte, all ones, all zeros, the largest length. */
static void
test_cksum_edges(void **state)
{
	static uint8_t big[65535];
	uint8_t b[4] = {0xff, 0xff, 0xff, 0xff};

	(void)state;
	assert_int_equal(rsw_cksum(b, 0), 0xffff); /* nothing summed: ~0 */
	assert_int_equal(rsw_cksum(b, 1), rte_cpu_to_be_16(0x00ff));
	assert_int_equal(rsw_cksum(b, 4), 0); /* sum 0xffff: checksum 0 */
	memset(b, 0, sizeof(b));
	assert_int_equal(rsw_cksum(b, 4), 0xffff);
	/* The largest IP packet, all 0xff: 32767 words of 0xffff and an odd byte. */
	memset(big, 0xff, sizeof(big));
	expect_cksum(big, sizeof(big));
	expect_cksum(big, sizeof(big) - 1);
}

static void
test_cksum_rfc1071(void **state)
{
	static const uint8_t ex[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};

	(void)state;
	/* RFC 1071 §3: the sum is ddf2, the checksum its complement. */
	assert_int_equal(ref_sum(ex, sizeof(ex)), 0xddf2);
	assert_int_equal(ut_ref_cksum(ex, sizeof(ex)), 0x220d);
	assert_int_equal(rsw_cksum(ex, sizeof(ex)), rte_cpu_to_be_16(0x220d));
	/* Byte-order independence (RFC 1071 §2 (B)): swapped bytes give a swapped checksum. */
	{
		uint8_t sw[sizeof(ex)];
		size_t i;

		for (i = 0; i < sizeof(ex); i += 2) {
			sw[i] = ex[i + 1];
			sw[i + 1] = ex[i];
		}
		assert_int_equal(rsw_cksum(sw, sizeof(sw)), rte_cpu_to_be_16(0x0d22));
	}
}

static void
test_cksum_ipv4_header(void **state)
{
	uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	uint16_t ck;

	(void)state;
	ck = rsw_cksum(h, sizeof(h));
	assert_int_equal(rte_be_to_cpu_16(ck), 0xb861);
	expect_cksum(h, sizeof(h));
	/* Stored, the header verifies: the checksum over it is 0. */
	memcpy(&h[10], &ck, 2);
	assert_int_equal(h[10], 0xb8);
	assert_int_equal(h[11], 0x61);
	assert_int_equal(rsw_cksum(h, sizeof(h)), 0);
	assert_int_equal(ut_ref_cksum(h, sizeof(h)), 0);
}

/*
 * rsw_ipv4_cksum_ok20 (the parser's check of a 20-byte header) against the reference sum:
 * random headers (mostly bad), the same headers with their checksum stored (good), one bit
 * flipped (bad again), and headers whose words sum to the extremes.
 */
static void
test_cksum_ok20(void **state)
{
	uint64_t seed = 0x20;
	uint8_t h[20];
	uint16_t ck;
	int round, bit;

	(void)state;
	for (round = 0; round < 200000; round++) {
		size_t i;

		for (i = 0; i < sizeof(h); i++)
			h[i] = (uint8_t)ut_rand(&seed);
		h[0] = 0x45;
		if (round % 7 == 0) /* long runs of 0x00 and 0xff words: carries at every width */
			for (i = 2; i < sizeof(h); i++)
				h[i] = (ut_rand(&seed) & 1) ? 0xff : 0x00;
		if (rsw_ipv4_cksum_ok20(h) != (ref_sum(h, sizeof(h)) == 0xffff))
			fail_msg("round %d: ok20 %d, reference sum %04x", round,
				 rsw_ipv4_cksum_ok20(h), ref_sum(h, sizeof(h)));
		h[10] = h[11] = 0;
		ck = rsw_cksum(h, sizeof(h));
		memcpy(&h[10], &ck, 2);
		if (!rsw_ipv4_cksum_ok20(h))
			fail_msg("round %d: a header with its checksum stored fails", round);
		bit = (int)(ut_rand(&seed) % 160);
		h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (rsw_ipv4_cksum_ok20(h) != (ref_sum(h, sizeof(h)) == 0xffff))
			fail_msg("round %d: bit %d flipped: ok20 %d", round, bit,
				 rsw_ipv4_cksum_ok20(h));
	}
	/* Every word 0xffff but the first: the sum is 0x45ff + 9 x 0xffff, folded 0x45ff. */
	memset(h, 0xff, sizeof(h));
	h[0] = 0x45;
	assert_false(rsw_ipv4_cksum_ok20(h));
	/* 0x45ff + 0xba00 = 0xffff: good, whether the other words are 0x0000 or 0xffff. */
	memset(h + 2, 0, sizeof(h) - 2);
	h[2] = 0xba;
	assert_true(rsw_ipv4_cksum_ok20(h));
	memset(h + 4, 0xff, sizeof(h) - 4);
	assert_true(rsw_ipv4_cksum_ok20(h));
}

static void
test_cksum_random(void **state)
{
	uint64_t seed = 0xc0ffee;
	uint8_t b[1600];
	size_t len, i;
	int round;

	(void)state;
	/* Every length 0..300 (odd and even) at every alignment 0..3, then random lengths. */
	for (len = 0; len <= 300; len++) {
		for (i = 0; i < len + 3; i++)
			b[i] = (uint8_t)ut_rand(&seed);
		for (i = 0; i < 4; i++)
			expect_cksum(b + i, len);
	}
	for (round = 0; round < 2000; round++) {
		len = ut_rand(&seed) % sizeof(b);
		for (i = 0; i < len; i++)
			b[i] = (uint8_t)(ut_rand(&seed) % 4 == 0 ? 0xff : ut_rand(&seed));
		expect_cksum(b, len);
	}
}

/* Store the reference checksum in a 20-byte IPv4 header. */
static void
set_ipv4_cksum(uint8_t h[20])
{
	uint16_t ck;

	h[10] = h[11] = 0;
	ck = ut_ref_cksum(h, 20);
	h[10] = (uint8_t)(ck >> 8);
	h[11] = (uint8_t)ck;
}

/* A random but valid IPv4 header with checksum. */
static void
random_ipv4_header(uint8_t h[20], uint64_t *seed)
{
	int i;

	for (i = 0; i < 20; i++)
		h[i] = (uint8_t)ut_rand(seed);
	h[0] = 0x45;
	set_ipv4_cksum(h);
}

/* Decrement the TTL of header h with rsw_cksum_update16 and compare with a recomputation. */
static void
ttl_decrement_matches(uint8_t h[20])
{
	uint16_t old, new_, ck, full;

	memcpy(&old, &h[8], 2); /* TTL and protocol, network order */
	memcpy(&ck, &h[10], 2);
	h[8]--;
	memcpy(&new_, &h[8], 2);
	ck = rsw_cksum_update16(ck, old, new_);
	memcpy(&h[10], &ck, 2);
	/* The full recomputation with the checksum field zeroed. */
	h[10] = h[11] = 0;
	full = ut_ref_cksum(h, 20);
	if (rte_be_to_cpu_16(ck) != full)
		fail_msg("TTL %u: incremental %04x, full %04x", h[8] + 1, rte_be_to_cpu_16(ck),
			 full);
	memcpy(&h[10], &ck, 2);
	assert_int_equal(ut_ref_cksum(h, 20), 0);
}

static void
test_cksum_update_ttl(void **state)
{
	static const uint8_t base[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
					 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
					 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	uint64_t seed = 42;
	unsigned int ttl, proto;
	uint8_t h[20];
	int round;

	(void)state;
	/* Every TTL 2..255 on the RFC header and every protocol, ... */
	for (proto = 0; proto < 256; proto++) {
		for (ttl = 2; ttl <= 255; ttl++) {
			memcpy(h, base, sizeof(h));
			h[8] = (uint8_t)ttl;
			h[9] = (uint8_t)proto;
			set_ipv4_cksum(h);
			ttl_decrement_matches(h);
		}
	}
	/* ... a whole TTL walk 255..1 on one header, and random headers. */
	memcpy(h, base, sizeof(h));
	h[8] = 255;
	set_ipv4_cksum(h);
	while (h[8] > 1)
		ttl_decrement_matches(h);
	for (round = 0; round < 20000; round++) {
		random_ipv4_header(h, &seed);
		if (h[8] < 2) {
			h[8] = 2;
			set_ipv4_cksum(h);
		}
		ttl_decrement_matches(h);
	}
}

/* One's-complement addition with the end-around carry. */
static uint16_t
oc_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)(s > 0xffff ? s - 0xffff : s);
}

static void
test_cksum_update_edges(void **state)
{
	static const uint16_t v[] = {0x0000, 0x0001, 0x0002, 0x7fff, 0x8000, 0xfffe, 0xffff};
	unsigned int a, b, c;

	(void)state;
	/* RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), on edge values (carries out of both folds). */
	for (a = 0; a < RTE_DIM(v); a++)
		for (b = 0; b < RTE_DIM(v); b++)
			for (c = 0; c < RTE_DIM(v); c++) {
				uint16_t want = (uint16_t)~oc_add(
					oc_add((uint16_t)~v[a], (uint16_t)~v[b]), v[c]);
				uint16_t got = rsw_cksum_update16(v[a], v[b], v[c]);

				if (got != want)
					fail_msg("HC %04x m %04x m' %04x: %04x, expected %04x",
						 v[a], v[b], v[c], got, want);
			}
}

static void
test_cksum_update_any_word(void **state)
{
	uint64_t seed = 7;
	uint8_t h[20];
	int round;

	(void)state;
	/* Any 16-bit word of the header (but the checksum) changed to any value. */
	for (round = 0; round < 20000; round++) {
		unsigned int w = (unsigned int)(ut_rand(&seed) % 10);
		uint16_t old, new_, ck;

		if (w == 5)
			continue;
		random_ipv4_header(h, &seed);
		memcpy(&old, &h[2 * w], 2);
		new_ = (uint16_t)ut_rand(&seed);
		if (round % 16 == 0)
			new_ = round % 32 ? 0 : 0xffff;
		memcpy(&ck, &h[10], 2);
		memcpy(&h[2 * w], &new_, 2);
		ck = rsw_cksum_update16(ck, old, new_);
		memcpy(&h[10], &ck, 2);
		if (ut_ref_cksum(h, 20) != 0)
			fail_msg("round %d word %u: %04x → %04x breaks the checksum", round, w,
				 rte_be_to_cpu_16(old), rte_be_to_cpu_16(new_));
	}
}

/* rsw_rewrite: only the MACs, TTL/hop limit and IPv4 checksum change. */

static const uint8_t port_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t peer_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};
static const uint8_t nh_mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x07};
static const uint8_t out_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

static void
rewrite_and_compare(const struct ut_frame *in, uint16_t l3_off, uint8_t kind)
{
	struct rte_mbuf *m = ut_mbuf(pool, in);
	struct ut_frame want = *in;
	const uint8_t *got;

	assert_non_null(m);
	memcpy(want.b, nh_mac, 6);
	memcpy(want.b + 6, out_mac, 6);
	if (kind == RSW_PK_IPV4) {
		uint16_t ihl = (uint16_t)((want.b[l3_off] & 0xf) * 4), ck;

		want.b[l3_off + 8]--;
		want.b[l3_off + 10] = want.b[l3_off + 11] = 0;
		ck = ut_ref_cksum(want.b + l3_off, ihl);
		want.b[l3_off + 10] = (uint8_t)(ck >> 8);
		want.b[l3_off + 11] = (uint8_t)ck;
	} else {
		want.b[l3_off + 7]--;
	}
	rsw_rewrite(m, l3_off, kind, nh_mac, (const struct rte_ether_addr *)out_mac);
	assert_int_equal(rte_pktmbuf_data_len(m), in->len);
	got = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(got, want.b, in->len);
	if (kind == RSW_PK_IPV4)
		assert_int_equal(ut_ref_cksum(got + l3_off, (got[l3_off] & 0xf) * 4u), 0);
	rte_pktmbuf_free(m);
}

static void
test_rewrite_ipv4(void **state)
{
	uint64_t seed = 99;
	struct ut_frame f;
	unsigned int ttl;

	(void)state;
	for (ttl = 2; ttl <= 255; ttl++) {
		uint32_t src = (uint32_t)ut_rand(&seed), dst = (uint32_t)ut_rand(&seed);

		ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV4);
		ut_ipv4(&f, (uint8_t)ttl, (uint8_t)ttl, IPPROTO_UDP, src, dst, 18);
		ut_udp(&f, 1, 2, 18);
		ut_zeros(&f, 10);
		rewrite_and_compare(&f, 14, RSW_PK_IPV4);
	}
	/* With options, behind two tags. */
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_QINQ);
	ut_vlan(&f, 3, 10, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 3, 20, RTE_ETHER_TYPE_IPV4);
	ut_ipv4_opt(&f, 0, 0, 64, IPPROTO_UDP, 0x0a000001, 0x0a000002, 8, 2);
	ut_udp(&f, 1, 2, 8);
	rewrite_and_compare(&f, 22, RSW_PK_IPV4);
}

/*
 * The TTL rewrite's checksum update for every stored checksum (all 65536, -0 and the values
 * around the fold included) against RFC 1624 eqn. 3 (rsw_cksum_update16).
 */
static void
test_rewrite_ttl_every_cksum(void **state)
{
	uint8_t h[20] = {0x45, 0, 0, 28, 0, 1, 0x40, 0, 64, IPPROTO_UDP};
	uint16_t old, new_, ck, want, got;
	uint32_t c;

	(void)state;
	for (c = 0; c <= 0xffff; c++) {
		h[8] = 64;
		ck = rte_cpu_to_be_16((uint16_t)c);
		memcpy(&h[10], &ck, 2);
		memcpy(&old, &h[8], 2);
		rsw_rewrite_l3(h, RSW_PK_IPV4);
		assert_int_equal(h[8], 63);
		memcpy(&new_, &h[8], 2);
		want = rsw_cksum_update16(ck, old, new_);
		memcpy(&got, &h[10], 2);
		if (got != want)
			fail_msg("checksum %04x: %04x, RFC 1624 eqn. 3 gives %04x", c,
				 rte_be_to_cpu_16(got), rte_be_to_cpu_16(want));
	}
}

static void
test_rewrite_ipv6(void **state)
{
	static const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
	struct ut_frame f;
	unsigned int hlim;

	(void)state;
	for (hlim = 2; hlim <= 255; hlim += 51) {
		ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_IPV6);
		ut_ipv6(&f, 0, 0x11111, 8, IPPROTO_UDP, (uint8_t)hlim, src, dst);
		ut_udp(&f, 1, 2, 8);
		rewrite_and_compare(&f, 14, RSW_PK_IPV6);
	}
	ut_eth(&f, port_mac, peer_mac, RTE_ETHER_TYPE_VLAN);
	ut_vlan(&f, 5, 10, RTE_ETHER_TYPE_IPV6);
	ut_ipv6(&f, 0, 0, 8, IPPROTO_UDP, 64, src, dst);
	ut_udp(&f, 1, 2, 8);
	rewrite_and_compare(&f, 18, RSW_PK_IPV6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cksum_edges),
		cmocka_unit_test(test_cksum_rfc1071),
		cmocka_unit_test(test_cksum_ipv4_header),
		cmocka_unit_test(test_cksum_random),
		cmocka_unit_test(test_cksum_ok20),
		cmocka_unit_test(test_cksum_update_edges),
		cmocka_unit_test(test_cksum_update_ttl),
		cmocka_unit_test(test_cksum_update_any_word),
		cmocka_unit_test(test_rewrite_ipv4),
		cmocka_unit_test(test_rewrite_ttl_every_cksum),
		cmocka_unit_test(test_rewrite_ipv6),
	};
	int ret;

	if (ut_eal_init("cksum") != 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ut_cksum", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "cannot create the mbuf pool\n");
		rte_eal_cleanup();
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret;
}
