/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Fixtures shared by the load-balance tests (test_flow_hash.c, test_lb.c, test_lb_hash.c):
 * settings-only tables, synthetic IPv4/UDP flows and their parse records, and the mbuf pool.
 */

#ifndef RSW_TEST_LB_COMMON_H
#define RSW_TEST_LB_COMMON_H

#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rsw_fib.h"
#include "rsw_lb.h"
#include "test_common.h"

static struct rte_mempool *pool;

struct flow {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint32_t qp;
};

/*
 * Settings-only tables of n_groups groups and n_nh next hops, all zero but the default hash
 * fields and RSS key: rsw_lb_* read no FIB, and a whole generation (FIBs of about 180 MB)
 * does not fit in -m 256 next to the pool. Freed by lb_tables_free.
 */
static inline struct rsw_tables *
lb_tables_alloc(uint32_t n_groups, uint32_t n_nh)
{
	struct rsw_tables *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->groups = calloc(n_groups, sizeof(*t->groups));
	t->nh = calloc(n_nh, sizeof(*t->nh));
	assert_non_null(t->groups);
	assert_non_null(t->nh);
	t->hash_fields = RSW_HF_DEFAULT;
	memcpy(t->rss_key, rsw_lb_default_rss_key, sizeof(t->rss_key));
	return t;
}

static inline void
lb_tables_free(struct rsw_tables *t)
{
	free(t->groups);
	free(t->nh);
	free(t);
}

/*
 * Write flow f into the IPv4/UDP frame of m and describe it in info, as parse would: the
 * addresses, protocol and ports, the dest QP of a RoCEv2 flow (UDP port 4791); nothing else.
 */
static inline void
flow_write(const struct flow *f, struct rte_mbuf *m, struct rsw_pkt_info *info)
{
	uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
	uint32_t src = rte_cpu_to_be_32(f->src), dst = rte_cpu_to_be_32(f->dst);

	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	memset(info, 0, sizeof(*info));
	info->kind = RSW_PK_IPV4;
	info->l3_off = 14;
	info->proto = IPPROTO_UDP;
	info->flags = RSW_PF_L4;
	info->sport = f->sport;
	info->dport = f->dport;
	if (f->dport == 4791) {
		info->flags |= RSW_PF_BTH;
		info->qp = f->qp;
	}
}

/* An IPv4/UDP RoCEv2 frame from pool, for flows to be written into (flow_write). */
static inline struct rte_mbuf *
flow_mbuf(void)
{
	static const uint8_t mac[6] = {2, 0, 0, 0, 0, 1};
	struct rte_mbuf *m;
	struct ut_frame fr;

	ut_eth(&fr, mac, mac, RTE_ETHER_TYPE_IPV4);
	ut_ipv4(&fr, 0, 64, IPPROTO_UDP, 0, 0, 8 + 12);
	ut_udp(&fr, 0, 4791, 8 + 12);
	ut_bth(&fr, 0x0a, 0, 0);
	m = ut_mbuf(pool, &fr);
	assert_non_null(m);
	return m;
}

#endif /* RSW_TEST_LB_COMMON_H */
