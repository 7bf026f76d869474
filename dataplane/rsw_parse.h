/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 2 of the packet path: parse Ethernet, up to two 802.1Q tags, MAC
 * Control, ARP, IPv4, IPv6 and UDP (RoCEv2 BTH on dport 4791, UET on 4793),
 * and decide what happens to the frame. Never reads past the frame's data.
 */

#ifndef RSW_PARSE_H
#define RSW_PARSE_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rsw_stats.h"

#define RSW_ETHER_TYPE_MAC_CTRL 0x8808 /* IEEE 802.3 MAC Control (PAUSE, PFC) */
#define RSW_UDP_PORT_ROCEV2     4791
#define RSW_UDP_PORT_UET        4793
#define RSW_BTH_OPCODE_CNP      0x81
#define RSW_BTH_LEN             12

/* What the parser decided. */
enum rsw_pkt_kind {
	RSW_PK_DROP = 0, /* drop; rsw_pkt_info.drop says why */
	RSW_PK_IPV4,     /* route it */
	RSW_PK_IPV6,     /* route it */
	RSW_PK_ARP,      /* punt to the control thread */
	RSW_PK_ND,       /* IPv6 ND multicast for the port: punt */
	RSW_PK_MAC_CTRL, /* PAUSE/PFC: consumed by the port */
};

/* Flags of rsw_pkt_info.flags. */
#define RSW_PF_L4    (1u << 0) /* sport/dport valid (first fragment or unfragmented UDP/TCP) */
#define RSW_PF_BTH   (1u << 1) /* RoCEv2: qp valid */
#define RSW_PF_UET   (1u << 2) /* UET: entropy = sport */
#define RSW_PF_CNP   (1u << 3) /* RoCEv2 CNP (BTH opcode 0x81) */
#define RSW_PF_FRAG  (1u << 4) /* IPv4 fragment */
#define RSW_PF_BCAST (1u << 5) /* broadcast destination */

/*
 * Per-packet parse result, kept in a burst-wide array (not in the mbuf).
 * Hot fields first.
 */
struct rsw_pkt_info {
	uint8_t kind;    /* enum rsw_pkt_kind */
	uint8_t drop;    /* enum rsw_port_ctr when kind == RSW_PK_DROP */
	uint8_t flags;   /* RSW_PF_* */
	uint8_t tc;      /* traffic class, set by classify */
	uint16_t l3_off; /* offset of the IP/ARP header from the frame start */
	uint16_t l3_len; /* IPv4 total length / IPv6 40 + payload length */
	uint8_t n_vlan;  /* 802.1Q tags seen (0..2) */
	uint8_t pcp;     /* PCP of the outer tag */
	uint8_t dscp;    /* DSCP of the IP header */
	uint8_t proto;   /* IPv4 protocol / IPv6 next header */
	uint8_t ttl;     /* TTL / hop limit */
	uint8_t pad;
	uint16_t sport; /* host order, when RSW_PF_L4 */
	uint16_t dport; /* host order, when RSW_PF_L4 */
	uint32_t qp;    /* BTH dest QP, when RSW_PF_BTH */
	uint32_t flow;  /* IPv6 flow label */
};

/**
 * Parse one frame received on a port whose MAC is port_mac.
 *
 * @return info->kind; for RSW_PK_DROP, info->drop is the counter to bump
 *   (parse_errors, not_for_us, l2_control, unknown_ethertype).
 */
enum rsw_pkt_kind rsw_parse(const struct rte_mbuf *m, const struct rte_ether_addr *port_mac,
			    struct rsw_pkt_info *info);

/** RFC 1071 Internet checksum of a buffer (the returned value is ready to store). */
uint16_t rsw_cksum(const void *buf, size_t len);

/**
 * RFC 1624 eqn. 3 incremental update of a stored checksum when a 16-bit word of
 * the covered data changes from old to new (all in network order).
 */
static inline uint16_t
rsw_cksum_update16(uint16_t cksum, uint16_t old, uint16_t new_)
{
	uint32_t sum = (uint16_t)~cksum + (uint16_t)~old + (uint32_t)new_;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif /* RSW_PARSE_H */
