/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * libFuzzer target: the configuration loader (control/config/, libyaml and
 * the topology derivation, and the ports' devargs checks registered as railsw
 * registers them) on arbitrary bytes. An accepted configuration is
 * turned back into JSON (`show config`) and serialised; a refused one must
 * carry a message. Nothing may crash or leak.
 */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rsw_config.h"
#include "rsw_ports.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (rsw_config_register_check(rsw_ports_check_config) != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[RSW_CFG_ERR_LEN] = "";
	struct rsw_config *cfg;
	json_t *j;
	char *s;

	cfg = rsw_config_load_buf("fuzz.yaml", (const char *)data, size, err, sizeof(err));
	if (cfg == NULL) {
		if (err[0] == '\0')
			abort(); /* refused without saying why */
		return 0;
	}
	j = rsw_config_to_json(cfg);
	if (j == NULL)
		abort();
	s = json_dumps(j, JSON_COMPACT);
	if (s == NULL)
		abort();
	free(s);
	json_decref(j);
	rsw_config_free(cfg);
	return 0;
}
