/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of Link-Level Retry's frames (dataplane/link/rsw_llr.h, llr_shim.h): the shim's
 * encoding and every way a frame can be bad, the names of the counters and states, and the
 * mbuf layer's reference counting. The state machines on a simulated link: test_llr.c.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_llr.h"
#include "test_common.h"
#include "test_llr_common.h"

/* --- The shim ------------------------------------------------------------------------ */

static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0, 0x0a};
static const uint8_t mac_b[6] = {0x02, 0, 0, 0, 0, 0x0b};

/* A plain IPv4-ish frame of len bytes at buf + RSW_LLR_SHIM_LEN (room for the shim). */
static void
plain_frame(uint8_t *buf, size_t len, int vlan)
{
	uint8_t *f = buf + RSW_LLR_SHIM_LEN;
	size_t i;

	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	i = 12;
	if (vlan) {
		f[i++] = 0x81;
		f[i++] = 0x00;
		f[i++] = 0x60;
		f[i++] = 0x05;
	}
	f[i++] = 0x08;
	f[i++] = 0x00;
	for (; i < len; i++)
		f[i] = (uint8_t)(i * 7 + 3);
}

static void
test_crc32c(void **state)
{
	(void)state;
	/* The CRC32C check value (RFC 3720 B.4 and every CRC catalogue). */
	assert_int_equal(rsw_llr_crc32c("123456789", 9), 0xE3069283);
	assert_int_equal(rsw_llr_crc32c("", 0), 0);
}

static void
test_shim_bad_input(void **state)
{
	uint8_t buf[128] = {0};
	struct rsw_llr_hdr h;
	size_t len;
	int r;

	(void)state;
	/* Too short to have an EtherType; a tag without the EtherType after it. */
	assert_int_equal(rsw_llr_shim_decode(buf, 0, &h), RSW_LLR_SHIM_NOT_LLR);
	assert_int_equal(rsw_llr_shim_decode(buf, 13, &h), RSW_LLR_SHIM_NOT_LLR);
	buf[12] = 0x81;
	assert_int_equal(rsw_llr_shim_decode(buf, 17, &h), RSW_LLR_SHIM_NOT_LLR);
	assert_int_equal(rsw_llr_shim_encap(buf, 13, 0), -EINVAL);
	/* Control frames: only control types and known flags. */
	assert_int_equal(rsw_llr_ctl_encode(buf, mac_b, mac_a, RSW_LLR_T_DATA, 0, 1), -EINVAL);
	assert_int_equal(rsw_llr_ctl_encode(buf, mac_b, mac_a, 9, 0, 1), -EINVAL);
	assert_int_equal(rsw_llr_ctl_encode(buf, mac_b, mac_a, RSW_LLR_T_ACK, 0x80, 1), -EINVAL);

	/* Every truncation of a good DATA frame is malformed, never decoded. */
	plain_frame(buf, 80, 0);
	r = rsw_llr_shim_encap(buf, 80, 7);
	assert_int_equal(r, 96);
	for (len = 14; len < 96; len++)
		assert_int_equal(rsw_llr_shim_decode(buf, len, &h), RSW_LLR_SHIM_MALFORMED);
	assert_int_equal(rsw_llr_shim_decode(buf, 96, &h), RSW_LLR_SHIM_OK);

	/* A wrong version or type, found before the checksum. */
	buf[14] = (uint8_t)((2 << 4) | RSW_LLR_T_DATA);
	assert_int_equal(rsw_llr_shim_decode(buf, 96, &h), RSW_LLR_SHIM_MALFORMED);
	buf[14] = (uint8_t)((RSW_LLR_VERSION << 4) | 0);
	assert_int_equal(rsw_llr_shim_decode(buf, 96, &h), RSW_LLR_SHIM_MALFORMED);
}

/* A flipped bit anywhere in an LLR frame is never taken for a good frame. */
static void
test_shim_every_bit(void **state)
{
	uint8_t buf[128], ref[128];
	struct rsw_llr_hdr h;
	size_t bit;
	int len;

	(void)state;
	plain_frame(buf, 64, 1);
	len = rsw_llr_shim_encap(buf, 64, 0x01020304);
	assert_int_equal(len, 80);
	memcpy(ref, buf, sizeof(ref));
	for (bit = 0; bit < (size_t)len * 8; bit++) {
		memcpy(buf, ref, sizeof(buf));
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(rsw_llr_shim_decode(buf, (size_t)len, &h), RSW_LLR_SHIM_OK);
	}
	len = rsw_llr_ctl_encode(buf, mac_b, mac_a, RSW_LLR_T_NACK, RSW_LLR_F_REINIT, 5);
	assert_int_equal(len, RSW_LLR_CTL_MIN);
	memcpy(ref, buf, sizeof(ref));
	/* The covered part is everything up to the end of the shim; the padding is not. */
	for (bit = 0; bit < RSW_LLR_CTL_LEN * 8; bit++) {
		memcpy(buf, ref, sizeof(buf));
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(rsw_llr_shim_decode(buf, (size_t)len, &h), RSW_LLR_SHIM_OK);
	}
	memcpy(buf, ref, sizeof(buf));
	buf[RSW_LLR_CTL_MIN - 1] ^= 1;
	assert_int_equal(rsw_llr_shim_decode(buf, (size_t)len, &h), RSW_LLR_SHIM_OK);
}

static void
test_shim_roundtrip(void **state)
{
	uint8_t buf[256], ref[256];
	struct rsw_llr_hdr h;
	int vlan, len;
	size_t plen;

	(void)state;
	for (vlan = 0; vlan < 2; vlan++) {
		plain_frame(buf, 100, vlan);
		memcpy(ref, buf, sizeof(ref));
		len = rsw_llr_shim_encap(buf, 100, 0xFFFFFFFF);
		assert_int_equal(len, 116);
		assert_int_equal(buf[12 + 4 * vlan], 0x88);
		assert_int_equal(buf[13 + 4 * vlan], 0xB5);
		/* Padding after the frame (a PMD's, the peer's) is ignored. */
		memset(buf + 116, 0xee, 20);
		assert_int_equal(rsw_llr_shim_decode(buf, 136, &h), RSW_LLR_SHIM_OK);
		assert_int_equal(h.type, RSW_LLR_T_DATA);
		assert_int_equal(h.seq, 0xFFFFFFFF);
		assert_int_equal(h.ethertype, 0x0800);
		assert_int_equal(h.off, 12 + 4 * vlan);
		assert_int_equal(h.len, 100 - 14 - 4 * vlan);
		plen = rsw_llr_shim_decap(buf, &h);
		assert_int_equal(plen, 100);
		assert_memory_equal(buf + RSW_LLR_SHIM_LEN, ref + RSW_LLR_SHIM_LEN, 100);
	}
	/* A plain frame is not an LLR frame. */
	plain_frame(buf, 100, 0);
	assert_int_equal(rsw_llr_shim_decode(buf + RSW_LLR_SHIM_LEN, 100, &h),
			 RSW_LLR_SHIM_NOT_LLR);
	/* Control frames. */
	len = rsw_llr_ctl_encode(buf, mac_b, mac_a, RSW_LLR_T_INIT_ECHO, 0, 42);
	assert_int_equal(rsw_llr_shim_decode(buf, (size_t)len, &h), RSW_LLR_SHIM_OK);
	assert_int_equal(h.type, RSW_LLR_T_INIT_ECHO);
	assert_int_equal(h.seq, 42);
	assert_memory_equal(buf, mac_b, 6);
	assert_memory_equal(buf + 6, mac_a, 6);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(rsw_llr_ctr_name(RSW_LLR_tx_frames), "tx_frames");
	assert_string_equal(rsw_llr_ctr_name(RSW_LLR_replay_buffer_bytes), "replay_buffer_bytes");
	assert_null(rsw_llr_ctr_name(RSW_N_LLR_CTRS));
	assert_true(rsw_llr_ctr_is_drop(RSW_LLR_rx_missing_seq));
	assert_false(rsw_llr_ctr_is_drop(RSW_LLR_tx_frames));
	assert_string_equal(rsw_llr_tx_state_name(RSW_LLR_TX_REPLAY), "replay");
	assert_string_equal(rsw_llr_tx_state_name(RSW_LLR_TX_OFF), "off");
}

/* --- The mbuf layer ------------------------------------------------------------------ */

static struct rte_mempool *pool;

static struct rte_mbuf *
mbuf_frame(size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t buf[256];

	assert_non_null(m);
	plain_frame(buf, len, 0);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), buf + RSW_LLR_SHIM_LEN, len);
	return m;
}

/*
 * Frames through a's tx burst to b's rx burst: the ring holds a reference, not a copy;
 * b gets the original bytes; b's ACK frees the frame; a replay is the same mbuf.
 */
static void
test_mbuf_refs(void **state)
{
	struct rsw_llr_params p;
	struct rsw_llr *a, *b;
	struct rte_mbuf *m[8], *ctl[8], *orig;
	uint8_t ref[256];
	uint16_t n, held, consumed, k;
	unsigned int avail;
	uint64_t now = 1000000;

	(void)state;
	default_params(&p);
	a = calloc(1, rsw_llr_mem_size(p.frames_max));
	b = calloc(1, rsw_llr_mem_size(p.frames_max));
	assert_int_equal(rsw_llr_init(a, &p, rsw_llr_mbuf_release, NULL), 0);
	assert_int_equal(rsw_llr_init(b, &p, rsw_llr_mbuf_release, NULL), 0);
	avail = rte_mempool_avail_count(pool);

	/* OFF: frames pass untouched. */
	m[0] = mbuf_frame(100);
	assert_int_equal(rsw_llr_mbuf_tx_burst(a, m, 1, now, &held), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m[0]), 100);
	rte_pktmbuf_free(m[0]);

	/* The handshake, by frames: a's INIT, b's INIT_ECHO. */
	rsw_llr_start(a, now);
	rsw_llr_start(b, now);
	n = rsw_llr_mbuf_poll(a, now, pool, mac_a, ctl, 8);
	assert_int_equal(n, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(ctl[0]), RSW_LLR_CTL_MIN);
	assert_int_equal(rsw_llr_mbuf_rx_burst(b, ctl, n, now, &consumed), 0);
	assert_int_equal(consumed, 1);
	n = rsw_llr_mbuf_poll(b, now, pool, mac_b, ctl, 8);
	assert_int_equal(n, 2); /* its INIT_ECHO and its own INIT */
	assert_int_equal(rsw_llr_mbuf_rx_burst(a, ctl, n, now, &consumed), 0);
	assert_int_equal(consumed, 2);
	assert_int_equal(a->tx_state, RSW_LLR_TX_ADVANCE);
	n = rsw_llr_mbuf_poll(a, now, pool, mac_a, ctl, 8); /* a's INIT_ECHO */
	assert_int_equal(rsw_llr_mbuf_rx_burst(b, ctl, n, now, &consumed), 0);
	assert_int_equal(b->tx_state, RSW_LLR_TX_ADVANCE);

	/* A sequenced frame and a PFC frame, which is never sequenced. */
	m[0] = mbuf_frame(200);
	memcpy(ref, rte_pktmbuf_mtod(m[0], uint8_t *), 200);
	orig = m[0];
	m[1] = mbuf_frame(60);
	rte_pktmbuf_mtod(m[1], uint8_t *)[12] = 0x88;
	rte_pktmbuf_mtod(m[1], uint8_t *)[13] = 0x08;
	n = rsw_llr_mbuf_tx_burst(a, m, 2, now, &held);
	assert_int_equal(n, 2);
	assert_int_equal(held, 0);
	assert_int_equal(rte_pktmbuf_pkt_len(m[0]), 200 + RSW_LLR_SHIM_LEN);
	assert_int_equal(rte_mbuf_refcnt_read(m[0]), 2); /* the wire's and the ring's */
	assert_int_equal(rte_pktmbuf_pkt_len(m[1]), 60);
	assert_int_equal(a->ctr[RSW_LLR_tx_frames], 1);
	assert_int_equal(a->ctr[RSW_LLR_replay_buffer_bytes], 216);
	rte_pktmbuf_free(m[1]);

	/* The wire copies the frame (as memif does) and lets go of the sent reference. */
	ctl[0] = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(ctl[0], 216), rte_pktmbuf_mtod(m[0], uint8_t *), 216);
	rte_pktmbuf_free(m[0]);
	assert_int_equal(rte_mbuf_refcnt_read(orig), 1);

	/* A replay sends the same mbuf again, with one more reference. */
	n = rsw_llr_mbuf_poll(a, now + p.replay_timeout_ns, pool, mac_a, m, 8);
	assert_int_equal(n, 1);
	assert_ptr_equal(m[0], orig);
	assert_int_equal(rte_mbuf_refcnt_read(orig), 2);
	rte_pktmbuf_free(m[0]);

	/* b: the original bytes come out; the duplicate (the replay) is dropped. */
	ctl[1] = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(ctl[1], 216), rte_pktmbuf_mtod(orig, uint8_t *), 216);
	n = rsw_llr_mbuf_rx_burst(b, ctl, 2, now, &consumed);
	assert_int_equal(n, 1);
	assert_int_equal(consumed, 0);
	assert_int_equal(rte_pktmbuf_pkt_len(ctl[0]), 200);
	assert_memory_equal(rte_pktmbuf_mtod(ctl[0], uint8_t *), ref, 200);
	assert_int_equal(b->ctr[RSW_LLR_rx_duplicate_seq], 1);
	rte_pktmbuf_free(ctl[0]);

	/* b's ACK frees a's ring reference: every mbuf is back in the pool. */
	n = rsw_llr_mbuf_poll(b, now + p.ack_interval_ns, pool, mac_b, ctl, 8);
	assert_int_equal(n, 1);
	assert_int_equal(rsw_llr_mbuf_rx_burst(a, ctl, n, now, &consumed), 0);
	assert_int_equal(a->ctr[RSW_LLR_acks_rx], 1);
	assert_int_equal(a->ctr[RSW_LLR_replay_buffer_frames], 0);
	assert_int_equal(rte_mempool_avail_count(pool), avail);

	/* A corrupted LLR frame is dropped and counted. */
	m[0] = mbuf_frame(100);
	n = rsw_llr_mbuf_tx_burst(a, m, 1, now, &held);
	ctl[0] = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(ctl[0], 116), rte_pktmbuf_mtod(m[0], uint8_t *), 116);
	rte_pktmbuf_free(m[0]);
	rte_pktmbuf_mtod(ctl[0], uint8_t *)[60] ^= 0x10;
	assert_int_equal(rsw_llr_mbuf_rx_burst(b, ctl, 1, now, &consumed), 0);
	assert_int_equal(b->ctr[RSW_LLR_rx_bad_integrity], 1);

	/* Without headroom for the shim: dropped and counted. */
	m[0] = mbuf_frame(100);
	rte_pktmbuf_prepend(m[0], (uint16_t)rte_pktmbuf_headroom(m[0]));
	rsw_llr_stop(a);
	rsw_llr_start(a, now);
	a->tx_state = RSW_LLR_TX_ADVANCE; /* as if answered */
	n = rsw_llr_mbuf_tx_burst(a, m, 1, now, &held);
	assert_int_equal(n, 0);
	assert_int_equal(a->ctr[RSW_LLR_tx_encap_failed], 1);

	/* Held frames come back in order. */
	for (k = 0; k < 3; k++)
		m[k] = mbuf_frame(100);
	a->tx_state = RSW_LLR_TX_INIT;
	a->fallback = RSW_LLR_FB_BLOCK;
	orig = m[0];
	n = rsw_llr_mbuf_tx_burst(a, m, 3, now, &held);
	assert_int_equal(n, 0);
	assert_int_equal(held, 3);
	assert_ptr_equal(m[0], orig);
	rte_pktmbuf_free_bulk(m, 3);
	rsw_llr_stop(a);
	rsw_llr_stop(b);
	assert_int_equal(rte_mempool_avail_count(pool), avail);
	free(a);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* The shim. */
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_shim_bad_input),
		cmocka_unit_test(test_shim_every_bit),
		cmocka_unit_test(test_shim_roundtrip),
		cmocka_unit_test(test_names),
		/* The mbuf layer. */
		cmocka_unit_test(test_mbuf_refs),
	};

	return ut_main("llr_shim", tests, RTE_DIM(tests), NULL, NULL, &pool, 255);
}
