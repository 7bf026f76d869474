/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * libFuzzer target: the CBFC credit message decoder and the machines (dataplane/link/)
 * fed arbitrary bytes. The input is a script of operations, each one byte then its
 * arguments: a frame of arbitrary bytes received (decoded and handed to the machine as the
 * receive step does), a well-formed message of any field values received, a frame offered
 * to the sender's credit gate, time passing with the timers polled. Checked on every step:
 * a message decodes back to what was encoded; a gated VC never spends past its limit and
 * shows limit - consumed available; the receiver's grant never goes back between two
 * INITs; under LLR (reliable) a CONSUMED never reports a VC whose last charged frame LLR
 * may still send again; no crash.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_cbfc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0, 0, 0x0f};

static void
check(const struct rsw_cbfc *c, const uint64_t granted[RSW_CBFC_N_VC], uint64_t inits)
{
	int v;

	for (v = 0; v < RSW_CBFC_N_VC; v++) {
		const struct rsw_cbfc_vc *x = &c->vc[v];

		if (rsw_cbfc_tx_gated(c, (uint8_t)v)) {
			if (x->consumed > x->limit && x->ctr[RSW_CBFC_credits_tx_available] != 0)
				abort();
			if (x->consumed <= x->limit &&
			    x->ctr[RSW_CBFC_credits_tx_available] != x->limit - x->consumed)
				abort();
		}
		if (c->rx_synced && c->ctr[RSW_CBFC_inits_rx] == inits && x->granted < granted[v])
			abort(); /* a grant went back within a session */
	}
}

/* A message: encoded, decoded back (it must be the same), then received. */
static void
send_msg(struct rsw_cbfc *c, const struct rsw_cbfc_msg *m, uint64_t now)
{
	struct rsw_cbfc_msg d;
	uint8_t f[RSW_CBFC_FRAME_LEN];
	int v;

	if (rsw_cbfc_frame_encode(f, dst, mac, m) != RSW_CBFC_FRAME_LEN)
		return;
	if (rsw_cbfc_frame_decode(f, sizeof(f), &d) != RSW_CBFC_FRAME_OK)
		return; /* a field the decoder refuses (bpc, flags of the type) */
	if (d.type != m->type || d.flags != m->flags || d.vcs != m->vcs || d.bpc != m->bpc ||
	    d.session != m->session)
		abort();
	for (v = 0; v < RSW_CBFC_N_VC; v++)
		if (d.value[v] != ((m->vcs >> v & 1) ? m->value[v] : 0))
			abort();
	rsw_cbfc_rx_msg(c, &d, now);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rsw_cbfc_params p;
	struct rsw_cbfc c;
	struct rsw_cbfc_msg out[8];
	uint64_t occupied[RSW_CBFC_N_VC] = {0};
	uint64_t granted[RSW_CBFC_N_VC] = {0};
	uint64_t now = 1000000;
	uint64_t inits = 0;
	uint32_t llr_next = 0, llr_tail = 0;    /* a simulated LLR: frames get sequences */
	uint32_t last_seq[RSW_CBFC_N_VC] = {0}; /* the sequence after each VC's last frame */
	size_t i = 0;
	int v;

	rsw_cbfc_params_default(&p);
	if (size < 2)
		return 0;
	p.vcs = data[0] ? data[0] : 0x08;
	p.fallback = data[1] & 1;
	p.bytes_per_credit = (uint16_t)(32u << (data[1] >> 1 & 3)); /* 32..256 */
	p.buffer_bytes = 4096u << (data[1] >> 3 & 7);
	p.reliable = data[1] >> 6 & 1;
	if (rsw_cbfc_init(&c, &p) != 0)
		abort();
	rsw_cbfc_start(&c, now);
	i = 2;
	while (i < size) {
		uint8_t op = data[i++];
		unsigned int k, n;

		switch (op & 3) {
		case 0: { /* a received frame of arbitrary bytes */
			size_t len = i < size ? data[i++] : 0;
			struct rsw_cbfc_msg m;
			uint8_t *buf;

			if (len > size - i)
				len = size - i;
			buf = malloc(len ? len
					 : 1); /* exactly len: out-of-bounds reads are caught */
			if (buf == NULL)
				return 0;
			memcpy(buf, data + i, len);
			i += len;
			switch (rsw_cbfc_frame_decode(buf, len, &m)) {
			case RSW_CBFC_FRAME_OK:
				rsw_cbfc_rx_msg(&c, &m, now);
				break;
			case RSW_CBFC_FRAME_NOT_CBFC:
				rsw_cbfc_rx_data(&c, op >> 5, (uint32_t)len);
				break;
			default:
				break;
			}
			free(buf);
			break;
		}
		case 1: { /* a well-formed message, any values */
			struct rsw_cbfc_msg m = {0};

			if (size - i < 6)
				return 0;
			m.type = (uint8_t)(data[i] % 4 + 1);
			m.flags = data[i] >> 7;
			m.vcs = data[i + 1];
			m.bpc = m.type == RSW_CBFC_T_CONSUMED ? 0 : p.bytes_per_credit;
			/* The session: ours, the peer's, or another. */
			m.session = (data[i + 2] & 3) == 0   ? c.tx_session
				    : (data[i + 2] & 3) == 1 ? c.rx_session
							     : data[i + 2];
			for (v = 0; v < RSW_CBFC_N_VC; v++)
				m.value[v] = (uint32_t)(c.vc[v].consumed + c.vc[v].arrived) +
					     (uint32_t)(int8_t)data[i + 3 + v % 3] * 16u;
			i += 6;
			send_msg(&c, &m, now);
			break;
		}
		case 2: /* a frame offered to the gate, sequenced by LLR when taken */
			if (rsw_cbfc_tx_take(&c, op >> 5, 60u + 97u * (op >> 2 & 7), now))
				last_seq[op >> 5] = ++llr_next;
			break;
		default: /* time passes; the receiver's buffer changes; the timers */
			now += (uint64_t)(op >> 2) * (op & 0x80 ? 1000000 : 1000);
			occupied[(op >> 2) & 7] = (uint64_t)(op >> 3) * 500;
			if (op & 0x20)
				llr_tail = llr_next; /* acknowledged, or flushed */
			if (op & 0x40)
				rsw_cbfc_tx_window(&c, llr_next, llr_tail);
			n = rsw_cbfc_poll(&c, now, occupied, op & 0x40, out, (op >> 4 & 7) + 1);
			for (k = 0; k < n; k++) {
				uint8_t f[RSW_CBFC_FRAME_LEN];
				struct rsw_cbfc_msg d;

				if (rsw_cbfc_frame_encode(f, dst, mac, &out[k]) !=
					    RSW_CBFC_FRAME_LEN ||
				    rsw_cbfc_frame_decode(f, sizeof(f), &d) != RSW_CBFC_FRAME_OK)
					abort(); /* what the machine sends is always well-formed */
				if (p.reliable && out[k].type == RSW_CBFC_T_CONSUMED)
					for (v = 0; v < RSW_CBFC_N_VC; v++)
						if ((out[k].vcs >> v & 1) &&
						    (int32_t)(llr_tail - last_seq[v]) < 0)
							abort(); /* LLR may replay */
			}
			break;
		}
		check(&c, granted, inits);
		/* An INIT starts a session: the grant starts again from the sender's count. */
		inits = c.ctr[RSW_CBFC_inits_rx];
		for (v = 0; v < RSW_CBFC_N_VC; v++)
			granted[v] = c.vc[v].granted;
	}
	return 0;
}
