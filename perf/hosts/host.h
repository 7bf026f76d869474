/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * rswhost's internals, shared by host.c (the loop, ports and main), host_io.c (frames:
 * build, send, receive) and host_config.c (the configuration and the statistics).
 */

#ifndef RSW_HOST_H
#define RSW_HOST_H

#include <jansson.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rsw_dcqcn.h"
#include "rsw_nscc.h"
#include "rsw_reliab.h"

#define MAX_HOSTS   32
#define MAX_FLOWS   2048
#define MAX_QPS     4096
#define MAX_AFTER   16 /* predecessors of a flow (a collective's dependencies) */
#define BURST       32
#define TXBUF       256
#define TXDATA      16 /* data frames held unsent at most: a NIC stops at a pause */
#define MAX_PINGS   16
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
#define UET_DATA    0x02
#define UET_ACK     0x09
#define UET_NACK    0x0A
#define UET_LAST    0x01 /* flags: last packet of the message */
#define UET_AR      0x02 /* flags: ACK request: a retransmission, or the sender's window is full */
#define UET_PING    0x20 /* rswhost's base-RTT probe (64 B frames) */
#define UET_PONG    0x21
#define UET_ACK_LEN 36 /* cum, sack; packets and CE marks covered, trigger PSN, entropy */

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
	struct rsw_nscc cc;    /* UET sender's window (flow->cc) */
	uint16_t ack_cnt;      /* receiver: packets since the last ACK */
	uint16_t ack_ce;       /* of them CE-marked */
	uint16_t last_entropy; /* receiver: entropy of the last data packet */
	uint8_t last_ce;       /* and whether it was CE-marked */
	uint32_t last_psn;     /* its PSN */
	uint64_t ack_due_tsc;  /* receiver: an ACK owed by then (coalescing; 0: none owed) */
};

struct flow {
	int id;
	char role[16];
	int src, dst; /* host indexes */
	enum transport tr;
	uint64_t bytes;         /* 0 = time-bound */
	double start_s, stop_s; /* window of a time-bound flow; start of a finite one */
	int nafter;             /* flows whose delivery starts this one (0: none) */
	int after[MAX_AFTER];   /* their indexes */
	int after_left;         /* of them not yet delivered */
	int nqp;
	struct qp *qps[16];
	int spray;            /* UET entropy per packet */
	int cc;               /* UET: the NSCC-like window on */
	struct rsw_reps reps; /* UET per-packet entropy: oblivious, or REPS-like recycling */
	int dcqcn;            /* DCQCN reaction on */
	uint8_t dscp;         /* data DSCP */
	uint8_t prio;         /* PFC priority of the data */
	uint16_t sport_base;  /* entropy base */
	uint64_t start_tsc, stop_tsc;
	uint64_t done_tsc;    /* all delivered (finite) */
	uint64_t last_rx_tsc; /* last delivery */
	uint64_t tx_pkts, tx_bytes, retx_pkts, retx_bytes;
	uint64_t cnps;       /* CNPs received by the sender */
	uint64_t trimmed_rx; /* trimmed arrivals (UET) */
	uint64_t nacks_rx;   /* NAKs/NACKs received by the sender */
	uint64_t *bins;      /* delivered bytes per bin */
	double *rate_bins;   /* sender's summed current rate per bin */
};

/* A base-RTT probe: 64-byte ping-pong from src to dst, one outstanding at a time. */
struct ping {
	int src, dst;
	int count; /* probes to answer */
	int sent, got;
	uint32_t seq; /* outstanding probe */
	uint8_t dscp;
	uint64_t sent_tsc; /* of the outstanding probe; 0: none */
	uint64_t next_tsc; /* earliest next probe */
	double *rtt_us;
};

struct host {
	char name[32];
	uint16_t port;
	struct rte_ether_addr mac, gw;
	uint32_t ip; /* network order */
	double speed_bps;
	double tsc_per_byte;      /* wire time at the paced rate (speed × pace) */
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

struct rswhost {
	struct host hosts[MAX_HOSTS];
	int nhosts;
	struct flow flows[MAX_FLOWS];
	int nflows;
	struct qp qps[MAX_QPS];
	int nqps;
	struct ping pings[MAX_PINGS];
	int npings;
	double pace;                 /* hosts send at this fraction of their link speed */
	uint64_t catchup_tsc;        /* an idle or descheduled link saves up this much time */
	struct rsw_nscc_params nscc; /* the UET window's parameters */
	struct rte_mempool *pool;
	uint64_t hz;
	double ns_per_tsc;
	uint64_t t0;       /* start of the run */
	double t0_unix;    /* its wall-clock time (CLOCK_REALTIME, s) */
	double duration_s; /* time-bound flows' latest stop; a run ends after it */
	double max_s;      /* hard limit */
	double drain_s;    /* after the last flow: wait for outstanding packets */
	uint32_t payload;  /* message bytes per packet */
	uint32_t window;   /* packets outstanding per QP (power of two) */
	uint32_t ack_every;
	uint64_t ack_delay_tsc; /* the longest a receiver holds an ACK it owes */
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
};

extern struct rswhost g;

static inline uint64_t
now_ns(uint64_t tsc)
{
	return (uint64_t)((double)(tsc - g.t0) * g.ns_per_tsc);
}

static inline int
bin_of(uint64_t tsc)
{
	int b;

	if (tsc < g.t0)
		return 0;
	b = (int)((double)(tsc - g.t0) / (double)g.hz / g.bin_s);
	return b < g.nbins ? b : g.nbins - 1;
}

static inline double
secs(uint64_t tsc)
{
	return (double)tsc / (double)g.hz;
}

/* Whether UET QP q's windows, its own and (with NSCC) its congestion window, admit a new PSN. */
static inline int
uet_window_open(const struct qp *q)
{
	uint32_t out = q->utx.nxt - q->utx.una;

	return out < q->utx.window && !(q->flow->cc && (double)out >= q->cc.cwnd);
}

static inline void
tx_enqueue(struct host *h, struct rte_mbuf *m, int ctrl)
{
	h->txb[h->ntx++] = m;
	if (ctrl)
		h->tx_ctrl++;
	else
		h->tx_data++;
}

/* host_io.c */
void tx_flush(struct host *h);
struct rte_mbuf *data_packet(struct host *h, struct qp *q, uint64_t now, uint32_t *wire);
void rx_frame(struct host *h, struct rte_mbuf *m, uint64_t tsc);
void uet_ack_due(struct qp *q, uint64_t tsc);

void ping_tick(uint64_t now);

/* host.c */
int outstanding(void);

/* host_config.c */
int load_config(const char *path);
int write_stats(const char *path, double cpu_s, double wall_s);

#endif /* RSW_HOST_H */
