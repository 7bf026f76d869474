/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 1-9 of the packet path for one burst (DESIGN.md §3), in passes:
 * parse and classify every frame; one bulk FIB lookup per family; then resolve,
 * load-balance, rewrite and hand each frame to its egress ring, one bulk
 * enqueue per egress port. The owner of a port drains its ring to the PMD.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>
#include <rte_version.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_worker.h"

struct rsw_dp_main rsw_dp;

int
rsw_dp_init(uint16_t n_ports)
{
	static const struct rte_mbuf_dynfield meta_desc = {
		.name = "rsw_mbuf_meta",
		.size = sizeof(struct rsw_mbuf_meta),
		.align = __alignof__(struct rsw_mbuf_meta),
	};
	char name[RTE_RING_NAMESIZE];
	uint16_t p;

	rsw_dp.meta_off = rte_mbuf_dynfield_register(&meta_desc);
	if (rsw_dp.meta_off < 0)
		return -rte_errno;
	rsw_dp.n_ports = n_ports;
	rsw_dp.punt = rte_ring_create("rsw_punt", RSW_PUNT_RING_SIZE, (int)rte_socket_id(),
				      RING_F_SC_DEQ);
	if (rsw_dp.punt == NULL)
		return -rte_errno;
	for (p = 0; p < n_ports; p++) {
		snprintf(name, sizeof(name), "rsw_egress%u", p);
		rsw_dp.ports[p].egress = rte_ring_create(name, RSW_EGRESS_RING_SIZE,
							 (int)rte_socket_id(), RING_F_SC_DEQ);
		if (rsw_dp.ports[p].egress == NULL) {
			rsw_dp_fini();
			return -rte_errno;
		}
	}
	return 0;
}

static void
ring_free_drain(struct rte_ring *r)
{
	struct rte_mbuf *m[RSW_BURST];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, (void **)m, RSW_BURST, NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	rte_ring_free(r);
}

void
rsw_dp_fini(void)
{
	uint16_t p;

	ring_free_drain(rsw_dp.punt);
	rsw_dp.punt = NULL;
	for (p = 0; p < RSW_MAX_PORTS; p++) {
		ring_free_drain(rsw_dp.ports[p].egress);
		rsw_dp.ports[p].egress = NULL;
	}
}

void
rsw_rewrite(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind, const uint8_t *dst_mac,
	    const struct rte_ether_addr *src_mac)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint8_t *l3 = (uint8_t *)eth + l3_off;

	memcpy(&eth->dst_addr, dst_mac, RTE_ETHER_ADDR_LEN);
	rte_ether_addr_copy(src_mac, &eth->src_addr);
	if (kind == RSW_PK_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint16_t old =
			rte_cpu_to_be_16((uint16_t)(ip->time_to_live << 8 | ip->next_proto_id));

		ip->time_to_live--;
		/* RFC 1624: update the checksum for the changed TTL/protocol word. */
		ip->hdr_checksum = rsw_cksum_update16(
			ip->hdr_checksum, old,
			rte_cpu_to_be_16((uint16_t)(ip->time_to_live << 8 | ip->next_proto_id)));
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		ip->hop_limits--;
	}
}

static inline uint8_t
classify(const struct rsw_tables *t, const struct rsw_pkt_info *info)
{
	if (t->trust == RSW_TRUST_PCP)
		return info->n_vlan ? t->pcp_to_tc[info->pcp] : t->default_tc;
	return t->dscp_to_tc[info->dscp];
}

/* Hand a packet to the control thread (it is counted as punted by the caller). */
static inline void
punt_meta(struct rte_mbuf *m, const struct rsw_pkt_info *info, uint16_t in_port, uint8_t reason,
	  uint32_t neigh, uint16_t out_port)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);

	meta->reason = reason;
	meta->neigh = neigh;
	meta->tc = info->tc;
	meta->in_port = (uint8_t)in_port;
	meta->kind = info->kind;
	meta->out_port = out_port;
	meta->l3_off = info->l3_off;
}

/* Burst-wide scratch: what each routed packet needs between the passes. */
struct burst_ctx {
	struct rsw_pkt_info info[RSW_BURST];
	struct rte_mbuf *v4[RSW_BURST];
	uint8_t v4_idx[RSW_BURST];
	uint32_t v4_ip[RSW_BURST];
	uint64_t v4_nh[RSW_BURST];
	struct rte_mbuf *v6[RSW_BURST];
	uint8_t v6_idx[RSW_BURST];
	uint8_t v6_ip[RSW_BURST][16];
	uint64_t v6_nh[RSW_BURST];
	struct rte_mbuf *punt[RSW_BURST];
	struct rte_mbuf *freed[RSW_BURST];
	uint16_t out_n[RSW_MAX_PORTS];
	struct rte_mbuf *out[RSW_MAX_PORTS][RSW_BURST];
	uint16_t n_v4, n_v6, n_punt, n_freed;
};

static inline void
count_drop(struct burst_ctx *c, struct rsw_lcore_stats *st, uint16_t port, struct rte_mbuf *m,
	   enum rsw_port_ctr why)
{
	st->port[port].c[why]++;
	c->freed[c->n_freed++] = m;
}

/* Steps 4-6 for one looked-up packet. */
static inline void
forward_one(struct burst_ctx *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	    uint16_t in_port, struct rte_mbuf *m, const struct rsw_pkt_info *info, uint64_t nhv)
{
	const struct rsw_result *r = &t->results[nhv < t->n_results ? nhv : 0];
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off);
	uint32_t neigh_idx;
	uint16_t out;
	uint64_t mac;
	int idx;

	switch (r->type) {
	case RSW_RES_LOCAL:
		/* Delivered before the TTL check. */
		punt_meta(m, info, in_port, RSW_PUNT_LOCAL, UINT32_MAX, r->port);
		c->punt[c->n_punt++] = m;
		return;
	case RSW_RES_CONNECTED:
		if (unlikely(info->ttl <= 1))
			goto ttl;
		out = r->port;
		if (info->kind == RSW_PK_IPV4)
			idx = rsw_neigh_lookup4(((const struct rte_ipv4_hdr *)l3)->dst_addr);
		else
			idx = rsw_neigh_lookup6(((const struct rte_ipv6_hdr *)l3)->dst_addr);
		neigh_idx = idx < 0 ? UINT32_MAX : (uint32_t)idx;
		break;
	case RSW_RES_GROUP: {
		const struct rsw_group *g = &t->groups[r->id];
		const struct rsw_nexthop *nh;
		uint32_t mi = 0;

		if (unlikely(info->ttl <= 1))
			goto ttl;
		if (g->n_members > 1)
			mi = rsw_lb_pick_hash(g, rsw_lb_hash(t, m, info));
		nh = &t->nh[g->members[mi]];
		out = nh->port;
		neigh_idx = nh->neigh;
		st->lb[r->id][mi].packets++;
		st->lb[r->id][mi].bytes += rte_pktmbuf_pkt_len(m);
		break;
	}
	default:
		count_drop(c, st, in_port, m, RSW_PC_no_route);
		return;
	}

	mac = neigh_idx == UINT32_MAX
		      ? 0
		      : __atomic_load_n(&rsw_fib_main.neigh[neigh_idx].mac_valid, __ATOMIC_ACQUIRE);
	if (unlikely(info->l3_len > rsw_dp.ports[out].mtu)) {
		count_drop(c, st, in_port, m, RSW_PC_mtu_exceeded);
		return;
	}
	if (unlikely(!(mac & RSW_NEIGH_VALID))) {
		punt_meta(m, info, in_port, RSW_PUNT_NEIGH, neigh_idx, out);
		c->punt[c->n_punt++] = m;
		return;
	}
	rsw_rewrite(m, info->l3_off, info->kind, (const uint8_t *)&mac, &rsw_dp.ports[out].mac);
	c->out[out][c->out_n[out]++] = m;
	return;
ttl:
	count_drop(c, st, in_port, m, RSW_PC_ttl_expired);
}

void
rsw_process_burst(struct rsw_lcore_stats *st, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n)
{
	const struct rsw_tables *t = __atomic_load_n(&rsw_fib_main.tables, __ATOMIC_ACQUIRE);
	const struct rte_ether_addr *mac = &rsw_dp.ports[in_port].mac;
	struct rsw_port_stats *ps = &st->port[in_port];
	struct burst_ctx c;
	uint64_t rx_bytes = 0;
	uint16_t i, p, sent;

	c.n_v4 = c.n_v6 = c.n_punt = c.n_freed = 0;
	memset(c.out_n, 0, sizeof(c.out_n[0]) * rsw_dp.n_ports);

	/* Pass 1: parse, classify, gather lookup keys. */
	for (i = 0; i < RSW_PREFETCH_OFFSET && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rsw_pkt_info *info = &c.info[i];

		if (i + RSW_PREFETCH_OFFSET < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RSW_PREFETCH_OFFSET], void *));
		rx_bytes += rte_pktmbuf_pkt_len(m);
		switch (rsw_parse(m, mac, info)) {
		case RSW_PK_IPV4: {
			const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
				m, const struct rte_ipv4_hdr *, info->l3_off);

			info->tc = t ? classify(t, info) : 0;
			c.v4[c.n_v4] = m;
			c.v4_idx[c.n_v4] = (uint8_t)i;
			c.v4_ip[c.n_v4++] = rte_be_to_cpu_32(ip->dst_addr);
			break;
		}
		case RSW_PK_IPV6: {
			const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(
				m, const struct rte_ipv6_hdr *, info->l3_off);

			info->tc = t ? classify(t, info) : 0;
			c.v6[c.n_v6] = m;
			c.v6_idx[c.n_v6] = (uint8_t)i;
			memcpy(c.v6_ip[c.n_v6++], ip->dst_addr, 16);
			break;
		}
		case RSW_PK_ARP:
		case RSW_PK_ND:
			punt_meta(m, info, in_port,
				  info->kind == RSW_PK_ARP ? RSW_PUNT_ARP : RSW_PUNT_ND, UINT32_MAX,
				  in_port);
			c.punt[c.n_punt++] = m;
			break;
		case RSW_PK_MAC_CTRL:
			/* PAUSE/PFC frames are consumed by the port, never forwarded. */
			ps->c[RSW_PC_pfc_rx_frames]++;
			c.freed[c.n_freed++] = m;
			break;
		default:
			count_drop(&c, st, in_port, m, info->drop);
			break;
		}
		if (unlikely(info->flags & RSW_PF_CNP))
			ps->c[RSW_PC_cnp_rx]++;
	}
	ps->c[RSW_PC_rx_packets] += n;
	ps->c[RSW_PC_rx_bytes] += rx_bytes;

	/* Pass 2: one bulk lookup per family, then act on each result. */
	if (unlikely(t == NULL)) {
		for (i = 0; i < c.n_v4; i++)
			count_drop(&c, st, in_port, c.v4[i], RSW_PC_no_route);
		for (i = 0; i < c.n_v6; i++)
			count_drop(&c, st, in_port, c.v6[i], RSW_PC_no_route);
		c.n_v4 = c.n_v6 = 0;
	}
	if (c.n_v4 > 0) {
		rte_fib_lookup_bulk(t->fib4, c.v4_ip, c.v4_nh, c.n_v4);
		for (i = 0; i < c.n_v4; i++)
			forward_one(&c, st, t, in_port, c.v4[i], &c.info[c.v4_idx[i]], c.v4_nh[i]);
	}
	if (c.n_v6 > 0) {
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
		rte_fib6_lookup_bulk(t->fib6, (const struct rte_ipv6_addr *)c.v6_ip, c.v6_nh,
				     c.n_v6);
#else
		rte_fib6_lookup_bulk(t->fib6, c.v6_ip, c.v6_nh, c.n_v6);
#endif
		for (i = 0; i < c.n_v6; i++)
			forward_one(&c, st, t, in_port, c.v6[i], &c.info[c.v6_idx[i]], c.v6_nh[i]);
	}

	/* Pass 3: hand off. */
	if (c.n_punt > 0) {
		sent = (uint16_t)rte_ring_mp_enqueue_burst(rsw_dp.punt, (void **)c.punt, c.n_punt,
							   NULL);
		ps->c[RSW_PC_punted] += sent;
		rsw_drop(st, in_port, c.punt + sent, c.n_punt - sent, RSW_PC_punt_dropped);
	}
	for (p = 0; p < rsw_dp.n_ports; p++) {
		uint16_t k = c.out_n[p];

		if (k == 0)
			continue;
		sent = (uint16_t)rte_ring_mp_enqueue_burst(rsw_dp.ports[p].egress,
							   (void **)c.out[p], k, NULL);
		rsw_drop(st, p, c.out[p] + sent, k - sent, RSW_PC_tx_dropped);
	}
	if (c.n_freed > 0)
		rte_pktmbuf_free_bulk(c.freed, c.n_freed);
}

uint16_t
rsw_tx_drain(struct rsw_lcore_stats *st, uint16_t p)
{
	struct rsw_port_rt *pr = &rsw_dp.ports[p];
	struct rte_mbuf *m[RSW_BURST];
	uint64_t bytes = 0;
	uint16_t n, sent, i;

	n = (uint16_t)rte_ring_sc_dequeue_burst(pr->egress, (void **)m, RSW_BURST, NULL);
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(m[i]);
	sent = rte_eth_tx_burst(pr->eth_port, 0, m, n);
	for (i = sent; i < n; i++)
		bytes -= rte_pktmbuf_pkt_len(m[i]);
	st->port[p].c[RSW_PC_tx_packets] += sent;
	st->port[p].c[RSW_PC_tx_bytes] += bytes;
	rsw_drop(st, p, m + sent, n - sent, RSW_PC_tx_dropped);
	return n;
}

static void
idle_sleep(uint32_t us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

int
rsw_worker_main(void *arg)
{
	struct rsw_worker *w = arg;
	struct rsw_lcore_stats *st = rsw_stats[w->lcore];
	struct rte_rcu_qsbr *q = rsw_fib_main.qsbr;
	struct rte_mbuf *pkts[RSW_BURST];
	uint32_t idle = 0, sleep_us;
	uint16_t i, n, work;

	rte_rcu_qsbr_thread_register(q, w->qsbr_id);
	rte_rcu_qsbr_thread_online(q, w->qsbr_id);
	while (!rsw_dp.quit) {
		work = 0;
		for (i = 0; i < w->n_rxq; i++) {
			const struct rsw_rxq *rq = &w->rxq[i];

			n = rte_eth_rx_burst(rsw_dp.ports[rq->port].eth_port, rq->queue, pkts,
					     RSW_BURST);
			if (n == 0)
				continue;
			rsw_process_burst(st, rq->port, pkts, n);
			work += n;
		}
		for (i = 0; i < w->n_txp; i++)
			work += rsw_tx_drain(st, w->txp[i]);
		rte_rcu_qsbr_quiescent(q, w->qsbr_id);

		if (likely(work > 0) || rsw_dp.idle_sleep_us == 0) {
			idle = 0;
			continue;
		}
		/* Idle back-off: spin a little, then sleep 1, 2, 4 ... µs up to the ceiling. */
		if (++idle < 64)
			continue;
		sleep_us = idle - 64 < 20 ? 1u << (idle - 64) : 1u << 20;
		if (sleep_us > rsw_dp.idle_sleep_us)
			sleep_us = rsw_dp.idle_sleep_us;
		rte_rcu_qsbr_thread_offline(q, w->qsbr_id);
		idle_sleep(sleep_us);
		rte_rcu_qsbr_thread_online(q, w->qsbr_id);
	}
	rte_rcu_qsbr_thread_offline(q, w->qsbr_id);
	rte_rcu_qsbr_thread_unregister(q, w->qsbr_id);
	return 0;
}
