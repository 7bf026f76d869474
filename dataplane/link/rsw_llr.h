/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * UEC Link-Level Retry emulated in-band between two railsw ports (docs/link.md). Two
 * layers:
 *
 * - The state machines (rsw_llr_*: tx_room, tx_data, rx_ctl, rx_data, rx_bad, poll) are
 *   pure: they take the time as now_ns and frames as opaque handles, so that unit tests
 *   run them on a simulated clock with plain structs. The replay buffer is a ring of
 *   handles, each holding one reference to a frame that has been sent; when the peer
 *   acknowledges frames (or FLUSH empties the ring) the machine gives the handles back
 *   through the release callback, which drops that reference.
 * - The mbuf layer (rsw_llr_mbuf_*) is what the pipeline calls: it encapsulates,
 *   decapsulates and checks frames, takes the ring's reference with
 *   rte_mbuf_refcnt_update (never a copy) and builds control frames.
 *
 * The replay timer adapts (RFC 6298, as TCP's retransmission timer): each ACK that frees
 * frames measures the round trip of the newest of them, unless it was sent more than once
 * (Karn); a smoothed round trip and its mean deviation give the timer, kept between a floor
 * (replay_timeout_ns) and a cap (replay_timeout_max_ns), and doubled by each expiry.
 *
 * Thread-safety: one struct rsw_llr per port, written by one lcore only (the one that
 * transmits on the port, which must also poll the port's single rx queue). The control
 * thread reads ctr[], rtt.srtt_ns and rtt.rto_ns (64-bit words, each read whole) and
 * tx_state for `show llr`.
 */

#ifndef RSW_LLR_H
#define RSW_LLR_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "llr_shim.h"

/*
 * Counters, in the order of `show llr` (docs/cli.md): X(name, is_drop, kind, unit,
 * help). The ones marked drop are `show drops` reasons (as llr_<name>). The last ones are
 * additions beyond docs/cli.md's list.
 */
#define RSW_FOREACH_LLR_CTR(X)                                                                     \
	X(tx_frames, 0, COUNTER, "packets", "data frames sent with a sequence number, once each")  \
	X(tx_replayed, 0, COUNTER, "packets", "data frames sent again (go-back-N replays)")        \
	X(tx_replay_timeouts, 0, COUNTER, "events",                                                \
	  "replay timer expiries: no acknowledgement progress within the replay timeout")          \
	X(tx_flushes, 0, COUNTER, "events",                                                        \
	  "FLUSH: the replay limit or the data age was reached; buffer emptied, link re-inited")   \
	X(rx_frames, 0, COUNTER, "packets", "data frames received in sequence")                    \
	X(rx_missing_seq, 1, COUNTER, "packets",                                                   \
	  "dropped: data frames after a missing sequence, until the expected one arrives")         \
	X(rx_duplicate_seq, 1, COUNTER, "packets",                                                 \
	  "dropped: data frames whose sequence was already received")                              \
	X(acks_tx, 0, COUNTER, "packets", "cumulative ACKs sent")                                  \
	X(acks_rx, 0, COUNTER, "packets", "cumulative ACKs received")                              \
	X(nacks_tx, 0, COUNTER, "packets", "NACKs sent (a gap or a bad frame)")                    \
	X(nacks_rx, 0, COUNTER, "packets", "NACKs received")                                       \
	X(replay_buffer_frames, 0, GAUGE, "packets", "frames sent and not yet acknowledged")       \
	X(replay_buffer_bytes, 0, GAUGE, "bytes", "bytes of the frames in the replay buffer")      \
	X(rx_bad_integrity, 1, COUNTER, "packets",                                                 \
	  "dropped: LLR frames whose checksum failed, or truncated (treated as lost)")             \
	X(rx_not_synced, 1, COUNTER, "packets",                                                    \
	  "dropped: sequenced frames received before the peer's INIT")                             \
	X(tx_fallback_plain, 0, COUNTER, "packets",                                                \
	  "frames sent without LLR while the peer had not answered INIT (fallback best-effort)")   \
	X(tx_fallback_dropped, 1, COUNTER, "packets",                                              \
	  "dropped: frames met while the peer had not answered INIT (fallback discard)")           \
	X(tx_encap_failed, 1, COUNTER, "packets",                                                  \
	  "dropped: no headroom for the shim, or a frame too short or segmented")                  \
	X(tx_flushed_frames, 0, COUNTER, "packets",                                                \
	  "frames released unacknowledged by FLUSH (lost unless the sender retransmits)")          \
	X(inits_tx, 0, COUNTER, "packets", "INIT frames sent")                                     \
	X(inits_rx, 0, COUNTER, "packets", "INIT frames received")                                 \
	X(init_echoes_tx, 0, COUNTER, "packets", "INIT_ECHO frames sent")                          \
	X(init_echoes_rx, 0, COUNTER, "packets", "INIT_ECHO frames received")

enum rsw_llr_ctr {
#define RSW_X_ENUM(name, ...) RSW_LLR_##name,
	RSW_FOREACH_LLR_CTR(RSW_X_ENUM)
#undef RSW_X_ENUM
	RSW_N_LLR_CTRS
};

/** Name of an LLR counter as docs/cli.md spells it (NULL out of range). */
const char *rsw_llr_ctr_name(enum rsw_llr_ctr c);

/** Whether an LLR counter counts dropped frames (a `show drops` reason). */
int rsw_llr_ctr_is_drop(enum rsw_llr_ctr c);

/* TX states (`show llr` state: off, init, advance, replay, flush). */
enum rsw_llr_tx_state {
	RSW_LLR_TX_OFF = 0, /* LLR not enabled: frames pass without the shim */
	RSW_LLR_TX_INIT,    /* INIT sent, no INIT_ECHO yet: frames as the fallback says */
	RSW_LLR_TX_ADVANCE, /* sequencing new frames */
	RSW_LLR_TX_REPLAY,  /* going back N: unacknowledged frames go out again first */
	RSW_LLR_TX_FLUSH,   /* transient: the buffer is emptied, then INIT again */
};

/* RX states. */
enum rsw_llr_rx_state {
	RSW_LLR_RX_OFF = 0,   /* not enabled, or no INIT received yet */
	RSW_LLR_RX_SEND_ACKS, /* in sequence: cumulative ACKs */
	RSW_LLR_RX_SEND_NACK, /* a gap or a bad frame: a NACK is due */
	RSW_LLR_RX_NACK_SENT, /* discarding until the expected sequence arrives */
};

/** Name of a TX state ("off", "init", "advance", "replay", "flush"). */
const char *rsw_llr_tx_state_name(enum rsw_llr_tx_state s);

/* What happens to frames while the peer has not answered INIT (ports[].llr.fallback). */
enum rsw_llr_fallback {
	RSW_LLR_FB_BEST_EFFORT = 0, /* sent without the shim (the default) */
	RSW_LLR_FB_DISCARD,         /* dropped, counted tx_fallback_dropped */
	RSW_LLR_FB_BLOCK,           /* left in the egress queues (PFC backs them up) */
};

#define RSW_LLR_FRAMES_MAX 4096 /* the largest replay ring */

/* Timers and limits (docs/link.md "Timers and defaults"). */
struct rsw_llr_params {
	uint32_t frames_max;            /* OUTSTANDING_FRAMES_MAX; power of 2; default 256 */
	uint32_t bytes_max;             /* OUTSTANDING_BYTES_MAX; default 1 MiB */
	uint32_t ack_spacing_bytes;     /* CTLOS_TARGET_SPACING; default 2048 */
	uint32_t replay_count_max;      /* replays without an ACK before FLUSH; default 8 */
	uint64_t ack_interval_ns;       /* ACK what arrived at least this often; default 10 µs */
	uint64_t replay_timeout_ns;     /* the replay timer's floor and first value; 200 µs */
	uint64_t replay_timeout_max_ns; /* the replay timer's cap; default 100 ms */
	uint64_t data_age_timeout_ns;   /* DATA_AGE_TIMEOUT: oldest frame's age; default 10 ms */
	uint64_t init_interval_ns;      /* INIT repeated this often until answered; default 1 ms */
	uint32_t initial_seq;           /* first sequence number; default 0 */
	enum rsw_llr_fallback fallback;
};

/* The frames the release callback gives back: n handles, one reference each. */
typedef void(rsw_llr_release_t)(void *arg, void **h, unsigned int n);

/*
 * Called by rsw_llr_mbuf_tx_burst with each frame it has just sequenced (the ring holds it
 * from now on): the pipeline charges its bytes to the buffer until the release callback.
 */
typedef void(rsw_llr_charge_t)(void *arg, struct rte_mbuf *m);

/* What rsw_llr_poll asks the caller to send. */
struct rsw_llr_emit {
	uint8_t type;  /* RSW_LLR_T_DATA: send h again; else a control frame to build */
	uint8_t flags; /* control frames: RSW_LLR_F_* */
	uint32_t seq;  /* control frames: their sequence number */
	void *h;       /* DATA: the frame (the ring keeps its own reference) */
};

/* Replay ring slot besides its handle. */
struct rsw_llr_slot {
	uint64_t first_ns; /* first transmission (data age, round trip) */
	uint32_t len;      /* bytes as sent, shim included */
	uint32_t replayed; /* sent again: its ACK measures no round trip (Karn) */
};

/*
 * The round-trip estimate and the replay timer (RFC 6298 §2, with alpha 1/8, beta 1/4,
 * K 4). Integers in ns; srtt_ns 0 means no round trip measured yet.
 */
struct rsw_llr_rtt {
	uint64_t srtt_ns;   /* SRTT: smoothed round trip */
	uint64_t rttvar_ns; /* RTTVAR: its smoothed mean deviation */
	uint64_t rto_ns;    /* the replay timer in force, floor .. cap */
};

/** Start an estimate: nothing measured, the timer at floor_ns. */
void rsw_llr_rtt_init(struct rsw_llr_rtt *r, uint64_t floor_ns);

/**
 * A round trip measured (RFC 6298 §2.2, §2.3): SRTT and RTTVAR updated, the timer set to
 * SRTT + 4 × RTTVAR kept within floor_ns .. cap_ns (a backed-off timer is replaced). A
 * round trip above cap_ns counts as cap_ns.
 */
void rsw_llr_rtt_sample(struct rsw_llr_rtt *r, uint64_t rtt_ns, uint64_t floor_ns, uint64_t cap_ns);

/** The timer expired (RFC 6298 §5.5): it doubles, up to cap_ns. */
void rsw_llr_rtt_backoff(struct rsw_llr_rtt *r, uint64_t cap_ns);

/**
 * How long a peer may stay silent (no ACK) before the replay limit FLUSHes: the
 * replay_count_max + 1 expiries of a timer that starts at the floor and doubles up to the
 * cap. A data_age_timeout below it FLUSHes first.
 */
uint64_t rsw_llr_replay_span_ns(const struct rsw_llr_params *p);

struct rsw_llr {
	/* TX */
	uint8_t tx_state;       /* enum rsw_llr_tx_state */
	uint8_t rx_state;       /* enum rsw_llr_rx_state */
	uint8_t pend;           /* control frames due (PEND_* in llr.c) */
	uint8_t fallback;       /* enum rsw_llr_fallback */
	uint32_t next_seq;      /* sequence of the next new frame */
	uint32_t tail_seq;      /* oldest unacknowledged frame */
	uint32_t replay_seq;    /* REPLAY: the next frame to send again */
	uint32_t init_seq;      /* INIT: the sequence announced */
	uint32_t replay_count;  /* replays since the last ACK */
	uint32_t mask;          /* ring size - 1 */
	uint64_t bytes_out;     /* bytes in the ring */
	uint64_t timer_ns;      /* replay timer: last progress or replay */
	uint64_t init_sent_ns;  /* last INIT */
	struct rsw_llr_rtt rtt; /* the round trip and the replay timer in force */
	/* RX */
	uint32_t rx_expected;       /* next sequence in order */
	uint32_t rx_echo_seq;       /* INIT_ECHO due with this sequence */
	uint32_t rx_unacked;        /* bytes accepted since the last ACK */
	uint32_t rx_unacked_frames; /* frames accepted since the last ACK */
	uint64_t rx_last_ack_ns;    /* last ACK sent */
	uint64_t rx_reinit_ns;      /* last NACK asking the peer to re-init */
	uint64_t rx_nack_ns;        /* last NACK of a gap */
	struct rsw_llr_params p;    /* timers and limits */
	rsw_llr_release_t *release; /* drops the ring's reference */
	void *release_arg;
	rsw_llr_charge_t *charge;  /* NULL, or called with release_arg (set after rsw_llr_init) */
	void **h;                  /* ring of handles, indexed by seq & mask */
	struct rsw_llr_slot *slot; /* ring of lengths and times, same index */
	uint64_t ctr[RSW_N_LLR_CTRS];
};

/** Fill p with the defaults (docs/link.md "Timers and defaults"). */
void rsw_llr_params_default(struct rsw_llr_params *p);

/**
 * Bytes to allocate for a struct rsw_llr with its replay ring (zeroed memory, e.g.
 * rte_zmalloc or calloc).
 * @return the size, or 0 if frames_max is not a power of 2 in 1..RSW_LLR_FRAMES_MAX.
 */
size_t rsw_llr_mem_size(uint32_t frames_max);

/**
 * Initialise l (in memory of rsw_llr_mem_size(p->frames_max) bytes) in state OFF.
 * @param release
 *   Called with handles the ring gives back; not NULL.
 * @return 0, or -EINVAL for bad parameters (a zero timer, a cap below the floor).
 */
int rsw_llr_init(struct rsw_llr *l, const struct rsw_llr_params *p, rsw_llr_release_t *release,
		 void *release_arg);

/** Enable LLR: TX goes to INIT (an INIT is due at once), RX waits for the peer's INIT. */
void rsw_llr_start(struct rsw_llr *l, uint64_t now_ns);

/** Disable LLR: the ring is released, both sides go OFF. */
void rsw_llr_stop(struct rsw_llr *l);

/**
 * How many new frames may be given to rsw_llr_tx_data now: 0 in REPLAY, while the window
 * (frames or bytes) is full, or in INIT with fallback block; UINT32_MAX when LLR does not
 * limit (OFF, INIT with best-effort or discard).
 */
uint32_t rsw_llr_tx_room(const struct rsw_llr *l);

/* What to do with a frame about to be transmitted (rsw_llr_tx_data). */
enum rsw_llr_tx_verdict {
	RSW_LLR_TX_SEQ = 0, /* sequenced: add the shim with *seq and send; the ring holds h */
	RSW_LLR_TX_PLAIN,   /* send as it is (LLR off, or fallback best-effort) */
	RSW_LLR_TX_DROP,    /* drop it (fallback discard; counted) */
	RSW_LLR_TX_HOLD,    /* not now: keep it queued (window full, replay, fallback block) */
};

/**
 * Sequence a frame of len bytes (shim included) that is about to be sent.
 * @param h
 *   The frame's handle; with RSW_LLR_TX_SEQ the ring keeps it until acknowledged, and the
 *   caller must have given the ring its own reference.
 * @param seq
 *   Receives the sequence number with RSW_LLR_TX_SEQ.
 * @return an enum rsw_llr_tx_verdict value.
 */
enum rsw_llr_tx_verdict rsw_llr_tx_data(struct rsw_llr *l, void *h, uint32_t len, uint64_t now_ns,
					uint32_t *seq);

/**
 * A control frame (ACK, NACK, INIT, INIT_ECHO) with a good checksum arrived; hdr is its
 * decoded shim. ACKs and NACKs free acknowledged frames through the release callback.
 */
void rsw_llr_rx_ctl(struct rsw_llr *l, const struct rsw_llr_hdr *hdr, uint64_t now_ns);

/* What to do with a received DATA frame (rsw_llr_rx_data). */
enum rsw_llr_rx_verdict {
	RSW_LLR_RX_ACCEPT = 0, /* in sequence: strip the shim and forward */
	RSW_LLR_RX_DUP,        /* already received: drop (counted rx_duplicate_seq) */
	RSW_LLR_RX_MISSING,    /* after a gap: drop (counted rx_missing_seq) */
	RSW_LLR_RX_NOT_SYNCED, /* no INIT from the peer yet: drop (counted rx_not_synced) */
};

/**
 * A DATA frame with a good checksum arrived.
 * @param seq
 *   Its sequence number.
 * @param len
 *   Its length as received (for the ACK spacing).
 * @return an enum rsw_llr_rx_verdict value.
 */
enum rsw_llr_rx_verdict rsw_llr_rx_data(struct rsw_llr *l, uint32_t seq, uint32_t len,
					uint64_t now_ns);

/** An LLR frame failed its checksum or was truncated: counted and treated as lost. */
void rsw_llr_rx_bad(struct rsw_llr *l, uint64_t now_ns);

/**
 * Run the timers and collect what must be sent now: control frames first, then replays.
 * Call it once per loop on every LLR port.
 * @param out
 *   Receives up to max entries.
 * @return the number of entries written.
 */
unsigned int rsw_llr_poll(struct rsw_llr *l, uint64_t now_ns, struct rsw_llr_emit *out,
			  unsigned int max);

/* --- The mbuf layer ----------------------------------------------------------------- */

/* Destination MAC of control frames: 802.1D reserved, never forwarded by a bridge. */
#define RSW_LLR_CTL_DST                                                                            \
	{                                                                                          \
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x0f                                                 \
	}

/** Release callback for mbuf handles (arg unused): rte_pktmbuf_free_bulk. */
void rsw_llr_mbuf_release(void *arg, void **h, unsigned int n);

/**
 * The transmit step of an LLR port: pkts[0..n) are about to be sent in this order (call
 * rsw_llr_tx_room first and dequeue at most that many). Sequenced frames get the shim
 * and a reference in the ring; PFC/PAUSE (0x8808) and LLR frames pass untouched.
 * Frames to drop are freed and counted (tx_fallback_dropped, tx_encap_failed).
 * @param n_held
 *   Receives how many frames could not go now (window full, replay, fallback block):
 *   they are pkts[ret .. ret + *n_held), in order, still the caller's.
 * @return the number of frames to send, compacted at the front of pkts.
 */
uint16_t rsw_llr_mbuf_tx_burst(struct rsw_llr *l, struct rte_mbuf **pkts, uint16_t n,
			       uint64_t now_ns, uint16_t *n_held);

/**
 * The receive step of an LLR port: frames with EtherType 0x88B5 are checked; control
 * frames are consumed, DATA frames in sequence lose their shim and stay, the rest are
 * dropped (freed and counted). Other frames stay as they are.
 * @param n_consumed
 *   Receives how many control frames were consumed (freed), for the `consumed` total.
 * @return the number of frames left for the pipeline, compacted at the front of pkts.
 */
uint16_t rsw_llr_mbuf_rx_burst(struct rsw_llr *l, struct rte_mbuf **pkts, uint16_t n,
			       uint64_t now_ns, uint16_t *n_consumed);

/**
 * Run the timers and build what must be sent now (control frames from pool, replays as
 * another reference to the ring's mbuf).
 * @param src_mac
 *   The port's MAC (control frames' source).
 * @return the number of mbufs written to out (at most max), to be sent at strict
 *   priority, ahead of the egress queues.
 */
uint16_t rsw_llr_mbuf_poll(struct rsw_llr *l, uint64_t now_ns, struct rte_mempool *pool,
			   const uint8_t *src_mac, struct rte_mbuf **out, uint16_t max);

#endif /* RSW_LLR_H */
