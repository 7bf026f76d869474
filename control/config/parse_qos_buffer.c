/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The parts of qos: about queue bytes: buffer (total, queue limit, PFC thresholds), ecn (the
 * WRED/ECN curve per TC) and pfc_watchdog.
 */

#include <errno.h>
#include <stdio.h>

#include "config_priv.h"

enum {
	BUF_TOTAL,
	BUF_QUEUE_LIMIT,
	BUF_PFC,
	BUF_N,
};

static const char *const buffer_keys[BUF_N] = {
	[BUF_TOTAL] = "total",
	[BUF_QUEUE_LIMIT] = "queue_limit",
	[BUF_PFC] = "pfc",
};

enum {
	PFC_MODE,
	PFC_XOFF,
	PFC_XON,
	PFC_ALPHA,
	PFC_XON_OFFSET,
	PFC_HEADROOM,
	PFC_QUANTA,
	PFC_N,
};

static const char *const pfc_keys[PFC_N] = {
	[PFC_MODE] = "mode",
	[PFC_XOFF] = "xoff",
	[PFC_XON] = "xon",
	[PFC_ALPHA] = "alpha",
	[PFC_XON_OFFSET] = "xon_offset",
	[PFC_HEADROOM] = "headroom",
	[PFC_QUANTA] = "quanta",
};

enum {
	ECN_KMIN,
	ECN_KMAX,
	ECN_PMAX,
	ECN_N,
};

static const char *const ecn_keys[ECN_N] = {
	[ECN_KMIN] = "kmin", [ECN_KMAX] = "kmax", [ECN_PMAX] = "pmax"};

enum {
	WD_DETECT,
	WD_RESTORE,
	WD_ACTION,
	WD_N,
};

static const char *const pfcwd_keys[WD_N] = {
	[WD_DETECT] = "detect_ms", [WD_RESTORE] = "restore_ms", [WD_ACTION] = "action"};

const char *const cfg_pfc_mode_names[] = {"static", "dynamic"};

const char *const cfg_pfcwd_action_names[] = {
	[RSW_PFCWD_DROP] = "drop",
	[RSW_PFCWD_FORWARD] = "forward",
	[RSW_PFCWD_ALERT] = "alert",
	[RSW_PFCWD_OFF] = "off",
};

/* Static keys (xoff, xon) and dynamic ones (alpha, xon_offset) do not mix. */
static int
check_pfc_mode(struct ctx *c, const struct kv *kv, bool dynamic)
{
	static const int stat[] = {PFC_XOFF, PFC_XON}, dyn[] = {PFC_ALPHA, PFC_XON_OFFSET};
	size_t i;

	for (i = 0; i < 2; i++) {
		if (dynamic && kv[stat[i]].v != NULL)
			return cfg_fail(
				c, kv[stat[i]].line,
				"'buffer.pfc.%s' is a static threshold; 'mode: dynamic' uses alpha and xon_offset",
				pfc_keys[stat[i]]);
		if (!dynamic && kv[dyn[i]].v != NULL)
			return cfg_fail(
				c, kv[dyn[i]].line,
				"'buffer.pfc.%s' needs 'mode: dynamic' (static mode uses xoff and xon)",
				pfc_keys[dyn[i]]);
	}
	return 0;
}

static int
parse_pfc(struct ctx *c, yaml_node_t *n, struct rsw_cfg_pfc *pfc)
{
	struct kv kv[PFC_N];
	char a[32], b[32];
	int64_t v;
	int mode;

	if (cfg_get_map(c, n, "qos.buffer.pfc", pfc_keys, PFC_N, kv) < 0)
		return -EINVAL;
	if (kv[PFC_MODE].v != NULL) {
		if (cfg_get_enum(c, kv[PFC_MODE].v, "buffer.pfc.mode", cfg_pfc_mode_names, 2,
				 &mode) < 0)
			return -EINVAL;
		pfc->dynamic = mode == 1;
	}
	if (check_pfc_mode(c, kv, pfc->dynamic) < 0)
		return -EINVAL;
	if (kv[PFC_XOFF].v != NULL &&
	    cfg_get_size(c, kv[PFC_XOFF].v, "buffer.pfc.xoff", 1, CFG_MAX_SIZE, &pfc->xoff) < 0)
		return -EINVAL;
	if (kv[PFC_XON].v != NULL &&
	    cfg_get_size(c, kv[PFC_XON].v, "buffer.pfc.xon", 0, CFG_MAX_SIZE, &pfc->xon) < 0)
		return -EINVAL;
	if (kv[PFC_ALPHA].v != NULL && cfg_get_fraction(c, kv[PFC_ALPHA].v, "buffer.pfc.alpha",
							CFG_MAX_ALPHA, &pfc->alpha) < 0)
		return -EINVAL;
	if (kv[PFC_XON_OFFSET].v != NULL &&
	    cfg_get_size(c, kv[PFC_XON_OFFSET].v, "buffer.pfc.xon_offset", 0, CFG_MAX_SIZE,
			 &pfc->xon_offset) < 0)
		return -EINVAL;
	if (kv[PFC_HEADROOM].v != NULL && cfg_get_size(c, kv[PFC_HEADROOM].v, "buffer.pfc.headroom",
						       1, CFG_MAX_SIZE, &pfc->headroom) < 0)
		return -EINVAL;
	pfc->headroom_set = kv[PFC_HEADROOM].v != NULL;
	if (kv[PFC_QUANTA].v != NULL) {
		if (cfg_get_int(c, kv[PFC_QUANTA].v, "buffer.pfc.quanta", 1, CFG_MAX_QUANTA, &v) <
		    0)
			return -EINVAL;
		pfc->quanta = (uint16_t)v;
	}
	if (!pfc->dynamic && pfc->xon >= pfc->xoff)
		return cfg_fail(
			c,
			kv[PFC_XON].v != NULL ? cfg_line_of(kv[PFC_XON].v)
					      : cfg_line_of(kv[PFC_XOFF].v),
			"'buffer.pfc.xon' must be below 'buffer.pfc.xoff' (got xon %s%s, xoff %s)",
			cfg_size_str(pfc->xon, a, sizeof(a)),
			kv[PFC_XON].v != NULL ? "" : " (the default)",
			cfg_size_str(pfc->xoff, b, sizeof(b)));
	return 0;
}

int
cfg_parse_buffer(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int *total_line)
{
	struct kv kv[BUF_N];

	if (cfg_get_map(c, n, "qos.buffer", buffer_keys, BUF_N, kv) < 0)
		return -EINVAL;
	if (kv[BUF_TOTAL].v != NULL) {
		if (cfg_get_size(c, kv[BUF_TOTAL].v, "buffer.total", CFG_MIN_TOTAL, CFG_MAX_SIZE,
				 &q->buffer_total) < 0)
			return -EINVAL;
		*total_line = cfg_line_of(kv[BUF_TOTAL].v);
	}
	if (kv[BUF_QUEUE_LIMIT].v != NULL &&
	    cfg_get_size(c, kv[BUF_QUEUE_LIMIT].v, "buffer.queue_limit", 1, CFG_MAX_SIZE,
			 &q->queue_limit) < 0)
		return -EINVAL;
	if (kv[BUF_PFC].v != NULL && parse_pfc(c, kv[BUF_PFC].v, &q->pfc) < 0)
		return -EINVAL;
	return 0;
}

/* ecn: { TC: { kmin, kmax, pmax } }, all three required. */
int
cfg_parse_ecn(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q)
{
	yaml_node_pair_t *p;
	int tc, i;

	if (cfg_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(n),
				"'ecn' must be a mapping of TC to { kmin, kmax, pmax }");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = cfg_node_at(c, p->key);
		char what[CFG_KEY_LEN], key[CFG_KEY_LEN], a[32], b[32];
		struct rsw_cfg_ecn *e;
		struct kv kv[ECN_N];

		if (cfg_get_tc(c, kn, "ecn", "key", &tc) < 0)
			return -EINVAL;
		e = &q->ecn[tc];
		if (e->enabled)
			return cfg_fail(c, cfg_line_of(kn), "duplicate key '%s'", cfg_sval(kn));
		snprintf(what, sizeof(what), "qos.ecn.%d", tc);
		if (cfg_get_map(c, cfg_node_at(c, p->value), what, ecn_keys, ECN_N, kv) < 0)
			return -EINVAL;
		for (i = 0; i < ECN_N; i++)
			if (kv[i].v == NULL)
				return cfg_fail(c, cfg_line_of(kn),
						"missing required key '%s' in '%s'", ecn_keys[i],
						what);
		snprintf(key, sizeof(key), "ecn.%d.kmin", tc);
		if (cfg_get_size(c, kv[ECN_KMIN].v, key, 0, CFG_MAX_SIZE, &e->kmin) < 0)
			return -EINVAL;
		snprintf(key, sizeof(key), "ecn.%d.kmax", tc);
		if (cfg_get_size(c, kv[ECN_KMAX].v, key, 1, CFG_MAX_SIZE, &e->kmax) < 0)
			return -EINVAL;
		snprintf(key, sizeof(key), "ecn.%d.pmax", tc);
		if (cfg_get_fraction(c, kv[ECN_PMAX].v, key, 1.0, &e->pmax) < 0)
			return -EINVAL;
		if (e->kmin >= e->kmax)
			return cfg_fail(
				c, cfg_line_of(kv[ECN_KMIN].v),
				"'ecn.%d.kmin' must be below 'ecn.%d.kmax' (got kmin %s, kmax %s)",
				tc, tc, cfg_size_str(e->kmin, a, sizeof(a)),
				cfg_size_str(e->kmax, b, sizeof(b)));
		e->enabled = true;
	}
	return 0;
}

int
cfg_parse_pfcwd(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q)
{
	struct kv kv[WD_N];
	int action;

	if (cfg_get_map(c, n, "qos.pfc_watchdog", pfcwd_keys, WD_N, kv) < 0)
		return -EINVAL;
	if (kv[WD_DETECT].v != NULL &&
	    cfg_get_u32(c, kv[WD_DETECT].v, "pfc_watchdog.detect_ms", CFG_MIN_WD_MS, CFG_MAX_WD_MS,
			&q->pfcwd.detect_ms) < 0)
		return -EINVAL;
	if (kv[WD_RESTORE].v != NULL &&
	    cfg_get_u32(c, kv[WD_RESTORE].v, "pfc_watchdog.restore_ms", CFG_MIN_WD_MS,
			CFG_MAX_WD_MS, &q->pfcwd.restore_ms) < 0)
		return -EINVAL;
	if (kv[WD_ACTION].v != NULL) {
		if (cfg_get_enum(c, kv[WD_ACTION].v, "pfc_watchdog.action", cfg_pfcwd_action_names,
				 4, &action) < 0)
			return -EINVAL;
		q->pfcwd.action = (enum rsw_pfcwd_action)action;
	}
	return 0;
}
