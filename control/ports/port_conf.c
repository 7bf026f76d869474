/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What railsw asks of each port's PMD (ports.c applies it): the rte_eth_conf (RSS with a
 * fixed key, symmetric with switch.rss.symmetric; the offloads), the descriptors per queue
 * (ports[].rx_desc / tx_desc, checked against the PMD's limits), and the link speed the
 * shaper and PFC timing use, read again when a port without `speed:` comes up later.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_log.h>

#include "rsw_ctl.h"
#include "rsw_lb.h"
#include "rsw_module.h"
#include "rsw_ports.h"
#include "rsw_qos.h"

RTE_LOG_REGISTER(rsw_logtype_port_conf, rsw.ports.conf, INFO);

/* The classic symmetric Toeplitz key (Woo and Park): 0x6d5a repeated hashes (a, b) and (b, a)
 * of addresses and of ports alike. */
static const uint8_t symmetric_pattern[2] = {0x6d, 0x5a};

void
rsw_port_rss_key(bool symmetric, uint8_t *key, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		key[i] = symmetric ? symmetric_pattern[i % 2]
				   : rsw_lb_default_rss_key[i % RSW_RSS_KEY_LEN];
}

void
rsw_port_conf(const struct rsw_config *cfg, const struct rsw_cfg_port *cp,
	      const struct rte_eth_dev_info *info, bool rss, bool one_pool,
	      struct rte_eth_conf *conf, uint8_t key[RSW_PORT_RSS_KEY_MAX])
{
	memset(conf, 0, sizeof(*conf));
	if (rss) {
		conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf->rx_adv_conf.rss_conf.rss_hf =
			info->flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
		/* A key of ours, never the PMD's random one: the same flows meet the same
		 * worker from one start to the next, and symmetric keeps both directions on one. */
		if (info->hash_key_size != 0 && info->hash_key_size <= RSW_PORT_RSS_KEY_MAX) {
			rsw_port_rss_key(cfg->sw.rss_symmetric, key, info->hash_key_size);
			conf->rx_adv_conf.rss_conf.rss_key = key;
			conf->rx_adv_conf.rss_conf.rss_key_len = info->hash_key_size;
		}
	}
	/* A port that checks IPv4 header checksums says so per frame (RX_IP_CKSUM_GOOD / BAD): the
	 * parser then trusts it and computes the checksum only when the port does not know. The
	 * RSS hash of each frame, where the port has RSS, for load_balance.hash_algorithm nic. */
	conf->rxmode.offloads = info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	if (rss)
		conf->rxmode.offloads |= info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH;
	/*
	 * MBUF_FAST_FREE lets the PMD free sent mbufs without looking at them: every one must
	 * have one reference and come from one pool. Not with LLR (its replay ring keeps a
	 * reference to each frame sent), nor with a pool per NUMA socket (a port sends frames of
	 * every socket's pool).
	 */
	if (!cp->llr && one_pool)
		conf->txmode.offloads = info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
}

/* One direction's descriptors: the configured count if the PMD takes it, else an error. */
static int
desc_fit(const struct rsw_config *cfg, const struct rsw_cfg_port *cp, const char *what,
	 uint16_t want, int line, const struct rte_eth_desc_lim *lim, const char *driver,
	 uint16_t *out, char *err, size_t errlen)
{
	uint16_t max = lim->nb_max ? lim->nb_max : UINT16_MAX, align = lim->nb_align ?: 1, n;
	char mult[32] = "";

	if (want >= lim->nb_min && want <= max && want % align == 0) {
		*out = want;
		return 0;
	}
	if (line == 0) {
		/* The default: the nearest count the PMD takes. */
		n = want < lim->nb_min ? lim->nb_min : want;
		n = n > max ? max : n;
		n = (uint16_t)(n / align * align);
		*out = n >= lim->nb_min ? n : (uint16_t)RTE_ALIGN_CEIL(lim->nb_min, align);
		return 0;
	}
	if (align > 1)
		snprintf(mult, sizeof(mult), ", a multiple of %u", align);
	snprintf(err, errlen,
		 "%s:%d: port %s: %s %u: the %s PMD takes %u..%u descriptors per queue%s",
		 cfg->path, line, cp->name, what, want, driver, lim->nb_min, max, mult);
	return -EINVAL;
}

int
rsw_port_desc(const struct rsw_config *cfg, const struct rsw_cfg_port *cp,
	      const struct rte_eth_dev_info *info, uint16_t *nrxd, uint16_t *ntxd, char *err,
	      size_t errlen)
{
	const char *drv = info->driver_name != NULL ? info->driver_name : "?";

	if (desc_fit(cfg, cp, "rx_desc", cp->rx_desc, cp->rx_desc_line, &info->rx_desc_lim, drv,
		     nrxd, err, errlen) != 0)
		return -EINVAL;
	return desc_fit(cfg, cp, "tx_desc", cp->tx_desc, cp->tx_desc_line, &info->tx_desc_lim, drv,
			ntxd, err, errlen);
}

/*
 * The speed of port p's shaper and PFC timing (rsw_qos.port[p].speed_bps), set at start from
 * rsw_port_speed. A port without `speed:` whose link was down then (speed unknown) or came
 * up at another speed takes the link's speed once it is known. @return ports changed.
 */
unsigned int
rsw_ports_speed_poll(void)
{
	unsigned int changed = 0;
	uint64_t s, cur;
	uint16_t p;

	if (rsw_ctl.cfg == NULL)
		return 0;
	for (p = 0; p < rsw_dp.n_ports && p < rsw_ctl.cfg->n_ports; p++) {
		if (rsw_ctl.cfg->ports[p].speed_bps != 0)
			continue;
		s = rsw_port_speed(p);
		cur = __atomic_load_n(&rsw_qos.port[p].speed_bps, __ATOMIC_RELAXED);
		if (s == 0 || s == cur)
			continue;
		__atomic_store_n(&rsw_qos.port[p].speed_bps, s, __ATOMIC_RELAXED);
		rte_log(RTE_LOG_INFO, rsw_logtype_port_conf,
			"railsw: port %s: link speed %" PRIu64 " Mbit/s (was %" PRIu64
			"): shaper and PFC timing follow\n",
			rsw_ctl.cfg->ports[p].name, s / 1000000, cur / 1000000);
		changed++;
	}
	return changed;
}

static unsigned int
speed_poll(uint64_t now_ms)
{
	(void)now_ms;
	return rsw_ports_speed_poll();
}

static struct rsw_module ports_speed_module = {
	.name = "ports.speed",
	.order = RSW_MODULE_ORDER_PORTS,
	.poll = speed_poll,
	.period_ms = 500,
};

RSW_MODULE_REGISTER(ports_speed_module);
