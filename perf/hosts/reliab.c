/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Go-back-N (RoCEv2 RC) and UET-like selective repeat, the state machines of
 * rsw_reliab.h. The hosts' fast path calls these once per packet; they touch only
 * the QP's own state and the caller's arrays.
 */

#include <stddef.h>

#include "rsw_reliab.h"

void
rsw_gbn_tx_init(struct rsw_gbn_tx *tx, uint32_t total, uint32_t window)
{
	*tx = (struct rsw_gbn_tx){.total = total, .window = window ? window : 1};
}

int
rsw_gbn_tx_next(struct rsw_gbn_tx *tx, uint32_t *psn, int *retx)
{
	if (tx->total != RSW_PSN_UNBOUNDED && tx->nxt >= tx->total)
		return 0;
	if (tx->nxt - tx->una >= tx->window)
		return 0;
	*psn = tx->nxt;
	*retx = tx->nxt < tx->max;
	if (*retx)
		tx->retransmits++;
	tx->nxt++;
	if (tx->nxt > tx->max)
		tx->max = tx->nxt;
	return 1;
}

void
rsw_gbn_tx_ack(struct rsw_gbn_tx *tx, uint32_t psn, uint64_t now)
{
	uint32_t una = psn + 1;

	if (una <= tx->una || una > tx->max)
		return; /* old or beyond anything sent */
	tx->una = una;
	if (tx->nxt < una)
		tx->nxt = una;
	tx->progress_ns = now;
}

void
rsw_gbn_tx_nak(struct rsw_gbn_tx *tx, uint32_t epsn, uint64_t now)
{
	if (epsn < tx->una || epsn > tx->max)
		return;
	tx->una = epsn;
	tx->nxt = epsn;
	tx->naks++;
	tx->progress_ns = now;
}

int
rsw_gbn_tx_timeout(struct rsw_gbn_tx *tx, uint64_t now, uint64_t rto_ns)
{
	if (tx->una >= tx->max || now - tx->progress_ns < rto_ns)
		return 0;
	tx->nxt = tx->una;
	tx->timeouts++;
	tx->progress_ns = now;
	return 1;
}

int
rsw_gbn_tx_done(const struct rsw_gbn_tx *tx)
{
	return tx->total != RSW_PSN_UNBOUNDED && tx->una >= tx->total;
}

void
rsw_gbn_rx_init(struct rsw_gbn_rx *rx)
{
	*rx = (struct rsw_gbn_rx){0};
}

int
rsw_gbn_rx_data(struct rsw_gbn_rx *rx, uint32_t psn, uint32_t ack_every, int last,
		uint32_t *ack_psn)
{
	if (psn == rx->epsn) {
		rx->epsn++;
		rx->nak_sent = 0;
		*ack_psn = psn;
		if (++rx->since_ack >= ack_every || last) {
			rx->since_ack = 0;
			return RSW_RX_DELIVER | RSW_RX_ACK;
		}
		return RSW_RX_DELIVER;
	}
	if (psn > rx->epsn) {
		rx->out_of_order++;
		if (rx->nak_sent)
			return 0;
		rx->nak_sent = 1;
		*ack_psn = rx->epsn;
		return RSW_RX_NAK;
	}
	/* A duplicate: the sender went back further than needed; tell it where we are. */
	rx->duplicates++;
	if (rx->epsn == 0)
		return 0;
	*ack_psn = rx->epsn - 1;
	rx->since_ack = 0;
	return RSW_RX_ACK;
}

void
rsw_uet_tx_init(struct rsw_uet_tx *tx, uint32_t total, uint32_t window, uint8_t *state,
		uint64_t *sent_ns, uint32_t *rq)
{
	uint32_t i;

	*tx = (struct rsw_uet_tx){
		.total = total,
		.window = window,
		.state = state,
		.sent_ns = sent_ns,
		.rq = rq,
	};
	for (i = 0; i < window; i++) {
		state[i] = 0;
		sent_ns[i] = 0;
	}
}

int
rsw_uet_tx_next(struct rsw_uet_tx *tx, uint32_t *psn, int *retx)
{
	uint32_t m = tx->window - 1;

	while (tx->rq_head != tx->rq_tail) {
		uint32_t p = tx->rq[tx->rq_head++ & m];

		tx->state[p & m] &= ~RSW_UET_QUEUED;
		if (p < tx->una || (tx->state[p & m] & RSW_UET_ACKED))
			continue; /* acknowledged meanwhile */
		*psn = p;
		*retx = 1;
		tx->retransmits++;
		return 1;
	}
	if (tx->total != RSW_PSN_UNBOUNDED && tx->nxt >= tx->total)
		return 0;
	if (tx->nxt - tx->una >= tx->window)
		return 0;
	*psn = tx->nxt++;
	*retx = 0;
	tx->state[*psn & m] = 0;
	return 1;
}

void
rsw_uet_tx_sent(struct rsw_uet_tx *tx, uint32_t psn, uint64_t now)
{
	tx->sent_ns[psn & (tx->window - 1)] = now;
}

static void
uet_mark(struct rsw_uet_tx *tx, uint32_t psn)
{
	if (psn < tx->una || psn >= tx->nxt)
		return;
	tx->state[psn & (tx->window - 1)] |= RSW_UET_ACKED;
}

void
rsw_uet_tx_ack(struct rsw_uet_tx *tx, uint32_t cum, uint64_t sack)
{
	uint32_t m = tx->window - 1, p, i;

	if (cum > tx->nxt)
		return; /* beyond anything sent: ignore */
	for (p = tx->una; p < cum; p++)
		tx->state[p & m] |= RSW_UET_ACKED;
	for (i = 0; i < 64 && sack != 0; i++, sack >>= 1)
		if (sack & 1)
			uet_mark(tx, cum + 1 + i);
	while (tx->una < tx->nxt && (tx->state[tx->una & m] & RSW_UET_ACKED)) {
		/* A slot leaves the window: a queued PSN of it is skipped when popped. */
		tx->state[tx->una & m] &= ~RSW_UET_QUEUED;
		tx->una++;
	}
}

static int
uet_queue(struct rsw_uet_tx *tx, uint32_t psn)
{
	uint32_t m = tx->window - 1;

	if (psn < tx->una || psn >= tx->nxt)
		return 0;
	if (tx->state[psn & m] & (RSW_UET_ACKED | RSW_UET_QUEUED))
		return 0;
	if (tx->rq_tail - tx->rq_head >= tx->window)
		return 0;
	tx->state[psn & m] |= RSW_UET_QUEUED;
	tx->rq[tx->rq_tail++ & m] = psn;
	return 1;
}

void
rsw_uet_tx_nack(struct rsw_uet_tx *tx, uint32_t psn)
{
	if (uet_queue(tx, psn))
		tx->nacks++;
}

int
rsw_uet_tx_timeout(struct rsw_uet_tx *tx, uint64_t now, uint64_t rto_ns, uint32_t scan)
{
	uint32_t m = tx->window - 1, p;
	int n = 0;

	for (p = tx->una; p < tx->nxt && scan > 0; p++, scan--) {
		if (tx->state[p & m] & (RSW_UET_ACKED | RSW_UET_QUEUED))
			continue;
		if (now - tx->sent_ns[p & m] < rto_ns)
			continue;
		if (uet_queue(tx, p)) {
			tx->timeouts++;
			n++;
		}
	}
	return n;
}

int
rsw_uet_tx_done(const struct rsw_uet_tx *tx)
{
	return tx->total != RSW_PSN_UNBOUNDED && tx->una >= tx->total;
}

void
rsw_uet_rx_init(struct rsw_uet_rx *rx, uint32_t window, uint8_t *got)
{
	uint32_t i;

	*rx = (struct rsw_uet_rx){.window = window, .got = got};
	for (i = 0; i < window; i++)
		got[i] = 0;
}

int
rsw_uet_rx_data(struct rsw_uet_rx *rx, uint32_t psn, int trimmed, uint32_t ack_every, int ack_now)
{
	uint32_t m = rx->window - 1;
	int flags = RSW_RX_DELIVER;

	if (psn < rx->epsn || (psn - rx->epsn < rx->window && rx->got[psn & m])) {
		rx->duplicates++;
		rx->since_ack = 0;
		return RSW_RX_ACK; /* its ACK was lost or late: say again */
	}
	if (psn - rx->epsn >= rx->window)
		return 0; /* cannot hold it; the sender's window forbids this */
	if (trimmed) {
		rx->trimmed++;
		return RSW_RX_NAK;
	}
	if (psn != rx->epsn)
		rx->out_of_order++;
	rx->got[psn & m] = 1;
	while (rx->got[rx->epsn & m]) {
		rx->got[rx->epsn & m] = 0;
		rx->epsn++;
	}
	if (++rx->since_ack >= ack_every || ack_now) {
		rx->since_ack = 0;
		flags |= RSW_RX_ACK;
	}
	return flags;
}

void
rsw_uet_rx_ack_fields(const struct rsw_uet_rx *rx, uint32_t *cum, uint64_t *sack)
{
	uint32_t m = rx->window - 1, i;
	uint64_t b = 0;

	*cum = rx->epsn;
	for (i = 0; i < 64 && i + 1 < rx->window; i++)
		if (rx->got[(rx->epsn + 1 + i) & m])
			b |= (uint64_t)1 << i;
	*sack = b;
}
