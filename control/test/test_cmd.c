/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the command registry (cmd.c): bad requests first (binary, NUL, over-long,
 * too many words, empty), then matching, argument bounds and help. Last, the tables'
 * definitions (table.c): `describe` and the row builder. The control socket in front of the
 * registry: test_sock.c.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_cmd.h"
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_table.h"
#include "test_cmd_common.h"

static void
expect_error(const char *line, size_t len, const char *msg)
{
	json_t *r = rsw_cmd_exec(line, len);

	assert_non_null(err_of(r));
	if (msg != NULL)
		assert_string_equal(err_of(r), msg);
	json_decref(r);
}

static void
expect_error_str(const char *line, const char *msg)
{
	expect_error(line, strlen(line), msg);
}

/* Run line, expect the echo of handler `cmd` with the given arguments. */
static void
expect_call(const char *line, const char *cmd, int nargs, ...)
{
	json_t *r = rsw_cmd_exec(line, strlen(line)), *args;
	va_list ap;
	int i;

	assert_non_null(r);
	if (err_of(r) != NULL)
		fail_msg("'%s' -> error '%s'", line, err_of(r));
	assert_string_equal(json_string_value(json_object_get(r, "cmd")), cmd);
	args = json_object_get(r, "args");
	assert_int_equal(json_array_size(args), nargs);
	va_start(ap, nargs);
	for (i = 0; i < nargs; i++)
		assert_string_equal(json_string_value(json_array_get(args, i)),
				    va_arg(ap, const char *));
	va_end(ap);
	json_decref(r);
}

/* Bad input first. */

static void
test_malformed(void **state)
{
	static const char nul[] = "show\0ports";
	char buf[5000];

	expect_error(NULL, 0, "empty request");
	expect_error("", 0, "empty request");
	expect_error_str("   \t  ", "empty request");
	expect_error(nul, sizeof(nul) - 1, "malformed request");
	expect_error_str("show \xff\xfe ports", "malformed request");
	expect_error_str("show ports\x1b[2J", "malformed request");
	expect_error_str("show ports\r", "malformed request");
	expect_error_str("show\nports", "malformed request");
	expect_error_str("show \x7f", "malformed request");
	expect_error_str("show \xc0\x80", "malformed request");     /* overlong NUL */
	expect_error_str("show \xed\xa0\x80", "malformed request"); /* surrogate */
	expect_error_str("show \xe2\x82", "malformed request");     /* cut sequence */
	expect_error_str("show \xc2\x85", "malformed request");     /* C1 control */

	memset(buf, 'a', sizeof(buf));
	expect_error(buf, sizeof(buf), "request too long (5000 bytes, at most 4096)");
	expect_error(buf, RSW_CMD_MAX_LINE + 1, NULL);
	/* Exactly RSW_CMD_MAX_LINE bytes is fine: an unknown command. */
	expect_error(buf, RSW_CMD_MAX_LINE,
		     "unknown command "
		     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'");

	expect_error_str("show a b c d e f g h i j k l m n o p q", "too many words (at most 16)");
	expect_call("show a b c d e f g h i j k l m n o", "show", 15, "a", "b", "c", "d", "e", "f",
		    "g", "h", "i", "j", "k", "l", "m", "n", "o");
}

static void
test_unknown(void **state)
{
	char line[400];

	expect_error_str("shw", "unknown command 'shw'");
	expect_error_str("  shw\t ports  ", "unknown command 'shw ports'");
	expect_error_str("clear", "unknown command 'clear'");
	expect_error_str("clear everything", "unknown command 'clear everything'");
	/* Words are quoted as given, UTF-8 included, and cut at a character boundary. */
	expect_error_str("sh\xc3\xb6w", "unknown command 'sh\xc3\xb6w'");
	memset(line, 'x', sizeof(line));
	memcpy(line + 59, "\xc3\xb6", 2);
	line[sizeof(line) - 1] = '\0';
	expect_error(line, strlen(line),
		     "unknown command "
		     "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xb6...'");
	memset(line, 'x', sizeof(line) - 1);
	memcpy(line + 60, "\xc3\xb6", 2);
	expect_error(line, strlen(line),
		     "unknown command "
		     "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
	/* Case matters. */
	expect_error_str("SHOW PORTS", "unknown command 'SHOW PORTS'");
}

static void
test_register_errors(void **state)
{
	assert_int_equal(rsw_cmd_register("show ports", 0, 0, "", "", echo_fn, NULL), -EEXIST);
	assert_int_equal(rsw_cmd_register("  show   ports ", 0, 0, "", "", echo_fn, NULL), -EEXIST);
	assert_int_equal(rsw_cmd_register("help", 0, 0, "", "", echo_fn, NULL), -EEXIST);
	assert_int_equal(rsw_cmd_register(NULL, 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("", 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("  \t", 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x\ny", 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x", 0, 0, "", "", NULL, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x", -1, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x", 2, 1, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(
		rsw_cmd_register("a b c d e f g h i j k l m n o p q", 0, 0, "", "", echo_fn, NULL),
		-EINVAL);
	/* Everything starting with "help" belongs to the built-in. */
	assert_int_equal(rsw_cmd_register("help x", 0, 0, "", "", echo_fn, NULL), -EEXIST);
}

static void
test_match(void **state)
{
	expect_call("show ports", "show ports", 0);
	expect_call("\tshow  ports\t", "show ports", 0);
	expect_call("show queues", "show queues", 0);
	expect_call("show queues p0", "show queues", 1, "p0");
	/* Longest match wins over "show" and "show ports". */
	expect_call("show ports detail p1", "show ports detail", 1, "p1");
	expect_call("show ports detail p1 rx", "show ports detail", 2, "p1", "rx");
	/* "show" takes what no longer command claims. */
	expect_call("show pfc p0", "show", 2, "pfc", "p0");
	expect_call("show portsx", "show", 1, "portsx");
	expect_call("port p0 down", "port", 2, "p0", "down");
	expect_call("clear counters", "clear counters", 0);
	/* UTF-8 arguments pass through unchanged. */
	expect_call("show \xe2\x82\xac", "show", 1, "\xe2\x82\xac");
}

static void
test_arg_bounds(void **state)
{
	expect_error_str("show queues p0 p1", "usage: show queues [PORT]");
	expect_error_str("show ports p0", "usage: show ports");
	expect_error_str("show ports detail", "usage: show ports detail PORT [FIELD]");
	expect_error_str("show ports detail a b c", "usage: show ports detail PORT [FIELD]");
	expect_error_str("show", "usage: show WHAT...");
	expect_error_str("port p0", "usage: port NAME down|up");
	expect_error_str("port p0 down now", "usage: port NAME down|up");
	expect_error_str("clear counters now", "usage: clear counters");
	expect_error_str("null", "internal error: 'null' gave no reply");
}

static void
test_help(void **state)
{
	json_t *r = rsw_cmd_exec("help", 4), *cmds, *e;
	const char *prev = "";
	bool seen_queues = false, seen_help = false;
	size_t i;

	assert_null(err_of(r));
	cmds = json_object_get(r, "commands");
	/* 8 registered + help. */
	assert_int_equal(json_array_size(cmds), 9);
	json_array_foreach(cmds, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "command"));

		assert_non_null(name);
		assert_non_null(json_string_value(json_object_get(e, "usage")));
		assert_non_null(json_string_value(json_object_get(e, "help")));
		assert_true(strcmp(prev, name) < 0); /* sorted */
		prev = name;
		if (strcmp(name, "show queues") == 0) {
			seen_queues = true;
			assert_string_equal(json_string_value(json_object_get(e, "usage")),
					    "show queues [PORT]");
			assert_string_equal(json_string_value(json_object_get(e, "help")),
					    "per-queue counters");
		}
		if (strcmp(name, "help") == 0)
			seen_help = true;
	}
	assert_true(seen_queues);
	assert_true(seen_help);
	json_decref(r);

	/* help with a prefix: only the matching commands. */
	r = rsw_cmd_exec("help show ports", 15);
	cmds = json_object_get(r, "commands");
	assert_int_equal(json_array_size(cmds), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cmds, 0), "command")),
			    "show ports");
	assert_string_equal(json_string_value(json_object_get(json_array_get(cmds, 1), "command")),
			    "show ports detail");
	json_decref(r);
	expect_error_str("help nope", "unknown command 'nope'");

	/* After unregister_all only help is left. */
	rsw_cmd_unregister_all();
	r = rsw_cmd_exec("help", 4);
	assert_int_equal(json_array_size(json_object_get(r, "commands")), 1);
	json_decref(r);
	expect_error_str("show ports", "unknown command 'show ports'");
	setup_registry(state);
}

static void
test_error_ok(void **state)
{
	json_t *r = rsw_cmd_error("x=%d %s", 3, "y");

	assert_string_equal(err_of(r), "x=3 y");
	json_decref(r);
	/* Not UTF-8: still an error object. */
	r = rsw_cmd_error("bad %s", "\xff\xfe");
	assert_string_equal(err_of(r), "bad ??");
	json_decref(r);
	r = rsw_cmd_ok();
	assert_true(json_is_true(json_object_get(r, "ok")));
	assert_int_equal(json_object_size(r), 1);
	json_decref(r);
}

/* The table of `describe` with command and key, or NULL. */
static const json_t *
described(const json_t *d, const char *command, const char *key)
{
	const json_t *t;
	size_t i;

	json_array_foreach(json_object_get(d, "tables"), i, t)
	{
		if (strcmp(json_string_value(json_object_get(t, "command")), command) == 0 &&
		    strcmp(json_string_value(json_object_get(t, "key")), key) == 0)
			return t;
	}
	return NULL;
}

/* The kind of field name of table t of `describe`, or NULL. */
static const char *
kind_of(const json_t *t, const char *name)
{
	const json_t *f;
	size_t i;

	json_array_foreach(json_object_get(t, "fields"), i, f)
	{
		if (strcmp(json_string_value(json_object_get(f, "name")), name) == 0)
			return json_string_value(json_object_get(f, "kind"));
	}
	return NULL;
}

static void
test_describe(void **state)
{
	static const char *const kinds[] = {"counter", "gauge", "label", "state"};
	json_t *d = rsw_tables_describe();
	const json_t *t, *f, *ports, *pfc;
	size_t i, j, k;

	(void)state;
	assert_non_null(d);
	assert_int_equal(json_object_size(d), 1);
	assert_int_equal(json_array_size(json_object_get(d, "tables")),
			 18); /* show drops totals, show punt, show kif, show llr, show workers,
			       show cbfc */
	json_array_foreach(json_object_get(d, "tables"), i, t)
	{
		assert_int_equal(json_object_size(t), 3);
		assert_non_null(json_string_value(json_object_get(t, "command")));
		assert_non_null(json_string_value(json_object_get(t, "key")));
		assert_true(json_array_size(json_object_get(t, "fields")) > 0);
		json_array_foreach(json_object_get(t, "fields"), j, f)
		{
			const char *kind = json_string_value(json_object_get(f, "kind"));
			bool known = false;

			assert_int_equal(json_object_size(f), 4);
			assert_non_null(json_string_value(json_object_get(f, "unit")));
			assert_true(strlen(json_string_value(json_object_get(f, "help"))) > 0);
			for (k = 0; k < 4; k++)
				known = known || strcmp(kind, kinds[k]) == 0;
			assert_true(known);
		}
	}
	/* Every port counter of the X-macro (punt_policed among them), rx_missed from the PMD, and
	 * the rest (link_state and peer_down included): 37, and 14 of the link layer (impair_*,
	 * llr_*, cbfc_*). */
	ports = described(d, "show ports", "ports");
	assert_non_null(ports);
	assert_int_equal(json_array_size(json_object_get(ports, "fields")), 51);
	assert_string_equal(kind_of(ports, "peer_down"), "state");
	for (i = 0; i < RSW_N_PORT_CTRS; i++)
		assert_string_equal(kind_of(ports, rsw_port_ctr_name(i)), "counter");
	assert_string_equal(kind_of(ports, "rx_missed"), "counter");
	assert_string_equal(kind_of(ports, "name"), "label");
	assert_string_equal(kind_of(ports, "speed_bps"), "gauge");
	assert_string_equal(kind_of(ports, "link_up"), "state");
	/* The watchdog's counts are in `show pfc`, not in the dataplane's slots. */
	pfc = described(d, "show pfc", "pfc");
	assert_string_equal(kind_of(pfc, "pfcwd_storms"), "counter");
	assert_string_equal(kind_of(pfc, "pfcwd_restores"), "counter");
	for (i = 0; i < RSW_N_PFC_CTRS; i++)
		assert_int_not_equal(strncmp(rsw_pfc_ctr_name(i), "pfcwd_", 6), 0);
	/* Two tables of `show buffer`, the nested members of `show lb`. */
	assert_non_null(described(d, "show buffer", "buffer"));
	assert_non_null(described(d, "show buffer", "pgs"));
	assert_non_null(described(d, "show lb", "groups.members"));
	assert_null(kind_of(described(d, "show lb", "groups"), "members"));
	/* Two of `show drops`: the reasons and the totals of docs/cli.md. */
	assert_non_null(described(d, "show drops", "drops"));
	assert_int_equal(
		json_array_size(json_object_get(described(d, "show drops", "totals"), "fields")),
		6);
	assert_string_equal(kind_of(described(d, "show drops", "totals"), "queued"), "gauge");
	assert_string_equal(kind_of(described(d, "show drops", "totals"), "received"), "counter");
	assert_ptr_equal(rsw_table_find("show lb", "groups.members"), &rsw_table_lb_members);
	assert_null(rsw_table_find("show lb", "members"));
	json_decref(d);
}

static void
test_row(void **state)
{
	json_t *o =
		json_pack("{s:I, s:s, s:s, s:b, s:I, s:i}", "bytes", (json_int_t)800, "port", "p1",
			  "nexthop", "10.2.0.1", "up", 1, "packets", (json_int_t)8, "bogus", 1);
	json_t *row, *g;
	const char *key, *order[] = {"nexthop", "port", "up", "packets", "bytes"};
	json_t *v;
	size_t i = 0;

	(void)state;
	/* Members in the definition's order; an undescribed one is left out. */
	row = rsw_row(&rsw_table_lb_members, o);
	assert_non_null(row);
	assert_int_equal(json_object_size(row), 5);
	json_object_foreach(row, key, v) assert_string_equal(key, order[i++]);
	/* The member a nested table lives in stays. */
	g = rsw_row(&rsw_table_lb_groups,
		    json_pack("{s:o, s:i, s:s}", "members", json_pack("[O]", row), "id", 0,
			      "prefix", "10.20.0.0/16"));
	assert_non_null(g);
	assert_int_equal(json_object_size(g), 3);
	assert_string_equal(json_object_iter_key(json_object_iter(g)), "id");
	assert_int_equal(json_array_size(json_object_get(g, "members")), 1);
	json_decref(row);
	json_decref(g);
	assert_null(rsw_row(&rsw_table_ports, NULL));
}

int
main(void)
{
	const struct CMUnitTest cmd_tests[] = {
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_register_errors),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_arg_bounds),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_error_ok),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_row),
	};
	int fails;

	fails = cmocka_run_group_tests_name("cmd", cmd_tests, setup_registry, teardown_registry);
	return fails ? 1 : 0;
}
