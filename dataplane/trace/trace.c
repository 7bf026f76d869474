/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The worker's side of the trace (rsw_trace.h): a burst received while armed. The frames it
 * claims run the pipeline one at a time (rsw_process_burst_c, a burst of one), between the
 * untraced frames before and after them, so that the order of the port's frames is kept. What
 * each step decided is read around that run: the parse record and the lookup (with the route's
 * prefix from the FIB's RIB) before it, from the frame; the burst's scratch after it (staged,
 * admitted, punted, freed); and the counters the run moved on this lcore, whose slot nobody
 * else writes: the drop reason is the drop counter that moved, the member of a group the `show
 * lb` counter that moved, sent or queued the egress queue's counters (a frame sent straight is
 * counted enqueued and dequeued at once), the punt class its `show punt` counter.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_rib.h>
#include <rte_rib6.h>
#include <rte_version.h>

#include "rsw_burst.h"
#include "rsw_classify.h"
#include "rsw_fib.h"
#include "rsw_punt_dp.h"
#include "rsw_qos.h"
#include "rsw_queue.h"
#include "rsw_trace.h"
#include "rsw_worker.h"

/* The counters a frame's run is judged by, taken before it. */
struct trace_snap {
	struct rsw_port_stats port[RSW_MAX_PORTS];
	uint64_t q[RSW_MAX_PORTS][RSW_N_TC][RSW_N_QUEUE_CTRS];
	uint64_t punt[RSW_N_PUNT_CLASSES];
	struct rsw_lb_member_stats lb[RSW_MAX_NEXTHOPS];
};

/* The buffer's drop reasons as `show drops` names them, the most specific first. */
static const struct {
	const char *reason;
	enum rsw_queue_ctr ctr;
} queue_reasons[] = {
	{"lossless_drops", RSW_QC_lossless_drops}, {"ecn_drops", RSW_QC_ecn_drops},
	{"trim_drops", RSW_QC_trim_drops},         {"watchdog_drops", RSW_QC_watchdog_drops},
	{"queue_drops", RSW_QC_dropped_packets},
};

static const char *const kind_names[] = {
	[RSW_PK_DROP] = "drop", [RSW_PK_IPV4] = "ipv4", [RSW_PK_IPV6] = "ipv6",
	[RSW_PK_ARP] = "arp",   [RSW_PK_ND] = "nd",     [RSW_PK_MAC_CTRL] = "mac_control",
	[RSW_PK_LLDP] = "lldp",
};

static void
summary(struct rsw_trace_rec *r, const struct rte_mbuf *m, const struct rsw_pkt_info *info)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const char *k = info->kind < RTE_DIM(kind_names) ? kind_names[info->kind] : "?";
	int af = r->family == 6 ? AF_INET6 : AF_INET;

	if (r->family != 0) {
		inet_ntop(af, r->src, s, sizeof(s));
		inet_ntop(af, r->dst, d, sizeof(d));
		if (r->proto == IPPROTO_UDP || r->proto == IPPROTO_TCP)
			snprintf(r->summary, sizeof(r->summary), "%s %s %s:%u > %s:%u", k,
				 r->proto == IPPROTO_UDP ? "udp" : "tcp", s, r->sport, d, r->dport);
		else
			snprintf(r->summary, sizeof(r->summary), "%s proto %u %s > %s", k, r->proto,
				 s, d);
		return;
	}
	if (info->kind == RSW_PK_ARP &&
	    rte_pktmbuf_data_len(m) >= info->l3_off + sizeof(struct rte_arp_hdr)) {
		const struct rte_arp_hdr *a =
			rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, info->l3_off);

		inet_ntop(AF_INET, &a->arp_data.arp_sip, s, sizeof(s));
		inet_ntop(AF_INET, &a->arp_data.arp_tip, d, sizeof(d));
		snprintf(r->summary, sizeof(r->summary), "arp %s %s > %s",
			 rte_be_to_cpu_16(a->arp_opcode) == RTE_ARP_OP_REPLY ? "reply" : "request",
			 s, d);
		return;
	}
	snprintf(r->summary, sizeof(r->summary), "%s ethertype 0x%04x", k,
		 rte_be_to_cpu_16(rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type));
}

/* The parse and classify steps, from the frame as received. */
static void
rec_parse(struct rsw_trace_rec *r, const struct rte_mbuf *m, uint16_t in_port,
	  const struct rsw_tables *t, struct rsw_pkt_info *info)
{
	enum rsw_pkt_kind kind = rsw_parse(m, &rsw_dp.ports[in_port].mac, info);

	r->kind = (uint8_t)kind;
	r->parse_drop = kind == RSW_PK_DROP ? info->drop : 0;
	if (kind == RSW_PK_IPV4) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, info->l3_off);

		r->family = 4;
		memcpy(r->src, &ip->src_addr, 4);
		memcpy(r->dst, &ip->dst_addr, 4);
	} else if (kind == RSW_PK_IPV6) {
		const struct rte_ipv6_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, info->l3_off);

		r->family = 6;
		memcpy(r->src, ip->src_addr, 16);
		memcpy(r->dst, ip->dst_addr, 16);
	}
	if (r->family != 0) {
		r->proto = info->proto;
		r->ttl = info->ttl;
		r->dscp = info->dscp;
		if (info->flags & RSW_PF_L4) {
			r->sport = info->sport;
			r->dport = info->dport;
		}
		r->tc = t != NULL ? rsw_classify(t, info) : 0;
		r->classified = 1;
	}
	summary(r, m, info);
}

/* The lookup step, as the FIB answers for the frame's destination now. */
static void
rec_lookup(struct rsw_trace_rec *r, const struct rsw_tables *t)
{
	const struct rsw_result *res;
	uint64_t nh = 0;

	r->group = r->member = RSW_TRACE_NONE;
	r->out_port = RSW_TRACE_ANY_PORT;
	if (t == NULL || r->family == 0)
		return;
	if (r->family == 4) {
		uint32_t dst, ip = 0;
		struct rte_rib_node *node;
		struct rte_rib *rib = rte_fib_get_rib(t->fib4);

		memcpy(&dst, r->dst, 4);
		dst = rte_be_to_cpu_32(dst);
		rte_fib_lookup_bulk(t->fib4, &dst, &nh, 1);
		node = rib != NULL ? rte_rib_lookup(rib, dst) : NULL;
		if (node != NULL && rte_rib_get_ip(node, &ip) == 0 &&
		    rte_rib_get_depth(node, &r->prefix_len) == 0) {
			ip = rte_cpu_to_be_32(ip);
			memcpy(r->prefix, &ip, 4);
			r->prefix_ok = 1;
		}
	} else {
		struct rte_rib6_node *node;
		struct rte_rib6 *rib = rte_fib6_get_rib(t->fib6);

#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
		rte_fib6_lookup_bulk(t->fib6, (const struct rte_ipv6_addr *)r->dst, &nh, 1);
		node = rib != NULL ? rte_rib6_lookup(rib, (const struct rte_ipv6_addr *)r->dst)
				   : NULL;
		if (node != NULL && rte_rib6_get_ip(node, (struct rte_ipv6_addr *)r->prefix) == 0 &&
		    rte_rib6_get_depth(node, &r->prefix_len) == 0)
			r->prefix_ok = 1;
#else
		uint8_t dst[16][16];

		memcpy(dst[0], r->dst, 16);
		rte_fib6_lookup_bulk(t->fib6, dst, &nh, 1);
		node = rib != NULL ? rte_rib6_lookup(rib, r->dst) : NULL;
		if (node != NULL && rte_rib6_get_ip(node, r->prefix) == 0 &&
		    rte_rib6_get_depth(node, &r->prefix_len) == 0)
			r->prefix_ok = 1;
#endif
	}
	if (nh >= t->n_results)
		nh = 0;
	res = &t->results[nh];
	switch (res->type) {
	case RSW_RES_LOCAL:
		r->res = RSW_TR_LOCAL;
		break;
	case RSW_RES_CONNECTED:
		r->res = RSW_TR_CONNECTED;
		r->out_port = res->port;
		break;
	case RSW_RES_GROUP:
		r->res = RSW_TR_ROUTE;
		r->group = res->id;
		if (t->groups[res->id].n_members == 1) {
			r->member = 0;
			r->out_port = t->nh[t->groups[res->id].members[0]].port;
		}
		break;
	default:
		r->res = RSW_TR_NONE;
		r->prefix_ok = 0;
		break;
	}
}

static void
snap_take(struct trace_snap *s, const struct rsw_lcore_stats *st, unsigned int lcore,
	  const struct rsw_trace_rec *r)
{
	unsigned int c;

	memcpy(s->port, st->port, sizeof(s->port));
	memcpy(s->q, st->qos.q, sizeof(s->q));
	for (c = 0; c < RSW_N_PUNT_CLASSES; c++)
		s->punt[c] = rsw_punt_lc[lcore].c[c][RSW_PUNT_packets];
	if (r->group != RSW_TRACE_NONE)
		memcpy(s->lb, st->lb[r->group], sizeof(s->lb));
}

/* The neighbour entry the frame was rewritten with. */
static uint32_t
rec_neigh(const struct rsw_trace_rec *r, const struct rsw_tables *t)
{
	const struct rsw_result *res;
	uint64_t nh = 0;
	uint32_t dst;
	int ni;

	if (r->res == RSW_TR_ROUTE && r->member != RSW_TRACE_NONE)
		return t->nh[t->groups[r->group].members[r->member]].neigh;
	if (r->res != RSW_TR_CONNECTED)
		return RSW_NEIGH_NONE;
	if (r->family == 6) {
		ni = rsw_neigh_lookup6(r->dst);
		return ni < 0 ? RSW_NEIGH_NONE : (uint32_t)ni;
	}
	memcpy(&dst, r->dst, 4);
	dst = rte_be_to_cpu_32(dst);
	rte_fib_lookup_bulk(t->fib4, &dst, &nh, 1);
	res = &t->results[nh < t->n_results ? nh : 0];
	if (res->type == RSW_RES_CONNECTED && res->adj_mask != 0) {
		uint32_t a = rsw_adj_lookup4(t, res, dst);

		if (a != RSW_NEIGH_NONE)
			return a;
	}
	ni = rsw_neigh_lookup4(rte_cpu_to_be_32(dst));
	return ni < 0 ? RSW_NEIGH_NONE : (uint32_t)ni;
}

/* The steps after the lookup and the end, from what the frame's run left and moved. */
static void
rec_after(struct rsw_trace_rec *r, const struct rsw_burst *c, const struct trace_snap *s,
	  const struct rsw_lcore_stats *st, unsigned int lcore, uint16_t in_port,
	  const struct rsw_tables *t)
{
	unsigned int p, k, tc, i;

	r->tx_queue = -1;
	r->tx_port = RSW_TRACE_ANY_PORT;
	/* The member of a group: its `show lb` counter moved. */
	if (r->group != RSW_TRACE_NONE && r->member == RSW_TRACE_NONE)
		for (i = 0; i < t->groups[r->group].n_members; i++)
			if (st->lb[r->group][i].packets != s->lb[i].packets) {
				r->member = i;
				r->out_port = t->nh[t->groups[r->group].members[i]].port;
				break;
			}
	/* Staged on its egress port: rewritten. */
	if ((c->staged != 0 || c->n_slots > 0) && r->out_port < RSW_MAX_PORTS && t != NULL) {
		uint32_t ni = rec_neigh(r, t);
		uint64_t mac = ni < RSW_NEIGH_SLOTS
				       ? __atomic_load_n(&rsw_fib_main.neigh[ni].mac_valid,
							 __ATOMIC_ACQUIRE)
				       : 0;

		r->rewritten = 1;
		memcpy(r->dst_mac, &mac, 6);
		memcpy(r->src_mac, &rsw_dp.ports[r->out_port].mac, 6);
	}
	/* Admission: the egress queue whose counters moved. */
	for (p = 0; p < RSW_MAX_PORTS && !r->admitted; p++)
		for (tc = 0; tc < RSW_N_TC; tc++) {
			const uint64_t *a = st->qos.q[p][tc], *b = s->q[p][tc];

			if (a[RSW_QC_enqueued_packets] == b[RSW_QC_enqueued_packets] &&
			    a[RSW_QC_dropped_packets] == b[RSW_QC_dropped_packets] &&
			    a[RSW_QC_trimmed] == b[RSW_QC_trimmed])
				continue;
			r->admitted = 1;
			r->tx_port = (uint16_t)p;
			r->queue = (uint8_t)tc;
			r->ecn_marked = a[RSW_QC_ecn_marked] != b[RSW_QC_ecn_marked];
			r->trimmed = a[RSW_QC_trimmed] != b[RSW_QC_trimmed];
			r->q_bytes =
				__atomic_load_n(&rsw_qos.port[p].q_bytes[tc], __ATOMIC_RELAXED);
			if (a[RSW_QC_dropped_packets] != b[RSW_QC_dropped_packets] &&
			    a[RSW_QC_enqueued_packets] == b[RSW_QC_enqueued_packets]) {
				r->end = RSW_TE_DROPPED;
				for (k = 0; k < RTE_DIM(queue_reasons); k++)
					if (a[queue_reasons[k].ctr] != b[queue_reasons[k].ctr]) {
						r->reason = queue_reasons[k].reason;
						break;
					}
			} else if (a[RSW_QC_dequeued_packets] - b[RSW_QC_dequeued_packets] >=
				   a[RSW_QC_enqueued_packets] - b[RSW_QC_enqueued_packets]) {
				r->end = RSW_TE_SENT; /* counted enqueued and dequeued at once */
				r->tx_queue = rsw_direct_txq((uint16_t)p);
			} else {
				r->end = RSW_TE_QUEUED;
			}
			break;
		}
	/* A drop counter that moved, on the ingress port first, then any. */
	for (i = 0; i <= RSW_MAX_PORTS && r->end != RSW_TE_DROPPED; i++) {
		p = i == 0 ? in_port : i - 1;
		for (k = 0; k < RSW_N_PORT_CTRS; k++)
			if (rsw_port_ctr_is_drop((enum rsw_port_ctr)k) &&
			    st->port[p].c[k] != s->port[p].c[k]) {
				r->end = RSW_TE_DROPPED;
				r->reason = rsw_port_ctr_name((enum rsw_port_ctr)k);
				r->tx_queue = -1;
				break;
			}
	}
	if (r->end == RSW_TE_DROPPED)
		return;
	for (k = 0; k < RSW_N_PUNT_CLASSES; k++)
		if (rsw_punt_lc[lcore].c[k][RSW_PUNT_packets] != s->punt[k]) {
			r->end = RSW_TE_PUNTED;
			r->reason = rsw_punt_class_name((enum rsw_punt_class)k);
			return;
		}
	if (r->end == RSW_TE_NONE && c->n_freed > 0)
		r->end = RSW_TE_CONSUMED;
}

/* Frame m, claimed with sequence number seq: run alone, recorded in lcore's buffer. */
static void
trace_one(struct rsw_lcore_stats *st, unsigned int lcore, uint16_t in_port, uint16_t rx_queue,
	  struct rte_mbuf *m, uint64_t seq)
{
	struct rsw_trace_buf *buf = rsw_trace_buf[lcore];
	const struct rsw_tables *t = __atomic_load_n(&rsw_fib_main.tables, __ATOMIC_ACQUIRE);
	struct rsw_trace_rec *r = rsw_trace_next(buf);
	struct rsw_pkt_info info;
	struct trace_snap s;
	struct rsw_burst c;

	memset(r, 0, sizeof(*r));
	r->seq = seq;
	r->tsc = rte_rdtsc();
	r->lcore = (uint16_t)lcore;
	r->rx_port = in_port;
	r->rx_queue = rx_queue;
	r->len = (uint16_t)rte_pktmbuf_pkt_len(m);
	rec_parse(r, m, in_port, t, &info);
	rec_lookup(r, t);
	snap_take(&s, st, lcore, r);
	rsw_process_burst_c(&c, st, in_port, &m, 1);
	rec_after(r, &c, &s, st, lcore, in_port, t);
	r->tsc_end = rte_rdtsc();
	rsw_trace_publish(buf);
}

void
rsw_trace_burst(struct rsw_lcore_stats *st, unsigned int lcore, uint16_t in_port, uint16_t rx_queue,
		struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t seq = 0;
	uint32_t got, i;

	/* rsw_trace_armed's load was relaxed: the buffers the control thread allocated before it
	 * armed are seen from here on. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	got = lcore < RTE_MAX_LCORE && rsw_trace_buf[lcore] != NULL
		      ? rsw_trace_claim(in_port, n, &seq)
		      : 0;
	for (i = 0; i < got; i++)
		trace_one(st, lcore, in_port, rx_queue, pkts[i], seq + i);
	if (got < n)
		rsw_process_burst(st, in_port, pkts + got, (uint16_t)(n - got));
}
