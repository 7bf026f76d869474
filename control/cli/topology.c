/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show topology` (docs/cli.md): this switch's place in the fabric, formatted by the
 * topology area (rsw_topology_cmd_show).
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"
#include "rsw_topology.h"

static int
topology_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show topology", 0, 0, "", "this switch's place in the fabric",
				rsw_topology_cmd_show, &rsw_ctl.cfg)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module topology_cli_module = {
	.name = "cli.topology",
	.order = RSW_CLI_MODULE_ORDER,
	.init = topology_init,
};

RSW_MODULE_REGISTER(topology_cli_module);
