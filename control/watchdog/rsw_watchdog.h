/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The PFC watchdog and the control side's QoS sums (watchdog.c, docs/qos.md).
 */

#ifndef RSW_WATCHDOG_H
#define RSW_WATCHDOG_H

#include <stdint.h>

#include "rsw_qos.h"

/** Sum QoS counters over every lcore into out. */
void rsw_ctl_qos_sum(struct rsw_qos_stats *out);

/** The PFC watchdog (docs/qos.md): call every few milliseconds. */
void rsw_ctl_pfcwd_poll(uint64_t now_ms);

/**
 * The watchdog's own counts for (port p, TC tc) since start: storms detected and
 * restores (`show pfc` pfcwd_storms, pfcwd_restores).
 */
void rsw_pfcwd_counts(uint16_t p, uint8_t tc, uint64_t *storms, uint64_t *restores);

#endif /* RSW_WATCHDOG_H */
