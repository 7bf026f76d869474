/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Table building (tables.c): a generation of FIB, next hops, groups and settings
 * from a configuration.
 */

#ifndef RSW_TABLES_CTL_H
#define RSW_TABLES_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "rsw_config.h"
#include "rsw_fib.h"
#include "rsw_qos_cfg.h"

/**
 * Build a generation of tables from cfg: connected and local routes per port address,
 * static routes as next-hop groups, QoS and load-balance settings. Creates the neighbour
 * entries next hops need (static ones resolved).
 * @return the tables, or NULL with a message in err.
 */
struct rsw_tables *rsw_ctl_tables_build(const struct rsw_config *cfg, uint64_t generation,
					char *err, size_t errlen);

#endif /* RSW_TABLES_CTL_H */
