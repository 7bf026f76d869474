/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The load_balance: section (mode, per-TC modes, hash fields and algorithm, spraying, flowlets)
 * and the load-balance mode names that routes: uses too.
 */

#include <errno.h>
#include <string.h>

#include "config_priv.h"

static const char *const lb_mode_names[] = {
	[RSW_LB_HASH] = "hash",
	[RSW_LB_SPRAY] = "spray",
	[RSW_LB_ADAPTIVE] = "adaptive",
	[RSW_LB_FLOWLET] = "flowlet",
};

const char *
rsw_lb_mode_name(enum rsw_lb_mode m)
{
	if (m == RSW_LB_UNSET)
		return "unset";
	if ((int)m < 0 || (size_t)m >= sizeof(lb_mode_names) / sizeof(lb_mode_names[0]))
		return "unknown";
	return lb_mode_names[m];
}

int
cfg_get_lb_mode(struct ctx *c, yaml_node_t *n, const char *key, enum rsw_lb_mode *out)
{
	const char *s;
	int i;

	if (cfg_get_scalar(c, n, key, "a load-balance mode", &s) < 0)
		return -EINVAL;
	for (i = 0; i < (int)(sizeof(lb_mode_names) / sizeof(lb_mode_names[0])); i++)
		if (strcmp(s, lb_mode_names[i]) == 0)
			break;
	if (i == (int)(sizeof(lb_mode_names) / sizeof(lb_mode_names[0])))
		return cfg_fail(
			c, cfg_line_of(n),
			"unknown load-balance mode '%.32s' (hash | spray | adaptive | flowlet)", s);
	*out = (enum rsw_lb_mode)i;
	return 0;
}

enum {
	LB_MODE,
	LB_PER_TC,
	LB_FIELDS,
	LB_ALG,
	LB_SPRAY,
	LB_FLOWLET,
	LB_SEED,
	LB_SYMMETRIC,
	LB_N,
};

static const char *const lb_keys[LB_N] = {
	[LB_MODE] = "mode",          [LB_PER_TC] = "per_tc",
	[LB_FIELDS] = "hash_fields", [LB_ALG] = "hash_algorithm",
	[LB_SPRAY] = "spray",        [LB_FLOWLET] = "flowlet_timeout_us",
	[LB_SEED] = "hash_seed",     [LB_SYMMETRIC] = "hash_symmetric",
};

/* Index i is bit i of RSW_HF_*. */
const char *const cfg_hash_field_names[CFG_N_HASH_FIELDS] = {
	"src_ip", "dst_ip", "proto", "src_port", "dst_port", "roce_qp", "uet_entropy", "flow_label",
};

const char *const cfg_hash_alg_names[] = {
	[RSW_HASH_CRC32] = "crc32", [RSW_HASH_TOEPLITZ] = "toeplitz", [RSW_HASH_NIC] = "nic"};

const char *const cfg_spray_names[] = {
	[RSW_SPRAY_RR] = "round-robin", [RSW_SPRAY_RANDOM] = "random"};

static int
parse_per_tc(struct ctx *c, yaml_node_t *n, struct rsw_cfg_lb *lb)
{
	yaml_node_pair_t *p;
	int64_t tc;

	if (cfg_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(n), "'per_tc' must be a mapping of TC to mode");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = cfg_node_at(c, p->key);

		if (cfg_map_scalar_key(c, k, "per_tc") < 0)
			return -EINVAL;
		if (!cfg_parse_i64(cfg_sval(k), &tc))
			return cfg_fail(c, cfg_line_of(k),
					"'per_tc' keys must be TCs 0-7 (got '%.32s')", cfg_sval(k));
		if (tc < 0 || tc >= RSW_N_TC)
			return cfg_fail(c, cfg_line_of(k),
					"'per_tc' key must be a TC between 0 and 7 (got %lld)",
					(long long)tc);
		if (lb->per_tc[tc] != RSW_LB_UNSET)
			return cfg_fail(c, cfg_line_of(k), "duplicate key '%s'", cfg_sval(k));
		if (cfg_get_lb_mode(c, cfg_node_at(c, p->value), "per_tc", &lb->per_tc[tc]) < 0)
			return -EINVAL;
	}
	return 0;
}

static int
parse_hash_fields(struct ctx *c, yaml_node_t *n, struct rsw_cfg_lb *lb)
{
	int i, j, cnt;

	if (n->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, cfg_line_of(n), "'hash_fields' must be a list");
	cnt = cfg_seq_len(n);
	if (cnt == 0)
		return cfg_fail(c, cfg_line_of(n), "'hash_fields' must list at least one field");
	lb->hash_fields = 0;
	for (i = 0; i < cnt; i++) {
		yaml_node_t *f = cfg_seq_item(c, n, i);
		const char *s;

		if (cfg_get_scalar(c, f, "hash_fields", "a list of field names", &s) < 0)
			return -EINVAL;
		for (j = 0; j < CFG_N_HASH_FIELDS; j++)
			if (strcmp(s, cfg_hash_field_names[j]) == 0)
				break;
		if (j == CFG_N_HASH_FIELDS)
			return cfg_fail(
				c, cfg_line_of(f),
				"unknown hash field '%.32s' (src_ip, dst_ip, proto, src_port, dst_port, roce_qp, uet_entropy, flow_label)",
				s);
		if (lb->hash_fields & (1u << j))
			return cfg_fail(c, cfg_line_of(f), "duplicate hash field '%s'", s);
		lb->hash_fields |= 1u << j;
	}
	return 0;
}

int
cfg_parse_lb(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_lb *lb = &c->cfg->lb;
	struct kv kv[LB_N];
	int v, rc = 0;

	if (cfg_get_map(c, sec->v, "load_balance", lb_keys, LB_N, kv) < 0)
		return -EINVAL;
	/* The keys are independent: each one's error is reported. */
	if (kv[LB_MODE].v != NULL && cfg_get_lb_mode(c, kv[LB_MODE].v, "mode", &lb->mode) < 0)
		rc = -EINVAL;
	if (kv[LB_PER_TC].v != NULL && parse_per_tc(c, kv[LB_PER_TC].v, lb) < 0)
		rc = -EINVAL;
	if (kv[LB_FIELDS].v != NULL && parse_hash_fields(c, kv[LB_FIELDS].v, lb) < 0)
		rc = -EINVAL;
	if (kv[LB_ALG].v != NULL) {
		if (cfg_get_enum(c, kv[LB_ALG].v, "hash_algorithm", cfg_hash_alg_names, 3, &v) < 0)
			rc = -EINVAL;
		else
			lb->hash_algorithm = (enum rsw_hash_alg)v;
	}
	if (kv[LB_SPRAY].v != NULL) {
		if (cfg_get_enum(c, kv[LB_SPRAY].v, "spray", cfg_spray_names, 2, &v) < 0)
			rc = -EINVAL;
		else
			lb->spray = (enum rsw_spray_mode)v;
	}
	if (kv[LB_FLOWLET].v != NULL && cfg_get_u32(c, kv[LB_FLOWLET].v, "flowlet_timeout_us", 1,
						    CFG_MAX_FLOWLET, &lb->flowlet_timeout_us) < 0)
		rc = -EINVAL;
	if (kv[LB_SEED].v != NULL &&
	    cfg_get_u32(c, kv[LB_SEED].v, "hash_seed", 0, UINT32_MAX, &lb->hash_seed) < 0)
		rc = -EINVAL;
	if (kv[LB_SYMMETRIC].v != NULL &&
	    cfg_get_bool(c, kv[LB_SYMMETRIC].v, "hash_symmetric", &lb->hash_symmetric) < 0)
		rc = -EINVAL;
	return rc;
}
