/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 3 of the packet path: CNP coalescing (qos.cnp.coalesce_us), a
 * direct-mapped table of the last CNP per (destination IP, dest QP) in the
 * worker's own slot. The class map itself is inline (rsw_classify.h).
 */

#include <string.h>

#include <rte_hash_crc.h>
#include <rte_ip.h>

#include "rsw_classify.h"

/* One entry per (dst, qp) hash: a collision only lets a CNP through early. */
bool
rsw_cnp_coalesced(const struct rsw_tables *t, struct rsw_lb_lcore *ls, const struct rte_mbuf *m,
		  const struct rsw_pkt_info *info, uint64_t now)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, info->l3_off);
	uint32_t key = info->qp;
	struct rsw_cnp_seen *e;

	if (info->kind == RSW_PK_IPV4) {
		key = rte_hash_crc_4byte(((const struct rte_ipv4_hdr *)l3)->dst_addr, key);
	} else {
		/* rte_hash_crc reads 8-byte words: hash an aligned copy (tags shift the header). */
		uint64_t dst[2];

		memcpy(dst, ((const struct rte_ipv6_hdr *)l3)->dst_addr, sizeof(dst));
		key = rte_hash_crc(dst, sizeof(dst), key);
	}
	e = &ls->cnp[key & (RSW_CNP_COALESCE_ENTRIES - 1)];
	if (e->valid && e->key == key && now - e->last < t->qos.cnp_coalesce_ticks)
		return true;
	e->key = key;
	e->valid = 1;
	e->last = now;
	return false;
}
