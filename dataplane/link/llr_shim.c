/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Encoding and decoding of the LLR shim and control frames (llr_shim.h), with every
 * length checked before a byte is read: the receive step runs the decoder on whatever a
 * port delivers, and fuzz/fuzz_llr.c feeds it arbitrary bytes.
 */

#include <errno.h>
#include <string.h>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

#include "link_bytes.h"
#include "llr_shim.h"

#define OFF_TYPE  0
#define OFF_VC    1
#define OFF_FLAGS 2
#define OFF_RSVD  3
#define OFF_SEQ   4
#define OFF_ET    8
#define OFF_LEN   10
#define OFF_CRC   12

#if !defined(__SSE4_2__)
/* Table of the reflected polynomial 0x82F63B78, built on first use. */
static uint32_t crc_table[256];
static int crc_table_ready;

static void
crc_table_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ ((c & 1) ? 0x82F63B78u : 0);
		crc_table[i] = c;
	}
	crc_table_ready = 1;
}
#endif

/* CRC32C update without the initial and final XOR. */
static uint32_t
crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
#if defined(__SSE4_2__)
	uint64_t c = crc;

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, p, 8); /* no alignment is assumed */
		c = _mm_crc32_u64(c, w);
		p += 8;
		n -= 8;
	}
	crc = (uint32_t)c;
	while (n > 0) {
		crc = _mm_crc32_u8(crc, *p++);
		n--;
	}
	return crc;
#else
	if (!crc_table_ready)
		crc_table_init();
	while (n > 0) {
		crc = (crc >> 8) ^ crc_table[(crc ^ *p++) & 0xff];
		n--;
	}
	return crc;
#endif
}

uint32_t
rsw_llr_crc32c(const void *buf, size_t n)
{
	return ~crc_update(0xFFFFFFFFu, buf, n);
}

/*
 * The checksum of an LLR frame whose shim starts at frame + s (s = EtherType offset + 2)
 * and whose covered part ends at frame + end: everything but the checksum field.
 */
static uint32_t
frame_crc(const uint8_t *frame, size_t s, size_t end)
{
	uint32_t crc = 0xFFFFFFFFu;

	crc = crc_update(crc, frame, s + OFF_CRC);
	crc = crc_update(crc, frame + s + RSW_LLR_SHIM_LEN, end - s - RSW_LLR_SHIM_LEN);
	return ~crc;
}

int
rsw_llr_ethertype_off(const uint8_t *frame, size_t len)
{
	uint16_t et;

	if (len < 14)
		return -EINVAL;
	et = rsw_link_get16(frame + 12);
	if (et != 0x8100 && et != 0x88A8)
		return 12;
	if (len < 18)
		return -EINVAL;
	return 16;
}

static int
type_known(uint8_t type)
{
	return type >= RSW_LLR_T_DATA && type <= RSW_LLR_T_INIT_ECHO;
}

enum rsw_llr_shim_err
rsw_llr_shim_decode(const uint8_t *frame, size_t len, struct rsw_llr_hdr *h)
{
	const uint8_t *s;
	int off;
	size_t start;

	memset(h, 0, sizeof(*h));
	off = rsw_llr_ethertype_off(frame, len);
	if (off < 0)
		return RSW_LLR_SHIM_NOT_LLR;
	if (rsw_link_get16(frame + off) != RSW_LLR_ETHERTYPE)
		return RSW_LLR_SHIM_NOT_LLR;
	start = (size_t)off + 2;
	if (len < start + RSW_LLR_SHIM_LEN)
		return RSW_LLR_SHIM_MALFORMED;
	s = frame + start;
	h->off = (uint16_t)off;
	h->type = s[OFF_TYPE] & 0x0f;
	h->vc = s[OFF_VC];
	h->flags = s[OFF_FLAGS];
	h->seq = rsw_link_get32(s + OFF_SEQ);
	h->ethertype = rsw_link_get16(s + OFF_ET);
	h->len = rsw_link_get16(s + OFF_LEN);
	if ((s[OFF_TYPE] >> 4) != RSW_LLR_VERSION || !type_known(h->type))
		return RSW_LLR_SHIM_MALFORMED;
	if (len - start - RSW_LLR_SHIM_LEN < h->len)
		return RSW_LLR_SHIM_MALFORMED; /* truncated */
	if (frame_crc(frame, start, start + RSW_LLR_SHIM_LEN + h->len) !=
	    rsw_link_get32(s + OFF_CRC))
		return RSW_LLR_SHIM_BAD_CRC;
	/* Covered by the checksum, so a bad value here is a peer's bug, not the wire's. */
	if (h->vc != 0 || s[OFF_RSVD] != 0 || (h->flags & ~RSW_LLR_F_MASK) != 0)
		return RSW_LLR_SHIM_MALFORMED;
	if (h->type != RSW_LLR_T_DATA && (h->len != 0 || h->ethertype != 0))
		return RSW_LLR_SHIM_MALFORMED;
	return RSW_LLR_SHIM_OK;
}

int
rsw_llr_shim_encap(uint8_t *buf, size_t len, uint32_t seq)
{
	uint8_t *f = buf + RSW_LLR_SHIM_LEN;
	uint8_t *s;
	uint16_t et;
	int off;
	size_t rest;

	off = rsw_llr_ethertype_off(f, len);
	if (off < 0)
		return -EINVAL;
	rest = len - (size_t)off - 2;
	if (rest > UINT16_MAX)
		return -EINVAL;
	et = rsw_link_get16(f + off);
	memmove(buf, f, (size_t)off); /* the MACs and the tag, to the front */
	rsw_link_put16(buf + off, RSW_LLR_ETHERTYPE);
	s = buf + off + 2;
	s[OFF_TYPE] = (RSW_LLR_VERSION << 4) | RSW_LLR_T_DATA;
	s[OFF_VC] = 0;
	s[OFF_FLAGS] = 0;
	s[OFF_RSVD] = 0;
	rsw_link_put32(s + OFF_SEQ, seq);
	rsw_link_put16(s + OFF_ET, et);
	rsw_link_put16(s + OFF_LEN, (uint16_t)rest);
	rsw_link_put32(s + OFF_CRC, frame_crc(buf, (size_t)off + 2, len + RSW_LLR_SHIM_LEN));
	return (int)(len + RSW_LLR_SHIM_LEN);
}

size_t
rsw_llr_shim_decap(uint8_t *frame, const struct rsw_llr_hdr *h)
{
	uint8_t *f = frame + RSW_LLR_SHIM_LEN;

	/* The frame's EtherType goes back where the last 2 bytes of the shim were. */
	rsw_link_put16(f + h->off, h->ethertype);
	memmove(f, frame, h->off);
	return (size_t)h->off + 2 + h->len;
}

int
rsw_llr_ctl_encode(uint8_t *buf, const uint8_t *dst, const uint8_t *src, uint8_t type,
		   uint8_t flags, uint32_t seq)
{
	uint8_t *s = buf + 14;

	if (!type_known(type) || type == RSW_LLR_T_DATA || (flags & ~RSW_LLR_F_MASK) != 0)
		return -EINVAL;
	memset(buf, 0, RSW_LLR_CTL_MIN);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	rsw_link_put16(buf + 12, RSW_LLR_ETHERTYPE);
	s[OFF_TYPE] = (RSW_LLR_VERSION << 4) | type;
	s[OFF_FLAGS] = flags;
	rsw_link_put32(s + OFF_SEQ, seq);
	rsw_link_put32(s + OFF_CRC, frame_crc(buf, 14, RSW_LLR_CTL_LEN));
	return RSW_LLR_CTL_MIN;
}
