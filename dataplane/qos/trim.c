/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Ultra Ethernet packet trimming (docs/congestion.md): where a packet of a
 * trim-eligible class would be dropped, the switch forwards its headers
 * instead, cut to qos.trim.size bytes, with DSCP_TRIMMED, in the trim class.
 * The receiver learns of the loss at once and asks for a retransmission.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "rsw_parse.h"
#include "rsw_trim.h"

#define UET_MIN_L4 24 /* UDP header + UET PDS header: UEC MIN_TRIM_SIZE above IP */

uint32_t
rsw_trim_floor(const struct rte_mbuf *m, uint16_t l3_off, uint8_t kind)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off);
	uint32_t ihl = kind == RSW_PK_IPV4 ? (l3[0] & 0xf) * 4u : sizeof(struct rte_ipv6_hdr);

	return l3_off + ihl + UET_MIN_L4;
}

/* One's complement sum of a buffer, not folded. */
static uint32_t
sum16(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t
fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint32_t
rsw_trim(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind, uint16_t size, uint8_t dscp)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);
	uint32_t len = rte_pktmbuf_pkt_len(m), floor = rsw_trim_floor(m, l3_off, kind), l4len;
	struct rte_udp_hdr *udp;

	if (size < floor)
		size = (uint16_t)floor;
	if (len <= size)
		return 0;
	if (kind == RSW_PK_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint32_t ihl = (ip->version_ihl & 0xf) * 4u;

		if (ip->next_proto_id != IPPROTO_UDP ||
		    (rte_be_to_cpu_16(ip->fragment_offset) &
		     (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
			return 0;
		l4len = size - l3_off - ihl;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(size - l3_off));
		ip->type_of_service = (uint8_t)(dscp << 2 | (ip->type_of_service & 3));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rsw_cksum(ip, ihl);
		udp = (struct rte_udp_hdr *)(l3 + ihl);
		udp->dgram_len = rte_cpu_to_be_16((uint16_t)l4len);
		udp->dgram_cksum = 0; /* optional over IPv4; UET sends 0 */
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
		uint32_t vtc = rte_be_to_cpu_32(ip->vtc_flow), sum;

		if (ip->proto != IPPROTO_UDP)
			return 0;
		l4len = size - l3_off - sizeof(*ip);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)l4len);
		/* Traffic class = DSCP (6 bits) + ECN (2 bits), bits 20-27 of the first word. */
		vtc = (vtc & ~(0x3fu << 22)) | ((uint32_t)dscp << 22);
		ip->vtc_flow = rte_cpu_to_be_32(vtc);
		udp = (struct rte_udp_hdr *)(l3 + sizeof(*ip));
		udp->dgram_len = rte_cpu_to_be_16((uint16_t)l4len);
		udp->dgram_cksum = 0;
		/* RFC 8200 §8.1: pseudo-header, then the (trimmed) datagram. */
		sum = sum16(ip->src_addr, 16, 0);
		sum = sum16(ip->dst_addr, 16, sum);
		sum += l4len + IPPROTO_UDP;
		sum = sum16(udp, l4len, sum);
		udp->dgram_cksum = rte_cpu_to_be_16(fold(sum));
		if (udp->dgram_cksum == 0)
			udp->dgram_cksum = 0xffff;
	}
	rte_pktmbuf_trim(m, (uint16_t)(len - size));
	return size;
}
