/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The mbuf pools: one per NUMA socket in use, the main lcore's (the control thread allocates
 * from it: rsw_ctl.pool) and each port device's, so that a NIC's rx descriptors are filled
 * with memory of its own socket. A port whose device says SOCKET_ID_ANY (virtual PMDs) takes
 * the main one. Each pool is sized as if it served every port (descriptors of every queue,
 * the shared buffer's frames): simple, and at worst a second socket's pool holds more than
 * its ports need.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "llr_shim.h"
#include "rsw_ports.h"
#include "rsw_worker.h"

static struct rte_mempool *pools[RTE_MAX_NUMA_NODES];
static int main_socket;

/* Mbufs of one pool: descriptors (rx and tx of every queue of every port), what the shared
 * buffer can hold at 256 bytes a frame on average, rings and per-lcore caches. */
static uint32_t
pool_size(const struct rsw_config *cfg, unsigned int n_workers)
{
	uint32_t desc = 0;
	uint16_t p;

	for (p = 0; p < cfg->n_ports; p++)
		desc += (uint32_t)cfg->ports[p].rx_desc * n_workers + cfg->ports[p].tx_desc + 64u;
	return desc + RSW_PUNT_RING_SIZE + (n_workers + 1) * 512u + 3u * 1024 + 2048 +
	       (uint32_t)RTE_MIN(cfg->qos.buffer_total / 256, 131072u);
}

static uint16_t
pool_room(const struct rsw_config *cfg)
{
	uint32_t max_mtu = 0;
	uint16_t p, room;

	for (p = 0; p < cfg->n_ports; p++)
		max_mtu = RTE_MAX(max_mtu, cfg->ports[p].mtu);
	/* L2 header with two tags, and the FCS some PMDs keep. */
	room = (uint16_t)RTE_ALIGN_CEIL(
		RTE_PKTMBUF_HEADROOM + max_mtu + RTE_ETHER_HDR_LEN + 8 + RTE_ETHER_CRC_LEN +
			RSW_LLR_SHIM_LEN, /* an LLR frame's shim (docs/link.md) */
		64);
	return RTE_MAX(room, rsw_ports_min_data_room(cfg));
}

/* The NUMA socket of the device of port cp, or SOCKET_ID_ANY. */
static int
port_socket(const struct rsw_cfg_port *cp)
{
	char name[RSW_DEVARGS_LEN];
	uint16_t eth;

	rsw_devargs_name(cp->devargs, name, sizeof(name));
	if (rte_eth_dev_get_port_by_name(name, &eth) != 0)
		return SOCKET_ID_ANY;
	return rte_eth_dev_socket_id(eth);
}

static struct rte_mempool *
pool_on(int s, uint32_t n, uint16_t room)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	if (s == main_socket)
		snprintf(name, sizeof(name), "rsw_pool");
	else
		snprintf(name, sizeof(name), "rsw_pool_s%d", s);
	return rte_pktmbuf_pool_create(name, n, 256, 0, room, s);
}

struct rte_mempool *
rsw_pools_create(const struct rsw_config *cfg, unsigned int n_workers)
{
	uint32_t n = pool_size(cfg, n_workers);
	uint16_t room = pool_room(cfg), p;
	int s, err;

	main_socket = (int)rte_socket_id();
	if (main_socket < 0 || main_socket >= RTE_MAX_NUMA_NODES)
		main_socket = 0;
	pools[main_socket] = pool_on(main_socket, n, room);
	if (pools[main_socket] == NULL)
		return NULL;
	for (p = 0; p < cfg->n_ports; p++) {
		s = port_socket(&cfg->ports[p]);
		if (s < 0 || s >= RTE_MAX_NUMA_NODES || pools[s] != NULL)
			continue;
		pools[s] = pool_on(s, n, room);
		if (pools[s] == NULL) {
			err = rte_errno;
			rsw_pools_free();
			rte_errno = err;
			return NULL;
		}
	}
	return pools[main_socket];
}

struct rte_mempool *
rsw_pool_of_socket(int s)
{
	if (s >= 0 && s < RTE_MAX_NUMA_NODES && pools[s] != NULL)
		return pools[s];
	return pools[main_socket];
}

unsigned int
rsw_pools_count(void)
{
	unsigned int s, n = 0;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++)
		n += pools[s] != NULL;
	return n;
}

void
rsw_pools_usage(uint64_t *in_use, uint64_t *total)
{
	unsigned int s;

	*in_use = 0;
	*total = 0;
	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		if (pools[s] == NULL)
			continue;
		*in_use += rte_mempool_in_use_count(pools[s]);
		*total += pools[s]->size;
	}
}

void
rsw_pools_free(void)
{
	unsigned int s;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		rte_mempool_free(pools[s]);
		pools[s] = NULL;
	}
}
