/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 4 of the packet path: the forwarding tables a worker reads. One
 * struct rsw_tables holds a whole generation (FIBs, results, next hops,
 * groups, QoS and load-balance settings); the control thread builds a new one
 * aside and publishes it by swapping rsw_fib_main.tables (RCU, rte_rcu_qsbr).
 *
 * The neighbour table is separate: it changes at run time (ARP/ND) and is
 * shared by every generation. Its entries are written by the control thread
 * only; workers read them lock-free.
 */

#ifndef RSW_FIB_H
#define RSW_FIB_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_hash.h>
#include <rte_rcu_qsbr.h>

#include "rsw_defs.h"
#include "rsw_qos.h"

#define RSW_LB_BUCKETS 256 /* resilient-hash bucket table per group */
/* Toeplitz key bytes: rte_softrss reads 4 bytes of key past the last input word (44 bytes). */
#define RSW_RSS_KEY_LEN 52

/* FIB next-hop values: an index into rsw_tables.results; 0 = no route. */
#define RSW_FIB_NO_ROUTE 0
#define RSW_FIB_MAX_NH   32767 /* 2-byte DIR-24-8 / trie next hops */

enum rsw_result_type {
	RSW_RES_NONE = 0,  /* no route */
	RSW_RES_LOCAL,     /* one of the switch's addresses: punt */
	RSW_RES_CONNECTED, /* a connected subnet: the neighbour is the destination */
	RSW_RES_GROUP,     /* a next-hop group (one member for a plain route) */
};

/*
 * A connected IPv4 subnet of RSW_ADJ_MAX_BITS host bits or fewer (/20 or longer) gets an
 * adjacency array: one slot per host address, holding the neighbour index of that host or
 * RSW_ADJ_NONE, so that the FIB result reaches a connected host as it reaches a next hop, with
 * no neighbour-table search. Larger subnets, /32s and IPv6 subnets search the neighbour hash.
 */
#define RSW_ADJ_MAX_BITS    12
#define RSW_ADJ_NONE        RSW_NEIGH_NONE
#define RSW_MAX_ADJ_SUBNETS (2 * RSW_MAX_PORTS)

struct rsw_result {
	uint8_t type;   /* enum rsw_result_type */
	uint8_t single; /* GROUP of one member: port and neigh are that member's */
	uint16_t port;  /* LOCAL, CONNECTED: the port; single GROUP: the member's */
	uint32_t id; /* GROUP: index into groups; CONNECTED with adj_mask: its first slot in adj */
	uint32_t neigh; /* single GROUP: the member's neighbour index (one load fewer per packet) */
	uint32_t adj_mask; /* CONNECTED: host-bit mask of its adjacency slots; 0 = none (hash) */
};

/* Whether a result is a plain route (a GROUP of one member): type and single in one compare. */
static inline int
rsw_result_plain(const struct rsw_result *r)
{
	uint16_t ts;

	memcpy(&ts, r, sizeof(ts));
	return ts == (uint16_t)(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN ? RSW_RES_GROUP | 1u << 8
								    : RSW_RES_GROUP << 8 | 1u);
}

/* Whether a result is a group of two or more members (one that may hash): one compare too. */
static inline int
rsw_result_multi(const struct rsw_result *r)
{
	uint16_t ts;

	memcpy(&ts, r, sizeof(ts));
	return ts ==
	       (uint16_t)(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN ? RSW_RES_GROUP : RSW_RES_GROUP << 8);
}

struct rsw_nexthop {
	uint32_t neigh; /* index into the neighbour table */
	uint16_t port;  /* egress port */
	uint16_t pad;
};

struct rsw_group {
	uint16_t n_members; /* 1..RSW_MAX_NEXTHOPS */
	int16_t lb_mode;    /* enum rsw_lb_mode of the route, or UNSET */
	uint8_t hash_tcs;   /* bit tc: the TC hashes through the group, hashed per burst (control,
			   * when it builds the tables: resolve's one test per frame) */
	uint32_t members[RSW_MAX_NEXTHOPS]; /* next-hop indices */
	uint8_t buckets[RSW_LB_BUCKETS];    /* bucket → member index (weights applied) */
	uint8_t spray_seq[RSW_LB_BUCKETS];  /* interleaved member sequence (smooth WRR) */
	uint16_t spray_len;                 /* entries of spray_seq in use */
	uint16_t ports[RSW_MAX_NEXTHOPS];   /* egress port of each member */
	struct rsw_prefix prefix;           /* the route, for `show lb` */
	uint32_t route;                     /* index of that route in rsw_config.routes */
	uint32_t n_routes;                  /* routes sharing the group (same next hops) */
};

/* A connected subnet with an adjacency array (rsw_tables.adj_subnets). */
struct rsw_adj_subnet {
	uint32_t net;    /* IPv4 subnet, host order, host bits zero */
	uint32_t mask;   /* host bits: slot = address & mask */
	uint32_t base;   /* first slot in rsw_tables.adj */
	uint32_t result; /* index of its result in rsw_tables.results */
};

/* A prefix as a FIB holds it: host bits and unused address bytes zero (recycle.c). */
struct rsw_fib_key {
	uint8_t family;
	uint8_t len;
	uint8_t addr[16];
};

/*
 * One generation of tables. Immutable once published, but for the adjacency slots: adj[] is
 * written by the control thread (one atomic store per slot, release) when a neighbour entry is
 * created, and read by workers (acquire). A slot, once set, keeps its neighbour index for the
 * generation's life: neighbour entries are never removed, only invalidated (their mac_valid).
 */
struct rsw_tables {
	struct rte_fib *fib4;
	struct rte_fib6 *fib6;
	struct rsw_result *results; /* [n_results], results[0] = no route */
	uint32_t n_results;
	uint32_t max_results;   /* capacity of results */
	struct rsw_nexthop *nh; /* [n_nh] */
	uint32_t n_nh;
	struct rsw_group *groups; /* [n_groups] */
	uint32_t n_groups;
	uint32_t *
		adj; /* [n_adj] neighbour index per host of each adjacency subnet, or RSW_ADJ_NONE */
	uint32_t n_adj;
	uint16_t n_adj_subnets;
	struct rsw_adj_subnet adj_subnets[RSW_MAX_ADJ_SUBNETS];
	uint64_t generation;

	/* classify */
	uint8_t trust; /* enum rsw_trust */
	uint8_t default_tc;
	uint8_t icmp_unreachable; /* punt no-route and MTU drops for ICMP errors */
	uint8_t dscp_to_tc[64];
	uint8_t pcp_to_tc[8];

	/* load balance */
	uint32_t hash_fields; /* RSW_HF_* */
	uint32_t hash_seed;
	uint8_t hash_algorithm; /* enum rsw_hash_alg */
	uint8_t hash_symmetric;
	uint8_t spray_random;   /* load_balance.spray: random (else round-robin) */
	uint64_t flowlet_ticks; /* load_balance.flowlet_timeout_us in TSC ticks */
	int8_t lb_mode;         /* default enum rsw_lb_mode */
	uint8_t lb_hash_batch;  /* a group of 2+ members may hash: hash each burst in one loop */
	int8_t lb_per_tc[RSW_N_TC];
	uint8_t rss_key[RSW_RSS_KEY_LEN] __rte_aligned(4); /* Toeplitz key, read as 32-bit words */

	struct rsw_qos_params qos; /* MMU, scheduler, PFC, ECN */

	/* Control thread only: what recycling the generation needs (recycle.c). */
	struct rsw_fib_key *keys; /* [n_keys] every prefix added to the FIBs */
	uint32_t n_keys, cap_keys;
	struct rsw_fib_key *stale; /* recycled: [n_stale] the FIBs' prefixes before, sorted */
	uint32_t n_stale;
	uint32_t cap_results, cap_nh, cap_groups; /* allocated entries of results, nh, groups */
	uint32_t fib_routes4, fib_routes6;        /* the FIBs' max_routes */
	uint8_t keys_sorted;                      /* keys sorted, without duplicates */
	uint8_t untracked;                        /* a key could not be kept: never recycled */
	uint8_t recycled;                         /* built on a retired generation's FIBs */
	uint8_t failed; /* recycled, and a FIB change failed: build it anew */
};

/* A neighbour (ARP/ND entry). mac_valid: bits 0-47 MAC (network order bytes, little-endian
 * packing as rte_ether_addr in memory), bit 63 = valid. */
#define RSW_NEIGH_VALID (1ULL << 63)
#define RSW_NEIGH_SLOTS (2 * RSW_MAX_NEIGHBORS)
/*
 * No neighbour (a connected host without an entry): the index of one entry past the table's,
 * allocated with it and never valid, so that resolve loads mac_valid without testing the index
 * first (rsw_resolve_punt reports it as UINT32_MAX, the punt record's "unknown").
 */
#define RSW_NEIGH_NONE RSW_NEIGH_SLOTS

struct rsw_neigh {
	uint64_t mac_valid; /* written by control (atomic store, release), read by workers */
	uint16_t port;      /* egress port */
	uint8_t failed;     /* resolution gave up: next-hop groups treat the member as down */
	uint8_t pad[5];
};

struct rsw_fib_main {
	struct rsw_tables *tables; /* current generation (control publishes, workers load: RCU) */
	struct rte_rcu_qsbr *qsbr; /* workers report quiescent states, control waits */
	struct rte_hash *neigh4;   /* IPv4 (network order) → entry (control adds, workers read) */
	struct rte_hash *neigh6;   /* IPv6 (16 bytes) → entry (control adds, workers read) */
	struct rsw_neigh *neigh;  /* [RSW_NEIGH_SLOTS + 1], IPv4 first, RSW_NEIGH_NONE last (control
				  * writes, workers read) */
	struct rsw_tables *spare; /* the retired generation, no worker reads it (control only) */
};

extern struct rsw_fib_main rsw_fib_main;

/**
 * Create the neighbour table and the RCU variable for n_workers readers.
 * @return 0 or -errno.
 */
int rsw_fib_init(unsigned int n_workers);

/** Free what rsw_fib_init created and the current tables. */
void rsw_fib_fini(void);

/* Routes a generation's FIBs hold per family at least (RIB nodes are preallocated). */
#define RSW_FIB_DEFAULT_ROUTES (65536 + 4 * RSW_MAX_PORTS)

/**
 * Allocate an empty generation: FIBs with no routes, results[0] = no route, room for
 * RSW_FIB_DEFAULT_ROUTES routes per family. The spare generation is freed first (memory).
 * @return tables, or NULL (rte_errno set).
 */
struct rsw_tables *rsw_tables_alloc(uint64_t generation, uint32_t max_results, uint32_t max_nh,
				    uint32_t max_groups);

/**
 * rsw_tables_alloc with room for max_routes4 IPv4 and max_routes6 IPv6 routes (connected and
 * local ones included): a generation is sized by its configuration, so 1M routes cost their
 * memory and a small switch does not.
 */
struct rsw_tables *rsw_tables_alloc_routes(uint64_t generation, uint32_t max_results,
					   uint32_t max_nh, uint32_t max_groups,
					   uint32_t max_routes4, uint32_t max_routes6);

/**
 * A generation to build, made from the retired one (rsw_fib_main.spare) when there is one
 * that fits: its FIBs keep their routes until rsw_tables_commit, which deletes those the
 * new build did not add again, so a route batch costs the routes that changed instead of
 * two new FIBs (a 32 MiB DIR-24-8 table zeroed). Without a spare that fits, as
 * rsw_tables_alloc_routes. The generation behaves as a new one: empty results, next hops
 * and groups, settings zero. Control thread only.
 * @return tables, or NULL (rte_errno set).
 */
struct rsw_tables *rsw_tables_recycle(uint64_t generation, uint32_t max_results, uint32_t max_nh,
				      uint32_t max_groups, uint32_t max_routes4,
				      uint32_t max_routes6);

/**
 * Bring t's FIBs to exactly the prefixes added since it was made: a recycled generation's
 * prefixes that were not added again are deleted. rsw_tables_publish commits what was not.
 * @return 0; or -errno when a recycled generation could not be brought there (a FIB change
 * failed: the caller frees t and builds on rsw_tables_alloc_routes).
 */
int rsw_tables_commit(struct rsw_tables *t);

/** Note that p is in t's FIBs (rsw_tables_add_route does). Control thread only. */
void rsw_tables_track(struct rsw_tables *t, const struct rsw_prefix *p);

/** Free a generation; NULL is a no-op. */
void rsw_tables_free(struct rsw_tables *t);

/**
 * Add a result and return its FIB next-hop value (>= 1), or -ENOSPC when max_results are in.
 */
int rsw_tables_add_result(struct rsw_tables *t, const struct rsw_result *r);

/**
 * Add a prefix pointing at result value nh (an added result: -EINVAL otherwise).
 * @return 0 or -errno.
 */
int rsw_tables_add_route(struct rsw_tables *t, const struct rsw_prefix *p, uint32_t nh);

/**
 * Fill g->buckets from g->n_members and weights (one entry per member), so that each member
 * holds a share of the RSW_LB_BUCKETS buckets proportional to its weight; and g->spray_seq,
 * the members interleaved in proportion to their weights (smooth weighted round-robin), for
 * per-packet modes.
 */
void rsw_group_fill_buckets(struct rsw_group *g, const uint32_t *weights);

/**
 * Publish t as the current generation (committed first), wait for every worker to pass a
 * quiescent state, and retire the previous one: it becomes rsw_fib_main.spare, for
 * rsw_tables_recycle (the spare before it is freed). Publishing NULL frees the previous
 * one and the spare. Control thread only.
 */
void rsw_tables_publish(struct rsw_tables *t);

/**
 * Find or create the neighbour entry for ip on port (control thread only).
 * @return the index, or -ENOSPC / -EINVAL.
 */
int rsw_neigh_get(const struct rsw_ip *ip, uint16_t port);

/** Index of ip's entry, or -ENOENT. Lock-free; workers may call it. */
static inline int
rsw_neigh_lookup4(uint32_t ip_be)
{
	return rte_hash_lookup(rsw_fib_main.neigh4, &ip_be);
}

static inline int
rsw_neigh_lookup6(const uint8_t ip[16])
{
	int ret = rte_hash_lookup(rsw_fib_main.neigh6, ip);

	return ret < 0 ? ret : ret + RSW_MAX_NEIGHBORS;
}

/**
 * The neighbour index of IPv4 destination dst_host (host order) under connected result r of
 * tables t, r having an adjacency array (adj_mask != 0): RSW_ADJ_NONE when the host has no
 * neighbour entry yet. Lock-free; workers call it.
 */
static inline uint32_t
rsw_adj_lookup4(const struct rsw_tables *t, const struct rsw_result *r, uint32_t dst_host)
{
	return __atomic_load_n(&t->adj[r->id + (dst_host & r->adj_mask)], __ATOMIC_ACQUIRE);
}

/**
 * Give connected result nh (an IPv4 subnet p of RSW_ADJ_MAX_BITS host bits or fewer) an
 * adjacency array, its slots empty. A result that already has one (a second prefix pointing at
 * it) loses it and searches the neighbour hash. Called by rsw_tables_add_route; control thread.
 * @return 0, or -ENOMEM / -ENOSPC (the result then keeps searching the hash).
 */
int rsw_adj_add(struct rsw_tables *t, uint32_t nh, const struct rsw_prefix *p);

/**
 * Set the adjacency slot of IPv4 neighbour entry idx (ip_be: its address, network order) in
 * every subnet of t holding it. Control thread; t may be published (one atomic store).
 */
void rsw_adj_set(struct rsw_tables *t, uint32_t ip_be, uint32_t idx);

/** Fill t's adjacency slots from every IPv4 neighbour entry. Control thread, before publishing. */
void rsw_adj_fill(struct rsw_tables *t);

/** Set (or invalidate, mac == NULL) an entry's MAC. Control thread only. */
void rsw_neigh_set(uint32_t idx, const uint8_t *mac);

#endif /* RSW_FIB_H */
