/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Packet capture (docs/observability.md): rte_pdump lets dpdk-dumpcap, a DPDK secondary
 * process, ask the primary to copy the packets of a port's rx and tx bursts into a
 * ring it reads. A secondary process attaches to the primary's shared memory, which
 * exists only when railsw runs on hugepages; with --no-huge there is nothing to
 * attach to, so railsw says so once instead of failing.
 *
 * DPDK 22.11 stamps the copies in the primary (rte_pcapng_copy(), called by pdump's
 * callbacks on the lcore that polled the burst) with a clock pcapng sets up on its first
 * call, from inside that call: the burst's TSC stamp was taken before, so the first delta
 * is negative, wraps, and adds 2^64 / tsc_hz seconds to every later stamp (year 2252 at
 * 2.59 GHz, 2305 at 2.1 GHz). railsw makes that first call itself at start-up, with a stamp
 * that cannot be older than the clock (docs/observability.md, "Packet capture").
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_pcapng.h>
#include <rte_pdump.h>

#include "rsw_module.h"
#include "rsw_telemetry.h"

RTE_LOG_REGISTER(rsw_capture_logtype, rsw.capture, INFO);
#define CAP_LOG(level, fmt, ...)                                                                   \
	rte_log(RTE_LOG_##level, rsw_capture_logtype, "railsw: " fmt "\n", ##__VA_ARGS__)

static bool capture_on; /* control thread: rte_pdump_init succeeded */

/*
 * Set up pcapng's clock in this process before pdump uses it: one rte_pcapng_copy() of a
 * dummy frame stamped a second ahead (the clock is set inside the call, after the stamp is
 * taken; a stamp less than a second ahead of it leaves the clock as set).
 * @return 0, or -ENOMEM.
 */
static int
prime_pcapng_clock(void)
{
	struct rte_mempool *mp;
	struct rte_mbuf *m, *c = NULL;
	uint64_t ahead;

	mp = rte_pktmbuf_pool_create("rsw_pcapng_clock", 4, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL)
		return -ENOMEM;
	m = rte_pktmbuf_alloc(mp);
	if (m != NULL && rte_pktmbuf_append(m, 64) != NULL) {
		memset(rte_pktmbuf_mtod(m, void *), 0, 64);
		ahead = rte_get_tsc_cycles() + rte_get_tsc_hz();
		c = rte_pcapng_copy(0, 0, m, mp, 64, ahead, RTE_PCAPNG_DIRECTION_IN);
	}
	rte_pktmbuf_free(c);
	rte_pktmbuf_free(m);
	rte_mempool_free(mp);
	return c != NULL ? 0 : -ENOMEM;
}

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
	if (prime_pcapng_clock() != 0)
		CAP_LOG(WARNING, "dpdk-dumpcap timestamps may be off by 2^64/tsc_hz seconds: "
				 "cannot set up pcapng's clock (out of memory)");
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
