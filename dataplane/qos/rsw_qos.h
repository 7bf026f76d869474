/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Steps 8-10 of the packet path (docs/architecture.md, docs/qos.md): eight egress queues per
 * port, the shared-buffer MMU (ingress PG and egress queue accounting, lossy
 * tail drop, lossless headroom), ECN/WRED marking, PFC generation and
 * reception, the per-port shaper and the strict + DWRR scheduler. This header gathers the
 * modules' own: the shared state (rsw_qos_state.h, with who writes and who reads each
 * shared field), the shaper, PFC, ECN, trimming and the owner's scheduler.
 */

#ifndef RSW_QOS_H
#define RSW_QOS_H

#include "rsw_ecn.h"
#include "rsw_pfc.h"
#include "rsw_qos_state.h"
#include "rsw_sched.h"
#include "rsw_shaper.h"
#include "rsw_trim.h"

#endif /* RSW_QOS_H */
