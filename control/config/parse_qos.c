/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The qos: section: trust, the DSCP and PCP maps, the scheduler and the lossless TCs; it hands
 * buffer, ECN, watchdog, trim and CNP to their parsers and checks the buffer reserve.
 */

#include <errno.h>
#include <stdio.h>

#include "config_priv.h"

enum {
	Q_TRUST,
	Q_DSCP,
	Q_PCP,
	Q_DEFAULT_TC,
	Q_SCHEDULER,
	Q_LOSSLESS,
	Q_BUFFER,
	Q_ECN,
	Q_ECN_MARK,
	Q_PFCWD,
	Q_TRIM,
	Q_CNP,
	Q_N,
};

static const char *const qos_keys[Q_N] = {
	[Q_TRUST] = "trust",
	[Q_DSCP] = "dscp_to_tc",
	[Q_PCP] = "pcp_to_tc",
	[Q_DEFAULT_TC] = "default_tc",
	[Q_SCHEDULER] = "scheduler",
	[Q_LOSSLESS] = "lossless",
	[Q_BUFFER] = "buffer",
	[Q_ECN] = "ecn",
	[Q_ECN_MARK] = "ecn_mark_point",
	[Q_PFCWD] = "pfc_watchdog",
	[Q_TRIM] = "trim",
	[Q_CNP] = "cnp",
};

const char *const cfg_trust_names[] = {[RSW_TRUST_DSCP] = "dscp", [RSW_TRUST_PCP] = "pcp"};

const char *const cfg_ecn_mark_names[] = {"dequeue", "enqueue"};

enum {
	SCH_STRICT,
	SCH_DWRR,
	SCH_N,
};

static const char *const sched_keys[SCH_N] = {[SCH_STRICT] = "strict", [SCH_DWRR] = "dwrr"};

/* scheduler: { strict: [TC...], dwrr: { TC: weight } }. */
static int
parse_scheduler(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q)
{
	int strict_lines[RSW_N_TC] = {0};
	uint8_t strict = 0, dwrr_listed = 0;
	struct kv kv[SCH_N];
	yaml_node_pair_t *p;
	int tc;

	if (cfg_get_map(c, n, "qos.scheduler", sched_keys, SCH_N, kv) < 0)
		return -EINVAL;
	if (kv[SCH_STRICT].v != NULL &&
	    cfg_parse_tc_list(c, kv[SCH_STRICT].v, "scheduler.strict", q->strict, &q->n_strict,
			      &strict, strict_lines) < 0)
		return -EINVAL;
	if (kv[SCH_DWRR].v != NULL && !cfg_is_null(kv[SCH_DWRR].v)) {
		n = kv[SCH_DWRR].v;
		if (n->type != YAML_MAPPING_NODE)
			return cfg_fail(c, cfg_line_of(n),
					"'scheduler.dwrr' must be a mapping of TC to weight");
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = cfg_node_at(c, p->key);
			char key[CFG_KEY_LEN];

			if (cfg_get_tc(c, kn, "scheduler.dwrr", "key", &tc) < 0)
				return -EINVAL;
			if (dwrr_listed & (1u << tc))
				return cfg_fail(c, cfg_line_of(kn), "duplicate key '%s'",
						cfg_sval(kn));
			if (strict & (1u << tc))
				return cfg_fail(
					c, cfg_line_of(kn),
					"TC %d is in both 'scheduler.strict' (line %d) and 'scheduler.dwrr'",
					tc, strict_lines[tc]);
			dwrr_listed |= (uint8_t)(1u << tc);
			snprintf(key, sizeof(key), "scheduler.dwrr.%d", tc);
			if (cfg_get_u32(c, cfg_node_at(c, p->value), key, 1, CFG_MAX_DWRR,
					&q->dwrr[tc]) < 0)
				return -EINVAL;
		}
	}
	/* A strict TC has no DWRR weight; an unlisted other TC weighs 1 (set_defaults). */
	for (tc = 0; tc < RSW_N_TC; tc++)
		if (strict & (1u << tc))
			q->dwrr[tc] = 0;
	return 0;
}

/* dscp_to_tc / pcp_to_tc: { code: tc }; listed[] marks the codes given. */
static int
parse_tc_map(struct ctx *c, yaml_node_t *n, const char *key, const char *code, int max,
	     uint8_t *map, bool *listed)
{
	yaml_node_pair_t *p;
	int64_t k, tc;

	if (cfg_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a mapping of %s to TC", key, code);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = cfg_node_at(c, p->key), *vn = cfg_node_at(c, p->value);
		const char *s;

		if (cfg_map_scalar_key(c, kn, key) < 0)
			return -EINVAL;
		if (!cfg_parse_i64(cfg_sval(kn), &k))
			return cfg_fail(c, cfg_line_of(kn),
					"'%s' keys must be %s values 0-%d (got '%.32s')", key, code,
					max, cfg_sval(kn));
		if (k < 0 || k > max)
			return cfg_fail(c, cfg_line_of(kn),
					"'%s' key must be a %s between 0 and %d (got %lld)", key,
					code, max, (long long)k);
		if (listed[k])
			return cfg_fail(c, cfg_line_of(kn), "duplicate key '%s'", cfg_sval(kn));
		if (cfg_get_scalar(c, vn, key, "a mapping of code to TC", &s) < 0)
			return -EINVAL;
		if (!cfg_parse_i64(s, &tc))
			return cfg_fail(c, cfg_line_of(vn),
					"'%s' value must be an integer TC (got '%.32s')", key, s);
		if (tc < 0 || tc >= RSW_N_TC)
			return cfg_fail(c, cfg_line_of(vn),
					"'%s' value must be a TC between 0 and 7 (got %lld)", key,
					(long long)tc);
		listed[k] = true;
		map[k] = (uint8_t)tc;
	}
	return 0;
}

/*
 * Every (port, lossless TC) reserves its headroom out of buffer.total, and in static mode its
 * xoff too (the bytes it may hold before PFC stops the sender): the sum must fit.
 */
static int
check_reserve(struct ctx *c, const struct rsw_cfg_qos *q, int line)
{
	uint64_t per = q->pfc.headroom + (q->pfc.dynamic ? 0 : q->pfc.xoff);
	uint64_t reserve = per * c->cfg->n_ports * (uint64_t)__builtin_popcount(q->lossless);
	char a[32], b[32];

	if (reserve <= q->buffer_total)
		return 0;
	return cfg_fail(
		c, line,
		"buffer.total %s is too small: the lossless TCs of %u port%s reserve %s (%s per port and TC)",
		cfg_size_str(q->buffer_total, a, sizeof(a)), c->cfg->n_ports,
		c->cfg->n_ports == 1 ? "" : "s", cfg_size_str(reserve, b, sizeof(b)),
		q->pfc.dynamic ? "headroom" : "xoff + headroom");
}

int
cfg_parse_qos(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_qos *q = &c->cfg->qos;
	bool dscp_listed[64] = {false}, pcp_listed[8] = {false};
	int lossless_lines[RSW_N_TC] = {0};
	int total_line = 0;
	struct kv kv[Q_N];
	bool sched_ok, lossless_ok = true, buffer_ok = true;
	int64_t tc;
	int i, v, rc = 0;

	q->line = sec->line;
	if (cfg_get_map(c, sec->v, "qos", qos_keys, Q_N, kv) < 0)
		return -EINVAL;
	/*
	 * Each key's error is reported; trim is checked against the scheduler and the lossless
	 * TCs, the reserve against the buffer, lossless and the ports, when those are right.
	 */
	if (kv[Q_TRUST].v != NULL) {
		if (cfg_get_enum(c, kv[Q_TRUST].v, "trust", cfg_trust_names, 2, &v) < 0)
			rc = -EINVAL;
		else
			q->trust = (enum rsw_trust)v;
	}
	if (kv[Q_DEFAULT_TC].v != NULL) {
		if (cfg_get_int(c, kv[Q_DEFAULT_TC].v, "default_tc", 0, RSW_N_TC - 1, &tc) < 0)
			rc = -EINVAL;
		else
			q->default_tc = (uint8_t)tc;
	}
	if (kv[Q_DSCP].v != NULL &&
	    parse_tc_map(c, kv[Q_DSCP].v, "dscp_to_tc", "DSCP", 63, q->dscp_to_tc, dscp_listed) < 0)
		rc = -EINVAL;
	if (kv[Q_PCP].v != NULL &&
	    parse_tc_map(c, kv[Q_PCP].v, "pcp_to_tc", "PCP", 7, q->pcp_to_tc, pcp_listed) < 0)
		rc = -EINVAL;
	for (i = 0; i < 64; i++)
		if (!dscp_listed[i])
			q->dscp_to_tc[i] = q->default_tc;
	for (i = 0; i < 8; i++)
		if (!pcp_listed[i])
			q->pcp_to_tc[i] = q->default_tc;
	sched_ok = parse_scheduler(c, kv[Q_SCHEDULER].v, q) == 0;
	if (kv[Q_LOSSLESS].v != NULL)
		lossless_ok = cfg_parse_tc_list(c, kv[Q_LOSSLESS].v, "lossless", NULL, NULL,
						&q->lossless, lossless_lines) == 0;
	if (kv[Q_BUFFER].v != NULL)
		buffer_ok = cfg_parse_buffer(c, kv[Q_BUFFER].v, q, &total_line) == 0;
	if (!sched_ok || !lossless_ok || !buffer_ok)
		rc = -EINVAL;
	if (kv[Q_ECN].v != NULL && cfg_parse_ecn(c, kv[Q_ECN].v, q) < 0)
		rc = -EINVAL;
	if (kv[Q_ECN_MARK].v != NULL) {
		if (cfg_get_enum(c, kv[Q_ECN_MARK].v, "ecn_mark_point", cfg_ecn_mark_names, 2, &v) <
		    0)
			rc = -EINVAL;
		else
			q->ecn_mark_enqueue = v == 1;
	}
	if (kv[Q_PFCWD].v != NULL && cfg_parse_pfcwd(c, kv[Q_PFCWD].v, q) < 0)
		rc = -EINVAL;
	if (sched_ok && lossless_ok && kv[Q_TRIM].v != NULL && !cfg_is_null(kv[Q_TRIM].v) &&
	    cfg_parse_trim(c, kv[Q_TRIM].v, q, kv[Q_TRIM].line) < 0)
		rc = -EINVAL;
	if (kv[Q_CNP].v != NULL && !cfg_is_null(kv[Q_CNP].v) &&
	    cfg_parse_cnp(c, kv[Q_CNP].v, q, kv[Q_CNP].line) < 0)
		rc = -EINVAL;
	if (lossless_ok && buffer_ok && c->ports_ok &&
	    check_reserve(c, q, total_line > 0 ? total_line : kv[Q_LOSSLESS].line) < 0)
		rc = -EINVAL;
	return rc;
}
