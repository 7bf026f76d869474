/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * CBFC in the pipeline (rsw_link.h, docs/link.md "Credit-based flow control"): the receive
 * step (credit messages consumed, data frames counted on their VC), the per-loop poll (the
 * receiver's grants from its ingress PGs, the sender's reports, sent through the
 * impairments like PFC frames and never through LLR), and the scheduler's credit gate.
 * Only ports with CBFC get here, on their owner lcore.
 */

#include <rte_ethdev.h>

#include "rsw_classify.h"
#include "rsw_fib.h"
#include "rsw_link.h"
#include "rsw_parse.h"
#include "rsw_qos.h"
#include "rsw_worker.h"

/* Destination of credit messages: 802.1D reserved, never forwarded by a bridge. */
static const uint8_t cbfc_dst[6] = RSW_LLR_CTL_DST;

int
rsw_link_cbfc_take_slow(struct rsw_link_cbfc *lc, uint8_t tc, uint32_t len)
{
	return rsw_cbfc_tx_take(&lc->c, tc, len, rsw_link_now_ns());
}

/* The VC of a data frame as this switch classifies it (its ingress PG), or -1. */
static int
frame_vc(const struct rsw_tables *t, uint16_t p, const struct rte_mbuf *m)
{
	struct rsw_pkt_info info;
	enum rsw_pkt_kind kind = rsw_parse(m, &rsw_dp.ports[p].mac, &info);

	if (kind != RSW_PK_IPV4 && kind != RSW_PK_IPV6)
		return -1;
	return rsw_classify(t, &info);
}

uint16_t
rsw_link_cbfc_rx(struct rsw_lcore_stats *st, struct rsw_link_cbfc *lc, struct rte_mbuf **pkts,
		 uint16_t n)
{
	const struct rsw_tables *t = __atomic_load_n(&rsw_fib_main.tables, __ATOMIC_ACQUIRE);
	struct rsw_cbfc *c = &lc->c;
	uint64_t now = 0;
	uint16_t i, out = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rsw_cbfc_msg msg;
		enum rsw_cbfc_frame_err e;
		int vc;

		e = rsw_cbfc_frame_decode(rte_pktmbuf_mtod(m, const uint8_t *),
					  rte_pktmbuf_data_len(m), &msg);
		if (e == RSW_CBFC_FRAME_NOT_CBFC) {
			/* Data: its credits, on the VC of its ingress PG. */
			if (c->rx_vcs != 0 && t != NULL && (vc = frame_vc(t, lc->port, m)) >= 0)
				rsw_cbfc_rx_data(c, (uint8_t)vc, rte_pktmbuf_pkt_len(m));
			pkts[out++] = m;
			continue;
		}
		if (e != RSW_CBFC_FRAME_OK) {
			c->ctr[RSW_CBFC_msgs_rx_bad]++;
			rsw_drop(st, lc->port, &m, 1, RSW_PC_cbfc_rx_bad);
			continue;
		}
		if (now == 0)
			now = rsw_link_now_ns();
		rsw_cbfc_rx_msg(c, &msg, now);
		st->port[lc->port].c[RSW_PC_cbfc_consumed]++;
		rte_pktmbuf_free(m);
	}
	return out;
}

uint16_t
rsw_link_cbfc_poll(struct rsw_lcore_stats *st, struct rsw_link_cbfc *lc, int may_report)
{
	const struct rsw_qos_port *qport = &rsw_qos.port[lc->port];
	uint64_t occupied[RSW_CBFC_N_VC];
	struct rsw_cbfc_msg msg[4];
	unsigned int k, n;
	uint16_t sent = 0;
	int v;

	for (v = 0; v < RSW_CBFC_N_VC; v++)
		occupied[v] = __atomic_load_n(&qport->pg_bytes[v], __ATOMIC_RELAXED);
	n = rsw_cbfc_poll(&lc->c, rsw_link_now_ns(), occupied, may_report, msg, RTE_DIM(msg));
	for (k = 0; k < n; k++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(rsw_dp.pool);
		uint8_t *buf;

		if (m == NULL)
			continue; /* as if lost on the wire: the next update heals */
		buf = (uint8_t *)rte_pktmbuf_append(m, RSW_CBFC_FRAME_LEN);
		if (buf == NULL ||
		    rsw_cbfc_frame_encode(buf, cbfc_dst, rsw_dp.ports[lc->port].mac.addr_bytes,
					  &msg[k]) < 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		/* Like a PFC frame: impairments, then the PMD (not LLR: never sequenced). */
		if (rsw_link_tx1(st, lc->port, m) != 1) {
			rte_pktmbuf_free(m); /* refused: the next update heals */
			continue;
		}
		st->port[lc->port].c[RSW_PC_cbfc_originated]++;
		st->port[lc->port].c[RSW_PC_tx_packets]++;
		st->port[lc->port].c[RSW_PC_tx_bytes] += RSW_CBFC_FRAME_LEN;
		sent++;
	}
	return sent;
}
