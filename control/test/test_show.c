/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Every `show` command, run through the command table (rsw_cmd_exec) as the socket runs it,
 * on a control state set up as main.c sets it up (ctl_test.h) and with the command modules
 * initialised as at start: each command `help` lists answers without an error (or with the
 * error its page documents), every row of every table it returns has each field the table's
 * definition names, and the rows say what the configuration says (ports, routes,
 * neighbours, groups, the configuration's name). `lookup` is asked about the same switch.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "ctl_test.h"
#include "rsw_cmd.h"
#include "rsw_module.h"
#include "rsw_table.h"

static const char cfg_yaml[] =
	"switch: { name: ut-show }\n"
	"ports:\n"
	"  - { name: p0, devargs: net_null0, ipv4: 10.0.1.254/24, mtu: 1500 }\n"
	"  - { name: p1, devargs: net_null1, ipv4: 10.0.2.254/24 }\n"
	"  - { name: p2, devargs: net_null2, ipv4: 10.0.3.254/24 }\n"
	"neighbors:\n"
	"  - { ip: 10.0.2.5, mac: 02:aa:00:00:00:05, port: p1 }\n"
	"  - { ip: 10.0.3.5, mac: 02:aa:00:00:00:06, port: p2 }\n"
	"routes:\n"
	"  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.5, 10.0.3.5] }\n"
	"qos:\n"
	"  dscp_to_tc: { 26: 3 }\n"
	"  lossless: [3]\n"
	"  buffer: { total: 4MB }\n";

/* The modules that register commands, initialised as rsw_modules_init would. */
static bool
command_module(const char *name)
{
	return strncmp(name, "cli", 3) == 0 || strcmp(name, "icmp") == 0 ||
	       strcmp(name, "fpm") == 0;
}

static int
setup(void **state)
{
	struct rsw_module *m;

	(void)state;
	ct_start(cfg_yaml);
	for (m = rsw_modules_first(); m != NULL; m = m->next)
		if (command_module(m->name) && m->init != NULL)
			assert_int_equal(m->init(rsw_ctl.cfg), 0);
	return 0;
}

static int
teardown(void **state)
{
	struct rsw_module *m;

	for (m = rsw_modules_first(); m != NULL; m = m->next)
		if (command_module(m->name) && m->fini != NULL)
			m->fini();
	rsw_cmd_unregister_all();
	return ct_stop(state);
}

static json_t *
run(const char *line)
{
	json_t *r = rsw_cmd_exec(line, strlen(line));

	assert_non_null(r);
	return r;
}

/* Every row of rows (an array, or one object) has every field of table d that is not optional. */
static void
check_rows(const struct rsw_table_def *d, json_t *rows, const char *line)
{
	json_t *row;
	size_t i;
	unsigned int j;

	if (json_is_object(rows)) {
		for (j = 0; j < d->n_fields; j++)
			if (!(d->fields[j].flags & RSW_FIELD_OPTIONAL) &&
			    json_object_get(rows, d->fields[j].name) == NULL)
				fail_msg("%s: %s has no '%s'", line, d->key, d->fields[j].name);
		return;
	}
	assert_true(json_is_array(rows));
	json_array_foreach(rows, i, row)
	{
		check_rows(d, row, line);
	}
}

/* The reply to line has the rows of every table the catalog gives for its command words. */
static unsigned int
check_tables(const char *words, json_t *reply, const char *line)
{
	const struct rsw_table_def *d;
	json_t *parent_rows, *row;
	unsigned int i, seen = 0;
	size_t k;

	for (i = 0; (d = rsw_tables[i]) != NULL; i++) {
		if (strcmp(d->command, words) != 0)
			continue;
		seen++;
		if (d->parent == NULL) {
			if (json_object_get(reply, d->key) == NULL)
				fail_msg("%s: no '%s' in the reply", line, d->key);
			check_rows(d, json_object_get(reply, d->key), line);
			continue;
		}
		parent_rows = json_object_get(reply, d->parent->key);
		json_array_foreach(parent_rows, k, row)
		{
			check_rows(d, json_object_get(row, d->parent->nested), line);
		}
	}
	return seen;
}

/* The row of array rows whose member key is value, or NULL. */
static json_t *
row_with(json_t *rows, const char *key, const char *value)
{
	json_t *row;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		const char *v = json_string_value(json_object_get(row, key));

		if (v != NULL && strcmp(v, value) == 0)
			return row;
	}
	return NULL;
}

static void
test_every_show_command(void **state)
{
	static const char *const documented[] = {
		"show ports", "show queues", "show pfc",       "show buffer",   "show drops",
		"show lb",    "show routes", "show neighbors", "show icmp",     "show fpm",
		"show punt",  "show kif",    "show llr",       "show topology", "show config",
	};
	json_t *help = run("help show"), *cmds, *c, *r;
	unsigned int tables = 0, n_tables;
	char line[128];
	size_t i, j;

	(void)state;
	cmds = json_object_get(help, "commands");
	assert_true(json_is_array(cmds));
	json_array_foreach(cmds, i, c)
	{
		const char *words = json_string_value(json_object_get(c, "command"));

		assert_non_null(words);
		r = run(words);
		if (strcmp(words, "show topology") == 0) {
			/* docs/cli.md: a switch without topology: says so. */
			assert_string_equal(json_string_value(json_object_get(r, "error")),
					    "no topology in the configuration");
		} else {
			if (json_object_get(r, "error") != NULL)
				fail_msg("%s: %s", words,
					 json_string_value(json_object_get(r, "error")));
			tables += check_tables(words, r, words);
		}
		json_decref(r);
		/* With a port, where the usage takes one: that port's rows only. */
		if (strstr(json_string_value(json_object_get(c, "usage")), "[PORT]") != NULL) {
			snprintf(line, sizeof(line), "%s p1", words);
			r = run(line);
			assert_null(json_object_get(r, "error"));
			check_tables(words, r, line);
			json_decref(r);
			snprintf(line, sizeof(line), "%s p9", words);
			r = run(line);
			assert_string_equal(json_string_value(json_object_get(r, "error")),
					    "unknown port 'p9'");
			json_decref(r);
		}
	}
	/* Every show command of docs/cli.md is registered, and every table was checked. */
	for (j = 0; j < RTE_DIM(documented); j++)
		if (row_with(cmds, "command", documented[j]) == NULL)
			fail_msg("'%s' is not registered", documented[j]);
	for (n_tables = 0; rsw_tables[n_tables] != NULL; n_tables++)
		;
	assert_int_equal(tables, n_tables);
	json_decref(help);
}

static void
test_show_values(void **state)
{
	json_t *r, *rows, *row, *members;

	(void)state;
	r = run("show ports");
	rows = json_object_get(r, "ports");
	assert_int_equal(json_array_size(rows), 3);
	row = row_with(rows, "name", "p1");
	assert_non_null(row);
	assert_int_equal(json_integer_value(json_object_get(row, "rx_packets")), 0);
	json_decref(r);

	r = run("show ports p2");
	assert_int_equal(json_array_size(json_object_get(r, "ports")), 1);
	json_decref(r);

	r = run("show routes");
	rows = json_object_get(r, "routes");
	row = row_with(rows, "prefix", "10.9.0.0/16");
	assert_non_null(row);
	assert_string_equal(json_string_value(json_object_get(row, "source")), "static");
	assert_true(json_is_true(json_object_get(row, "active")));
	assert_int_equal(json_integer_value(json_object_get(row, "distance")), 1);
	row = row_with(rows, "prefix", "10.0.1.0/24");
	assert_non_null(row);
	assert_string_equal(json_string_value(json_object_get(row, "source")), "connected");
	json_decref(r);

	r = run("show neighbors");
	row = row_with(json_object_get(r, "neighbors"), "ip", "10.0.2.5");
	assert_non_null(row);
	assert_string_equal(json_string_value(json_object_get(row, "mac")), "02:aa:00:00:00:05");
	assert_string_equal(json_string_value(json_object_get(row, "state")), "static");
	assert_string_equal(json_string_value(json_object_get(row, "port")), "p1");
	json_decref(r);

	r = run("show lb");
	row = row_with(json_object_get(r, "groups"), "prefix", "10.9.0.0/16");
	assert_non_null(row);
	members = json_object_get(row, "members");
	assert_int_equal(json_array_size(members), 2);
	assert_non_null(row_with(members, "port", "p1"));
	assert_non_null(row_with(members, "port", "p2"));
	json_decref(r);

	r = run("show config");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(r, "switch"), "name")),
		"ut-show");
	json_decref(r);

	r = run("show queues p0");
	rows = json_object_get(r, "queues");
	assert_int_equal(json_array_size(rows), RSW_N_TC);
	json_decref(r);
}

static void
test_lookup(void **state)
{
	json_t *r, *l;

	(void)state;
	/* The group of the static route, the member its hash picks, one of p1 and p2. */
	r = run("lookup 10.9.1.1 --src 10.0.1.7 --sport 1000 --dport 2000 --dscp 26");
	l = json_object_get(r, "lookup");
	assert_non_null(l);
	assert_string_equal(json_string_value(json_object_get(l, "action")), "forward");
	assert_int_equal(json_integer_value(json_object_get(l, "tc")), 3);
	assert_string_equal(json_string_value(json_object_get(l, "in")), "p0");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(l, "route"), "prefix")),
		"10.9.0.0/16");
	assert_int_equal(json_array_size(json_object_get(json_object_get(l, "group"), "members")),
			 2);
	assert_true(strcmp(json_string_value(json_object_get(l, "port")), "p1") == 0 ||
		    strcmp(json_string_value(json_object_get(l, "port")), "p2") == 0);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(l, "member"), "port")),
		json_string_value(json_object_get(l, "port")));
	json_decref(r);
	/* The local address, no route, bad words. */
	r = run("lookup 10.0.2.254");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(r, "lookup"), "action")),
		"local");
	json_decref(r);
	r = run("lookup 192.0.2.1");
	l = json_object_get(r, "lookup");
	assert_string_equal(json_string_value(json_object_get(l, "reason")), "no_route");
	assert_true(json_is_null(json_object_get(l, "route")));
	json_decref(r);
	r = run("lookup 10.9.1.1 --dscp 64");
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "'--dscp' must be a number from 0 to 63 (got '64'); usage: lookup "
			    "DST [--src IP] [--proto udp|tcp|N] [--sport N] [--dport N] [--qp N] "
			    "[--dscp N] [--in PORT]");
	json_decref(r);
	r = run("lookup 10.9.1.1 --in p7");
	assert_string_equal(json_string_value(json_object_get(r, "error")), "unknown port 'p7'");
	json_decref(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_show_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup, setup, teardown),
	};
	int ret;

	if (ct_eal_init("show") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
