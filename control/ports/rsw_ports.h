/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The port kinds railsw knows (DESIGN.md §4, docs/ports.md): what each DPDK
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
 * Checks made before EAL probes the devices, each with a message naming the port and the
 * fix: net_af_xdp's interface exists and start_queue + queue_count fits its channels (a
 * warning is logged when channels outside them would bypass railsw); net_vhost's and
 * net_memif's socket directory exists.
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

/** Whether port p carries MAC-control frames, so PFC and PAUSE work on it. */
bool rsw_port_mac_ctrl(uint16_t p);

#endif /* RSW_PORTS_H */
