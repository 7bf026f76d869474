/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the files of topology/ share: the error helper and IPv4 arithmetic on struct
 * rsw_prefix (fabric.c). Nothing outside topology/ includes it; the public API is
 * rsw_topology.h.
 */

#ifndef RSW_TOPOLOGY_PRIV_H
#define RSW_TOPOLOGY_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "rsw_topology.h"

#define PREFIX_STR_LEN 48 /* "255.255.255.255/32" and IPv6 */

/* fabric.c */

/* Fill e (when not NULL) with line and the message; returns -EINVAL. */
int topo_terr(struct rsw_topo_error *e, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The line of key k, else of 'topology:'. */
int topo_kline(const struct rsw_cfg_topology *t, enum rsw_topo_key k);
/* An IPv4 address as a host-order integer. */
uint32_t topo_ip4_get(const struct rsw_ip *ip);
/* Whether two IPv4 prefixes (host bits ignored) share an address. */
bool topo_overlap4(const struct rsw_prefix *a, const struct rsw_prefix *b);
bool topo_prefix_equal(const struct rsw_prefix *a, const struct rsw_prefix *b);
/* A leaf's <a>.<su>.<rail>.0/24. */
void topo_leaf_subnet(const struct rsw_cfg_topology *t, uint32_t su, uint32_t rail,
		      struct rsw_prefix *p);

#endif /* RSW_TOPOLOGY_PRIV_H */
