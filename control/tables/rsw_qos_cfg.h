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
 * reserved headroom), then derive the rest (rsw_qos_params_derive). n_workers: the workers
 * that may admit frames of one ingress PG at once; a headroom the configuration does not give
 * is the default plus their overshoot (rsw_qos_default_headroom).
 */
void rsw_qos_params_from_cfg(struct rsw_qos_params *qp, const struct rsw_config *cfg,
			     unsigned int n_workers);

/**
 * The headroom of a lossless (port, PG) when the configuration gives none: the default (64 KiB,
 * a 100G link of 100 m at MTU 9100) plus what n_workers admitting bursts of the PG at once can
 * admit beyond the limit: (n_workers - 1) bursts of 32 of the largest frame (MTU + Ethernet
 * header, two tags). Never so large that (xoff +) headroom of every lossless (port, PG) leaves
 * buffer.total: then what fits.
 */
uint64_t rsw_qos_default_headroom(const struct rsw_config *cfg, unsigned int n_workers);

#endif /* RSW_QOS_CFG_H */
