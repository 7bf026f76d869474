/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * ICMP and ICMPv6 on the control thread (docs/architecture.md). Packets addressed to
 * the switch: echo replies for its IPv4 (RFC 792) and IPv6 (RFC 4443 §4.2) addresses
 * (punt.c gives unicast NS/NA to nd.c); the rest is consumed. Packets a worker did not
 * forward: time exceeded (TTL / hop limit), destination unreachable (no route, when
 * switch.icmp_unreachable), fragmentation needed (DF set) and packet too big (over the
 * egress MTU), from the ingress port's address (switch.router_id for IPv4 when set), all
 * drawn from one token bucket of switch.icmp_unreachable.rate_pps per second. Every answer
 * leaves by the port the packet came in on, to the MAC it came from. railsw never
 * fragments: an IPv4 packet over the MTU without DF is dropped without an answer.
 */

#include <string.h>
#include <time.h>

#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rsw_cmd.h"
#include "rsw_ctl.h"
#include "rsw_icmp.h"
#include "rsw_icmp_pkt.h"
#include "rsw_module.h"
#include "rsw_neigh.h"
#include "rsw_parse.h"

static const char *const icmp_ctr_names[RSW_N_ICMP_CTRS] = {
#define RSW_ICMP_CTR_NAME(n, ...) #n,
	RSW_FOREACH_ICMP_CTR(RSW_ICMP_CTR_NAME)
#undef RSW_ICMP_CTR_NAME
};

/* The error rate limiter, shared by every type and family; rebuilt when the rate changes. */
static struct rsw_icmp_rl icmp_rl;

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Turn an echo request into a reply in place and send it back. Consumes m. */
static void
echo_reply_send(struct rte_mbuf *m, uint32_t l3_len)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	/* Trim Ethernet padding beyond the IP packet. */
	rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - meta->l3_off - l3_len));
	eth->dst_addr = eth->src_addr;
	eth->src_addr = rsw_dp.ports[meta->in_port].mac;
	rsw_icmp_ctrs[RSW_IC_echo_replies]++;
	rsw_ctl_send(meta->in_port, rsw_ctl_tc(), m);
}

static void
echo4(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, meta->l3_off);
	struct rte_icmp_hdr *icmp;
	uint32_t ihl, tot, addr;

	if (ip->next_proto_id != IPPROTO_ICMP)
		goto drop;
	/* The parser checked version, IHL, total length and header checksum. */
	ihl = (ip->version_ihl & 0xf) * 4u;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl + sizeof(*icmp) || (rte_be_to_cpu_16(ip->fragment_offset) &
					  (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)))
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
	echo_reply_send(m, tot);
	return;
drop:
	rte_pktmbuf_free(m);
}

/* IPv6 to the switch: echo requests answered (RFC 4443 §4.2); punt.c gave NS/NA to nd.c. */
static void
local6(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, meta->l3_off);
	uint8_t *icmp = (uint8_t *)(ip + 1), addr[16];
	uint32_t plen = rte_be_to_cpu_16(ip->payload_len);
	uint16_t ck;

	/* The parser checked version and payload length against the frame. */
	if (ip->proto != IPPROTO_ICMPV6 || plen < RSW_ICMP_HDR_LEN)
		goto drop;
	if (icmp[0] != RSW_ICMP6_ECHO_REQUEST || icmp[1] != 0 || ip->src_addr[0] == 0xff ||
	    rsw_icmp6_cksum(ip->src_addr, ip->dst_addr, icmp, plen) != 0)
		goto drop;

	icmp[0] = RSW_ICMP6_ECHO_REPLY;
	memcpy(addr, ip->src_addr, 16);
	memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, addr, 16);
	ip->hop_limits = 64;
	icmp[2] = icmp[3] = 0;
	ck = rsw_icmp6_cksum(ip->src_addr, ip->dst_addr, icmp, plen);
	memcpy(icmp + 2, &ck, 2);
	echo_reply_send(m, RSW_IP6_HDR_LEN + plen);
	return;
drop:
	rte_pktmbuf_free(m);
}

void
rsw_ctl_icmp_local(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);

	if (meta->kind == RSW_PK_IPV4)
		echo4(m);
	else if (meta->kind == RSW_PK_IPV6)
		local6(m);
	else
		rte_pktmbuf_free(m);
}

/* The IPv4 source of errors: switch.router_id, else the ingress port's, else any port's. */
static const uint8_t *
error_src4(uint16_t in)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	uint16_t p;

	if (cfg->sw.has_router_id)
		return cfg->sw.router_id.addr;
	if (cfg->ports[in].has_ipv4)
		return cfg->ports[in].ipv4.ip.addr;
	for (p = 0; p < cfg->n_ports; p++)
		if (cfg->ports[p].has_ipv4)
			return cfg->ports[p].ipv4.ip.addr;
	return NULL;
}

static const uint8_t *
error_src6(uint16_t in)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	uint16_t p;

	if (cfg->ports[in].has_ipv6)
		return cfg->ports[in].ipv6.ip.addr;
	for (p = 0; p < cfg->n_ports; p++)
		if (cfg->ports[p].has_ipv6)
			return cfg->ports[p].ipv6.ip.addr;
	return NULL;
}

/* Whether dst (IPv4, network order bytes) is the broadcast address of a connected subnet. */
static bool
subnet_broadcast4(const uint8_t *dst)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	uint16_t p;

	for (p = 0; p < cfg->n_ports; p++) {
		const struct rsw_prefix *pf = &cfg->ports[p].ipv4;
		uint32_t a, d, host;

		if (!cfg->ports[p].has_ipv4 || pf->len >= 31)
			continue;
		host = pf->len == 0 ? UINT32_MAX : (1u << (32 - pf->len)) - 1;
		memcpy(&a, pf->ip.addr, 4);
		memcpy(&d, dst, 4);
		a = rte_be_to_cpu_32(a);
		d = rte_be_to_cpu_32(d);
		if ((a & ~host) == (d & ~host) && (d & host) == host)
			return true;
	}
	return false;
}

void
rsw_ctl_icmp_error(struct rte_mbuf *m)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
	const bool v4 = meta->kind == RSW_PK_IPV4;
	uint16_t mtu = rsw_dp.ports[meta->out_port < rsw_dp.n_ports ? meta->out_port : 0].mtu;
	uint16_t in_mtu = rsw_dp.ports[meta->in_port].mtu;
	uint32_t len, max_len, hdrs, param = 0;
	enum rsw_icmp_ctr ctr;
	const uint8_t *src;
	uint8_t type, code = 0, *out;
	struct rte_mbuf *r;
	uint64_t now;
	int n;

	if ((meta->kind != RSW_PK_IPV4 && meta->kind != RSW_PK_IPV6) ||
	    rte_pktmbuf_data_len(m) < meta->l3_off)
		goto drop;
	/* The worker's l3 length: IPv4 total length / IPv6 40 + payload length, within the frame. */
	len = rte_pktmbuf_data_len(m) - meta->l3_off;
	if (v4 && len >= RSW_IP4_HDR_LEN)
		len = RTE_MIN(len, (uint32_t)(l3[2] << 8 | l3[3]));
	else if (!v4 && len >= RSW_IP6_HDR_LEN)
		len = RTE_MIN(len, RSW_IP6_HDR_LEN + (uint32_t)(l3[4] << 8 | l3[5]));

	switch (meta->reason) {
	case RSW_PUNT_TTL:
		type = v4 ? RSW_ICMP4_TIME_EXCEEDED : RSW_ICMP6_TIME_EXCEEDED;
		ctr = RSW_IC_time_exceeded;
		break;
	case RSW_PUNT_NO_ROUTE:
		if (!cfg->sw.icmp_unreachable)
			goto drop;
		type = v4 ? RSW_ICMP4_UNREACH : RSW_ICMP6_UNREACH;
		code = v4 ? RSW_ICMP4_UNREACH_NET : 0;
		ctr = RSW_IC_unreachable;
		break;
	case RSW_PUNT_MTU:
		if (!cfg->sw.icmp_unreachable)
			goto drop;
		/* railsw never fragments: without DF the packet is only dropped (counted). */
		if (v4 && (len < RSW_IP4_HDR_LEN || !(l3[6] & 0x40)))
			goto drop;
		type = v4 ? RSW_ICMP4_UNREACH : RSW_ICMP6_TOO_BIG;
		code = v4 ? RSW_ICMP4_FRAG_NEEDED : 0;
		param = mtu;
		ctr = RSW_IC_too_big;
		break;
	default:
		goto drop;
	}

	/* Never about ICMP errors, multicast/broadcast, or to sources that name nobody. */
	src = v4 ? error_src4(meta->in_port) : error_src6(meta->in_port);
	if (src == NULL || rte_is_multicast_ether_addr(&eth->dst_addr) ||
	    rte_is_multicast_ether_addr(&eth->src_addr) ||
	    (v4 ? !rsw_icmp4_error_allowed(l3, len) || subnet_broadcast4(l3 + 16)
		: !rsw_icmp6_error_allowed(l3, len))) {
		rsw_icmp_ctrs[RSW_IC_suppressed]++;
		goto drop;
	}

	now = now_us();
	if (icmp_rl.rate != cfg->sw.icmp_rate_pps)
		rsw_icmp_rl_init(&icmp_rl, cfg->sw.icmp_rate_pps, cfg->sw.icmp_rate_pps, now);
	if (!rsw_icmp_rl_take(&icmp_rl, now)) {
		rsw_icmp_ctrs[RSW_IC_rate_limited]++;
		goto drop;
	}

	/* RFC 1812 §4.3.2.3: up to 576 bytes; RFC 4443 §2.4 (c): up to 1280; within the MTU. */
	max_len = RTE_MIN((uint32_t)in_mtu, v4 ? RSW_ICMP4_MAX_LEN : RSW_ICMP6_MAX_LEN);
	hdrs = (v4 ? RSW_IP4_HDR_LEN : RSW_IP6_HDR_LEN) + RSW_ICMP_HDR_LEN;
	/* Room for the whole quote, or max_len plus the IP header + 8 bytes a tiny MTU forces. */
	r = rsw_ctl_reply_alloc(m, eth->src_addr.addr_bytes,
				(uint16_t)RTE_MIN(hdrs + len, max_len + 68u), &out);
	if (r == NULL)
		goto drop;
	if (v4)
		n = rsw_icmp4_error_build(out, rte_pktmbuf_data_len(r) - meta->l3_off, l3, len,
					  type, code, (uint16_t)param, src, max_len);
	else
		n = rsw_icmp6_error_build(out, rte_pktmbuf_data_len(r) - meta->l3_off, l3, len,
					  type, code, param, src, max_len);
	if (n < 0) {
		rte_pktmbuf_free(r);
		rsw_icmp_ctrs[RSW_IC_suppressed]++;
		goto drop;
	}
	rte_pktmbuf_trim(r, (uint16_t)(rte_pktmbuf_data_len(r) - meta->l3_off - (uint32_t)n));
	rsw_icmp_ctrs[ctr]++;
	rsw_ctl_send(meta->in_port, rsw_ctl_tc(), r);
drop:
	rte_pktmbuf_free(m);
}

void
rsw_ctl_icmp_counters_clear(void)
{
	memset(rsw_icmp_ctrs, 0, sizeof(rsw_icmp_ctrs));
}

static json_t *
cmd_show_icmp(int argc, char **argv, void *ctx)
{
	json_t *o = json_object();
	int i;

	(void)argc;
	(void)argv;
	(void)ctx;
	if (o == NULL)
		return NULL;
	for (i = 0; i < RSW_N_ICMP_CTRS; i++)
		json_object_set_new(o, icmp_ctr_names[i],
				    json_integer((json_int_t)rsw_icmp_ctrs[i]));
	json_object_set_new(o, "rate_pps", json_integer(rsw_ctl.cfg->sw.icmp_rate_pps));
	json_object_set_new(o, "unreachable_enabled",
			    json_boolean(rsw_ctl.cfg->sw.icmp_unreachable));
	return json_pack("{s:o}", "icmp", o);
}

int
rsw_ctl_icmp_commands_register(void)
{
	return rsw_cmd_register(
		"show icmp", 0, 0, "",
		"ICMP/ICMPv6 errors and echo replies sent, ND messages, rate limiting",
		cmd_show_icmp, NULL);
}

static int
icmp_init(const struct rsw_config *cfg __rte_unused)
{
	int ret = rsw_ctl_icmp_commands_register();

	if (ret != 0)
		rte_log(RTE_LOG_ERR, RTE_LOGTYPE_USER1, "railsw: cannot register commands\n");
	return ret;
}

static struct rsw_module icmp_module = {
	.name = "icmp",
	.order = RSW_MODULE_ORDER_ICMP,
	.init = icmp_init,
};

RSW_MODULE_REGISTER(icmp_module);
