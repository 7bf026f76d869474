/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the hash mode of step 5 of the packet path (lb.c): a flow's affinity to its
 * member and the spread of flows over members through rsw_lb_select, resilience when members
 * go down and come back; the flow hash (rsw_lb_hash) against a plain implementation of its
 * documented layout; and the load-balance step's burst hash (rsw_lb_hash_burst).
 */

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

#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_thash.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "test_common.h"
#include "test_lb_select.h"

#define N_FLOWS 10000

/* Hash. */

static void
test_lb_hash_affinity_spread(void **state)
{
	static uint8_t member[N_FLOWS];
	unsigned int counts[8] = {0}, i, j, mn, mx;
	struct rsw_tables *t = lb_tables_new();
	double want = N_FLOWS / 8.0, chi2 = 0;
	uint32_t mi;

	(void)state;
	lb_reset();
	group_new(t, 0, 8, NULL);
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		mi = pick(t, 0, &f, TC, &ls_a, i);
		assert_true(mi < 8);
		assert_int_equal(mi, hash_member(t, 0, &f));
		member[i] = (uint8_t)mi;
		counts[mi]++;
	}
	/* Affinity: every packet of a flow, on either worker, at any time, takes one member. */
	for (j = 0; j < 3; j++)
		for (i = 0; i < N_FLOWS; i++) {
			struct flow f = flow_n(i);

			assert_int_equal(pick(t, 0, &f, TC, j % 2 ? &ls_b : &ls_a, i * 977u + j),
					 member[i]);
		}
	assert_int_equal(ls_a.rr[0], 0);
	/* Spread: chi-square with 7 degrees of freedom below 24.32 (p = 0.001), max/min < 1.2. */
	mn = mx = counts[0];
	for (j = 0; j < 8; j++) {
		chi2 += (counts[j] - want) * (counts[j] - want) / want;
		mn = RTE_MIN(mn, counts[j]);
		mx = RTE_MAX(mx, counts[j]);
	}
	if (chi2 >= 24.32 || mx * 10 >= mn * 12)
		fail_msg("8 members, %u flows: chi2 %.2f, max %u, min %u", N_FLOWS, chi2, mx, mn);
	lb_tables_free(t);
}

static void
test_lb_resilient(void **state)
{
	static uint8_t before[N_FLOWS];
	struct rsw_tables *t = lb_tables_new();
	unsigned int moved, got[8], i, d, j;
	uint32_t mi;

	(void)state;
	lb_reset();
	group_new(t, 0, 8, NULL);
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		before[i] = (uint8_t)pick(t, 0, &f, TC, &ls_a, 0);
	}
	for (d = 0; d < 8; d++) {
		unsigned int on_d = 0;

		/* Member d down: only its flows move, all of them, over every live member. */
		rsw_lb_down[0] = (uint16_t)(1u << d);
		moved = 0;
		memset(got, 0, sizeof(got));
		for (i = 0; i < N_FLOWS; i++) {
			struct flow f = flow_n(i);

			mi = pick(t, 0, &f, TC, &ls_a, 0);
			assert_true(mi < 8 && mi != d);
			on_d += before[i] == d;
			if (mi != before[i]) {
				if (before[i] != d)
					fail_msg(
						"member %u down: flow %u moved from live member %u to %u",
						d, i, before[i], mi);
				moved++;
				got[mi]++;
			}
		}
		assert_int_equal(moved, on_d);
		if (moved > N_FLOWS / 8 + N_FLOWS * 2 / 100)
			fail_msg("member %u down: %u of %u flows moved", d, moved, N_FLOWS);
		for (j = 0; j < 8; j++)
			if (j != d && got[j] < moved / 7 / 2)
				fail_msg("member %u down: live member %u took %u of %u moved flows",
					 d, j, got[j], moved);
	}
	/* Two down: flows of the six others still stay. */
	rsw_lb_down[0] = 1u << 2 | 1u << 5;
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		mi = pick(t, 0, &f, TC, &ls_a, 0);
		assert_true(mi != 2 && mi != 5);
		if (before[i] != 2 && before[i] != 5)
			assert_int_equal(mi, before[i]);
	}
	/* Back up: every flow returns to its member. */
	rsw_lb_down[0] = 0;
	for (i = 0; i < N_FLOWS; i++) {
		struct flow f = flow_n(i);

		assert_int_equal(pick(t, 0, &f, TC, &ls_a, 0), before[i]);
	}
	/* All down: nothing. */
	rsw_lb_down[0] = 0xff;
	assert_int_equal(pick(t, 0, &elephant, TC, &ls_a, 0), RSW_LB_NONE);
	lb_tables_free(t);
}

/* The hash input layout (lb.c), built field by field in memory as the layout describes. */
struct ref_tuple {
	uint32_t src[4];
	uint32_t dst[4];
	uint16_t sport;
	uint16_t dport;
	uint32_t proto_qp;
	uint32_t flow;
};

static uint32_t
ref_mix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t
ref_hash(const struct rsw_tables *t, const struct rsw_pkt_info *info)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(mbuf, const uint8_t *, info->l3_off);
	size_t alen = info->kind == RSW_PK_IPV4 ? 4 : 16;
	uint32_t f = t->hash_fields, w[11];
	struct ref_tuple k;
	uint8_t tmp[16];

	memset(&k, 0, sizeof(k));
	if (f & RSW_HF_SRC_IP)
		memcpy(k.src, l3 + (alen == 4 ? 12 : 8), alen);
	if (f & RSW_HF_DST_IP)
		memcpy(k.dst, l3 + (alen == 4 ? 16 : 24), alen);
	if (alen == 16 && (f & RSW_HF_FLOW_LABEL))
		k.flow = info->flow;
	if (f & RSW_HF_PROTO)
		k.proto_qp = (uint32_t)info->proto << 24;
	if (info->flags & RSW_PF_L4) {
		if (f & RSW_HF_SRC_PORT)
			k.sport = info->sport;
		if (f & RSW_HF_DST_PORT)
			k.dport = info->dport;
		if ((info->flags & RSW_PF_BTH) && (f & RSW_HF_ROCE_QP))
			k.proto_qp |= info->qp;
		if ((info->flags & RSW_PF_UET) && (f & RSW_HF_UET_ENTROPY))
			k.sport = info->sport;
	}
	if (t->hash_symmetric) {
		if (memcmp(k.src, k.dst, alen) > 0) {
			memcpy(tmp, k.src, alen);
			memcpy(k.src, k.dst, alen);
			memcpy(k.dst, tmp, alen);
		}
		if (k.sport > k.dport) {
			uint16_t x = k.sport;

			k.sport = k.dport;
			k.dport = x;
		}
	}
	memcpy(w, &k, sizeof(w));
	if (t->hash_algorithm == RSW_HASH_TOEPLITZ)
		return ref_mix32(rte_softrss(w, RTE_DIM(w), t->rss_key) ^ t->hash_seed);
	return ref_mix32(rte_hash_crc(w, sizeof(w), t->hash_seed) ^ t->hash_seed);
}

/*
 * The flow hash is the documented function of the documented 44-byte layout (CRC32 or
 * Toeplitz, seeded, then the finalizer), whatever the fields, family, symmetry and seed:
 * rsw_lb_hash against a plain implementation over random packets.
 */
static void
test_lb_hash_layout(void **state)
{
	struct rsw_tables *t = lb_tables_new();
	struct rsw_pkt_info info;
	uint8_t *l3 = rte_pktmbuf_mtod_offset(mbuf, uint8_t *, 14);
	unsigned int i, k;

	(void)state;
	rte_srand(99);
	for (i = 0; i < 20000; i++) {
		for (k = 0; k < 40; k++)
			l3[k] = (uint8_t)rte_rand();
		if (i % 7 == 0) /* equal addresses and ports: the symmetric tie */
			memcpy(l3 + 24, l3 + 8, 16);
		memset(&info, 0, sizeof(info));
		info.kind = i % 2 ? RSW_PK_IPV6 : RSW_PK_IPV4;
		info.l3_off = 14;
		info.proto = (uint8_t)rte_rand();
		info.flags = (uint8_t)(rte_rand() & (RSW_PF_L4 | RSW_PF_BTH | RSW_PF_UET));
		info.sport = (uint16_t)rte_rand();
		info.dport = i % 7 == 0 ? info.sport : (uint16_t)rte_rand();
		info.qp = (uint32_t)rte_rand() & 0xffffff;
		info.flow = (uint32_t)rte_rand() & 0xfffff;
		t->hash_fields = (uint32_t)rte_rand() & 0xff;
		t->hash_seed = (uint32_t)rte_rand();
		t->hash_symmetric = (uint8_t)(rte_rand() & 1);
		t->hash_algorithm = (uint8_t)(i % 3 == 0 ? RSW_HASH_TOEPLITZ : RSW_HASH_CRC32);
		assert_int_equal(rsw_lb_hash(t, mbuf, &info), ref_hash(t, &info));
	}
	lb_tables_free(t);
}

/* One frame to port_mac for test_lb_hash_burst (i picks the kind; IPv4 when !v6). */
static void
hash_frame(struct ut_frame *fr, const uint8_t port_mac[6], unsigned int i, int v6)
{
	static const uint8_t protos[] = {IPPROTO_UDP, IPPROTO_TCP, IPPROTO_SCTP, IPPROTO_ICMP, 47};
	static const uint16_t dports[] = {RSW_UDP_PORT_ROCEV2, RSW_UDP_PORT_UET, 53};
	/* DF, MF (a first fragment), a later fragment, none */
	static const uint16_t frags[] = {0x4000, 0x2000, 0x0001, 0};
	const uint8_t peer[6] = {2, 0, 0, 0, 0, 9};
	uint8_t proto = protos[i % RTE_DIM(protos)], src[16], dst[16];
	uint16_t sport = (uint16_t)rte_rand(), dport = (uint16_t)rte_rand();
	uint64_t r;
	unsigned int k;

	for (k = 0; k < 16; k++) {
		src[k] = (uint8_t)rte_rand();
		dst[k] = (uint8_t)rte_rand();
	}
	if (proto == IPPROTO_UDP && (i / 8) % 4 < 3)
		dport = dports[(i / 8) % 4];
	if (i % 7 == 0) { /* equal addresses and ports: the symmetric tie */
		memcpy(dst, src, 16);
		dport = sport;
	}
	ut_eth(fr, port_mac, peer, v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	if (v6) {
		ut_ipv6(fr, (uint8_t)rte_rand(), (uint32_t)rte_rand(), 8 + 12 + 16, proto, 64, src,
			dst);
	} else {
		memcpy(&r, src, 8);
		ut_ipv4_opt(fr, (uint8_t)rte_rand(), frags[(i / 3) % RTE_DIM(frags)], 64, proto,
			    (uint32_t)r, (uint32_t)(r >> 32), 8 + 12 + 16, 0);
	}
	if (proto == IPPROTO_UDP) {
		ut_udp(fr, sport, dport, 8 + 12 + 16);
	} else {
		ut_put16(fr, sport);
		ut_put16(fr, dport);
		ut_put32(fr, (uint32_t)rte_rand());
	}
	ut_bth(fr, (uint8_t)(rte_rand() & 0x7f), (uint32_t)rte_rand(), (uint32_t)rte_rand());
	ut_zeros(fr, 16);
}

/*
 * The load-balance step's burst hash (rsw_lb_hash_burst, inline) is rsw_lb_hash for a frame
 * whose result is a group of two or more members, from the frame's header when it has no parse
 * record (the parse step's common case) and from its record when it has one, and leaves the
 * others (a plain route) unhashed: UDP to the RoCEv2 port (a BTH and its dest QP), to the UET
 * port and to others, TCP, SCTP, ICMP, another protocol, IPv4 fragments, IPv6 with its flow
 * label; whatever the fields, symmetry, algorithm and seed. A frame whose hash the step got
 * wrong would leave by another member than the rest of its flow.
 */
/* Whether the parse step's common case takes m (to port MAC ea): no parse record. */
static bool
fast_takes_frame(const struct rte_mbuf *m, const struct rte_ether_addr *ea)
{
	struct rsw_pkt_info scratch;
	const uint8_t *l3;

	(void)rsw_parse_fast(m, rsw_mac48(ea), ea, &scratch, &l3);
	return l3 != NULL;
}

static void
test_lb_hash_burst(void **state)
{
	const uint8_t port_mac[6] = {2, 0, 0, 0, 0, 7};
	struct rte_ether_addr ea;
	struct rsw_tables *t = lb_tables_new();
	struct rsw_result res[2] = {
		{.type = RSW_RES_GROUP, .single = 1}, /* a plain route */
		{.type = RSW_RES_GROUP},              /* a group of 2+: hashes */
	};
	struct rsw_result *saved = t->results;
	struct rsw_pkt_info info[3], ref;
	struct rsw_fam f;
	struct ut_frame fr;
	unsigned int i, k, flags = 0, from_header = 0, fast4 = 0;

	(void)state;
	memcpy(ea.addr_bytes, port_mac, 6);
	t->results = res;
	rte_srand(7);
	for (i = 0; i < 20000; i++) {
		hash_frame(&fr, port_mac, i, (i / 5) % 2);
		/* Frame 0 a plain route; 1 (burst index 2) a group, without a record where the
		 * parse step's common case takes it; 2 (burst index 0) a group, with its record. */
		f.n = 3;
		for (k = 0; k < 3; k++) {
			f.m[k] = ut_mbuf(pool, &fr);
			assert_non_null(f.m[k]);
			f.nh[k] = k == 0 ? 0 : 1;
			f.hash[k] = 0x5eed;
		}
		f.idx[0] = 1;
		f.idx[1] = 2;
		f.idx[2] = 0;
		t->hash_fields = (uint32_t)rte_rand() & 0xff;
		t->hash_seed = (uint32_t)rte_rand();
		t->hash_symmetric = (uint8_t)(rte_rand() & 1);
		t->hash_algorithm = (uint8_t)(i % 3 == 0 ? RSW_HASH_TOEPLITZ : RSW_HASH_CRC32);
		if (i % 4 == 1) {
			/* The default fields (the IPv4 fast case, rsw_lb_hash_fast4), other bits
			 * as drawn. */
			t->hash_fields |= RSW_HF_SRC_IP | RSW_HF_DST_IP | RSW_HF_PROTO |
					  RSW_HF_SRC_PORT | RSW_HF_DST_PORT;
			t->hash_symmetric = 0;
		}
		assert_true(rsw_parse_inline(f.m[0], &ea, &ref) != RSW_PK_DROP);
		info[0] = info[1] = ref;
		memset(&info[2], 0xa5, sizeof(info[2])); /* not to be read */
		if (!fast_takes_frame(f.m[1], &ea))
			info[2] = ref; /* not the common case: it has a record */
		else
			from_header++;
		rsw_lb_hash_burst(t, &f, info,
				  1u << 0 | (fast_takes_frame(f.m[1], &ea) ? 0 : 1u << 2),
				  ref.kind);
		assert_int_equal(f.hash[0], 0x5eed);
		assert_int_equal(f.hash[1], rsw_lb_hash(t, f.m[1], &ref));
		assert_int_equal(f.hash[2], rsw_lb_hash(t, f.m[2], &ref));
		flags |= 1u << (ref.flags & (RSW_PF_L4 | RSW_PF_BTH | RSW_PF_UET));
		{
			struct rsw_lb_sel sel;

			rsw_lb_sel_init(&sel, t);
			if (sel.fast4 && ref.kind == RSW_PK_IPV4 && fast_takes_frame(f.m[1], &ea))
				fast4++;
		}
		for (k = 0; k < 3; k++)
			rte_pktmbuf_free(f.m[k]);
	}
	assert_true(fast4 > 1000); /* the IPv4 fast case, checked by f.hash[1] */
	/* With and without ports, with a BTH, UET; most from the header. */
	assert_int_equal(flags, 1u << 0 | 1u << RSW_PF_L4 | 1u << (RSW_PF_L4 | RSW_PF_BTH) |
					1u << (RSW_PF_L4 | RSW_PF_UET));
	assert_true(from_header > 10000);
	t->results = saved;
	lb_tables_free(t);
}

/*
 * hash_algorithm nic: a frame carrying the NIC's RSS hash (RTE_MBUF_F_RX_RSS_HASH) hashes to
 * that hash mixed with the seed, in the burst step and alone, whatever its headers; a frame
 * without one takes railsw's CRC32 hash, as with hash_algorithm crc32. Frames of one NIC hash
 * but different headers go the same way; frames of one flow with different NIC hashes do not.
 */
static void
test_lb_hash_nic(void **state)
{
	const uint8_t port_mac[6] = {2, 0, 0, 0, 0, 7};
	struct rsw_tables *t = lb_tables_new();
	struct rsw_result res[1] = {{.type = RSW_RES_GROUP}};
	struct rsw_result *saved = t->results;
	struct rte_ether_addr ea;
	struct rsw_pkt_info ref;
	struct rsw_fam f;
	struct ut_frame fr;
	uint32_t crc;
	unsigned int i, k;

	(void)state;
	memcpy(ea.addr_bytes, port_mac, 6);
	t->results = res;
	for (i = 0; i < 2000; i++) {
		hash_frame(&fr, port_mac, i, 0);
		f.n = 2;
		for (k = 0; k < 2; k++) {
			f.m[k] = ut_mbuf(pool, &fr);
			assert_non_null(f.m[k]);
			f.nh[k] = 0;
			f.idx[k] = (uint8_t)k;
		}
		assert_true(rsw_parse_inline(f.m[0], &ea, &ref) != RSW_PK_DROP);
		t->hash_seed = (uint32_t)i * 2654435761u;
		t->hash_algorithm = RSW_HASH_CRC32;
		crc = rsw_lb_hash(t, f.m[1], &ref);
		t->hash_algorithm = RSW_HASH_NIC;
		f.m[0]->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
		f.m[0]->hash.rss = 0x9e3779b9u * i;
		rsw_lb_hash_burst(t, &f, NULL, 0, ref.kind);
		assert_int_equal(f.hash[0], rsw_lb_mix32((0x9e3779b9u * i) ^ t->hash_seed));
		assert_int_equal(rsw_lb_hash(t, f.m[0], &ref), f.hash[0]);
		assert_int_equal(f.hash[1], crc); /* no RSS hash: CRC32 */
		assert_int_equal(rsw_lb_hash(t, f.m[1], &ref), crc);
		for (k = 0; k < 2; k++)
			rte_pktmbuf_free(f.m[k]);
	}
	t->results = saved;
	lb_tables_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lb_hash_affinity_spread),
		cmocka_unit_test(test_lb_resilient),
		cmocka_unit_test(test_lb_hash_layout),
		cmocka_unit_test(test_lb_hash_burst),
		cmocka_unit_test(test_lb_hash_nic),
	};

	return ut_main("lb_hash", tests, RTE_DIM(tests), setup, teardown, &pool, 63);
}
