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
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_random.h>
#include <rte_rcu_qsbr.h>
#include <rte_version.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
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
	}
	memset(rsw_sched, 0, sizeof(rsw_sched));
}

static inline uint8_t
classify(const struct rsw_tables *t, const struct rsw_pkt_info *info)
{
	if (unlikely(info->flags & RSW_PF_CNP) && t->qos.cnp_enabled)
		return t->qos.cnp_tc; /* whatever its DSCP */
	if (t->trust == RSW_TRUST_PCP)
		return info->n_vlan ? t->pcp_to_tc[info->pcp] : t->default_tc;
	return t->dscp_to_tc[info->dscp];
}

/*
 * qos.cnp.coalesce_us: whether a CNP to (dst, qp) came less than the interval ago, in which
 * case this one is not forwarded. One entry per (dst, qp) hash: a collision only lets a CNP
 * through early.
 */
static inline bool
cnp_coalesced(const struct rsw_tables *t, struct rsw_lb_lcore *ls, const struct rte_mbuf *m,
	      const struct rsw_pkt_info *info, uint64_t now)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off);
	uint32_t key = info->qp;
	struct rsw_cnp_seen *e;

	if (info->kind == RSW_PK_IPV4) {
		key = rte_hash_crc_4byte(((const struct rte_ipv4_hdr *)l3)->dst_addr, key);
	} else {
		/* rte_hash_crc reads 8-byte words: hash an aligned copy (tags shift the header). */
		uint64_t dst[2];

		memcpy(dst, ((const struct rte_ipv6_hdr *)l3)->dst_addr, sizeof(dst));
		key = rte_hash_crc(dst, sizeof(dst), key);
	}
	e = &ls->cnp[key & (RSW_CNP_COALESCE_ENTRIES - 1)];
	if (e->valid && e->key == key && now - e->last < t->qos.cnp_coalesce_ticks)
		return true;
	e->key = key;
	e->valid = 1;
	e->last = now;
	return false;
}

/*
 * Hand a packet to the control thread (it is counted as punted by the caller). Out of line:
 * inline, the compiler prepared its metadata words on the forwarding path of every packet.
 */
static __rte_noinline void
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
	uint32_t hash[RSW_BURST]; /* flow hash by burst index (tables' lb_hash_batch) */
	struct rte_mbuf *punt[RSW_BURST];
	struct rte_mbuf *err[RSW_BURST]; /* not forwarded, to be answered with ICMP */
	struct rte_mbuf *freed[RSW_BURST];
	/* Admitted frames grouped by (egress port, TC), one bulk enqueue each. */
	uint8_t slot_of[RSW_MAX_PORTS * RSW_N_TC]; /* 0xff = none */
	struct out_slot {
		uint16_t port;
		uint8_t tc;
		uint8_t n;
		uint32_t bytes;
		uint64_t room; /* bytes admitted without a check: below every threshold */
		/* The indices first: a slot of up to 10 frames touches two cache lines. */
		uint8_t info[RSW_BURST]; /* index of each frame's rsw_pkt_info in the burst */
		struct rte_mbuf *m[RSW_BURST];
	} slots[RSW_BURST];
	uint64_t used_add; /* bytes admitted by the burst */
	uint64_t buf_room; /* shared buffer free at the burst start, headroom reserve excluded */
	uint8_t fast_tcs;  /* TCs whose admission is a queue limit and the buffer only */
	uint8_t has_cnp;   /* a CNP was received in the burst */
	uint8_t pg_owner[RSW_N_TC]; /* lossless TC: the slot holding the PG's room, 0xff = none */
	uint64_t rx_bytes; /* received by the burst: bounds what it can add to the buffer */
	uint64_t now;      /* TSC at the start of the burst (flowlets) */
	uint16_t n_punt, n_err, n_freed, n_slots;
};

/* Routed frame k of its family: the frame m (burst index idx) and its lookup key. */
static __rte_always_inline void
lookup_key4(struct burst_ctx *c, uint16_t k, struct rte_mbuf *m, uint8_t idx,
	    const struct rte_ipv4_hdr *ip)
{
	c->v4[k] = m;
	c->v4_idx[k] = idx;
	c->v4_ip[k] = rsw_ntohl(ip->dst_addr);
}

static __rte_always_inline void
lookup_key6(struct burst_ctx *c, uint16_t k, struct rte_mbuf *m, uint8_t idx,
	    const struct rte_ipv6_hdr *ip)
{
	c->v6[k] = m;
	c->v6_idx[k] = idx;
	memcpy(c->v6_ip[k], ip->dst_addr, 16);
}

static inline void
count_drop(struct burst_ctx *c, struct rsw_lcore_stats *st, uint16_t port, struct rte_mbuf *m,
	   enum rsw_port_ctr why)
{
	st->port[port].c[why]++;
	c->freed[c->n_freed++] = m;
}

/*
 * The room of the ingress PG of lossless TC tc for the burst: what it takes before XOFF plus
 * headroom, with XOFF taken at the fullest buffer the burst can leave (the shared gauge now
 * plus everything it received: a dynamic XOFF only falls as the buffer fills).
 */
static inline uint64_t
pg_room(const struct burst_ctx *c, const struct rsw_qos_params *qp, uint16_t in_port, uint8_t tc)
{
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED) + c->rx_bytes;
	uint64_t lim = rsw_pfc_xoff(qp, used) + qp->headroom;
	uint64_t pg = __atomic_load_n(&rsw_qos.port[in_port].pg_bytes[tc], __ATOMIC_RELAXED);

	return lim > pg ? lim - pg : 0;
}

/*
 * The burst's slot for queue (out, tc). Its room: bytes admitted with no more than the buffer
 * check, for a TC whose admission is a limit and the shared buffer only (not trimmed, no ECN
 * at enqueue, no watchdog drop): the queue's lossy limit, or for a lossless TC the room of its
 * ingress PG, held by the TC's first slot (the others check in full, and a full check of the
 * TC takes the room back: the PG is shared). 0 sends every frame through the full check.
 */
static inline struct out_slot *
slot_get(struct burst_ctx *c, const struct rsw_qos_params *qp, uint16_t in_port, uint16_t out,
	 uint8_t tc)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[out];
	uint64_t q;
	uint8_t k = c->slot_of[out * RSW_N_TC + tc];
	struct out_slot *sl;

	if (k != 0xff)
		return &c->slots[k];
	k = (uint8_t)c->n_slots++;
	c->slot_of[out * RSW_N_TC + tc] = k;
	sl = &c->slots[k];
	sl->port = out;
	sl->tc = tc;
	sl->n = 0;
	sl->bytes = 0;
	sl->room = 0;
	if ((c->fast_tcs & (1u << tc)) && !qport->storm_drop[tc]) {
		if (!(qp->lossless & (1u << tc))) {
			q = __atomic_load_n(&qport->q_bytes[tc], __ATOMIC_RELAXED);
			sl->room = qp->queue_limit > q ? qp->queue_limit - q : 0;
		} else if (c->pg_owner[tc] == 0xff) {
			c->pg_owner[tc] = k;
			sl->room = pg_room(c, qp, in_port, tc);
		}
	}
	return sl;
}

static inline void
admit_drop(struct burst_ctx *c, struct rsw_lcore_stats *st, uint16_t out, uint8_t tc,
	   struct rte_mbuf *m)
{
	st->qos.q[out][tc][RSW_QC_dropped_packets]++;
	c->freed[c->n_freed++] = m;
}

/* Queue an admitted frame in its slot; the gauges are updated once per burst. */
static inline void
admit_enqueue(struct burst_ctx *c, struct out_slot *sl, struct rte_mbuf *m, uint8_t idx)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);

	/* The metadata is written only if the frame is queued (enqueue_slots); the ingress PG
	 * is the slot's TC, summed per slot then. */
	sl->info[sl->n] = idx;
	sl->m[sl->n++] = m;
	sl->bytes += len;
	c->used_add += len;
}

/* Bytes this burst admitted to ingress PG tc of its port: its slots of that TC. */
static inline uint64_t
burst_pg_bytes(const struct burst_ctx *c, uint8_t tc)
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
slot_depth(const struct out_slot *sl)
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
admit_trim(struct burst_ctx *c, struct rsw_lcore_stats *st, const struct rsw_qos_params *qp,
	   uint16_t in_port, struct out_slot *sl, uint64_t used, struct rte_mbuf *m, uint8_t idx)
{
	const struct rsw_pkt_info *info = &c->info[idx];
	uint16_t out = sl->port;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t dscp =
		qp->is_leaf && rsw_dp.ports[out].downlink ? qp->trim_dscp_lasthop : qp->trim_dscp;
	struct out_slot *tsl;

	if (len <= RTE_MAX((uint32_t)qp->trim_size, rsw_trim_floor(m, info->l3_off, info->kind))) {
		/* Already header-sized: whole, in its own class, as long as the buffer holds. */
		if (used + len > qp->total)
			return admit_drop(c, st, out, sl->tc, m);
		return admit_enqueue(c, sl, m, idx);
	}
	if (rsw_trim(m, info->l3_off, info->kind, qp->trim_size, dscp) == 0)
		return admit_drop(c, st, out, sl->tc, m); /* not UDP, or a fragment */
	len = rte_pktmbuf_pkt_len(m);
	tsl = slot_get(c, qp, in_port, out, qp->trim_tc);
	if (slot_depth(tsl) + len > qp->queue_limit || used + len > qp->total) {
		/* The trim queue is full too. */
		return admit_drop(c, st, out, tsl->tc, m);
	}
	st->qos.q[out][sl->tc][RSW_QC_trimmed]++;
	admit_enqueue(c, tsl, m, idx);
}

/*
 * Step 7 (MMU), the full check: admit a rewritten frame to its slot's queue, trim it, or drop
 * it. Depths are the shared gauges plus what this burst already admitted.
 */
static __rte_noinline void
admit_slow(struct burst_ctx *c, struct rsw_lcore_stats *st, const struct rsw_qos_params *qp,
	   uint16_t in_port, struct out_slot *sl, struct rte_mbuf *m, uint8_t idx)
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
		return admit_drop(c, st, out, tc, m);
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
		if (unlikely(pg + len > rsw_pfc_xoff(qp, used) + qp->headroom ||
			     used + len > qp->total)) {
			st->qos.q[out][tc][RSW_QC_lossless_drops]++;
			st->qos.pg_lossless_drops[in_port][tc]++;
			c->freed[c->n_freed++] = m;
			return;
		}
	} else if (unlikely(qp->trim_tcs & (1u << tc)) && !cnp) {
		if (depth + len > qp->trim_threshold ||
		    used + len + qp->headroom_reserved > qp->total)
			return admit_trim(c, st, qp, in_port, sl, used, m, idx);
	} else if (unlikely(cnp ? used + len > qp->total
				: depth + len > qp->queue_limit ||
					    used + len + qp->headroom_reserved > qp->total)) {
		/* CNPs are not tail-dropped at the queue limit, only when the buffer is full. */
		return admit_drop(c, st, out, tc, m);
	}
	if (unlikely(qp->ecn_enqueue) && (qp->ecn_enabled & (1u << tc)) && !cnp &&
	    rsw_ecn_decide(qp, tc, depth, (uint32_t)rte_rand())) {
		int r = rsw_ecn_mark(m, info->l3_off, info->kind);

		if (r > 0)
			st->qos.q[out][tc][RSW_QC_ecn_marked]++;
		else if (r < 0 && !lossless)
			return admit_drop(c, st, out, tc, m);
	}
	admit_enqueue(c, sl, m, idx);
}

/*
 * Step 7 (MMU) for one frame of queue (out, info->tc): the common case inline (room in the
 * queue and in the buffer, nothing else to decide), the rest in admit_slow.
 */
static __rte_always_inline void
admit(struct burst_ctx *c, struct rsw_lcore_stats *st, const struct rsw_qos_params *qp,
      uint16_t in_port, uint16_t out, struct rte_mbuf *m, uint8_t idx)
{
	const struct rsw_pkt_info *info = &c->info[idx];
	struct out_slot *sl = slot_get(c, qp, in_port, out, info->tc);
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (likely(!(info->flags & RSW_PF_CNP) && sl->bytes + len <= sl->room &&
		   c->used_add + len <= c->buf_room))
		return admit_enqueue(c, sl, m, idx);
	admit_slow(c, st, qp, in_port, sl, m, idx);
}

/*
 * A packet that is not forwarded for a reason ICMP reports: counted under that reason, and
 * handed to the control thread to answer (not counted as punted) when answer is set.
 */
static inline void
icmp_error(struct burst_ctx *c, struct rsw_lcore_stats *st, uint8_t answer, uint16_t in_port,
	   struct rte_mbuf *m, const struct rsw_pkt_info *info, enum rsw_port_ctr why,
	   uint8_t reason)
{
	st->port[in_port].c[why]++;
	if (!answer) {
		c->freed[c->n_freed++] = m;
		return;
	}
	punt_meta(m, info, in_port, reason, UINT32_MAX, in_port);
	c->err[c->n_err++] = m;
}

/* Steps 4-6 for one looked-up packet. */
static __rte_always_inline void
forward_one(struct burst_ctx *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	    uint16_t in_port, struct rte_mbuf *m, uint8_t idx, uint64_t nhv)
{
	const struct rsw_pkt_info *info = &c->info[idx];
	const struct rsw_result *r = &t->results[nhv] /* < n_results: rsw_tables_add_route */;
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off);
	uint32_t neigh_idx;
	uint16_t out;
	uint64_t mac;
	int ni;

	if (likely(r->type == RSW_RES_GROUP)) {
		/* A route: checked first, as most packets take one. */
		const struct rsw_group *g;
		const struct rsw_nexthop *nh;
		uint32_t mi;

		if (unlikely(info->ttl <= 1))
			goto ttl;
		if (likely(r->single)) {
			/* A plain route: its next hop is in the result. */
			if (unlikely(__atomic_load_n(&rsw_lb_down[r->id], __ATOMIC_RELAXED) & 1)) {
				count_drop(c, st, in_port, m, RSW_PC_group_empty);
				return;
			}
			out = r->port;
			neigh_idx = r->neigh;
			mi = 0;
		} else {
			g = &t->groups[r->id];
			mi = rsw_lb_select_h(t, g, r->id, m, info, &st->lb_state, c->now,
					     t->lb_hash_batch ? &c->hash[idx] : NULL);
			if (unlikely(mi == RSW_LB_NONE)) {
				/* Every member is down. */
				count_drop(c, st, in_port, m, RSW_PC_group_empty);
				return;
			}
			nh = &t->nh[g->members[mi]];
			out = nh->port;
			neigh_idx = nh->neigh;
		}
		rsw_lb_count(&st->lb[r->id][mi], rte_pktmbuf_pkt_len(m));
	} else {
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
				ni = rsw_neigh_lookup4(((const struct rte_ipv4_hdr *)l3)->dst_addr);
			else
				ni = rsw_neigh_lookup6(((const struct rte_ipv6_hdr *)l3)->dst_addr);
			neigh_idx = ni < 0 ? UINT32_MAX : (uint32_t)ni;
			break;
		default:
			icmp_error(c, st, t->icmp_unreachable, in_port, m, info, RSW_PC_no_route,
				   RSW_PUNT_NO_ROUTE);
			return;
		}
	}

	/* fwd_mtu is the MTU of a port that is up: one compare for the common case. */
	if (unlikely(info->l3_len > rsw_dp.ports[out].fwd_mtu)) {
		if (unlikely(rsw_dp.ports[out].admin_down)) {
			count_drop(c, st, in_port, m, RSW_PC_port_down);
			return;
		}
		if (unlikely(info->l3_len > rsw_dp.ports[out].mtu)) {
			icmp_error(c, st, t->icmp_unreachable, in_port, m, info,
				   RSW_PC_mtu_exceeded, RSW_PUNT_MTU);
			rsw_meta(m)->out_port = out;
			return;
		}
	}
	mac = neigh_idx == UINT32_MAX
		      ? 0
		      : __atomic_load_n(&rsw_fib_main.neigh[neigh_idx].mac_valid, __ATOMIC_ACQUIRE);
	if (unlikely(!(mac & RSW_NEIGH_VALID))) {
		punt_meta(m, info, in_port, RSW_PUNT_NEIGH, neigh_idx, out);
		c->punt[c->n_punt++] = m;
		return;
	}
	rsw_rewrite_word(m, info->l3_off, info->kind, mac, &rsw_dp.ports[out].mac);
	admit(c, st, &t->qos, in_port, out, m, idx);
	return;
ttl:
	/* Time exceeded is always answered (traceroute), rate-limited by the control thread. */
	icmp_error(c, st, 1, in_port, m, info, RSW_PC_ttl_expired, RSW_PUNT_TTL);
}

/* Frames of queue (p, tc) sent cut-through: counted enqueued and dequeued at once. */
static inline void
count_cut_through(struct rsw_lcore_stats *st, uint16_t p, uint8_t tc, uint32_t packets,
		  uint64_t bytes)
{
	uint64_t *q = st->qos.q[p][tc];

	q[RSW_QC_enqueued_packets] += packets;
	q[RSW_QC_enqueued_bytes] += bytes;
	q[RSW_QC_dequeued_packets] += packets;
	q[RSW_QC_dequeued_bytes] += bytes;
}

/*
 * Step 8, cut-through: a queue of an idle port this lcore owns sends its slot straight to the
 * PMD, as an ASIC sends a packet that finds its queue empty and the port free: counted
 * enqueued and dequeued, never in the buffer. Not when its TC is paused, when the shaper lacks
 * the tokens, or when ECN at dequeue could mark (more bytes than kmin behind the first).
 * Frames the PMD does not take wait in the scheduler's pending list, as its own do.
 */
static void
cut_through(struct burst_ctx *c, struct rsw_lcore_stats *st, const struct rsw_qos_params *qp)
{
	struct rte_mbuf *tx[RSW_BURST], **txv = tx;
	uint32_t checked = 0, idle = 0;
	uint16_t i, j, p, n_tx;
	uint64_t tx_bytes;
	unsigned int lcore = rte_lcore_id();

	for (i = 0; i < c->n_slots; i++) {
		p = c->slots[i].port;
		if (checked & (1u << p))
			continue;
		checked |= 1u << p;
		if (rsw_dp.ports[p].owner != lcore || !rsw_port_idle(p))
			continue;
		idle |= 1u << p;
	}
	while (idle != 0) {
		struct rsw_port_sched *ps;
		struct rsw_qos_port *qport;
		uint64_t now = c->now, tx_wire;
		uint8_t paused;
		bool shaped;

		p = (uint16_t)__builtin_ctz(idle);
		idle &= idle - 1;
		ps = &rsw_sched[p];
		qport = &rsw_qos.port[p];
		shaped = false;
		if (qport->speed_bps) {
			rsw_shaper_refill(ps, qport->speed_bps, rsw_dp.ports[p].mtu, now);
			/* Tokens for every frame of the burst: one subtraction at the end. */
			shaped = ps->tokens_milli < rsw_wire_milli(c->used_add, RSW_BURST);
		}
		paused = rsw_paused_mask(qport, now);
		n_tx = 0;
		tx_bytes = 0;
		tx_wire = 0;
		for (i = 0; i < c->n_slots; i++) {
			struct out_slot *sl = &c->slots[i];
			uint8_t tc = sl->tc, bit = (uint8_t)(1u << tc);
			uint64_t wire = rsw_wire_milli(sl->bytes, sl->n);

			if (sl->port != p || sl->n == 0)
				continue;
			if (paused & bit)
				continue;
			if ((qp->ecn_enabled & bit) && !qp->ecn_enqueue && sl->bytes > qp->kmin[tc])
				continue;
			if (unlikely(shaped)) {
				if (ps->tokens_milli < wire)
					continue;
				ps->tokens_milli -= wire;
			} else {
				tx_wire += wire;
			}
			count_cut_through(st, p, tc, sl->n, sl->bytes);
			if (unlikely(c->has_cnp))
				for (j = 0; j < sl->n; j++)
					st->port[p].c[RSW_PC_cnp_tx] +=
						(c->info[sl->info[j]].flags & RSW_PF_CNP) != 0;
			c->used_add -= sl->bytes;
			tx_bytes += sl->bytes;
			/* One slot goes from its own array; more are gathered. */
			if (n_tx == 0) {
				txv = sl->m;
			} else {
				if (txv != tx) {
					memcpy(tx, txv, sizeof(tx[0]) * n_tx);
					txv = tx;
				}
				memcpy(tx + n_tx, sl->m, sizeof(tx[0]) * sl->n);
			}
			n_tx = (uint16_t)(n_tx + sl->n);
			sl->n = 0;
		}
		if (qport->speed_bps && !shaped)
			ps->tokens_milli -= tx_wire;
		if (n_tx > 0)
			rsw_port_tx(st, p, txv, n_tx, tx_bytes); /* pending is empty: room for 32 */
	}
}

/*
 * Step 8: account the admitted bytes (before the frames become visible to the owner, so its
 * release never runs ahead), then one bulk enqueue per queue; a full ring gives back its
 * share.
 */
static void
enqueue_slots(struct burst_ctx *c, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	      uint16_t in_port)
{
	struct rsw_qos_port *in = &rsw_qos.port[in_port];
	uint64_t pg_add[RSW_N_TC] = {0}; /* bytes queued per ingress PG (= the slot's TC) */
	uint64_t used_now, v;
	uint16_t i, k, sent;
	int tc;

	if (c->used_add == 0)
		return; /* every slot went cut-through */
	for (i = 0; i < c->n_slots; i++)
		if (c->slots[i].n > 0) /* not sent cut-through */
			pg_add[c->slots[i].tc] += c->slots[i].bytes;
	for (tc = 0; tc < RSW_N_TC; tc++) {
		if (pg_add[tc] == 0)
			continue;
		v = __atomic_add_fetch(&in->pg_bytes[tc], pg_add[tc], __ATOMIC_RELAXED);
		if (v > st->qos.pg_watermark[in_port][tc])
			st->qos.pg_watermark[in_port][tc] = v;
	}
	used_now = __atomic_add_fetch(&rsw_qos.used, c->used_add, __ATOMIC_RELAXED);
	if (used_now > st->qos.buf_watermark)
		st->qos.buf_watermark = used_now;

	for (i = 0; i < c->n_slots; i++) {
		struct out_slot *sl = &c->slots[i];
		struct rsw_qos_port *qport = &rsw_qos.port[sl->port];
		uint64_t back = 0;

		if (sl->n == 0)
			continue;
		for (k = 0; k < sl->n; k++) {
			const struct rsw_pkt_info *info = &c->info[sl->info[k]];

			*rsw_meta(sl->m[k]) = (struct rsw_mbuf_meta){
				.tc = sl->tc,
				.in_port = (uint8_t)in_port,
				.kind = info->kind,
				.l3_off = info->l3_off,
				.flags = (info->flags & RSW_PF_CNP) ? RSW_MF_CNP : 0,
			};
		}
		v = __atomic_add_fetch(&qport->q_bytes[sl->tc], sl->bytes, __ATOMIC_RELAXED);
		if (v > st->qos.q_watermark[sl->port][sl->tc])
			st->qos.q_watermark[sl->port][sl->tc] = v;
		sent = (uint16_t)rte_ring_mp_enqueue_burst(qport->ring[sl->tc], (void **)sl->m,
							   sl->n, NULL);
		st->qos.q[sl->port][sl->tc][RSW_QC_enqueued_packets] += sent;
		for (k = sent; k < sl->n; k++) {
			back += rte_pktmbuf_pkt_len(sl->m[k]);
			st->qos.q[sl->port][sl->tc][(t->qos.lossless & (1u << sl->tc))
							    ? RSW_QC_lossless_drops
							    : RSW_QC_dropped_packets]++;
		}
		st->qos.q[sl->port][sl->tc][RSW_QC_enqueued_bytes] += sl->bytes - back;
		if (back) {
			__atomic_fetch_sub(&qport->q_bytes[sl->tc], back, __ATOMIC_RELAXED);
			__atomic_fetch_sub(&in->pg_bytes[sl->tc], back, __ATOMIC_RELAXED);
			__atomic_fetch_sub(&rsw_qos.used, back, __ATOMIC_RELAXED);
			rte_pktmbuf_free_bulk(sl->m + sent, sl->n - sent);
		}
	}
}

/* The general path: every frame, every feature (steps 2-9 in three passes). */
static __rte_noinline void
process_general(struct rsw_lcore_stats *st, const struct rsw_tables *t, uint16_t in_port,
		struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	const struct rte_ether_addr *mac = &rsw_dp.ports[in_port].mac;
	const uint64_t mac48 = rsw_mac48(mac);
	const uint8_t *dscp_tc; /* DSCP → TC, when the tables trust DSCP */
	struct rsw_port_stats *ps = &st->port[in_port];
	struct burst_ctx c;
	uint64_t rx_bytes = 0;
	uint16_t i, sent, n4 = 0, n6 = 0; /* routed IPv4 and IPv6 frames (c.v4, c.v6) */

	c.n_punt = c.n_err = c.n_freed = c.n_slots = 0;
	memset(c.slot_of, 0xff, sizeof(c.slot_of[0]) * rsw_dp.n_ports * RSW_N_TC);
	c.used_add = 0;
	c.has_cnp = 0;
	c.buf_room = 0;
	c.fast_tcs = 0;
	memset(c.pg_owner, 0xff, sizeof(c.pg_owner));
	if (likely(t != NULL)) {
		const struct rsw_qos_params *qp = &t->qos;
		uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED);

		c.fast_tcs = (uint8_t) ~(qp->trim_tcs | (qp->ecn_enqueue ? qp->ecn_enabled : 0));
		if (qp->total > used + qp->headroom_reserved)
			c.buf_room = qp->total - used - qp->headroom_reserved;
	}
	c.now = now;
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
	dscp_tc = t != NULL && t->trust != RSW_TRUST_PCP ? t->dscp_to_tc : NULL;
	for (i = 0; i < RSW_PREFETCH_OFFSET && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rsw_pkt_info *info = &c.info[i];
		enum rsw_pkt_kind kind;
		const uint8_t *l3;

		if (i + RSW_PREFETCH_OFFSET < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RSW_PREFETCH_OFFSET], void *));
		rx_bytes += rte_pktmbuf_pkt_len(m);
		kind = rsw_parse_fast(m, mac48, mac, info, &l3);
		if (likely(kind == RSW_PK_IPV4 && l3 != NULL && !(info->flags & RSW_PF_CNP) &&
			   dscp_tc != NULL)) {
			/* The common case: an untagged IPv4 frame classified by its DSCP. */
			const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;

			info->tc = dscp_tc[ip->type_of_service >> 2];
			lookup_key4(&c, n4++, m, (uint8_t)i, ip);
			continue;
		}
		if (likely(kind == RSW_PK_IPV6 && l3 != NULL && !(info->flags & RSW_PF_CNP) &&
			   dscp_tc != NULL)) {
			/* The same for IPv6. */
			const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;

			info->tc = dscp_tc[info->dscp];
			lookup_key6(&c, n6++, m, (uint8_t)i, ip);
			continue;
		}
		if (unlikely(info->flags & RSW_PF_CNP)) {
			ps->c[RSW_PC_cnp_rx]++;
			c.has_cnp = 1;
		}
		if (kind == RSW_PK_IPV4 || kind == RSW_PK_IPV6) {
			info->tc = t ? classify(t, info) : 0;
			if (unlikely(info->flags & RSW_PF_CNP) && t && t->qos.cnp_coalesce_ticks &&
			    cnp_coalesced(t, &st->lb_state, m, info, c.now)) {
				count_drop(&c, st, in_port, m, RSW_PC_cnp_coalesced);
				continue;
			}
		}
		switch (kind) {
		case RSW_PK_IPV4:
			lookup_key4(&c, n4++, m, (uint8_t)i,
				    rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
							    info->l3_off));
			break;
		case RSW_PK_IPV6:
			lookup_key6(&c, n6++, m, (uint8_t)i,
				    rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
							    info->l3_off));
			break;
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
			if (unlikely(t == NULL ||
				     rsw_pfc_rx(&st->qos, &t->qos, in_port,
						rte_pktmbuf_mtod_offset(m, const uint8_t *,
									info->l3_off),
						rte_pktmbuf_data_len(m) - info->l3_off,
						rte_rdtsc()) != 0))
				ps->c[RSW_PC_parse_errors]++;
			c.freed[c.n_freed++] = m;
			break;
		default:
			count_drop(&c, st, in_port, m, info->drop);
			break;
		}
	}
	ps->c[RSW_PC_rx_packets] += n;
	ps->c[RSW_PC_rx_bytes] += rx_bytes;
	c.rx_bytes = rx_bytes;

	/* Pass 2: one bulk lookup per family, then act on each result. */
	if (unlikely(t == NULL)) {
		for (i = 0; i < n4; i++)
			count_drop(&c, st, in_port, c.v4[i], RSW_PC_no_route);
		for (i = 0; i < n6; i++)
			count_drop(&c, st, in_port, c.v6[i], RSW_PC_no_route);
		n4 = n6 = 0;
	}
	if (t != NULL && t->lb_hash_batch) {
		struct rsw_lb_sel s;

		/* Independent CRC chains in one loop overlap; one per packet inside the forwarding
		 * step waited on each other. The hash settings are worked out once. */
		rsw_lb_sel_init(&s, t);
		for (i = 0; i < n4; i++)
			c.hash[c.v4_idx[i]] = rsw_lb_hash_parsed(&s, c.v4[i], &c.info[c.v4_idx[i]]);
		for (i = 0; i < n6; i++)
			c.hash[c.v6_idx[i]] = rsw_lb_hash_parsed(&s, c.v6[i], &c.info[c.v6_idx[i]]);
	}
	if (n4 > 0) {
		rte_fib_lookup_bulk(t->fib4, c.v4_ip, c.v4_nh, n4);
		for (i = 0; i < n4; i++)
			forward_one(&c, st, t, in_port, c.v4[i], c.v4_idx[i], c.v4_nh[i]);
	}
	if (n6 > 0) {
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
		rte_fib6_lookup_bulk(t->fib6, (const struct rte_ipv6_addr *)c.v6_ip, c.v6_nh, n6);
#else
		rte_fib6_lookup_bulk(t->fib6, c.v6_ip, c.v6_nh, n6);
#endif
		for (i = 0; i < n6; i++)
			forward_one(&c, st, t, in_port, c.v6[i], c.v6_idx[i], c.v6_nh[i]);
	}

	/* Pass 3: hand off. */
	if (c.n_punt > 0) {
		sent = (uint16_t)rte_ring_mp_enqueue_burst(rsw_dp.punt, (void **)c.punt, c.n_punt,
							   NULL);
		ps->c[RSW_PC_punted] += sent;
		rsw_drop(st, in_port, c.punt + sent, c.n_punt - sent, RSW_PC_punt_dropped);
	}
	if (c.n_err > 0) {
		/* Already counted under their drop reason; an error the ring cannot take is lost. */
		sent = (uint16_t)rte_ring_mp_enqueue_burst(rsw_dp.punt, (void **)c.err, c.n_err,
							   NULL);
		if (sent < c.n_err)
			rte_pktmbuf_free_bulk(c.err + sent, c.n_err - sent);
	}
	if (c.n_slots > 0) {
		if (rsw_dp.cut_through)
			cut_through(&c, st, &t->qos);
		enqueue_slots(&c, st, t, in_port);
	}
	if (c.n_freed > 0)
		rte_pktmbuf_free_bulk(c.freed, c.n_freed);
}

/*
 * The express path: the case that dominates a fabric, decided per burst (DESIGN.md §3). A frame
 * that rsw_parse_express4/6 takes (untagged IP to the port's MAC, TTL above 1, not a CNP),
 * routed by a plain route (one next hop, up, resolved, within the egress MTU) to a port this
 * lcore owns that is idle, not paused, not under a watchdog drop and has the shaper's tokens
 * for the whole burst, goes straight to the PMD: no parse record, no (port, TC) slot, no
 * admission per frame. Admission is decided once per burst: the candidates' bytes of each TC
 * fit below the lossy queue limit, the TC's trim threshold and kmin (express_bytes[]), and in
 * the room of the TC's ingress PG if lossless; all of them fit in the shared buffer (a queue
 * (port, TC) gets at most its TC's bytes). The general path would then have admitted each
 * frame and sent it cut-through: the counters are the ones it keeps. Every other frame of the
 * burst follows through the general path, in arrival order; when the burst check fails, the
 * whole burst does, and so do the port's next RSW_EXPRESS_BACKOFF bursts.
 */
/* What the express path sends to one port: its per-TC counts, one word each (see tc_count). */
struct express_port {
	uint64_t tc[RSW_N_TC];
};

/* One frame of `bytes` for a TC's word of struct express_port: packets in the low 32 bits. */
static __rte_always_inline uint64_t
tc_count(uint32_t bytes)
{
	return (uint64_t)bytes << 32 | 1;
}

/* The candidates of one family: frame, burst index, lookup result, flow hash, length, TC. */
struct express_fam {
	struct rte_mbuf *m[RSW_BURST];
	uint64_t nh[RSW_BURST];
	uint32_t h[RSW_BURST]; /* rsw_lb_hash, for a result that is not a plain route */
	uint16_t l3_len[RSW_BURST];
	uint8_t idx[RSW_BURST];
	uint8_t tc[RSW_BURST];
	uint16_t n;
};

struct express {
	struct express_fam f4, f6;
	uint32_t key4[RSW_BURST];    /* destination, host order */
	uint8_t key6[RSW_BURST][16]; /* destination */
	uint32_t checked;            /* egress ports looked at in this burst */
	uint32_t open;               /* egress ports taking express frames */
	uint64_t bytes;              /* the candidates' bytes */
	uint64_t now;
	/* Per egress port, strides of powers of two: frames, their number, per-TC counts. */
	struct rte_mbuf *m[RSW_MAX_PORTS][RSW_BURST];
	uint8_t n[RSW_MAX_PORTS];
	struct express_port port[RSW_MAX_PORTS];
};

/* Whether egress port p takes express frames in this burst (then its counts start at 0). */
static __rte_noinline bool
express_open(struct express *x, uint16_t p)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t storm;

	x->checked |= 1u << p;
	memcpy(&storm, qport->storm_drop, sizeof(storm));
	if (rsw_dp.ports[p].owner != rte_lcore_id() || !rsw_port_idle(p) || storm != 0 ||
	    rsw_paused_mask(qport, x->now) != 0)
		return false;
	if (qport->speed_bps) {
		struct rsw_port_sched *ps = &rsw_sched[p];

		rsw_shaper_refill(ps, qport->speed_bps, rsw_dp.ports[p].mtu, x->now);
		if (ps->tokens_milli < rsw_wire_milli(x->bytes, x->f4.n + x->f6.n))
			return false;
	}
	x->n[p] = 0;
	memset(&x->port[p], 0, sizeof(x->port[p]));
	x->open |= 1u << p;
	return true;
}

/*
 * The burst check: whether the general path's admission takes every candidate (tcs: their
 * TCs; tc_bytes: their bytes per TC, the most the burst adds to any queue or PG).
 */
static inline bool
express_admits(const struct express *x, const struct rsw_qos_params *qp, uint16_t in_port,
	       uint8_t tcs, const uint64_t tc_bytes[RSW_N_TC])
{
	uint64_t used = __atomic_load_n(&rsw_qos.used, __ATOMIC_RELAXED), pg_max;
	uint8_t lossless = tcs & qp->lossless;
	unsigned int tc;

	if (used + qp->headroom_reserved + x->bytes > qp->total)
		return false;
	for (; tcs != 0; tcs &= (uint8_t)(tcs - 1)) {
		tc = (unsigned int)__builtin_ctz(tcs);
		if (tc_bytes[tc] > qp->express_bytes[tc])
			return false;
	}
	if (lossless == 0)
		return true;
	/* A lossless TC: XOFF at the fullest buffer the burst can leave, as pg_room. */
	pg_max = rsw_pfc_xoff(qp, used + x->bytes) + qp->headroom;
	for (; lossless != 0; lossless &= (uint8_t)(lossless - 1)) {
		tc = (unsigned int)__builtin_ctz(lossless);
		if (__atomic_load_n(&rsw_qos.port[in_port].pg_bytes[tc], __ATOMIC_RELAXED) +
			    tc_bytes[tc] >
		    pg_max)
			return false;
	}
	return true;
}

/*
 * Send what the express path forwarded to port p (TCs among tcs), with the counters
 * cut-through keeps. @return its bytes.
 */
static inline uint64_t
express_tx(struct rsw_lcore_stats *st, struct express *x, uint16_t p, uint8_t tcs)
{
	const struct express_port *xp = &x->port[p];
	struct rsw_qos_port *qport = &rsw_qos.port[p];
	uint64_t bytes = 0, c;
	unsigned int tc;

	while (tcs != 0) {
		tc = (unsigned int)__builtin_ctz(tcs);
		tcs &= (uint8_t)(tcs - 1);
		c = xp->tc[tc];
		if (c == 0)
			continue;
		bytes += c >> 32;
		count_cut_through(st, p, (uint8_t)tc, (uint32_t)c, c >> 32);
	}
	if (qport->speed_bps)
		rsw_sched[p].tokens_milli -= rsw_wire_milli(bytes, x->n[p]);
	rsw_port_tx(st, p, x->m[p], x->n[p], bytes); /* pending is empty: room for 32 */
	return bytes;
}

/*
 * Pass 1's running totals: a local of express_burst, not in struct express, so that they stay
 * in registers (the byte stores to the candidate arrays could alias anything in that struct).
 */
struct express_acc {
	unsigned int n4, n6;
	uint64_t tc_bytes[RSW_N_TC];
};

/* Make frame m a candidate of family f, number k: burst index idx, IP length, DSCP. */
static __rte_always_inline void
express_add(struct express_acc *a, struct express_fam *f, unsigned int k,
	    const struct rsw_tables *t, struct rte_mbuf *m, uint8_t idx, uint16_t l3_len,
	    uint8_t dscp)
{
	uint8_t tc = t->dscp_to_tc[dscp];
	uint32_t len = rte_pktmbuf_pkt_len(m);

	f->m[k] = m;
	f->idx[k] = idx;
	f->l3_len[k] = l3_len;
	f->tc[k] = tc;
	a->tc_bytes[tc] += len; /* the TCs and total bytes follow from these, once per burst */
}

/* Make frame m (burst index idx) a candidate if rsw_parse_express4/6 takes it. */
static __rte_always_inline bool
express_take(struct express *x, struct express_acc *a, const struct rsw_tables *t,
	     struct rte_mbuf *m, uint8_t idx, uint64_t mac48)
{
	const struct rte_ipv4_hdr *ip4 = rsw_parse_express4(m, mac48);
	const struct rte_ipv6_hdr *ip6;

	if (likely(ip4 != NULL)) {
		x->key4[a->n4] = rsw_ntohl(ip4->dst_addr);
		express_add(a, &x->f4, a->n4++, t, m, idx, rsw_ntohs(ip4->total_length),
			    (uint8_t)((unsigned int)ip4->type_of_service >> 2));
		return true;
	}
	ip6 = rsw_parse_express6(m, mac48);
	if (likely(ip6 != NULL)) {
		memcpy(x->key6[a->n6], ip6->dst_addr, 16);
		express_add(a, &x->f6, a->n6++, t, m, idx,
			    (uint16_t)(sizeof(*ip6) + rsw_ntohs(ip6->payload_len)),
			    (uint8_t)((rsw_ntohl(ip6->vtc_flow) >> 22) & 0x3f));
		return true;
	}
	return false;
}

/*
 * The rest of forwarding candidate k of family f (kind) to port out, neighbour neigh, counted
 * on the group member's counters lb. @return false when the general path must take it
 * (nothing changed).
 */
static __rte_always_inline bool
express_out(struct express *x, const struct express_fam *f, unsigned int k, uint8_t kind,
	    unsigned int out, uint32_t neigh, struct rsw_lb_member_stats *lb)
{
	struct rte_mbuf *m = f->m[k];
	const struct rsw_port_rt *pr;
	uint16_t l3_len = f->l3_len[k];
	uint64_t mac;
	uint32_t len;
	uint8_t tc;

	if (unlikely(!((x->open >> out) & 1)) &&
	    (((x->checked >> out) & 1) || !express_open(x, out)))
		return false;
	pr = &rsw_dp.ports[out];
	RSW_OPAQUE(pr); /* computed once: GCC 12 made it twice, for fwd_mtu and for the MAC */
	/* Too big, or the port is down (fwd_mtu 0: check both). */
	if (unlikely(l3_len > pr->fwd_mtu) && (pr->admin_down || l3_len > pr->mtu))
		return false;
	/* A group member's neighbour is an entry: tables.c refuses the route when the table is
	 * full. */
	mac = __atomic_load_n(&rsw_fib_main.neigh[neigh].mac_valid, __ATOMIC_ACQUIRE);
	if (unlikely(!(mac & RSW_NEIGH_VALID)))
		return false;
	rsw_rewrite_word(m, RTE_ETHER_HDR_LEN, kind, mac, &pr->mac);
	len = rte_pktmbuf_pkt_len(m);
	tc = f->tc[k];
	rsw_lb_count(lb, len);
	x->m[out][x->n[out]++] = m;
	x->port[out].tc[tc] += tc_count(len);
	return true;
}

/*
 * express_fwd for a group gid that is not a plain route: a group of one member, one that
 * hashes (f->h[k], computed for the burst by express_hash) or one that sprays round-robin: the
 * member rsw_lb_select_h would pick. A spraying group's position moves on only when the frame
 * goes, so each entry of the spray sequence is taken once, by whichever path sends the frame.
 * Random spray, adaptive and flowlet groups go to the general path. Inline: as a call it cost
 * a spraying frame 31 instructions of prologue, epilogue and argument moves, and the
 * plain-route path nothing either way.
 */
static __rte_always_inline bool
express_group(struct express *x, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	      const struct express_fam *f, unsigned int k, uint8_t kind, uint32_t gid)
{
	const struct rsw_group *g = &t->groups[gid];
	uint16_t live = rsw_lb_live(g, gid);
	uint32_t mi = 0, pos = st->lb_state.rr[gid];
	const struct rsw_nexthop *nh;

	if (unlikely(live == 0))
		return false;
	if (g->n_members > 1) {
		int mode = rsw_lb_mode_for_tc(t, g->lb_mode, f->tc[k]);

		if (mode == RSW_LB_HASH && t->lb_hash_batch) /* set when tables can hash */
			mi = rsw_lb_pick_live(g, live, f->h[k]);
		else if (mode == RSW_LB_SPRAY && !t->spray_random)
			mi = rsw_lb_spray_rr(g, live, &pos);
		else
			return false;
	}
	nh = &t->nh[g->members[mi]];
	if (!express_out(x, f, k, kind, nh->port, nh->neigh, &st->lb[gid][mi]))
		return false;
	st->lb_state.rr[gid] = pos;
	return true;
}

/*
 * Forward candidate k of family f (kind: its enum rsw_pkt_kind) if its route, port, MTU and
 * neighbour allow. @return false when the general path must take it (nothing changed).
 */
static __rte_always_inline bool
express_fwd(struct express *x, struct rsw_lcore_stats *st, const struct rsw_tables *t,
	    const struct express_fam *f, unsigned int k, uint8_t kind)
{
	uint64_t nhv = f->nh[k];
	const struct rsw_result *r = &t->results[nhv] /* < n_results: rsw_tables_add_route */;

	if (unlikely(!rsw_result_plain(r))) {
		if (r->type != RSW_RES_GROUP)
			return false;
		return express_group(x, st, t, f, k, kind, r->id);
	}
	if (unlikely(__atomic_load_n(&rsw_lb_down[r->id], __ATOMIC_RELAXED) & 1))
		return false;
	return express_out(x, f, k, kind, r->port, r->neigh, &st->lb[r->id][0]);
}

/*
 * The flow hashes of family f's candidates whose result is not a plain route (kind: its enum
 * rsw_pkt_kind), in a loop of their own: the CRC chains of different frames overlap there,
 * where inside the forwarding step each waited on the one before.
 */
static __rte_always_inline void
express_hash(struct express_fam *f, const struct rsw_tables *t, uint8_t kind)
{
	const struct rsw_result *res = t->results;
	struct rsw_lb_sel s;
	const uint8_t *l3;
	unsigned int k, n = f->n;

	rsw_lb_sel_init(&s, t);
	for (k = 0; k < n; k++) {
		if (likely(rsw_result_plain(&res[f->nh[k]])))
			continue;
		l3 = rte_pktmbuf_mtod_offset(f->m[k], const uint8_t *, RTE_ETHER_HDR_LEN);
		if (kind == RSW_PK_IPV4)
			f->h[k] = rsw_lb_hash_express4(&s, (const struct rte_ipv4_hdr *)l3);
		else
			f->h[k] = rsw_lb_hash_express6(&s, (const struct rte_ipv6_hdr *)l3);
	}
}

/*
 * The express path for a burst of port in_port (trust DSCP, cut-through on, the port up).
 * @return false when it took nothing (the general path takes the whole burst).
 */
static inline bool
express_burst(struct rsw_lcore_stats *st, const struct rsw_tables *t, uint16_t in_port,
	      struct rte_mbuf **pkts, uint16_t n, uint64_t now)
{
	const uint64_t mac48 = rsw_mac48(&rsw_dp.ports[in_port].mac);
	struct rte_mbuf *slow_m[RSW_BURST];
	struct express x;
	uint64_t fwd_bytes = 0;
	uint32_t slow = 0, open;
	struct express_acc a = {0};
	uint64_t tc_bytes[RSW_N_TC];
	unsigned int k, nf;
	uint16_t i, p, n_slow = 0, n_fwd = 0;
	uint8_t tcs = 0;

	for (i = 0; i < RSW_PREFETCH_OFFSET && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	/* The prefetch of frame i + 3 without a branch per frame, then the last three. */
	for (i = 0; i + RSW_PREFETCH_OFFSET < n; i++) {
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i + RSW_PREFETCH_OFFSET], void *));
		if (unlikely(!express_take(&x, &a, t, pkts[i], (uint8_t)i, mac48)))
			slow |= 1u << i;
	}
	for (; i < n; i++)
		if (unlikely(!express_take(&x, &a, t, pkts[i], (uint8_t)i, mac48)))
			slow |= 1u << i;
	x.f4.n = (uint16_t)a.n4;
	x.f6.n = (uint16_t)a.n6;
	/* A copy for the burst check: a's address taken, its totals would leave the registers. */
	memcpy(tc_bytes, a.tc_bytes, sizeof(tc_bytes));
	x.bytes = 0;
	for (i = 0; i < RSW_N_TC; i++) {
		x.bytes += a.tc_bytes[i];
		tcs |= (uint8_t)((a.tc_bytes[i] != 0) << i); /* a frame has 14 bytes or more */
	}
	if (unlikely(x.f4.n + x.f6.n == 0 ||
		     !express_admits(&x, &t->qos, in_port, tcs, tc_bytes))) {
		st->express_skip[in_port] = RSW_EXPRESS_BACKOFF;
		return false;
	}

	x.checked = x.open = 0;
	x.now = now;
	if (x.f4.n > 0) {
		rte_fib_lookup_bulk(t->fib4, x.key4, x.f4.nh, x.f4.n);
		if (t->lb_hash_batch)
			express_hash(&x.f4, t, RSW_PK_IPV4);
		for (k = 0, nf = x.f4.n; k < nf; k++)
			if (unlikely(!express_fwd(&x, st, t, &x.f4, k, RSW_PK_IPV4)))
				slow |= 1u << x.f4.idx[k];
	}
	if (x.f6.n > 0) {
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
		rte_fib6_lookup_bulk(t->fib6, (const struct rte_ipv6_addr *)x.key6, x.f6.nh,
				     x.f6.n);
#else
		rte_fib6_lookup_bulk(t->fib6, x.key6, x.f6.nh, x.f6.n);
#endif
		if (t->lb_hash_batch)
			express_hash(&x.f6, t, RSW_PK_IPV6);
		for (k = 0, nf = x.f6.n; k < nf; k++)
			if (unlikely(!express_fwd(&x, st, t, &x.f6, k, RSW_PK_IPV6)))
				slow |= 1u << x.f6.idx[k];
	}

	for (open = x.open; open != 0; open &= open - 1) {
		p = (uint16_t)__builtin_ctz(open);
		if (x.n[p] == 0)
			continue;
		n_fwd = (uint16_t)(n_fwd + x.n[p]);
		fwd_bytes += express_tx(st, &x, p, tcs);
	}
	st->port[in_port].c[RSW_PC_rx_packets] += n_fwd;
	st->port[in_port].c[RSW_PC_rx_bytes] += fwd_bytes;
	st->express_packets += n_fwd;
	if (unlikely(x.f4.n + x.f6.n > 2 * n_fwd))
		st->express_skip[in_port] =
			RSW_EXPRESS_BACKOFF; /* most bounced: adaptive groups, busy ports */
	if (slow != 0) {
		for (; slow != 0; slow &= slow - 1)
			slow_m[n_slow++] = pkts[__builtin_ctz(slow)];
		process_general(st, t, in_port, slow_m, n_slow, now);
	}
	return true;
}

void
rsw_process_burst(struct rsw_lcore_stats *st, uint16_t in_port, struct rte_mbuf **pkts, uint16_t n)
{
	const struct rsw_tables *t = __atomic_load_n(&rsw_fib_main.tables, __ATOMIC_ACQUIRE);
	uint64_t now = rte_rdtsc();

	if (likely(t != NULL && rsw_dp.express && rsw_dp.cut_through && t->trust != RSW_TRUST_PCP &&
		   !rsw_dp.ports[in_port].admin_down)) {
		if (likely(st->express_skip[in_port] == 0)) {
			if (express_burst(st, t, in_port, pkts, n, now))
				return;
		} else {
			st->express_skip[in_port]--;
		}
	}
	process_general(st, t, in_port, pkts, n, now);
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

	if (unlikely(t == NULL))
		return 0;
	/* Nothing queued and no PFC to generate: no clock read, no scheduler. */
	if (rsw_port_idle(p) && (!t->qos.lossless || pfc_idle(&t->qos, p)))
		return 0;
	return rsw_sched_port(st, &t->qos, p, rte_rdtsc());
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
		watermark_epoch(&st->qos);
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
