/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Helpers of the configuration-loading unit tests (test_config, test_topology): load a YAML
 * text as file t.yaml, and expect a load to fail with an exact message. Include after
 * cmocka.h; each test file gets its own err buffer.
 */

#ifndef RSW_CFG_TEST_H
#define RSW_CFG_TEST_H

#include <string.h>

#include "rsw_config.h"

/* The last load's error message. */
static char err[RSW_CFG_ERR_LEN];

static inline struct rsw_config *
load(const char *yaml)
{
	memset(err, 0, sizeof(err));
	return rsw_config_load_buf("t.yaml", yaml, strlen(yaml), err, sizeof(err));
}

/* The load fails with exactly msg. */
static inline void
expect_err(const char *yaml, const char *msg)
{
	struct rsw_config *cfg = load(yaml);

	if (cfg != NULL || strcmp(err, msg) != 0)
		print_error("yaml:\n%s\nexpected: %s\n     got: %s\n", yaml, msg,
			    cfg ? "(success)" : err);
	assert_null(cfg);
	assert_string_equal(err, msg);
}

#endif /* RSW_CFG_TEST_H */
