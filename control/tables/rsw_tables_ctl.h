/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Table building (tables.c): a generation of FIB, next hops, groups and settings
 * from a configuration.
 */

#ifndef RSW_TABLES_CTL_H
#define RSW_TABLES_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsw_config.h"
#include "rsw_fib.h"
#include "rsw_qos_cfg.h"

/* Administrative distances (docs/routing.md "Route precedence"). */
#define RSW_DISTANCE_CONNECTED 0
#define RSW_DISTANCE_STATIC    1
#define RSW_DISTANCE_TOPOLOGY  5

/*
 * A route of a routing daemon (FPM) that every build adds to the configuration's. The
 * source owns it; rsw_ctl_tables_build reads r and writes active.
 */
struct rsw_ctl_route {
	struct rsw_cfg_route r; /* prefix, next hops (gateways as received), weights; lb unset */
	const char *source;     /* "bgp", "ospf", ...: `show routes` source */
	uint8_t distance;       /* administrative distance; lower wins */
	bool active;            /* written by the last build: in its FIB, with >= 1 next hop */
	uint16_t n_resolved;    /* written by the last build: next hops a port reaches */
};

/* The routes of a routing daemon: rsw_ctl_tables_build calls count, then get(0..count-1). */
struct rsw_ctl_route_source {
	uint32_t (*count)(void);
	struct rsw_ctl_route *(*get)(uint32_t i);
	struct rsw_ctl_route *(*find)(const struct rsw_prefix *p); /* NULL: none for p */
};

/** Make s (NULL: none) the routes every later build adds. Control thread only. */
void rsw_ctl_tables_set_source(const struct rsw_ctl_route_source *s);

/** Routes of the route source now (0 without one). */
uint32_t rsw_ctl_tables_source_count(void);

/** Route i of the route source (i < rsw_ctl_tables_source_count()). */
const struct rsw_ctl_route *rsw_ctl_tables_source_get(uint32_t i);

/** The distance of a configuration route: its `distance:`, else static 1, topology 5. */
uint8_t rsw_ctl_cfg_route_distance(const struct rsw_cfg_route *r);

/**
 * Whether configuration route i of cfg is the active entry of its prefix: no connected or
 * local route and no active routing-daemon route (of the last build) has its prefix.
 */
bool rsw_ctl_cfg_route_active(const struct rsw_config *cfg, uint32_t i);

/**
 * The next hop of member j of group g of t, from the member's neighbour entry.
 * @return 0, or -ENOENT (no such member).
 */
int rsw_ctl_group_nexthop(const struct rsw_tables *t, uint32_t g, uint32_t j, struct rsw_ip *ip);

/**
 * Build a generation of tables from cfg: connected and local routes per port address,
 * static routes and the route source's routes (rsw_ctl_tables_set_source) as next-hop
 * groups, the lowest distance winning for a prefix (connected and local always win), QoS
 * and load-balance settings. Creates the neighbour entries next hops need (static ones
 * resolved). A route-source route that cannot be installed (no next hop a port reaches, no
 * group or neighbour left) is left out and marked inactive, never an error. Built on the
 * retired generation (rsw_tables_recycle), or on new FIBs when that one cannot take it.
 * Control thread only.
 * @return the tables, or NULL with a message in err.
 */
struct rsw_tables *rsw_ctl_tables_build(const struct rsw_config *cfg, uint64_t generation,
					char *err, size_t errlen);

#endif /* RSW_TABLES_CTL_H */
