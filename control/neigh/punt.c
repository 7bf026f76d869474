/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The punt dispatch of the control thread (docs/architecture.md): every packet a worker
 * handed over goes to the handler of its reason: ARP to arp.c, ND (multicast, or unicast to
 * the switch) to nd.c, other packets for the switch and those a worker could not forward to
 * icmp.c, packets waiting for a neighbour to neigh.c. The top of the neighbour area: no file
 * of it calls back here.
 */

#include <netinet/in.h>
#include <string.h>

#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rsw_arp.h"
#include "rsw_ctl.h"
#include "rsw_icmp.h"
#include "rsw_icmp_pkt.h"
#include "rsw_kif.h"
#include "rsw_module.h"
#include "rsw_nd.h"
#include "rsw_neigh.h"
#include "rsw_punt.h"

/* Whether m, an IP packet for the switch, is an NS or NA (ICMPv6 right after the header). */
static bool
local_nd(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	const struct rte_ipv6_hdr *ip;
	const uint8_t *icmp;

	if (meta->kind != RSW_PK_IPV6)
		return false;
	/* The parser checked version and payload length against the frame. */
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, meta->l3_off);
	icmp = (const uint8_t *)(ip + 1);
	return ip->proto == IPPROTO_ICMPV6 &&
	       rte_be_to_cpu_16(ip->payload_len) >= RSW_ICMP_HDR_LEN &&
	       (icmp[0] == RSW_ND_NS || icmp[0] == RSW_ND_NA);
}

/*
 * Count a frame taken off the punt ring: punt_taken unless an error's original (already
 * counted dropped), consumed for the ARP, ND and local ones (answered, learned from or
 * ignored: the switch took them). A frame waiting for a neighbour is held, forwarded or
 * dropped by neigh.c, and counted there.
 */
static void
punt_count(uint8_t reason)
{
	struct rsw_lcore_stats *st = rsw_stats[rte_lcore_id()];

	switch (reason) {
	case RSW_PUNT_TTL:
	case RSW_PUNT_NO_ROUTE:
	case RSW_PUNT_MTU:
		return;
	case RSW_PUNT_NEIGH:
		break;
	default:
		st->tot[RSW_TOT_consumed]++;
		break;
	}
	st->tot[RSW_TOT_punt_taken]++;
}

/* Whether m, an IP packet for the switch, is an echo request to the ingress port's address. */
static bool
own_echo(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[meta->in_port];

	if (meta->kind == RSW_PK_IPV4) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, meta->l3_off);
		const uint8_t *icmp = (const uint8_t *)ip + (ip->version_ihl & 0xf) * 4u;

		return ip->next_proto_id == IPPROTO_ICMP && cp->has_ipv4 &&
		       memcmp(&ip->dst_addr, cp->ipv4.ip.addr, 4) == 0 &&
		       rte_pktmbuf_data_len(m) >
			       (uint32_t)(icmp - rte_pktmbuf_mtod(m, uint8_t *)) &&
		       icmp[0] == RTE_IP_ICMP_ECHO_REQUEST;
	}
	if (meta->kind == RSW_PK_IPV6) {
		const struct rte_ipv6_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, meta->l3_off);
		const uint8_t *icmp = (const uint8_t *)(ip + 1);

		return ip->proto == IPPROTO_ICMPV6 && cp->has_ipv6 &&
		       memcmp(ip->dst_addr, cp->ipv6.ip.addr, 16) == 0 &&
		       rte_be_to_cpu_16(ip->payload_len) >= RSW_ICMP_HDR_LEN &&
		       icmp[0] == RSW_ICMP6_ECHO_REQUEST;
	}
	return false;
}

/* A packet for the switch (RSW_PUNT_LOCAL). */
static void
local_input(struct rte_mbuf *m)
{
	if (local_nd(m)) {
		rsw_kif_deliver(rsw_meta(m)->in_port, m);
		rsw_ctl_nd_input(m);
	} else if (rsw_kif_enabled() && !own_echo(m)) {
		rsw_kif_deliver(rsw_meta(m)->in_port, m);
		rte_pktmbuf_free(m);
	} else {
		rsw_ctl_icmp_local(m);
	}
}

unsigned int
rsw_ctl_punt_poll(void)
{
	struct rte_mbuf *pkts[RSW_BURST];
	unsigned int n, i, total = 0;

	while ((n = rte_ring_sc_dequeue_burst(rsw_dp.punt, (void **)pkts, RSW_BURST, NULL)) > 0) {
		for (i = 0; i < n; i++) {
			struct rsw_mbuf_meta *meta = rsw_meta(pkts[i]);

			/* Totals (rsw_stats.h): a punted frame is off the ring; the frames for the
			 * switch are consumed here, whatever their handler does with them. */
			punt_count(meta->reason);
			switch (meta->reason) {
			case RSW_PUNT_ARP:
				rsw_kif_deliver(meta->in_port, pkts[i]);
				rsw_ctl_arp_input(pkts[i]);
				break;
			case RSW_PUNT_NEIGH:
				rsw_ctl_neigh_unresolved(pkts[i]);
				break;
			case RSW_PUNT_ND:
				rsw_kif_deliver(meta->in_port, pkts[i]);
				rsw_ctl_nd_input(pkts[i]);
				break;
			case RSW_PUNT_LOCAL:
				local_input(pkts[i]);
				break;
			case RSW_PUNT_LLDP:
				rsw_kif_deliver(meta->in_port, pkts[i]);
				rte_pktmbuf_free(pkts[i]);
				break;
			case RSW_PUNT_TTL:
			case RSW_PUNT_NO_ROUTE:
			case RSW_PUNT_MTU:
				rsw_ctl_icmp_error(pkts[i]);
				break;
			default:
				rte_pktmbuf_free(pkts[i]);
				break;
			}
		}
		total += n;
		if (total >= 4 * RSW_BURST)
			break;
	}
	return total;
}

static unsigned int
punt_poll(uint64_t now_ms)
{
	return rsw_ctl_punt_poll();
}

/* Punted packets are served every turn: their count tells the loop not to wait. */
static struct rsw_module punt_module = {
	.name = "punt",
	.order = RSW_MODULE_ORDER_PUNT,
	.poll = punt_poll,
};

RSW_MODULE_REGISTER(punt_module);
