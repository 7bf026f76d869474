/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The port kinds railsw knows (docs/ports.md): what each DPDK
 * PMD offers (queues, MAC-control frames, link speed) and the checks made on a
 * port's devargs before EAL probes it. `railsw --list-port-kinds` prints the
 * table; `show ports` reports each port's kind and whether it carries
 * MAC-control frames (PFC). Control thread only.
 */

#ifndef RSW_PORTS_H
#define RSW_PORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsw_config.h"

struct rte_mempool;

/** How a PMD's rx queues are chosen. */
enum rsw_port_queues {
	RSW_PORT_Q_RSS,   /* one per worker where the PMD has RSS, else one */
	RSW_PORT_Q_FIXED, /* the count the devargs fixed (max_rx_queues): all polled */
	RSW_PORT_Q_ONE,   /* always one */
};

/** One row of the port-kind table. Static, read-only. */
struct rsw_port_kind {
	const char *name;            /* driver name ("net_tap"), "pci" for PCI devices */
	const char *example;         /* devargs example */
	const char *multi_queue;     /* what multi-queue means for this kind */
	const char *pfc;             /* PFC rx/tx: whether MAC-control frames are carried */
	const char *speed;           /* link speed source when `speed` is absent */
	const char *limits;          /* known limits */
	enum rsw_port_queues queues; /* rx queue policy */
	bool paired_tx;              /* as many tx queues as rx queues (net_af_xdp) */
	bool mac_ctrl;               /* carries MAC-control frames (PCI: decided at set-up) */
	bool no_peer;                /* no railsw can be at the other end (llr: a warning) */
};

/** Number of rows of the port-kind table. */
unsigned int rsw_port_kind_count(void);

/** Row i of the port-kind table, or NULL when i is out of range. */
const struct rsw_port_kind *rsw_port_kind_get(unsigned int i);

/**
 * The kind of a devargs string: its driver name without the instance number ("net_memif" of
 * "net_memif0,role=server"), "pci" for a PCI address.
 * @return the row, or NULL for a kind railsw has no notes on (it is still used).
 */
const struct rsw_port_kind *rsw_port_kind_of(const char *devargs);

/**
 * The checks of the ports' devargs that need no device, for rsw_config_register_check:
 * driver names this DPDK has, PCI address syntax, one device, TAP interface or vhost socket
 * per port, the socket directories of net_memif and net_vhost, net_af_xdp's largest MTU;
 * a warning for `llr` on a kind with no railsw peer (net_null, net_pcap).
 */
void rsw_ports_check_config(const struct rsw_config *cfg, struct rsw_cfg_report *r);

/**
 * Whether rsw_ports_check_config checks driver names against this DPDK's plugin directory
 * (default on; off when EAL is given more drivers with -d).
 */
void rsw_ports_check_drivers(bool on);

/**
 * The checks that need the device, made before EAL probes it, each with a message naming
 * the port and the fix: net_af_xdp's interface exists and start_queue + queue_count fits its
 * channels (a warning is logged when channels outside them would bypass railsw).
 * @return 0, or -EINVAL / -ENODEV with err filled.
 */
int rsw_ports_precheck(const struct rsw_config *cfg, char *err, size_t errlen);

/**
 * The smallest mbuf data room the configured kinds need: net_af_xdp uses the mbuf pool as its
 * UMEM, whose chunks must be at least 2048 bytes.
 * @return bytes (0 when no kind needs more than the MTU).
 */
uint16_t rsw_ports_min_data_room(const struct rsw_config *cfg);

/** The DPDK driver name of port p once set up ("net_memif", "net_ice"), or "". */
const char *rsw_port_kind_name(uint16_t p);

/** Whether port p's frames carry the NIC's RSS hash (RSS over 2+ queues, RX_RSS_HASH). */
bool rsw_port_rss_hash(uint16_t p);

/** Whether port p carries MAC-control frames, so PFC and PAUSE work on it. */
bool rsw_port_mac_ctrl(uint16_t p);

/**
 * Configure and start every port of cfg (queues per worker where the PMD has them, MTU, MAC,
 * promiscuous) and fill rsw_dp.ports. Messages go to err.
 * @return 0 or -errno.
 */
int rsw_ports_setup(const struct rsw_config *cfg, struct rte_mempool *pool, unsigned int n_workers,
		    char *err, size_t errlen);

/** Stop and close every port. */
void rsw_ports_close(void);

/** Point ports.c at a reloaded configuration (its ports are the same). */
void rsw_ports_set_config(const struct rsw_config *cfg);

/* The longest RSS key railsw gives a PMD (hash_key_size: 40 or 52 on most NICs). */
#define RSW_PORT_RSS_KEY_MAX 64

struct rte_eth_conf;
struct rte_eth_dev_info;

/** The RSS key of len bytes railsw gives every port with RSS (port_conf.c): the symmetric
 * 0x6d5a pattern, or the fixed key of the load balancer's Toeplitz hash. */
void rsw_port_rss_key(bool symmetric, uint8_t *key, size_t len);

/**
 * The rte_eth_conf of port cp (port_conf.c): RSS (rss: more than one rx queue) with railsw's
 * key in key (switch.rss.symmetric), IPv4 checksum and RSS hash offloads where the PMD has
 * them, MBUF_FAST_FREE where it has it unless the port has LLR or the mbufs come from more
 * than one pool (one_pool false).
 */
void rsw_port_conf(const struct rsw_config *cfg, const struct rsw_cfg_port *cp,
		   const struct rte_eth_dev_info *info, bool rss, bool one_pool,
		   struct rte_eth_conf *conf, uint8_t key[RSW_PORT_RSS_KEY_MAX]);

/**
 * Descriptors per rx and tx queue of port cp: ports[].rx_desc / tx_desc when the PMD's
 * limits (info) take them; a default that does not fit is brought within them.
 * @return 0, or -EINVAL with "FILE:LINE: port NAME: rx_desc N: the PMD takes MIN..MAX ..."
 */
int rsw_port_desc(const struct rsw_config *cfg, const struct rsw_cfg_port *cp,
		  const struct rte_eth_dev_info *info, uint16_t *nrxd, uint16_t *ntxd, char *err,
		  size_t errlen);

/** Read the link speed of ports without `speed:` again; a known new one replaces the
 * shaper's and PFC timing's (rsw_qos.port[].speed_bps). @return ports changed. */
unsigned int rsw_ports_speed_poll(void);

/**
 * The mbuf pools (pools.c): one per NUMA socket in use (the main lcore's and each port's
 * device's), each sized for every port's descriptors and the shared buffer.
 * @return the main lcore's socket's pool, or NULL (rte_errno set; none left behind).
 */
struct rte_mempool *rsw_pools_create(const struct rsw_config *cfg, unsigned int n_workers);

/** The pool of NUMA socket s (SOCKET_ID_ANY or a socket without one: the main one's). */
struct rte_mempool *rsw_pool_of_socket(int s);

/** How many pools there are (1 on a machine, or a configuration, of one socket). */
unsigned int rsw_pools_count(void);

/** Mbufs in use and in total over every pool (`show buffer`). */
void rsw_pools_usage(uint64_t *in_use, uint64_t *total);

/** Free every pool. */
void rsw_pools_free(void);

/** Speed the port runs at, in bit/s: config `speed`, else link speed, else 0. */
uint64_t rsw_port_speed(uint16_t p);

/** What railsw knows of a port's link. */
enum rsw_link_state {
	RSW_LINK_DOWN,
	RSW_LINK_UP,
	RSW_LINK_UNKNOWN, /* the port kind cannot know (a TAP moved to another netns) */
};

/**
 * The link of port p: the PMD's link status, except for net_tap and net_af_xdp, whose kernel
 * interface is read (IFF_UP and IFF_RUNNING) where it is in railsw's network namespace;
 * RSW_LINK_UNKNOWN where it is not (a TAP moved into another namespace), or the PMD fails.
 */
enum rsw_link_state rsw_port_link(uint16_t p);

/** "up", "down" or "unknown": `link_state` of `show ports`. */
const char *rsw_link_state_name(enum rsw_link_state s);

/** Name of the DPDK device in a devargs string ("net_tap0" of "net_tap0,iface=x"). */
void rsw_devargs_name(const char *devargs, char *name, size_t len);

/** Whether devargs is a PCI address (DDDD:BB:DD.F or BB:DD.F). */
bool rsw_devargs_is_pci(const char *devargs);

/**
 * The value of key in a devargs string ("x" for "iface" of "net_af_xdp0,iface=x").
 * @return true with val filled (truncated to len - 1), false when the key is absent.
 */
bool rsw_devargs_value(const char *devargs, const char *key, char *val, size_t len);

/** What the last `port NAME down` did for the port's peer (`peer_down` of `show ports`). */
enum rsw_peer_state {
	RSW_PEER_UP,       /* the port is administratively up: nothing to tell */
	RSW_PEER_TOLD,     /* the link is down for the peer too (memif, TAP carrier, PHY) */
	RSW_PEER_NOT_TOLD, /* the port kind cannot take the link down for its peer */
};

/**
 * Learn what each port's kind can do for its peer (admin.c): a memif's role and socket, a
 * TAP's descriptor. Called at the end of rsw_ports_setup.
 */
void rsw_ports_admin_init(const struct rsw_config *cfg);

/**
 * `port NAME down|up`: set port p administratively down or up (rsw_port_set_admin) and,
 * where its kind allows, take its link down for the peer or bring it back (a memif is
 * stopped and started, a TAP's carrier switched, a NIC's PHY set down or up); while up, a
 * memif client whose link went down reconnects by itself. Next-hop groups are not updated
 * here (rsw_ctl_lb_poll).
 * @return 0, or -EINVAL for a port that does not exist.
 */
int rsw_port_admin(uint16_t p, bool down);

/** What the last `port down` of port p did for its peer (RSW_PEER_UP while admin up). */
enum rsw_peer_state rsw_port_peer_state(uint16_t p);

/**
 * The DPDK port id of port p. Control code asks ethdev with this, not with
 * rsw_dp.ports[p].eth_port: that names a parking slot while a memif port is detached.
 */
uint16_t rsw_port_eth(uint16_t p);

/**
 * Whether the workers are kept off port p now: a memif port whose link is not up yet (its
 * handshake has not finished) or that is stopped. Its link counts as down meanwhile.
 */
bool rsw_port_detached(uint16_t p);

/** Put back what admin.c moved (a memif server's socket file). Module fini. */
void rsw_ports_admin_fini(void);

#endif /* RSW_PORTS_H */
