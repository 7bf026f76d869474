/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Port set-up (DESIGN.md §4): find each configured device, configure rx
 * queues for the workers where the PMD has them (RSS only then), one tx queue
 * (only the owner transmits), MTU, MAC, promiscuous mode, and start it.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "rsw_ctl.h"

#define RSW_RX_DESC 512
#define RSW_TX_DESC 512

static const struct rsw_config *ports_cfg;

void
rsw_devargs_name(const char *devargs, char *name, size_t len)
{
	size_t n = strcspn(devargs, ",");

	if (n >= len)
		n = len - 1;
	memcpy(name, devargs, n);
	name[n] = '\0';
}

bool
rsw_devargs_is_pci(const char *devargs)
{
	unsigned int d, b, s, f;
	char tail;

	if (sscanf(devargs, "%x:%x:%x.%x%c", &d, &b, &s, &f, &tail) == 4)
		return true;
	if (sscanf(devargs, "%x:%x:%x.%x,%c", &d, &b, &s, &f, &tail) == 5)
		return true;
	if (sscanf(devargs, "%x:%x.%x%c", &b, &s, &f, &tail) == 3)
		return true;
	return sscanf(devargs, "%x:%x.%x,%c", &b, &s, &f, &tail) == 4;
}

static int
port_setup(uint16_t p, const struct rsw_cfg_port *cp, struct rte_mempool *pool,
	   unsigned int n_workers, char *err, size_t errlen)
{
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	struct rte_eth_fc_conf fc;
	struct rte_ether_addr mac;
	char name[RSW_DEVARGS_LEN];
	uint16_t eth, nrxq, q;
	int ret;

	rsw_devargs_name(cp->devargs, name, sizeof(name));
	ret = rte_eth_dev_get_port_by_name(name, &eth);
	if (ret != 0) {
		snprintf(err, errlen, "port %s: no DPDK device '%s' (devargs '%s')", cp->name, name,
			 cp->devargs);
		return -ENODEV;
	}
	ret = rte_eth_dev_info_get(eth, &info);
	if (ret != 0)
		goto fail;
	nrxq = (uint16_t)RTE_MIN(n_workers, info.max_rx_queues);
	if (nrxq == 0)
		nrxq = 1;
	if (nrxq > 1 && info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			info.flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	} else {
		nrxq = 1;
	}
	conf.txmode.offloads = info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	ret = rte_eth_dev_configure(eth, nrxq, 1, &conf);
	if (ret != 0)
		goto fail;
	ret = rte_eth_dev_set_mtu(eth, cp->mtu);
	if (ret != 0 && ret != -ENOTSUP) {
		snprintf(err, errlen, "port %s: cannot set MTU %u: %s", cp->name, cp->mtu,
			 strerror(-ret));
		return ret;
	}
	for (q = 0; q < nrxq; q++) {
		ret = rte_eth_rx_queue_setup(eth, q, RSW_RX_DESC, rte_eth_dev_socket_id(eth), NULL,
					     pool);
		if (ret != 0)
			goto fail;
	}
	txc = info.default_txconf;
	txc.offloads = conf.txmode.offloads;
	ret = rte_eth_tx_queue_setup(eth, 0, RSW_TX_DESC, rte_eth_dev_socket_id(eth), &txc);
	if (ret != 0)
		goto fail;
	if (cp->has_mac) {
		memcpy(mac.addr_bytes, cp->mac, 6);
		ret = rte_eth_dev_default_mac_addr_set(eth, &mac);
		if (ret != 0 && ret != -ENOTSUP) {
			snprintf(err, errlen, "port %s: cannot set MAC: %s", cp->name,
				 strerror(-ret));
			return ret;
		}
	} else {
		rte_eth_macaddr_get(eth, &mac);
	}
	/*
	 * railsw generates and honours PFC itself: the NIC must neither answer nor eat MAC
	 * Control frames (mac_ctrl_frame_fwd). Virtual PMDs have no flow control (ENOTSUP).
	 */
	if (rte_eth_dev_flow_ctrl_get(eth, &fc) == 0) {
		fc.mode = RTE_ETH_FC_NONE;
		fc.mac_ctrl_frame_fwd = 1;
		rte_eth_dev_flow_ctrl_set(eth, &fc);
	}
	/* Frames are filtered in software (not_for_us, l2_control are counters). */
	rte_eth_promiscuous_enable(eth);
	rte_eth_allmulticast_enable(eth);
	ret = rte_eth_dev_start(eth);
	if (ret != 0)
		goto fail;

	rsw_dp.ports[p].eth_port = eth;
	rsw_dp.ports[p].mac = mac;
	rsw_dp.ports[p].mtu = cp->mtu;
	rsw_dp.ports[p].owner = (uint16_t)rsw_ctl.workers[p % n_workers].lcore;
	for (q = 0; q < nrxq; q++) {
		struct rsw_worker *w = &rsw_ctl.workers[(p + q) % n_workers];

		w->rxq[w->n_rxq].port = p;
		w->rxq[w->n_rxq].queue = q;
		w->n_rxq++;
	}
	rsw_ctl.workers[p % n_workers].txp[rsw_ctl.workers[p % n_workers].n_txp++] = p;
	return 0;
fail:
	snprintf(err, errlen, "port %s (%s): set-up failed: %s", cp->name, name, strerror(-ret));
	return ret;
}

int
rsw_ports_setup(const struct rsw_config *cfg, struct rte_mempool *pool, unsigned int n_workers,
		char *err, size_t errlen)
{
	uint16_t p;
	int ret;

	ports_cfg = cfg;
	for (p = 0; p < cfg->n_ports; p++) {
		ret = port_setup(p, &cfg->ports[p], pool, n_workers, err, errlen);
		if (ret != 0)
			return ret;
	}
	return 0;
}

void
rsw_ports_close(void)
{
	uint16_t p;

	for (p = 0; ports_cfg != NULL && p < ports_cfg->n_ports; p++) {
		rte_eth_dev_stop(rsw_dp.ports[p].eth_port);
		rte_eth_dev_close(rsw_dp.ports[p].eth_port);
	}
	ports_cfg = NULL;
}

uint64_t
rsw_port_speed(uint16_t p)
{
	struct rte_eth_link link;

	if (ports_cfg != NULL && ports_cfg->ports[p].speed_bps != 0)
		return ports_cfg->ports[p].speed_bps;
	if (rte_eth_link_get_nowait(rsw_dp.ports[p].eth_port, &link) != 0)
		return 0;
	if (link.link_speed == RTE_ETH_SPEED_NUM_NONE ||
	    link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		return 0;
	return (uint64_t)link.link_speed * 1000000ULL;
}
