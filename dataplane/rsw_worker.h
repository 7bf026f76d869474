/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The worker loop (docs/architecture.md): rx bursts from the worker's queues,
 * the per-burst pipeline (parse, classify, route, load-balance, rewrite),
 * then transmit: every worker sends straight on its own tx queue of the port
 * (rsw_txq) the frames of a (port, TC) with nothing queued (the send-now
 * decision, rsw_queue.h), and queues in the port's egress rings otherwise;
 * the port's owner drains the rings (scheduler) on tx queue 0.
 *
 * Thread-safety: struct rsw_dp_main and rsw_txq are written by the control
 * thread before workers start (except quit, and the egress rings, which are
 * multi-producer: every worker and the control thread may enqueue; only the
 * owner dequeues). rsw_wakeup[lcore] is written by that lcore (asleep or not)
 * and by whoever wakes it.
 */

#ifndef RSW_WORKER_H
#define RSW_WORKER_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "rsw_defs.h"
#include "rsw_parse.h"
#include "rsw_rewrite.h"
#include "rsw_stats.h"

#define RSW_BURST           32
#define RSW_PREFETCH_OFFSET 3
#define RSW_PUNT_RING_SIZE  1024
#define RSW_MAX_WORKERS     (RTE_MAX_LCORE - 1)

/* Make the compiler forget what it knows of a value (kept in a register, computed once). */
#define RSW_OPAQUE(v) __asm__("" : "+r"(v))

/* Why a packet was handed to the control thread (rsw_mbuf_meta.reason). */
enum rsw_punt_reason {
	RSW_PUNT_ARP = 1,  /* ARP frame */
	RSW_PUNT_ND,       /* IPv6 ND multicast */
	RSW_PUNT_LOCAL,    /* IP packet for one of the switch's addresses */
	RSW_PUNT_NEIGH,    /* next hop without a resolved neighbour; rewrite pending */
	RSW_PUNT_TTL,      /* TTL / hop limit expired: ICMP time exceeded */
	RSW_PUNT_NO_ROUTE, /* no route: ICMP unreachable (switch.icmp_unreachable) */
	RSW_PUNT_MTU,      /* larger than the egress MTU (out_port): frag needed / too big */
	RSW_PUNT_LLDP,     /* LLDP, for the port's kernel interface (qos/punt.c) */
};

/* Bits of rsw_mbuf_meta.flags. */
#define RSW_MF_NOACCT (1u << 0) /* built by the control thread: not in buffer accounting */
#define RSW_MF_CNP    (1u << 1) /* RoCEv2 CNP: never marked, counted cnp_tx */
#define RSW_MF_ORIG   (1u << 2) /* made by railsw (a reply, a request): originated, not forwarded */

/* Metadata of a queued or punted mbuf, in an mbuf dynamic field. */
struct rsw_mbuf_meta {
	uint32_t neigh;  /* RSW_PUNT_NEIGH: neighbour index, or UINT32_MAX (connected, unknown) */
	uint8_t reason;  /* enum rsw_punt_reason */
	uint8_t tc;      /* traffic class */
	uint8_t in_port; /* ingress port index */
	uint8_t kind;    /* enum rsw_pkt_kind */
	uint16_t out_port;
	uint16_t l3_off;
	uint8_t flags; /* RSW_MF_* */
	uint8_t pad[3];
};

/* Runtime state of one port, read by workers. Written by control before start. */
struct rsw_port_rt {
	struct rte_ether_addr mac; /* the port's MAC: unicast for us, source of routed frames */
	uint16_t eth_port;         /* DPDK port id */
	uint16_t mtu;              /* largest L3 packet sent */
	uint16_t owner;            /* lcore that drains the port's queues, on tx queue 0 */
	uint8_t admin_down;        /* `port NAME down` (control writes, workers read) */
	uint16_t fwd_mtu;          /* mtu, or 0 when admin down (rsw_port_set_admin): one check
				    * for both; 0 also just means "check both" */
	uint8_t downlink;          /* role: downlink (a leaf's last hop, for trimming) */
	uint8_t one_sender;        /* impairments configured or being set: the owner alone sends
				    * (rsw_port_set_one_sender: control writes, workers read) */
	uint16_t n_txq;            /* tx queues in use: 1 + the workers that send straight
				    * (rsw_txq; control, before start) */
	uint8_t pad[12];           /* 32 bytes: ports[p] is a shift, not two multiplies */
};
_Static_assert(sizeof(struct rsw_port_rt) == 32, "struct rsw_port_rt: 32 bytes");

struct rsw_dp_main {
	uint16_t n_ports;
	volatile bool quit;       /* set by control: workers return */
	uint32_t idle_sleep_us;   /* back-off ceiling; 0 = busy poll */
	bool cut_through;         /* a worker sends straight when it may (rsw_send_now_port) */
	bool admit_burst;         /* admission decided per burst (rsw_mmu_admit_burst); off:
				   * every frame admitted one by one (tests) */
	int meta_off;             /* rsw_mbuf_meta dynfield offset */
	struct rte_ring *punt;    /* MP/SC: worker → control */
	struct rte_mempool *pool; /* PFC frames are built from it */
	struct rsw_port_rt ports[RSW_MAX_PORTS];
};

extern struct rsw_dp_main rsw_dp;

/*
 * rsw_txq[lcore][p]: the tx queue of port p on which lcore, when it is not the port's owner,
 * sends straight (rsw_direct_txq); 0: none, it queues for the owner (queue 0 is the owner's).
 * Written by control before the workers start.
 */
extern uint16_t rsw_txq[RTE_MAX_LCORE][RSW_MAX_PORTS];

/* An lcore's sleep: 1 while it sleeps in rsw_worker_sleep, set to 0 by whoever wakes it. */
struct rsw_wakeup {
	alignas(RTE_CACHE_LINE_SIZE) uint32_t asleep;
};

extern struct rsw_wakeup rsw_wakeup[RTE_MAX_LCORE];

/** Wake lcore's sleep (a system call: only when it sleeps). */
void rsw_wake_slow(struct rsw_wakeup *w);

/**
 * Wake the owners of the ports of mask (bit p) that sleep: after queuing frames for them. One
 * fence per call, then one read per port of a line the owner writes only when it sleeps.
 */
static inline void
rsw_wake_owners(uint32_t mask)
{
	/* Our gauges' adds before the read of asleep; its store before its check of them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (; mask != 0; mask &= mask - 1) {
		struct rsw_wakeup *w = &rsw_wakeup[rsw_dp.ports[__builtin_ctz(mask)].owner];

		if (unlikely(__atomic_load_n(&w->asleep, __ATOMIC_RELAXED) != 0))
			rsw_wake_slow(w);
	}
}

struct rsw_rxq {
	uint16_t port;  /* port index */
	uint16_t queue; /* rx queue id */
};

/* One worker's assignment. Written by control before launch, then read-only. */
struct rsw_worker {
	unsigned int lcore;
	unsigned int qsbr_id; /* thread id in rsw_fib_main.qsbr */
	uint16_t n_rxq;
	uint16_t n_txp;
	struct rsw_rxq rxq[RSW_MAX_PORTS * 4];
	uint16_t txp[RSW_MAX_PORTS]; /* port indices this worker transmits on */
};

/** Set port p administratively down or up (control thread). */
static inline void
rsw_port_set_admin(uint16_t p, bool down)
{
	struct rsw_port_rt *pr = &rsw_dp.ports[p];

	__atomic_store_n(&pr->fwd_mtu, down ? 0 : pr->mtu, __ATOMIC_RELAXED);
	__atomic_store_n(&pr->admin_down, down, __ATOMIC_RELAXED);
}

/**
 * Port p keeps one sender, its owner, or no longer needs to (control thread): set before
 * impairments take effect, cleared after they are gone (rsw_direct_txq reads it).
 */
static inline void
rsw_port_set_one_sender(uint16_t p, bool on)
{
	__atomic_store_n(&rsw_dp.ports[p].one_sender, on, __ATOMIC_RELEASE);
}

static inline struct rsw_mbuf_meta *
rsw_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, rsw_dp.meta_off, struct rsw_mbuf_meta *);
}

/**
 * Register the mbuf dynamic field; create the punt ring and the eight queues of each of
 * n_ports ports (rsw_qos_init). rsw_dp.ports[] and rsw_dp.pool are set by the caller.
 * @return 0 or -errno.
 */
int rsw_dp_init(uint16_t n_ports);

/** Free the rings, draining any mbufs left in them. */
void rsw_dp_fini(void);

/**
 * Run the pipeline on a burst received on port index in_port: drops are counted
 * and freed, punts go to rsw_dp.punt, forwarded frames to their egress ring.
 * Counts on stats slot st. Needs published tables (rsw_fib_main.tables).
 */
void rsw_process_burst(struct rsw_lcore_stats *st, uint16_t in_port, struct rte_mbuf **pkts,
		       uint16_t n);

/**
 * Owner only: schedule and transmit what is queued on port index p's eight queues
 * (rsw_sched_port under the current tables). @return frames handled.
 */
uint16_t rsw_tx_drain(struct rsw_lcore_stats *st, uint16_t p);

/**
 * Whether worker w owns a port with frames queued (bytes in its queues, control-thread frames,
 * a pending list): then it must not back off.
 */
bool rsw_worker_holds_frames(const struct rsw_worker *w);

/**
 * Worker w, idle, sleeps up to us µs, unless it owns queued frames; a worker that queues
 * frames for it wakes it (rsw_wake_owners). @return 1 woken, 0 slept the whole time or
 * interrupted, -1 did not sleep (it holds frames).
 */
int rsw_worker_sleep(const struct rsw_worker *w, uint32_t us);

/** The lcore function of a worker (arg: struct rsw_worker *). */
int rsw_worker_main(void *arg);

#endif /* RSW_WORKER_H */
