/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The punt policers' rates on `reload` (control.kernel_interfaces.punt, punt_cfg.c): the
 * control fills the dataplane's struct rsw_punt_rates from the new file (rsw_config_punt_rates)
 * and publishes it. Control thread only.
 */

#ifndef RSW_PUNT_CTL_H
#define RSW_PUNT_CTL_H

#include "rsw_config.h"
#include "rsw_punt_dp.h"

/**
 * `reload`: when n asks for other rates than those in force, publish them to the workers and
 * wait until none reads the old ones. @return 1 when the rates changed, else 0.
 */
int rsw_ctl_punt_reload(const struct rsw_config *n);

#endif /* RSW_PUNT_CTL_H */
