/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Credit-based flow control (rsw_cbfc.h, docs/link.md): the credit message codec, then the
 * sender and receiver machines of one port over an abstract clock. Credit counts are 64-bit
 * here and 32-bit cyclic on the wire (UEC uses 20-bit counters), read back in serial
 * arithmetic against the local count.
 *
 * A credit message (60 bytes, FCS excluded):
 *
 *   bytes 0-11   destination 01:80:c2:00:00:0f (never forwarded by a bridge), source MAC
 *   bytes 12-13  EtherType 0x88B6
 *   byte  14     version (high nibble, 1) | type (low nibble): INIT, INIT_ECHO, CREDIT,
 *                CONSUMED
 *   byte  15     VC mask: bit v, value[v] is meaningful (INIT: the VCs asked for)
 *   byte  16     flags (RSW_CBFC_F_*)
 *   byte  17     reserved, 0
 *   bytes 18-19  bytes per credit of the direction (the sender's), 0 in CONSUMED
 *   bytes 20-23  session of the sender
 *   bytes 24-55  value[0..7], 32-bit each: credit limits (INIT_ECHO, CREDIT) or credits
 *                consumed so far (INIT, CONSUMED)
 *   bytes 56-59  CRC32C of bytes 0-55, big-endian
 */

#include <errno.h>
#include <string.h>

#include "link_bytes.h"
#include "llr_shim.h"
#include "rsw_cbfc.h"

#define OFF_ET      12
#define OFF_TYPE    14
#define OFF_VCS     15
#define OFF_FLAGS   16
#define OFF_RSVD    17
#define OFF_BPC     18
#define OFF_SESSION 20
#define OFF_VALUE   24
#define OFF_CRC     56

/* Messages due (struct rsw_cbfc.pend). */
#define PEND_INIT      0x01
#define PEND_INIT_ECHO 0x02
#define PEND_CREDIT    0x04
#define PEND_REINIT    0x08

static const char *const vc_ctr_names[RSW_N_CBFC_VC_CTRS] = {
#define RSW_X_NAME(name, ...) #name,
	RSW_FOREACH_CBFC_VC_CTR(RSW_X_NAME)
#undef RSW_X_NAME
};

static const char *const ctr_names[RSW_N_CBFC_CTRS] = {
#define RSW_X_NAME(name, ...) #name,
	RSW_FOREACH_CBFC_CTR(RSW_X_NAME)
#undef RSW_X_NAME
};

const char *
rsw_cbfc_vc_ctr_name(enum rsw_cbfc_vc_ctr c)
{
	return (unsigned int)c < RSW_N_CBFC_VC_CTRS ? vc_ctr_names[c] : NULL;
}

const char *
rsw_cbfc_ctr_name(enum rsw_cbfc_ctr c)
{
	return (unsigned int)c < RSW_N_CBFC_CTRS ? ctr_names[c] : NULL;
}

const char *
rsw_cbfc_state_name(enum rsw_cbfc_state s)
{
	static const char *const names[] = {"off", "init", "active", "fallback"};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

/* --- The codec ------------------------------------------------------------------------ */

static int
bpc_ok(uint16_t bpc)
{
	return bpc >= RSW_CBFC_BPC_MIN && bpc <= RSW_CBFC_BPC_MAX;
}

enum rsw_cbfc_frame_err
rsw_cbfc_frame_decode(const uint8_t *f, size_t len, struct rsw_cbfc_msg *m)
{
	int v;

	memset(m, 0, sizeof(*m));
	if (len < OFF_ET + 2 || rsw_link_get16(f + OFF_ET) != RSW_CBFC_ETHERTYPE)
		return RSW_CBFC_FRAME_NOT_CBFC;
	if (len < RSW_CBFC_FRAME_LEN)
		return RSW_CBFC_FRAME_MALFORMED;
	if (rsw_llr_crc32c(f, OFF_CRC) != rsw_link_get32(f + OFF_CRC))
		return RSW_CBFC_FRAME_BAD_CRC;
	m->type = f[OFF_TYPE] & 0x0f;
	m->vcs = f[OFF_VCS];
	m->flags = f[OFF_FLAGS];
	m->bpc = rsw_link_get16(f + OFF_BPC);
	m->session = rsw_link_get32(f + OFF_SESSION);
	for (v = 0; v < RSW_CBFC_N_VC; v++)
		m->value[v] = rsw_link_get32(f + OFF_VALUE + 4 * v);
	/* Covered by the checksum: a bad value is a peer's bug, not the wire's. */
	if ((f[OFF_TYPE] >> 4) != RSW_CBFC_VERSION || m->type < RSW_CBFC_T_INIT ||
	    m->type > RSW_CBFC_T_CONSUMED || f[OFF_RSVD] != 0 || (m->flags & ~RSW_CBFC_F_MASK))
		return RSW_CBFC_FRAME_MALFORMED;
	if (m->type == RSW_CBFC_T_CONSUMED ? m->bpc != 0 : !bpc_ok(m->bpc))
		return RSW_CBFC_FRAME_MALFORMED;
	if (m->flags && m->type != RSW_CBFC_T_CREDIT)
		return RSW_CBFC_FRAME_MALFORMED;
	return RSW_CBFC_FRAME_OK;
}

int
rsw_cbfc_frame_encode(uint8_t *buf, const uint8_t *dst, const uint8_t *src,
		      const struct rsw_cbfc_msg *m)
{
	int v;

	if (m->type < RSW_CBFC_T_INIT || m->type > RSW_CBFC_T_CONSUMED ||
	    (m->flags & ~RSW_CBFC_F_MASK))
		return -EINVAL;
	memset(buf, 0, RSW_CBFC_FRAME_LEN);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	rsw_link_put16(buf + OFF_ET, RSW_CBFC_ETHERTYPE);
	buf[OFF_TYPE] = (RSW_CBFC_VERSION << 4) | m->type;
	buf[OFF_VCS] = m->vcs;
	buf[OFF_FLAGS] = m->flags;
	rsw_link_put16(buf + OFF_BPC, m->bpc);
	rsw_link_put32(buf + OFF_SESSION, m->session);
	for (v = 0; v < RSW_CBFC_N_VC; v++)
		rsw_link_put32(buf + OFF_VALUE + 4 * v, (m->vcs >> v & 1) ? m->value[v] : 0);
	rsw_link_put32(buf + OFF_CRC, rsw_llr_crc32c(buf, OFF_CRC));
	return RSW_CBFC_FRAME_LEN;
}

/* --- The machines --------------------------------------------------------------------- */

void
rsw_cbfc_params_default(struct rsw_cbfc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->fallback = RSW_CBFC_FB_PFC;
	p->bytes_per_credit = RSW_CBFC_BPC_DEF;
	p->buffer_bytes = 96 * 1024;
	p->spacing_bytes = 0; /* rsw_cbfc_init: buffer / 4 within the bounds */
	p->session = 1;
	p->update_interval_ns = 20 * 1000;
	p->refresh_ns = 1000 * 1000;
	p->consumed_interval_ns = 1000 * 1000;
	p->init_interval_ns = 1000 * 1000;
	p->fallback_timeout_ns = 10 * 1000 * 1000;
	p->watchdog_ns = 200 * 1000 * 1000;
}

int
rsw_cbfc_init(struct rsw_cbfc *c, const struct rsw_cbfc_params *p)
{
	int v;

	if (c == NULL || p == NULL || p->vcs == 0 || !bpc_ok(p->bytes_per_credit) ||
	    p->buffer_bytes < p->bytes_per_credit || p->fallback > RSW_CBFC_FB_NONE ||
	    p->update_interval_ns == 0 || p->refresh_ns == 0 || p->consumed_interval_ns == 0 ||
	    p->init_interval_ns == 0 || p->fallback_timeout_ns == 0 || p->watchdog_ns == 0)
		return -EINVAL;
	if (p->spacing_bytes != 0 &&
	    (p->spacing_bytes < RSW_CBFC_SPACING_MIN || p->spacing_bytes > RSW_CBFC_SPACING_MAX))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->p = *p;
	if (c->p.spacing_bytes == 0) {
		uint32_t s = p->buffer_bytes / 4;

		c->p.spacing_bytes = s < RSW_CBFC_SPACING_MIN   ? RSW_CBFC_SPACING_MIN
				     : s > RSW_CBFC_SPACING_MAX ? RSW_CBFC_SPACING_MAX
								: s;
	}
	c->tx_session = p->session;
	for (v = 0; v < RSW_CBFC_N_VC; v++)
		c->vc[v].settled = 1; /* nothing charged: nothing LLR could send again */
	return 0;
}

/* A 32-bit cyclic count from the wire, as a 64-bit one near ref. */
static inline uint64_t
unwrap(uint64_t ref, uint32_t v)
{
	return ref + (uint64_t)(int64_t)(int32_t)(v - (uint32_t)ref);
}

static void
set_available(struct rsw_cbfc *c)
{
	int v;

	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		struct rsw_cbfc_vc *x = &c->vc[v];
		uint64_t a = 0;

		if (rsw_cbfc_tx_gated(c, (uint8_t)v) && x->limit > x->consumed)
			a = x->limit - x->consumed;
		x->ctr[RSW_CBFC_credits_tx_available] = a;
	}
}

/* The sender starts a new session: INIT due now. */
static void
tx_init(struct rsw_cbfc *c, uint64_t now_ns)
{
	int v;

	c->tx_state = RSW_CBFC_INIT;
	c->tx_vcs = 0;
	c->tx_session++;
	c->pend |= PEND_INIT;
	c->init_start_ns = now_ns;
	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		c->vc[v].limit = c->vc[v].consumed;
		c->vc[v].stall_ns = 0;
		c->vc[v].wd_counted = 0;
	}
	set_available(c);
}

void
rsw_cbfc_start(struct rsw_cbfc *c, uint64_t now_ns)
{
	c->rx_synced = 0;
	c->rx_vcs = 0;
	c->pend = 0;
	c->reinit_sent_ns = now_ns - c->p.init_interval_ns;
	tx_init(c, now_ns);
	c->init_sent_ns = now_ns - c->p.init_interval_ns;
}

int
rsw_cbfc_tx_take(struct rsw_cbfc *c, uint8_t vc, uint32_t len, uint64_t now_ns)
{
	struct rsw_cbfc_vc *x;
	uint32_t need;

	if (vc >= RSW_CBFC_N_VC || !(c->p.vcs >> vc & 1) || c->tx_state == RSW_CBFC_OFF)
		return 1;
	x = &c->vc[vc];
	need = rsw_cbfc_credits(len, c->p.bytes_per_credit);
	if (!rsw_cbfc_tx_gated(c, vc)) {
		/* Not gated (init, fallback): counted all the same, the INIT carries the count. */
		x->consumed += need;
		x->charged = 1;
		x->ctr[RSW_CBFC_credits_consumed] += need;
		return 1;
	}
	if (x->consumed + need > x->limit) {
		if (x->stall_ns == 0)
			x->stall_ns = now_ns ? now_ns : 1;
		return 0;
	}
	x->consumed += need;
	x->charged = 1;
	x->ctr[RSW_CBFC_credits_consumed] += need;
	x->ctr[RSW_CBFC_credits_tx_available] = x->limit - x->consumed;
	if (x->stall_ns != 0) {
		if (now_ns > x->stall_ns)
			x->ctr[RSW_CBFC_stalled_ns] += now_ns - x->stall_ns;
		x->stall_ns = 0;
		x->wd_counted = 0;
	}
	return 1;
}

void
rsw_cbfc_tx_window(struct rsw_cbfc *c, uint32_t next_seq, uint32_t tail_seq)
{
	int v;

	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		struct rsw_cbfc_vc *x = &c->vc[v];

		/* Every frame charged so far is sequenced below next_seq, or was never sequenced. */
		if (x->charged) {
			x->charged = 0;
			x->settled = 0;
			x->settle_seq = next_seq;
		}
		if (!x->settled && (int32_t)(tail_seq - x->settle_seq) >= 0)
			x->settled = 1;
	}
}

/* Whether the sender may report VC v's count: no frame it counted can be sent again. */
static inline int
tx_settled(const struct rsw_cbfc *c, int v)
{
	return !c->p.reliable || (!c->vc[v].charged && c->vc[v].settled);
}

/* The sender: limits from INIT_ECHO or CREDIT (they only grow within a session). */
static void
tx_limits(struct rsw_cbfc *c, const struct rsw_cbfc_msg *m)
{
	int v;

	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		struct rsw_cbfc_vc *x = &c->vc[v];
		uint64_t l;

		if (!(c->tx_vcs >> v & 1) || !(m->vcs >> v & 1))
			continue;
		l = unwrap(x->consumed, m->value[v]);
		if (l > x->limit)
			x->limit = l;
	}
	set_available(c);
}

/* The receiver: a new session of the peer's sender. */
static void
rx_session(struct rsw_cbfc *c, const struct rsw_cbfc_msg *m)
{
	int v;

	c->rx_synced = 1;
	c->rx_session = m->session;
	c->rx_vcs = m->vcs & c->p.vcs;
	c->rx_bpc = m->bpc;
	/* The sender's counts so far: what it sent before INIT arrived before it. */
	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		c->vc[v].arrived = m->value[v];
		c->vc[v].granted = m->value[v];
	}
	c->pend = (uint8_t)((c->pend | PEND_INIT_ECHO) & ~PEND_CREDIT);
}

/*
 * The receiver: the sender's consumed counts. The link is FIFO and the sender reports a VC
 * only when none of the frames it counted will be sent again (under LLR: none left in the
 * replay ring), so each of them arrived before this message or never will.
 */
static void
rx_consumed(struct rsw_cbfc *c, const struct rsw_cbfc_msg *m)
{
	int v;

	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		struct rsw_cbfc_vc *x = &c->vc[v];
		uint64_t sent;

		if (!(c->rx_vcs >> v & 1) || !(m->vcs >> v & 1))
			continue;
		sent = unwrap(x->arrived, m->value[v]);
		if (sent > x->arrived)
			x->ctr[RSW_CBFC_credits_healed] += sent - x->arrived;
		x->arrived = sent;
	}
}

void
rsw_cbfc_rx_msg(struct rsw_cbfc *c, const struct rsw_cbfc_msg *m, uint64_t now_ns)
{
	int v;

	if (c->tx_state == RSW_CBFC_OFF)
		return;
	switch (m->type) {
	case RSW_CBFC_T_INIT:
		c->ctr[RSW_CBFC_inits_rx]++;
		rx_session(c, m);
		break;
	case RSW_CBFC_T_INIT_ECHO:
		if (m->session != c->tx_session ||
		    (c->tx_state != RSW_CBFC_INIT && c->tx_state != RSW_CBFC_FALLBACK)) {
			c->ctr[RSW_CBFC_rx_stale]++;
			break;
		}
		if (m->bpc != c->p.bytes_per_credit) {
			c->ctr[RSW_CBFC_rx_stale]++;
			break;
		}
		c->ctr[RSW_CBFC_credit_msgs_rx]++;
		c->tx_state = RSW_CBFC_ACTIVE;
		c->tx_vcs = m->vcs & c->p.vcs;
		c->pend &= (uint8_t)~PEND_INIT;
		c->consumed_sent_ns = now_ns;
		for (v = 0; v < RSW_CBFC_N_VC; v++)
			c->vc[v].reported = 0; /* what it spent before: reported once settled */
		tx_limits(c, m);
		break;
	case RSW_CBFC_T_CREDIT:
		if (m->session != c->tx_session) {
			c->ctr[RSW_CBFC_rx_stale]++;
			break;
		}
		c->ctr[RSW_CBFC_credit_msgs_rx]++;
		if (m->flags & RSW_CBFC_F_REINIT) {
			/* The peer has lost our session (it restarted): start another. */
			if (c->tx_state == RSW_CBFC_ACTIVE)
				tx_init(c, now_ns);
			break;
		}
		if (c->tx_state == RSW_CBFC_ACTIVE && m->bpc == c->p.bytes_per_credit)
			tx_limits(c, m);
		break;
	case RSW_CBFC_T_CONSUMED:
		if (!c->rx_synced || m->session != c->rx_session) {
			/* Data of a session we do not have: ask for INIT, not too often. */
			c->ctr[RSW_CBFC_rx_stale]++;
			if (now_ns - c->reinit_sent_ns >= c->p.init_interval_ns) {
				c->pend |= PEND_REINIT;
				c->reinit_session = m->session;
			}
			break;
		}
		c->ctr[RSW_CBFC_credit_msgs_rx]++;
		rx_consumed(c, m);
		c->pend |= PEND_CREDIT; /* answered with the whole state */
		break;
	default:
		break;
	}
}

/* The receiver's limit of VC v now: what arrived, less what it holds, plus its buffer. */
static uint64_t
rx_limit(const struct rsw_cbfc *c, int v, uint64_t occupied)
{
	uint64_t held = (occupied + c->rx_bpc - 1) / c->rx_bpc;
	uint64_t buf = c->p.buffer_bytes / c->rx_bpc;
	uint64_t l = c->vc[v].arrived + buf > held ? c->vc[v].arrived + buf - held : 0;

	return l > c->vc[v].granted ? l : c->vc[v].granted;
}

/* A receiver's message (INIT_ECHO or CREDIT) with the limits of now. */
static void
rx_fill(struct rsw_cbfc *c, struct rsw_cbfc_msg *m, uint8_t type,
	const uint64_t occupied[RSW_CBFC_N_VC])
{
	int v, changed = type == RSW_CBFC_T_INIT_ECHO;

	memset(m, 0, sizeof(*m));
	m->type = type;
	m->vcs = c->rx_vcs;
	m->bpc = c->rx_bpc;
	m->session = c->rx_session;
	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		struct rsw_cbfc_vc *x = &c->vc[v];
		uint64_t l;

		if (!(c->rx_vcs >> v & 1))
			continue;
		l = rx_limit(c, v, occupied[v]);
		if (l != x->granted)
			changed = 1;
		x->ctr[RSW_CBFC_credits_granted] += l - x->granted;
		x->granted = l;
		m->value[v] = (uint32_t)l;
	}
	/* A new state is sent again RSW_CBFC_REPEATS times, refresh_ns apart: lost updates heal. */
	if (changed)
		c->repeats = RSW_CBFC_REPEATS;
	else if (c->repeats > 0)
		c->repeats--;
	c->pend &= (uint8_t)~PEND_CREDIT;
	c->ctr[RSW_CBFC_credit_msgs_tx]++;
}

/* Whether the receiver owes its peer an update now. */
static int
rx_update_due(const struct rsw_cbfc *c, uint64_t now_ns, const uint64_t occupied[RSW_CBFC_N_VC])
{
	uint64_t since = now_ns - c->update_sent_ns;
	int v, freed = 0;

	/* Asked (a CONSUMED came), or the last change not yet repeated enough. */
	if ((c->pend & PEND_CREDIT) || (c->repeats > 0 && since >= c->p.refresh_ns))
		return 1;
	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		uint64_t d;

		if (!(c->rx_vcs >> v & 1))
			continue;
		d = rx_limit(c, v, occupied[v]) - c->vc[v].granted;
		if (d * c->rx_bpc >= c->p.spacing_bytes)
			return 1;
		freed |= d > 0;
	}
	return freed && since >= c->p.update_interval_ns;
}

/* The sender's timers: fallback, the watchdog. */
static void
tx_timers(struct rsw_cbfc *c, uint64_t now_ns)
{
	uint64_t every = c->p.init_interval_ns;
	int v;

	if (c->tx_state == RSW_CBFC_INIT && now_ns - c->init_start_ns >= c->p.fallback_timeout_ns) {
		c->tx_state = RSW_CBFC_FALLBACK;
		c->ctr[RSW_CBFC_fallbacks]++;
	}
	if (c->tx_state == RSW_CBFC_FALLBACK)
		every *= 10;
	if ((c->tx_state == RSW_CBFC_INIT || c->tx_state == RSW_CBFC_FALLBACK) &&
	    now_ns - c->init_sent_ns >= every)
		c->pend |= PEND_INIT;
	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		struct rsw_cbfc_vc *x = &c->vc[v];

		if (x->stall_ns != 0 && !x->wd_counted && now_ns > x->stall_ns &&
		    now_ns - x->stall_ns >= c->p.watchdog_ns) {
			x->ctr[RSW_CBFC_watchdog_stalls]++;
			x->wd_counted = 1;
		}
	}
}

unsigned int
rsw_cbfc_poll(struct rsw_cbfc *c, uint64_t now_ns, const uint64_t occupied[RSW_CBFC_N_VC],
	      int may_report, struct rsw_cbfc_msg *out, unsigned int max)
{
	unsigned int n = 0;
	int v;

	if (c->tx_state == RSW_CBFC_OFF)
		return 0;
	tx_timers(c, now_ns);
	if (n < max && (c->pend & PEND_INIT_ECHO)) {
		rx_fill(c, &out[n++], RSW_CBFC_T_INIT_ECHO, occupied);
		c->pend &= (uint8_t)~PEND_INIT_ECHO;
		c->update_sent_ns = now_ns;
	} else if (n < max && c->rx_synced && rx_update_due(c, now_ns, occupied)) {
		rx_fill(c, &out[n++], RSW_CBFC_T_CREDIT, occupied);
		c->update_sent_ns = now_ns;
	}
	if (n < max && (c->pend & PEND_REINIT)) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].type = RSW_CBFC_T_CREDIT;
		out[n].flags = RSW_CBFC_F_REINIT;
		out[n].bpc = c->p.bytes_per_credit;
		out[n].session = c->reinit_session;
		n++;
		c->pend &= (uint8_t)~PEND_REINIT;
		c->reinit_sent_ns = now_ns;
		c->ctr[RSW_CBFC_credit_msgs_tx]++;
	}
	if (n < max && (c->pend & PEND_INIT) && may_report) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].type = RSW_CBFC_T_INIT;
		out[n].vcs = c->p.vcs;
		out[n].bpc = c->p.bytes_per_credit;
		out[n].session = c->tx_session;
		for (v = 0; v < RSW_CBFC_N_VC; v++)
			out[n].value[v] = (uint32_t)c->vc[v].consumed;
		n++;
		c->pend &= (uint8_t)~PEND_INIT;
		c->init_sent_ns = now_ns;
		c->ctr[RSW_CBFC_inits_tx]++;
	}
	/*
	 * The sender's report: when it spent credits since the last one (then RSW_CBFC_REPEATS
	 * times more), and while a VC waits for credit (the answer heals a lost update). Under
	 * LLR a VC is in it only once LLR has let go of every frame it counted.
	 */
	if (n < max && may_report && c->tx_state == RSW_CBFC_ACTIVE &&
	    now_ns - c->consumed_sent_ns >= c->p.consumed_interval_ns) {
		uint8_t vcs = 0;
		int stalled = 0, changed = 0;

		for (v = 0; v < RSW_CBFC_N_VC; v++) {
			const struct rsw_cbfc_vc *x = &c->vc[v];

			stalled |= x->stall_ns != 0;
			if (!(c->tx_vcs >> v & 1) || !tx_settled(c, v))
				continue;
			vcs |= (uint8_t)(1u << v);
			changed |= x->consumed != x->reported;
		}
		if (changed)
			c->consumed_repeats = RSW_CBFC_REPEATS + 1;
		if (c->consumed_repeats > 0 || stalled) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].type = RSW_CBFC_T_CONSUMED;
			out[n].vcs = vcs;
			out[n].session = c->tx_session;
			for (v = 0; v < RSW_CBFC_N_VC; v++) {
				if (!(vcs >> v & 1))
					continue;
				out[n].value[v] = (uint32_t)c->vc[v].consumed;
				c->vc[v].reported = c->vc[v].consumed;
			}
			n++;
			if (c->consumed_repeats > 0)
				c->consumed_repeats--;
			c->consumed_sent_ns = now_ns;
			c->ctr[RSW_CBFC_credit_msgs_tx]++;
		}
	}
	return n;
}
