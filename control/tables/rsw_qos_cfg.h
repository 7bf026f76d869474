/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The dataplane's QoS parameters from a configuration (qos_cfg.c).
 */

#ifndef RSW_QOS_CFG_H
#define RSW_QOS_CFG_H

#include "rsw_config.h"
#include "rsw_qos.h"

/**
 * Fill qp from cfg's qos: section and its ports (MTUs set the DWRR quantum, the port count the
 * reserved headroom), then derive the rest (rsw_qos_params_derive).
 */
void rsw_qos_params_from_cfg(struct rsw_qos_params *qp, const struct rsw_config *cfg);

#endif /* RSW_QOS_CFG_H */
