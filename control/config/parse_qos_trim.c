/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * qos.trim (UEC packet trimming) and qos.cnp (the class RoCEv2 CNPs travel in).
 */

#include <errno.h>

#include "config_priv.h"

enum {
	TRIM_TCS,
	TRIM_THRESHOLD,
	TRIM_SIZE,
	TRIM_DSCP,
	TRIM_DSCP_LASTHOP,
	TRIM_TC,
	TRIM_N,
};

static const char *const trim_keys[TRIM_N] = {
	[TRIM_TCS] = "tcs",   [TRIM_THRESHOLD] = "threshold",       [TRIM_SIZE] = "size",
	[TRIM_DSCP] = "dscp", [TRIM_DSCP_LASTHOP] = "dscp_lasthop", [TRIM_TC] = "tc",
};

enum {
	CNP_TC,
	CNP_COALESCE,
	CNP_N,
};

static const char *const cnp_keys[CNP_N] = {[CNP_TC] = "tc", [CNP_COALESCE] = "coalesce_us"};

#define CFG_MIN_TRIM_SIZE 78 /* untagged IPv6 + UDP + UET PDS (24) */
#define CFG_MAX_COALESCE  1000000

/*
 * qos.trim: UEC packet trimming. tcs, dscp and tc are required; a TC cannot be both
 * trim-eligible and lossless, and the trim class must be lossy and not strict.
 */
int
cfg_parse_trim(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int line)
{
	static const int required[] = {TRIM_TCS, TRIM_DSCP, TRIM_TC};
	int tcs_lines[RSW_N_TC] = {0};
	struct kv kv[TRIM_N];
	int64_t v;
	unsigned int i;
	int t;

	if (cfg_get_map(c, n, "qos.trim", trim_keys, TRIM_N, kv) < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (kv[required[i]].v == NULL)
			return cfg_fail(c, line, "missing required key '%s' in 'qos.trim'",
					trim_keys[required[i]]);
	if (cfg_parse_tc_list(c, kv[TRIM_TCS].v, "trim.tcs", NULL, NULL, &q->trim.tcs, tcs_lines) <
	    0)
		return -EINVAL;
	if (q->trim.tcs == 0)
		return cfg_fail(c, kv[TRIM_TCS].line, "'trim.tcs' must list at least one TC");
	q->trim.threshold = 256 * CFG_KB;
	if (kv[TRIM_THRESHOLD].v != NULL && cfg_get_size(c, kv[TRIM_THRESHOLD].v, "trim.threshold",
							 1, CFG_MAX_SIZE, &q->trim.threshold) < 0)
		return -EINVAL;
	q->trim.size = 128;
	if (kv[TRIM_SIZE].v != NULL) {
		if (cfg_get_int(c, kv[TRIM_SIZE].v, "trim.size", CFG_MIN_TRIM_SIZE, CFG_MAX_MTU,
				&v) < 0)
			return -EINVAL;
		q->trim.size = (uint16_t)v;
	}
	if (cfg_get_int(c, kv[TRIM_DSCP].v, "trim.dscp", 0, 63, &v) < 0)
		return -EINVAL;
	q->trim.dscp = (uint8_t)v;
	if (kv[TRIM_DSCP_LASTHOP].v != NULL) {
		if (cfg_get_int(c, kv[TRIM_DSCP_LASTHOP].v, "trim.dscp_lasthop", 0, 63, &v) < 0)
			return -EINVAL;
		q->trim.dscp_lasthop = (uint8_t)v;
		q->trim.has_dscp_lasthop = true;
	}
	if (cfg_get_tc(c, kv[TRIM_TC].v, "trim.tc", "value", &t) < 0)
		return -EINVAL;
	q->trim.tc = (uint8_t)t;
	for (t = 0; t < RSW_N_TC; t++)
		if ((q->trim.tcs & q->lossless) & (1u << t))
			return cfg_fail(
				c, tcs_lines[t],
				"TC %d cannot be both trim-eligible ('trim.tcs') and lossless", t);
	if (q->lossless & (1u << q->trim.tc))
		return cfg_fail(c, kv[TRIM_TC].line,
				"'trim.tc' %u is lossless: trimmed packets need a lossy class",
				q->trim.tc);
	for (i = 0; i < q->n_strict; i++)
		if (q->strict[i] == q->trim.tc)
			return cfg_fail(
				c, kv[TRIM_TC].line,
				"'trim.tc' %u is strict priority: trimmed packets need a DWRR class",
				q->trim.tc);
	q->trim.enabled = true;
	return 0;
}

/* qos.cnp: the class RoCEv2 CNPs travel in, and optional coalescing. */
int
cfg_parse_cnp(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int line)
{
	struct kv kv[CNP_N];
	int t;

	if (cfg_get_map(c, n, "qos.cnp", cnp_keys, CNP_N, kv) < 0)
		return -EINVAL;
	if (kv[CNP_TC].v == NULL)
		return cfg_fail(c, line, "missing required key 'tc' in 'qos.cnp'");
	if (cfg_get_tc(c, kv[CNP_TC].v, "cnp.tc", "value", &t) < 0)
		return -EINVAL;
	q->cnp.tc = (uint8_t)t;
	if (kv[CNP_COALESCE].v != NULL && cfg_get_u32(c, kv[CNP_COALESCE].v, "cnp.coalesce_us", 0,
						      CFG_MAX_COALESCE, &q->cnp.coalesce_us) < 0)
		return -EINVAL;
	q->cnp.enabled = true;
	return 0;
}
