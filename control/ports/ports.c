/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Port set-up (docs/ports.md): find each configured device, configure rx
 * queues as its kind allows (one per worker with RSS; the fixed count of
 * net_af_xdp, net_vhost and net_pcap, all polled; else one), a tx queue per
 * worker where the PMD has them (every worker sends on its own; net_tap and
 * net_af_xdp want them paired with the rx queues; one for LLR), MTU, MAC,
 * MAC-control frames forwarded rather than eaten by a NIC, promiscuous mode,
 * and start it. The port-kind table behind `railsw --list-port-kinds` and
 * `show ports` lives here too (docs/ports.md says the same in prose).
 */

#include <ctype.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_log.h>

#include "llr_shim.h"
#include "rsw_ctl.h"
#include "rsw_ports.h"

RTE_LOG_REGISTER(rsw_logtype_ports, rsw.ports, INFO);
#define PORTS_LOG(level, ...) rte_log(RTE_LOG_##level, rsw_logtype_ports, "railsw: " __VA_ARGS__)

/* Rx queues of one port a worker may poll (struct rsw_worker holds RSW_MAX_PORTS * 4). */
#define RSW_RXQ_PER_WORKER 4
/* net_af_xdp's UMEM chunks are mempool objects: the kernel wants at least 2048 bytes. */
#define RSW_XDP_MIN_CHUNK 2048

static const struct rsw_port_kind port_kinds[] = {
	{
		.name = "net_tap",
		.example = "net_tap0,iface=rsw-p0",
		.multi_queue = "one rx queue per worker (the kernel spreads flows)",
		.pfc = "rx+tx",
		.speed = "PMD: 10G nominal",
		.limits = "kernel copy per frame; link unknown (null) once the kernel side "
			  "moves to another netns (ignored for next-hop liveness)",
		.queues = RSW_PORT_Q_RSS,
		.paired_tx = true, /* the kernel side: as many tx queues as rx */
		.mac_ctrl = true,
	},
	{
		.name = "net_memif",
		.example = "net_memif0,role=server,socket=/run/railsw/m0.sock (peer: role=client)",
		.multi_queue = "one queue pair (no RSS)",
		.pfc = "rx+tx",
		.speed = "PMD: 100G nominal, set speed:",
		.limits = "link down until the peer connects and after it goes (next hops "
			  "follow); distinct socket= per link (default /run/memif.sock)",
		.queues = RSW_PORT_Q_ONE,
		.mac_ctrl = true,
	},
	{
		.name = "net_vhost",
		.example = "net_vhost0,iface=/run/railsw/vm0.sock[,client=1][,queues=N]",
		.multi_queue = "queues=N, all polled (the guest spreads flows)",
		.pfc = "rx+tx",
		.speed = "PMD: 10G nominal",
		.limits = "guest memory must be shareable (hugepages or memfd); link up only "
			  "while a virtio driver is attached",
		.queues = RSW_PORT_Q_FIXED,
		.mac_ctrl = true,
	},
	{
		.name = "net_af_xdp",
		.example = "net_af_xdp0,iface=veth0[,start_queue=0,queue_count=1][,xdp_prog=x.o]",
		.multi_queue = "queue_count queues, all polled (the NIC's RSS spreads them)",
		.pfc = "rx+tx on veth; on a NIC per its ethtool -A",
		.speed = "PMD: 10G nominal, set speed:",
		.limits = "MTU <= ~3500; channels outside start_queue..+queue_count go to the "
			  "kernel; one XDP program per interface; kernel MAC kept (promiscuous)",
		.queues = RSW_PORT_Q_FIXED,
		.paired_tx = true,
		.mac_ctrl = true,
	},
	{
		.name = "net_pcap",
		.example = "net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap (or iface=eth0)",
		.multi_queue = "one queue per rx_pcap/rx_iface, all polled",
		.pfc = "rx+tx (files keep every frame)",
		.speed = "PMD: 10G nominal",
		.limits = "replay runs once at full speed (infinite_rx=1 loops); libpcap copy: "
			  "tests and replay, not performance",
		.queues = RSW_PORT_Q_FIXED,
		.mac_ctrl = true,
		.no_peer = true,
	},
	{
		.name = "net_null",
		.example = "net_null0",
		.multi_queue = "one queue",
		.pfc = "no (no peer)",
		.speed = "PMD: 10G nominal",
		.limits = "rx yields endless 64-byte frames of no content (counted drops), tx "
			  "discards: a sink for benchmarks",
		.queues = RSW_PORT_Q_ONE,
		.mac_ctrl = false,
		.no_peer = true,
	},
	{
		.name = "net_ring",
		.example = "net_ring0",
		.multi_queue = "one queue",
		.pfc = "rx+tx (loopback)",
		.speed = "PMD: 10G nominal",
		.limits = "in-process loopback: what the port sends comes back on its rx",
		.queues = RSW_PORT_Q_ONE,
		.mac_ctrl = true,
	},
	{
		.name = "pci",
		.example = "0000:3b:00.0",
		.multi_queue = "one rx queue per worker, RSS (IP, UDP, TCP)",
		.pfc = "if the PMD forwards them (mac_ctrl_frame_fwd)",
		.speed = "PMD: negotiated link speed",
		.limits = "hugepages and vfio-pci; i40e/ixgbe VF anti-spoof drops software PFC "
			  "on tx (use the PF, or spoofchk off)",
		.queues = RSW_PORT_Q_RSS,
		.mac_ctrl = false,
	},
};

static const struct rsw_config *ports_cfg;
static uint16_t ports_up;                                     /* ports 0..ports_up-1 started */
static char port_driver[RSW_MAX_PORTS][RTE_DEV_NAME_MAX_LEN]; /* driver name of each port */
static bool port_mac_ctrl[RSW_MAX_PORTS];                     /* MAC-control frames carried */
static bool port_rss_hash[RSW_MAX_PORTS]; /* frames carry the NIC's RSS hash (RX_RSS_HASH) */

unsigned int
rsw_port_kind_count(void)
{
	return RTE_DIM(port_kinds);
}

const struct rsw_port_kind *
rsw_port_kind_get(unsigned int i)
{
	return i < RTE_DIM(port_kinds) ? &port_kinds[i] : NULL;
}

const struct rsw_port_kind *
rsw_port_kind_of(const char *devargs)
{
	char name[RSW_DEVARGS_LEN];
	size_t n;
	unsigned int i;

	if (rsw_devargs_is_pci(devargs))
		return &port_kinds[RTE_DIM(port_kinds) - 1];
	rsw_devargs_name(devargs, name, sizeof(name));
	n = strlen(name);
	while (n > 0 && isdigit((unsigned char)name[n - 1]))
		n--;
	name[n] = '\0';
	for (i = 0; i < RTE_DIM(port_kinds); i++)
		if (strcmp(port_kinds[i].name, name) == 0)
			return &port_kinds[i];
	return NULL;
}

/* Combined channels of a kernel interface as net_af_xdp counts them (none reported: 1). */
static int
iface_channels(const char *ifname, unsigned int *channels)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ifreq ifr = {0};
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, ifname, strnlen(ifname, IF_NAMESIZE - 1));
	ifr.ifr_data = (void *)&ch;
	*channels = 1;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
		if (ch.max_combined != 0)
			*channels = ch.combined_count;
	} else if (errno != EOPNOTSUPP) {
		ret = -errno;
	}
	close(fd);
	return ret;
}

static int
precheck_af_xdp(const struct rsw_cfg_port *cp, char *err, size_t errlen)
{
	char ifname[IF_NAMESIZE + 8], val[32];
	unsigned int channels, start = 0, count = 1;

	if (!rsw_devargs_value(cp->devargs, "iface", ifname, sizeof(ifname))) {
		snprintf(err, errlen, "port %s: net_af_xdp needs iface=<interface> in '%s'",
			 cp->name, cp->devargs);
		return -EINVAL;
	}
	if (if_nametoindex(ifname) == 0) {
		snprintf(err, errlen, "port %s: no interface '%s' for net_af_xdp", cp->name,
			 ifname);
		return -ENODEV;
	}
	if (rsw_devargs_value(cp->devargs, "start_queue", val, sizeof(val)))
		start = (unsigned int)strtoul(val, NULL, 10);
	if (rsw_devargs_value(cp->devargs, "queue_count", val, sizeof(val)))
		count = (unsigned int)strtoul(val, NULL, 10);
	if (count == 0) {
		snprintf(err, errlen, "port %s: net_af_xdp queue_count must be at least 1",
			 cp->name);
		return -EINVAL;
	}
	if (iface_channels(ifname, &channels) != 0)
		return 0; /* the PMD reports it at probe time */
	if (start + count > channels) {
		snprintf(err, errlen,
			 "port %s: %s has %u combined channel(s); start_queue %u + queue_count %u "
			 "does not fit (ethtool -L %s combined %u, or lower queue_count)",
			 cp->name, ifname, channels, start, count, ifname, start + count);
		return -EINVAL;
	}
	if (start != 0 || count != channels)
		PORTS_LOG(WARNING,
			  "port %s: %s has %u combined channels, railsw polls %u..%u: frames "
			  "the NIC steers to other channels go to the kernel stack\n",
			  cp->name, ifname, channels, start, start + count - 1);
	return 0;
}

int
rsw_ports_precheck(const struct rsw_config *cfg, char *err, size_t errlen)
{
	const struct rsw_port_kind *k;
	uint16_t p;
	int ret = 0;

	for (p = 0; p < cfg->n_ports && ret == 0; p++) {
		k = rsw_port_kind_of(cfg->ports[p].devargs);
		if (k == NULL)
			continue;
		if (strcmp(k->name, "net_af_xdp") == 0)
			ret = precheck_af_xdp(&cfg->ports[p], err, errlen);
	}
	return ret;
}

uint16_t
rsw_ports_min_data_room(const struct rsw_config *cfg)
{
	const struct rsw_port_kind *k;
	uint16_t p;

	for (p = 0; p < cfg->n_ports; p++) {
		k = rsw_port_kind_of(cfg->ports[p].devargs);
		if (k != NULL && strcmp(k->name, "net_af_xdp") == 0)
			return RSW_XDP_MIN_CHUNK - sizeof(struct rte_mbuf) - 64;
	}
	return 0;
}

const char *
rsw_port_kind_name(uint16_t p)
{
	return p < RSW_MAX_PORTS ? port_driver[p] : "";
}

bool
rsw_port_rss_hash(uint16_t p)
{
	return p < RSW_MAX_PORTS && port_rss_hash[p];
}

bool
rsw_port_mac_ctrl(uint16_t p)
{
	return p < RSW_MAX_PORTS && port_mac_ctrl[p];
}

/*
 * Rx and tx queue counts for port p of kind k (NULL: unknown kind, treated like RSS ones).
 * Rx: RSS where the PMD has it, one per worker; the fixed count of the devargs where the peer
 * or the NIC spreads frames over queues itself, so every one must be polled; else one. Tx: one
 * per worker where the PMD has as many (each worker sends on its own), as many as rx where the
 * PMD pairs them, one for a one-queue kind and for LLR and CBFC (one ordered stream).
 */
static int
port_queues(const struct rsw_cfg_port *cp, const struct rsw_port_kind *k,
	    const struct rte_eth_dev_info *info, unsigned int n_workers, uint16_t *nrxq,
	    uint16_t *ntxq, bool *rss, char *err, size_t errlen)
{
	enum rsw_port_queues policy = k != NULL ? k->queues : RSW_PORT_Q_RSS;
	unsigned int n = 1;

	*rss = false;
	if (policy == RSW_PORT_Q_RSS && info->flow_type_rss_offloads != 0) {
		n = RTE_MIN(n_workers, info->max_rx_queues);
		*rss = n > 1;
	} else if (policy == RSW_PORT_Q_FIXED) {
		n = info->max_rx_queues;
		if (n > RSW_RXQ_PER_WORKER * n_workers) {
			snprintf(err, errlen,
				 "port %s: %u rx queues in '%s' but %u worker(s) poll at most %u: "
				 "lower the queue count or add lcores",
				 cp->name, n, cp->devargs, n_workers,
				 RSW_RXQ_PER_WORKER * n_workers);
			return -EINVAL;
		}
	}
	if (n == 0 || cp->llr || cp->cbfc.enable)
		n = 1; /* LLR, CBFC: one ordered stream, polled by the port's owner (docs/link.md) */
	*rss = *rss && n > 1;
	*nrxq = (uint16_t)n;
	if (cp->llr || cp->cbfc.enable || policy == RSW_PORT_Q_ONE)
		*ntxq = 1; /* LLR, CBFC: one sender, the owner */
	else if (k != NULL && k->paired_tx)
		*ntxq = (uint16_t)n;
	else
		*ntxq = (uint16_t)(info->max_tx_queues < n_workers ? info->max_tx_queues
								   : n_workers);
	if (*ntxq == 0)
		*ntxq = 1;
	return 0;
}

/*
 * Who sends on port p's ntxq tx queues: its owner (worker p mod n_workers) drains its queues on
 * tx queue 0; the next workers in turn send straight on queues 1 .. ntxq - 1 (rsw_txq); the
 * rest have none and queue for the owner.
 */
static void
port_senders(uint16_t p, unsigned int n_workers, uint16_t ntxq)
{
	unsigned int owner = p % n_workers, w, q;

	rsw_dp.ports[p].owner = (uint16_t)rsw_ctl.workers[owner].lcore;
	rsw_dp.ports[p].n_txq = (uint16_t)RTE_MIN((unsigned int)ntxq, n_workers);
	for (w = 0; w < n_workers; w++) {
		q = (w + n_workers - owner) % n_workers;
		rsw_txq[rsw_ctl.workers[w].lcore][p] = (uint16_t)(q < ntxq ? q : 0);
	}
}

static int
port_setup(uint16_t p, const struct rsw_cfg_port *cp, struct rte_mempool *pool,
	   unsigned int n_workers, char *err, size_t errlen)
{
	const struct rsw_port_kind *k = rsw_port_kind_of(cp->devargs);
	uint8_t rss_key[RSW_PORT_RSS_KEY_MAX];
	struct rte_mempool *rx_pool;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txconf txc;
	struct rte_eth_fc_conf fc;
	struct rte_ether_addr mac;
	char name[RSW_DEVARGS_LEN];
	uint16_t eth, nrxq, ntxq, nrxd, ntxd, q;
	bool rss;
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
	snprintf(port_driver[p], sizeof(port_driver[p]), "%s",
		 info.driver_name != NULL ? info.driver_name : "");
	ret = port_queues(cp, k, &info, n_workers, &nrxq, &ntxq, &rss, err, errlen);
	if (ret != 0)
		return ret;
	ret = rsw_port_desc(ports_cfg, cp, &info, &nrxd, &ntxd, err, errlen);
	if (ret != 0)
		return ret;
	rsw_port_conf(ports_cfg, cp, &info, rss, rsw_pools_count() <= 1, &conf, rss_key);
	port_rss_hash[p] = rss && (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_RSS_HASH) != 0;
	ret = rte_eth_dev_configure(eth, nrxq, ntxq, &conf);
	if (ret != 0)
		goto fail;
	ret = rte_eth_dev_set_mtu(eth, cp->mtu + (cp->llr ? RSW_LLR_SHIM_LEN : 0));
	if (ret != 0 && ret != -ENOTSUP) {
		snprintf(err, errlen, "port %s: cannot set MTU %u (the %s PMD allows %u..%u): %s",
			 cp->name, cp->mtu, port_driver[p], info.min_mtu, info.max_mtu,
			 strerror(-ret));
		return ret;
	}
	/* The pool of the device's NUMA socket (the main one's for virtual devices). */
	rx_pool = rsw_pools_count() != 0 ? rsw_pool_of_socket(rte_eth_dev_socket_id(eth)) : pool;
	for (q = 0; q < nrxq; q++) {
		ret = rte_eth_rx_queue_setup(eth, q, nrxd, rte_eth_dev_socket_id(eth), NULL,
					     rx_pool);
		if (ret != 0)
			goto fail;
	}
	txc = info.default_txconf;
	txc.offloads = conf.txmode.offloads;
	for (q = 0; q < ntxq; q++) {
		ret = rte_eth_tx_queue_setup(eth, q, ntxd, rte_eth_dev_socket_id(eth), &txc);
		if (ret != 0)
			goto fail;
	}
	if (cp->has_mac) {
		memcpy(mac.addr_bytes, cp->mac, 6);
		/* memif, vhost and AF_XDP have no MAC of their own to set (ENOTSUP). */
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
	 * railsw generates and honours PFC itself: a NIC must neither answer nor eat MAC
	 * Control frames (flow control off, mac_ctrl_frame_fwd). Virtual PMDs have no flow
	 * control (ENOTSUP) and carry every frame as it is: their kind says so.
	 */
	port_mac_ctrl[p] = k != NULL && k->mac_ctrl;
	if (rte_eth_dev_flow_ctrl_get(eth, &fc) == 0) {
		fc.mode = RTE_ETH_FC_NONE;
		fc.mac_ctrl_frame_fwd = 1;
		ret = rte_eth_dev_flow_ctrl_set(eth, &fc);
		port_mac_ctrl[p] = ret == 0;
		if (ret != 0)
			PORTS_LOG(WARNING,
				  "port %s: %s does not forward MAC-control frames (%s): PFC "
				  "and PAUSE will not reach railsw\n",
				  cp->name, port_driver[p], strerror(-ret));
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
	rsw_port_set_admin(p, false);
	port_senders(p, n_workers, ntxq);
	PORTS_LOG(INFO, "port %s: %u rx queue(s), %u tx queue(s) (%s)\n", cp->name, nrxq, ntxq,
		  ntxq > 1 ? "every worker with a queue sends on its own" : "one sender");
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
	ports_up = 0;
	for (p = 0; p < cfg->n_ports; p++) {
		ret = port_setup(p, &cfg->ports[p], pool, n_workers, err, errlen);
		if (ret != 0)
			return ret;
		ports_up = p + 1;
	}
	rsw_ports_admin_init(cfg);
	return 0;
}

void
rsw_ports_close(void)
{
	uint16_t p;

	/* Only ports that started: after a failed set-up the others have no eth_port. */
	for (p = 0; ports_cfg != NULL && p < ports_up; p++) {
		rte_eth_dev_stop(rsw_port_eth(p));
		rte_eth_dev_close(rsw_port_eth(p));
	}
	ports_up = 0;
	ports_cfg = NULL;
}

void
rsw_ports_set_config(const struct rsw_config *cfg)
{
	if (ports_cfg != NULL)
		ports_cfg = cfg;
}

uint64_t
rsw_port_speed(uint16_t p)
{
	struct rte_eth_link link;

	if (ports_cfg != NULL && ports_cfg->ports[p].speed_bps != 0)
		return ports_cfg->ports[p].speed_bps;
	if (rte_eth_link_get_nowait(rsw_port_eth(p), &link) != 0)
		return 0;
	if (link.link_speed == RTE_ETH_SPEED_NUM_NONE ||
	    link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		return 0;
	return (uint64_t)link.link_speed * 1000000ULL;
}

/*
 * The kernel interface behind port p (net_tap, net_af_xdp) when it lives in railsw's network
 * namespace: its name from the devargs' iface= (else from the PMD's ifindex), and the same
 * ifindex as the PMD's, so a namesake in this namespace is not taken for it.
 */
static bool
port_iface_here(uint16_t p, char *ifname)
{
	struct rte_eth_dev_info info;
	unsigned int idx;

	if (rte_eth_dev_info_get(rsw_port_eth(p), &info) != 0)
		memset(&info, 0, sizeof(info));
	if (ports_cfg == NULL ||
	    !rsw_devargs_value(ports_cfg->ports[p].devargs, "iface", ifname, IF_NAMESIZE)) {
		if (info.if_index == 0 || if_indextoname(info.if_index, ifname) == NULL)
			return false;
	}
	idx = if_nametoindex(ifname);
	return idx != 0 && (info.if_index == 0 || idx == info.if_index);
}

/* The kernel's flags of interface ifname, or -errno. */
static int
iface_flags(const char *ifname, short *flags)
{
	struct ifreq ifr = {0};
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, ifname, strnlen(ifname, IF_NAMESIZE - 1));
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		*flags = ifr.ifr_flags;
	else
		ret = -errno;
	close(fd);
	return ret;
}

enum rsw_link_state
rsw_port_link(uint16_t p)
{
	const char *kind = rsw_port_kind_name(p);
	bool tap = strcmp(kind, "net_tap") == 0, xdp = strcmp(kind, "net_af_xdp") == 0;
	char ifname[IF_NAMESIZE];
	struct rte_eth_link link;
	short flags = 0;

	if (p >= rsw_dp.n_ports)
		return RSW_LINK_UNKNOWN;
	if (tap || xdp) {
		/*
		 * net_tap reads its link from the interface's flags in this namespace: once the
		 * kernel side moves to another one, that read fails and says "down" while frames
		 * flow. net_af_xdp says "up" whatever the interface does. Read the kernel where
		 * the interface is here; elsewhere nobody here can know.
		 */
		if (!port_iface_here(p, ifname) || iface_flags(ifname, &flags) != 0)
			return RSW_LINK_UNKNOWN;
		return (flags & IFF_UP) && (flags & IFF_RUNNING) ? RSW_LINK_UP : RSW_LINK_DOWN;
	}
	if (rte_eth_link_get_nowait(rsw_port_eth(p), &link) != 0)
		return RSW_LINK_UNKNOWN;
	/* A memif whose handshake just ended is up once the workers poll it (admin.c). */
	if (rsw_port_detached(p))
		return RSW_LINK_DOWN;
	return link.link_status == RTE_ETH_LINK_UP ? RSW_LINK_UP : RSW_LINK_DOWN;
}

const char *
rsw_link_state_name(enum rsw_link_state s)
{
	switch (s) {
	case RSW_LINK_UP:
		return "up";
	case RSW_LINK_DOWN:
		return "down";
	default:
		return "unknown";
	}
}
