/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * ECN (RFC 3168) with the WRED/DCQCN curve (docs/qos.md): the decision on a queue depth, and
 * the marking (ecn.c). Applied at enqueue (mmu.c) or at dequeue (sched.c).
 */

#ifndef RSW_ECN_H
#define RSW_ECN_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_qos_state.h"

/**
 * WRED decision for queue depth q of TC tc: 0 pass, 1 mark (or drop when not ECT).
 * rnd is a uniform 32-bit random number.
 */
static inline int
rsw_ecn_decide(const struct rsw_qos_params *qp, uint8_t tc, uint64_t q, uint32_t rnd)
{
	uint64_t kmin = qp->kmin[tc], kmax = qp->kmax[tc], p;

	if (q <= kmin)
		return 0;
	if (q >= kmax)
		return 1;
	/* p = pmax × (q − kmin) / (kmax − kmin), in 2^-32 units. */
	p = (uint64_t)qp->pmax_q32[tc] * (q - kmin) / (kmax - kmin);
	return rnd < p;
}

/**
 * Set CE in an IPv4 or IPv6 packet whose ECN field is ECT(0) or ECT(1) (IPv4 checksum
 * updated per RFC 1624). @return 1 marked, 0 already CE, -1 not ECT.
 */
int rsw_ecn_mark(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind);

#endif /* RSW_ECN_H */
