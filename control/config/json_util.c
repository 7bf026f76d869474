/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Small jansson helpers of the `show config`, `show topology` and `railctl plan` dumps
 * (to_json.c, topology/): setting a key or appending while remembering any failure, and
 * addresses as JSON strings. A leaf: it calls only jansson and addr.c.
 */

#include <arpa/inet.h>
#include <jansson.h>

#include "rsw_config.h"

void
rsw_cfg_json_set(json_t *o, const char *k, json_t *v, bool *bad)
{
	/* json_object_set_new releases v when it fails, o NULL included. */
	if (v == NULL || json_object_set_new(o, k, v) < 0)
		*bad = true;
}

void
rsw_cfg_json_append(json_t *a, json_t *v, bool *bad)
{
	if (v == NULL || json_array_append_new(a, v) < 0)
		*bad = true;
}

json_t *
rsw_ip_json(const struct rsw_ip *ip)
{
	char buf[INET6_ADDRSTRLEN];

	return json_string(rsw_ip_str(ip, buf, sizeof(buf)));
}

json_t *
rsw_prefix_json(const struct rsw_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 4];

	return json_string(rsw_prefix_str(p, buf, sizeof(buf)));
}
