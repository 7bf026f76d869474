/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show config` (docs/cli.md): the effective configuration, as the config area
 * formats it.
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_module.h"

static json_t *
cmd_show_config(int argc, char **argv, void *ctx)
{
	json_t *c = rsw_config_to_json(rsw_ctl.cfg);

	(void)argc;
	(void)argv;
	(void)ctx;
	return c ? c : rsw_cmd_error("cannot format the configuration");
}

static int
config_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show config", 0, 0, "", "the effective configuration",
				cmd_show_config, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module config_cli_module = {
	.name = "cli.config",
	.order = RSW_CLI_MODULE_ORDER,
	.init = config_init,
};

RSW_MODULE_REGISTER(config_cli_module);
