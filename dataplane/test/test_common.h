/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Helpers shared by the dataplane unit tests: EAL start-up with the flags
 * the style rules prescribe, a byte-by-byte frame builder that does not use the code
 * under test, a reference RFC 1071 checksum, mbufs whose data is an exactly
 * sized heap buffer (so that AddressSanitizer sees any read past the frame),
 * and the main() of a test binary (ut_main, when cmocka.h came first).
 */

#ifndef RSW_TEST_COMMON_H
#define RSW_TEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define UT_FRAME_MAX 2048

/*
 * Start EAL for test binary name (file prefix ut-<name>) with mem_mb MB of memory (a decimal
 * string, as EAL's -m takes it). @return 0 or -1.
 */
static inline int
ut_eal_init_mem(const char *name, const char *mem_mb)
{
	static char prefix[64];
	char *argv[] = {
		(char *)name, "--no-huge", "-m", (char *)mem_mb,      "--no-pci", "--file-prefix",
		prefix,       "-l",        "0",  "--log-level=error",
	};

	snprintf(prefix, sizeof(prefix), "ut-%s", name);
	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0) {
		fprintf(stderr, "%s: cannot start EAL\n", name);
		return -1;
	}
	return 0;
}

/* Start EAL for test binary name with 256 MB (ut_eal_init_mem). @return 0 or -1. */
static inline int
ut_eal_init(const char *name)
{
	return ut_eal_init_mem(name, "256");
}

/* A frame under construction. */
struct ut_frame {
	uint8_t b[UT_FRAME_MAX];
	uint16_t len;
};

static inline void
ut_put(struct ut_frame *f, const void *p, size_t n)
{
	memcpy(f->b + f->len, p, n);
	f->len = (uint16_t)(f->len + n);
}

static inline void
ut_put8(struct ut_frame *f, uint8_t v)
{
	f->b[f->len++] = v;
}

static inline void
ut_put16(struct ut_frame *f, uint16_t v)
{
	ut_put8(f, (uint8_t)(v >> 8));
	ut_put8(f, (uint8_t)v);
}

static inline void
ut_put32(struct ut_frame *f, uint32_t v)
{
	ut_put16(f, (uint16_t)(v >> 16));
	ut_put16(f, (uint16_t)v);
}

static inline void
ut_zeros(struct ut_frame *f, size_t n)
{
	memset(f->b + f->len, 0, n);
	f->len = (uint16_t)(f->len + n);
}

/* Reference RFC 1071 checksum, host order (0x220d for the RFC's example bytes). */
static inline uint16_t
ut_ref_cksum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < len; i++)
		sum += i % 2 == 0 ? (uint64_t)p[i] << 8 : p[i];
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet header. */
static inline void
ut_eth(struct ut_frame *f, const uint8_t dst[6], const uint8_t src[6], uint16_t type)
{
	f->len = 0;
	ut_put(f, dst, 6);
	ut_put(f, src, 6);
	ut_put16(f, type);
}

/* One 802.1Q tag (the TPID was the previous type field): TCI, then the next type. */
static inline void
ut_vlan(struct ut_frame *f, uint8_t pcp, uint16_t vid, uint16_t next_type)
{
	ut_put16(f, (uint16_t)(pcp << 13 | (vid & 0xfff)));
	ut_put16(f, next_type);
}

/*
 * IPv4 header with IHL 5 + n_opt_words option words (NOPs) and a correct checksum.
 * payload_len is what follows the header. @return the header's offset.
 */
static inline uint16_t
ut_ipv4_opt(struct ut_frame *f, uint8_t tos, uint16_t frag, uint8_t ttl, uint8_t proto,
	    uint32_t src, uint32_t dst, uint16_t payload_len, unsigned int n_opt_words)
{
	uint16_t off = f->len, ihl = (uint16_t)(20 + 4 * n_opt_words), ck;

	ut_put8(f, (uint8_t)(0x40 | (ihl / 4)));
	ut_put8(f, tos);
	ut_put16(f, (uint16_t)(ihl + payload_len));
	ut_put16(f, 0x1234); /* id */
	ut_put16(f, frag);
	ut_put8(f, ttl);
	ut_put8(f, proto);
	ut_put16(f, 0);
	ut_put32(f, src);
	ut_put32(f, dst);
	memset(f->b + f->len, 0x01, 4 * n_opt_words); /* NOP options */
	f->len = (uint16_t)(f->len + 4 * n_opt_words);
	ck = ut_ref_cksum(f->b + off, ihl);
	f->b[off + 10] = (uint8_t)(ck >> 8);
	f->b[off + 11] = (uint8_t)ck;
	return off;
}

static inline uint16_t
ut_ipv4(struct ut_frame *f, uint8_t tos, uint8_t ttl, uint8_t proto, uint32_t src, uint32_t dst,
	uint16_t payload_len)
{
	return ut_ipv4_opt(f, tos, 0x4000 /* DF */, ttl, proto, src, dst, payload_len, 0);
}

/* IPv6 header. @return its offset. */
static inline uint16_t
ut_ipv6(struct ut_frame *f, uint8_t tclass, uint32_t flow, uint16_t payload_len, uint8_t nh,
	uint8_t hlim, const uint8_t src[16], const uint8_t dst[16])
{
	uint16_t off = f->len;

	ut_put32(f, 6u << 28 | (uint32_t)tclass << 20 | (flow & 0xfffff));
	ut_put16(f, payload_len);
	ut_put8(f, nh);
	ut_put8(f, hlim);
	ut_put(f, src, 16);
	ut_put(f, dst, 16);
	return off;
}

/* UDP header (checksum 0); len includes the 8-byte header. */
static inline void
ut_udp(struct ut_frame *f, uint16_t sport, uint16_t dport, uint16_t len)
{
	ut_put16(f, sport);
	ut_put16(f, dport);
	ut_put16(f, len);
	ut_put16(f, 0);
}

/* RoCEv2 base transport header (12 bytes). */
static inline void
ut_bth(struct ut_frame *f, uint8_t opcode, uint32_t qp, uint32_t psn)
{
	ut_put8(f, opcode);
	ut_put8(f, 0x40);           /* SE/M/pad/tver */
	ut_put16(f, 0xffff);        /* P_Key */
	ut_put32(f, qp & 0xffffff); /* reserved byte 0 + dest QP */
	ut_put32(f, psn & 0xffffff);
}

/* Free callback of ut_mbuf_ext buffers. */
static inline void
ut_ext_free(void *addr, void *opaque)
{
	free(opaque);
	(void)addr;
}

/*
 * An mbuf from pool whose data is a heap copy of the first len bytes of buf, exactly len bytes
 * long: a read past the frame is a heap-buffer-overflow under ASan. Freed by rte_pktmbuf_free.
 */
static inline struct rte_mbuf *
ut_mbuf_ext(struct rte_mempool *pool, const void *buf, uint16_t len)
{
	struct {
		struct rte_mbuf_ext_shared_info shinfo;
		uint8_t data[];
	} * ext;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return NULL;
	/* The shared info first, the frame data at the very end of the allocation. */
	ext = malloc(sizeof(*ext) + len);
	if (ext == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(ext->data, buf, len);
	ext->shinfo.free_cb = ut_ext_free;
	ext->shinfo.fcb_opaque = ext;
	rte_mbuf_ext_refcnt_set(&ext->shinfo, 1);
	rte_pktmbuf_attach_extbuf(m, ext->data, 0, len, &ext->shinfo);
	m->data_len = len;
	m->pkt_len = len;
	return m;
}

/* An ordinary mbuf from pool holding a copy of the frame. */
static inline struct rte_mbuf *
ut_mbuf(struct rte_mempool *pool, const struct ut_frame *f)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, f->len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, f->b, f->len);
	return m;
}

/* A small deterministic PRNG (xorshift64*), so failures reproduce. */
static inline uint64_t
ut_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

#ifdef cmocka_unit_test /* a cmocka test binary (the fuzzers include this header too) */
/*
 * The main() of a test binary: EAL started as name; unless pool is NULL, *pool created with
 * n_mbufs mbufs (ut_<name>); the cmocka group tests[0..n_tests-1] run with its set-up and
 * tear-down (NULL for none); then the pool freed and EAL cleaned up.
 * @return cmocka's result (the failed tests), or 1 if EAL or the pool could not start.
 */
static inline int
ut_main(const char *name, const struct CMUnitTest *tests, size_t n_tests, CMFixtureFunction setup,
	CMFixtureFunction teardown, struct rte_mempool **pool, unsigned int n_mbufs)
{
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	int ret;

	if (ut_eal_init(name) != 0)
		return 1;
	if (pool != NULL) {
		snprintf(pool_name, sizeof(pool_name), "ut_%s", name);
		*pool = rte_pktmbuf_pool_create(pool_name, n_mbufs, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
						SOCKET_ID_ANY);
		if (*pool == NULL) {
			fprintf(stderr, "%s: cannot create the mbuf pool\n", name);
			rte_eal_cleanup();
			return 1;
		}
	}
	ret = _cmocka_run_group_tests(name, tests, n_tests, setup, teardown);
	if (pool != NULL)
		rte_mempool_free(*pool);
	rte_eal_cleanup();
	return ret;
}
#endif

#endif /* RSW_TEST_COMMON_H */
