/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Helpers of the configuration-loading unit tests (test_config*.c, test_topology*.c): load a
 * YAML text as file t.yaml, expect a load to succeed or to fail with an exact message (or
 * prefix), and a valid head to append sections to. Include after cmocka.h; each test file
 * gets its own err buffer.
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

/* The load fails and the message starts with prefix. */
static inline void
expect_err_prefix(const char *yaml, const char *prefix)
{
	struct rsw_config *cfg = load(yaml);

	if (cfg != NULL || strncmp(err, prefix, strlen(prefix)) != 0)
		print_error("yaml:\n%s\nexpected prefix: %s\n            got: %s\n", yaml, prefix,
			    cfg ? "(success)" : err);
	assert_null(cfg);
	assert_memory_equal(err, prefix, strlen(prefix));
}

static inline struct rsw_config *
expect_ok(const char *yaml)
{
	struct rsw_config *cfg = load(yaml);

	if (cfg == NULL)
		print_error("yaml:\n%s\nunexpected error: %s\n", yaml, err);
	assert_non_null(cfg);
	return cfg;
}

/* A valid head: lines 1-5. Tests append sections from line 6 on. */
#define HEAD                                                                                       \
	"switch:\n"                                                                                \
	"  name: s1\n"                                                                             \
	"ports:\n"                                                                                 \
	"  - { name: p0, devargs: net_tap0, ipv4: 10.0.1.254/24, ipv6: fd00:1::fe/64 }\n"          \
	"  - { name: p1, devargs: net_tap1, ipv4: 10.0.2.254/24 }\n"

#endif /* RSW_CFG_TEST_H */
