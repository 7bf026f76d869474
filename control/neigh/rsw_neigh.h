/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The neighbour state machine (neigh.c): static, learned and resolving neighbours
 * (request, hold, retry, age), and the control thread's transmit. The bottom of the
 * neighbour area.
 */

#ifndef RSW_NEIGH_H
#define RSW_NEIGH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rsw_config.h"
#include "rsw_punt.h" /* rsw_ctl_punt_poll: main.c finds it through this header */

/** Set up neighbour state; static neighbours from cfg. @return 0 or -errno. */
int rsw_ctl_neigh_init(const struct rsw_config *cfg);

/**
 * The neighbour table's key of ip on port p. An IPv6 link-local address is unique on its
 * link only (two unnumbered BGP peers on two ports may both be fe80::1), so its key carries
 * p + 1 in bytes 2-3, which fe80::/64 addresses have zero (RFC 4291 §2.5.6); any other
 * address is its own key. Every entry of the table is made through this key.
 */
struct rsw_ip rsw_ctl_neigh_key(const struct rsw_ip *ip, uint16_t p);

/** Turn a neighbour table key back into the address (a link-local one loses its port). */
void rsw_ctl_neigh_unkey(struct rsw_ip *ip);

/**
 * A source of link-local neighbours heard on port p (ip NULL: the one heard last, else that
 * address; its address into ip_out, its MAC into mac, where not NULL): 0, or -ENOENT.
 */
typedef int(rsw_ctl_neigh_ll_fn)(uint16_t p, const uint8_t *ip, uint8_t *ip_out, uint8_t *mac);

/**
 * Register fn (NULL: none) as where a link-local next hop the tables want is looked up before
 * it is solicited (the kernel interfaces register rsw_kif_ll_neighbor: BGP unnumbered). The
 * neighbour area calls no module above it.
 */
void rsw_ctl_neigh_set_ll_source(rsw_ctl_neigh_ll_fn *fn);

/** Register a next hop the tables need (created incomplete and resolved). Returns the index. */
int rsw_ctl_neigh_want(const struct rsw_ip *ip, uint16_t port);

/**
 * A routed packet whose neighbour is not resolved (RSW_PUNT_NEIGH): sent at once if the
 * neighbour resolved since, else held (up to three per neighbour) while it is solicited, else
 * dropped (neigh_unresolved). A neighbour that failed is solicited again (a new round of
 * requests) by a packet that comes a second or more after the last round gave up. Consumes m.
 */
void rsw_ctl_neigh_unresolved(struct rte_mbuf *m);

/**
 * Retries, ageing, expiry of held packets, and the next hops that failed asked again (one
 * request after 2 s, then twice as far apart each time, up to 60 s). Call a few times a second.
 */
void rsw_ctl_neigh_timer(uint64_t now_ms);

/** `show neighbors`: {"neighbors":[{"ip","mac","port","state"}]}. */
json_t *rsw_ctl_neigh_json(void);

/**
 * Send a frame the switch made (a reply, a request, an ICMP error) from the control thread on
 * port p: queued on TC tc of the port (outside the buffer accounting, marked RSW_MF_ORIG), so
 * the owner alone transmits. Counted `originated` (`show drops` totals); freed, uncounted, if
 * the queue is full.
 */
void rsw_ctl_send(uint16_t p, uint8_t tc, struct rte_mbuf *m);

/**
 * rsw_ctl_send for a received frame going on (one held for its neighbour): counted `forwarded`
 * when it leaves, tx_dropped if the queue is full.
 */
void rsw_ctl_forward(uint16_t p, uint8_t tc, struct rte_mbuf *m);

/** Received frames held for a neighbour's MAC now (`queued` of the `show drops` totals). */
unsigned int rsw_ctl_neigh_held(void);

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

/**
 * A new frame answering m: the L2 header of m (tags kept) from the ingress port's MAC to
 * dst_mac, and l3_len bytes of room after it (*l3 points there).
 * @return the frame, or NULL (no mbuf, or l3_len does not fit).
 */
struct rte_mbuf *rsw_ctl_reply_alloc(const struct rte_mbuf *m, const uint8_t *dst_mac,
				     uint16_t l3_len, uint8_t **l3);

/**
 * The clock of the state machine (ms; resolution, hold and retry times, ageing); NULL
 * restores the default, rsw_now_ms. rsw_ctl_neigh_timer takes its time from the caller.
 */
void rsw_ctl_neigh_set_clock(uint64_t (*now_ms)(void));

/** Milliseconds of a monotonic clock. */
uint64_t rsw_now_ms(void);

#endif /* RSW_NEIGH_H */
