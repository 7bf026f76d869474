/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show neighbors` (docs/cli.md): the ARP/ND entries of the neighbour state machine
 * (neigh.c), put in the order of their definition.
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_module.h"
#include "rsw_neigh.h"

static const struct rsw_field_def neighbor_fields[] = {
	RSW_LABEL("ip", NULL, "the neighbour's IPv4 or IPv6 address"),
	RSW_LABEL("mac", NULL, "its MAC address (empty while unresolved)"),
	RSW_LABEL("port", NULL, "the port it was learnt or configured on"),
	RSW_FIELD("state", STATE, "", "static, reachable, incomplete or stale"),
};

const struct rsw_table_def rsw_table_neighbors = {
	.command = "show neighbors",
	.key = "neighbors",
	.fields = neighbor_fields,
	.n_fields = RSW_TABLE_N_FIELDS(neighbor_fields),
};

static json_t *
cmd_show_neighbors(int argc, char **argv, void *ctx)
{
	json_t *r = rsw_ctl_neigh_json(), *out;

	(void)argc;
	(void)argv;
	(void)ctx;
	if (r == NULL)
		return NULL;
	out = rsw_rows(&rsw_table_neighbors, json_object_get(r, "neighbors"));
	json_decref(r);
	return out;
}

static int
neighbors_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show neighbors", 0, 0, "", "ARP/ND entries", cmd_show_neighbors,
				NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module neighbors_cli_module = {
	.name = "cli.neighbors",
	.order = RSW_CLI_MODULE_ORDER,
	.init = neighbors_init,
};

RSW_MODULE_REGISTER(neighbors_cli_module);
