/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the dataplane and the control thread share: limits, the traffic-class count, the
 * load-balancing and hashing enums, addresses and prefixes. The dataplane's own headers take
 * these from here, never from the configuration (control/config/rsw_config.h includes this
 * file and adds what only the loader needs).
 */

#ifndef RSW_DEFS_H
#define RSW_DEFS_H

#include <stdint.h>

#define RSW_MAX_PORTS     32      /* Debian's DPDK build: RTE_MAX_ETHPORTS */
#define RSW_N_TC          8       /* traffic classes per port */
#define RSW_MAX_NEIGHBORS 4096    /* static + learned neighbours */
#define RSW_MAX_ROUTES    1048576 /* static routes per family (1M; FIBs sized per config) */
#define RSW_MAX_NEXTHOPS  16      /* members of one route's next-hop group */
#define RSW_MAX_GROUPS    1024    /* distinct next-hop groups (routes with equal ones share) */
#define RSW_MAX_FIB4_TBL8 4096    /* /24 blocks holding IPv4 routes longer than /24 */
#define RSW_NAME_LEN      32      /* switch and port names, NUL included */

enum rsw_family {
	RSW_AF_INET = 4,
	RSW_AF_INET6 = 6,
};

/* An IPv4 or IPv6 address; v4 lives in addr[0..3] in network order. */
struct rsw_ip {
	uint8_t family; /* RSW_AF_INET or RSW_AF_INET6 */
	uint8_t addr[16];
};

struct rsw_prefix {
	struct rsw_ip ip; /* host bits are zero after loading */
	uint8_t len;
};

enum rsw_lb_mode {
	RSW_LB_UNSET = -1, /* per-route / per-TC: use the next level */
	RSW_LB_HASH = 0,
	RSW_LB_SPRAY,
	RSW_LB_ADAPTIVE,
	RSW_LB_FLOWLET,
};

/* Bits of load_balance.hash_fields (rsw_cfg_lb, rsw_tables.hash_fields). */
#define RSW_HF_SRC_IP      (1u << 0)
#define RSW_HF_DST_IP      (1u << 1)
#define RSW_HF_PROTO       (1u << 2)
#define RSW_HF_SRC_PORT    (1u << 3)
#define RSW_HF_DST_PORT    (1u << 4)
#define RSW_HF_ROCE_QP     (1u << 5)
#define RSW_HF_UET_ENTROPY (1u << 6)
#define RSW_HF_FLOW_LABEL  (1u << 7)
#define RSW_HF_DEFAULT                                                                             \
	(RSW_HF_SRC_IP | RSW_HF_DST_IP | RSW_HF_PROTO | RSW_HF_SRC_PORT | RSW_HF_DST_PORT |        \
	 RSW_HF_ROCE_QP)

enum rsw_hash_alg {
	RSW_HASH_CRC32 = 0,
	RSW_HASH_TOEPLITZ,
	RSW_HASH_NIC, /* the mbuf's RSS hash (RTE_MBUF_F_RX_RSS_HASH), else CRC32 */
};

enum rsw_spray_mode {
	RSW_SPRAY_RR = 0,
	RSW_SPRAY_RANDOM,
};

enum rsw_trust {
	RSW_TRUST_DSCP = 0,
	RSW_TRUST_PCP,
};

#endif /* RSW_DEFS_H */
