/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Fixtures of the tests of rsw_lb_select (test_lb.c, test_lb_hash.c): settings-only tables
 * of N_GROUPS groups built by hand (group_new), two workers' zeroed state, distinct flows and
 * an elephant flow, each packet written into one frame (mbuf, made by the group set-up) and
 * picked as the load-balance step picks it.
 */

#ifndef RSW_TEST_LB_SELECT_H
#define RSW_TEST_LB_SELECT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_random.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
#include "test_lb_common.h"

#define N_GROUPS 4
#define TC       3
#define TICKS    1000 /* flowlet timeout of the fake clock */

static struct rte_mbuf *mbuf; /* one IPv4/UDP frame, rewritten per flow */
/* Two workers' load-balancing state (about 100 KB each: not on the stack). */
static struct rsw_lb_lcore ls_a, ls_b;

/* Settings-only tables of N_GROUPS groups: default mode hash, no per-TC override. */
static inline struct rsw_tables *
lb_tables_new(void)
{
	struct rsw_tables *t = lb_tables_alloc(N_GROUPS, N_GROUPS * RSW_MAX_NEXTHOPS);
	unsigned int i;

	t->n_groups = N_GROUPS;
	t->lb_mode = RSW_LB_HASH;
	for (i = 0; i < RSW_N_TC; i++)
		t->lb_per_tc[i] = RSW_LB_UNSET;
	t->flowlet_ticks = TICKS;
	return t;
}

/* Group gid of t with n members on ports 0..n-1, weights (NULL = equal), no route mode. */
static inline struct rsw_group *
group_new(struct rsw_tables *t, uint32_t gid, uint16_t n, const uint32_t *weights)
{
	struct rsw_group *g = &t->groups[gid];
	uint16_t i;

	memset(g, 0, sizeof(*g));
	g->n_members = n;
	g->lb_mode = RSW_LB_UNSET;
	for (i = 0; i < n; i++) {
		g->members[i] = gid * RSW_MAX_NEXTHOPS + i;
		g->ports[i] = i;
		t->nh[g->members[i]].port = i;
	}
	rsw_group_fill_buckets(g, weights);
	return g;
}

/* Write flow f into the frame of mbuf and describe it in info, as parse and classify would. */
static inline void
flow_to_pkt(const struct flow *f, uint8_t tc, struct rsw_pkt_info *info)
{
	flow_write(f, mbuf, info);
	info->tc = tc;
	info->ttl = 64;
}

/* The member rsw_lb_select picks for one packet of flow f. */
static inline uint32_t
pick(const struct rsw_tables *t, uint32_t gid, const struct flow *f, uint8_t tc,
     struct rsw_lb_lcore *ls, uint64_t now)
{
	struct rsw_pkt_info info;

	flow_to_pkt(f, tc, &info);
	return rsw_lb_select(t, &t->groups[gid], gid, mbuf, &info, ls, now);
}

/* The hash mode's member of flow f, computed without rsw_lb_select. */
static inline uint32_t
hash_member(const struct rsw_tables *t, uint32_t gid, const struct flow *f)
{
	struct rsw_pkt_info info;

	flow_to_pkt(f, 0, &info);
	return rsw_lb_pick_hash(&t->groups[gid], rsw_lb_hash(t, mbuf, &info));
}

/* Flow i of a set of distinct flows, half of them RoCEv2. */
static inline struct flow
flow_n(uint32_t i)
{
	struct flow f = {
		.src = 0x0a010000 | (i & 0xffff),
		.dst = 0x0a640000 | ((i * 2654435761u) >> 16),
		.sport = (uint16_t)(49152 + (i * 7919u) % 16384),
		.dport = i % 2 ? 4791 : 5001,
		.qp = (i * 40503u) & 0xffffff,
	};

	return f;
}

/* The elephant flow of the spray tests: one 5-tuple for every packet. */
static const struct flow elephant = {
	.src = 0x0a010001, .dst = 0x0a640042, .sport = 49999, .dport = 4791, .qp = 0x1234};

static inline void
lb_reset(void)
{
	memset(&ls_a, 0, sizeof(ls_a));
	memset(&ls_b, 0, sizeof(ls_b));
	memset(rsw_lb_down, 0, sizeof(rsw_lb_down));
	memset(rsw_qos.port, 0, sizeof(rsw_qos.port));
	rte_srand(0x5eed);
}

/* Group set-up and tear-down: the frame of mbuf. */
static inline int
setup(void **state)
{
	(void)state;
	mbuf = flow_mbuf();
	return 0;
}

static inline int
teardown(void **state)
{
	(void)state;
	rte_pktmbuf_free(mbuf);
	return 0;
}

#endif /* RSW_TEST_LB_SELECT_H */
