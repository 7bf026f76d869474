/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The output forms of `railctl plan` (docs/topology.md), each from the plan's JSON
 * (rsw_topology_plan_json): for people (plan_text.c), as CSV, Graphviz or containerlab
 * (plan_export.c), and as one configuration per switch (plan_configs.c, plan_frr.c).
 * plan.c reads the arguments and picks one. Each returns the exit status.
 */

#ifndef RSW_RAILCTL_PLAN_H
#define RSW_RAILCTL_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* plan_text.c */
/* The plan for people: the summary (tiers, bill of materials, capacity), then unless
 * summary_only the switches and one line per cable. */
void railctl_plan_print(json_t *plan, bool summary_only);
/* The summary as JSON: the plan without "switches" and "links" (a new reference). */
json_t *railctl_plan_summary_json(json_t *plan);
/* One switch (or server): its entry, its ports and cables. Exit 1 when the plan has no box
 * of that name. */
int railctl_plan_switch(json_t *plan, const char *name, bool json);
/* "400G", "25G", "100M" (NULL or 0: "") into buf. */
const char *railctl_plan_speed(json_t *bps, char *buf, size_t len);
/* The plan's string at key ("" when absent). */
const char *railctl_plan_str(json_t *o, const char *key);

/* plan_export.c */
void railctl_plan_csv(json_t *plan);
void railctl_plan_dot(json_t *plan);
/* name: the lab's name; image: the switches' container image. */
void railctl_plan_containerlab(json_t *plan, const char *name, const char *image);

/* plan_configs.c: DIR/SWITCH.yaml per switch (and with bgp DIR/SWITCH.frr.conf).
 * file: the topology file (named in the comments). */
int railctl_plan_configs(json_t *plan, const char *file, const char *dir, bool bgp);

/* plan_frr.c: the FRR configuration of one switch of a BGP fabric (unnumbered eBGP, BFD):
 * RFC 7938's ASN plan, as the lab's: spines 65000, leaf i (plan order) 65001 + i. */
char *railctl_plan_frr(json_t *plan, const char *name);
/* The switch's ASN and router ID ("10.255.<255 - i / 250>.<i % 250 + 1>", i its plan index). */
uint32_t railctl_plan_asn(json_t *plan, const char *name);
void railctl_plan_router_id(json_t *plan, const char *name, char *buf, size_t len);

#endif /* RSW_RAILCTL_PLAN_H */
