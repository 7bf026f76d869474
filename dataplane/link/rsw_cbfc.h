/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * UEC credit-based flow control (CBFC, UEC 1.0 §5.2) emulated in-band between two railsw
 * ports (docs/link.md "Credit-based flow control"). Each lossless TC of the port is a
 * virtual channel (VC). Both ends of a link are a sender and a receiver at once:
 *
 * - The receiver grants its peer credits for cbfc.buffer bytes per VC. It counts the credits
 *   of the frames it receives (arrived), measures what its ingress PG of the VC holds
 *   (occupied), and grants the absolute credit limit arrived - occupied + buffer: every
 *   update carries the whole state, so a lost update is healed by the next one. Updates go
 *   when enough credit was freed (spacing_bytes), after update_interval_ns when some was;
 *   a changed state is sent again RSW_CBFC_REPEATS times, refresh_ns apart.
 * - The sender spends ceil(len / bytes_per_credit) credits on each frame of a VC and never
 *   sends a frame for which consumed + credits > limit. Every consumed_interval_ns it reports
 *   its consumed count (CONSUMED, as SAI's periodic sender report): the link is FIFO, so the
 *   receiver sets arrived to it, which returns the credits of frames lost on the wire,
 *   and answers with its whole state. The sender repeats a changed count RSW_CBFC_REPEATS
 *   times, and keeps reporting while a VC waits for credit: a lost message is healed by a
 *   later one, and a link at rest falls silent. Under LLR (reliable) a frame may still be
 *   sent again after the report (a replay), so a VC's count is reported only once LLR has
 *   let go of every frame it counted (acknowledged or flushed: rsw_cbfc_tx_window); the
 *   credits of the frames a FLUSH dropped, or that the wire lost outside LLR, then come back.
 * - A handshake finds a peer that speaks CBFC: INIT(session, VCs, bytes_per_credit, consumed
 *   so far) from the sender, INIT_ECHO(session, VCs, initial limits) from the receiver. A
 *   direction counts in its sender's bytes_per_credit; the sender counts what it spends
 *   from the start, so that the INIT's counts let the receiver start from the same place. Without an
 *   echo within fallback_timeout_ns the sender is in FALLBACK (it keeps asking, slower):
 *   its VCs are not gated, and the receiver guards them with PFC or nothing (fallback).
 * - A watchdog counts a VC left with frames to send and no credit longer than watchdog_ns.
 *
 * The machine (rsw_cbfc_*) is pure: time is now_ns, frames are lengths, the receiver's
 * occupancy is given to rsw_cbfc_poll; unit tests run two of them on a simulated wire.
 * Credit messages are frames of their own (rsw_cbfc_frame_*), EtherType 0x88B6, never
 * sequenced by LLR.
 *
 * Thread-safety: one struct rsw_cbfc per port, written by the port's owner lcore only (the
 * one that transmits on the port and polls its single rx queue). The control thread reads
 * tx_state, the VCs' gauges and ctr[] (64-bit words, each read whole) for `show cbfc`.
 */

#ifndef RSW_CBFC_H
#define RSW_CBFC_H

#include <stddef.h>
#include <stdint.h>

#define RSW_CBFC_ETHERTYPE   0x88B6 /* IEEE 802 local experimental EtherType 2 */
#define RSW_CBFC_VERSION     1
#define RSW_CBFC_FRAME_LEN   60 /* a credit message, FCS excluded */
#define RSW_CBFC_N_VC        8  /* VCs of a port: its TCs */
#define RSW_CBFC_BPC_MIN     32 /* bytes per credit (UE 1.0.3 models) */
#define RSW_CBFC_BPC_MAX     2048
#define RSW_CBFC_BPC_DEF     64
#define RSW_CBFC_SPACING_MIN 800   /* credit updates: at least this much freed credit apart */
#define RSW_CBFC_SPACING_MAX 65536 /* ... and at most this much */
#define RSW_CBFC_REPEATS     2     /* a changed state is sent again this many times */

/* Message types (the header's low nibble). */
enum rsw_cbfc_type {
	RSW_CBFC_T_INIT = 1,      /* sender: start a session; value[] unused */
	RSW_CBFC_T_INIT_ECHO = 2, /* receiver: session accepted; value[v] the initial limit */
	RSW_CBFC_T_CREDIT = 3,    /* receiver: value[v] the absolute credit limit of VC v */
	RSW_CBFC_T_CONSUMED = 4,  /* sender: value[v] the credits VC v consumed */
};

/* Flags. */
#define RSW_CBFC_F_REINIT 0x01 /* CREDIT: the receiver has no such session: send INIT */
#define RSW_CBFC_F_MASK   0x01

/* A decoded credit message. */
struct rsw_cbfc_msg {
	uint8_t type;                  /* enum rsw_cbfc_type */
	uint8_t flags;                 /* RSW_CBFC_F_* */
	uint8_t vcs;                   /* bit v: value[v] meaningful (INIT: the VCs asked for) */
	uint16_t bpc;                  /* bytes per credit of the direction; 0 in CONSUMED */
	uint32_t session;              /* the sender's session */
	uint32_t value[RSW_CBFC_N_VC]; /* 32-bit cyclic credit counts */
};

/* Why a buffer is not a good credit message (rsw_cbfc_frame_decode). */
enum rsw_cbfc_frame_err {
	RSW_CBFC_FRAME_OK = 0,
	RSW_CBFC_FRAME_NOT_CBFC = 1,  /* not EtherType 0x88B6 at offset 12 */
	RSW_CBFC_FRAME_MALFORMED = 2, /* short, unknown version, type, flags; bad bpc */
	RSW_CBFC_FRAME_BAD_CRC = 3,   /* corrupted */
};

/**
 * Decode and check a credit message of len bytes (from the destination MAC).
 * @return RSW_CBFC_FRAME_OK or an enum rsw_cbfc_frame_err value.
 */
enum rsw_cbfc_frame_err rsw_cbfc_frame_decode(const uint8_t *frame, size_t len,
					      struct rsw_cbfc_msg *m);

/**
 * Write a credit message of RSW_CBFC_FRAME_LEN bytes into buf.
 * @return RSW_CBFC_FRAME_LEN, or -EINVAL for an unknown type or flags.
 */
int rsw_cbfc_frame_encode(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
			  const struct rsw_cbfc_msg *m);

/*
 * Per-VC counters: X(name, kind, unit, help), in three groups so that `show cbfc` keeps its
 * documented order (credits, then the port's message counts, then stalls).
 * credits_tx_available is a gauge the machine keeps up to date.
 */
#define RSW_FOREACH_CBFC_VC_CREDIT_CTR(X)                                                          \
	X(credits_tx_available, GAUGE, "credits",                                                  \
	  "as a sender: credits it may still spend (limit - consumed); 0 when not active")         \
	X(credits_granted, COUNTER, "credits",                                                     \
	  "as a receiver: credits it gave its peer (the initial grant and every one returned)")    \
	X(credits_consumed, COUNTER, "credits", "as a sender: credits it spent sending")

#define RSW_FOREACH_CBFC_VC_STALL_CTR(X)                                                           \
	X(stalled_ns, COUNTER, "ns", "as a sender: time the VC had a frame to send and no credit")

#define RSW_FOREACH_CBFC_VC_MORE_CTR(X)                                                            \
	X(credits_healed, COUNTER, "credits",                                                      \
	  "as a receiver: credits of frames lost on the wire or flushed by the peer's LLR, "       \
	  "returned by the peer's CONSUMED")                                                       \
	X(watchdog_stalls, COUNTER, "events",                                                      \
	  "as a sender: the VC was left without credit longer than the credit watchdog's limit")

#define RSW_FOREACH_CBFC_VC_CTR(X)                                                                 \
	RSW_FOREACH_CBFC_VC_CREDIT_CTR(X)                                                          \
	RSW_FOREACH_CBFC_VC_STALL_CTR(X)                                                           \
	RSW_FOREACH_CBFC_VC_MORE_CTR(X)

enum rsw_cbfc_vc_ctr {
#define RSW_X_ENUM(name, ...) RSW_CBFC_##name,
	RSW_FOREACH_CBFC_VC_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_CBFC_VC_CTRS
};

/* Per-port counters (each row of the port repeats them): X(name, kind, unit, help). */
#define RSW_FOREACH_CBFC_MSG_CTR(X)                                                                \
	X(credit_msgs_tx, COUNTER, "packets",                                                      \
	  "credit messages sent by the port (CREDIT, INIT_ECHO, CONSUMED), for all its VCs")       \
	X(credit_msgs_rx, COUNTER, "packets", "credit messages received and accepted, all VCs")

#define RSW_FOREACH_CBFC_MORE_CTR(X)                                                               \
	X(inits_tx, COUNTER, "packets", "INIT messages sent")                                      \
	X(inits_rx, COUNTER, "packets", "INIT messages received")                                  \
	X(fallbacks, COUNTER, "events", "handshakes that timed out into fallback")                 \
	X(msgs_rx_bad, COUNTER, "packets", "credit messages dropped: corrupted or malformed")      \
	X(rx_stale, COUNTER, "packets", "credit messages of another session, ignored")

#define RSW_FOREACH_CBFC_CTR(X)                                                                    \
	RSW_FOREACH_CBFC_MSG_CTR(X)                                                                \
	RSW_FOREACH_CBFC_MORE_CTR(X)

enum rsw_cbfc_ctr {
#define RSW_X_ENUM(name, ...) RSW_CBFC_##name,
	RSW_FOREACH_CBFC_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_CBFC_CTRS
};

/** Name of a per-VC counter (NULL out of range). */
const char *rsw_cbfc_vc_ctr_name(enum rsw_cbfc_vc_ctr c);
/** Name of a per-port counter (NULL out of range). */
const char *rsw_cbfc_ctr_name(enum rsw_cbfc_ctr c);

/* The sender's state (`show cbfc` state: off, init, active, fallback). */
enum rsw_cbfc_state {
	RSW_CBFC_OFF = 0,  /* not enabled */
	RSW_CBFC_INIT,     /* INIT sent, no echo yet: VCs not gated */
	RSW_CBFC_ACTIVE,   /* frames sent against credits */
	RSW_CBFC_FALLBACK, /* the peer did not answer: VCs not gated, INIT now and then */
};

/** Name of a state ("off", "init", "active", "fallback"). */
const char *rsw_cbfc_state_name(enum rsw_cbfc_state s);

/* What guards the VCs while the peer does not speak CBFC (ports[].cbfc.fallback). */
enum rsw_cbfc_fallback {
	RSW_CBFC_FB_PFC = 0, /* PFC as without CBFC (the default) */
	RSW_CBFC_FB_NONE,    /* nothing */
};

struct rsw_cbfc_params {
	uint8_t vcs;               /* bit v: VC v under CBFC (the lossless TCs) */
	uint8_t fallback;          /* enum rsw_cbfc_fallback */
	uint8_t reliable;          /* LLR under the sender: CONSUMED waits for rsw_cbfc_tx_window */
	uint16_t bytes_per_credit; /* the receiver's credit size, 32..2048; default 64 */
	uint32_t buffer_bytes;     /* granted per VC; > 0 */
	uint32_t spacing_bytes;    /* freed credit between updates, 800..65536 */
	uint32_t session;          /* the first session number (any) */
	uint64_t update_interval_ns;   /* some credit freed for this long: update; 20 µs */
	uint64_t refresh_ns;           /* a changed state is repeated this far apart; 1 ms */
	uint64_t consumed_interval_ns; /* sender's CONSUMED reports at most this often; 1 ms */
	uint64_t init_interval_ns;     /* INIT resent while init; 1 ms (fallback: × 10) */
	uint64_t fallback_timeout_ns;  /* no echo for this long: fallback; 10 ms */
	uint64_t watchdog_ns;          /* a VC without credit this long: counted; 200 ms */
};

/* One VC of both directions. */
struct rsw_cbfc_vc {
	/* sender */
	uint64_t consumed;   /* credits spent in this session */
	uint64_t limit;      /* credit limit the peer granted */
	uint64_t stall_ns;   /* when it found no credit, 0: not stalled */
	uint64_t reported;   /* consumed as the last CONSUMED that carried the VC said */
	uint32_t settle_seq; /* reliable: LLR's next sequence when its last frame was charged */
	uint8_t wd_counted;  /* this stall was counted by the watchdog */
	uint8_t charged;     /* reliable: credits spent since the last rsw_cbfc_tx_window */
	uint8_t settled;     /* reliable: LLR will send none of its counted frames again */
	/* receiver */
	uint64_t arrived; /* credits of the frames received in this session */
	uint64_t granted; /* the limit last sent */
	uint64_t ctr[RSW_N_CBFC_VC_CTRS];
};

struct rsw_cbfc {
	uint8_t tx_state;          /* enum rsw_cbfc_state */
	uint8_t tx_vcs;            /* VCs gated (ours and granted by the peer) */
	uint8_t rx_synced;         /* the peer's sender has a session with us */
	uint8_t rx_vcs;            /* VCs the receiver grants (ours and asked for) */
	uint8_t pend;              /* messages due (PEND_* in cbfc.c) */
	uint16_t rx_bpc;           /* the peer sender's credit size (receiver) */
	uint32_t tx_session;       /* our sender's session */
	uint32_t rx_session;       /* the peer sender's session */
	uint64_t init_start_ns;    /* INIT state entered */
	uint64_t init_sent_ns;     /* last INIT */
	uint64_t consumed_sent_ns; /* last CONSUMED */
	uint8_t consumed_repeats;  /* CONSUMED still to send for the last change */
	uint8_t repeats;           /* CREDIT still to send for the last change */
	uint64_t update_sent_ns;   /* last CREDIT or INIT_ECHO */
	uint64_t reinit_sent_ns;   /* last CREDIT with REINIT */
	uint32_t reinit_session;   /* the session it answers */
	struct rsw_cbfc_params p;
	struct rsw_cbfc_vc vc[RSW_CBFC_N_VC];
	uint64_t ctr[RSW_N_CBFC_CTRS];
};

/** Fill p with the defaults (docs/link.md): vcs 0, the caller sets them and the buffer. */
void rsw_cbfc_params_default(struct rsw_cbfc_params *p);

/**
 * Initialise c in state OFF.
 * @return 0, or -EINVAL for bad parameters (no VC, bytes_per_credit or spacing out of range,
 *   a buffer of less than one credit, a zero interval).
 */
int rsw_cbfc_init(struct rsw_cbfc *c, const struct rsw_cbfc_params *p);

/** Enable: the sender goes to INIT (an INIT is due), the receiver waits for the peer's. */
void rsw_cbfc_start(struct rsw_cbfc *c, uint64_t now_ns);

/** Credits a frame of len bytes costs at bpc bytes per credit (at least 1). */
static inline uint32_t
rsw_cbfc_credits(uint32_t len, uint16_t bpc)
{
	return len == 0 ? 1 : (len + bpc - 1) / bpc;
}

/**
 * The sender's gate: whether a frame of len bytes of VC vc may be sent now. When it may,
 * its credits are spent (call it only for a frame that is then sent). Never refuses a VC
 * that is not gated (state not active, or not a CBFC VC).
 * @return 1 (spent, or not gated) or 0 (no credit: keep it queued).
 */
int rsw_cbfc_tx_take(struct rsw_cbfc *c, uint8_t vc, uint32_t len, uint64_t now_ns);

/** Whether the sender gates VC vc now (the scheduler treats it as paused when it lacks credit). */
static inline int
rsw_cbfc_tx_gated(const struct rsw_cbfc *c, uint8_t vc)
{
	return c->tx_state == RSW_CBFC_ACTIVE && (c->tx_vcs >> vc & 1);
}

/**
 * Whether the receiver's PFC must leave VC vc alone: the peer sends it against credits
 * (a session with that VC), or the fallback is none.
 */
static inline int
rsw_cbfc_rx_no_pfc(const struct rsw_cbfc *c, uint8_t vc)
{
	if (!(c->p.vcs >> vc & 1))
		return 0;
	return (c->rx_synced && (c->rx_vcs >> vc & 1)) || c->p.fallback == RSW_CBFC_FB_NONE;
}

/** The receiver got a data frame of len bytes on VC vc (counted when a session has it). */
static inline void
rsw_cbfc_rx_data(struct rsw_cbfc *c, uint8_t vc, uint32_t len)
{
	if (vc < RSW_CBFC_N_VC && c->rx_synced && (c->rx_vcs >> vc & 1))
		c->vc[vc].arrived += rsw_cbfc_credits(len, c->rx_bpc);
}

/**
 * The sender runs under LLR (params reliable): where LLR stands, given when every frame the
 * sender charged has been handed to LLR (none held before it). A frame LLR sequenced below
 * tail_seq will never be sent again (acknowledged, or dropped by a FLUSH); one sent without
 * a sequence (LLR not yet synchronised) never is. CONSUMED reports a VC only once every frame
 * it counted is such a frame: under LLR a missing frame may be a replay still to come.
 * @param next_seq
 *   The sequence LLR gives its next frame.
 * @param tail_seq
 *   Its oldest unacknowledged frame (next_seq when the replay ring is empty).
 */
void rsw_cbfc_tx_window(struct rsw_cbfc *c, uint32_t next_seq, uint32_t tail_seq);

/** A good credit message arrived (decoded by rsw_cbfc_frame_decode). */
void rsw_cbfc_rx_msg(struct rsw_cbfc *c, const struct rsw_cbfc_msg *m, uint64_t now_ns);

/**
 * Run the timers and collect the messages due now, at most max.
 * @param occupied
 *   Bytes the receiver's buffer of each VC holds now (its ingress PGs).
 * @param may_report
 *   Whether every frame the sender charged has been handed to the wire (no frame held
 *   behind the message): the CONSUMED report waits otherwise.
 * @return the number of messages written to out.
 */
unsigned int rsw_cbfc_poll(struct rsw_cbfc *c, uint64_t now_ns,
			   const uint64_t occupied[RSW_CBFC_N_VC], int may_report,
			   struct rsw_cbfc_msg *out, unsigned int max);

#endif /* RSW_CBFC_H */
