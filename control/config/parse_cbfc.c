/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * ports[].cbfc (docs/config.md, docs/link.md "Credit-based flow control"): true | false |
 * { enable, bytes_per_credit, buffer, fallback }, and the checks that need qos: (a lossless
 * TC to run on, a buffer that fits the switch's), made once that section is parsed.
 */

#include <errno.h>

#include "config_priv.h"

enum {
	CB_ENABLE,
	CB_BPC,
	CB_BUFFER,
	CB_FALLBACK,
	CB_N,
};

static const char *const cbfc_keys[CB_N] = {
	[CB_ENABLE] = "enable",
	[CB_BPC] = "bytes_per_credit",
	[CB_BUFFER] = "buffer",
	[CB_FALLBACK] = "fallback",
};

const char *const cfg_cbfc_fallbacks[] = {"pfc", "none"};

#define CBFC_BPC_MIN 32
#define CBFC_BPC_MAX 2048
#define CBFC_BPC_DEF 64

int
cfg_parse_cbfc(struct ctx *c, yaml_node_t *n, struct rsw_cfg_port *port)
{
	struct rsw_cfg_cbfc *cb = &port->cbfc;
	struct kv kv[CB_N];
	uint32_t bpc;
	int fb;

	cb->line = cfg_line_of(n);
	cb->bytes_per_credit = CBFC_BPC_DEF;
	if (n->type == YAML_SCALAR_NODE)
		return cfg_get_bool(c, n, "cbfc", &cb->enable);
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cb->line,
				"'cbfc' must be true, false or a mapping { enable, "
				"bytes_per_credit, buffer, fallback }");
	if (cfg_get_map(c, n, "cbfc", cbfc_keys, CB_N, kv) < 0)
		return -EINVAL;
	cb->enable = true;
	if (kv[CB_ENABLE].v != NULL && cfg_get_bool(c, kv[CB_ENABLE].v, "enable", &cb->enable) < 0)
		return -EINVAL;
	if (kv[CB_BPC].v != NULL) {
		if (cfg_get_u32(c, kv[CB_BPC].v, "bytes_per_credit", CBFC_BPC_MIN, CBFC_BPC_MAX,
				&bpc) < 0)
			return -EINVAL;
		cb->bytes_per_credit = (uint16_t)bpc;
	}
	if (kv[CB_BUFFER].v != NULL) {
		if (cfg_get_size(c, kv[CB_BUFFER].v, "buffer", 1, CFG_MAX_SIZE, &cb->buffer) < 0)
			return -EINVAL;
		cb->buffer_line = cfg_line_of(kv[CB_BUFFER].v);
	}
	if (kv[CB_FALLBACK].v != NULL) {
		if (cfg_get_enum(c, kv[CB_FALLBACK].v, "fallback", cfg_cbfc_fallbacks, 2, &fb) < 0)
			return -EINVAL;
		cb->fallback = (enum rsw_cfg_cbfc_fallback)fb;
	}
	return 0;
}

int
cfg_check_cbfc(struct ctx *c)
{
	const struct rsw_cfg_qos *q = &c->cfg->qos;
	char a[32], b[32];
	int i, rc = 0;

	for (i = 0; i < c->cfg->n_ports; i++) {
		const struct rsw_cfg_port *p = &c->cfg->ports[i];
		const struct rsw_cfg_cbfc *cb = &p->cbfc;

		if (!cb->enable)
			continue;
		if (q->lossless == 0) {
			rc = cfg_fail(c, cb->line,
				      "'cbfc' on port '%s' needs a lossless TC: list one in "
				      "'qos.lossless'",
				      p->name);
			continue;
		}
		if (cb->buffer > q->buffer_total)
			rc = cfg_fail(c, cb->buffer_line,
				      "'cbfc.buffer' %s of port '%s' is above the switch's buffer "
				      "('qos.buffer.total' %s)",
				      cfg_size_str(cb->buffer, a, sizeof(a)), p->name,
				      cfg_size_str(q->buffer_total, b, sizeof(b)));
		else if (cb->buffer != 0 && cb->buffer < cb->bytes_per_credit)
			rc = cfg_fail(c, cb->buffer_line,
				      "'cbfc.buffer' %s of port '%s' is less than one credit "
				      "(bytes_per_credit %u)",
				      cfg_size_str(cb->buffer, a, sizeof(a)), p->name,
				      cb->bytes_per_credit);
	}
	return rc;
}
