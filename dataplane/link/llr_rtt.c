/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The LLR replay timer (rsw_llr.h, docs/link.md "The adaptive replay timer"): TCP's
 * retransmission timer (RFC 6298) on the LLR machine's clock. The transmit side measures
 * the round trip from a frame's first transmission to the ACK that frees it; the timer
 * follows the smoothed round trip and its deviation, so a peer that answers late because it
 * was descheduled costs replays the receiver drops as duplicates, and its doubling on each
 * expiry lets a stalled peer come back before the replay limit FLUSHes the ring.
 */

#include <stdint.h>

#include "rsw_llr.h"

static inline uint64_t
clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v < lo)
		return lo;
	return v > hi ? hi : v;
}

void
rsw_llr_rtt_init(struct rsw_llr_rtt *r, uint64_t floor_ns)
{
	r->srtt_ns = 0;
	r->rttvar_ns = 0;
	r->rto_ns = floor_ns;
}

void
rsw_llr_rtt_sample(struct rsw_llr_rtt *r, uint64_t rtt_ns, uint64_t floor_ns, uint64_t cap_ns)
{
	/* A round trip beyond the cap could not raise the timer further: it counts as the cap. */
	rtt_ns = clamp(rtt_ns, 1, cap_ns); /* at least 1: srtt_ns 0 means "none yet" */
	if (r->srtt_ns == 0) {
		/* RFC 6298 §2.2: the first measurement. */
		r->srtt_ns = rtt_ns;
		r->rttvar_ns = rtt_ns / 2;
	} else {
		/* §2.3: RTTVAR first, with the old SRTT; beta = 1/4, alpha = 1/8. */
		uint64_t d = r->srtt_ns > rtt_ns ? r->srtt_ns - rtt_ns : rtt_ns - r->srtt_ns;

		r->rttvar_ns = (3 * r->rttvar_ns + d) / 4;
		r->srtt_ns = (7 * r->srtt_ns + rtt_ns) / 8;
		if (r->srtt_ns == 0)
			r->srtt_ns = 1;
	}
	/* RTO = SRTT + K × RTTVAR, K = 4; §2.4, §2.5: floor and cap. */
	r->rto_ns = clamp(r->srtt_ns + 4 * r->rttvar_ns, floor_ns, cap_ns);
}

void
rsw_llr_rtt_backoff(struct rsw_llr_rtt *r, uint64_t cap_ns)
{
	r->rto_ns = r->rto_ns > cap_ns / 2 ? cap_ns : 2 * r->rto_ns;
}

uint64_t
rsw_llr_replay_span_ns(const struct rsw_llr_params *p)
{
	struct rsw_llr_rtt r;
	uint64_t span = 0;
	uint32_t k;

	rsw_llr_rtt_init(&r, p->replay_timeout_ns);
	for (k = 0; k <= p->replay_count_max; k++) {
		span += r.rto_ns;
		rsw_llr_rtt_backoff(&r, p->replay_timeout_max_ns);
	}
	return span;
}
