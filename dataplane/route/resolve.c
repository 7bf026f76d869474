/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 4-6 of the packet path, the resolve step (rsw_resolve.h): its loop is inline there,
 * in the burst driver's frame, so that the burst's arrays are addressed from the stack and the
 * loop keeps its registers; its rare branches are here, out of line: the drops, the MTU, the
 * punts and ICMP errors (each frame's parse record made first), the load-balance modes that
 * read a record. rsw_punt_meta is the metadata of every punted frame.
 */

#include <rte_branch_prediction.h>
#include <rte_ip.h>

#include "rsw_lb.h"
#include "rsw_resolve.h"

__rte_noinline void
rsw_punt_meta(struct rte_mbuf *m, const struct rsw_pkt_info *info, uint16_t in_port, uint8_t reason,
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

void
rsw_resolve_icmp(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k, uint8_t answer,
		 enum rsw_port_ctr why, uint8_t reason)
{
	struct rte_mbuf *m = f->m[k];

	c->st->port[c->in_port].c[why]++;
	if (!answer) {
		c->freed[c->n_freed++] = m;
		return;
	}
	rsw_punt_meta(m, rsw_burst_record(c, f->idx[k], m), c->in_port, reason, UINT32_MAX,
		      c->in_port);
	c->err[c->n_err++] = m;
}

uint32_t
rsw_resolve_select_other(struct rsw_burst *c, const struct rsw_group *g, uint32_t gid,
			 const struct rsw_fam *f, uint16_t k, uint16_t live)
{
	const struct rsw_tables *t = c->t;
	const struct rsw_pkt_info *info = rsw_burst_record(c, f->idx[k], f->m[k]);

	return rsw_lb_select_multi(t, g, gid, f->m[k], info, &c->st->lb_state, c->now, live,
				   t->lb_hash_batch ? &f->hash[k] : NULL);
}

uint32_t
rsw_resolve_ask(uint32_t gid)
{
	uint16_t ask = __atomic_load_n(&rsw_lb_ask[gid], __ATOMIC_RELAXED);

	return ask != 0 ? (uint32_t)__builtin_ctz(ask) : RSW_LB_NONE;
}

void
rsw_resolve_drop(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k, enum rsw_port_ctr why)
{
	rsw_burst_drop(c, c->st, c->in_port, f->m[k], why);
}

bool
rsw_resolve_mtu(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k, uint16_t out)
{
	const struct rsw_port_rt *pr = &rsw_dp.ports[out];

	if (pr->admin_down) {
		rsw_resolve_drop(c, f, k, RSW_PC_port_down);
		return false;
	}
	if (f->l3_len[k] <= pr->mtu)
		return true;
	rsw_resolve_icmp(c, f, k, c->t->icmp_unreachable, RSW_PC_mtu_exceeded, RSW_PUNT_MTU);
	rsw_meta(f->m[k])->out_port = out;
	return false;
}

void
rsw_resolve_punt(struct rsw_burst *c, const struct rsw_fam *f, uint16_t k, uint8_t reason,
		 uint32_t neigh, uint16_t out)
{
	struct rte_mbuf *m = f->m[k];

	if (neigh == RSW_NEIGH_NONE)
		neigh = UINT32_MAX; /* the punt record's "no entry" */
	rsw_punt_meta(m, rsw_burst_record(c, f->idx[k], m), c->in_port, reason, neigh, out);
	c->punt[c->n_punt++] = m;
}
