/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Packet capture (DESIGN.md §8): rte_pdump lets dpdk-dumpcap, a DPDK secondary
 * process, ask the primary to copy the packets of a port's rx and tx bursts into a
 * ring it reads. A secondary process attaches to the primary's shared memory, which
 * exists only when railsw runs on hugepages; with --no-huge there is nothing to
 * attach to, so railsw says so once instead of failing.
 */

#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_pdump.h>

#include "rsw_module.h"
#include "rsw_telemetry.h"

RTE_LOG_REGISTER(rsw_capture_logtype, rsw.capture, INFO);
#define CAP_LOG(level, fmt, ...)                                                                   \
	rte_log(RTE_LOG_##level, rsw_capture_logtype, "railsw: " fmt "\n", ##__VA_ARGS__)

static bool capture_on; /* control thread: rte_pdump_init succeeded */

void
rsw_capture_init(void)
{
	const char *dir = rte_eal_get_runtime_dir(), *prefix;

	if (!rte_eal_has_hugepages()) {
		CAP_LOG(NOTICE, "packet capture off: dpdk-dumpcap needs railsw on hugepages "
				"(running with --no-huge)");
		return;
	}
	if (rte_pdump_init() != 0) {
		CAP_LOG(WARNING, "packet capture off: rte_pdump_init: %s", rte_strerror(rte_errno));
		return;
	}
	capture_on = true;
	prefix = strrchr(dir, '/');
	CAP_LOG(INFO, "packet capture on: dpdk-dumpcap --file-prefix %s -i PORT",
		prefix != NULL ? prefix + 1 : dir);
}

void
rsw_capture_fini(void)
{
	if (capture_on)
		rte_pdump_uninit();
	capture_on = false;
}

static int
capture_init(const struct rsw_config *cfg __rte_unused)
{
	rsw_capture_init();
	return 0;
}

static struct rsw_module capture_module = {
	.name = "capture",
	.order = RSW_MODULE_ORDER_CAPTURE,
	.init = capture_init,
	.fini = rsw_capture_fini,
};

RSW_MODULE_REGISTER(capture_module);
