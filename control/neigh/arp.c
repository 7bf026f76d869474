/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * ARP on the control thread (RFC 826, docs/routing.md), the IPv4 half of the neighbour
 * machinery in neigh.c: requests for a port's address (and, on a topology leaf, for the
 * servers on its other downlinks: proxy ARP) are answered in place; senders are learned
 * (merge). The requests that resolve next hops and hosts are neigh.c's.
 */

#include <string.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rsw_arp.h"
#include "rsw_ctl.h"
#include "rsw_neigh.h"
#include "rsw_topology.h"

void
rsw_ctl_arp_input(struct rte_mbuf *m)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	const uint16_t p = rsw_meta(m)->in_port;
	const struct rsw_cfg_port *cp = &cfg->ports[p];
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *arp = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, meta->l3_off);
	struct rsw_ip sender = {.family = RSW_AF_INET}, target = {.family = RSW_AF_INET};
	bool for_us, proxy;

	if (arp->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    arp->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    arp->arp_hlen != RTE_ETHER_ADDR_LEN || arp->arp_plen != 4 || !cp->has_ipv4 ||
	    rte_is_multicast_ether_addr(&arp->arp_data.arp_sha))
		goto done;
	memcpy(sender.addr, &arp->arp_data.arp_sip, 4);
	for_us = memcmp(&arp->arp_data.arp_tip, cp->ipv4.ip.addr, 4) == 0;

	memcpy(target.addr, &arp->arp_data.arp_tip, 4);
	/*
	 * A topology leaf's downlinks share one subnet, one server per port: the switch answers
	 * for the servers on its other downlinks (proxy ARP), so they reach each other through it.
	 */
	proxy = !for_us && cfg->topology.present && rsw_topology_proxy_arp(cfg, p, &target);

	/* Merge: update an existing entry; create one only when the frame is aimed at us. */
	rsw_ctl_neigh_learn(&sender, p, arp->arp_data.arp_sha.addr_bytes, for_us || proxy);
	if (!(for_us || proxy) || arp->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST))
		goto done;

	/* Answer in place: the reply goes back to the asker from the port's MAC. */
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	arp->arp_data.arp_tha = arp->arp_data.arp_sha;
	arp->arp_data.arp_tip = arp->arp_data.arp_sip;
	arp->arp_data.arp_sha = rsw_dp.ports[p].mac;
	memcpy(&arp->arp_data.arp_sip, target.addr, 4);
	eth->dst_addr = arp->arp_data.arp_tha;
	eth->src_addr = rsw_dp.ports[p].mac;
	rsw_ctl_send(p, rsw_ctl_tc(), m);
	return;
done:
	rte_pktmbuf_free(m);
}
