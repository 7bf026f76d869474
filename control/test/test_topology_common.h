/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the topology tests (test_topology.c, test_topology_json.c) share: the switches'
 * files they start from (a leaf and a spine of the 2-SU rail-optimized fabric, a leaf and a
 * spine of a rail-only one) and rep, which edits one of them. Include after cmocka.h.
 */

#ifndef RSW_TEST_TOPOLOGY_COMMON_H
#define RSW_TEST_TOPOLOGY_COMMON_H

#include <stdio.h>
#include <string.h>

/* src with the first occurrence of old replaced by new (rotating static buffers: nest freely). */
static const char *
rep(const char *src, const char *old, const char *new)
{
	static char buf[4][8192];
	static int n;
	const char *at = strstr(src, old);

	assert_non_null(at);
	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "%.*s%s%s", (int)(at - src), src, new, at + strlen(old));
	return buf[n];
}

/* A leaf of the 2-SU rail-optimized fabric of config/fabric-2su-leaf.yaml; lines as numbered. */
#define LEAF                                                                                       \
	"switch:\n"                                       /* 1 */                                  \
	"  name: l1\n"                                    /* 2 */                                  \
	"ports:\n"                                        /* 3 */                                  \
	"  - { name: d0, devargs: t0, role: downlink }\n" /* 4 */                                  \
	"  - { name: d1, devargs: t1, role: downlink }\n" /* 5 */                                  \
	"  - { name: d2, devargs: t2, role: downlink }\n" /* 6 */                                  \
	"  - { name: d3, devargs: t3, role: downlink }\n" /* 7 */                                  \
	"  - { name: u0, devargs: t4, role: uplink }\n"   /* 8 */                                  \
	"  - { name: u1, devargs: t5, role: uplink }\n"   /* 9 */                                  \
	"topology:\n"                                     /* 10 */                                 \
	"  design: rail-optimized\n"                      /* 11 */                                 \
	"  sus: 2\n"                                      /* 12 */                                 \
	"  servers_per_su: 4\n"                           /* 13 */                                 \
	"  rails: 4\n"                                    /* 14 */                                 \
	"  spines: 2\n"                                   /* 15 */                                 \
	"  radix: 64\n"                                   /* 16 */                                 \
	"  this: { su: 0, rail: 1 }\n"                    /* 17 */                                 \
	"  gpu_prefix: 10.0.0.0/8\n"                      /* 18 */                                 \
	"  fabric_prefix: 172.16.0.0/12\n"                /* 19 */

/* spine-1 of the same fabric: one downlink per leaf, L = 0..7. */
#define SPINE                                                                                      \
	"switch:\n"                                                                                \
	"  name: s1\n"                                                                             \
	"  role: spine\n"                                                                          \
	"ports:\n"                                                                                 \
	"  - { name: l0, devargs: t0, role: downlink }\n"                                          \
	"  - { name: l1, devargs: t1, role: downlink }\n"                                          \
	"  - { name: l2, devargs: t2, role: downlink }\n"                                          \
	"  - { name: l3, devargs: t3, role: downlink }\n"                                          \
	"  - { name: l4, devargs: t4, role: downlink }\n"                                          \
	"  - { name: l5, devargs: t5, role: downlink }\n"                                          \
	"  - { name: l6, devargs: t6, role: downlink }\n"                                          \
	"  - { name: l7, devargs: t7, role: downlink }\n"                                          \
	"topology:\n"                                                                              \
	"  design: rail-optimized\n"                                                               \
	"  sus: 2\n"                                                                               \
	"  servers_per_su: 4\n"                                                                    \
	"  rails: 4\n"                                                                             \
	"  spines: 2\n"                                                                            \
	"  this: { spine: 1 }\n"

/* Rail-only: 2 SUs x 4 servers, 4 rails, 2 spines per rail; leaf su 1 of rail 2. */
#define RO_LEAF                                                                                    \
	"switch:\n"                                                                                \
	"  name: ro\n"                                                                             \
	"ports:\n"                                                                                 \
	"  - { name: d0, devargs: t0, role: downlink }\n"                                          \
	"  - { name: d1, devargs: t1, role: downlink }\n"                                          \
	"  - { name: u0, devargs: t2, role: uplink }\n"                                            \
	"  - { name: u1, devargs: t3, role: uplink }\n"                                            \
	"topology:\n"                                                                              \
	"  design: rail-only\n"                                                                    \
	"  sus: 2\n"                                                                               \
	"  servers_per_su: 4\n"                                                                    \
	"  rails: 4\n"                                                                             \
	"  spines: 2\n"                                                                            \
	"  this: { su: 1, rail: 2 }\n"

/* Its rail's only spine: 2 SUs x 2 uplinks packed on spine-r2-0 (parallel links). */
#define RO_SPINE                                                                                   \
	"switch:\n"                                                                                \
	"  name: ros\n"                                                                            \
	"  role: spine\n"                                                                          \
	"ports:\n"                                                                                 \
	"  - { name: l0, devargs: t0, role: downlink }\n"                                          \
	"  - { name: l1, devargs: t1, role: downlink }\n"                                          \
	"  - { name: l2, devargs: t2, role: downlink }\n"                                          \
	"  - { name: l3, devargs: t3, role: downlink }\n"                                          \
	"topology:\n"                                                                              \
	"  design: rail-only\n"                                                                    \
	"  sus: 2\n"                                                                               \
	"  servers_per_su: 4\n"                                                                    \
	"  rails: 4\n"                                                                             \
	"  spines: 2\n"                                                                            \
	"  this: { rail: 2, spine: 0 }\n"

#endif /* RSW_TEST_TOPOLOGY_COMMON_H */
