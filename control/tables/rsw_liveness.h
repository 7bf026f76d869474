/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Next-hop group liveness (liveness.c): which members of each group are live.
 */

#ifndef RSW_LIVENESS_H
#define RSW_LIVENESS_H

#include <stdbool.h>
#include <stdint.h>

#include "rsw_fib.h"

/**
 * Recompute which members of each next-hop group are live (port admin state, link state of
 * ports whose link means something, neighbours whose resolution failed) and publish the
 * masks to the workers. Call a few times a second and after `port NAME down|up`.
 */
void rsw_ctl_lb_poll(void);

/** The same for tables t (a generation about to be published). */
void rsw_ctl_lb_masks(const struct rsw_tables *t);

/** Whether member j of group g is live now (for `show lb`). */
bool rsw_ctl_lb_member_up(uint32_t g, uint32_t j);

#endif /* RSW_LIVENESS_H */
