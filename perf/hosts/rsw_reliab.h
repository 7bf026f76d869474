/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The lab hosts' two reliability state machines, pure C with no DPDK:
 * - RoCEv2 go-back-N (IBTA RC as NICs run it on a lossy or lossless fabric): the
 *   receiver accepts only the expected PSN, NAKs the first gap once (PSN sequence
 *   error) and drops what follows it; the sender rewinds to the NAKed PSN, or to the
 *   oldest unacknowledged one after a retransmission timeout.
 * - UET-like selective repeat: the receiver takes packets in any order (sprayed
 *   paths reorder), acknowledges a cumulative PSN plus a 64-bit bitmap of what it
 *   holds beyond it, and NACKs a trimmed packet at once; the sender retransmits only
 *   that packet, and after a timeout only the packets that timed out.
 * PSNs are 32-bit here and 24-bit on the wire: a QP sends at most 2^24 packets.
 */

#ifndef RSW_RELIAB_H
#define RSW_RELIAB_H

#include <stdint.h>

#define RSW_PSN_UNBOUNDED UINT32_MAX /* a time-bound QP: no last PSN */

/* What the receiver wants done after a data packet (flags). */
#define RSW_RX_DELIVER 1 /* the payload is new and accepted */
#define RSW_RX_ACK     2 /* send an ACK now */
#define RSW_RX_NAK     4 /* send a NAK (go-back-N) or NACK (UET) now */

/* Go-back-N sender of one QP. */
struct rsw_gbn_tx {
	uint32_t una;         /* oldest PSN not acknowledged */
	uint32_t nxt;         /* next PSN to send */
	uint32_t max;         /* one past the highest PSN ever sent */
	uint32_t total;       /* packets of the message, or RSW_PSN_UNBOUNDED */
	uint32_t window;      /* at most this many PSNs outstanding */
	uint64_t progress_ns; /* last time una moved or the QP rewound */
	uint64_t retransmits; /* packets sent again */
	uint64_t naks;        /* NAKs that rewound the QP */
	uint64_t timeouts;    /* rewinds by timeout */
};

/* Go-back-N receiver of one QP. */
struct rsw_gbn_rx {
	uint32_t epsn;         /* expected PSN */
	uint32_t since_ack;    /* packets accepted since the last ACK */
	int nak_sent;          /* a NAK for epsn is outstanding */
	uint64_t out_of_order; /* arrivals past a gap (dropped) */
	uint64_t duplicates;   /* arrivals below epsn */
};

void rsw_gbn_tx_init(struct rsw_gbn_tx *tx, uint32_t total, uint32_t window);
/**
 * May the QP send now, and which PSN? @return 1 and *psn (and *retx = 1 when that PSN
 * was sent before), 0 when the message is all sent or the window is full.
 */
int rsw_gbn_tx_next(struct rsw_gbn_tx *tx, uint32_t *psn, int *retx);
/** Cumulative ACK: every PSN ≤ @p psn arrived. */
void rsw_gbn_tx_ack(struct rsw_gbn_tx *tx, uint32_t psn, uint64_t now);
/** NAK (PSN sequence error): the receiver expects @p epsn; everything before it arrived. */
void rsw_gbn_tx_nak(struct rsw_gbn_tx *tx, uint32_t epsn, uint64_t now);
/** Rewind to una if nothing moved for @p rto_ns. @return 1 if it rewound. */
int rsw_gbn_tx_timeout(struct rsw_gbn_tx *tx, uint64_t now, uint64_t rto_ns);
/** @return 1 when every packet of a finite message is acknowledged. */
int rsw_gbn_tx_done(const struct rsw_gbn_tx *tx);

void rsw_gbn_rx_init(struct rsw_gbn_rx *rx);
/**
 * Data packet @p psn arrived. @p ack_every: ACK after that many accepted packets;
 * @p last: this PSN ends the message (ACK at once).
 * @return RSW_RX_* flags; *ack_psn is the PSN to ACK (epsn − 1) or to NAK (epsn).
 */
int rsw_gbn_rx_data(struct rsw_gbn_rx *rx, uint32_t psn, uint32_t ack_every, int last,
		    uint32_t *ack_psn);

/* UET-like selective-repeat sender. The arrays (window entries each, window a power of
 * two) belong to the caller. */
struct rsw_uet_tx {
	uint32_t una;         /* oldest PSN not acknowledged */
	uint32_t nxt;         /* next new PSN */
	uint32_t total;       /* packets of the message, or RSW_PSN_UNBOUNDED */
	uint32_t window;      /* PSNs outstanding at most (power of two) */
	uint8_t *state;       /* per slot: RSW_UET_ACKED, RSW_UET_QUEUED */
	uint64_t *sent_ns;    /* per slot: last transmission */
	uint32_t *rq;         /* retransmit queue: a ring of PSNs */
	uint32_t rq_head;     /* next to pop */
	uint32_t rq_tail;     /* next free */
	uint64_t retransmits; /* packets sent again */
	uint64_t nacks;       /* NACKs that queued a retransmission */
	uint64_t timeouts;    /* retransmissions queued by timeout */
};

#define RSW_UET_ACKED  1
#define RSW_UET_QUEUED 2

/* UET-like receiver. */
struct rsw_uet_rx {
	uint32_t epsn;         /* every PSN below arrived */
	uint32_t window;       /* slots of got[] (power of two, ≥ 64) */
	uint8_t *got;          /* per slot: PSN arrived (caller's array) */
	uint32_t since_ack;    /* packets accepted since the last ACK */
	uint64_t out_of_order; /* accepted arrivals with a gap below them */
	uint64_t duplicates;   /* arrivals already held */
	uint64_t trimmed;      /* trimmed arrivals (NACKed) */
};

void rsw_uet_tx_init(struct rsw_uet_tx *tx, uint32_t total, uint32_t window, uint8_t *state,
		     uint64_t *sent_ns, uint32_t *rq);
/** Next PSN to send: a queued retransmission first, then a new PSN if the window allows. */
int rsw_uet_tx_next(struct rsw_uet_tx *tx, uint32_t *psn, int *retx);
/** Record that @p psn left at @p now (after rsw_uet_tx_next). */
void rsw_uet_tx_sent(struct rsw_uet_tx *tx, uint32_t psn, uint64_t now);
/** ACK: every PSN < @p cum arrived, and bit i of @p sack says PSN cum + 1 + i did. */
void rsw_uet_tx_ack(struct rsw_uet_tx *tx, uint32_t cum, uint64_t sack);
/** NACK of a trimmed @p psn: queue it for retransmission (once while queued). */
void rsw_uet_tx_nack(struct rsw_uet_tx *tx, uint32_t psn);
/** Queue the (at most @p scan first) unacknowledged PSNs older than @p rto_ns. */
int rsw_uet_tx_timeout(struct rsw_uet_tx *tx, uint64_t now, uint64_t rto_ns, uint32_t scan);
int rsw_uet_tx_done(const struct rsw_uet_tx *tx);

void rsw_uet_rx_init(struct rsw_uet_rx *rx, uint32_t window, uint8_t *got);
/**
 * Data @p psn arrived, @p trimmed when its payload was cut by a switch. ACKs are coalesced:
 * one after @p ack_every accepted packets, in order or not (sprayed packets arrive out of
 * order, and the ACK's bitmap says which arrived); at once for a duplicate and when @p ack_now
 * (the message's last packet, or the sender's ACK request: it cannot send more until ACKed).
 * @return RSW_RX_* flags (NAK = NACK this PSN).
 */
int rsw_uet_rx_data(struct rsw_uet_rx *rx, uint32_t psn, int trimmed, uint32_t ack_every,
		    int ack_now);
/** The ACK to send now: *cum = epsn and the bitmap of PSNs epsn + 1 .. epsn + 64 held. */
void rsw_uet_rx_ack_fields(const struct rsw_uet_rx *rx, uint32_t *cum, uint64_t *sack);

#endif /* RSW_RELIAB_H */
