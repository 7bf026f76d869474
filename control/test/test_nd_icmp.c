/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the ND and ICMP packet builders and validators (icmp_pkt.c), on plain
 * buffers without EAL: malformed NS/NA first (RFC 4861 §7.1), then what may not be
 * answered with an ICMP error (RFC 1812 §4.3.2.7, RFC 4443 §2.4 (e)), then the packets
 * built, with every checksum verified by an independent routine, the quoted lengths, and
 * the token bucket.
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

#include "rsw_icmp_pkt.h"

static const uint8_t sw_ip[16] = {0xfd, 0, 0, 1, [15] = 0xfe};   /* fd00:1::fe */
static const uint8_t host_ip[16] = {0xfd, 0, 0, 1, [15] = 0x77}; /* fd00:1::77 */
static const uint8_t sw_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t host_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x77};
static const uint8_t unspec[16];

/* Independent Internet checksum: 64-bit sum of big-endian words, folded at the end. */
static uint16_t
ref_sum(const uint8_t *parts[], const size_t lens[], int n)
{
	uint64_t s = 0;
	int k;

	for (k = 0; k < n; k++) {
		size_t i;

		for (i = 0; i < lens[k]; i++)
			s += (i % 2 == 0) ? (uint64_t)parts[k][i] << 8 : parts[k][i];
	}
	while (s > 0xffff)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Whether the IPv4 datagram's header and ICMP checksums verify. */
static bool
ref_icmp4_ok(const uint8_t *ip, size_t len)
{
	size_t ihl = (size_t)(ip[0] & 0xf) * 4;
	const uint8_t *p1[] = {ip}, *p2[] = {ip + ihl};
	size_t l1[] = {ihl}, l2[] = {len - ihl};

	return ref_sum(p1, l1, 1) == 0xffff && ref_sum(p2, l2, 1) == 0xffff;
}

/* Whether the IPv6 packet's ICMPv6 checksum verifies (pseudo-header of RFC 8200 §8.1). */
static bool
ref_icmp6_ok(const uint8_t *ip6)
{
	size_t plen = (size_t)ip6[4] << 8 | ip6[5];
	uint8_t tail[8] = {0, 0, (uint8_t)(plen >> 8), (uint8_t)plen, 0, 0, 0, 58};
	const uint8_t *parts[] = {ip6 + 8, tail, ip6 + 40};
	size_t lens[] = {32, 8, plen};

	return ref_sum(parts, lens, 3) == 0xffff;
}

static void
refresh_cksum6(uint8_t *ip6)
{
	size_t plen = (size_t)ip6[4] << 8 | ip6[5];
	uint16_t ck;

	ip6[42] = ip6[43] = 0;
	ck = rsw_icmp6_cksum(ip6 + 8, ip6 + 24, ip6 + 40, plen);
	memcpy(ip6 + 42, &ck, 2);
}

/* A valid multicast NS from host for sw_ip with an SLLA option, in buf (72 bytes). */
static size_t
make_ns(uint8_t *buf)
{
	uint8_t group[16];
	int n;

	rsw_nd_solicited_node(sw_ip, group);
	n = rsw_nd_build(buf, 128, RSW_ND_NS, host_ip, group, sw_ip, 0, host_mac);
	assert_int_equal(n, 72);
	return (size_t)n;
}

/* -- ND: bad input -- */

static void
test_nd_parse_short_and_version(void **state)
{
	struct rsw_nd_msg msg;
	uint8_t buf[128];
	size_t len = make_ns(buf);

	(void)state;
	assert_int_equal(rsw_nd_parse(NULL, 0, &msg), -EINVAL);
	assert_int_equal(rsw_nd_parse(buf, 39, &msg), -EINVAL);
	assert_int_equal(rsw_nd_parse(buf, len - 1, &msg), -EINVAL); /* payload overruns */
	buf[0] = 0x40;
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	buf[0] = 0x60;
	buf[6] = 0; /* a hop-by-hop header first: not chased */
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	buf[6] = 58;
	assert_int_equal(rsw_nd_parse(buf, len, &msg), 0);
}

static void
test_nd_parse_hop_limit_code_cksum(void **state)
{
	struct rsw_nd_msg msg;
	uint8_t buf[128];
	size_t len = make_ns(buf);

	(void)state;
	buf[7] = 254; /* forwarded by a router: RFC 4861 §7.1.1 */
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	buf[7] = 255;
	buf[41] = 1; /* code */
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	buf[41] = 0;
	refresh_cksum6(buf);
	buf[43] ^= 1; /* checksum */
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	buf[43] ^= 1;
	buf[40] = RSW_ICMP6_ECHO_REQUEST; /* not an NS/NA */
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	buf[40] = RSW_ND_NS;
	buf[48] = 0xff; /* multicast target */
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
}

static void
test_nd_parse_short_message(void **state)
{
	struct rsw_nd_msg msg;
	uint8_t buf[128];

	(void)state;
	make_ns(buf);
	buf[5] = 20; /* ICMP length < 24 */
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, 60, &msg), -EINVAL);
	buf[5] = 24; /* no options: valid, no link-layer address */
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, 64, &msg), 0);
	assert_null(msg.lladdr);
}

static void
test_nd_parse_bad_options(void **state)
{
	struct rsw_nd_msg msg;
	uint8_t buf[128];
	size_t len = make_ns(buf);

	(void)state;
	buf[65] = 0; /* option length 0: malformed (RFC 4861 §4.6) */
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	buf[65] = 2; /* 16 bytes claimed, 8 left */
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);

	/* One byte of option left: no room for its length. */
	make_ns(buf);
	buf[5] = 25;
	buf[64] = 1;
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, 65, &msg), -EINVAL);
}

static void
test_nd_parse_dad_and_na_rules(void **state)
{
	struct rsw_nd_msg msg;
	uint8_t buf[128], group[16];
	size_t len = make_ns(buf);

	(void)state;
	/* An NS from :: must not carry an SLLA option ... */
	memcpy(buf + 8, unspec, 16);
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, len, &msg), -EINVAL);
	/* ... and must go to the target's solicited-node group. */
	buf[5] = 24;
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, 64, &msg), 0);
	assert_true(msg.src_unspec);
	memcpy(buf + 24, sw_ip, 16);
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, 64, &msg), -EINVAL);

	/* An NA to a multicast group with S set; an NA from ::. */
	rsw_nd_solicited_node(sw_ip, group);
	assert_int_equal(rsw_nd_build(buf, sizeof(buf), RSW_ND_NA, host_ip, group, host_ip,
				      RSW_ND_NA_S, host_mac),
			 72);
	assert_int_equal(rsw_nd_parse(buf, 72, &msg), -EINVAL);
	assert_int_equal(rsw_nd_build(buf, sizeof(buf), RSW_ND_NA, unspec, sw_ip, host_ip,
				      RSW_ND_NA_S, host_mac),
			 72);
	assert_int_equal(rsw_nd_parse(buf, 72, &msg), -EINVAL);
}

/* -- ND: good input and builders -- */

static void
test_nd_parse_ok(void **state)
{
	struct rsw_nd_msg msg;
	uint8_t buf[160];
	size_t len = make_ns(buf);

	(void)state;
	assert_int_equal(rsw_nd_parse(buf, len + 14, &msg), 0); /* Ethernet padding after */
	assert_int_equal(msg.type, RSW_ND_NS);
	assert_true(msg.dst_mcast);
	assert_false(msg.src_unspec);
	assert_memory_equal(msg.target, sw_ip, 16);
	assert_memory_equal(msg.src, host_ip, 16);
	assert_non_null(msg.lladdr);
	assert_memory_equal(msg.lladdr, host_mac, 6);

	/* An unknown option first is skipped; a 16-byte SLLA option is ignored, not used. */
	memmove(buf + 72, buf + 64, 8);
	memset(buf + 64, 0, 8);
	buf[64] = 14; /* nonce */
	buf[65] = 1;
	buf[5] = 40;
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, 80, &msg), 0);
	assert_memory_equal(msg.lladdr, host_mac, 6);
	buf[73] = 2;
	memset(buf + 80, 0, 8);
	buf[5] = 48;
	refresh_cksum6(buf);
	assert_int_equal(rsw_nd_parse(buf, 88, &msg), 0);
	assert_null(msg.lladdr);

	/* NA: flags and TLLA. */
	assert_int_equal(rsw_nd_build(buf, sizeof(buf), RSW_ND_NA, host_ip, sw_ip, host_ip,
				      RSW_ND_NA_S | RSW_ND_NA_O, host_mac),
			 72);
	assert_int_equal(rsw_nd_parse(buf, 72, &msg), 0);
	assert_int_equal(msg.type, RSW_ND_NA);
	assert_int_equal(msg.flags, RSW_ND_NA_S | RSW_ND_NA_O);
	assert_memory_equal(msg.lladdr, host_mac, 6);
}

static void
test_nd_build(void **state)
{
	static const uint8_t group[16] = {0xff, 0x02, [11] = 0x01, 0xff, 0, 0, 0xfe};
	uint8_t buf[128], g[16], mac[6];

	(void)state;
	assert_int_equal(rsw_nd_build(buf, 71, RSW_ND_NS, sw_ip, group, host_ip, 0, sw_mac),
			 -ENOSPC);
	assert_int_equal(rsw_nd_build(buf, sizeof(buf), 128, sw_ip, group, host_ip, 0, sw_mac),
			 -EINVAL);

	rsw_nd_solicited_node(sw_ip, g);
	assert_memory_equal(g, group, 16);
	assert_true(rsw_nd_is_solicited_node(group, sw_ip));
	assert_false(rsw_nd_is_solicited_node(group, host_ip));
	rsw_ip6_mcast_mac(g, mac);
	assert_memory_equal(mac, ((const uint8_t[]){0x33, 0x33, 0xff, 0, 0, 0xfe}), 6);

	/* The NA the switch sends: R S O, TLLA = its MAC, hop limit 255. */
	assert_int_equal(rsw_nd_build(buf, sizeof(buf), RSW_ND_NA, sw_ip, host_ip, sw_ip,
				      RSW_ND_NA_R | RSW_ND_NA_S | RSW_ND_NA_O, sw_mac),
			 72);
	assert_int_equal(buf[0], 0x60);
	assert_int_equal(buf[4] << 8 | buf[5], 32);
	assert_int_equal(buf[6], 58);
	assert_int_equal(buf[7], 255);
	assert_memory_equal(buf + 8, sw_ip, 16);
	assert_memory_equal(buf + 24, host_ip, 16);
	assert_int_equal(buf[40], 136);
	assert_int_equal(buf[41], 0);
	assert_int_equal(buf[44], 0xe0);
	assert_memory_equal(buf + 48, sw_ip, 16);
	assert_int_equal(buf[64], RSW_ND_OPT_TLLA);
	assert_int_equal(buf[65], 1);
	assert_memory_equal(buf + 66, sw_mac, 6);
	assert_true(ref_icmp6_ok(buf));

	/* The NS: SLLA, flags word zero. */
	assert_int_equal(
		rsw_nd_build(buf, sizeof(buf), RSW_ND_NS, sw_ip, group, host_ip, 0xe0, sw_mac), 72);
	assert_int_equal(buf[40], 135);
	assert_int_equal(buf[44], 0);
	assert_int_equal(buf[64], RSW_ND_OPT_SLLA);
	assert_true(ref_icmp6_ok(buf));
}

static void
test_icmp6_cksum_odd(void **state)
{
	uint8_t buf[40 + 9] = {0x60, 0, 0, 0, 0, 9, 58, 64};
	uint16_t ck;

	(void)state;
	memcpy(buf + 8, host_ip, 16);
	memcpy(buf + 24, sw_ip, 16);
	memcpy(buf + 40, "\x80\x00\x00\x00\x12\x34\x00\x01\xab", 9);
	ck = rsw_icmp6_cksum(buf + 8, buf + 24, buf + 40, 9);
	memcpy(buf + 42, &ck, 2);
	assert_true(ref_icmp6_ok(buf));
	assert_int_equal(rsw_icmp6_cksum(buf + 8, buf + 24, buf + 40, 9), 0);
}

/* -- ICMP errors: what may not be answered -- */

static size_t
make_udp4(uint8_t *buf, size_t len)
{
	static const uint8_t hdr[20] = {0x45, 0, 0,  0, 0, 1, 0x40, 0, 1, 17,
					0,    0, 10, 1, 0, 1, 10,   2, 0, 1};

	memset(buf, 0xab, len);
	memcpy(buf, hdr, 20);
	buf[2] = (uint8_t)(len >> 8);
	buf[3] = (uint8_t)len;
	return len;
}

static size_t
make_udp6(uint8_t *buf, size_t len)
{
	memset(buf, 0xcd, len);
	buf[0] = 0x60;
	buf[1] = buf[2] = buf[3] = 0;
	buf[4] = (uint8_t)((len - 40) >> 8);
	buf[5] = (uint8_t)(len - 40);
	buf[6] = 17;
	buf[7] = 1;
	memcpy(buf + 8, host_ip, 16);
	memcpy(buf + 24, (const uint8_t[16]){0xfd, 0, 0, 2, [15] = 1}, 16);
	return len;
}

static void
test_icmp4_error_allowed(void **state)
{
	uint8_t buf[64];
	size_t len = make_udp4(buf, 48);

	(void)state;
	assert_false(rsw_icmp4_error_allowed(NULL, 0));
	assert_false(rsw_icmp4_error_allowed(buf, 19));
	buf[0] = 0x44; /* IHL 4 */
	assert_false(rsw_icmp4_error_allowed(buf, len));
	buf[0] = 0x4f; /* IHL 15 > length */
	assert_false(rsw_icmp4_error_allowed(buf, 40));
	buf[0] = 0x65;
	assert_false(rsw_icmp4_error_allowed(buf, len));
	buf[0] = 0x45;
	assert_true(rsw_icmp4_error_allowed(buf, len));

	buf[6] = 0x20; /* MF, offset 0: the first fragment is answered */
	buf[7] = 0;
	assert_true(rsw_icmp4_error_allowed(buf, len));
	buf[7] = 1; /* offset 8: not the first */
	assert_false(rsw_icmp4_error_allowed(buf, len));
	buf[6] = 0x40;
	buf[7] = 0;

	static const uint8_t bad_src[][4] = {
		{0, 0, 0, 0}, {127, 0, 0, 1}, {224, 0, 0, 1}, {240, 0, 0, 1}, {255, 255, 255, 255}};
	for (size_t i = 0; i < sizeof(bad_src) / sizeof(bad_src[0]); i++) {
		memcpy(buf + 12, bad_src[i], 4);
		assert_false(rsw_icmp4_error_allowed(buf, len));
	}
	memcpy(buf + 12, (const uint8_t[]){10, 1, 0, 1}, 4);
	memcpy(buf + 16, (const uint8_t[]){239, 1, 1, 1}, 4);
	assert_false(rsw_icmp4_error_allowed(buf, len));
	memcpy(buf + 16, (const uint8_t[]){255, 255, 255, 255}, 4);
	assert_false(rsw_icmp4_error_allowed(buf, len));
	memcpy(buf + 16, (const uint8_t[]){10, 2, 0, 1}, 4);

	/* ICMP: errors never answered (RFC 1812 §4.3.2.7), queries are. */
	buf[9] = 1;
	static const uint8_t errors[] = {3, 4, 5, 11, 12, 42};
	for (size_t i = 0; i < sizeof(errors); i++) {
		buf[20] = errors[i];
		assert_false(rsw_icmp4_error_allowed(buf, len));
	}
	static const uint8_t queries[] = {0, 8, 13, 17};
	for (size_t i = 0; i < sizeof(queries); i++) {
		buf[20] = queries[i];
		assert_true(rsw_icmp4_error_allowed(buf, len));
	}
	assert_false(rsw_icmp4_error_allowed(buf, 20)); /* ICMP type missing */
	buf[6] = 0;
	buf[7] = 2; /* a later fragment of an ICMP message: no type to look at */
	assert_false(rsw_icmp4_error_allowed(buf, len));
}

static void
test_icmp6_error_allowed(void **state)
{
	uint8_t buf[80];
	size_t len = make_udp6(buf, 60);

	(void)state;
	assert_false(rsw_icmp6_error_allowed(NULL, 0));
	assert_false(rsw_icmp6_error_allowed(buf, 39));
	buf[0] = 0x40;
	assert_false(rsw_icmp6_error_allowed(buf, len));
	buf[0] = 0x60;
	assert_true(rsw_icmp6_error_allowed(buf, len));

	memset(buf + 8, 0, 16); /* :: */
	assert_false(rsw_icmp6_error_allowed(buf, len));
	buf[23] = 1; /* ::1 */
	assert_false(rsw_icmp6_error_allowed(buf, len));
	buf[8] = 0xff; /* multicast source */
	assert_false(rsw_icmp6_error_allowed(buf, len));
	memcpy(buf + 8, host_ip, 16);
	buf[24] = 0xff; /* multicast destination */
	assert_false(rsw_icmp6_error_allowed(buf, len));
	buf[24] = 0xfd;

	buf[6] = 58;
	for (int t = 0; t < 128; t += 1) {
		buf[40] = (uint8_t)t;
		assert_false(rsw_icmp6_error_allowed(buf, len));
	}
	buf[40] = RSW_ICMP6_ECHO_REQUEST;
	assert_true(rsw_icmp6_error_allowed(buf, len));
	assert_false(rsw_icmp6_error_allowed(buf, 40)); /* ICMPv6 type missing */
}

/* -- ICMP errors: builders -- */

static void
test_icmp4_error_build(void **state)
{
	static const uint8_t src[4] = {10, 1, 0, 254};
	uint8_t orig[1400], out[1600];
	size_t len = make_udp4(orig, sizeof(orig));
	int n;

	(void)state;
	assert_int_equal(rsw_icmp4_error_build(out, sizeof(out), orig, 19, 11, 0, 0, src, 576),
			 -EINVAL);
	orig[0] = 0x44;
	assert_int_equal(rsw_icmp4_error_build(out, sizeof(out), orig, len, 11, 0, 0, src, 576),
			 -EINVAL);
	orig[0] = 0x45;
	assert_int_equal(rsw_icmp4_error_build(out, 100, orig, len, 11, 0, 0, src, 576), -ENOSPC);

	/* A big packet: 576 bytes in all, 548 of them quoted (RFC 1812 §4.3.2.3). */
	n = rsw_icmp4_error_build(out, sizeof(out), orig, len, 3, 4, 1280, src, 576);
	assert_int_equal(n, 576);
	assert_true(ref_icmp4_ok(out, (size_t)n));
	assert_int_equal(out[0], 0x45);
	assert_int_equal(out[2] << 8 | out[3], 576);
	assert_int_equal(out[8], 64);
	assert_int_equal(out[9], 1);
	assert_memory_equal(out + 12, src, 4);
	assert_memory_equal(out + 16, orig + 12, 4); /* back to the sender */
	assert_int_equal(out[20], 3);
	assert_int_equal(out[21], 4);
	assert_int_equal(out[24] << 8 | out[25], 0);
	assert_int_equal(out[26] << 8 | out[27], 1280); /* RFC 1191 next-hop MTU */
	assert_memory_equal(out + 28, orig, 548);

	/* A small packet is quoted whole. */
	len = make_udp4(orig, 40);
	n = rsw_icmp4_error_build(out, sizeof(out), orig, len, 11, 0, 0, src, 576);
	assert_int_equal(n, 68);
	assert_true(ref_icmp4_ok(out, (size_t)n));
	assert_memory_equal(out + 28, orig, 40);
	assert_int_equal(out[24] | out[25] | out[26] | out[27], 0);

	/* A tiny max_len still quotes the IP header (options included) and 8 bytes. */
	len = make_udp4(orig, 200);
	orig[0] = 0x4f;
	n = rsw_icmp4_error_build(out, sizeof(out), orig, len, 11, 0, 0, src, 68);
	assert_int_equal(n, 28 + 60 + 8);
	assert_true(ref_icmp4_ok(out, (size_t)n));
}

static void
test_icmp6_error_build(void **state)
{
	uint8_t orig[1500], out[1600];
	size_t len = make_udp6(orig, sizeof(orig));
	int n;

	(void)state;
	assert_int_equal(rsw_icmp6_error_build(out, sizeof(out), orig, 39, 3, 0, 0, sw_ip, 1280),
			 -EINVAL);
	orig[0] = 0x40;
	assert_int_equal(rsw_icmp6_error_build(out, sizeof(out), orig, len, 3, 0, 0, sw_ip, 1280),
			 -EINVAL);
	orig[0] = 0x60;
	assert_int_equal(rsw_icmp6_error_build(out, 1000, orig, len, 3, 0, 0, sw_ip, 1280),
			 -ENOSPC);

	/* As much as fits in 1280 bytes (RFC 4443 §2.4 (c)). */
	n = rsw_icmp6_error_build(out, sizeof(out), orig, len, 2, 0, 1280, sw_ip, 1280);
	assert_int_equal(n, 1280);
	assert_true(ref_icmp6_ok(out));
	assert_int_equal(out[4] << 8 | out[5], 1240);
	assert_int_equal(out[6], 58);
	assert_memory_equal(out + 8, sw_ip, 16);
	assert_memory_equal(out + 24, host_ip, 16);
	assert_int_equal(out[40], 2);
	assert_int_equal(out[41], 0);
	assert_int_equal(out[44] << 24 | out[45] << 16 | out[46] << 8 | out[47], 1280);
	assert_memory_equal(out + 48, orig, 1232);

	len = make_udp6(orig, 100);
	n = rsw_icmp6_error_build(out, sizeof(out), orig, len, 3, 0, 0, sw_ip, 1280);
	assert_int_equal(n, 148);
	assert_true(ref_icmp6_ok(out));
	assert_memory_equal(out + 48, orig, 100);
}

/* -- rate limiting -- */

static void
test_rate_limit(void **state)
{
	struct rsw_icmp_rl rl;
	int i, got = 0;

	(void)state;
	rsw_icmp_rl_init(&rl, 10, 10, 1000);
	for (i = 0; i < 50; i++)
		got += rsw_icmp_rl_take(&rl, 1000);
	assert_int_equal(got, 10); /* a full bucket, then nothing */
	assert_false(rsw_icmp_rl_take(&rl, 1000 + 99999));
	assert_true(rsw_icmp_rl_take(&rl, 1000 + 100000)); /* 100 ms at 10/s: one token */
	assert_false(rsw_icmp_rl_take(&rl, 1000 + 100000));
	/* Fractions add up: two 50 ms steps make one token. */
	assert_false(rsw_icmp_rl_take(&rl, 1000 + 150000));
	assert_true(rsw_icmp_rl_take(&rl, 1000 + 200000));
	/* A clock going backwards refills nothing; a long pause refills only the depth. */
	assert_false(rsw_icmp_rl_take(&rl, 500));
	for (got = 0, i = 0; i < 50; i++)
		got += rsw_icmp_rl_take(&rl, 3600ull * 1000000);
	assert_int_equal(got, 10);
	/* A large rate for a long pause does not overflow. */
	rsw_icmp_rl_init(&rl, 1000000, 1, 0);
	assert_true(rsw_icmp_rl_take(&rl, 0));
	assert_false(rsw_icmp_rl_take(&rl, 0));
	assert_true(rsw_icmp_rl_take(&rl, UINT64_MAX / 2));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nd_parse_short_and_version),
		cmocka_unit_test(test_nd_parse_hop_limit_code_cksum),
		cmocka_unit_test(test_nd_parse_short_message),
		cmocka_unit_test(test_nd_parse_bad_options),
		cmocka_unit_test(test_nd_parse_dad_and_na_rules),
		cmocka_unit_test(test_nd_parse_ok),
		cmocka_unit_test(test_nd_build),
		cmocka_unit_test(test_icmp6_cksum_odd),
		cmocka_unit_test(test_icmp4_error_allowed),
		cmocka_unit_test(test_icmp6_error_allowed),
		cmocka_unit_test(test_icmp4_error_build),
		cmocka_unit_test(test_icmp6_error_build),
		cmocka_unit_test(test_rate_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
