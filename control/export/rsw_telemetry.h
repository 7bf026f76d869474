/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * DPDK telemetry commands /railsw/ports|queues|pfc|lb|drops|buffer (telemetry.c) and
 * packet capture with rte_pdump for dpdk-dumpcap (capture.c). See docs/observability.md.
 *
 * Thread-safety: rsw_telemetry_init/poll/fini and rsw_capture_init/fini are called by
 * the control thread only. The telemetry callbacks run on DPDK's telemetry thread and
 * read only the snapshot that rsw_telemetry_poll publishes under a mutex.
 */

#ifndef RSW_TELEMETRY_H
#define RSW_TELEMETRY_H

#include <stdint.h>

#include "rsw_config.h"

/**
 * Take a first snapshot and register the /railsw/... telemetry commands when
 * cfg->control.telemetry is true (otherwise do nothing). Call after the commands of
 * the registry exist.
 * @return 0, or -errno of rte_telemetry_register_cmd.
 */
int rsw_telemetry_init(const struct rsw_config *cfg);

/** Refresh the snapshot when it is older than ~200 ms. Call from the control loop. */
void rsw_telemetry_poll(uint64_t now_ms);

/** Release the snapshot; the commands then answer {"error": "no data yet"}. */
void rsw_telemetry_fini(void);

/**
 * Enable rte_pdump so that dpdk-dumpcap (a secondary process) can capture any port.
 * Needs hugepages: with --no-huge, log that dpdk-dumpcap needs railsw on hugepages and
 * do nothing. A failure is logged, never fatal.
 */
void rsw_capture_init(void);

/** rte_pdump_uninit when rsw_capture_init enabled it. */
void rsw_capture_fini(void);

#endif /* RSW_TELEMETRY_H */
