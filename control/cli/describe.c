/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `describe` (docs/cli.md): every table's fields (name, kind, unit, help), from the
 * definitions the tables are built from (rsw_table.h).
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_module.h"

static json_t *
cmd_describe(int argc, char **argv, void *ctx)
{
	json_t *d = rsw_tables_describe();

	(void)argc;
	(void)argv;
	(void)ctx;
	return d ? d : rsw_cmd_error("out of memory");
}

static int
describe_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("describe", 0, 0, "",
				"every table's fields: name, kind, unit, help", cmd_describe, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module describe_cli_module = {
	.name = "cli.describe",
	.order = RSW_CLI_MODULE_ORDER,
	.init = describe_init,
};

RSW_MODULE_REGISTER(describe_cli_module);
