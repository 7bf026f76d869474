/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The in-band LLR shim (docs/link.md "The shim"). UEC LLR carries its sequence number in
 * the Ethernet preamble and its ACK/NACK in control ordered sets, which DPDK never sees;
 * railsw emulates it with a 16-byte shim after the Ethernet header of every frame sent on
 * an LLR link, under the IEEE local-experimental EtherType 0x88B5:
 *
 *   dst(6) src(6) [802.1Q tag(4)] 0x88B5 | shim(16) | the frame after its EtherType
 *
 *   shim byte 0      version (high nibble, 1) | type (low nibble): DATA, ACK, NACK, INIT,
 *                    INIT_ECHO
 *        byte 1      virtual channel (0; reserved for CBFC, UEC 1.0 §5.2)
 *        byte 2      flags (RSW_LLR_F_*)
 *        byte 3      reserved, 0
 *        bytes 4-7   sequence number, big-endian (DATA: the frame's; ACK, NACK: the last
 *                    good one; INIT, INIT_ECHO: the first sequence of the session)
 *        bytes 8-9   the frame's own EtherType (DATA), 0 in control frames
 *        bytes 10-11 length of what follows the shim and is covered by the checksum
 *        bytes 12-15 CRC32C (Castagnoli) of the frame from its first byte to the end of
 *                    that length, these four bytes left out; big-endian
 *
 * The wire's FCS is not visible to DPDK, so the checksum is what tells a corrupted frame
 * (an impairment's bit flip, a bad wire under a PMD that does not check the FCS) from a
 * good one. Padding a PMD or the peer adds after the covered length is ignored.
 *
 * These functions work on plain byte buffers so that the unit tests and the fuzzer reach
 * every bound without DPDK; the mbuf side is in rsw_llr.h.
 */

#ifndef RSW_LLR_SHIM_H
#define RSW_LLR_SHIM_H

#include <stddef.h>
#include <stdint.h>

#define RSW_LLR_ETHERTYPE 0x88B5 /* IEEE 802 local experimental EtherType 1 */
#define RSW_LLR_VERSION   1
#define RSW_LLR_SHIM_LEN  16                      /* bytes the shim adds to a frame */
#define RSW_LLR_CTL_LEN   (14 + RSW_LLR_SHIM_LEN) /* a control frame before padding */
#define RSW_LLR_CTL_MIN   60 /* control frames are padded to the Ethernet minimum */

/* Frame types (the shim's low nibble). */
enum rsw_llr_type {
	RSW_LLR_T_DATA = 1,      /* a sequenced frame */
	RSW_LLR_T_ACK = 2,       /* cumulative: every sequence up to seq arrived */
	RSW_LLR_T_NACK = 3,      /* seq is the last good one; send again from seq + 1 */
	RSW_LLR_T_INIT = 4,      /* the sender's next data frame carries seq */
	RSW_LLR_T_INIT_ECHO = 5, /* answer to INIT(seq) */
};

/* Flags (shim byte 2). */
#define RSW_LLR_F_REINIT 0x01 /* NACK: the receiver has no session, send INIT again */
#define RSW_LLR_F_MASK   0x01 /* flags version 1 knows; others are rejected */

/* A decoded shim. */
struct rsw_llr_hdr {
	uint32_t seq;       /* sequence number */
	uint16_t ethertype; /* the frame's own EtherType (DATA) */
	uint16_t len;       /* bytes after the shim covered by the checksum */
	uint16_t off;       /* offset of the shim's EtherType field in the frame (12 or 16) */
	uint8_t type;       /* enum rsw_llr_type */
	uint8_t vc;         /* virtual channel (reserved, 0) */
	uint8_t flags;      /* RSW_LLR_F_* */
};

/* Why a buffer is not a good LLR frame (rsw_llr_shim_decode). */
enum rsw_llr_shim_err {
	RSW_LLR_SHIM_OK = 0,
	RSW_LLR_SHIM_NOT_LLR = 1,   /* not EtherType 0x88B5 (a plain frame) */
	RSW_LLR_SHIM_MALFORMED = 2, /* truncated, unknown version, type, flags or VC */
	RSW_LLR_SHIM_BAD_CRC = 3,   /* the checksum does not match: corrupted */
};

/** CRC32C (Castagnoli, reflected, initial and final XOR 0xFFFFFFFF) of n bytes. */
uint32_t rsw_llr_crc32c(const void *buf, size_t n);

/**
 * Offset of the EtherType field of a frame: 12, or 16 after one 802.1Q/802.1ad tag.
 * @return the offset, or -EINVAL if the frame is shorter than the field.
 */
int rsw_llr_ethertype_off(const uint8_t *frame, size_t len);

/**
 * Decode and check the shim of a frame of len bytes.
 * @param frame
 *   The frame from its destination MAC.
 * @param len
 *   Bytes available in frame.
 * @param h
 *   Receives the shim's fields (also when the checksum is bad, for counting).
 * @return RSW_LLR_SHIM_OK or an enum rsw_llr_shim_err value.
 */
enum rsw_llr_shim_err rsw_llr_shim_decode(const uint8_t *frame, size_t len, struct rsw_llr_hdr *h);

/**
 * Turn a plain frame into an LLR DATA frame in place: the MACs (and VLAN tag) move
 * RSW_LLR_SHIM_LEN bytes to the front, the shim goes where the EtherType was.
 * @param buf
 *   Buffer whose frame starts at buf + RSW_LLR_SHIM_LEN (the room the shim takes);
 *   on return the LLR frame starts at buf.
 * @param len
 *   Length of the plain frame (without the room).
 * @param seq
 *   The frame's sequence number.
 * @return the length of the LLR frame, or -EINVAL if the frame is too short or longer
 *   than 65535 bytes after its EtherType.
 */
int rsw_llr_shim_encap(uint8_t *buf, size_t len, uint32_t seq);

/**
 * Turn a decoded LLR DATA frame back into the plain frame in place (the reverse of
 * rsw_llr_shim_encap): on return the frame starts at frame + RSW_LLR_SHIM_LEN.
 * @return the length of the plain frame (h->len plus its header).
 */
size_t rsw_llr_shim_decap(uint8_t *frame, const struct rsw_llr_hdr *h);

/**
 * Write a control frame (ACK, NACK, INIT, INIT_ECHO) of RSW_LLR_CTL_MIN bytes.
 * @param buf
 *   At least RSW_LLR_CTL_MIN bytes.
 * @param dst, src
 *   MAC addresses (6 bytes each).
 * @return RSW_LLR_CTL_MIN, or -EINVAL for a type that is not a control type or flags
 *   outside RSW_LLR_F_MASK.
 */
int rsw_llr_ctl_encode(uint8_t *buf, const uint8_t *dst, const uint8_t *src, uint8_t type,
		       uint8_t flags, uint32_t seq);

#endif /* RSW_LLR_SHIM_H */
