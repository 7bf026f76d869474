/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the tests of the command registry (test_cmd.c) and of the control socket
 * (test_sock.c) share: the registry they run against (setup_registry: echoing handlers,
 * one that gives no reply, one with a reply of about 200 KB) and the error string of a reply.
 */

#ifndef RSW_TEST_CMD_COMMON_H
#define RSW_TEST_CMD_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_cmd.h"

/* A handler that echoes what it was called with: {"cmd":ctx,"args":[...]}. */
static inline json_t *
echo_fn(int argc, char **argv, void *ctx)
{
	json_t *args = json_array();
	int i;

	for (i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	assert_null(argv[argc]);
	return json_pack("{s:s,s:o}", "cmd", (const char *)ctx, "args", args);
}

static inline json_t *
null_fn(int argc, char **argv, void *ctx)
{
	return NULL;
}

/* A reply of about 200 KB, to fill socket buffers. */
static inline json_t *
big_fn(int argc, char **argv, void *ctx)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < 10000; i++)
		json_array_append_new(a, json_pack("{s:i,s:s}", "i", i, "pad", "xxxxxxxx"));
	return json_pack("{s:o}", "rows", a);
}

static inline int
setup_registry(void **state)
{
	assert_int_equal(rsw_cmd_register("show ports", 0, 0, "", "per-port counters", echo_fn,
					  "show ports"),
			 0);
	assert_int_equal(rsw_cmd_register("show queues", 0, 1, "[PORT]", "per-queue counters",
					  echo_fn, "show queues"),
			 0);
	assert_int_equal(
		rsw_cmd_register("show", 1, -1, "WHAT...", "generic show", echo_fn, "show"), 0);
	assert_int_equal(rsw_cmd_register("show ports detail", 1, 2, "PORT [FIELD]", "one port",
					  echo_fn, "show ports detail"),
			 0);
	assert_int_equal(
		rsw_cmd_register("port", 2, 2, "NAME down|up", "admin state", echo_fn, "port"), 0);
	assert_int_equal(rsw_cmd_register("clear counters", 0, 0, NULL, "zero counters", echo_fn,
					  "clear counters"),
			 0);
	assert_int_equal(rsw_cmd_register("null", 0, 0, "", "returns NULL", null_fn, NULL), 0);
	assert_int_equal(rsw_cmd_register("big", 0, 0, "", "a big reply", big_fn, NULL), 0);
	return 0;
}

static inline int
teardown_registry(void **state)
{
	rsw_cmd_unregister_all();
	return 0;
}

/* The error string of reply, or NULL. Frees nothing. */
static inline const char *
err_of(json_t *reply)
{
	assert_non_null(reply);
	return json_string_value(json_object_get(reply, "error"));
}

#endif /* RSW_TEST_CMD_COMMON_H */
