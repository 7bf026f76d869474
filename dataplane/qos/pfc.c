/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * IEEE 802.1Qbb PFC and 802.3x PAUSE frames (docs/qos.md): encoding the
 * frames a port sends, and applying received ones to the port's egress
 * queues. One quantum is 512 bit times at the port's speed; a time of 0
 * releases the priority at once (XON).
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "rsw_pfc.h"

uint64_t
rsw_pfc_pause_ticks(uint16_t quanta, uint64_t speed_bps, uint64_t tsc_hz)
{
	/* A port with no known speed times pauses as a 10 Gb/s port would. */
	if (speed_bps == 0)
		speed_bps = RSW_PFC_DEFAULT_SPEED;
	/* quanta × 512 bits / speed seconds; 65535 × 512 × 4e9 fits in 64 bits. */
	return (uint64_t)((__uint128_t)quanta * 512 * tsc_hz / speed_bps);
}

void
rsw_pfc_encode(uint8_t *buf, const uint8_t *src_mac, uint8_t enable, const uint16_t time[RSW_N_TC])
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
	uint8_t *p = buf;
	int i;

	memset(buf, 0, RSW_PFC_FRAME_LEN);
	memcpy(p, dst, 6);
	memcpy(p + 6, src_mac, 6);
	p[12] = 0x88;
	p[13] = 0x08;
	p[14] = RSW_PFC_OPCODE >> 8;
	p[15] = RSW_PFC_OPCODE & 0xff;
	p[16] = 0; /* reserved octet of the class-enable vector */
	p[17] = enable;
	for (i = 0; i < RSW_N_TC; i++) {
		uint16_t t = (enable & (1u << i)) ? time[i] : 0;

		p[18 + 2 * i] = (uint8_t)(t >> 8);
		p[19 + 2 * i] = (uint8_t)t;
	}
}

/* Apply a pause time to priority tc of port p. */
static void
pause_tc(struct rsw_qos_stats *qs, uint16_t p, uint8_t tc, uint16_t quanta, uint64_t now)
{
	struct rsw_qos_port *qp = &rsw_qos.port[p];
	uint64_t old = __atomic_load_n(&qp->paused_until[tc], __ATOMIC_RELAXED);
	uint64_t until, max, start = old > now ? old : now;

	if (quanta == 0) {
		/* XON: release now; give back the pause time not served. */
		if (old > now)
			qs->pfc[p][tc][RSW_FC_paused_ns] -=
				RTE_MIN(old - now, qs->pfc[p][tc][RSW_FC_paused_ns]);
		__atomic_store_n(&qp->paused_until[tc], 0, __ATOMIC_RELAXED);
		qs->pfc[p][tc][RSW_FC_rx_xon]++;
		return;
	}
	until = now + rsw_pfc_pause_ticks(quanta, qp->speed_bps, rsw_qos.tsc_hz);
	/* A new time replaces the running one (802.1Qbb): count only what it adds. */
	if (until > start)
		qs->pfc[p][tc][RSW_FC_paused_ns] += until - start;
	else
		qs->pfc[p][tc][RSW_FC_paused_ns] -=
			RTE_MIN(start - until, qs->pfc[p][tc][RSW_FC_paused_ns]);
	/* The bound first: the owner never sees a pause beyond it. */
	max = __atomic_load_n(&qp->paused_max, __ATOMIC_RELAXED);
	while (max < until && !__atomic_compare_exchange_n(&qp->paused_max, &max, until, true,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	__atomic_store_n(&qp->paused_until[tc], until, __ATOMIC_RELAXED);
	__atomic_store_n(&qp->last_pause[tc], now, __ATOMIC_RELAXED);
	qs->pfc[p][tc][RSW_FC_rx_xoff]++;
}

int
rsw_pfc_rx(struct rsw_qos_stats *qs, const struct rsw_qos_params *qprm, uint16_t p,
	   const uint8_t *op, uint32_t len, uint64_t now)
{
	uint16_t opcode, quanta;
	uint8_t enable;
	int i;

	if (len < 4)
		return -EINVAL;
	opcode = (uint16_t)(op[0] << 8 | op[1]);
	if (opcode == RSW_PAUSE_OPCODE) {
		/* 802.3x PAUSE holds every class of the port. */
		quanta = (uint16_t)(op[2] << 8 | op[3]);
		for (i = 0; i < RSW_N_TC; i++)
			pause_tc(qs, p, (uint8_t)i, quanta, now);
		qs->pfc_consumed[p]++;
		return 0;
	}
	if (opcode != RSW_PFC_OPCODE || len < 20 || op[2] != 0)
		return -EINVAL;
	enable = op[3];
	for (i = 0; i < RSW_N_TC; i++) {
		if (!(enable & (1u << i)))
			continue;
		if (!(qprm->lossless & (1u << i))) {
			/* Lossy classes never stall. */
			qs->pfc[p][i][RSW_FC_rx_ignored]++;
			continue;
		}
		if (rsw_qos.port[p].storm_ignore[i] || rsw_qos.port[p].storm_drop[i]) {
			/* Watchdog: not honoured, but seen (restore waits for quiet). */
			__atomic_store_n(&rsw_qos.port[p].last_pause[i], now, __ATOMIC_RELAXED);
			qs->pfc[p][i][RSW_FC_rx_ignored]++;
			continue;
		}
		quanta = (uint16_t)(op[4 + 2 * i] << 8 | op[5 + 2 * i]);
		pause_tc(qs, p, (uint8_t)i, quanta, now);
	}
	qs->pfc_consumed[p]++;
	return 0;
}
