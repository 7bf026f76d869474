/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `lookup DST [--src IP] [--proto udp|tcp|N] [--sport N] [--dport N] [--qp N] [--dscp N]
 * [--in PORT]` (docs/cli.md): what the workers would do with that frame now. The words are
 * parsed here, without DPDK, by the switch (lookup.c) and by railctl, which refuses bad
 * words itself with a usage message.
 */

#ifndef RSW_LOOKUP_H
#define RSW_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsw_config.h"

#define RSW_LOOKUP_USAGE                                                                           \
	"DST [--src IP] [--proto udp|tcp|N] [--sport N] [--dport N] [--qp N] [--dscp N] "          \
	"[--in PORT]"

/* One lookup's frame. */
struct rsw_lookup_req {
	struct rsw_ip dst;
	struct rsw_ip src;     /* 0.0.0.0 or :: unless --src */
	bool has_src;          /* --src given */
	uint8_t proto;         /* default UDP (17) */
	uint16_t sport, dport; /* default 0 */
	uint32_t qp;           /* RoCEv2 dest QP (24 bits), with --dport 4791 */
	uint8_t dscp;          /* default 0 */
	char in[RSW_NAME_LEN]; /* --in PORT, "" when not given */
};

/**
 * Parse the words after `lookup` into req.
 *
 * @return 0, or -EINVAL with the reason in err (e.g. "'--dscp' must be 0..63 (got 64)").
 */
int rsw_lookup_parse(int argc, char **argv, struct rsw_lookup_req *req, char *err, size_t errlen);

#endif /* RSW_LOOKUP_H */
