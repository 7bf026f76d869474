/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The packets the control thread answers with (docs/routing.md), built and checked on plain
 * buffers so they are unit-tested without ports or EAL: IPv6 Neighbor Discovery
 * (RFC 4861 NS/NA), ICMPv6 checksums (RFC 4443 §2.3), ICMP and ICMPv6 error messages
 * quoting the offending packet (RFC 1812 §4.3.2, RFC 4443 §2.4) and the token bucket that
 * rate-limits them. nd.c and icmp.c put these L3 packets into mbufs.
 *
 * Thread-safety: the functions keep no state of their own; a struct rsw_icmp_rl belongs to
 * its caller (the control thread).
 */

#ifndef RSW_ICMP_PKT_H
#define RSW_ICMP_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RSW_IP4_HDR_LEN   20    /* an IPv4 header without options */
#define RSW_IP6_HDR_LEN   40    /* the IPv6 fixed header */
#define RSW_ICMP_HDR_LEN  8     /* type, code, checksum and the 4-byte word that follows */
#define RSW_ICMP4_MAX_LEN 576u  /* RFC 1812 §4.3.2.3: an ICMP error's whole IP datagram */
#define RSW_ICMP6_MAX_LEN 1280u /* RFC 4443 §2.4 (c): the IPv6 minimum MTU */

#define RSW_IPPROTO_ICMP   1
#define RSW_IPPROTO_ICMPV6 58

/* ICMPv4 types and codes (RFC 792, RFC 1191). */
#define RSW_ICMP4_UNREACH       3
#define RSW_ICMP4_UNREACH_NET   0
#define RSW_ICMP4_FRAG_NEEDED   4 /* code of RSW_ICMP4_UNREACH */
#define RSW_ICMP4_TIME_EXCEEDED 11

/* ICMPv6 types (RFC 4443, RFC 4861). */
#define RSW_ICMP6_UNREACH       1 /* code 0: no route to destination */
#define RSW_ICMP6_TOO_BIG       2
#define RSW_ICMP6_TIME_EXCEEDED 3 /* code 0: hop limit exceeded in transit */
#define RSW_ICMP6_ECHO_REQUEST  128
#define RSW_ICMP6_ECHO_REPLY    129
#define RSW_ND_NS               135
#define RSW_ND_NA               136

#define RSW_ND_OPT_SLLA 1    /* source link-layer address option */
#define RSW_ND_OPT_TLLA 2    /* target link-layer address option */
#define RSW_ND_LEN      32   /* NS/NA: ICMPv6 header, target, one link-layer address option */
#define RSW_ND_MIN_LEN  24   /* RFC 4861 §7.1: NS/NA without options */
#define RSW_ND_NA_R     0x80 /* NA flags (first byte after the checksum): Router */
#define RSW_ND_NA_S     0x40 /* Solicited */
#define RSW_ND_NA_O     0x20 /* Override */

/** A validated NS or NA. The pointers point into the packet given to rsw_nd_parse. */
struct rsw_nd_msg {
	uint8_t type;          /* RSW_ND_NS or RSW_ND_NA */
	uint8_t flags;         /* NA: RSW_ND_NA_* bits; NS: 0 */
	bool src_unspec;       /* IPv6 source is :: (an NS for duplicate address detection) */
	bool dst_mcast;        /* IPv6 destination is multicast */
	const uint8_t *src;    /* IPv6 source, 16 bytes */
	const uint8_t *dst;    /* IPv6 destination, 16 bytes */
	const uint8_t *target; /* target address, 16 bytes */
	const uint8_t *lladdr; /* SLLA (NS) or TLLA (NA) option's MAC, or NULL when absent */
};

/**
 * Add buf to a running ones'-complement sum of 16-bit big-endian words (RFC 1071). Every
 * piece but the last must have an even length.
 * @return the new running sum.
 */
uint32_t rsw_csum_add(uint32_t sum, const void *buf, size_t len);

/** Fold a running sum and complement it: the checksum in network order, ready to store. */
uint16_t rsw_csum_fold(uint32_t sum);

/**
 * ICMPv6 checksum (RFC 4443 §2.3) of the len bytes at icmp, with the pseudo-header of
 * RFC 8200 §8.1 from src and dst (16 bytes each). Stored in network order; over a message
 * whose checksum field is filled in it is 0 when the checksum is right.
 */
uint16_t rsw_icmp6_cksum(const uint8_t *src, const uint8_t *dst, const void *icmp, size_t len);

/** The solicited-node multicast group of ip (RFC 4291 §2.7.1): ff02::1:ffXX:XXXX. */
void rsw_nd_solicited_node(const uint8_t *ip, uint8_t *group);

/** The Ethernet multicast MAC of an IPv6 multicast group (RFC 2464 §7): 33:33 + last 32 bits. */
void rsw_ip6_mcast_mac(const uint8_t *group, uint8_t *mac);

/** Whether ip (16 bytes) is the solicited-node group of target. */
bool rsw_nd_is_solicited_node(const uint8_t *ip, const uint8_t *target);

/**
 * Validate an IPv6 packet carrying an NS or NA (RFC 4861 §7.1.1, §7.1.2): version 6, next
 * header ICMPv6 (extension headers are not chased), lengths, hop limit 255, ICMPv6
 * checksum, code 0, at least 24 bytes, a target that is not multicast, every option of
 * non-zero length and within the message; an NS from :: goes to a solicited-node group and
 * has no SLLA option; an NA to a multicast destination has S clear. A link-layer address
 * option whose length is not 1 (8 bytes, Ethernet) is ignored.
 *
 * @param ip6
 *   The IPv6 header.
 * @param len
 *   Bytes available from ip6 (trailing Ethernet padding allowed).
 * @return 0 with msg filled, or -EINVAL (malformed or not an NS/NA: drop it).
 */
int rsw_nd_parse(const uint8_t *ip6, size_t len, struct rsw_nd_msg *msg);

/**
 * Build an IPv6 NS (type 135) or NA (type 136) with hop limit 255, one link-layer address
 * option (SLLA for NS, TLLA for NA) carrying mac, and its checksum.
 *
 * @param out
 *   Where the IPv6 header goes; RSW_IP6_HDR_LEN + RSW_ND_LEN bytes are written.
 * @param cap
 *   Bytes available at out.
 * @param flags
 *   NA flags (RSW_ND_NA_*); 0 for an NS.
 * @return the packet length (72), or -ENOSPC (cap too small), -EINVAL (type).
 */
int rsw_nd_build(uint8_t *out, size_t cap, uint8_t type, const uint8_t *src, const uint8_t *dst,
		 const uint8_t *target, uint8_t flags, const uint8_t *mac);

/**
 * Whether RFC 1812 §4.3.2.7 allows an ICMP error about the IPv4 packet at ip (len bytes):
 * not about an ICMP error (only echo, timestamp, information, address-mask and router
 * discovery messages are answered), not about a fragment other than the first, not to an
 * IP broadcast or multicast destination, not from 0.0.0.0, 127/8, multicast, 240/4 or
 * 255.255.255.255 sources. Malformed input (short, bad IHL) is never answered.
 */
bool rsw_icmp4_error_allowed(const uint8_t *ip, size_t len);

/**
 * Whether RFC 4443 §2.4 (e) allows an ICMPv6 error about the IPv6 packet at ip6: not about
 * an ICMPv6 error message (type < 128; checked when the next header is ICMPv6 directly),
 * not to a multicast destination, not from ::, ::1 or a multicast source.
 */
bool rsw_icmp6_error_allowed(const uint8_t *ip6, size_t len);

/**
 * Build an IPv4 ICMP error: a 20-byte IPv4 header from src to the offending packet's source
 * (TTL 64, precedence 6 internetwork control, RFC 1812 §4.3.2.5), then the ICMP header and
 * as much of the offending packet as keeps the whole datagram within max_len, but never
 * less than its IP header + 8 bytes (RFC 1812 §4.3.2.3).
 *
 * @param orig
 *   The offending IPv4 packet; orig_len its length (IP total length).
 * @param mtu
 *   Next-hop MTU for type 3 code 4 (RFC 1191 §4), else 0.
 * @param max_len
 *   Largest datagram to build (RSW_ICMP4_MAX_LEN, or less for a small MTU).
 * @return the datagram's length, or -EINVAL (orig malformed), -ENOSPC (cap too small).
 */
int rsw_icmp4_error_build(uint8_t *out, size_t cap, const uint8_t *orig, size_t orig_len,
			  uint8_t type, uint8_t code, uint16_t mtu, const uint8_t *src,
			  size_t max_len);

/**
 * Build an ICMPv6 error: an IPv6 header from src to the offending packet's source (hop
 * limit 64), the ICMPv6 header whose 4-byte word is param (the MTU of a packet too big,
 * else 0), and as much of the offending packet as fits within max_len (RFC 4443 §2.4 (c)).
 *
 * @return the packet's length, or -EINVAL (orig malformed), -ENOSPC (cap too small).
 */
int rsw_icmp6_error_build(uint8_t *out, size_t cap, const uint8_t *orig, size_t orig_len,
			  uint8_t type, uint8_t code, uint32_t param, const uint8_t *src,
			  size_t max_len);

/** A token bucket in millionths of a token, so sub-token refills are kept. */
struct rsw_icmp_rl {
	uint64_t tokens_u; /* millionths of a token held */
	uint64_t last_us;  /* time of the last refill */
	uint32_t rate;     /* tokens per second */
	uint32_t burst;    /* bucket depth, tokens */
};

/** Set a bucket's rate and depth; it starts full at now_us (microseconds). */
void rsw_icmp_rl_init(struct rsw_icmp_rl *rl, uint32_t rate, uint32_t burst, uint64_t now_us);

/** Refill for the time since the last call and take one token. @return whether one was there. */
bool rsw_icmp_rl_take(struct rsw_icmp_rl *rl, uint64_t now_us);

#endif /* RSW_ICMP_PKT_H */
