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

/* bom.c: the counts of a fabric's bill of materials (a fraction < 0: none). */
struct topo_bom {
	uint32_t leaves, spines;
	uint64_t server_leaf, leaf_spine; /* cables */
	uint64_t leaf_used, spine_used;   /* switch ports */
	uint64_t used, spare, total;      /* switch ports: total = switches x radix */
	double after_spine_loss;          /* leaf-spine capacity left, one spine down */
	double leaf_after_spine_loss;     /* one leaf's uplinks left, worst case */
	uint32_t leaf_spare, spine_spare; /* per switch (the busiest spine) */
	uint32_t more_sus, more_servers;  /* growth the spare ports allow */
};
void topo_bom_counts(const struct rsw_cfg_topology *t, struct topo_bom *b);
/* The plan's "bom" object; NULL on allocation failure. */
json_t *topo_plan_bom(const struct rsw_cfg_topology *t, uint64_t down_bps, uint64_t up_bps);

#endif /* RSW_TOPOLOGY_PRIV_H */
