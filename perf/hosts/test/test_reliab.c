/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Go-back-N and UET-like selective repeat against hand-worked sequences: which PSN
 * goes out next, what a receiver answers, what a NAK, a NACK or a timeout rewinds.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_reliab.h"

static uint32_t
next_gbn(struct rsw_gbn_tx *tx, int *retx)
{
	uint32_t psn = 0xdead;

	assert_int_equal(rsw_gbn_tx_next(tx, &psn, retx), 1);
	return psn;
}

static void
test_gbn_sender(void **state)
{
	struct rsw_gbn_tx tx;
	uint32_t psn;
	int retx, i;

	(void)state;
	rsw_gbn_tx_init(&tx, 6, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(next_gbn(&tx, &retx), i);
		assert_int_equal(retx, 0);
	}
	assert_int_equal(rsw_gbn_tx_next(&tx, &psn, &retx), 0); /* window of 4 full */
	rsw_gbn_tx_ack(&tx, 1, 10);                             /* 0 and 1 arrived */
	assert_int_equal(tx.una, 2);
	assert_int_equal(next_gbn(&tx, &retx), 4);
	assert_int_equal(next_gbn(&tx, &retx), 5);
	assert_int_equal(rsw_gbn_tx_next(&tx, &psn, &retx), 0); /* message all sent */
	/* An ACK of something never sent, and an old ACK, change nothing. */
	rsw_gbn_tx_ack(&tx, 9, 11);
	rsw_gbn_tx_ack(&tx, 0, 11);
	assert_int_equal(tx.una, 2);
	/* NAK: the receiver expects 3: go back to 3, and 3, 4, 5 are retransmissions. */
	rsw_gbn_tx_nak(&tx, 3, 20);
	assert_int_equal(tx.una, 3);
	assert_int_equal(tx.naks, 1);
	for (i = 3; i < 6; i++) {
		assert_int_equal(next_gbn(&tx, &retx), i);
		assert_int_equal(retx, 1);
	}
	assert_int_equal(tx.retransmits, 3);
	assert_int_equal(rsw_gbn_tx_done(&tx), 0);
	rsw_gbn_tx_ack(&tx, 5, 30);
	assert_int_equal(rsw_gbn_tx_done(&tx), 1);
	assert_int_equal(rsw_gbn_tx_timeout(&tx, 1000000, 10), 0); /* nothing outstanding */
}

static void
test_gbn_timeout(void **state)
{
	struct rsw_gbn_tx tx;
	int retx;

	(void)state;
	rsw_gbn_tx_init(&tx, 3, 8);
	next_gbn(&tx, &retx);
	next_gbn(&tx, &retx);
	next_gbn(&tx, &retx);
	assert_int_equal(rsw_gbn_tx_timeout(&tx, 5, 10), 0);
	assert_int_equal(rsw_gbn_tx_timeout(&tx, 10, 10), 1);
	assert_int_equal(tx.nxt, 0);
	assert_int_equal(next_gbn(&tx, &retx), 0);
	assert_int_equal(retx, 1);
	/* The timeout restarted the clock: no second rewind before another RTO. */
	assert_int_equal(rsw_gbn_tx_timeout(&tx, 19, 10), 0);
	rsw_gbn_tx_ack(&tx, 0, 19);
	assert_int_equal(rsw_gbn_tx_timeout(&tx, 28, 10), 0);
	assert_int_equal(rsw_gbn_tx_timeout(&tx, 29, 10), 1);
	assert_int_equal(tx.nxt, 1);
	assert_int_equal(tx.timeouts, 2);
	/* Unbounded QPs are never done. */
	rsw_gbn_tx_init(&tx, RSW_PSN_UNBOUNDED, 8);
	assert_int_equal(rsw_gbn_tx_done(&tx), 0);
}

static void
test_gbn_receiver(void **state)
{
	struct rsw_gbn_rx rx;
	uint32_t a = 0xdead;

	(void)state;
	rsw_gbn_rx_init(&rx);
	/* A duplicate before anything arrived: nothing to ACK. */
	assert_int_equal(rsw_gbn_rx_data(&rx, 0, 2, 0, &a), RSW_RX_DELIVER);
	assert_int_equal(rsw_gbn_rx_data(&rx, 1, 2, 0, &a), RSW_RX_DELIVER | RSW_RX_ACK);
	assert_int_equal(a, 1);
	/* 2 is lost: 3 is out of order, NAKed once with the expected PSN; 4 is dropped quietly. */
	assert_int_equal(rsw_gbn_rx_data(&rx, 3, 2, 0, &a), RSW_RX_NAK);
	assert_int_equal(a, 2);
	assert_int_equal(rsw_gbn_rx_data(&rx, 4, 2, 0, &a), 0);
	assert_int_equal(rx.out_of_order, 2);
	assert_int_equal(rx.epsn, 2);
	/* The go-back arrives: 2 (no ACK yet), 3 ACKs both. */
	assert_int_equal(rsw_gbn_rx_data(&rx, 2, 2, 0, &a), RSW_RX_DELIVER);
	assert_int_equal(rsw_gbn_rx_data(&rx, 3, 2, 0, &a), RSW_RX_DELIVER | RSW_RX_ACK);
	assert_int_equal(a, 3);
	/* After the gap closed a new gap NAKs again. */
	assert_int_equal(rsw_gbn_rx_data(&rx, 6, 2, 0, &a), RSW_RX_NAK);
	assert_int_equal(a, 4);
	/* A duplicate is re-ACKed with the last in-order PSN. */
	assert_int_equal(rsw_gbn_rx_data(&rx, 1, 2, 0, &a), RSW_RX_ACK);
	assert_int_equal(a, 3);
	assert_int_equal(rx.duplicates, 1);
	/* The last packet of a message is ACKed at once. */
	assert_int_equal(rsw_gbn_rx_data(&rx, 4, 8, 1, &a), RSW_RX_DELIVER | RSW_RX_ACK);
	assert_int_equal(a, 4);
}

#define W 64

static void
test_uet_sender(void **state)
{
	uint8_t st[W];
	uint64_t sent[W];
	uint32_t rq[W], psn;
	struct rsw_uet_tx tx;
	int retx, i;

	(void)state;
	rsw_uet_tx_init(&tx, 5, W, st, sent, rq);
	for (i = 0; i < 5; i++) {
		assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 1);
		assert_int_equal(psn, i);
		assert_int_equal(retx, 0);
		rsw_uet_tx_sent(&tx, psn, 100 + i);
	}
	assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 0);
	/* PSN 2 was trimmed: NACKed twice before it leaves again, queued once. */
	rsw_uet_tx_nack(&tx, 2);
	rsw_uet_tx_nack(&tx, 2);
	assert_int_equal(tx.nacks, 1);
	/* An ACK: 0, 1 in order, 3 and 4 held (bits 0 and 1 after cum = 2). */
	rsw_uet_tx_ack(&tx, 2, 0x3);
	assert_int_equal(tx.una, 2);
	assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 1);
	assert_int_equal(psn, 2);
	assert_int_equal(retx, 1);
	assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 0); /* only 2 goes again */
	assert_int_equal(tx.retransmits, 1);
	/* A NACK for an acknowledged PSN or beyond the sent ones does nothing. */
	rsw_uet_tx_nack(&tx, 3);
	rsw_uet_tx_nack(&tx, 9);
	assert_int_equal(tx.nacks, 1);
	assert_int_equal(rsw_uet_tx_done(&tx), 0);
	rsw_uet_tx_ack(&tx, 5, 0);
	assert_int_equal(tx.una, 5);
	assert_int_equal(rsw_uet_tx_done(&tx), 1);
}

static void
test_uet_timeout_and_stale_queue(void **state)
{
	uint8_t st[W];
	uint64_t sent[W];
	uint32_t rq[W], psn;
	struct rsw_uet_tx tx;
	int retx, i;

	(void)state;
	rsw_uet_tx_init(&tx, RSW_PSN_UNBOUNDED, W, st, sent, rq);
	for (i = 0; i < 4; i++) {
		rsw_uet_tx_next(&tx, &psn, &retx);
		rsw_uet_tx_sent(&tx, psn, i * 10);
	}
	/* RTO 25 at time 40: PSNs 0 (sent 0) and 1 (sent 10) timed out, 2 and 3 not. */
	rsw_uet_tx_ack(&tx, 0, 0x2); /* PSN 2 held: never retransmitted */
	assert_int_equal(rsw_uet_tx_timeout(&tx, 40, 25, 64), 2);
	assert_int_equal(tx.timeouts, 2);
	/* PSN 0 is ACKed before it leaves again: the queue skips it. */
	rsw_uet_tx_ack(&tx, 1, 0);
	assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 1);
	assert_int_equal(psn, 1);
	assert_int_equal(retx, 1);
	/* Then new data: PSN 4. */
	assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 1);
	assert_int_equal(psn, 4);
	assert_int_equal(retx, 0);
	/* The window limits new PSNs. */
	for (i = 5; i < 1 + W; i++)
		assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 1);
	assert_int_equal(rsw_uet_tx_next(&tx, &psn, &retx), 0);
	assert_int_equal(tx.nxt - tx.una, W);
}

static void
test_uet_receiver(void **state)
{
	uint8_t got[W];
	struct rsw_uet_rx rx;
	uint32_t cum;
	uint64_t sack;

	(void)state;
	rsw_uet_rx_init(&rx, W, got);
	assert_int_equal(rsw_uet_rx_data(&rx, 0, 0, 4, 0), RSW_RX_DELIVER);
	/* 2 before 1 (sprayed): accepted, out of order, not ACKed alone (ACKs are coalesced);
	 * the ACK that follows has 2 in the bitmap. */
	assert_int_equal(rsw_uet_rx_data(&rx, 2, 0, 4, 0), RSW_RX_DELIVER);
	assert_int_equal(rx.out_of_order, 1);
	rsw_uet_rx_ack_fields(&rx, &cum, &sack);
	assert_int_equal(cum, 1);
	assert_int_equal(sack, 0x1);
	/* 1 arrives trimmed: NACK, not delivered. */
	assert_int_equal(rsw_uet_rx_data(&rx, 1, 1, 4, 0), RSW_RX_NAK);
	assert_int_equal(rx.trimmed, 1);
	assert_int_equal(rx.epsn, 1);
	/* Its retransmission (it asks for an ACK) closes the gap: epsn 3. */
	assert_int_equal(rsw_uet_rx_data(&rx, 1, 0, 4, 1), RSW_RX_DELIVER | RSW_RX_ACK);
	assert_int_equal(rx.epsn, 3);
	rsw_uet_rx_ack_fields(&rx, &cum, &sack);
	assert_int_equal(cum, 3);
	assert_int_equal(sack, 0);
	/* A duplicate is not delivered twice, only ACKed. */
	assert_int_equal(rsw_uet_rx_data(&rx, 2, 0, 4, 0), RSW_RX_ACK);
	assert_int_equal(rx.duplicates, 1);
	/* Far beyond the window: dropped, nothing to do. */
	assert_int_equal(rsw_uet_rx_data(&rx, 3 + W, 0, 4, 0), 0);
	/* In order with ack_every 4: 3, 4, 5 quiet, 6 ACKs; the last PSN ACKs at once. */
	assert_int_equal(rsw_uet_rx_data(&rx, 3, 0, 4, 0), RSW_RX_DELIVER);
	assert_int_equal(rsw_uet_rx_data(&rx, 4, 0, 4, 0), RSW_RX_DELIVER);
	assert_int_equal(rsw_uet_rx_data(&rx, 5, 0, 4, 0), RSW_RX_DELIVER);
	assert_int_equal(rsw_uet_rx_data(&rx, 6, 0, 4, 0), RSW_RX_DELIVER | RSW_RX_ACK);
	assert_int_equal(rsw_uet_rx_data(&rx, 7, 0, 4, 1), RSW_RX_DELIVER | RSW_RX_ACK);
	assert_int_equal(rx.epsn, 8);
	/* Out of order counts toward ack_every like in order: 9, 10, 8 quiet, 11 ACKs. */
	assert_int_equal(rsw_uet_rx_data(&rx, 9, 0, 4, 0), RSW_RX_DELIVER);
	assert_int_equal(rsw_uet_rx_data(&rx, 10, 0, 4, 0), RSW_RX_DELIVER);
	assert_int_equal(rsw_uet_rx_data(&rx, 8, 0, 4, 0), RSW_RX_DELIVER);
	assert_int_equal(rsw_uet_rx_data(&rx, 11, 0, 4, 0), RSW_RX_DELIVER | RSW_RX_ACK);
	assert_int_equal(rx.out_of_order, 3);
	assert_int_equal(rx.epsn, 12);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gbn_sender),
		cmocka_unit_test(test_gbn_timeout),
		cmocka_unit_test(test_gbn_receiver),
		cmocka_unit_test(test_uet_sender),
		cmocka_unit_test(test_uet_timeout_and_stale_queue),
		cmocka_unit_test(test_uet_receiver),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
