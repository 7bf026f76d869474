/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * PFC (IEEE 802.1Qbb) and PAUSE (802.3x), docs/qos.md: the frames, received pauses applied to
 * a port's TCs (pfc.c), the pause mask every sender reads, and the XOFF/XON thresholds of an
 * ingress PG (static or dynamic). Generation is the owner's (sched.c).
 */

#ifndef RSW_PFC_H
#define RSW_PFC_H

#include <stdint.h>

#include <rte_branch_prediction.h>

#include "rsw_qos_state.h"

#define RSW_PFC_FRAME_LEN     60 /* PFC frame without FCS */
#define RSW_PFC_OPCODE        0x0101
#define RSW_PAUSE_OPCODE      0x0001
#define RSW_PFC_DEFAULT_SPEED 10000000000ULL /* pause timing when a port's speed is unknown */

/** TCs of a port that received PFC holds at now (unless the watchdog ignores the pause). */
static inline uint8_t
rsw_paused_mask(const struct rsw_qos_port *qport, uint64_t now)
{
	uint8_t mask = 0;
	int tc;

	if (likely(__atomic_load_n(&qport->paused_max, __ATOMIC_RELAXED) <= now))
		return 0; /* no pause runs past now: nothing to look at */
	for (tc = 0; tc < RSW_N_TC; tc++)
		if (__atomic_load_n(&qport->paused_until[tc], __ATOMIC_RELAXED) > now &&
		    !qport->storm_ignore[tc])
			mask |= (uint8_t)(1u << tc);
	return mask;
}

/**
 * PFC/PAUSE frame received on port p (frame starts at the MAC Control opcode, len bytes).
 * Updates pause state and counters (pfc_consumed: a well-formed frame, taken by the switch).
 * @return 0, or -EINVAL for a malformed frame.
 */
int rsw_pfc_rx(struct rsw_qos_stats *qs, const struct rsw_qos_params *qp, uint16_t p,
	       const uint8_t *opcode, uint32_t len, uint64_t now);

/**
 * Encode a PFC frame into buf[RSW_PFC_FRAME_LEN]: dst 01:80:c2:00:00:01, src, 0x8808,
 * opcode 0x0101, class-enable vector, eight times (time[p] used where bit p is set).
 */
void rsw_pfc_encode(uint8_t *buf, const uint8_t *src_mac, uint8_t enable,
		    const uint16_t time[RSW_N_TC]);

/**
 * TSC ticks a pause of quanta lasts at speed_bps (quanta × 512 bit times); a speed of 0
 * (unknown) counts as RSW_PFC_DEFAULT_SPEED, so XOFF refresh and received pauses keep a
 * duration.
 */
uint64_t rsw_pfc_pause_ticks(uint16_t quanta, uint64_t speed_bps, uint64_t tsc_hz);

/** XOFF threshold of an ingress PG under params and the current buffer use. */
static inline uint64_t
rsw_pfc_xoff(const struct rsw_qos_params *qp, uint64_t used)
{
	uint64_t free_b;

	if (!qp->dynamic)
		return qp->xoff;
	free_b = qp->total > used + qp->headroom_reserved ? qp->total - used - qp->headroom_reserved
							  : 0;
	return (free_b * qp->alpha_q16) >> 16;
}

static inline uint64_t
rsw_pfc_xon(const struct rsw_qos_params *qp, uint64_t xoff)
{
	if (!qp->dynamic)
		return qp->xon;
	return xoff > qp->xon_offset ? xoff - qp->xon_offset : 0;
}

#endif /* RSW_PFC_H */
