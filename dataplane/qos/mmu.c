/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The shared-buffer MMU (docs/qos.md; step 8 of the packet path): the eight egress rings of each
 * port, the parameters a table generation derives, and admission's full
 * check (lossless headroom, lossy tail drop, trimming, ECN at enqueue); the
 * common case is inline in rsw_mmu.h. Release runs in the owner's scheduler
 * (sched.c).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_random.h>

#include "rsw_ecn.h"
#include "rsw_mmu.h"
#include "rsw_pfc.h"
#include "rsw_queue.h"
#include "rsw_trim.h"

struct rsw_qos_main rsw_qos;

static const char *const queue_ctr_names[RSW_N_QUEUE_CTRS] = {
#define RSW_X_NAME(name, ...) [RSW_QC_##name] = #name,
	RSW_FOREACH_QUEUE_CTR(RSW_X_NAME)
#undef RSW_X_NAME
};

static const char *const pfc_ctr_names[RSW_N_PFC_CTRS] = {
#define RSW_X_NAME(name, ...) [RSW_FC_##name] = #name,
	RSW_FOREACH_PFC_CTR(RSW_X_NAME)
#undef RSW_X_NAME
};

const char *
rsw_queue_ctr_name(enum rsw_queue_ctr c)
{
	return (unsigned int)c < RSW_N_QUEUE_CTRS ? queue_ctr_names[c] : "?";
}

const char *
rsw_pfc_ctr_name(enum rsw_pfc_ctr c)
{
	return (unsigned int)c < RSW_N_PFC_CTRS ? pfc_ctr_names[c] : "?";
}

int
rsw_qos_init(uint16_t n_ports)
{
	char name[RTE_RING_NAMESIZE];
	uint16_t p;
	int tc;

	rsw_qos.tsc_hz = rte_get_tsc_hz();
	for (p = 0; p < n_ports; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++) {
			snprintf(name, sizeof(name), "rsw_q%u_%d", p, tc);
			rsw_qos.port[p].ring[tc] = rte_ring_create(
				name, RSW_QUEUE_RING_SIZE, (int)rte_socket_id(), RING_F_SC_DEQ);
			if (rsw_qos.port[p].ring[tc] == NULL) {
				rsw_qos_fini();
				return -rte_errno;
			}
		}
	}
	return 0;
}

void
rsw_qos_fini(void)
{
	struct rte_mbuf *m[32];
	unsigned int n;
	uint16_t p;
	int tc;

	for (p = 0; p < RSW_MAX_PORTS; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++) {
			struct rte_ring *r = rsw_qos.port[p].ring[tc];

			if (r == NULL)
				continue;
			while ((n = rte_ring_dequeue_burst(r, (void **)m, 32, NULL)) > 0)
				rte_pktmbuf_free_bulk(m, n);
			rte_ring_free(r);
			rsw_qos.port[p].ring[tc] = NULL;
		}
	}
}

void
rsw_qos_params_derive(struct rsw_qos_params *qp)
{
	int i;

	for (i = 0; i < RSW_N_TC; i++) {
		qp->burst_bytes[i] = qp->queue_limit;
		if (qp->trim_tcs & (1u << i))
			qp->burst_bytes[i] = RTE_MIN(qp->burst_bytes[i], qp->trim_threshold);
		if (qp->ecn_enabled & (1u << i))
			qp->burst_bytes[i] = RTE_MIN(qp->burst_bytes[i], qp->kmin[i]);
	}
}

/*
 * A lossy drop on queue (out, tc): dropped_packets, and the counter of its cause (ecn_drops,
 * trim_drops, watchdog_drops; RSW_QC_dropped_packets alone for a tail drop).
 */
static inline void
admit_drop(struct rsw_burst *c, struct rsw_lcore_stats *st, uint16_t out, uint8_t tc,
	   struct rte_mbuf *m, enum rsw_queue_ctr cause)
{
	st->qos.q[out][tc][RSW_QC_dropped_packets]++;
	if (cause != RSW_QC_dropped_packets)
		st->qos.q[out][tc][cause]++;
	c->freed[c->n_freed++] = m;
}

/* Bytes this burst admitted to ingress PG tc of its port: its slots of that TC. */
static inline uint64_t
burst_pg_bytes(const struct rsw_burst *c, uint8_t tc)
{
	uint64_t b = 0;
	uint16_t i;

	for (i = 0; i < c->n_slots; i++)
		if (c->slots[i].tc == tc)
			b += c->slots[i].bytes;
	return b;
}

/* Bytes in queue (out, tc): the shared gauge plus what this burst already admitted to it. */
static inline uint64_t
slot_depth(const struct rsw_out_slot *sl)
{
	return __atomic_load_n(&rsw_qos.port[sl->port].q_bytes[sl->tc], __ATOMIC_RELAXED) +
	       sl->bytes;
}

/*
 * UEC trimming: a trim-eligible packet that would be dropped goes on cut to trim.size, with
 * DSCP_TRIMMED (DSCP_TRIMMED_LASTHOP on a leaf's downlink), in the trim class. A packet
 * already no longer than the floor goes whole in its own class.
 */
static inline void
admit_trim(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_qos_params *qp,
	   uint16_t in_port, struct rsw_out_slot *sl, uint64_t used, struct rte_mbuf *m,
	   uint8_t idx)
{
	const struct rsw_pkt_info *info = &c->info[idx];
	uint16_t out = sl->port;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t dscp =
		qp->is_leaf && rsw_dp.ports[out].downlink ? qp->trim_dscp_lasthop : qp->trim_dscp;
	struct rsw_out_slot *tsl;

	if (len <= RTE_MAX((uint32_t)qp->trim_size, rsw_trim_floor(m, info->l3_off, info->kind))) {
		/* Already header-sized: whole, in its own class, as long as the buffer holds. */
		if (!rsw_mmu_buf_fits(qp, used, len, true))
			return admit_drop(c, st, out, sl->tc, m, RSW_QC_dropped_packets);
		return rsw_mmu_enqueue(c, sl, m, idx);
	}
	if (rsw_trim(m, info->l3_off, info->kind, qp->trim_size, dscp) == 0)
		/* Not UDP, or a fragment: dropped as the queue would drop it. */
		return admit_drop(c, st, out, sl->tc, m, RSW_QC_dropped_packets);
	len = rte_pktmbuf_pkt_len(m);
	tsl = rsw_mmu_slot(c, qp, in_port, out, qp->trim_tc);
	if (slot_depth(tsl) + len > qp->queue_limit || !rsw_mmu_buf_fits(qp, used, len, true)) {
		/* The trim queue is full too. */
		return admit_drop(c, st, out, tsl->tc, m, RSW_QC_trim_drops);
	}
	st->qos.q[out][sl->tc][RSW_QC_trimmed]++;
	rsw_mmu_enqueue(c, tsl, m, idx);
}

void
rsw_mmu_admit_slow(struct rsw_burst *c, struct rsw_lcore_stats *st, const struct rsw_qos_params *qp,
		   uint16_t in_port, struct rsw_out_slot *sl, struct rte_mbuf *m, uint8_t idx)
{
	const struct rsw_pkt_info *info = &c->info[idx];
	const uint8_t tc = sl->tc;
	const uint16_t out = sl->port;
	const struct rsw_qos_port *qport = &rsw_qos.port[out];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	bool lossless = qp->lossless & (1u << tc);
	bool cnp = info->flags & RSW_PF_CNP;
	uint64_t depth, used;

	if (unlikely(qport->storm_drop[tc]))
		return admit_drop(c, st, out, tc, m, RSW_QC_watchdog_drops);
	depth = slot_depth(sl);
	used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED) + c->used_add;
	if (lossless) {
		uint64_t pg =
			__atomic_load_n(&rsw_qos.port[in_port].pg_bytes[tc], __ATOMIC_RELAXED) +
			burst_pg_bytes(c, tc);

		/* The PG's room is spent or shared with another slot now: full checks only. */
		if (c->pg_owner[tc] != 0xff)
			c->slots[c->pg_owner[tc]].room = 0;
		/* Never tail-dropped; beyond xoff + headroom the headroom is exhausted. */
		if (unlikely(!rsw_mmu_lossless_fits(qp, pg, used, used, len))) {
			st->qos.q[out][tc][RSW_QC_lossless_drops]++;
			st->qos.pg_lossless_drops[in_port][tc]++;
			c->freed[c->n_freed++] = m;
			return;
		}
	} else if (unlikely(qp->trim_tcs & (1u << tc)) && !cnp) {
		if (!rsw_mmu_lossy_fits(qp, depth, qp->trim_threshold, used, len))
			return admit_trim(c, st, qp, in_port, sl, used, m, idx);
	} else if (unlikely(cnp ? !rsw_mmu_buf_fits(qp, used, len, true)
				: !rsw_mmu_lossy_fits(qp, depth, qp->queue_limit, used, len))) {
		/* CNPs are not tail-dropped at the queue limit, only when the buffer is full. */
		return admit_drop(c, st, out, tc, m, RSW_QC_dropped_packets);
	}
	if (unlikely(qp->ecn_enqueue) && (qp->ecn_enabled & (1u << tc)) && !cnp &&
	    rsw_ecn_decide(qp, tc, depth, (uint32_t)rte_rand())) {
		int r = rsw_ecn_mark(m, info->l3_off, info->kind);

		if (r > 0)
			st->qos.q[out][tc][RSW_QC_ecn_marked]++;
		else if (r < 0 && !lossless)
			return admit_drop(c, st, out, tc, m, RSW_QC_ecn_drops);
	}
	rsw_mmu_enqueue(c, sl, m, idx);
}

/*
 * Whether the burst's staged bytes (bytes in all, over the staged ports; tcs: their TCs) fit in
 * the shared buffer and, for its lossless TCs, in the room of their ingress PGs (each TC's bytes
 * over every staged port), with XOFF at the fullest buffer the burst can leave (as
 * rsw_mmu_pg_room).
 */
static inline bool
burst_fits(const struct rsw_qos_params *qp, const struct rsw_burst *c, uint16_t in_port,
	   uint8_t tcs, uint64_t bytes)
{
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED), tc_bytes;
	uint8_t lossless = tcs & qp->lossless;
	uint32_t ports;
	unsigned int tc;

	/* Every staged byte in the buffer less the reserved headroom (the queues: stage_fits). */
	if (!rsw_mmu_buf_fits(qp, used, bytes, false))
		return false;
	for (; lossless != 0; lossless &= (uint8_t)(lossless - 1)) {
		tc = (unsigned int)__builtin_ctz(lossless);
		tc_bytes = 0;
		for (ports = c->staged; ports != 0; ports &= ports - 1)
			tc_bytes += rsw_stage_bytes(c->stage.tc[__builtin_ctz(ports)][tc]);
		/* In the buffer already (above): the PG's limit at the fullest buffer. */
		if (__atomic_load_n(&rsw_qos.port[in_port].pg_bytes[tc], __ATOMIC_RELAXED) +
			    tc_bytes >
		    rsw_mmu_pg_limit(qp, used + bytes))
			return false;
	}
	return true;
}

/* Whether the frames staged on port p fit their queues: each TC's bytes within burst_bytes. */
static inline bool
stage_fits(const struct rsw_qos_params *qp, const struct rsw_stage *sg, uint16_t p)
{
	uint8_t tcs = sg->tcs[p];
	unsigned int tc;

	for (; tcs != 0; tcs &= (uint8_t)(tcs - 1)) {
		tc = (unsigned int)__builtin_ctz(tcs);
		if (rsw_stage_bytes(sg->tc[p][tc]) > qp->burst_bytes[tc])
			return false;
	}
	return true;
}

uint32_t
rsw_mmu_admit_burst(struct rsw_burst *c, struct rsw_lcore_stats *st,
		    const struct rsw_qos_params *qp, uint16_t in_port)
{
	const struct rsw_stage *sg = &c->stage;
	uint32_t ports, whole = 0;
	uint64_t bytes = 0;
	uint8_t tcs = 0;
	uint16_t p, k;

	if (likely(rsw_dp.admit_burst)) {
		for (ports = c->staged; ports != 0; ports &= ports - 1) {
			p = (uint16_t)__builtin_ctz(ports);
			bytes += sg->bytes[p];
			tcs |= sg->tcs[p];
		}
		if (likely(burst_fits(qp, c, in_port, tcs, bytes)))
			for (ports = c->staged; ports != 0; ports &= ports - 1) {
				p = (uint16_t)__builtin_ctz(ports);
				if (likely(stage_fits(qp, sg, p) && rsw_queue_open(c, p)))
					whole |= 1u << p;
			}
	}
	for (ports = c->staged & ~whole; ports != 0; ports &= ports - 1) {
		p = (uint16_t)__builtin_ctz(ports);
		for (k = 0; k < sg->n[p]; k++) {
			/* The slots' steps read the frame's record: made for a frame of the parse
			 * step's common case here. */
			(void)rsw_burst_record(c, sg->idx[p][k], sg->m[p][k]);
			rsw_mmu_admit(c, st, qp, in_port, p, sg->m[p][k], sg->idx[p][k]);
		}
	}
	return whole;
}
