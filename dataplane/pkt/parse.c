/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 2 of the packet path (docs/architecture.md): which frames are for this switch,
 * and the header fields the later steps use. Every header is checked against
 * the frame's data length before it is read; frames are single-segment.
 */

#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rsw_parse.h"

static inline enum rsw_pkt_kind
drop(struct rsw_pkt_info *info, enum rsw_port_ctr why)
{
	info->kind = RSW_PK_DROP;
	info->drop = why;
	return RSW_PK_DROP;
}

uint16_t
rsw_cksum(const void *buf, size_t len)
{
	/*
	 * The one's complement sum is byte-order independent (RFC 1071 §2(B)): summing native
	 * 16-bit words and storing the complement natively gives the network-order result.
	 */
	return (uint16_t)~rte_raw_cksum(buf, len);
}

static enum rsw_pkt_kind
parse_ipv4(const uint8_t *p, uint32_t avail, const struct rte_mbuf *m, struct rsw_pkt_info *info)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;
	uint32_t ihl, tot;
	uint16_t frag;

	/* RFC 1812 §5.2.2: length, version, header length, checksum, total length. */
	if (unlikely(avail < sizeof(*ip)))
		return drop(info, RSW_PC_parse_errors);
	if (unlikely((ip->version_ihl >> 4) != 4))
		return drop(info, RSW_PC_parse_errors);
	ihl = (ip->version_ihl & 0xf) * 4u;
	tot = rsw_ntohs(ip->total_length);
	if (unlikely(ihl < sizeof(*ip) || ihl > avail || tot < ihl || tot > avail))
		return drop(info, RSW_PC_parse_errors);
	if (unlikely(!rsw_ipv4_hdr_cksum_ok(m, ip, ihl)))
		return drop(info, RSW_PC_parse_errors);

	info->l3_len = (uint16_t)tot;
	info->dscp = ip->type_of_service >> 2;
	info->proto = ip->next_proto_id;
	info->ttl = ip->time_to_live;
	frag = rsw_ntohs(ip->fragment_offset);
	if (frag & (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		info->flags |= RSW_PF_FRAG;
		/* Fragments are routed and hashed on addresses only. */
		return RSW_PK_IPV4;
	}
	if (unlikely(rsw_parse_l4(p + ihl, tot - ihl, info->proto, info, &info->flags) != 0))
		return drop(info, RSW_PC_parse_errors);
	return RSW_PK_IPV4;
}

static enum rsw_pkt_kind
parse_ipv6(const uint8_t *p, uint32_t avail, struct rsw_pkt_info *info)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;
	uint32_t vtc, plen;

	if (unlikely(avail < sizeof(*ip)))
		return drop(info, RSW_PC_parse_errors);
	vtc = rsw_ntohl(ip->vtc_flow);
	if (unlikely((vtc >> 28) != 6))
		return drop(info, RSW_PC_parse_errors);
	plen = rsw_ntohs(ip->payload_len);
	if (unlikely(sizeof(*ip) + plen > avail))
		return drop(info, RSW_PC_parse_errors);

	info->l3_len = (uint16_t)(sizeof(*ip) + plen);
	info->dscp = (vtc >> 22) & 0x3f;
	info->flow = vtc & 0xfffff;
	info->proto = ip->proto;
	info->ttl = ip->hop_limits;
	/* No extension-header chasing: an extension header first hashes on addresses + flow. */
	if (unlikely(rsw_parse_l4(p + sizeof(*ip), plen, info->proto, info, &info->flags) != 0))
		return drop(info, RSW_PC_parse_errors);
	return RSW_PK_IPV6;
}

static inline int
is_nd_multicast(const struct rte_ether_addr *d)
{
	/* 33:33:ff:xx:xx:xx, the solicited-node groups (RFC 4861), and 33:33:00:00:00:01. */
	return d->addr_bytes[0] == 0x33 && d->addr_bytes[1] == 0x33 &&
	       (d->addr_bytes[2] == 0xff || (d->addr_bytes[2] == 0 && d->addr_bytes[3] == 0 &&
					     d->addr_bytes[4] == 0 && d->addr_bytes[5] == 1));
}

bool rsw_parse_lldp;

enum rsw_pkt_kind
rsw_parse(const struct rte_mbuf *m, const struct rte_ether_addr *port_mac,
	  struct rsw_pkt_info *info)
{
	static const struct rte_ether_addr mac_ctrl = {{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}};
	static const struct rte_ether_addr lldp_mac = {{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}};
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)p;
	uint32_t off = sizeof(*eth);
	uint16_t type;
	int mcast;

	memset(info, 0, sizeof(*info));
	if (unlikely(len < sizeof(*eth)))
		return drop(info, RSW_PC_parse_errors);
	type = rsw_ntohs(eth->ether_type);
	while ((type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) && info->n_vlan < 2) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(p + off);

		if (unlikely(len < off + sizeof(*vh)))
			return drop(info, RSW_PC_parse_errors);
		if (info->n_vlan == 0)
			info->pcp = rsw_ntohs(vh->vlan_tci) >> 13;
		type = rsw_ntohs(vh->eth_proto);
		off += sizeof(*vh);
		info->n_vlan++;
	}
	info->l3_off = (uint16_t)off;

	mcast = rte_is_multicast_ether_addr(&eth->dst_addr);
	if (likely(!mcast)) {
		if (unlikely(!rte_is_same_ether_addr(&eth->dst_addr, port_mac)))
			return drop(info, RSW_PC_not_for_us);
	} else if (rte_is_broadcast_ether_addr(&eth->dst_addr)) {
		info->flags |= RSW_PF_BCAST;
		if (type != RTE_ETHER_TYPE_ARP)
			return drop(info, RSW_PC_l2_control);
	} else if (rsw_parse_lldp && type == RSW_ETHER_TYPE_LLDP &&
		   rte_is_same_ether_addr(&eth->dst_addr, &lldp_mac)) {
		return info->kind = RSW_PK_LLDP;
	} else if (rte_is_same_ether_addr(&eth->dst_addr, &mac_ctrl)) {
		if (type != RSW_ETHER_TYPE_MAC_CTRL)
			return drop(info, RSW_PC_l2_control);
	} else if (!(is_nd_multicast(&eth->dst_addr) && type == RTE_ETHER_TYPE_IPV6)) {
		return drop(info, RSW_PC_l2_control);
	}

	switch (type) {
	case RTE_ETHER_TYPE_IPV4:
		if (unlikely(mcast))
			return drop(info, RSW_PC_l2_control);
		return info->kind = parse_ipv4(p + off, len - off, m, info);
	case RTE_ETHER_TYPE_IPV6:
		info->kind = parse_ipv6(p + off, len - off, info);
		if (mcast && info->kind == RSW_PK_IPV6)
			info->kind = info->proto == IPPROTO_ICMPV6 ? RSW_PK_ND : RSW_PK_DROP;
		if (info->kind == RSW_PK_DROP && info->drop == 0)
			info->drop = RSW_PC_l2_control;
		return info->kind;
	case RTE_ETHER_TYPE_ARP:
		if (unlikely(len < off + sizeof(struct rte_arp_hdr)))
			return drop(info, RSW_PC_parse_errors);
		return info->kind = RSW_PK_ARP;
	case RSW_ETHER_TYPE_MAC_CTRL:
		if (unlikely(len < off + 4))
			return drop(info, RSW_PC_parse_errors);
		return info->kind = RSW_PK_MAC_CTRL;
	default:
		return drop(info, RSW_PC_unknown_ethertype);
	}
}
