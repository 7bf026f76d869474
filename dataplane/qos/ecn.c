/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * ECN marking (RFC 3168) for the WRED/DCQCN curve of the admit step (docs/qos.md):
 * ECT(0) and ECT(1) become CE; the IPv4 header checksum is updated
 * incrementally (RFC 1624); IPv6 has none.
 */

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "rsw_ecn.h"
#include "rsw_parse.h"

int
rsw_ecn_mark(struct rte_mbuf *m, uint16_t l3_off, uint8_t kind)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, l3_off);

	if (kind == RSW_PK_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		uint8_t tos = ip->type_of_service;
		uint16_t old;

		if ((tos & 3) == 0)
			return -1;
		if ((tos & 3) == 3)
			return 0;
		old = rte_cpu_to_be_16((uint16_t)(ip->version_ihl << 8 | tos));
		ip->type_of_service = tos | 3;
		ip->hdr_checksum = rsw_cksum_update16(
			ip->hdr_checksum, old,
			rte_cpu_to_be_16((uint16_t)(ip->version_ihl << 8 | ip->type_of_service)));
		return 1;
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;
		uint32_t vtc = rte_be_to_cpu_32(ip->vtc_flow);
		uint32_t ecn = (vtc >> 20) & 3;

		if (ecn == 0)
			return -1;
		if (ecn == 3)
			return 0;
		ip->vtc_flow = rte_cpu_to_be_32(vtc | (3u << 20));
		return 1;
	}
}
