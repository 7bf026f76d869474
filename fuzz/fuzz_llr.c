/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * libFuzzer target: the LLR shim decoder and the state machines (dataplane/link/) fed
 * arbitrary bytes. The input is a script of operations, each one byte then its
 * arguments: a frame of arbitrary bytes received (decoded and handed to the RX and TX
 * machines as the receive step does), a new frame sent, time passing, the timers polled.
 * Checked on every step: a decoded DATA frame decapsulates and encapsulates back to the
 * same bytes; the replay ring never holds more than its window; the replay timer stays
 * within its floor and cap; every frame the ring took is given back exactly once (at the end by rsw_llr_stop); no crash, no leak.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_llr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_HANDLES 4096

static int refs[N_HANDLES];
static unsigned int next_handle;

static void
release(void *arg, void **h, unsigned int n)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < n; i++) {
		uintptr_t k = (uintptr_t)h[i] - 1;

		if (k >= N_HANDLES || refs[k] != 1)
			abort(); /* released twice, or never taken */
		refs[k] = 0;
	}
}

/* A received frame: what rsw_llr_mbuf_rx_burst does, on a copy of exactly len bytes. */
static void
receive(struct rsw_llr *l, const uint8_t *p, size_t len, uint64_t now)
{
	uint8_t *buf = malloc(len + RSW_LLR_SHIM_LEN + 1);
	struct rsw_llr_hdr h, h2;
	enum rsw_llr_shim_err e;

	if (buf == NULL)
		return;
	memcpy(buf, p, len);
	e = rsw_llr_shim_decode(buf, len, &h);
	if (e == RSW_LLR_SHIM_NOT_LLR)
		goto out;
	if (e != RSW_LLR_SHIM_OK) {
		rsw_llr_rx_bad(l, now);
		goto out;
	}
	if (h.type != RSW_LLR_T_DATA) {
		rsw_llr_rx_ctl(l, &h, now);
		goto out;
	}
	if (rsw_llr_rx_data(l, h.seq, (uint32_t)len, now) == RSW_LLR_RX_ACCEPT) {
		size_t plen = rsw_llr_shim_decap(buf, &h);
		int r;

		/* Back to the LLR frame: the same bytes as received, up to its covered length. */
		if (plen > len - RSW_LLR_SHIM_LEN)
			abort();
		r = rsw_llr_shim_encap(buf, plen, h.seq);
		if (r != (int)(plen + RSW_LLR_SHIM_LEN) || memcmp(buf, p, (size_t)r) != 0)
			abort();
		if (rsw_llr_shim_decode(buf, (size_t)r, &h2) != RSW_LLR_SHIM_OK ||
		    h2.seq != h.seq || h2.ethertype != h.ethertype)
			abort();
	}
out:
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rsw_llr *l;
	struct rsw_llr_params p;
	struct rsw_llr_emit em[16];
	uint64_t now = 1000000;
	size_t i = 0;
	unsigned int k;

	rsw_llr_params_default(&p);
	p.frames_max = 16;
	p.bytes_max = 8000;
	if (size > 0) {
		p.fallback = (enum rsw_llr_fallback)(data[0] % 3);
		p.initial_seq = (uint32_t)data[0] << 24 | 0xfffff0;
		i = 1;
	}
	if (l == NULL)
		l = malloc(rsw_llr_mem_size(p.frames_max));
	if (l == NULL || rsw_llr_init(l, &p, release, NULL) < 0)
		abort();
	memset(refs, 0, sizeof(refs));
	next_handle = 0;
	rsw_llr_start(l, now);

	while (i < size) {
		uint8_t op = data[i++];
		size_t len;

		switch (op % 7) {
		case 0: /* a frame received: 2 bytes of length, then the bytes */
			if (size - i < 2)
				goto done;
			len = (size_t)(data[i] << 8 | data[i + 1]) % 2048;
			i += 2;
			if (len > size - i)
				len = size - i;
			receive(l, data + i, len, now);
			i += len;
			break;
		case 1: { /* a new frame to send */
			uint32_t seq;
			enum rsw_llr_tx_verdict v;
			uintptr_t h = next_handle % N_HANDLES + 1;

			if (refs[h - 1] != 0)
				break; /* still in the ring: the handle space wrapped */
			v = rsw_llr_tx_data(l, (void *)h, 100 + (op >> 3) * 50, now, &seq);
			if (v == RSW_LLR_TX_SEQ) {
				refs[h - 1] = 1;
				next_handle++;
			}
			break;
		}
		case 2: /* time passes: up to 255 × 8 µs */
			if (i < size)
				now += (uint64_t)data[i++] * 8000;
			break;
		case 3: /* a big jump: past every timer */
			now += 20ull * 1000 * 1000;
			break;
		case 4: { /* a good control frame: type, flags, a sequence near the ring's */
			static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
			uint8_t f[RSW_LLR_CTL_MIN];

			if (size - i < 3)
				goto done;
			if (rsw_llr_ctl_encode(f, mac, mac, (uint8_t)(data[i] % 4 + 2),
					       data[i + 1] & RSW_LLR_F_MASK,
					       l->tail_seq + (uint32_t)(int8_t)data[i + 2]) == 0)
				abort();
			receive(l, f, sizeof(f), now);
			i += 3;
			break;
		}
		case 5: { /* a good DATA frame: a sequence near the expected one, a length */
			uint8_t f[RSW_LLR_SHIM_LEN + 256];
			size_t n;
			int r;

			if (size - i < 2)
				goto done;
			n = 14 + data[i + 1] % 200;
			memset(f, data[i + 1], sizeof(f));
			f[RSW_LLR_SHIM_LEN + 12] = 0x08;
			f[RSW_LLR_SHIM_LEN + 13] = 0x00;
			r = rsw_llr_shim_encap(f, n, l->rx_expected + (uint32_t)(int8_t)data[i]);
			if (r != (int)(n + RSW_LLR_SHIM_LEN))
				abort();
			receive(l, f, (size_t)r, now);
			i += 2;
			break;
		}
		default:
			break;
		}
		k = rsw_llr_poll(l, now, em, (unsigned int)(op >> 4) + 1);
		while (k-- > 0)
			if (em[k].type == RSW_LLR_T_DATA &&
			    ((uintptr_t)em[k].h == 0 || (uintptr_t)em[k].h > N_HANDLES ||
			     refs[(uintptr_t)em[k].h - 1] != 1))
				abort(); /* a replay of a frame the ring does not hold */
		if (l->next_seq - l->tail_seq > p.frames_max ||
		    l->ctr[RSW_LLR_replay_buffer_frames] != l->next_seq - l->tail_seq)
			abort();
		/* The replay timer stays between its floor and its cap, whatever was measured. */
		if (l->rtt.rto_ns < p.replay_timeout_ns ||
		    l->rtt.rto_ns > p.replay_timeout_max_ns ||
		    l->rtt.srtt_ns > p.replay_timeout_max_ns)
			abort();
	}
done:
	rsw_llr_stop(l);
	for (k = 0; k < N_HANDLES; k++)
		if (refs[k] != 0)
			abort(); /* a frame the ring never gave back */
	if (l->bytes_out != 0)
		abort();
	return 0;
}
