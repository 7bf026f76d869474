/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * IPv6 Neighbor Discovery on the control thread (RFC 4861, docs/routing.md), the IPv6 half
 * of the neighbour machinery in neigh.c: NS for a port's IPv6 address (to its
 * solicited-node group or unicast) are answered with an NA (Router, Solicited, Override,
 * target link-layer address = the port's MAC); the sender of an NS and the target of an NA
 * aimed at the switch are learned (the NS that resolve next hops and hosts are neigh.c's).
 * Only the port's configured address is answered: railsw has no link-local addresses.
 */

#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rsw_ctl.h"
#include "rsw_icmp.h"
#include "rsw_icmp_pkt.h"
#include "rsw_nd.h"
#include "rsw_neigh.h"

#define ND_PKT_LEN (RSW_IP6_HDR_LEN + RSW_ND_LEN)

static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};

/* Send an NA for the port's address in answer to the NS in m. */
static void
send_na(const struct rte_mbuf *m, uint16_t p, const struct rsw_nd_msg *ns)
{
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[p];
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint8_t dst_mac[RTE_ETHER_ADDR_LEN];
	const uint8_t *dst_ip;
	struct rte_mbuf *r;
	uint8_t *l3, flags;

	if (ns->src_unspec) {
		/* RFC 4861 §7.2.4: an answer to duplicate address detection goes to all-nodes. */
		dst_ip = all_nodes;
		rsw_ip6_mcast_mac(all_nodes, dst_mac);
		flags = RSW_ND_NA_R | RSW_ND_NA_O;
	} else {
		dst_ip = ns->src;
		memcpy(dst_mac, ns->lladdr ? ns->lladdr : eth->src_addr.addr_bytes,
		       RTE_ETHER_ADDR_LEN);
		flags = RSW_ND_NA_R | RSW_ND_NA_S | RSW_ND_NA_O;
	}
	r = rsw_ctl_reply_alloc(m, dst_mac, ND_PKT_LEN, &l3);
	if (r == NULL)
		return;
	rsw_nd_build(l3, ND_PKT_LEN, RSW_ND_NA, cp->ipv6.ip.addr, dst_ip, cp->ipv6.ip.addr, flags,
		     rsw_dp.ports[p].mac.addr_bytes);
	rsw_icmp_ctrs[RSW_IC_nd_na_tx]++;
	rsw_ctl_send(p, rsw_ctl_tc(), r);
}

void
rsw_ctl_nd_input(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	const uint16_t p = meta->in_port;
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[p];
	const uint8_t *ip6 = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
	struct rsw_nd_msg msg;
	struct rsw_ip ip;
	const uint8_t *own;
	bool target_ours;

	if ((meta->kind != RSW_PK_IPV6 && meta->kind != RSW_PK_ND) ||
	    rte_pktmbuf_data_len(m) < meta->l3_off)
		goto drop;
	if (rsw_nd_parse(ip6, rte_pktmbuf_data_len(m) - meta->l3_off, &msg) != 0) {
		rsw_icmp_ctrs[RSW_IC_nd_invalid]++;
		goto drop;
	}
	if (!cp->has_ipv6)
		goto drop;
	own = cp->ipv6.ip.addr;
	target_ours = memcmp(msg.target, own, 16) == 0;
	memset(&ip, 0, sizeof(ip));
	ip.family = RSW_AF_INET6;

	if (msg.type == RSW_ND_NS) {
		/* For the port's address, to its solicited-node group or to the address itself. */
		if (!target_ours || (msg.dst_mcast && !rsw_nd_is_solicited_node(msg.dst, own)))
			goto drop;
		rsw_icmp_ctrs[RSW_IC_nd_ns_rx]++;
		if (!msg.src_unspec && msg.lladdr != NULL) {
			memcpy(ip.addr, msg.src, 16);
			rsw_ctl_neigh_learn(&ip, p, msg.lladdr, true);
		}
		send_na(m, p, &msg);
		goto drop;
	}

	/* NA: a target that is the switch's own address is a duplicate elsewhere; ignored. */
	rsw_icmp_ctrs[RSW_IC_nd_na_rx]++;
	if (target_ours || msg.lladdr == NULL)
		goto drop;
	if (msg.dst_mcast && memcmp(msg.dst, all_nodes, 16) != 0)
		goto drop;
	memcpy(ip.addr, msg.target, 16);
	/* A solicited answer to the switch may create the entry; others update one (§7.2.5). */
	rsw_ctl_neigh_learn(&ip, p, msg.lladdr,
			    !msg.dst_mcast && (msg.flags & RSW_ND_NA_S) &&
				    memcmp(msg.dst, own, 16) == 0);
drop:
	rte_pktmbuf_free(m);
}
