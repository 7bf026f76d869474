/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Fabric topology (docs/topology.md): from `topology:` and
 * the roles of this switch's ports, derive the ports' addresses, their peers and the routes
 * of this switch, and plan the whole fabric (`railctl plan`). Pure computation on a parsed
 * configuration: no DPDK, no I/O. The loader (config/) applies the derivation at load time,
 * so the rest of railsw sees ordinary port addresses and static routes. Nothing here runs in
 * a worker.
 *
 * Thread-safety: every function is reentrant; a configuration is only read, except by
 * rsw_topology_apply_ports/routes, which the loader calls on the configuration it is filling.
 */

#ifndef RSW_TOPOLOGY_H
#define RSW_TOPOLOGY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "rsw_config.h"

#define RSW_TOPO_LEAF_SLOTS  4096 /* leaf slots per spine in the link plan (offset stride) */
#define RSW_TOPO_MAX_SUS     256  /* the second octet of a host address */
#define RSW_TOPO_MAX_RAILS   256  /* the third octet */
#define RSW_TOPO_MAX_SERVERS 253  /* hosts .1 to .253; .254 is the leaf, .255 broadcast */
#define RSW_TOPO_MAX_SPINES  4096
#define RSW_TOPO_MAX_RADIX   4096
#define RSW_TOPO_RADIX       64 /* default radix */
#define RSW_TOPO_GATEWAY     254

/* A topology error: the message and the line it belongs to (0: none). */
struct rsw_topo_error {
	int line;
	char msg[RSW_CFG_MSG_LEN];
};

/* One port of this switch as the topology sees it. */
struct rsw_topo_port {
	enum rsw_port_role role;      /* copied from the port; NONE: not part of the fabric */
	int32_t index;                /* leaf downlink: server (a rail switch: su x servers +
				     * server); leaf uplink: p; spine downlink: leaf L
				     * (rail-only: downlink n, rsw_topology_spine_peer);
				     * -1: none */
	bool explicit_ipv4;           /* the port's own ipv4 was kept (it wins) */
	struct rsw_prefix ipv4;       /* the address the port ends up with (if has_ipv4) */
	bool has_ipv4;                /* false only for a port without a role and without ipv4 */
	bool has_peer;                /* peer_* below are set */
	struct rsw_ip peer_ip;        /* server, spine or leaf address at the far end */
	char peer[RSW_NAME_LEN];      /* "server-su0-3", "spine-1", "leaf-su1-r2" */
	char peer_port[RSW_NAME_LEN]; /* "nic1", "down5", "up0" (planner port names) */
};

/* One derived route of this switch. */
struct rsw_topo_route {
	struct rsw_prefix prefix;                 /* masked */
	uint16_t n_nexthops;                      /* 1..RSW_MAX_NEXTHOPS */
	struct rsw_ip nexthops[RSW_MAX_NEXTHOPS]; /* in port file order */
	bool has_port;                            /* next hops leave by port */
	uint16_t port;                            /* index into rsw_config.ports */
};

/* This switch's place and everything derived for it. */
struct rsw_topo_switch {
	char name[RSW_NAME_LEN];  /* "leaf-su0-r1", "spine-0", "spine-r1-0" */
	bool spine;               /* a spine, else a leaf */
	uint32_t su, rail;        /* a leaf's; rail also of a rail-only spine */
	uint32_t spine_idx;       /* a spine's (within its rail for rail-only) */
	struct rsw_prefix subnet; /* a leaf's <a>.<su>.<rail>.0/24 */
	uint16_t n_ports;         /* = rsw_config.n_ports */
	struct rsw_topo_port ports[RSW_MAX_PORTS];
	uint16_t n_routes;
	struct rsw_topo_route routes[RSW_MAX_PORTS + 1];
};

/** "rail-optimized" or "rail-only". */
const char *rsw_topology_design_name(enum rsw_topo_design d);

/** Rail-only with `spines: 0`: each rail is one switch (a leaf named "leaf-r<rail>"). */
bool rsw_topology_rail_switch(const struct rsw_cfg_topology *t);

/** Leaves in the fabric: sus × rails (both designs); rails with `spines: 0` (rail-only). */
uint32_t rsw_topology_n_leaves(const struct rsw_cfg_topology *t);

/**
 * Spine switches per rail: rail-only spreads a rail's sus × spines leaf uplinks over
 * ceil(sus × spines / radix) spines; rail-optimized: spines (the fabric's).
 */
uint32_t rsw_topology_spines_per_rail(const struct rsw_cfg_topology *t);

/** Spines in the fabric: spines (rail-optimized) or rails × spines per rail (rail-only). */
uint32_t rsw_topology_n_spines(const struct rsw_cfg_topology *t);

/** Ports a leaf uses: servers_per_su downlinks + spines uplinks (a rail switch: every NIC
 * of its rail). */
uint32_t rsw_topology_leaf_ports(const struct rsw_cfg_topology *t);

/** Ports the first (the busiest) spine uses: one per leaf (sus × rails); rail-only:
 * ceil(sus × spines / spines per rail). */
uint32_t rsw_topology_spine_ports(const struct rsw_cfg_topology *t);

/** Ports spine p (within its rail for rail-only) uses; rail-only spines differ by at most one. */
uint32_t rsw_topology_spine_ports_of(const struct rsw_cfg_topology *t, uint32_t p);

/**
 * Where uplink p of leaf (su, rail) lands: the spine (within the rail for rail-only) and
 * its downlink port. Rail-only, round-robin over the rail's S spines per rail:
 * k = su × spines + p, spine k mod S, port k div S, so that every leaf has a link to every
 * spine of its rail (parallel links where spines > S).
 */
void rsw_topology_uplink_peer(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail,
			      uint32_t p, uint32_t *spine, uint32_t *port);

/** The reverse: downlink port of spine (rail-only: of rail) -> leaf (su, rail) and its uplink p. */
void rsw_topology_spine_peer(const struct rsw_cfg_topology *t, uint32_t spine, uint32_t port,
			     uint32_t rail, uint32_t *su, uint32_t *leaf_rail, uint32_t *p);

/** Leaf index L of (su, rail): su × rails + rail; rail-only: su (within the rail's plane). */
uint32_t rsw_topology_leaf_index(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail);

/**
 * The /31 of the link between leaf (su, rail) and spine p (within the rail for rail-only):
 * offset 2 × (p × 4096 + L) in fabric_prefix (rail-only: 2 × ((rail × spines + p) × 4096 + L)).
 * The spine takes the even address, the leaf the odd one. Either output may be NULL.
 */
void rsw_topology_link(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail, uint32_t p,
		       struct rsw_prefix *spine_addr, struct rsw_prefix *leaf_addr);

/** Host address <a>.<su>.<rail>.<server + 1>/24 of a server's NIC on rail. */
void rsw_topology_host(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail,
		       uint32_t server, struct rsw_prefix *addr);

/** The leaf's gateway address <a>.<su>.<rail>.254/24 (its downlinks' address). */
void rsw_topology_gateway(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail,
			  struct rsw_prefix *addr);

/** Names: "leaf-su<su>-r<rail>" (a rail switch: "leaf-r<rail>"), "spine-<p>" (rail-only
 * "spine-r<rail>-<p>"), "server-su<su>-<server>". Return buf. */
const char *rsw_topology_leaf_name(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail,
				   char *buf, size_t len);
const char *rsw_topology_spine_name(const struct rsw_cfg_topology *t, uint32_t rail, uint32_t p,
				    char *buf, size_t len);
const char *rsw_topology_server_name(uint32_t su, uint32_t server, char *buf, size_t len);

/**
 * Check the fabric: counts (at least 1 of each, octet limits), gpu_prefix a /8,
 * fabric_prefix big enough for every link and apart from gpu_prefix, every tier within the
 * radix, `this` inside the fabric.
 *
 * @param need_this
 *   `this` is required (a switch's file) rather than optional (a plan).
 * @return 0, or -EINVAL with e filled.
 */
int rsw_topology_check(const struct rsw_cfg_topology *t, bool need_this, struct rsw_topo_error *e);

/* Every error of one topology check (RSW_TOPO_MAX_ERRS kept; n counts them all). */
#define RSW_TOPO_MAX_ERRS 8
struct rsw_topo_errors {
	int n;                                      /* errors found */
	struct rsw_topo_error e[RSW_TOPO_MAX_ERRS]; /* the first ones, in check order */
};

/**
 * Like rsw_topology_check, reporting every independent error: a check whose input had an
 * error is left out, so one mistake gives one message.
 *
 * @return 0, or -EINVAL with errs filled (errs->n > 0).
 */
int rsw_topology_check_all(const struct rsw_cfg_topology *t, bool need_this,
			   struct rsw_topo_errors *errs);

/**
 * Derive this switch's ports and routes from cfg->topology (checked, with `this`) and
 * cfg->ports. A port's ipv4 given in the file (not ipv4_derived) wins over the derived one.
 * Checks the switch against its place: switch.role, more downlinks or uplinks than servers
 * or spines, more ports than the radix, derived addresses overlapping other ports.
 *
 * @return 0, or -EINVAL with e filled (the line of the offending port or key).
 */
int rsw_topology_derive(const struct rsw_config *cfg, struct rsw_topo_switch *out,
			struct rsw_topo_error *e);

/**
 * Fill the ipv4 of every port with a role and no ipv4 of its own (marking it ipv4_derived).
 * The loader calls it after parsing ports, before neighbours and routes.
 *
 * @return 0, or -EINVAL with e filled.
 */
int rsw_topology_apply_ports(struct rsw_config *cfg, struct rsw_topo_error *e);

/**
 * Append the derived routes to cfg->routes (marked derived); a static route with the same
 * prefix wins and the derived one is left out. The loader calls it after parsing routes.
 *
 * @return 0, -ENOMEM, or -EINVAL (too many routes) with e filled.
 */
int rsw_topology_apply_routes(struct rsw_config *cfg, struct rsw_topo_error *e);

/**
 * Local proxy ARP on a leaf's shared downlink subnet. The downlinks of a leaf share
 * <a>.<su>.<rail>.0/24, so a server ARPs for another server of the same leaf directly;
 * railsw routes (no bridging) and must answer such a request with the ingress port's MAC
 * (RFC 1027; Linux proxy_arp_pvlan) so the traffic comes through the switch.
 *
 * @param cfg
 *   A loaded configuration.
 * @param port
 *   The port the ARP request came in on.
 * @param target
 *   The address asked for (not the switch's own).
 * @return
 *   true when target is a server the topology places on another downlink of port's subnet.
 */
bool rsw_topology_proxy_arp(const struct rsw_config *cfg, uint16_t port,
			    const struct rsw_ip *target);

/** The topology: section as JSON, docs/config.md's keys (for `show config`). NULL on ENOMEM. */
json_t *rsw_topology_to_json(const struct rsw_cfg_topology *t);

/**
 * `show topology`: {"design","role","name","this","subnet","ports":[{"name","role","ipv4",
 * "derived","peer"}],"routes":[{"prefix","nexthops","port"}]}, or {"error": "no topology in
 * the configuration"}. NULL on allocation failure.
 */
json_t *rsw_topology_show_json(const struct rsw_config *cfg);

/**
 * The `show topology` command (rsw_cmd_fn): rsw_topology_show_json of the configuration
 * *ctx points to (a struct rsw_config **, so a reload's new configuration is seen).
 */
json_t *rsw_topology_cmd_show(int argc, char **argv, void *ctx);

/**
 * The plan of the whole fabric (`railctl plan`): {"design", ..., "tiers":[{"tier","count",
 * "ports_used","radix","oversubscription"}], "bom":{...} (bom.c: switches, cables, optics,
 * ports used and spare, headroom, capacity after a spine fails), "switches":[{"name","tier",
 * "ports_used","ports_spare",...}], "links":[{"a","a_port","a_ip","b","b_port","b_ip","kind",
 * "speed_bps"}]}. cfg->topology must be present and checked; cfg's ports (if any) give port
 * speeds and `this`.
 *
 * @return a new object, or NULL with e filled (no topology) or on allocation failure.
 */
json_t *rsw_topology_plan_json(const struct rsw_config *cfg, struct rsw_topo_error *e);

#endif /* RSW_TOPOLOGY_H */
