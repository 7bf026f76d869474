/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Link-Level Retry (rsw_llr.h, docs/link.md): the TX and RX state machines of one port
 * over an abstract clock and abstract frames, then the mbuf layer the transmit and
 * receive steps call. Sequence numbers are 32-bit and compared in serial arithmetic
 * (RFC 1982), so they wrap.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "rsw_llr.h"

/* Control frames due (struct rsw_llr.pend). */
#define PEND_INIT        0x01
#define PEND_INIT_ECHO   0x02
#define PEND_ACK         0x04
#define PEND_NACK        0x08
#define PEND_NACK_REINIT 0x10

static const char *const ctr_names[RSW_N_LLR_CTRS] = {
#define RSW_X_NAME(name, ...) #name,
	RSW_FOREACH_LLR_CTR(RSW_X_NAME)
#undef RSW_X_NAME
};

static const uint8_t ctr_is_drop[RSW_N_LLR_CTRS] = {
#define RSW_X_DROP(name, drop, ...) drop,
	RSW_FOREACH_LLR_CTR(RSW_X_DROP)
#undef RSW_X_DROP
};

const char *
rsw_llr_ctr_name(enum rsw_llr_ctr c)
{
	return (unsigned int)c < RSW_N_LLR_CTRS ? ctr_names[c] : NULL;
}

int
rsw_llr_ctr_is_drop(enum rsw_llr_ctr c)
{
	return (unsigned int)c < RSW_N_LLR_CTRS ? ctr_is_drop[c] : 0;
}

const char *
rsw_llr_tx_state_name(enum rsw_llr_tx_state s)
{
	static const char *const names[] = {"off", "init", "advance", "replay", "flush"};

	return (unsigned int)s < RTE_DIM(names) ? names[s] : "unknown";
}

void
rsw_llr_params_default(struct rsw_llr_params *p)
{
	memset(p, 0, sizeof(*p));
	p->frames_max = 256;
	p->bytes_max = 1u << 20;
	p->ack_spacing_bytes = 2048;
	p->replay_count_max = 8;
	p->ack_interval_ns = 10 * 1000;
	p->replay_timeout_ns = 200 * 1000;
	p->replay_timeout_max_ns = 100 * 1000 * 1000;
	p->data_age_timeout_ns = 10 * 1000 * 1000;
	p->init_interval_ns = 1000 * 1000;
	p->initial_seq = 0;
	p->fallback = RSW_LLR_FB_BEST_EFFORT;
}

size_t
rsw_llr_mem_size(uint32_t frames_max)
{
	if (frames_max == 0 || frames_max > RSW_LLR_FRAMES_MAX ||
	    (frames_max & (frames_max - 1)) != 0)
		return 0;
	return sizeof(struct rsw_llr) + frames_max * (sizeof(void *) + sizeof(struct rsw_llr_slot));
}

int
rsw_llr_init(struct rsw_llr *l, const struct rsw_llr_params *p, rsw_llr_release_t *release,
	     void *release_arg)
{
	if (l == NULL || p == NULL || release == NULL || rsw_llr_mem_size(p->frames_max) == 0 ||
	    p->bytes_max == 0 || p->replay_timeout_ns == 0 ||
	    p->replay_timeout_max_ns < p->replay_timeout_ns || p->init_interval_ns == 0 ||
	    p->fallback > RSW_LLR_FB_BLOCK)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->p = *p;
	l->fallback = (uint8_t)p->fallback;
	l->release = release;
	l->release_arg = release_arg;
	l->mask = p->frames_max - 1;
	l->slot = (struct rsw_llr_slot *)(l + 1);
	l->h = (void **)(l->slot + p->frames_max);
	l->next_seq = l->tail_seq = l->replay_seq = p->initial_seq;
	rsw_llr_rtt_init(&l->rtt, p->replay_timeout_ns);
	return 0;
}

/* Serial-number order: a before b. */
static inline int
seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline uint32_t
outstanding(const struct rsw_llr *l)
{
	return l->next_seq - l->tail_seq;
}

static void
set_gauges(struct rsw_llr *l)
{
	l->ctr[RSW_LLR_replay_buffer_frames] = outstanding(l);
	l->ctr[RSW_LLR_replay_buffer_bytes] = l->bytes_out;
}

/* Give back the ring's frames from tail_seq up to (not including) end. */
static void
release_to(struct rsw_llr *l, uint32_t end)
{
	while (l->tail_seq != end) {
		uint32_t i = l->tail_seq & l->mask;
		uint32_t n = end - l->tail_seq;
		uint32_t k;

		if (n > l->mask + 1 - i)
			n = l->mask + 1 - i; /* up to the end of the ring, then from its start */
		for (k = 0; k < n; k++)
			l->bytes_out -= l->slot[i + k].len;
		l->release(l->release_arg, &l->h[i], n);
		l->tail_seq += n;
	}
	if (seq_lt(l->replay_seq, l->tail_seq))
		l->replay_seq = l->tail_seq;
	set_gauges(l);
}

/* FLUSH: the ring is given back unacknowledged and the link initialised again. */
static void
flush(struct rsw_llr *l, uint64_t now_ns)
{
	l->tx_state = RSW_LLR_TX_FLUSH;
	l->ctr[RSW_LLR_tx_flushes]++;
	l->ctr[RSW_LLR_tx_flushed_frames] += outstanding(l);
	release_to(l, l->next_seq);
	l->replay_count = 0;
	l->replay_seq = l->next_seq;
	/* A new session measures its round trip afresh (RFC 6298 §5: the old one is bogus). */
	rsw_llr_rtt_init(&l->rtt, l->p.replay_timeout_ns);
	/* Re-init: the peer's receiver starts again at the next new sequence. */
	l->tx_state = RSW_LLR_TX_INIT;
	l->init_seq = l->next_seq;
	l->pend |= PEND_INIT;
	l->init_sent_ns = now_ns;
}

/* Go back N: send every unacknowledged frame again, unless that is one replay too many. */
static void
start_replay(struct rsw_llr *l, uint64_t now_ns)
{
	if (++l->replay_count > l->p.replay_count_max) {
		flush(l, now_ns);
		return;
	}
	l->replay_seq = l->tail_seq;
	l->timer_ns = now_ns;
	l->tx_state = outstanding(l) > 0 ? RSW_LLR_TX_REPLAY : RSW_LLR_TX_ADVANCE;
}

void
rsw_llr_start(struct rsw_llr *l, uint64_t now_ns)
{
	l->tx_state = RSW_LLR_TX_INIT;
	l->init_seq = l->next_seq;
	l->pend = PEND_INIT;
	l->init_sent_ns = now_ns;
	l->rx_state = RSW_LLR_RX_OFF;
	l->rx_reinit_ns = now_ns - l->p.init_interval_ns;
}

void
rsw_llr_stop(struct rsw_llr *l)
{
	release_to(l, l->next_seq);
	l->tx_state = RSW_LLR_TX_OFF;
	l->rx_state = RSW_LLR_RX_OFF;
	l->pend = 0;
	l->replay_count = 0;
}

uint32_t
rsw_llr_tx_room(const struct rsw_llr *l)
{
	switch (l->tx_state) {
	case RSW_LLR_TX_ADVANCE:
		if (l->bytes_out >= l->p.bytes_max)
			return 0;
		return l->mask + 1 - outstanding(l);
	case RSW_LLR_TX_REPLAY:
		return 0;
	case RSW_LLR_TX_INIT:
	case RSW_LLR_TX_FLUSH:
		return l->fallback == RSW_LLR_FB_BLOCK ? 0 : UINT32_MAX;
	default:
		return UINT32_MAX;
	}
}

enum rsw_llr_tx_verdict
rsw_llr_tx_data(struct rsw_llr *l, void *h, uint32_t len, uint64_t now_ns, uint32_t *seq)
{
	uint32_t i;

	switch (l->tx_state) {
	case RSW_LLR_TX_OFF:
		return RSW_LLR_TX_PLAIN;
	case RSW_LLR_TX_INIT:
	case RSW_LLR_TX_FLUSH:
		if (l->fallback == RSW_LLR_FB_BLOCK)
			return RSW_LLR_TX_HOLD;
		if (l->fallback == RSW_LLR_FB_DISCARD) {
			l->ctr[RSW_LLR_tx_fallback_dropped]++;
			return RSW_LLR_TX_DROP;
		}
		l->ctr[RSW_LLR_tx_fallback_plain]++;
		return RSW_LLR_TX_PLAIN;
	case RSW_LLR_TX_REPLAY:
		return RSW_LLR_TX_HOLD;
	default:
		break;
	}
	if (outstanding(l) > l->mask || l->bytes_out >= l->p.bytes_max)
		return RSW_LLR_TX_HOLD;
	if (outstanding(l) == 0)
		l->timer_ns = now_ns; /* the replay timer runs while frames wait */
	i = l->next_seq & l->mask;
	l->h[i] = h;
	l->slot[i].len = len;
	l->slot[i].first_ns = now_ns;
	l->slot[i].replayed = 0;
	l->bytes_out += len;
	*seq = l->next_seq++;
	l->ctr[RSW_LLR_tx_frames]++;
	set_gauges(l);
	return RSW_LLR_TX_SEQ;
}

/*
 * The peer has everything up to seq: free it. An ACK (measure set) that frees frames
 * measures the round trip of the newest, unless it was replayed (Karn: which copy is
 * acknowledged is unknown). The peer answered: the replay limit counts from here.
 * @return 1 if seq is in the window (tail - 1 .. next - 1, the first meaning nothing new),
 * 0 if stale.
 */
static int
ack_to(struct rsw_llr *l, uint32_t seq, uint64_t now_ns, int measure)
{
	uint32_t end = seq + 1;

	if (seq_lt(end, l->tail_seq) || seq_lt(l->next_seq, end))
		return 0;
	l->replay_count = 0;
	if (end != l->tail_seq) {
		const struct rsw_llr_slot *s = &l->slot[seq & l->mask];

		if (measure && !s->replayed)
			rsw_llr_rtt_sample(&l->rtt, now_ns - s->first_ns, l->p.replay_timeout_ns,
					   l->p.replay_timeout_max_ns);
		release_to(l, end);
		l->timer_ns = now_ns;
		if (l->tx_state == RSW_LLR_TX_REPLAY && l->replay_seq == l->next_seq)
			l->tx_state = RSW_LLR_TX_ADVANCE;
	}
	return 1;
}

void
rsw_llr_rx_ctl(struct rsw_llr *l, const struct rsw_llr_hdr *hdr, uint64_t now_ns)
{
	int sequencing = l->tx_state == RSW_LLR_TX_ADVANCE || l->tx_state == RSW_LLR_TX_REPLAY;

	switch (hdr->type) {
	case RSW_LLR_T_ACK:
		l->ctr[RSW_LLR_acks_rx]++;
		if (sequencing)
			ack_to(l, hdr->seq, now_ns, 1);
		break;
	case RSW_LLR_T_NACK:
		l->ctr[RSW_LLR_nacks_rx]++;
		if (hdr->flags & RSW_LLR_F_REINIT) {
			/* The peer has no session (it restarted): start one. */
			if (sequencing)
				flush(l, now_ns);
			else if (l->tx_state == RSW_LLR_TX_INIT)
				l->pend |= PEND_INIT;
			break;
		}
		if (sequencing && ack_to(l, hdr->seq, now_ns, 0) && outstanding(l) > 0)
			start_replay(l, now_ns);
		break;
	case RSW_LLR_T_INIT:
		l->ctr[RSW_LLR_inits_rx]++;
		if (l->tx_state == RSW_LLR_TX_OFF)
			break; /* LLR is not enabled here: the peer stays in INIT */
		l->rx_expected = hdr->seq;
		l->rx_state = RSW_LLR_RX_SEND_ACKS;
		l->rx_unacked = 0;
		l->rx_unacked_frames = 0;
		l->rx_last_ack_ns = now_ns;
		l->rx_echo_seq = hdr->seq;
		l->pend = (uint8_t)((l->pend | PEND_INIT_ECHO) &
				    ~(PEND_ACK | PEND_NACK | PEND_NACK_REINIT));
		break;
	case RSW_LLR_T_INIT_ECHO:
		l->ctr[RSW_LLR_init_echoes_rx]++;
		if (l->tx_state == RSW_LLR_TX_INIT && hdr->seq == l->init_seq) {
			l->tx_state = RSW_LLR_TX_ADVANCE;
			l->pend &= (uint8_t)~PEND_INIT;
			l->replay_count = 0;
			l->timer_ns = now_ns;
		}
		break;
	default:
		break;
	}
}

/*
 * A gap or a bad frame at now_ns: one NACK(last good), then silence until the expected one;
 * but when frames still arrive past the gap a replay timer's floor after that NACK, the NACK
 * (or the replay it asked for) was lost: NACK again. Otherwise only the sender's replay timer
 * would end the gap, and on a busy machine that timer may have backed off toward its cap
 * (100 ms), longer than the hosts' own retransmission timeout.
 */
static void
want_nack(struct rsw_llr *l, uint64_t now_ns)
{
	if (l->rx_state != RSW_LLR_RX_SEND_ACKS &&
	    (l->rx_state != RSW_LLR_RX_NACK_SENT ||
	     now_ns - l->rx_nack_ns < l->p.replay_timeout_ns))
		return;
	l->rx_state = RSW_LLR_RX_SEND_NACK;
	l->pend = (uint8_t)((l->pend | PEND_NACK) & ~PEND_ACK);
}

enum rsw_llr_rx_verdict
rsw_llr_rx_data(struct rsw_llr *l, uint32_t seq, uint32_t len, uint64_t now_ns)
{
	int32_t d;

	if (l->rx_state == RSW_LLR_RX_OFF) {
		l->ctr[RSW_LLR_rx_not_synced]++;
		/* Ask the peer to start a session, at most once per INIT interval. */
		if (l->tx_state != RSW_LLR_TX_OFF &&
		    now_ns - l->rx_reinit_ns >= l->p.init_interval_ns) {
			l->pend |= PEND_NACK_REINIT;
			l->rx_reinit_ns = now_ns;
		}
		return RSW_LLR_RX_NOT_SYNCED;
	}
	d = (int32_t)(seq - l->rx_expected);
	if (d < 0) {
		/* The sender replays what arrived: our ACK may be lost, send one. */
		l->ctr[RSW_LLR_rx_duplicate_seq]++;
		if (l->rx_state == RSW_LLR_RX_SEND_ACKS)
			l->pend |= PEND_ACK;
		return RSW_LLR_RX_DUP;
	}
	if (d > 0) {
		l->ctr[RSW_LLR_rx_missing_seq]++;
		want_nack(l, now_ns);
		return RSW_LLR_RX_MISSING;
	}
	l->rx_expected++;
	l->ctr[RSW_LLR_rx_frames]++;
	if (l->rx_state != RSW_LLR_RX_SEND_ACKS) {
		l->rx_state = RSW_LLR_RX_SEND_ACKS;
		l->pend &= (uint8_t)~PEND_NACK;
	}
	l->rx_unacked += len;
	l->rx_unacked_frames++;
	if (l->rx_unacked >= l->p.ack_spacing_bytes)
		l->pend |= PEND_ACK;
	return RSW_LLR_RX_ACCEPT;
}

void
rsw_llr_rx_bad(struct rsw_llr *l, uint64_t now_ns)
{
	l->ctr[RSW_LLR_rx_bad_integrity]++;
	want_nack(l, now_ns);
}

static unsigned int
emit_ctl(struct rsw_llr_emit *out, uint8_t type, uint8_t flags, uint32_t seq)
{
	out->type = type;
	out->flags = flags;
	out->seq = seq;
	out->h = NULL;
	return 1;
}

unsigned int
rsw_llr_poll(struct rsw_llr *l, uint64_t now_ns, struct rsw_llr_emit *out, unsigned int max)
{
	unsigned int n = 0;

	if (l->tx_state == RSW_LLR_TX_OFF)
		return 0;
	/* TX timers: data age, then the replay timer (lost tail frame, lost NACK). */
	if ((l->tx_state == RSW_LLR_TX_ADVANCE || l->tx_state == RSW_LLR_TX_REPLAY) &&
	    outstanding(l) > 0) {
		if (now_ns - l->slot[l->tail_seq & l->mask].first_ns > l->p.data_age_timeout_ns) {
			flush(l, now_ns);
		} else if (now_ns - l->timer_ns >= l->rtt.rto_ns) {
			l->ctr[RSW_LLR_tx_replay_timeouts]++;
			rsw_llr_rtt_backoff(&l->rtt, l->p.replay_timeout_max_ns);
			start_replay(l, now_ns);
		}
	}
	if (l->tx_state == RSW_LLR_TX_INIT && now_ns - l->init_sent_ns >= l->p.init_interval_ns)
		l->pend |= PEND_INIT;
	/* RX: an ACK by time for what arrived since the last one. */
	if (l->rx_state == RSW_LLR_RX_SEND_ACKS && l->rx_unacked_frames > 0 &&
	    now_ns - l->rx_last_ack_ns >= l->p.ack_interval_ns)
		l->pend |= PEND_ACK;

	if (n < max && (l->pend & PEND_INIT_ECHO)) {
		n += emit_ctl(&out[n], RSW_LLR_T_INIT_ECHO, 0, l->rx_echo_seq);
		l->pend &= (uint8_t)~PEND_INIT_ECHO;
		l->ctr[RSW_LLR_init_echoes_tx]++;
	}
	if (n < max && (l->pend & PEND_NACK)) {
		n += emit_ctl(&out[n], RSW_LLR_T_NACK, 0, l->rx_expected - 1);
		l->pend &= (uint8_t)~PEND_NACK;
		l->rx_state = RSW_LLR_RX_NACK_SENT;
		l->rx_nack_ns = now_ns;
		l->ctr[RSW_LLR_nacks_tx]++;
	}
	if (n < max && (l->pend & PEND_NACK_REINIT)) {
		n += emit_ctl(&out[n], RSW_LLR_T_NACK, RSW_LLR_F_REINIT, 0);
		l->pend &= (uint8_t)~PEND_NACK_REINIT;
		l->ctr[RSW_LLR_nacks_tx]++;
	}
	if (n < max && (l->pend & PEND_ACK)) {
		n += emit_ctl(&out[n], RSW_LLR_T_ACK, 0, l->rx_expected - 1);
		l->pend &= (uint8_t)~PEND_ACK;
		l->rx_unacked = 0;
		l->rx_unacked_frames = 0;
		l->rx_last_ack_ns = now_ns;
		l->ctr[RSW_LLR_acks_tx]++;
	}
	if (n < max && (l->pend & PEND_INIT) && l->tx_state == RSW_LLR_TX_INIT) {
		n += emit_ctl(&out[n], RSW_LLR_T_INIT, 0, l->init_seq);
		l->pend &= (uint8_t)~PEND_INIT;
		l->init_sent_ns = now_ns;
		l->ctr[RSW_LLR_inits_tx]++;
	}
	/* Replays: a replay passed the scheduler once already, PFC pauses do not hold it. */
	while (n < max && l->tx_state == RSW_LLR_TX_REPLAY) {
		if (l->replay_seq == l->next_seq) {
			l->tx_state = RSW_LLR_TX_ADVANCE;
			break;
		}
		out[n].type = RSW_LLR_T_DATA;
		out[n].flags = 0;
		out[n].seq = l->replay_seq;
		out[n].h = l->h[l->replay_seq & l->mask];
		l->slot[l->replay_seq & l->mask].replayed = 1;
		n++;
		l->replay_seq++;
		l->ctr[RSW_LLR_tx_replayed]++;
	}
	if (l->tx_state == RSW_LLR_TX_REPLAY && l->replay_seq == l->next_seq)
		l->tx_state = RSW_LLR_TX_ADVANCE;
	return n;
}

/* --- The mbuf layer ----------------------------------------------------------------- */

void
rsw_llr_mbuf_release(void *arg, void **h, unsigned int n)
{
	(void)arg;
	rte_pktmbuf_free_bulk((struct rte_mbuf **)h, n);
}

/* EtherType of a plain frame in its first segment, or -1 when too short. */
static int
frame_ethertype(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	int off = rsw_llr_ethertype_off(p, rte_pktmbuf_data_len(m));

	if (off < 0)
		return -1;
	return (p[off] << 8) | p[off + 1];
}

/* Add the shim to m in place. @return 0, or -1 (no headroom, segmented, too short). */
static int
mbuf_encap(struct rte_mbuf *m, uint32_t seq)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t *buf;

	if (!rte_pktmbuf_is_contiguous(m) || rte_pktmbuf_headroom(m) < RSW_LLR_SHIM_LEN)
		return -1;
	buf = (uint8_t *)rte_pktmbuf_prepend(m, RSW_LLR_SHIM_LEN);
	if (rsw_llr_shim_encap(buf, len, seq) < 0) {
		rte_pktmbuf_adj(m, RSW_LLR_SHIM_LEN);
		return -1;
	}
	return 0;
}

uint16_t
rsw_llr_mbuf_tx_burst(struct rsw_llr *l, struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns,
		      uint16_t *n_held)
{
	uint16_t i, out = 0;
	uint32_t seq;

	*n_held = 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum rsw_llr_tx_verdict v;
		int et = frame_ethertype(m);

		/* PFC/PAUSE is never sequenced (a replayed XOFF would pause late). */
		if (et == 0x8808 || et == RSW_LLR_ETHERTYPE || l->tx_state == RSW_LLR_TX_OFF) {
			pkts[out++] = m;
			continue;
		}
		if (l->tx_state == RSW_LLR_TX_ADVANCE &&
		    (!rte_pktmbuf_is_contiguous(m) || rte_pktmbuf_headroom(m) < RSW_LLR_SHIM_LEN ||
		     et < 0)) {
			l->ctr[RSW_LLR_tx_encap_failed]++;
			rte_pktmbuf_free(m);
			continue;
		}
		v = rsw_llr_tx_data(l, m, rte_pktmbuf_pkt_len(m) + RSW_LLR_SHIM_LEN, now_ns, &seq);
		if (v == RSW_LLR_TX_HOLD) {
			/* Keep the order: this frame and the rest go back to the caller. */
			memmove(&pkts[out], &pkts[i], (size_t)(n - i) * sizeof(pkts[0]));
			*n_held = (uint16_t)(n - i);
			return out;
		}
		if (v == RSW_LLR_TX_DROP) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (v == RSW_LLR_TX_SEQ) {
			/* Checked above, so the encapsulation cannot fail here. */
			mbuf_encap(m, seq);
			rte_mbuf_refcnt_update(m, 1); /* the ring's reference */
			if (l->charge != NULL)
				l->charge(l->release_arg, m);
		}
		pkts[out++] = m;
	}
	return out;
}

uint16_t
rsw_llr_mbuf_rx_burst(struct rsw_llr *l, struct rte_mbuf **pkts, uint16_t n, uint64_t now_ns,
		      uint16_t *n_consumed)
{
	uint16_t i, out = 0, consumed = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
		struct rsw_llr_hdr h;
		enum rsw_llr_shim_err e;
		size_t plen;

		e = rsw_llr_shim_decode(p, rte_pktmbuf_data_len(m), &h);
		if (e == RSW_LLR_SHIM_NOT_LLR) {
			pkts[out++] = m;
			continue;
		}
		if (e != RSW_LLR_SHIM_OK) {
			rsw_llr_rx_bad(l, now_ns);
			rte_pktmbuf_free(m);
			continue;
		}
		if (h.type != RSW_LLR_T_DATA) {
			rsw_llr_rx_ctl(l, &h, now_ns);
			consumed++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (rsw_llr_rx_data(l, h.seq, rte_pktmbuf_pkt_len(m), now_ns) !=
		    RSW_LLR_RX_ACCEPT) {
			rte_pktmbuf_free(m);
			continue;
		}
		plen = rsw_llr_shim_decap(p, &h);
		rte_pktmbuf_adj(m, RSW_LLR_SHIM_LEN);
		if (rte_pktmbuf_pkt_len(m) > plen)
			rte_pktmbuf_trim(m,
					 (uint16_t)(rte_pktmbuf_pkt_len(m) - plen)); /* padding */
		pkts[out++] = m;
	}
	*n_consumed = consumed;
	return out;
}

uint16_t
rsw_llr_mbuf_poll(struct rsw_llr *l, uint64_t now_ns, struct rte_mempool *pool,
		  const uint8_t *src_mac, struct rte_mbuf **out, uint16_t max)
{
	static const uint8_t dst[6] = RSW_LLR_CTL_DST;
	struct rsw_llr_emit e[64];
	unsigned int k, n;
	uint16_t o = 0;

	n = rsw_llr_poll(l, now_ns, e, RTE_MIN((unsigned int)max, RTE_DIM(e)));
	for (k = 0; k < n; k++) {
		struct rte_mbuf *m;
		uint8_t *buf;

		if (e[k].type == RSW_LLR_T_DATA) {
			m = e[k].h;
			rte_mbuf_refcnt_update(m, 1); /* the ring keeps its own */
			out[o++] = m;
			continue;
		}
		m = rte_pktmbuf_alloc(pool);
		if (m == NULL)
			continue; /* as if lost on the wire: the timers recover */
		buf = (uint8_t *)rte_pktmbuf_append(m, RSW_LLR_CTL_MIN);
		if (buf == NULL ||
		    rsw_llr_ctl_encode(buf, dst, src_mac, e[k].type, e[k].flags, e[k].seq) < 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		out[o++] = m;
	}
	return o;
}
