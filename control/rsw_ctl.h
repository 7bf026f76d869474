/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control thread's state (DESIGN.md §2, §7): the loaded configuration,
 * ports, workers, the neighbour state machine and counter baselines. Only the
 * control thread (EAL main lcore) touches anything declared here.
 */

#ifndef RSW_CTL_H
#define RSW_CTL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "rsw_config.h"
#include "rsw_fib.h"
#include "rsw_stats.h"
#include "rsw_worker.h"

struct rsw_ctl_main {
	struct rsw_config *cfg;                             /* the running configuration */
	struct rte_mempool *pool;                           /* every mbuf of the switch */
	unsigned int n_workers;                             /* worker lcores */
	struct rsw_worker workers[RTE_MAX_LCORE];           /* [n_workers] */
	uint64_t generation;                                /* tables generation */
	uint64_t port_base[RSW_MAX_PORTS][RSW_N_PORT_CTRS]; /* `clear counters` baselines */
	uint64_t missed_base[RSW_MAX_PORTS];
	struct rsw_lb_member_stats (*lb_base)[RSW_MAX_NEXTHOPS]; /* [RSW_MAX_GROUPS] */
	struct rsw_qos_stats *qos_base; /* `clear counters` baselines of QoS counters */
	/* PFC watchdog state per (port, TC), control thread only. */
	uint64_t wd_paused_since[RSW_MAX_PORTS][RSW_N_TC]; /* ms; 0 = not paused */
	uint64_t wd_deq[RSW_MAX_PORTS][RSW_N_TC];          /* dequeued_packets at last look */
	uint64_t wd_storms[RSW_MAX_PORTS][RSW_N_TC];
	uint64_t wd_restores[RSW_MAX_PORTS][RSW_N_TC];
};

extern struct rsw_ctl_main rsw_ctl;

#define RSW_MAC_STR_LEN 18

/** "02:00:00:00:00:01" (lowercase) into buf[RSW_MAC_STR_LEN]. Returns buf. */
static inline const char *
rsw_mac_str(const uint8_t *mac, char *buf)
{
	snprintf(buf, RSW_MAC_STR_LEN, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
		 mac[3], mac[4], mac[5]);
	return buf;
}

/* ports.c */

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

/** Speed the port runs at, in bit/s: config `speed`, else link speed, else 0. */
uint64_t rsw_port_speed(uint16_t p);

/** Name of the DPDK device in a devargs string ("net_tap0" of "net_tap0,iface=x"). */
void rsw_devargs_name(const char *devargs, char *name, size_t len);

/** Whether devargs is a PCI address (DDDD:BB:DD.F or BB:DD.F). */
bool rsw_devargs_is_pci(const char *devargs);

/* tables.c */

/**
 * Build a generation of tables from cfg: connected and local routes per port address,
 * static routes as next-hop groups, QoS and load-balance settings. Creates the neighbour
 * entries next hops need (static ones resolved).
 * @return the tables, or NULL with a message in err.
 */
struct rsw_tables *rsw_ctl_tables_build(const struct rsw_config *cfg, uint64_t generation,
					char *err, size_t errlen);

/* neigh.c */

/** Set up neighbour state; static neighbours from cfg. @return 0 or -errno. */
int rsw_ctl_neigh_init(const struct rsw_config *cfg);

/** Register a next hop the tables need (created incomplete and resolved). Returns the index. */
int rsw_ctl_neigh_want(const struct rsw_ip *ip, uint16_t port);

/** Handle every punted packet waiting on the punt ring. @return how many. */
unsigned int rsw_ctl_punt_poll(void);

/** Retries, ageing, expiry of held packets. Call a few times a second. */
void rsw_ctl_neigh_timer(uint64_t now_ms);

/** `show neighbors`: {"neighbors":[{"ip","mac","port","state"}]}. */
json_t *rsw_ctl_neigh_json(void);

/**
 * Send a frame from the control thread on port p: queued on TC tc of the port (outside the
 * buffer accounting), so the owner alone transmits. Counted tx_dropped if the queue is full.
 */
void rsw_ctl_send(uint16_t p, uint8_t tc, struct rte_mbuf *m);

/** The TC of frames the switch itself sends (ARP, ICMP): the first strict TC, else 7. */
uint8_t rsw_ctl_tc(void);

/**
 * Report a neighbour's MAC learned from ARP or ND on port p (RFC 826 merge, RFC 4861
 * §7.2.3-7.2.5): an existing entry is updated and its held packets sent; with create, a
 * missing one is created. Only addresses on p's connected subnet other than the switch's
 * own are learned, never a multicast MAC; static entries are left alone.
 * @return the entry's index, or -ENOENT (not learned).
 */
int rsw_ctl_neigh_learn(const struct rsw_ip *ip, uint16_t p, const uint8_t *mac, bool create);

/**
 * A reloaded configuration: neighbours it no longer lists as static are resolved like any
 * other; its static neighbours are installed (and what waited for them is sent).
 */
void rsw_ctl_neigh_reload(const struct rsw_config *cfg);

/** Drop held packets and free state. */
void rsw_ctl_neigh_fini(void);

/** Milliseconds of a monotonic clock. */
uint64_t rsw_now_ms(void);

/* nd.c */

/**
 * Handle an ICMPv6 NS or NA punted to the control thread (RSW_PUNT_ND, or a unicast one
 * among RSW_PUNT_LOCAL): validate (RFC 4861 §7.1), learn the sender, answer an NS for the
 * ingress port's address with an NA. Consumes m.
 */
void rsw_ctl_nd_input(struct rte_mbuf *m);

/**
 * Send an NS for target on port p from the port's IPv6 address: to target's
 * solicited-node group, or unicast to mac when given (re-probing a known entry).
 */
void rsw_ctl_nd_solicit(uint16_t p, const struct rsw_ip *target, const uint8_t *mac);

/* icmp.c */

/* Control-thread ICMP and ND counters of `show icmp` (names as in the JSON). */
#define RSW_FOREACH_ICMP_CTR(X)                                                                    \
	X(echo_replies)  /* ICMP and ICMPv6 echo replies sent */                                   \
	X(time_exceeded) /* ICMP type 11 / ICMPv6 type 3 sent */                                   \
	X(unreachable)   /* ICMP net unreachable / ICMPv6 no route sent */                         \
	X(too_big)       /* ICMP fragmentation needed / ICMPv6 packet too big sent */              \
	X(rate_limited)  /* errors not sent: the token bucket was empty */                         \
	X(suppressed)    /* errors not sent: about an ICMP error, multicast, no source address */  \
	X(nd_ns_rx)      /* valid NS for one of the switch's addresses */                          \
	X(nd_na_rx)      /* valid NA received */                                                   \
	X(nd_na_tx)      /* NA sent */                                                             \
	X(nd_ns_tx)      /* NS sent (resolution) */                                                \
	X(nd_invalid)    /* NS/NA failing RFC 4861 §7.1 validation */

enum rsw_icmp_ctr {
#define RSW_ICMP_CTR_ENUM(n) RSW_IC_##n,
	RSW_FOREACH_ICMP_CTR(RSW_ICMP_CTR_ENUM)
#undef RSW_ICMP_CTR_ENUM
	RSW_N_ICMP_CTRS
};

/* Written and read by the control thread only. */
extern uint64_t rsw_icmp_ctrs[RSW_N_ICMP_CTRS];

/**
 * Handle a packet addressed to the switch (RSW_PUNT_LOCAL): answer ICMP and ICMPv6 echo
 * requests, pass unicast NS/NA to rsw_ctl_nd_input. Consumes m.
 */
void rsw_ctl_icmp_local(struct rte_mbuf *m);

/**
 * Answer a packet the worker did not forward (RSW_PUNT_TTL, RSW_PUNT_NO_ROUTE,
 * RSW_PUNT_MTU) with an ICMP or ICMPv6 error back out of its ingress port, rate-limited to
 * switch.icmp_unreachable.rate_pps. Consumes m.
 */
void rsw_ctl_icmp_error(struct rte_mbuf *m);

/**
 * A new frame answering m: the L2 header of m (tags kept) from the ingress port's MAC to
 * dst_mac, and l3_len bytes of room after it (*l3 points there).
 * @return the frame, or NULL (no mbuf, or l3_len does not fit).
 */
struct rte_mbuf *rsw_ctl_reply_alloc(const struct rte_mbuf *m, const uint8_t *dst_mac,
				     uint16_t l3_len, uint8_t **l3);

/** Zero the `show icmp` counters (for `clear counters`). */
void rsw_ctl_icmp_counters_clear(void);

/** Register `show icmp`. @return 0 or -errno. */
int rsw_ctl_icmp_commands_register(void);

/* qos.c (control side) */

/** Sum QoS counters over every lcore into out. */
void rsw_ctl_qos_sum(struct rsw_qos_stats *out);

/** The PFC watchdog (DESIGN.md §5): call every few milliseconds. */
void rsw_ctl_pfcwd_poll(uint64_t now_ms);

/* lb.c (control side) */

/**
 * Recompute which members of each next-hop group are live (port admin state, link state of
 * ports whose link means something, neighbours whose resolution failed) and publish the
 * masks to the workers. Call a few times a second and after `port NAME down|up`.
 */
void rsw_ctl_lb_poll(void);

/** The same for tables t (a generation about to be published). */
void rsw_ctl_lb_masks(const struct rsw_tables *t);

/** Whether member j of group g is live now (for `show lb`). */
bool rsw_ctl_lb_member_up(uint32_t g, uint32_t j);

/* reload.c */

/**
 * Load path (the running file when NULL), refuse it when it changes what needs a restart,
 * else build its tables aside, publish them (RCU) and make it the running configuration.
 * @return {"ok":true,"generation":N} or {"error":"FILE:LINE: ..."} / {"error":"requires
 *   restart: KEY"}; the old configuration keeps running on any error.
 */
json_t *rsw_ctl_reload(const char *path);

/** Register `reload [FILE]`. @return 0 or -errno. */
int rsw_ctl_reload_register(void);

/* cmd_show.c */

/** Register the commands of CLI.md. @return 0 or -errno. */
int rsw_ctl_commands_register(void);

#endif /* RSW_CTL_H */
