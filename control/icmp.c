/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Packets addressed to the switch (DESIGN.md §7): ICMP echo replies for its
 * IPv4 addresses (RFC 792). The reply leaves by the port the request came in
 * on, to the MAC it came from. Everything else addressed to the switch is
 * consumed.
 */

#include <string.h>

#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rsw_ctl.h"
#include "rsw_parse.h"

void
rsw_ctl_icmp_local(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, meta->l3_off);
	struct rte_icmp_hdr *icmp;
	uint32_t ihl, tot, addr;

	if (meta->kind != RSW_PK_IPV4 || ip->next_proto_id != IPPROTO_ICMP)
		goto drop;
	/* The parser checked version, IHL, total length and header checksum. */
	ihl = (ip->version_ihl & 0xf) * 4u;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl + sizeof(*icmp))
		goto drop;
	icmp = (struct rte_icmp_hdr *)((uint8_t *)ip + ihl);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code != 0 ||
	    rsw_cksum(icmp, tot - ihl) != 0)
		goto drop;

	/* Echo reply: type 0, same id/sequence/data; checksum updated for the type word. */
	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = rsw_cksum_update16(icmp->icmp_cksum,
					      rte_cpu_to_be_16(RTE_IP_ICMP_ECHO_REQUEST << 8),
					      rte_cpu_to_be_16(RTE_IP_ICMP_ECHO_REPLY << 8));
	addr = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = addr;
	ip->time_to_live = 64;
	ip->fragment_offset = 0;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rsw_cksum(ip, ihl);
	/* Trim Ethernet padding beyond the IP packet. */
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - meta->l3_off - tot));
	eth->dst_addr = eth->src_addr;
	eth->src_addr = rsw_dp.ports[meta->in_port].mac;
	rsw_ctl_send(meta->in_port, rsw_ctl_tc(), m);
	return;
drop:
	rte_pktmbuf_free(m);
}
