/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Neighbour resolution on the control thread (docs/architecture.md, docs/routing.md): one
 * family-agnostic state machine (incomplete, reachable, stale, failed, static) that
 * resolves next hops and hosts on connected subnets (solicit, retry, age) and holds up
 * to three packets per unresolved neighbour. One that failed is asked again on traffic to it
 * (a round a second at most, as Linux's neighbour table restarts a failed entry on traffic)
 * and, a next hop of the tables, now and then with a back-off of 2 s doubling to 60 s. It
 * solicits with ARP requests (RFC 826) and NS (RFC 4861 §7.2.2). The bottom of the neighbour area, it calls none of the other files:
 * it holds what they share (the control thread's transmit, reply frames, the `show icmp`
 * counters); ARP (arp.c) and Neighbor Discovery (nd.c) answer for the switch's addresses and
 * report what they learn with rsw_ctl_neigh_learn; punt.c hands it the packets waiting for
 * a neighbour. Workers see only the result: a MAC published in rsw_fib_main.neigh.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_arp.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rsw_ctl.h"
#include "rsw_icmp.h"
#include "rsw_icmp_pkt.h"
#include "rsw_module.h"
#include "rsw_neigh.h"

#define NEIGH_HOLD           3      /* packets held per unresolved neighbour */
#define NEIGH_PROBES         3      /* requests before giving up */
#define NEIGH_RETRY_MS       1000   /* between requests */
#define NEIGH_REACHABLE_MS   300000 /* a resolved entry is re-probed after this */
#define NEIGH_FAILED_HOLD_MS 1000   /* traffic does not retry a failed entry sooner */
#define NEIGH_BACKOFF_MIN_MS 2000   /* a failed next hop is asked again after this, */
#define NEIGH_BACKOFF_MAX_MS 60000  /* then twice as long each time, up to this */
#define ND_PKT_LEN           (RSW_IP6_HDR_LEN + RSW_ND_LEN)

enum neigh_state {
	NS_NONE = 0,
	NS_INCOMPLETE,
	NS_REACHABLE,
	NS_STALE,
	NS_STATIC,
	NS_FAILED,
};

struct ctl_neigh {
	uint8_t state; /* enum neigh_state */
	uint8_t probes;
	uint8_t n_held;
	uint8_t wanted; /* a next hop of the tables (rsw_ctl_neigh_want): asked again when failed */
	uint8_t mac[6];
	uint16_t port;
	struct rsw_ip ip;
	uint64_t updated_ms;    /* last change of state (failed: when the last round gave up) */
	uint64_t next_probe_ms; /* incomplete, stale: the next request; failed: the next retry */
	uint32_t backoff_ms;    /* failed and wanted: the wait before the next retry */
	struct rte_mbuf *held[NEIGH_HOLD];
};

static struct ctl_neigh *neighs; /* [RSW_NEIGH_SLOTS] */
static const struct rsw_config *neigh_cfg;
static uint64_t (*neigh_clock)(void) = rsw_now_ms;

/* Counted by icmp.c, nd.c and the solicitation here; kept at the bottom of the area. */
uint64_t rsw_icmp_ctrs[RSW_N_ICMP_CTRS];

/* Whether ip is an IPv6 link-local address (fe80::/10). */
static bool
ll6(const struct rsw_ip *ip)
{
	return ip->family == RSW_AF_INET6 && ip->addr[0] == 0xfe && (ip->addr[1] & 0xc0) == 0x80;
}

struct rsw_ip
rsw_ctl_neigh_key(const struct rsw_ip *ip, uint16_t p)
{
	struct rsw_ip k = *ip;

	if (ll6(ip)) {
		k.addr[2] = (uint8_t)((p + 1) >> 8);
		k.addr[3] = (uint8_t)(p + 1);
	}
	return k;
}

void
rsw_ctl_neigh_unkey(struct rsw_ip *ip)
{
	if (ll6(ip)) {
		ip->addr[2] = 0;
		ip->addr[3] = 0;
	}
}

/* The neighbour entry of ip on port p, created when missing (rsw_neigh_get on its key). */
static int
neigh_get(const struct rsw_ip *ip, uint16_t p)
{
	struct rsw_ip k = rsw_ctl_neigh_key(ip, p);

	return rsw_neigh_get(&k, p);
}

uint64_t
rsw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
rsw_ctl_neigh_set_clock(uint64_t (*now_ms)(void))
{
	neigh_clock = now_ms != NULL ? now_ms : rsw_now_ms;
}

static struct rsw_lcore_stats *
ctl_stats(void)
{
	return rsw_stats[rte_lcore_id()];
}

uint8_t
rsw_ctl_tc(void)
{
	const struct rsw_cfg_qos *q = &rsw_ctl.cfg->qos;

	return q->n_strict ? q->strict[0] : RSW_N_TC - 1;
}

/*
 * Queue m on (p, tc) for the port's owner. orig: railsw made it (counted originated; lost
 * uncounted when the ring is full: it is no received frame); else a received frame going on
 * (lost as tx_dropped).
 */
static void
ctl_enqueue(uint16_t p, uint8_t tc, struct rte_mbuf *m, bool orig)
{
	struct rsw_lcore_stats *st = ctl_stats();
	uint32_t len = rte_pktmbuf_pkt_len(m);

	rsw_meta(m)->flags = RSW_MF_NOACCT | (orig ? RSW_MF_ORIG : 0);
	/* Counted before it is visible: the owner's idle check never misses it. */
	__atomic_fetch_add(&rsw_qos.port[p].ctl_frames, 1, __ATOMIC_RELAXED);
	if (orig)
		__atomic_fetch_add(&rsw_qos.port[p].orig_frames, 1, __ATOMIC_RELAXED);
	if (rte_ring_mp_enqueue(rsw_qos.port[p].ring[tc], m) != 0) {
		__atomic_fetch_sub(&rsw_qos.port[p].ctl_frames, 1, __ATOMIC_RELAXED);
		if (orig) {
			__atomic_fetch_sub(&rsw_qos.port[p].orig_frames, 1, __ATOMIC_RELAXED);
			rte_pktmbuf_free(m);
		} else {
			rsw_drop(st, p, &m, 1, RSW_PC_tx_dropped);
		}
		return;
	}
	rsw_wake_owners(1u << p); /* it may sleep: nothing of its own to send */
	if (orig)
		st->tot[RSW_TOT_originated]++;
	/* The owner counts it dequeued: count it enqueued, so the two agree in `show queues`. */
	st->qos.q[p][tc][RSW_QC_enqueued_packets]++;
	st->qos.q[p][tc][RSW_QC_enqueued_bytes] += len;
}

void
rsw_ctl_send(uint16_t p, uint8_t tc, struct rte_mbuf *m)
{
	ctl_enqueue(p, tc, m, true);
}

void
rsw_ctl_forward(uint16_t p, uint8_t tc, struct rte_mbuf *m)
{
	ctl_enqueue(p, tc, m, false);
}

unsigned int
rsw_ctl_neigh_held(void)
{
	unsigned int i, n = 0;

	for (i = 0; neighs != NULL && i < RSW_NEIGH_SLOTS; i++)
		n += neighs[i].n_held;
	return n;
}

struct rte_mbuf *
rsw_ctl_reply_alloc(const struct rte_mbuf *m, const uint8_t *dst_mac, uint16_t l3_len, uint8_t **l3)
{
	const struct rsw_mbuf_meta *meta = rsw_meta((struct rte_mbuf *)(uintptr_t)m);
	struct rte_ether_hdr *eth;
	struct rte_mbuf *r;

	if (meta->l3_off < sizeof(*eth) || rte_pktmbuf_data_len(m) < meta->l3_off)
		return NULL;
	r = rte_pktmbuf_alloc(rsw_ctl.pool);
	if (r == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(r, (uint16_t)(meta->l3_off + l3_len));
	if (eth == NULL) {
		rte_pktmbuf_free(r);
		return NULL;
	}
	/* The L2 header of the request, 802.1Q tags included, turned around. */
	memcpy(eth, rte_pktmbuf_mtod(m, const void *), meta->l3_off);
	memcpy(&eth->dst_addr, dst_mac, RTE_ETHER_ADDR_LEN);
	eth->src_addr = rsw_dp.ports[meta->in_port].mac;
	*rsw_meta(r) = *meta;
	if (meta->kind == RSW_PK_ND)
		rsw_meta(r)->kind = RSW_PK_IPV6;
	*l3 = (uint8_t *)eth + meta->l3_off;
	return r;
}

/* Solicit the MAC of target on port p with a broadcast ARP request. */
static void
arp_request(uint16_t p, const struct rsw_ip *target)
{
	const struct rsw_cfg_port *cp = &neigh_cfg->ports[p];
	struct rte_ether_hdr *eth;
	struct rte_arp_hdr *arp;
	struct rte_mbuf *m;

	if (!cp->has_ipv4)
		return;
	m = rte_pktmbuf_alloc(rsw_ctl.pool);
	if (m == NULL)
		return;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(eth, 0, RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	eth->src_addr = rsw_dp.ports[p].mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	arp = (struct rte_arp_hdr *)(eth + 1);
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	arp->arp_data.arp_sha = rsw_dp.ports[p].mac;
	memcpy(&arp->arp_data.arp_sip, cp->ipv4.ip.addr, 4);
	memcpy(&arp->arp_data.arp_tip, target->addr, 4);
	rsw_ctl_send(p, rsw_ctl_tc(), m);
}

/*
 * Solicit the MAC of target on port p with an NS from the port's IPv6 address: to the
 * target's solicited-node group, or unicast to mac when given (re-probing a known entry).
 */
static void
nd_solicit(uint16_t p, const struct rsw_ip *target, const uint8_t *mac)
{
	const struct rsw_cfg_port *cp = &neigh_cfg->ports[p];
	struct rte_ether_hdr *eth;
	struct rte_mbuf *m;
	uint8_t dst[16];

	if (target->family != RSW_AF_INET6 || !cp->has_ipv6)
		return;
	m = rte_pktmbuf_alloc(rsw_ctl.pool);
	if (m == NULL)
		return;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eth) + ND_PKT_LEN);
	if (eth == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (mac != NULL) {
		/* Re-probing a known entry: unicast (RFC 4861 §7.3.3, PROBE). */
		memcpy(dst, target->addr, 16);
		memcpy(&eth->dst_addr, mac, RTE_ETHER_ADDR_LEN);
	} else {
		rsw_nd_solicited_node(target->addr, dst);
		rsw_ip6_mcast_mac(dst, eth->dst_addr.addr_bytes);
	}
	eth->src_addr = rsw_dp.ports[p].mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	rsw_nd_build((uint8_t *)(eth + 1), ND_PKT_LEN, RSW_ND_NS, cp->ipv6.ip.addr, dst,
		     target->addr, 0, rsw_dp.ports[p].mac.addr_bytes);
	rsw_meta(m)->in_port = (uint8_t)p;
	rsw_meta(m)->tc = rsw_ctl_tc();
	rsw_meta(m)->kind = RSW_PK_IPV6;
	rsw_meta(m)->l3_off = sizeof(*eth);
	rsw_icmp_ctrs[RSW_IC_nd_ns_tx]++;
	rsw_ctl_send(p, rsw_ctl_tc(), m);
}

/* Ask for n's MAC: ARP broadcast, or an NS (unicast to the known MAC when re-probing). */
static void
neigh_solicit(const struct ctl_neigh *n)
{
	if (n->ip.family == RSW_AF_INET)
		arp_request(n->port, &n->ip);
	else
		nd_solicit(n->port, &n->ip, n->state == NS_STALE ? n->mac : NULL);
}

static void
drop_held(struct ctl_neigh *n)
{
	uint8_t i;

	for (i = 0; i < n->n_held; i++) {
		struct rsw_mbuf_meta *meta = rsw_meta(n->held[i]);

		rsw_drop(ctl_stats(), meta->in_port, &n->held[i], 1, RSW_PC_neigh_unresolved);
	}
	n->n_held = 0;
}

static void
start_probing(struct ctl_neigh *n, uint64_t now)
{
	n->state = NS_INCOMPLETE;
	n->probes = 1;
	n->next_probe_ms = now + NEIGH_RETRY_MS;
	n->updated_ms = now;
	neigh_solicit(n);
}

/* Send what waited for n's MAC. */
static void
flush_held(struct ctl_neigh *n)
{
	uint8_t i;

	for (i = 0; i < n->n_held; i++) {
		struct rte_mbuf *m = n->held[i];
		struct rsw_mbuf_meta *meta = rsw_meta(m);

		rsw_rewrite(m, meta->l3_off, meta->kind, n->mac, &rsw_dp.ports[meta->out_port].mac);
		rsw_ctl_forward(meta->out_port, meta->tc, m);
	}
	n->n_held = 0;
}

static void
resolved(uint32_t idx, const uint8_t *mac, uint64_t now)
{
	struct ctl_neigh *n = &neighs[idx];

	if (n->state == NS_STATIC)
		return; /* static neighbours from config win */
	memcpy(n->mac, mac, 6);
	n->state = NS_REACHABLE;
	n->probes = 0;
	n->backoff_ms = 0;
	n->updated_ms = now;
	rsw_neigh_set(idx, mac);
	flush_held(n);
}

/* Where link-local neighbours are heard (rsw_ctl_neigh_set_ll_source); NULL: nowhere. */
static rsw_ctl_neigh_ll_fn *ll_source;

void
rsw_ctl_neigh_set_ll_source(rsw_ctl_neigh_ll_fn *fn)
{
	ll_source = fn;
}

int
rsw_ctl_neigh_want(const struct rsw_ip *ip, uint16_t port)
{
	int idx = neigh_get(ip, port);

	if (idx < 0)
		return idx;
	neighs[idx].wanted = 1;
	if (neighs[idx].state == NS_NONE) {
		uint8_t mac[RTE_ETHER_ADDR_LEN];

		neighs[idx].ip = *ip;
		neighs[idx].port = port;
		/* A link-local next hop (BGP unnumbered) the kernel interface already heard. */
		if (ll6(ip) && ll_source != NULL && ll_source(port, ip->addr, NULL, mac) == 0)
			resolved((uint32_t)idx, mac, neigh_clock());
		else
			start_probing(&neighs[idx], neigh_clock());
	}
	return idx;
}

int
rsw_ctl_neigh_init(const struct rsw_config *cfg)
{
	uint32_t i;

	neigh_cfg = cfg;
	neighs = calloc(RSW_NEIGH_SLOTS, sizeof(*neighs));
	if (neighs == NULL)
		return -ENOMEM;
	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct rsw_cfg_neighbor *cn = &cfg->neighbors[i];
		int idx = neigh_get(&cn->ip, cn->port);

		if (idx < 0)
			return idx;
		neighs[idx].ip = cn->ip;
		neighs[idx].port = cn->port;
		neighs[idx].state = NS_STATIC;
		memcpy(neighs[idx].mac, cn->mac, 6);
		rsw_neigh_set((uint32_t)idx, cn->mac);
	}
	return 0;
}

void
rsw_ctl_neigh_reload(const struct rsw_config *cfg)
{
	uint64_t now = neigh_clock();
	uint32_t i, j;

	neigh_cfg = cfg;
	/* Static entries the new configuration no longer has: resolve them like any other. */
	for (i = 0; i < RSW_NEIGH_SLOTS; i++) {
		struct ctl_neigh *n = &neighs[i];
		bool kept = false;

		if (n->state != NS_STATIC)
			continue;
		for (j = 0; j < cfg->n_neighbors && !kept; j++)
			kept = memcmp(&cfg->neighbors[j].ip, &n->ip, sizeof(n->ip)) == 0 &&
			       cfg->neighbors[j].port == n->port;
		if (kept)
			continue;
		rsw_neigh_set(i, NULL);
		start_probing(n, now);
	}
	/* New and changed static entries win over learned ones. */
	for (i = 0; i < cfg->n_neighbors; i++) {
		const struct rsw_cfg_neighbor *cn = &cfg->neighbors[i];
		int idx = neigh_get(&cn->ip, cn->port);

		if (idx < 0)
			continue;
		neighs[idx].ip = cn->ip;
		neighs[idx].port = cn->port;
		neighs[idx].state = NS_STATIC;
		memcpy(neighs[idx].mac, cn->mac, 6);
		rsw_neigh_set((uint32_t)idx, cn->mac);
		/* Packets held while it resolved go now. */
		flush_held(&neighs[idx]);
	}
}

void
rsw_ctl_neigh_fini(void)
{
	uint32_t i;

	if (neighs == NULL)
		return;
	for (i = 0; i < RSW_NEIGH_SLOTS; i++)
		if (neighs[i].n_held)
			rte_pktmbuf_free_bulk(neighs[i].held, neighs[i].n_held);
	free(neighs);
	neighs = NULL;
}

static bool
port_subnet_has(uint16_t p, const struct rsw_ip *ip)
{
	const struct rsw_cfg_port *cp = &neigh_cfg->ports[p];

	if (ip->family == RSW_AF_INET)
		return cp->has_ipv4 && rsw_prefix_contains(&cp->ipv4, ip);
	return cp->has_ipv6 && rsw_prefix_contains(&cp->ipv6, ip);
}

static int
neigh_lookup(const struct rsw_ip *ip, uint16_t p)
{
	struct rsw_ip k = rsw_ctl_neigh_key(ip, p);

	if (ip->family == RSW_AF_INET)
		return rte_hash_lookup(rsw_fib_main.neigh4, ip->addr);
	return rsw_neigh_lookup6(k.addr);
}

int
rsw_ctl_neigh_learn(const struct rsw_ip *ip, uint16_t p, const uint8_t *mac, bool create)
{
	const struct rsw_cfg_port *cp = &neigh_cfg->ports[p];
	const struct rsw_ip *own = ip->family == RSW_AF_INET ? &cp->ipv4.ip : &cp->ipv6.ip;
	int idx;

	/*
	 * Only hosts on the port's connected subnet, never the switch's own address; and the
	 * link-local next hops of that port the tables want (BGP unnumbered).
	 */
	idx = neigh_lookup(ip, p);
	if (ll6(ip) && idx >= 0 && neighs[idx].port == p && neighs[idx].state != NS_NONE &&
	    !(mac[0] & 1)) {
		resolved((uint32_t)idx, mac, neigh_clock());
		return idx;
	}
	if (!port_subnet_has(p, ip) || memcmp(ip, own, sizeof(*ip)) == 0 || (mac[0] & 1))
		return -ENOENT;
	if (idx < 0 && create)
		idx = neigh_get(ip, p);
	if (idx < 0)
		return -ENOENT;
	if (neighs[idx].state == NS_NONE) {
		neighs[idx].ip = *ip;
		neighs[idx].port = p;
	}
	resolved((uint32_t)idx, mac, neigh_clock());
	return idx;
}

void
rsw_ctl_neigh_unresolved(struct rte_mbuf *m)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);
	uint64_t now = neigh_clock();
	struct ctl_neigh *n;
	int idx = (int)meta->neigh;

	if (meta->neigh == UINT32_MAX) {
		/* A host on a connected subnet: the destination itself is the neighbour. */
		const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
		struct rsw_ip ip = {0};

		if (meta->kind == RSW_PK_IPV4) {
			ip.family = RSW_AF_INET;
			memcpy(ip.addr, &((const struct rte_ipv4_hdr *)l3)->dst_addr, 4);
		} else {
			ip.family = RSW_AF_INET6;
			memcpy(ip.addr, ((const struct rte_ipv6_hdr *)l3)->dst_addr, 16);
		}
		idx = neigh_get(&ip, meta->out_port);
		if (idx < 0)
			goto drop;
		if (neighs[idx].state == NS_NONE) {
			neighs[idx].ip = ip;
			neighs[idx].port = meta->out_port;
		}
	}
	n = &neighs[idx];
	if (n->state == NS_REACHABLE || n->state == NS_STALE || n->state == NS_STATIC) {
		/* Resolved since the worker looked. */
		rsw_rewrite(m, meta->l3_off, meta->kind, n->mac, &rsw_dp.ports[meta->out_port].mac);
		rsw_ctl_forward(meta->out_port, meta->tc, m);
		return;
	}
	if (n->state == NS_FAILED && now - n->updated_ms < NEIGH_FAILED_HOLD_MS)
		goto drop;
	if (n->n_held >= NEIGH_HOLD)
		goto drop;
	n->held[n->n_held++] = m;
	if (n->state != NS_INCOMPLETE)
		start_probing(n, now);
	return;
drop:
	rsw_drop(ctl_stats(), meta->in_port, &m, 1, RSW_PC_neigh_unresolved);
}

/*
 * A round of requests went unanswered: the MAC is forgotten (the group member goes down),
 * what waits is dropped, and a next hop is asked again after its back-off (kept from the
 * rounds before: traffic may start a round sooner, rsw_ctl_neigh_unresolved).
 */
static void
neigh_failed(uint32_t idx, uint64_t now_ms)
{
	struct ctl_neigh *n = &neighs[idx];

	n->state = NS_FAILED;
	n->updated_ms = now_ms;
	if (n->backoff_ms == 0)
		n->backoff_ms = NEIGH_BACKOFF_MIN_MS;
	n->next_probe_ms = now_ms + n->backoff_ms;
	rsw_neigh_set(idx, NULL);
	drop_held(n);
}

void
rsw_ctl_neigh_timer(uint64_t now_ms)
{
	uint32_t i;

	for (i = 0; i < RSW_NEIGH_SLOTS; i++) {
		struct ctl_neigh *n = &neighs[i];

		switch (n->state) {
		case NS_INCOMPLETE:
		case NS_STALE:
			if (now_ms < n->next_probe_ms)
				break;
			if (n->probes < NEIGH_PROBES) {
				n->probes++;
				n->next_probe_ms = now_ms + NEIGH_RETRY_MS;
				neigh_solicit(n);
				break;
			}
			neigh_failed(i, now_ms);
			break;
		case NS_FAILED:
			/*
			 * A next hop that failed: one request now and then, twice as far apart
			 * each time (an answer resolves it, rsw_ctl_neigh_learn); a host only
			 * traffic asked for is asked again on traffic alone.
			 */
			if (!n->wanted || now_ms < n->next_probe_ms)
				break;
			neigh_solicit(n);
			n->backoff_ms = RTE_MIN(2 * n->backoff_ms, (uint32_t)NEIGH_BACKOFF_MAX_MS);
			n->next_probe_ms = now_ms + n->backoff_ms;
			break;
		case NS_REACHABLE:
			if (now_ms - n->updated_ms >= NEIGH_REACHABLE_MS) {
				n->state = NS_STALE;
				n->probes = 1;
				n->next_probe_ms = now_ms + NEIGH_RETRY_MS;
				neigh_solicit(n);
			}
			break;
		default:
			break;
		}
	}
}

static const char *
state_name(uint8_t s)
{
	switch (s) {
	case NS_STATIC:
		return "static";
	case NS_REACHABLE:
		return "reachable";
	case NS_STALE:
		return "stale";
	case NS_FAILED:
		return "failed";
	default:
		return "incomplete";
	}
}

json_t *
rsw_ctl_neigh_json(void)
{
	json_t *arr = json_array();
	char ip[64], mac[RSW_MAC_STR_LEN];
	uint32_t i;

	for (i = 0; arr != NULL && i < RSW_NEIGH_SLOTS; i++) {
		const struct ctl_neigh *n = &neighs[i];

		if (n->state == NS_NONE)
			continue;
		if (n->state == NS_REACHABLE || n->state == NS_STALE || n->state == NS_STATIC)
			rsw_mac_str(n->mac, mac);
		else
			mac[0] = '\0';
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s}", "ip",
						     rsw_ip_str(&n->ip, ip, sizeof(ip)), "mac", mac,
						     "port", neigh_cfg->ports[n->port].name,
						     "state", state_name(n->state)));
	}
	return json_pack("{s:o}", "neighbors", arr ? arr : json_array());
}

static unsigned int
neigh_poll(uint64_t now_ms)
{
	rsw_ctl_neigh_timer(now_ms);
	return 0;
}

static struct rsw_module neigh_module = {
	.name = "neigh",
	.order = RSW_MODULE_ORDER_NEIGH,
	.poll = neigh_poll,
	.period_ms = 100,
};

RSW_MODULE_REGISTER(neigh_module);
