/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The worker loop and the burst driver (docs/architecture.md): rx, then the steps in
 * passes over the burst: parse and classify every frame (pkt/, qos/classify);
 * one bulk FIB lookup per family (route/), the flow hashes of the frames that
 * a group hashes (lb/); resolve, rewrite and stage each frame on its egress
 * port (route/resolve.c); then punts to the control thread, admission once per
 * burst (qos/mmu.c) and transmit: a port admitted whole sends its staged
 * frames straight to the PMD, the rest were admitted one by one into slots
 * that go cut-through or to their egress rings (qos/queue.c). The owner of a
 * port drains its rings to the PMD (qos/sched.c).
 */

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>
#include <rte_version.h>

#include "rsw_burst.h"
#include "rsw_classify.h"
#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_link.h"
#include "rsw_mmu.h"
#include "rsw_punt_dp.h"
#include "rsw_qos.h"
#include "rsw_queue.h"
#include "rsw_resolve.h"
#include "rsw_trace.h"
#include "rsw_worker.h"

/* Rounds of the scheduler one drain runs at most: what the eight rings of a port can hold. */
#define RSW_DRAIN_ROUNDS_MAX (RSW_N_TC * RSW_QUEUE_RING_SIZE / RSW_BURST)

struct rsw_dp_main rsw_dp;
uint16_t rsw_txq[RTE_MAX_LCORE][RSW_MAX_PORTS];
struct rsw_wakeup rsw_wakeup[RTE_MAX_LCORE];

int
rsw_dp_init(uint16_t n_ports)
{
	static const struct rte_mbuf_dynfield meta_desc = {
		.name = "rsw_mbuf_meta",
		.size = sizeof(struct rsw_mbuf_meta),
		.align = __alignof__(struct rsw_mbuf_meta),
	};
	int ret;

	rsw_dp.meta_off = rte_mbuf_dynfield_register(&meta_desc);
	if (rsw_dp.meta_off < 0)
		return -rte_errno;
	rsw_dp.n_ports = n_ports;
	rsw_dp.punt = rte_ring_create("rsw_punt", RSW_PUNT_RING_SIZE, (int)rte_socket_id(),
				      RING_F_SC_DEQ);
	if (rsw_dp.punt == NULL)
		return -rte_errno;
	ret = rsw_qos_init(n_ports);
	if (ret != 0)
		rsw_dp_fini();
	return ret;
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
	int tc;

	ring_free_drain(rsw_dp.punt);
	rsw_dp.punt = NULL;
	rsw_qos_fini();
	/* Frames the schedulers staged or the PMDs refused. */
	for (p = 0; p < RSW_MAX_PORTS; p++) {
		struct rsw_port_sched *ps = &rsw_sched[p];

		for (tc = 0; tc < RSW_N_TC; tc++)
			if (ps->head_i[tc] < ps->head_n[tc])
				rte_pktmbuf_free_bulk(ps->head[tc] + ps->head_i[tc],
						      ps->head_n[tc] - ps->head_i[tc]);
		if (ps->n_pending)
			rte_pktmbuf_free_bulk(ps->pending, ps->n_pending);
		rsw_qos.port[p].tx_pending = 0;
		rsw_qos.port[p].sh_speed = 0;
	}
	memset(rsw_sched, 0, sizeof(rsw_sched));
}

/*
 * Routed frame k of its family f: the frame m (burst index idx), its IP length and TC; the
 * lookup key is the caller's.
 */
static __rte_always_inline void
fam_add(struct rsw_fam *f, uint16_t k, struct rte_mbuf *m, uint8_t idx, uint16_t l3_len, uint8_t tc)
{
	f->m[k] = m;
	f->idx[k] = idx;
	f->l3_len[k] = l3_len;
	f->tc[k] = tc;
}

/*
 * Pass 1 for a frame that is not the parse step's common case (or under PCP trust), its record
 * in info: count a CNP, classify it (and coalesce CNPs), punt ARP, ND and LLDP, consume MAC
 * Control, drop the rest. @return its kind if it is to be looked up (RSW_PK_IPV4, RSW_PK_IPV6),
 * else RSW_PK_DROP.
 */
static __rte_noinline enum rsw_pkt_kind
pass1_other(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	    uint16_t in_port, struct rte_mbuf *m, struct rsw_pkt_info *info, enum rsw_pkt_kind kind)
{
	struct rsw_port_stats *ps = &st->port[in_port];

	if (unlikely(info->flags & RSW_PF_CNP)) {
		ps->c[RSW_PC_cnp_rx]++;
		c->has_cnp = 1;
	}
	switch (kind) {
	case RSW_PK_IPV4:
	case RSW_PK_IPV6:
		info->tc = t ? rsw_classify(t, info) : 0;
		if (unlikely(info->flags & RSW_PF_CNP) && t && t->qos.cnp_coalesce_ticks &&
		    rsw_cnp_coalesced(t, &st->lb_state, m, info, c->now)) {
			rsw_burst_drop(c, st, in_port, m, RSW_PC_cnp_coalesced);
			return RSW_PK_DROP;
		}
		return kind;
	case RSW_PK_ARP:
	case RSW_PK_ND:
	case RSW_PK_LLDP:
		rsw_punt_meta(m, info, in_port, kind == RSW_PK_ARP ? RSW_PUNT_ARP : RSW_PUNT_ND,
			      UINT32_MAX, in_port);
		c->punt[c->n_punt++] = m;
		return RSW_PK_DROP;
	case RSW_PK_MAC_CTRL:
		/* PAUSE/PFC frames are consumed by the port, never forwarded. */
		ps->c[RSW_PC_pfc_rx_frames]++;
		if (unlikely(t == NULL ||
			     rsw_pfc_rx(&st->qos, &t->qos, in_port,
					rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off),
					rte_pktmbuf_data_len(m) - info->l3_off, rte_rdtsc()) != 0))
			ps->c[RSW_PC_parse_errors]++;
		c->freed[c->n_freed++] = m;
		return RSW_PK_DROP;
	default:
		rsw_burst_drop(c, st, in_port, m, info->drop);
		return RSW_PK_DROP;
	}
}

/*
 * Pass 1 for a frame the parse step's common case did not take, or under PCP trust (l3: the
 * common case's IP header, or NULL): its parse record (rsw_parse, or rsw_parse_fill), then
 * pass1_other. Out of line: the common case's loop keeps its registers (c holds what this
 * needs: the lcore's counters, the tables, the port). @return the record of a frame to look
 * up (the caller does not compute its address: GCC made it an induction variable of the loop),
 * else NULL.
 */
static __rte_noinline const struct rsw_pkt_info *
pass1_record(struct rsw_burst *c, struct rte_mbuf *m, uint8_t i, const uint8_t *l3,
	     enum rsw_pkt_kind kind)
{
	struct rsw_pkt_info *info = &c->info[i];

	if (l3 != NULL)
		rsw_parse_fill(m, info); /* PCP trust: classify reads it */
	else
		kind = rsw_parse(m, &rsw_dp.ports[c->in_port].mac, info);
	c->rec |= 1u << i;
	return pass1_other(c, c->st, c->t, c->in_port, m, info, kind) != RSW_PK_DROP ? info : NULL;
}

/*
 * Routed frame i (m) of kind (RSW_PK_IPV4, RSW_PK_IPV6), its IP header l3, in its family with
 * its lookup key: *n4 or *n6, the families' counts so far.
 */
static __rte_always_inline void
pass1_add(struct rsw_burst *c, enum rsw_pkt_kind kind, struct rte_mbuf *m, uint16_t i,
	  const uint8_t *l3, uint16_t l3_len, uint8_t tc, uint16_t *n4, uint16_t *n6)
{
	if (kind == RSW_PK_IPV4) {
		c->v4_ip[*n4] = rsw_ntohl(((const struct rte_ipv4_hdr *)l3)->dst_addr);
		fam_add(&c->f4, (*n4)++, m, (uint8_t)i, l3_len, tc);
	} else {
		memcpy(c->v6_ip[*n6], ((const struct rte_ipv6_hdr *)l3)->dst_addr, 16);
		fam_add(&c->f6, (*n6)++, m, (uint8_t)i, l3_len, tc);
	}
}

/*
 * Pass 1 for frame i (m): parse, classify, and, for a routed frame, its place in its family
 * with its lookup key (*n4, *n6: the families' counts so far). The common case (the parse
 * step's inline branch, DSCP trust: dscp, a constant) writes no parse record: its IP length
 * and the TC of its DSCP go to the family's arrays.
 */
static __rte_always_inline void
pass1_frame(struct rsw_burst *c, uint64_t mac48, const uint8_t *dscp_tc, const int dscp,
	    struct rte_mbuf *m, uint16_t i, uint16_t *n4, uint16_t *n6)
{
	enum rsw_pkt_kind kind = RSW_PK_DROP;
	const uint8_t *l3 = rsw_parse_common(m, mac48, &kind);

	if (unlikely(l3 == NULL || !dscp)) {
		const struct rsw_pkt_info *info = pass1_record(c, m, (uint8_t)i, l3, kind);

		if (info != NULL)
			pass1_add(c, info->kind, m, i,
				  rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off),
				  info->l3_len, info->tc, n4, n6);
		return;
	}
	if (kind == RSW_PK_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

		pass1_add(c, kind, m, i, l3, rsw_ntohs(ip->total_length),
			  dscp_tc[ip->type_of_service >> 2], n4, n6);
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

		pass1_add(c, kind, m, i, l3, (uint16_t)(sizeof(*ip) + rsw_ntohs(ip->payload_len)),
			  dscp_tc[(rsw_ntohl(ip->vtc_flow) >> 22) & 0x3f], n4, n6);
	}
}

/*
 * Pass 1 over the burst's n frames (pass1_frame), dscp (a constant) whether the tables trust
 * DSCP (c->dscp_tc). @return their bytes.
 */
static __rte_always_inline uint64_t
pass1(struct rsw_burst *c, uint64_t mac48, const int dscp, struct rte_mbuf **pkts, uint16_t n)
{
	const uint8_t *dscp_tc = c->dscp_tc;
	uint64_t rx_bytes = 0;
	uint16_t i, n4 = 0, n6 = 0;

	for (i = 0; i < RSW_PREFETCH_OFFSET && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	/* The prefetch of frame i + 3 without a branch per frame, then the last three. */
	for (i = 0; i + RSW_PREFETCH_OFFSET < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RSW_PREFETCH_OFFSET], void *));
		rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
		pass1_frame(c, mac48, dscp_tc, dscp, pkts[i], i, &n4, &n6);
	}
	for (; i < n; i++) {
		rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
		pass1_frame(c, mac48, dscp_tc, dscp, pkts[i], i, &n4, &n6);
	}
	c->f4.n = n4;
	c->f6.n = n6;
	return rx_bytes;
}

/* The burst driver on the scratch c (rsw_process_burst's, or the trace's: rsw_process_burst_c). */
static __rte_always_inline void
process_burst(struct rsw_burst *c, struct rsw_lcore_stats *st, uint16_t in_port,
	      struct rte_mbuf **pkts, uint16_t n)
{
	const struct rsw_tables *t = __atomic_load_n(&rsw_fib_main.tables, __ATOMIC_ACQUIRE);
	const uint64_t mac48 = rsw_mac48(&rsw_dp.ports[in_port].mac);
	struct rsw_port_stats *ps = &st->port[in_port];
	uint64_t rx_bytes = 0;
	uint16_t i, sent;

	c->n_punt = c->n_err = c->n_freed = c->n_slots = 0;
	rsw_stage_init(c, rsw_dp.n_ports);
	c->used_add = 0;
	c->has_cnp = 0;
	c->rec = 0;
	c->buf_room = 0;
	c->fast_tcs = 0;
	memset(c->pg_owner, 0xff, sizeof(c->pg_owner));
	if (likely(t != NULL)) {
		const struct rsw_qos_params *qp = &t->qos;
		uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED);

		c->fast_tcs = (uint8_t) ~(qp->trim_tcs | (qp->ecn_enqueue ? qp->ecn_enabled : 0));
		c->buf_room = rsw_mmu_buf_room(qp, used, false);
	}
	c->now = rte_rdtsc();
	if (unlikely(rsw_dp.ports[in_port].admin_down)) {
		/* Administratively down: nothing it receives is processed. */
		for (i = 0; i < n; i++)
			rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
		ps->c[RSW_PC_rx_packets] += n;
		ps->c[RSW_PC_rx_bytes] += rx_bytes;
		rsw_drop(st, in_port, pkts, n, RSW_PC_port_down);
		return;
	}

	/* Pass 1: parse, classify, gather lookup keys. */
	c->dscp_tc = t != NULL && t->trust != RSW_TRUST_PCP ? t->dscp_to_tc : NULL;
	c->st = st;
	c->t = t;
	c->in_port = in_port;
	/* Whether the tables trust DSCP a constant of each copy of the loops. */
	if (likely(c->dscp_tc != NULL))
		rx_bytes = pass1(c, mac48, 1, pkts, n);
	else
		rx_bytes = pass1(c, mac48, 0, pkts, n);
	ps->c[RSW_PC_rx_packets] += n;
	ps->c[RSW_PC_rx_bytes] += rx_bytes;
	c->rx_bytes = rx_bytes;

	/* Pass 2: one bulk lookup per family, then act on each result. */
	if (unlikely(t == NULL)) {
		for (i = 0; i < c->f4.n; i++)
			rsw_burst_drop(c, st, in_port, c->f4.m[i], RSW_PC_no_route);
		for (i = 0; i < c->f6.n; i++)
			rsw_burst_drop(c, st, in_port, c->f6.m[i], RSW_PC_no_route);
		c->f4.n = c->f6.n = 0;
	}
	if (c->f4.n > 0) {
		rte_fib_lookup_bulk(t->fib4, c->v4_ip, c->f4.nh, c->f4.n);
		if (t->lb_hash_batch)
			rsw_lb_hash_burst(t, &c->f4, c->info, c->rec, RSW_PK_IPV4);
		rsw_resolve_burst(c, &c->f4, RSW_PK_IPV4);
	}
	if (c->f6.n > 0) {
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
		rte_fib6_lookup_bulk(t->fib6, (const struct rte_ipv6_addr *)c->v6_ip, c->f6.nh,
				     c->f6.n);
#else
		rte_fib6_lookup_bulk(t->fib6, c->v6_ip, c->f6.nh, c->f6.n);
#endif
		if (t->lb_hash_batch)
			rsw_lb_hash_burst(t, &c->f6, c->info, c->rec, RSW_PK_IPV6);
		rsw_resolve_burst(c, &c->f6, RSW_PK_IPV6);
	}

	rsw_stage_done(c, rsw_dp.n_ports);

	/* Pass 3: hand off. */
	if (c->n_punt > 0)
		rsw_punt_enqueue(st, in_port, c->punt, c->n_punt, c->now);
	if (c->n_err > 0) {
		/* Already counted under their drop reason; an error the ring cannot take is lost. */
		sent = (uint16_t)rte_ring_mp_enqueue_burst(rsw_dp.punt, (void **)c->err, c->n_err,
							   NULL);
		if (sent < c->n_err)
			rte_pktmbuf_free_bulk(c->err + sent, c->n_err - sent);
	}
	/* Admission once per burst; the ports admitted whole go straight to the PMD. */
	if (likely(c->staged != 0)) {
		uint32_t whole = rsw_mmu_admit_burst(c, st, &t->qos, in_port);

		if (likely(whole != 0))
			st->admitted_whole += rsw_queue_tx_staged(c, st, whole);
	}
	if (c->n_slots > 0) {
		if (rsw_dp.cut_through)
			rsw_queue_cut_through(c, st, &t->qos);
		rsw_queue_slots(c, st, t, in_port);
	}
	if (c->n_freed > 0)
		rte_pktmbuf_free_bulk(c->freed, c->n_freed);
}

void
rsw_process_burst(struct rsw_lcore_stats *st, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n)
{
	struct rsw_burst c;

	process_burst(&c, st, in_port, pkts, n);
}

void
rsw_process_burst_c(struct rsw_burst *c, struct rsw_lcore_stats *st, uint16_t in_port,
		    struct rte_mbuf **pkts, uint16_t n)
{
	process_burst(c, st, in_port, pkts, n);
}

/*
 * Owner only: whether PFC generation on port p has nothing to do: no XOFF in force and its
 * lossless ingress PGs empty (XOFF needs bytes in the PG; XON and refresh need an XOFF sent).
 */
static inline bool
pfc_idle(const struct rsw_qos_params *qp, uint16_t p)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t b = rsw_sched[p].xoff_sent;
	int tc;

	for (tc = 0; tc < RSW_N_TC; tc++)
		if (qp->lossless & (1u << tc))
			b |= __atomic_load_n(&qport->pg_bytes[tc], __ATOMIC_RELAXED);
	return b == 0;
}

uint16_t
rsw_tx_drain(struct rsw_lcore_stats *st, uint16_t p)
{
	const struct rsw_tables *t = __atomic_load_n(&rsw_fib_main.tables, __ATOMIC_ACQUIRE);
	uint64_t now;
	uint32_t work = 0, w, rounds;

	if (unlikely(t == NULL))
		return 0;
	/* Nothing queued and no PFC to generate: no clock read, no scheduler. */
	if (rsw_port_idle(p) && (!t->qos.lossless || pfc_idle(&t->qos, p)))
		return 0;
	/*
	 * Every frame it may send now, not one round of 32: rounds until the scheduler sends less
	 * than a full one (queues empty, paused or out of tokens) or the PMD refuses. Bounded by
	 * the most the rings can hold, so that the owner's own rx is not starved by workers that
	 * keep queuing as fast as it sends.
	 */
	now = rte_rdtsc();
	for (rounds = 0; rounds < RSW_DRAIN_ROUNDS_MAX; rounds++) {
		w = rsw_sched_port(st, &t->qos, p, now);
		work += w;
		if (w < RSW_BURST || rsw_sched[p].n_pending != 0)
			break;
	}
	return (uint16_t)RTE_MIN(work, (uint32_t)UINT16_MAX);
}

/* `clear counters` asked every lcore to restart its watermarks. */
static inline void
watermark_epoch(struct rsw_qos_stats *qs)
{
	uint32_t e = __atomic_load_n(&rsw_qos.wm_epoch, __ATOMIC_ACQUIRE);

	if (likely(e == qs->wm_epoch))
		return;
	memset(qs->q_watermark, 0, sizeof(qs->q_watermark));
	memset(qs->pg_watermark, 0, sizeof(qs->pg_watermark));
	qs->buf_watermark = 0;
	qs->wm_epoch = e;
}

void
rsw_wake_slow(struct rsw_wakeup *w)
{
	/* One waker makes the call: the others find it awake. */
	if (__atomic_exchange_n(&w->asleep, 0, __ATOMIC_SEQ_CST) != 0)
		syscall(SYS_futex, &w->asleep, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

bool
rsw_worker_holds_frames(const struct rsw_worker *w)
{
	uint16_t i;

	for (i = 0; i < w->n_txp; i++)
		if (rsw_port_queued(w->txp[i]))
			return true;
	return false;
}

int
rsw_worker_sleep(const struct rsw_worker *w, uint32_t us)
{
	struct rsw_wakeup *wk = &rsw_wakeup[w->lcore];
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};
	long r;

	/* Asleep first, then the check: a worker queuing after the check sees asleep and wakes
	 * it; one queuing before it is seen by the check (rsw_wake_owners' fence). */
	__atomic_store_n(&wk->asleep, 1, __ATOMIC_SEQ_CST);
	if (rsw_worker_holds_frames(w)) {
		__atomic_store_n(&wk->asleep, 0, __ATOMIC_RELAXED);
		return -1;
	}
	r = syscall(SYS_futex, &wk->asleep, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
	/* Woken: a waker cleared asleep (before the call, EAGAIN; during it, 0). */
	if (__atomic_exchange_n(&wk->asleep, 0, __ATOMIC_SEQ_CST) == 0)
		return 1;
	(void)r;
	return 0;
}

int
rsw_worker_main(void *arg)
{
	struct rsw_worker *w = arg;
	struct rsw_lcore_stats *st = rsw_stats[w->lcore];
	struct rte_rcu_qsbr *q = rsw_fib_main.qsbr;
	struct rte_mbuf *pkts[RSW_BURST];
	uint32_t idle = 0, sleep_us, work;
	uint16_t i, n;

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
			st->wk.c[RSW_WK_rx_packets] += n;
			st->wk.c[RSW_WK_bursts]++;
			n = rsw_link_rx(st, rq->port, pkts, n); /* LLR (docs/link.md) */
			if (n == 0)
				continue;
			/* The trace's one test per burst (docs/cli.md, trace). */
			if (rsw_trace_armed())
				rsw_trace_burst(st, w->lcore, rq->port, rq->queue, pkts, n);
			else
				rsw_process_burst(st, rq->port, pkts, n);
			work += n;
		}
		for (i = 0; i < w->n_txp; i++)
			work += rsw_link_poll(st, w->txp[i]) + rsw_tx_drain(st, w->txp[i]);
		watermark_epoch(&st->qos);
		rte_rcu_qsbr_quiescent(q, w->qsbr_id);
		st->wk.c[RSW_WK_loops]++;
		st->wk.c[RSW_WK_busy_loops] += work > 0;

		if (likely(work > 0) || rsw_dp.idle_sleep_us == 0) {
			idle = 0;
			continue;
		}
		/* Idle back-off: spin a little, then sleep 1, 2, 4 ... µs up to the ceiling; never
		 * while a port it owns holds frames (paused, out of tokens). */
		if (++idle < 64)
			continue;
		if (rsw_worker_holds_frames(w)) {
			idle = 0;
			continue;
		}
		sleep_us = idle - 64 < 20 ? 1u << (idle - 64) : 1u << 20;
		if (sleep_us > rsw_dp.idle_sleep_us)
			sleep_us = rsw_dp.idle_sleep_us;
		rte_rcu_qsbr_thread_offline(q, w->qsbr_id);
		if (rsw_worker_sleep(w, sleep_us) != 0)
			idle = 0; /* woken for frames, or it holds some: poll at once */
		rte_rcu_qsbr_thread_online(q, w->qsbr_id);
	}
	rte_rcu_qsbr_thread_offline(q, w->qsbr_id);
	rte_rcu_qsbr_thread_unregister(q, w->qsbr_id);
	return 0;
}
