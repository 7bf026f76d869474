/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * rswhost: one DPDK process that plays many lab hosts, each on its own port toward a
 * railsw (memif recommended; any vdev string works). The hosts behave like RDMA NICs:
 * RoCEv2 RC with go-back-N and DCQCN (reaction and notification points), or a UET-like
 * transport that sprays entropy per packet, tolerates reordering and NACKs trimmed
 * packets at once for a selective retransmission. Every host honours PFC and 802.3x
 * PAUSE per priority. Sending is paced by the TSC at the host's link speed and, under
 * DCQCN, at each QP's current rate. One lcore runs every host in a loop that sleeps
 * when idle, so a lab of switches and hosts fits on two cores.
 *
 *   rswhost [EAL args] -- --config FILE.json --out STATS.json
 *
 * The configuration names the hosts (port devargs, MAC, IP, gateway MAC, speed), the
 * flows (src, dst, transport, bytes or a time window, QPs, entropy per flow or per
 * packet) and the DCQCN parameters; perf/experiments/ writes it. On exit the process
 * writes per-flow and per-host statistics as JSON (docs/experiments.md).
 */

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_bus_vdev.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rsw_dcqcn.h"
#include "rsw_reliab.h"

#define MAX_HOSTS   32
#define MAX_FLOWS   256
#define MAX_QPS     1024
#define BURST       32
#define TXBUF       256
#define ROCE_PORT   4791
#define UET_PORT    4793
#define BTH_LEN     12
#define ICRC_LEN    4
#define UET_HDR_LEN 16
#define HDRS        (RTE_ETHER_HDR_LEN + 20 + 8) /* Ethernet, IPv4, UDP */

enum transport {
	T_ROCE,
	T_UET,
};

/* UET-like PDS header types (uet-ref-prov uet_pkt_hdr.h uses 0x0A for a NACK). */
#define UET_DATA 0x02
#define UET_ACK  0x09
#define UET_NACK 0x0A
#define UET_LAST 0x01 /* flags: last packet of the message */

/* BTH opcodes (IBTA): RC SEND middle/last, ACKNOWLEDGE; CNP. */
#define OP_SEND_MIDDLE 0x01
#define OP_SEND_LAST   0x02
#define OP_ACK         0x11
#define OP_CNP         0x81
#define AETH_NAK_SEQ   0x60

struct flow;

struct qp {
	struct flow *flow;       /* owner */
	uint32_t qpn;            /* our QPN (both ends use it: one process) */
	uint16_t sport;          /* UDP source port of a per-flow entropy */
	uint32_t total;          /* packets, or RSW_PSN_UNBOUNDED */
	uint64_t bytes;          /* message bytes of this QP */
	uint64_t next_tsc;       /* DCQCN pacing: earliest next send */
	struct rsw_gbn_tx gtx;   /* RoCE sender */
	struct rsw_gbn_rx grx;   /* RoCE receiver */
	struct rsw_uet_tx utx;   /* UET sender */
	struct rsw_uet_rx urx;   /* UET receiver */
	struct rsw_dcqcn_rp rp;  /* reaction point (sender) */
	struct rsw_dcqcn_np np;  /* notification point (receiver) */
	uint64_t delivered;      /* payload bytes accepted by the receiver */
	uint32_t delivered_pkts; /* packets accepted */
	int rx_done;             /* receiver holds the whole message */
	uint8_t *ustate;         /* UET arrays (window entries) */
	uint64_t *usent;
	uint32_t *urq;
	uint8_t *ugot;
};

struct flow {
	int id;
	char role[16];
	int src, dst; /* host indexes */
	enum transport tr;
	uint64_t bytes;         /* 0 = time-bound */
	double start_s, stop_s; /* window of a time-bound flow; start of a finite one */
	int after;              /* index of the flow whose delivery starts this one, or -1 */
	int nqp;
	struct qp *qps[16];
	int spray;           /* UET entropy per packet */
	int dcqcn;           /* DCQCN reaction on */
	uint8_t dscp;        /* data DSCP */
	uint8_t prio;        /* PFC priority of the data */
	uint16_t sport_base; /* entropy base */
	uint64_t start_tsc, stop_tsc;
	uint64_t done_tsc;    /* all delivered (finite) */
	uint64_t last_rx_tsc; /* last delivery */
	uint64_t tx_pkts, tx_bytes, retx_pkts, retx_bytes;
	uint64_t cnps;        /* CNPs received by the sender */
	uint64_t trimmed_rx;  /* trimmed arrivals (UET) */
	uint64_t nacks_rx;    /* NAKs/NACKs received by the sender */
	uint64_t *bins;       /* delivered bytes per bin */
	double *rate_bins;    /* sender's summed current rate per bin */
	uint32_t spray_state; /* xorshift for per-packet entropy */
};

struct host {
	char name[32];
	uint16_t port;
	struct rte_ether_addr mac, gw;
	uint32_t ip; /* network order */
	double speed_bps;
	double tsc_per_byte;      /* wire time */
	uint64_t link_next;       /* earliest next transmission */
	uint64_t paused_until[8]; /* PFC per priority (802.3x sets all) */
	uint64_t paused_tsc[8];   /* time paused, per priority */
	int nsend;                /* QPs this host sends on */
	struct qp *send[MAX_QPS];
	int rr;
	struct rte_mbuf *txb[TXBUF];
	int ntx;
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	uint64_t tx_data, tx_ctrl, rx_data, rx_ctrl;
	uint64_t rx_pfc, rx_pause, rx_other, rx_trimmed;
	uint64_t tx_full; /* times the port took fewer frames than offered */
};

static struct {
	struct host hosts[MAX_HOSTS];
	int nhosts;
	struct flow flows[MAX_FLOWS];
	int nflows;
	struct qp qps[MAX_QPS];
	int nqps;
	struct rte_mempool *pool;
	uint64_t hz;
	double ns_per_tsc;
	uint64_t t0;       /* start of the run */
	double duration_s; /* time-bound flows' latest stop; a run ends after it */
	double max_s;      /* hard limit */
	double drain_s;    /* after the last flow: wait for outstanding packets */
	uint32_t payload;  /* message bytes per packet */
	uint32_t window;   /* packets outstanding per QP (power of two) */
	uint32_t ack_every;
	double rto_s;
	double idle_us;
	double settle_ms; /* after every link is up, before the clock starts */
	double bin_s;
	int nbins;
	double time_scale;
	uint8_t ctrl_dscp, cnp_dscp;
	uint8_t trim_dscp[2];
	struct rsw_dcqcn_params dp[MAX_HOSTS]; /* per host: its link speed */
	json_t *dcqcn_over;                    /* overrides from the config */
} g;

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t
now_ns(uint64_t tsc)
{
	return (uint64_t)((double)(tsc - g.t0) * g.ns_per_tsc);
}

static int
bin_of(uint64_t tsc)
{
	int b;

	if (tsc < g.t0)
		return 0;
	b = (int)((double)(tsc - g.t0) / (double)g.hz / g.bin_s);
	return b < g.nbins ? b : g.nbins - 1;
}

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

static void
tx_enqueue(struct host *h, struct rte_mbuf *m, int ctrl)
{
	h->txb[h->ntx++] = m;
	if (ctrl)
		h->tx_ctrl++;
	else
		h->tx_data++;
}

static void
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
	/* PROTOCOLS.md B2: BTH 0x81, BECN, 16 reserved bytes, ICRC; DSCP 48 Not-ECT. */
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
	p = frame_start(h, m, to->ip, g.ctrl_dscp << 2, q->sport, UET_PORT, 24);
	p[0] = UET_ACK;
	p[1] = 0;
	p[2] = p[3] = 0;
	put32(p + 4, cum);
	put32(p + 8, q->qpn);
	put32(p + 12, 0);
	put32(p + 16, (uint32_t)(sack >> 32));
	put32(p + 20, (uint32_t)sack);
	tx_enqueue(h, m, 1);
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
	uint32_t x = f->spray_state;

	if (!f->spray)
		return q->sport;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	f->spray_state = x;
	return f->sport_base + (x & 255); /* a pool of 256 entropies (htsim's default) */
}

/* Build the next data packet of @p q, if it has one. */
static struct rte_mbuf *
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
		p[1] = last ? UET_LAST : 0;
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

		if (d->after == (int)(f - g.flows)) {
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

static void
rx_uet(struct host *h, const uint8_t *ip, const uint8_t *b, uint16_t l4len, uint64_t tsc)
{
	struct qp *q;
	uint32_t psn, len;
	int fl, trimmed;
	uint8_t dscp = ip[1] >> 2;

	if (l4len < UET_HDR_LEN || (q = qp_of(get32(b + 8))) == NULL) {
		h->rx_other++;
		return;
	}
	psn = get32(b + 4);
	if (b[0] == UET_ACK) {
		h->rx_ctrl++;
		if (l4len >= 24)
			rsw_uet_tx_ack(&q->utx, psn, (uint64_t)get32(b + 16) << 32 | get32(b + 20));
		return;
	}
	if (b[0] == UET_NACK) {
		h->rx_ctrl++;
		q->flow->nacks_rx++;
		rsw_uet_tx_nack(&q->utx, psn);
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
	fl = rsw_uet_rx_data(&q->urx, psn, trimmed, g.ack_every, b[1] & UET_LAST);
	if (fl & RSW_RX_DELIVER)
		deliver(q, len, tsc);
	if (fl & RSW_RX_NAK)
		send_uet_nack(h, q, psn, dscp == g.trim_dscp[1] ? 0x02 : 0x01);
	if (fl & RSW_RX_ACK)
		send_uet_ack(h, q);
}

static void
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

/* ---- the loop ----------------------------------------------------------- */

static int
qp_sendable(const struct qp *q)
{
	const struct flow *f = q->flow;

	if (f->tr == T_ROCE) {
		if (q->gtx.total != RSW_PSN_UNBOUNDED && q->gtx.nxt >= q->gtx.total)
			return 0;
		return q->gtx.nxt - q->gtx.una < q->gtx.window;
	}
	if (q->utx.rq_head != q->utx.rq_tail)
		return 1;
	if (q->utx.total != RSW_PSN_UNBOUNDED && q->utx.nxt >= q->utx.total)
		return 0;
	return q->utx.nxt - q->utx.una < q->utx.window;
}

/* Send what host @p h may send at @p now. @return packets built. */
static int
host_tx(struct host *h, uint64_t now)
{
	uint64_t slack = (uint64_t)(4 * 1100 * h->tsc_per_byte);
	int sent = 0, tried;

	if (h->link_next + slack < now)
		h->link_next = now - slack; /* an idle link saves up no more than 4 packets */
	while (h->link_next <= now && h->ntx < TXBUF && sent < BURST) {
		struct rte_mbuf *m = NULL;
		struct qp *q = NULL;
		uint32_t wire = 0;

		for (tried = 0; tried < h->nsend; tried++) {
			struct flow *f;

			q = h->send[h->rr];
			h->rr = (h->rr + 1) % h->nsend;
			f = q->flow;
			if (now < f->start_tsc || h->paused_until[f->prio] > now)
				continue;
			if (f->bytes == 0 && now >= f->stop_tsc) {
				/* A time-bound flow sends no new data after its window. */
				if (f->tr == T_ROCE)
					q->gtx.total = q->gtx.max;
				else
					q->utx.total = q->utx.nxt;
				q->total = f->tr == T_ROCE ? q->gtx.total : q->utx.total;
			}
			if (q->next_tsc > now || !qp_sendable(q))
				continue;
			m = data_packet(h, q, now, &wire);
			if (m != NULL)
				break;
		}
		if (m == NULL)
			break;
		tx_enqueue(h, m, 0);
		h->link_next += (uint64_t)(wire * h->tsc_per_byte);
		if (q->flow->dcqcn && q->rp.rc < h->speed_bps) {
			uint64_t base = q->next_tsc + slack < now ? now - slack : q->next_tsc;

			q->next_tsc = base + (uint64_t)(wire * 8.0 / q->rp.rc * (double)g.hz);
		}
		sent++;
	}
	return sent;
}

static void
timers(uint64_t tsc)
{
	uint64_t ns = now_ns(tsc), rto = (uint64_t)(g.rto_s * 1e9);
	int i, b = bin_of(tsc);

	for (i = 0; i < g.nqps; i++) {
		struct qp *q = &g.qps[i];
		struct flow *f = q->flow;

		if (tsc < f->start_tsc)
			continue;
		if (f->dcqcn)
			rsw_dcqcn_rp_tick(&q->rp, &g.dp[f->src], ns);
		if (f->tr == T_ROCE)
			rsw_gbn_tx_timeout(&q->gtx, ns, rto);
		else
			rsw_uet_tx_timeout(&q->utx, ns, rto, 64);
	}
	for (i = 0; i < g.nflows; i++) {
		struct flow *f = &g.flows[i];
		double r = 0;
		int k;

		for (k = 0; k < f->nqp; k++)
			r += f->dcqcn ? f->qps[k]->rp.rc : g.hosts[f->src].speed_bps;
		f->rate_bins[b] = r;
	}
}

static int
outstanding(void)
{
	int i, n = 0;

	for (i = 0; i < g.nqps; i++) {
		struct qp *q = &g.qps[i];

		if (q->flow->tr == T_ROCE)
			n += q->gtx.una < q->gtx.max;
		else
			n += q->utx.una < q->utx.nxt;
	}
	return n;
}

static int
finite_done(void)
{
	int i;

	for (i = 0; i < g.nflows; i++)
		if (g.flows[i].bytes != 0 && g.flows[i].done_tsc == 0)
			return 0;
	return 1;
}

static void
run(void)
{
	uint64_t last_timer = 0, end_tsc = 0, quiet_tsc = 0;
	uint64_t timer_tsc = g.hz / 10000; /* 100 µs */
	uint64_t hard = g.t0 + (uint64_t)(g.max_s * (double)g.hz);
	uint64_t dur = g.t0 + (uint64_t)(g.duration_s * (double)g.hz);
	struct timespec idle = {0, (long)(g.idle_us * 1000)};

	while (!stop) {
		uint64_t now = rte_rdtsc();
		int busy = 0, i;

		for (i = 0; i < g.nhosts; i++) {
			struct host *h = &g.hosts[i];
			struct rte_mbuf *rx[BURST];
			uint16_t n = rte_eth_rx_burst(h->port, 0, rx, BURST), k;

			for (k = 0; k < n; k++)
				rx_frame(h, rx[k], now);
			if (n)
				rte_pktmbuf_free_bulk(rx, n);
			busy += n;
			if (end_tsc == 0)
				busy += host_tx(h, now);
			else
				host_tx(h, now); /* retransmissions while draining */
			tx_flush(h);
		}
		if (now - last_timer >= timer_tsc) {
			timers(now);
			last_timer = now;
		}
		if (now > hard)
			break;
		if (end_tsc == 0 && now >= dur && finite_done())
			end_tsc = now;
		if (end_tsc != 0) {
			/* Drain: wait for every outstanding packet's ACK, then 200 ms of quiet. */
			if (outstanding() == 0) {
				if (quiet_tsc == 0)
					quiet_tsc = now;
				if (now - quiet_tsc > g.hz / 5)
					break;
			} else {
				quiet_tsc = 0;
			}
			if (now - end_tsc > (uint64_t)(g.drain_s * (double)g.hz))
				break;
		}
		if (!busy)
			nanosleep(&idle, NULL);
	}
}

/* ---- configuration and output -------------------------------------------- */

static int
parse_mac(const char *s, struct rte_ether_addr *a)
{
	return rte_ether_unformat_addr(s, a);
}

static double
jnum(json_t *o, const char *k, double def)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : def;
}

static const char *
jstr(json_t *o, const char *k, const char *def)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : def;
}

static int
host_index(const char *name)
{
	int i;

	for (i = 0; i < g.nhosts; i++)
		if (strcmp(g.hosts[i].name, name) == 0)
			return i;
	return -1;
}

static void
dcqcn_params(struct rsw_dcqcn_params *p, double line)
{
	json_t *o = g.dcqcn_over;

	rsw_dcqcn_params_default(p, line, g.time_scale);
	if (o == NULL)
		return;
	p->g = jnum(o, "g", p->g);
	p->cnp_interval_ns = (uint64_t)jnum(o, "cnp_interval_us", p->cnp_interval_ns / 1e3) * 1000;
	p->alpha_ns = (uint64_t)jnum(o, "alpha_us", p->alpha_ns / 1e3) * 1000;
	p->timer_ns = (uint64_t)jnum(o, "timer_us", p->timer_ns / 1e3) * 1000;
	p->byte_counter = (uint64_t)jnum(o, "byte_counter", (double)p->byte_counter);
	p->f = (unsigned int)jnum(o, "f", p->f);
	p->rai_bps = jnum(o, "rai_bps", p->rai_bps);
	p->rhai_bps = jnum(o, "rhai_bps", p->rhai_bps);
	p->min_bps = jnum(o, "min_bps", p->min_bps);
}

static int
load_config(const char *path)
{
	json_error_t err;
	json_t *c = json_load_file(path, 0, &err), *a, *v;
	size_t i;
	int k;

	if (c == NULL) {
		fprintf(stderr, "rswhost: %s:%d: %s\n", path, err.line, err.text);
		return -1;
	}
	g.duration_s = jnum(c, "duration_s", 5);
	g.max_s = jnum(c, "max_s", g.duration_s + 30);
	g.drain_s = jnum(c, "drain_s", 3);
	g.payload = (uint32_t)jnum(c, "payload", 1024);
	g.window = (uint32_t)jnum(c, "window", 64);
	g.ack_every = (uint32_t)jnum(c, "ack_every", 4);
	g.rto_s = jnum(c, "rto_ms", 20) / 1e3;
	g.idle_us = jnum(c, "idle_us", 20);
	g.settle_ms = jnum(c, "settle_ms", 150);
	g.bin_s = jnum(c, "bin_ms", 10) / 1e3;
	g.time_scale = jnum(c, "dcqcn_time_scale", 20);
	g.ctrl_dscp = (uint8_t)jnum(c, "ctrl_dscp", 46);
	g.cnp_dscp = (uint8_t)jnum(c, "cnp_dscp", 48);
	g.trim_dscp[0] = (uint8_t)jnum(c, "trim_dscp", 11);
	g.trim_dscp[1] = (uint8_t)jnum(c, "trim_dscp_lasthop", 21);
	g.dcqcn_over = json_object_get(c, "dcqcn");
	if ((g.window & (g.window - 1)) != 0 || g.window < 64 || g.window > 4096) {
		fprintf(stderr, "rswhost: window must be a power of two in 64..4096\n");
		return -1;
	}
	if (g.payload < 64 || g.payload > 1400) {
		fprintf(stderr, "rswhost: payload must be 64..1400 bytes\n");
		return -1;
	}
	g.nbins = (int)(g.max_s / g.bin_s) + 2;

	a = json_object_get(c, "hosts");
	json_array_foreach(a, i, v)
	{
		struct host *h;
		struct in_addr ip;
		int ret;

		if (g.nhosts >= MAX_HOSTS) {
			fprintf(stderr, "rswhost: more than %d hosts\n", MAX_HOSTS);
			return -1;
		}
		h = &g.hosts[g.nhosts];
		snprintf(h->name, sizeof(h->name), "%s", jstr(v, "name", "?"));
		if (parse_mac(jstr(v, "mac", ""), &h->mac) < 0 ||
		    parse_mac(jstr(v, "gw_mac", ""), &h->gw) < 0 ||
		    inet_pton(AF_INET, jstr(v, "ip", ""), &ip) != 1) {
			fprintf(stderr, "rswhost: host %s: bad mac, gw_mac or ip\n", h->name);
			return -1;
		}
		h->ip = ip.s_addr;
		h->speed_bps = jnum(v, "speed_bps", 100e6);
		h->tsc_per_byte = 8.0 / h->speed_bps * (double)g.hz;
		ret = rte_dev_probe(jstr(v, "devargs", ""));
		if (ret < 0) {
			fprintf(stderr, "rswhost: host %s: cannot probe %s: %s\n", h->name,
				jstr(v, "devargs", ""), strerror(-ret));
			return -1;
		}
		{
			char name[64];
			const char *d = jstr(v, "devargs", "");
			size_t l = strcspn(d, ",");

			snprintf(name, sizeof(name), "%.*s", (int)l, d);
			if (rte_eth_dev_get_port_by_name(name, &h->port) != 0) {
				fprintf(stderr, "rswhost: no port %s\n", name);
				return -1;
			}
		}
		dcqcn_params(&g.dp[g.nhosts], h->speed_bps);
		g.nhosts++;
	}

	a = json_object_get(c, "flows");
	json_array_foreach(a, i, v)
	{
		struct flow *f;
		const char *tr;

		if (g.nflows >= MAX_FLOWS) {
			fprintf(stderr, "rswhost: more than %d flows\n", MAX_FLOWS);
			return -1;
		}
		f = &g.flows[g.nflows];
		f->id = (int)jnum(v, "id", g.nflows);
		snprintf(f->role, sizeof(f->role), "%s", jstr(v, "role", "background"));
		f->src = host_index(jstr(v, "src", ""));
		f->dst = host_index(jstr(v, "dst", ""));
		tr = jstr(v, "transport", "roce");
		f->tr = strcmp(tr, "uet") == 0 ? T_UET : T_ROCE;
		f->bytes = (uint64_t)jnum(v, "bytes", 0);
		f->start_s = jnum(v, "start_s", 0);
		f->after = (int)jnum(v, "after", -1); /* a flow id, resolved below */
		f->stop_s = jnum(v, "stop_s", g.duration_s);
		f->nqp = (int)jnum(v, "qps", 1);
		f->spray = strcmp(jstr(v, "entropy", "flow"), "packet") == 0;
		f->dcqcn = json_is_true(json_object_get(v, "dcqcn"));
		f->dscp = (uint8_t)jnum(v, "dscp", 26);
		f->prio = (uint8_t)jnum(v, "prio", 3) & 7;
		f->sport_base = (uint16_t)jnum(v, "sport", 49152 + 16 * g.nflows);
		f->spray_state = (uint32_t)jnum(v, "seed", 1 + g.nflows) | 1;
		if (f->src < 0 || f->dst < 0 || f->src == f->dst || f->nqp < 1 || f->nqp > 16 ||
		    (strcmp(tr, "roce") != 0 && f->tr != T_UET)) {
			fprintf(stderr,
				"rswhost: flow %d: bad src, dst, qps (1..16) or transport\n",
				f->id);
			return -1;
		}
		f->bins = calloc(g.nbins, sizeof(*f->bins));
		f->rate_bins = calloc(g.nbins, sizeof(*f->rate_bins));
		if (f->bins == NULL || f->rate_bins == NULL)
			return -ENOMEM;
		for (k = 0; k < f->nqp; k++) {
			struct qp *q;
			uint64_t share = f->bytes / f->nqp + (k < (int)(f->bytes % f->nqp));
			struct host *h = &g.hosts[f->src];

			if (g.nqps >= MAX_QPS || h->nsend >= MAX_QPS)
				return -ENOSPC;
			q = &g.qps[g.nqps];
			q->flow = f;
			q->qpn = (uint32_t)++g.nqps;
			q->sport = (uint16_t)(f->sport_base + k * 37);
			q->bytes = share;
			q->total = f->bytes ? (uint32_t)((share + g.payload - 1) / g.payload)
					    : RSW_PSN_UNBOUNDED;
			if (f->bytes && q->total == 0)
				q->rx_done = 1;
			rsw_gbn_tx_init(&q->gtx, q->total, g.window);
			rsw_gbn_rx_init(&q->grx);
			q->ustate = calloc(g.window, 1);
			q->usent = calloc(g.window, sizeof(uint64_t));
			q->urq = calloc(g.window, sizeof(uint32_t));
			q->ugot = calloc(g.window, 1);
			if (!q->ustate || !q->usent || !q->urq || !q->ugot)
				return -ENOMEM;
			rsw_uet_tx_init(&q->utx, q->total, g.window, q->ustate, q->usent, q->urq);
			rsw_uet_rx_init(&q->urx, g.window, q->ugot);
			rsw_dcqcn_rp_init(&q->rp, &g.dp[f->src]);
			f->qps[k] = q;
			h->send[h->nsend++] = q;
		}
		g.nflows++;
	}
	for (int fi = 0; fi < g.nflows; fi++) {
		struct flow *f = &g.flows[fi];
		int w;

		if (f->after < 0)
			continue;
		for (w = 0; w < g.nflows && g.flows[w].id != f->after; w++)
			;
		if (w == g.nflows || w == fi || g.flows[w].bytes == 0) {
			fprintf(stderr,
				"rswhost: flow %d: after %d is no finite flow of this run\n", f->id,
				f->after);
			return -1;
		}
		f->after = w;
	}
	return 0;
}

static double
secs(uint64_t tsc)
{
	return (double)tsc / (double)g.hz;
}

static int
write_stats(const char *path, double cpu_s, double wall_s)
{
	json_t *o = json_object(), *flows = json_array(), *hosts = json_array(), *dc = json_array();
	int i, k, b, last_bin = 0;

	for (i = 0; i < g.nflows; i++)
		for (b = 0; b < g.nbins; b++)
			if (g.flows[i].bins[b])
				last_bin = RTE_MAX(last_bin, b);
	for (i = 0; i < g.nflows; i++) {
		struct flow *f = &g.flows[i];
		json_t *j = json_object(), *bins = json_array(), *rates = json_array();
		uint64_t delivered = 0, ooo = 0, dup = 0, to = 0;
		double active, fct = -1;

		for (k = 0; k < f->nqp; k++) {
			struct qp *q = f->qps[k];

			delivered += q->delivered;
			if (f->tr == T_ROCE) {
				ooo += q->grx.out_of_order;
				dup += q->grx.duplicates;
				to += q->gtx.timeouts;
			} else {
				ooo += q->urx.out_of_order;
				dup += q->urx.duplicates;
				to += q->utx.timeouts;
			}
		}
		if (f->bytes && f->done_tsc)
			fct = secs(f->done_tsc - f->start_tsc);
		else if (!f->bytes && f->last_rx_tsc)
			fct = secs(f->last_rx_tsc - f->start_tsc);
		active = f->bytes ? (fct > 0 ? fct : secs(rte_rdtsc() - f->start_tsc))
				  : f->stop_s - f->start_s;
		json_object_set_new(j, "id", json_integer(f->id));
		json_object_set_new(j, "role", json_string(f->role));
		json_object_set_new(j, "src", json_string(g.hosts[f->src].name));
		json_object_set_new(j, "dst", json_string(g.hosts[f->dst].name));
		json_object_set_new(j, "transport", json_string(f->tr == T_ROCE ? "roce" : "uet"));
		json_object_set_new(j, "qps", json_integer(f->nqp));
		json_object_set_new(j, "entropy", json_string(f->spray ? "packet" : "flow"));
		json_object_set_new(j, "dcqcn", json_boolean(f->dcqcn));
		json_object_set_new(j, "bytes",
				    json_integer((json_int_t)(f->bytes ? f->bytes : delivered)));
		json_object_set_new(j, "delivered_bytes", json_integer((json_int_t)delivered));
		json_object_set_new(j, "goodput_bps",
				    json_real(active > 0 ? delivered * 8.0 / active : 0));
		json_object_set_new(j, "fct_s", fct >= 0 ? json_real(fct) : json_null());
		json_object_set_new(j, "complete", json_boolean(f->bytes == 0 || f->done_tsc));
		json_object_set_new(j, "start_s", json_real(f->start_s));
		/* When it started: start_s, or its predecessor's delivery (null: never). */
		json_object_set_new(j, "started_s",
				    f->start_tsc == UINT64_MAX
					    ? json_null()
					    : json_real(secs(f->start_tsc - g.t0)));
		json_object_set_new(j, "tx_packets", json_integer((json_int_t)f->tx_pkts));
		json_object_set_new(j, "retransmits", json_integer((json_int_t)f->retx_pkts));
		json_object_set_new(j, "retransmit_bytes", json_integer((json_int_t)f->retx_bytes));
		json_object_set_new(j, "out_of_order", json_integer((json_int_t)ooo));
		json_object_set_new(j, "duplicates", json_integer((json_int_t)dup));
		json_object_set_new(j, "timeouts", json_integer((json_int_t)to));
		json_object_set_new(j, "cnps", json_integer((json_int_t)f->cnps));
		json_object_set_new(j, "nacks", json_integer((json_int_t)f->nacks_rx));
		json_object_set_new(j, "trimmed", json_integer((json_int_t)f->trimmed_rx));
		json_object_set_new(j, "pause_s",
				    json_real(secs(g.hosts[f->src].paused_tsc[f->prio])));
		for (b = 0; b <= last_bin; b++) {
			json_array_append_new(bins, json_integer((json_int_t)f->bins[b]));
			json_array_append_new(rates, json_real(f->rate_bins[b]));
		}
		json_object_set_new(j, "delivered_per_bin", bins);
		json_object_set_new(j, "rate_per_bin_bps", rates);
		json_array_append_new(flows, j);
	}
	for (i = 0; i < g.nhosts; i++) {
		struct host *h = &g.hosts[i];
		json_t *j = json_object(), *p = json_array();

		for (k = 0; k < 8; k++)
			json_array_append_new(p, json_real(secs(h->paused_tsc[k])));
		json_object_set_new(j, "name", json_string(h->name));
		json_object_set_new(j, "speed_bps", json_real(h->speed_bps));
		json_object_set_new(j, "tx_packets", json_integer((json_int_t)h->tx_pkts));
		json_object_set_new(j, "tx_bytes", json_integer((json_int_t)h->tx_bytes));
		json_object_set_new(j, "rx_packets", json_integer((json_int_t)h->rx_pkts));
		json_object_set_new(j, "rx_bytes", json_integer((json_int_t)h->rx_bytes));
		json_object_set_new(j, "tx_data", json_integer((json_int_t)h->tx_data));
		json_object_set_new(j, "tx_ctrl", json_integer((json_int_t)h->tx_ctrl));
		json_object_set_new(j, "rx_data", json_integer((json_int_t)h->rx_data));
		json_object_set_new(j, "rx_ctrl", json_integer((json_int_t)h->rx_ctrl));
		json_object_set_new(j, "rx_trimmed", json_integer((json_int_t)h->rx_trimmed));
		json_object_set_new(j, "rx_pfc", json_integer((json_int_t)h->rx_pfc));
		json_object_set_new(j, "rx_pause", json_integer((json_int_t)h->rx_pause));
		json_object_set_new(j, "rx_other", json_integer((json_int_t)h->rx_other));
		json_object_set_new(j, "tx_ring_full", json_integer((json_int_t)h->tx_full));
		json_object_set_new(j, "unsent", json_integer(h->ntx));
		json_object_set_new(j, "paused_s", p);
		json_array_append_new(hosts, j);
	}
	{
		const struct rsw_dcqcn_params *p = &g.dp[0];
		json_t *j = json_object();

		json_object_set_new(j, "line_bps", json_real(p->line_bps));
		json_object_set_new(j, "g", json_real(p->g));
		json_object_set_new(j, "cnp_interval_us", json_real(p->cnp_interval_ns / 1e3));
		json_object_set_new(j, "alpha_us", json_real(p->alpha_ns / 1e3));
		json_object_set_new(j, "timer_us", json_real(p->timer_ns / 1e3));
		json_object_set_new(j, "byte_counter", json_integer((json_int_t)p->byte_counter));
		json_object_set_new(j, "f", json_integer(p->f));
		json_object_set_new(j, "rai_bps", json_real(p->rai_bps));
		json_object_set_new(j, "rhai_bps", json_real(p->rhai_bps));
		json_object_set_new(j, "min_bps", json_real(p->min_bps));
		json_object_set_new(j, "time_scale", json_real(g.time_scale));
		json_array_append_new(dc, j);
	}
	json_object_set_new(o, "flows", flows);
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "dcqcn", json_array_get(dc, 0));
	json_incref(json_array_get(dc, 0));
	json_decref(dc);
	json_object_set_new(o, "bin_s", json_real(g.bin_s));
	json_object_set_new(o, "payload", json_integer(g.payload));
	json_object_set_new(o, "window", json_integer(g.window));
	json_object_set_new(o, "wall_s", json_real(wall_s));
	json_object_set_new(o, "cpu_s", json_real(cpu_s));
	json_object_set_new(o, "outstanding_qps", json_integer(outstanding()));
	if (json_dump_file(o, path, JSON_COMPACT) != 0) {
		fprintf(stderr, "rswhost: cannot write %s\n", path);
		json_decref(o);
		return -1;
	}
	json_decref(o);
	return 0;
}

static int
ports_start(void)
{
	struct rte_eth_conf conf = {0};
	uint64_t deadline;
	int i, up;

	g.pool = rte_pktmbuf_pool_create("rswhost", 8192 + 3072 * g.nhosts, 256, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (g.pool == NULL) {
		fprintf(stderr, "rswhost: mempool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < g.nhosts; i++) {
		uint16_t p = g.hosts[i].port;

		if (rte_eth_dev_configure(p, 1, 1, &conf) < 0 ||
		    rte_eth_rx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL, g.pool) <
			    0 ||
		    rte_eth_tx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL) < 0 ||
		    rte_eth_dev_start(p) < 0) {
			fprintf(stderr, "rswhost: cannot start port of %s\n", g.hosts[i].name);
			return -1;
		}
	}
	/* memif: wait for every link (the switch is the server). */
	deadline = rte_rdtsc() + 30 * g.hz;
	do {
		struct rte_eth_link l;

		up = 0;
		for (i = 0; i < g.nhosts; i++)
			if (rte_eth_link_get_nowait(g.hosts[i].port, &l) == 0 && l.link_status)
				up++;
		if (up == g.nhosts) {
			/* The switch's side came up first, but its next-hop groups learn that a
			 * link is up from a periodic poll: frames sent at once would find the
			 * route to a host still empty (group_empty drops). */
			rte_delay_us_sleep((unsigned int)(g.settle_ms * 1000));
			return 0;
		}
		rte_delay_ms(1);
	} while (rte_rdtsc() < deadline && !stop);
	fprintf(stderr, "rswhost: %d of %d links up after 30 s\n", up, g.nhosts);
	return -1;
}

int
main(int argc, char **argv)
{
	const char *cfg = NULL, *out = NULL;
	struct timespec c0, c1;
	uint64_t w0;
	int ret, opt, i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rswhost: EAL init failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	static const struct option lo[] = {
		{"config", required_argument, NULL, 'c'},
		{"out", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:o:", lo, NULL)) != -1) {
		if (opt == 'c')
			cfg = optarg;
		else if (opt == 'o')
			out = optarg;
		else
			goto usage;
	}
	if (cfg == NULL || out == NULL)
		goto usage;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	prctl(PR_SET_TIMERSLACK, 1000UL); /* idle sleeps of tens of µs stay that short */
	g.hz = rte_get_tsc_hz();
	g.ns_per_tsc = 1e9 / (double)g.hz;
	if (load_config(cfg) < 0 || ports_start() < 0) {
		rte_eal_cleanup();
		return 1;
	}
	{
		const struct rsw_dcqcn_params *p = &g.dp[0];

		printf("rswhost: %d hosts, %d flows, %d QPs; link %.0f b/s; DCQCN g=%.5f "
		       "cnp_interval=%.0fus alpha=%.0fus T=%.0fus B=%lu F=%u R_AI=%.0f R_HAI=%.0f\n",
		       g.nhosts, g.nflows, g.nqps, p->line_bps, p->g, p->cnp_interval_ns / 1e3,
		       p->alpha_ns / 1e3, p->timer_ns / 1e3, (unsigned long)p->byte_counter, p->f,
		       p->rai_bps, p->rhai_bps);
		fflush(stdout);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	w0 = rte_rdtsc();
	g.t0 = w0 + g.hz / 20;
	for (i = 0; i < g.nflows; i++) {
		struct flow *f = &g.flows[i];

		f->start_tsc = g.t0 + (uint64_t)(f->start_s * (double)g.hz);
		f->stop_tsc = g.t0 + (uint64_t)(f->stop_s * (double)g.hz);
		if (f->after >= 0) /* waits for deliver() of its predecessor */
			f->start_tsc = f->stop_tsc = UINT64_MAX;
	}
	run();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	ret = write_stats(out,
			  (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9,
			  secs(rte_rdtsc() - w0));
	for (i = 0; i < g.nhosts; i++) {
		rte_eth_dev_stop(g.hosts[i].port);
		rte_eth_dev_close(g.hosts[i].port);
	}
	rte_eal_cleanup();
	return ret < 0 ? 1 : 0;
usage:
	fprintf(stderr, "usage: rswhost [EAL args] -- --config FILE.json --out STATS.json\n");
	rte_eal_cleanup();
	return 2;
}
