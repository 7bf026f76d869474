/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Punt classification and policing (rsw_punt_dp.h): the last step of a worker's burst for
 * the frames it hands to the control thread. Each frame gets a class from its headers (the
 * parser checked them), then the class's policer of this lcore, a GCRA token bucket on the
 * TSC, lets it through or drops it (punt_policed); what passes is counted by class and put on
 * the punt ring. The parameters live in two slots: the one rsw_punt_cur points to, and the
 * spare that rsw_punt_set_rates fills and publishes.
 */

#include <netinet/in.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_ring.h>

#include "rsw_punt_dp.h"
#include "rsw_worker.h"

#define PORT_BGP      179
#define PORT_BFD      3784 /* single hop (RFC 5881) */
#define PORT_BFD_ECHO 3785
#define PORT_BFD_MH   4784 /* multihop (RFC 5883) */

static struct rsw_punt_cfg cfg_slot[2];
struct rsw_punt_cfg *rsw_punt_cur = &cfg_slot[0];
struct rsw_punt_lcore rsw_punt_lc[RTE_MAX_LCORE + 1];

static const char *const class_names[RSW_N_PUNT_CLASSES] = {
#define RSW_X_PUNT_NAME(name, ...) #name,
	RSW_FOREACH_PUNT_CLASS(RSW_X_PUNT_NAME)
#undef RSW_X_PUNT_NAME
};

static const uint32_t default_pps[RSW_N_PUNT_CLASSES] = {
#define RSW_X_PUNT_PPS(name, pps, burst) pps,
	RSW_FOREACH_PUNT_CLASS(RSW_X_PUNT_PPS)
#undef RSW_X_PUNT_PPS
};

static const uint32_t default_burst[RSW_N_PUNT_CLASSES] = {
#define RSW_X_PUNT_BURST(name, pps, burst) burst,
	RSW_FOREACH_PUNT_CLASS(RSW_X_PUNT_BURST)
#undef RSW_X_PUNT_BURST
};

const char *
rsw_punt_class_name(enum rsw_punt_class c)
{
	return (unsigned int)c < RSW_N_PUNT_CLASSES ? class_names[c] : "?";
}

void
rsw_punt_rates_default(struct rsw_punt_rates *r)
{
	memcpy(r->pps, default_pps, sizeof(r->pps));
	memcpy(r->burst, default_burst, sizeof(r->burst));
}

void
rsw_punt_rates_get(struct rsw_punt_rates *r)
{
	*r = __atomic_load_n(&rsw_punt_cur, __ATOMIC_ACQUIRE)->rates;
}

/* cfg's costs and buckets from r and cfg->hz; a class at rate 0 pays COST_DROP. */
static void
rates_apply(struct rsw_punt_cfg *cfg, const struct rsw_punt_rates *r)
{
	unsigned int c;

	cfg->rates = *r;
	for (c = 0; c < RSW_N_PUNT_CLASSES; c++) {
		uint64_t cost = r->pps[c] != 0 ? cfg->hz / r->pps[c] : RSW_PUNT_COST_DROP;

		if (cost == 0)
			cost = 1; /* a rate above hz: the TSC's resolution */
		cfg->cost[c] = cost;
		cfg->burst[c] = cost == RSW_PUNT_COST_DROP
					? 0
					: cost * (r->burst[c] != 0 ? r->burst[c] : 1);
	}
}

void
rsw_punt_configure(const uint32_t *pps, const uint32_t *burst, uint64_t hz,
		   const struct rsw_ip *peers, uint16_t n_peers, bool kernel)
{
	struct rsw_punt_cfg *cfg = &cfg_slot[0];
	struct rsw_punt_rates r;

	memset(cfg, 0, sizeof(*cfg));
	memcpy(r.pps, pps != NULL ? pps : default_pps, sizeof(r.pps));
	memcpy(r.burst, burst != NULL ? burst : default_burst, sizeof(r.burst));
	cfg->hz = hz;
	rates_apply(cfg, &r);
	if (n_peers > RSW_PUNT_MAX_PEERS)
		n_peers = RSW_PUNT_MAX_PEERS;
	if (n_peers > 0)
		memcpy(cfg->peers, peers, n_peers * sizeof(*peers));
	cfg->n_peers = n_peers;
	cfg->kernel = kernel;
	memset(rsw_punt_lc, 0, sizeof(rsw_punt_lc));
	__atomic_store_n(&rsw_punt_cur, cfg, __ATOMIC_RELEASE);
}

void
rsw_punt_set_rates(const struct rsw_punt_rates *r)
{
	struct rsw_punt_cfg *cur = rsw_punt_cur;
	struct rsw_punt_cfg *next = cur == &cfg_slot[0] ? &cfg_slot[1] : &cfg_slot[0];

	*next = *cur;
	if (next->hz == 0)
		next->hz = rte_get_tsc_hz(); /* never configured (unit tests) */
	rates_apply(next, r);
	next->epoch = cur->epoch + 1;
	__atomic_store_n(&rsw_punt_cur, next, __ATOMIC_RELEASE);
}

/*
 * Whether src (4 or 16 bytes of family fam) is one of the configured BGP peers; a link-local
 * source always is (an unnumbered peer has no address to list).
 */
static bool
bgp_peer(uint8_t fam, const uint8_t *src)
{
	const struct rsw_punt_cfg *cfg = __atomic_load_n(&rsw_punt_cur, __ATOMIC_ACQUIRE);
	uint16_t i;

	if (cfg->n_peers == 0 || (fam == RSW_AF_INET6 && src[0] == 0xfe && (src[1] & 0xc0) == 0x80))
		return true;
	for (i = 0; i < cfg->n_peers; i++)
		if (cfg->peers[i].family == fam &&
		    memcmp(cfg->peers[i].addr, src, fam == RSW_AF_INET ? 4 : 16) == 0)
			return true;
	return false;
}

/* The class of an L4 header (at least 4 bytes at l4) of protocol proto from src. */
static enum rsw_punt_class
l4_class(uint8_t proto, const uint8_t *l4, uint8_t fam, const uint8_t *src)
{
	uint16_t sport = (uint16_t)(l4[0] << 8 | l4[1]), dport = (uint16_t)(l4[2] << 8 | l4[3]);

	if (proto == IPPROTO_TCP && (sport == PORT_BGP || dport == PORT_BGP) && bgp_peer(fam, src))
		return RSW_PUNT_C_bgp;
	if (proto == IPPROTO_UDP &&
	    (dport == PORT_BFD || dport == PORT_BFD_MH || dport == PORT_BFD_ECHO))
		return RSW_PUNT_C_bfd;
	return RSW_PUNT_C_other;
}

enum rsw_punt_class
rsw_punt_classify(const struct rte_mbuf *m)
{
	const struct rsw_mbuf_meta *meta = rsw_meta((struct rte_mbuf *)(uintptr_t)m);
	uint32_t len = rte_pktmbuf_data_len(m), off = meta->l3_off;

	switch (meta->kind) {
	case RSW_PK_ARP:
		return RSW_PUNT_C_arp;
	case RSW_PK_LLDP:
		return RSW_PUNT_C_lldp;
	case RSW_PK_ND:
		return RSW_PUNT_C_nd;
	default:
		break;
	}
	if (meta->reason == RSW_PUNT_NEIGH)
		return RSW_PUNT_C_unresolved;
	if (meta->reason != RSW_PUNT_LOCAL)
		return RSW_PUNT_C_icmp; /* errors: the control thread answers with ICMP */
	if (meta->kind == RSW_PK_IPV4 && len >= off + sizeof(struct rte_ipv4_hdr)) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, const void *, off);
		uint32_t ihl = (ip->version_ihl & 0xf) * 4u;

		if (ip->next_proto_id == IPPROTO_ICMP)
			return RSW_PUNT_C_icmp;
		if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_OFFSET_MASK) || len < off + ihl + 4)
			return RSW_PUNT_C_other;
		return l4_class(ip->next_proto_id, (const uint8_t *)ip + ihl, RSW_AF_INET,
				(const uint8_t *)&ip->src_addr);
	}
	if (meta->kind == RSW_PK_IPV6 && len >= off + sizeof(struct rte_ipv6_hdr) + 4) {
		const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, const void *, off);
		const uint8_t *l4 = (const uint8_t *)(ip + 1);

		if (ip->proto == IPPROTO_ICMPV6)
			return l4[0] >= 133 && l4[0] <= 137 ? RSW_PUNT_C_nd : RSW_PUNT_C_icmp;
		return l4_class(ip->proto, l4, RSW_AF_INET6, (const uint8_t *)ip->src_addr);
	}
	return RSW_PUNT_C_other;
}

void
rsw_punt_enqueue(struct rsw_lcore_stats *st, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n,
		 uint64_t now)
{
	unsigned int lc_id = rte_lcore_id();
	struct rsw_punt_lcore *lc = &rsw_punt_lc[lc_id < RTE_MAX_LCORE ? lc_id : RTE_MAX_LCORE];
	const struct rsw_punt_cfg *cfg = __atomic_load_n(&rsw_punt_cur, __ATOMIC_ACQUIRE);
	uint8_t cls[RSW_BURST];
	uint32_t lens[RSW_BURST];
	uint16_t i, k = 0, sent, done = 0;

	if (unlikely(lc->epoch != cfg->epoch)) {
		/* New rates: full buckets, as after an idle time. */
		memset(lc->tat, 0, sizeof(lc->tat));
		lc->epoch = cfg->epoch;
	}

	while (done < n) {
		uint16_t chunk = (uint16_t)RTE_MIN(n - done, RSW_BURST);
		struct rte_mbuf **p = pkts + done;

		k = 0;
		for (i = 0; i < chunk; i++) {
			struct rte_mbuf *m = p[i];
			enum rsw_punt_class c = rsw_punt_classify(m);
			uint64_t cost = cfg->cost[c], tat;

			if (c == RSW_PUNT_C_lldp && !cfg->kernel) {
				rsw_drop(st, in_port, &m, 1, RSW_PC_l2_control);
				continue;
			}
			if (cost != 0) {
				tat = RTE_MAX(lc->tat[c], now);
				if (cost == RSW_PUNT_COST_DROP ||
				    tat + cost - now > cfg->burst[c]) {
					lc->c[c][RSW_PUNT_policed]++;
					rsw_drop(st, in_port, &m, 1, RSW_PC_punt_policed);
					continue;
				}
				lc->tat[c] = tat + cost;
			}
			if (c == RSW_PUNT_C_lldp)
				rsw_meta(m)->reason = RSW_PUNT_LLDP;
			cls[k] = (uint8_t)c;
			lens[k] = rte_pktmbuf_pkt_len(m);
			p[k++] = m;
		}
		/* Counted before the control thread may free them. */
		sent = (uint16_t)rte_ring_mp_enqueue_burst(rsw_dp.punt, (void **)p, k, NULL);
		for (i = 0; i < sent; i++) {
			lc->c[cls[i]][RSW_PUNT_packets]++;
			lc->c[cls[i]][RSW_PUNT_bytes] += lens[i];
		}
		st->port[in_port].c[RSW_PC_punted] += sent;
		rsw_drop(st, in_port, p + sent, k - sent, RSW_PC_punt_dropped);
		done = (uint16_t)(done + chunk);
	}
}

uint64_t
rsw_punt_sum(enum rsw_punt_class c, enum rsw_punt_ctr k)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i <= RTE_MAX_LCORE; i++)
		s += __atomic_load_n(&rsw_punt_lc[i].c[c][k], __ATOMIC_RELAXED);
	return s;
}
