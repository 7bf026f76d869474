/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/* rswhost: frames (build, send, receive): RoCEv2 and UET-like data and control, PFC. */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "host.h"

/* ---- frames ------------------------------------------------------------ */

static uint8_t *
frame_start(struct host *h, struct rte_mbuf *m, uint32_t dst_ip, uint8_t tos, uint16_t sport,
	    uint16_t dport, uint16_t l4_payload)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t len = HDRS + l4_payload;

	m->data_len = len;
	m->pkt_len = len;
	rte_ether_addr_copy(&h->gw, &eth->dst_addr);
	rte_ether_addr_copy(&h->mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = 0x45;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16(len - RTE_ETHER_HDR_LEN);
	ip->packet_id = 0;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = h->ip;
	ip->dst_addr = dst_ip;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_len = rte_cpu_to_be_16(8 + l4_payload);
	udp->dgram_cksum = 0; /* RoCEv2 and UET send UDP checksum 0 */
	return (uint8_t *)(udp + 1);
}

static void
put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static uint32_t
get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
bth(uint8_t *b, uint8_t op, uint32_t qpn, uint32_t psn, uint8_t becn)
{
	b[0] = op;
	b[1] = 0;
	b[2] = 0xff;
	b[3] = 0xff;
	b[4] = becn ? 0x40 : 0;
	put24(b + 5, qpn);
	b[8] = 0;
	put24(b + 9, psn);
}

void
tx_flush(struct host *h)
{
	uint16_t n, i;

	if (h->ntx == 0)
		return;
	for (i = 0; i < h->ntx; i++)
		h->tx_bytes += h->txb[i]->pkt_len;
	n = rte_eth_tx_burst(h->port, 0, h->txb, h->ntx);
	h->tx_pkts += n;
	for (i = n; i < h->ntx; i++)
		h->tx_bytes -= h->txb[i]->pkt_len;
	if (n < h->ntx) {
		h->tx_full++;
		memmove(h->txb, h->txb + n, (h->ntx - n) * sizeof(h->txb[0]));
	}
	h->ntx -= n;
}

/* A control frame (ACK, NAK, NACK, CNP) from host @p h toward host @p to. */
static struct rte_mbuf *
ctrl_alloc(struct host *h)
{
	if (h->ntx >= TXBUF)
		return NULL;
	return rte_pktmbuf_alloc(g.pool);
}

static void
send_roce_ack(struct host *h, struct qp *q, uint8_t syndrome, uint32_t psn)
{
	struct host *to = &g.hosts[q->flow->src];
	struct rte_mbuf *m = ctrl_alloc(h);
	uint8_t *p;

	if (m == NULL)
		return;
	p = frame_start(h, m, to->ip, g.ctrl_dscp << 2, q->sport, ROCE_PORT,
			BTH_LEN + 4 + ICRC_LEN);
	bth(p, OP_ACK, q->qpn, psn, 0);
	p[12] = syndrome;
	put24(p + 13, 0);
	memset(p + 16, 0, ICRC_LEN);
	tx_enqueue(h, m, 1);
}

static void
send_cnp(struct host *h, struct qp *q)
{
	struct host *to = &g.hosts[q->flow->src];
	struct rte_mbuf *m = ctrl_alloc(h);
	uint8_t *p;

	if (m == NULL)
		return;
	/* A RoCEv2 CNP (IBTA Annex A17): BTH 0x81, BECN, 16 reserved bytes, ICRC; DSCP 48. */
	p = frame_start(h, m, to->ip, g.cnp_dscp << 2, 0xc000, ROCE_PORT, BTH_LEN + 16 + ICRC_LEN);
	bth(p, OP_CNP, q->qpn, 0, 1);
	memset(p + BTH_LEN, 0, 16 + ICRC_LEN);
	tx_enqueue(h, m, 1);
}

static void
send_uet_ack(struct host *h, struct qp *q)
{
	struct host *to = &g.hosts[q->flow->src];
	struct rte_mbuf *m = ctrl_alloc(h);
	uint32_t cum;
	uint64_t sack;
	uint8_t *p;

	if (m == NULL)
		return;
	rsw_uet_rx_ack_fields(&q->urx, &cum, &sack);
	p = frame_start(h, m, to->ip, g.ctrl_dscp << 2, q->sport, UET_PORT, UET_ACK_LEN);
	p[0] = UET_ACK;
	p[1] = 0;
	p[2] = p[3] = 0;
	put32(p + 4, cum);
	put32(p + 8, q->qpn);
	put32(p + 12, 0);
	put32(p + 16, (uint32_t)(sack >> 32));
	put32(p + 20, (uint32_t)sack);
	/* Congestion feedback: packets and CE marks since the last ACK, and the PSN and
	 * entropy of the packet that triggered this ACK (its delay, its path). */
	put32(p + 24, (uint32_t)q->ack_cnt << 16 | q->ack_ce);
	put32(p + 28, q->last_psn);
	put32(p + 32, (uint32_t)q->last_entropy << 16 | q->last_ce);
	q->ack_cnt = q->ack_ce = 0;
	q->ack_due_tsc = 0;
	tx_enqueue(h, m, 1);
}

void
uet_ack_due(struct qp *q, uint64_t tsc)
{
	if (q->flow->tr == T_ROCE || q->ack_due_tsc == 0 || tsc < q->ack_due_tsc)
		return;
	/* Packets accepted, fewer than ack_every, and nothing since: their ACK goes now (a
	 * sender whose window shrank below what was in flight waits for it). */
	q->urx.since_ack = 0;
	send_uet_ack(&g.hosts[q->flow->dst], q);
}

static void
send_uet_nack(struct host *h, struct qp *q, uint32_t psn, uint8_t code)
{
	struct host *to = &g.hosts[q->flow->src];
	struct rte_mbuf *m = ctrl_alloc(h);
	uint8_t *p;

	if (m == NULL)
		return;
	p = frame_start(h, m, to->ip, g.ctrl_dscp << 2, q->sport, UET_PORT, UET_HDR_LEN);
	p[0] = UET_NACK;
	p[1] = code; /* UET_TRIMMED 0x01, UET_TRIMMED_LASTHOP 0x02 */
	p[2] = p[3] = 0;
	put32(p + 4, psn);
	put32(p + 8, q->qpn);
	put32(p + 12, 0);
	tx_enqueue(h, m, 1);
}

static uint32_t
pkt_bytes(const struct qp *q, uint32_t psn)
{
	uint64_t off = (uint64_t)psn * g.payload;

	if (q->bytes == 0 || off + g.payload <= q->bytes)
		return g.payload;
	return (uint32_t)(q->bytes - off);
}

static uint16_t
next_entropy(struct flow *f, struct qp *q)
{
	if (!f->spray)
		return q->sport;
	return rsw_reps_next(&f->reps); /* a pool of 256 entropies (htsim's default) */
}

/* ---- base-RTT probes ------------------------------------------------------ */

static void
send_ping(struct host *h, uint32_t dst_ip, uint8_t dscp, uint8_t type, uint32_t seq, uint32_t idx)
{
	struct rte_mbuf *m = ctrl_alloc(h);
	uint8_t *p;

	if (m == NULL)
		return;
	/* 42 B of headers + 18 = 60 B, 64 B on the wire with the FCS. */
	p = frame_start(h, m, dst_ip, dscp << 2, 0xc100, UET_PORT, 18);
	memset(p, 0, 18);
	p[0] = type;
	put32(p + 4, seq);
	put32(p + 8, idx);
	tx_enqueue(h, m, 1);
}

void
ping_tick(uint64_t now)
{
	uint64_t lost = g.hz / 20; /* 50 ms without an answer: send the next */
	int i;

	for (i = 0; i < g.npings; i++) {
		struct ping *pg = &g.pings[i];
		struct host *h = &g.hosts[pg->src];

		if (pg->got >= pg->count || pg->sent >= 2 * pg->count || now < pg->next_tsc ||
		    now < g.t0)
			continue;
		if (pg->sent_tsc != 0 && now - pg->sent_tsc < lost)
			continue;
		pg->seq++;
		pg->sent++;
		pg->sent_tsc = now;
		send_ping(h, g.hosts[pg->dst].ip, pg->dscp, UET_PING, pg->seq, (uint32_t)i);
	}
}

static void
rx_ping(struct host *h, const uint8_t *ip, const uint8_t *b, uint64_t tsc)
{
	uint32_t seq = get32(b + 4), idx = get32(b + 8);
	struct ping *pg;

	h->rx_ctrl++;
	if (b[0] == UET_PING) {
		uint32_t from;

		memcpy(&from, ip + 12, 4);
		send_ping(h, from, ip[1] >> 2, UET_PONG, seq, idx);
		return;
	}
	if (idx >= (uint32_t)g.npings)
		return;
	pg = &g.pings[idx];
	if (pg->sent_tsc == 0 || seq != pg->seq || pg->got >= pg->count)
		return;
	pg->rtt_us[pg->got++] = (double)(tsc - pg->sent_tsc) * g.ns_per_tsc / 1e3;
	pg->sent_tsc = 0;
	pg->next_tsc = tsc + g.hz / 2000; /* 0.5 ms apart */
}

/* Build the next data packet of @p q, if it has one. */
struct rte_mbuf *
data_packet(struct host *h, struct qp *q, uint64_t now, uint32_t *wire)
{
	struct flow *f = q->flow;
	struct host *to = &g.hosts[f->dst];
	struct rte_mbuf *m;
	uint32_t psn, len;
	int retx, ok, last;
	uint8_t *p;

	if (f->tr == T_ROCE) {
		/* Nothing outstanding yet (a QP's first packet): its RTO runs from now, not from
		 * the start of the run; a QP starting later than one RTO would time out at once. */
		if (q->gtx.una == q->gtx.max)
			q->gtx.progress_ns = now_ns(now);
		ok = rsw_gbn_tx_next(&q->gtx, &psn, &retx);
	} else {
		ok = rsw_uet_tx_next(&q->utx, &psn, &retx);
	}
	if (!ok)
		return NULL;
	m = rte_pktmbuf_alloc(g.pool);
	if (m == NULL) {
		/* Give the PSN back: rewind a go-back-N QP, requeue a UET one. */
		if (f->tr == T_ROCE)
			q->gtx.nxt = psn;
		else if (retx)
			rsw_uet_tx_nack(&q->utx, psn);
		else
			q->utx.nxt = psn;
		return NULL;
	}
	len = pkt_bytes(q, psn);
	last = q->total != RSW_PSN_UNBOUNDED && psn + 1 == q->total;
	if (f->tr == T_ROCE) {
		p = frame_start(h, m, to->ip, f->dscp << 2 | 2, q->sport, ROCE_PORT,
				BTH_LEN + len + ICRC_LEN);
		bth(p, last ? OP_SEND_LAST : OP_SEND_MIDDLE, q->qpn, psn, 0);
		memset(p + BTH_LEN + len, 0, ICRC_LEN);
	} else {
		p = frame_start(h, m, to->ip, f->dscp << 2 | 2, next_entropy(f, q), UET_PORT,
				UET_HDR_LEN + len);
		p[0] = UET_DATA;
		/* An ACK request when it cannot send a new packet until ACKed: the receiver
		 * coalesces ACKs. */
		p[1] = (uint8_t)((last ? UET_LAST : 0) |
				 (retx || !uet_window_open(q) ? UET_AR : 0));
		p[2] = p[3] = 0;
		put32(p + 4, psn);
		put32(p + 8, q->qpn);
		put32(p + 12, len);
		rsw_uet_tx_sent(&q->utx, psn, now_ns(now));
	}
	f->tx_pkts++;
	f->tx_bytes += len;
	if (retx) {
		f->retx_pkts++;
		f->retx_bytes += len;
	}
	if (f->dcqcn)
		rsw_dcqcn_rp_sent(&q->rp, &g.dp[f->src], m->pkt_len);
	*wire = m->pkt_len + 24;
	return m;
}

/* ---- receive ------------------------------------------------------------ */

static struct qp *
qp_of(uint32_t qpn)
{
	if (qpn == 0 || qpn > (uint32_t)g.nqps)
		return NULL;
	return &g.qps[qpn - 1];
}

static void
deliver(struct qp *q, uint32_t len, uint64_t tsc)
{
	struct flow *f = q->flow;
	int i;

	q->delivered += len;
	q->delivered_pkts++;
	f->bins[bin_of(tsc)] += len;
	f->last_rx_tsc = tsc;
	if (q->total != RSW_PSN_UNBOUNDED && q->delivered_pkts == q->total)
		q->rx_done = 1;
	if (f->bytes == 0 || f->done_tsc != 0)
		return;
	for (i = 0; i < f->nqp; i++)
		if (!f->qps[i]->rx_done)
			return;
	f->done_tsc = tsc;
	/* Flows that wait for this one (a collective's next step) start now, not before
	 * their own start_s. */
	for (i = 0; i < g.nflows; i++) {
		struct flow *d = &g.flows[i];
		int k, hit = 0;

		for (k = 0; k < d->nafter; k++)
			hit += d->after[k] == (int)(f - g.flows); /* listed twice: counted twice */
		d->after_left -= hit;
		if (hit && d->after_left == 0) {
			uint64_t at = g.t0 + (uint64_t)(d->start_s * (double)g.hz);

			d->start_tsc = at > tsc ? at : tsc;
			d->stop_tsc =
				d->start_tsc + (uint64_t)((d->stop_s - d->start_s) * (double)g.hz);
		}
	}
}

static void
rx_pfc(struct host *h, const uint8_t *p, uint16_t len, uint64_t tsc)
{
	uint16_t op, cev, quanta;
	int i;

	if (len < RTE_ETHER_HDR_LEN + 20)
		return;
	op = (uint16_t)(p[14] << 8 | p[15]);
	if (op == 0x0001) { /* 802.3x PAUSE: every priority */
		h->rx_pause++;
		cev = 0xff;
		quanta = (uint16_t)(p[16] << 8 | p[17]);
	} else if (op == 0x0101) { /* 802.1Qbb PFC */
		h->rx_pfc++;
		cev = (uint16_t)(p[16] << 8 | p[17]);
		quanta = 0;
	} else {
		h->rx_other++;
		return;
	}
	for (i = 0; i < 8; i++) {
		uint64_t until;

		if (!(cev & (1 << i)))
			continue;
		if (op == 0x0101)
			quanta = (uint16_t)(p[18 + 2 * i] << 8 | p[19 + 2 * i]);
		/* 1 quantum = 512 bit times at the link speed (802.1Qbb). */
		until = tsc + (uint64_t)((double)quanta * 512 / h->speed_bps * (double)g.hz);
		if (quanta == 0) {
			if (h->paused_until[i] > tsc)
				h->paused_tsc[i] -= h->paused_until[i] - tsc;
			h->paused_until[i] = tsc;
		} else if (until > h->paused_until[i]) {
			h->paused_tsc[i] += until - RTE_MAX(tsc, h->paused_until[i]);
			h->paused_until[i] = until;
		}
	}
}

static void
rx_roce(struct host *h, const uint8_t *ip, const uint8_t *b, uint16_t l4len, uint64_t tsc)
{
	uint8_t op = b[0];
	struct qp *q = qp_of(get24(b + 5));
	uint32_t psn = get24(b + 9), ack;
	uint64_t ns = now_ns(tsc);
	struct flow *f;
	int fl;

	if (q == NULL || l4len < BTH_LEN) {
		h->rx_other++;
		return;
	}
	f = q->flow;
	if (op == OP_CNP) {
		h->rx_ctrl++;
		f->cnps++;
		if (f->dcqcn)
			rsw_dcqcn_rp_cnp(&q->rp, &g.dp[f->src], ns);
		return;
	}
	if (op == OP_ACK) {
		h->rx_ctrl++;
		if (l4len < BTH_LEN + 4)
			return;
		if ((b[12] & 0xe0) == AETH_NAK_SEQ) {
			f->nacks_rx++;
			rsw_gbn_tx_nak(&q->gtx, psn, ns);
		} else {
			rsw_gbn_tx_ack(&q->gtx, psn, ns);
		}
		return;
	}
	h->rx_data++;
	if ((ip[1] & 3) == 3 && rsw_dcqcn_np_ce(&q->np, &g.dp[f->dst], ns))
		send_cnp(h, q);
	fl = rsw_gbn_rx_data(&q->grx, psn, g.ack_every, op == OP_SEND_LAST, &ack);
	if (fl & RSW_RX_DELIVER)
		deliver(q, pkt_bytes(q, psn), tsc);
	if (fl & RSW_RX_ACK)
		send_roce_ack(h, q, 0, ack);
	if (fl & RSW_RX_NAK)
		send_roce_ack(h, q, AETH_NAK_SEQ, ack);
}

/* The sender's side of an ACK's congestion feedback: the NSCC-like window and REPS. */
static void
uet_feedback(struct qp *q, const uint8_t *b, uint64_t tsc)
{
	struct flow *f = q->flow;
	uint32_t cnt = get32(b + 24), trig = get32(b + 28), ent = get32(b + 32);
	uint64_t delay = 0, sent;

	if (trig >= q->utx.una && trig < q->utx.nxt) {
		sent = q->utx.sent_ns[trig & (q->utx.window - 1)];
		if (now_ns(tsc) > sent)
			delay = now_ns(tsc) - sent;
	} else if (trig < q->utx.una && q->utx.una - trig <= q->utx.window) {
		/* Acknowledged by this very ACK: its slot still holds its send time. */
		sent = q->utx.sent_ns[trig & (q->utx.window - 1)];
		if (now_ns(tsc) > sent)
			delay = now_ns(tsc) - sent;
	}
	if (f->cc)
		rsw_nscc_feedback(&q->cc, &g.nscc, cnt >> 16, cnt & 0xffff, 0, delay);
	if (f->spray)
		rsw_reps_feedback(&f->reps, (uint16_t)(ent >> 16), ent & 1);
}

static void
rx_uet(struct host *h, const uint8_t *ip, const uint8_t *b, uint16_t l4len, uint64_t tsc)
{
	uint16_t udp_sport;
	struct qp *q;
	uint32_t psn, len;
	int fl, trimmed;
	uint8_t dscp = ip[1] >> 2;

	memcpy(&udp_sport, b - 8, 2); /* network order */
	if (l4len >= 12 && (b[0] == UET_PING || b[0] == UET_PONG)) {
		rx_ping(h, ip, b, tsc);
		return;
	}
	if (l4len < UET_HDR_LEN || (q = qp_of(get32(b + 8))) == NULL) {
		h->rx_other++;
		return;
	}
	psn = get32(b + 4);
	if (b[0] == UET_ACK) {
		h->rx_ctrl++;
		if (l4len >= 24)
			rsw_uet_tx_ack(&q->utx, psn, (uint64_t)get32(b + 16) << 32 | get32(b + 20));
		if (l4len >= UET_ACK_LEN)
			uet_feedback(q, b, tsc);
		return;
	}
	if (b[0] == UET_NACK) {
		h->rx_ctrl++;
		q->flow->nacks_rx++;
		rsw_uet_tx_nack(&q->utx, psn);
		if (q->flow->cc)
			rsw_nscc_feedback(&q->cc, &g.nscc, 0, 0, 1, 0);
		return;
	}
	h->rx_data++;
	len = get32(b + 12);
	/* A trimmed packet: its payload is gone (and its DSCP says so). */
	trimmed = l4len < UET_HDR_LEN + len || dscp == g.trim_dscp[0] || dscp == g.trim_dscp[1];
	if (trimmed) {
		h->rx_trimmed++;
		q->flow->trimmed_rx++;
	}
	fl = rsw_uet_rx_data(&q->urx, psn, trimmed, g.ack_every, b[1] & (UET_LAST | UET_AR));
	if (fl & RSW_RX_DELIVER) {
		q->ack_cnt++;
		q->ack_ce += (ip[1] & 3) == 3;
		q->last_psn = psn;
		q->last_ce = (ip[1] & 3) == 3;
		q->last_entropy = rte_be_to_cpu_16(udp_sport);
		deliver(q, len, tsc);
	}
	if (fl & RSW_RX_NAK)
		send_uet_nack(h, q, psn, dscp == g.trim_dscp[1] ? 0x02 : 0x01);
	if (fl & RSW_RX_ACK)
		send_uet_ack(h, q);
	else if ((fl & RSW_RX_DELIVER) && q->ack_due_tsc == 0)
		q->ack_due_tsc = tsc + g.ack_delay_tsc;
}

void
rx_frame(struct host *h, struct rte_mbuf *m, uint64_t tsc)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t len = m->data_len, et, dport, l4len;
	const uint8_t *ip, *udp;
	unsigned int ihl;

	h->rx_pkts++;
	h->rx_bytes += m->pkt_len;
	if (len < RTE_ETHER_HDR_LEN)
		goto other;
	et = (uint16_t)(p[12] << 8 | p[13]);
	if (et == 0x8808 /* MAC Control */) {
		rx_pfc(h, p, len, tsc);
		return;
	}
	if (et != RTE_ETHER_TYPE_IPV4 || len < HDRS)
		goto other;
	ip = p + RTE_ETHER_HDR_LEN;
	ihl = (ip[0] & 0xf) * 4u;
	if (ip[9] != IPPROTO_UDP || len < RTE_ETHER_HDR_LEN + ihl + 8)
		goto other;
	udp = ip + ihl;
	dport = (uint16_t)(udp[2] << 8 | udp[3]);
	l4len = (uint16_t)(len - RTE_ETHER_HDR_LEN - ihl - 8);
	if (dport == ROCE_PORT)
		rx_roce(h, ip, udp + 8, l4len, tsc);
	else if (dport == UET_PORT)
		rx_uet(h, ip, udp + 8, l4len, tsc);
	else
		goto other;
	return;
other:
	h->rx_other++;
}
