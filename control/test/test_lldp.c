/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the cabling check (control/client/lldp.c, `railctl plan FILE --check-lldp
 * DIR`) on the plan of config/fabric-lab.yaml and lldpcli output captured from the lab's
 * lldpd instances (control/test/lldp/): bad and missing files first, then a miscabled
 * fabric (two cables of spine-1 swapped: every end of both named, with what it hears), a
 * missing neighbour, a neighbour on a port the plan has no cable for, then the cabling as
 * planned, and the `-f json` format read like `-f json0`.
 */

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
#include <jansson.h>

#include "railctl_lldp.h"
#include "rsw_config.h"
#include "rsw_topology.h"

static json_t *plan;

static int
setup(void **state)
{
	struct rsw_topo_error e = {0};
	char err[4096];
	struct rsw_config *cfg;

	(void)state;
	cfg = rsw_config_load_plan("../../config/fabric-lab.yaml", err, sizeof(err));
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	plan = rsw_topology_plan_json(cfg, &e);
	rsw_config_free(cfg);
	return plan != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	json_decref(plan);
	return 0;
}

/* The end (switch, port) of a result, or NULL. */
static json_t *
end_of(json_t *res, const char *sw, const char *port)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(res, "ends"), i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "switch")), sw) == 0 &&
		    strcmp(json_string_value(json_object_get(e, "port")), port) == 0)
			return e;
	}
	return NULL;
}

static const char *
status_of(json_t *res, const char *sw, const char *port)
{
	json_t *e = end_of(res, sw, port);

	return e != NULL ? json_string_value(json_object_get(e, "status")) : "(none)";
}

static long long
count(json_t *res, const char *what)
{
	return json_integer_value(json_object_get(res, what));
}

static void
test_no_files(void **state)
{
	json_t *res;

	(void)state;
	res = railctl_lldp_check(plan, "lldp/no-such-dir");
	assert_non_null(res);
	assert_false(json_is_true(json_object_get(res, "passed")));
	/* 8 fabric ends and 2 server ends, none checkable. */
	assert_int_equal(count(res, "unchecked"), 10);
	assert_int_equal(count(res, "ok"), 0);
	assert_non_null(
		strstr(json_string_value(json_object_get(end_of(res, "spine-0", "down0"), "error")),
		       "lldp/no-such-dir/spine-0.json"));
	json_decref(res);
}

static void
test_bad_file(void **state)
{
	json_t *res;

	(void)state;
	/* spine-0.json is not JSON; the other three are the planned cabling. */
	res = railctl_lldp_check(plan, "lldp/bad");
	assert_false(json_is_true(json_object_get(res, "passed")));
	assert_string_equal(status_of(res, "spine-0", "down0"), "unchecked");
	assert_string_equal(status_of(res, "spine-0", "down1"), "unchecked");
	assert_string_equal(status_of(res, "spine-1", "down0"), "ok");
	assert_int_equal(count(res, "unchecked"), 2);
	assert_int_equal(count(res, "ok"), 6);
	json_decref(res);
}

static void
test_swapped(void **state)
{
	json_t *res, *e;

	(void)state;
	res = railctl_lldp_check(plan, "lldp/swapped");
	assert_false(json_is_true(json_object_get(res, "passed")));
	assert_int_equal(count(res, "miscabled"), 4);
	assert_int_equal(count(res, "ok"), 4);
	assert_int_equal(count(res, "missing"), 0);
	e = end_of(res, "leaf-su0-r0", "up1");
	assert_string_equal(json_string_value(json_object_get(e, "status")), "miscabled");
	assert_string_equal(json_string_value(json_object_get(e, "heard")), "spine-1:down1");
	assert_string_equal(json_string_value(json_object_get(e, "plan_switch")), "spine-1");
	assert_string_equal(json_string_value(json_object_get(e, "plan_port")), "down0");
	e = end_of(res, "spine-1", "down0");
	assert_string_equal(json_string_value(json_object_get(e, "heard")), "leaf-su1-r0:up1");
	assert_string_equal(status_of(res, "leaf-su1-r0", "up1"), "miscabled");
	assert_string_equal(status_of(res, "spine-1", "down1"), "miscabled");
	assert_string_equal(status_of(res, "leaf-su0-r0", "up0"), "ok");
	assert_string_equal(status_of(res, "spine-0", "down1"), "ok");
	json_decref(res);
}

static void
test_missing_and_unexpected(void **state)
{
	json_t *res, *e;

	(void)state;
	/* leaf-su1-r0 hears nothing on up0, and spine-0 down0's neighbour appears on a port
	 * "eth9" that the plan has no cable for. */
	res = railctl_lldp_check(plan, "lldp/missing");
	assert_false(json_is_true(json_object_get(res, "passed")));
	assert_string_equal(status_of(res, "leaf-su1-r0", "up0"), "missing");
	assert_string_equal(status_of(res, "spine-0", "down0"), "missing");
	e = end_of(res, "spine-0", "eth9");
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "status")), "unexpected");
	assert_string_equal(json_string_value(json_object_get(e, "heard")), "leaf-su0-r0:up0");
	assert_int_equal(count(res, "missing"), 2);
	assert_int_equal(count(res, "unexpected"), 1);
	json_decref(res);
}

static void
test_as_planned(void **state)
{
	json_t *res;

	(void)state;
	res = railctl_lldp_check(plan, "lldp/ok");
	assert_true(json_is_true(json_object_get(res, "passed")));
	assert_int_equal(count(res, "ok"), 8);
	/* The lab's hosts run no lldpd: their ends are silent, which passes. */
	assert_int_equal(count(res, "silent"), 2);
	assert_string_equal(status_of(res, "leaf-su0-r0", "down0"), "silent");
	assert_int_equal(count(res, "miscabled") + count(res, "missing") + count(res, "unchecked") +
				 count(res, "unexpected"),
			 0);
	json_decref(res);
}

static void
test_json_format(void **state)
{
	json_error_t je;
	json_t *a, *b, *na, *nb;

	(void)state;
	/* The same neighbours, captured with -f json0 and with -f json. */
	a = json_load_file("lldp/format/json0.json", 0, &je);
	b = json_load_file("lldp/format/json.json", 0, &je);
	assert_non_null(a);
	assert_non_null(b);
	na = railctl_lldp_neighbours(a);
	nb = railctl_lldp_neighbours(b);
	assert_true(json_array_size(na) >= 1);
	assert_true(json_equal(na, nb));
	assert_string_equal(json_string_value(json_object_get(json_array_get(na, 0), "switch")),
			    "leaf-su0-r0");
	json_decref(na);
	json_decref(nb);
	json_decref(a);
	json_decref(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_files),   cmocka_unit_test(test_bad_file),
		cmocka_unit_test(test_swapped),    cmocka_unit_test(test_missing_and_unexpected),
		cmocka_unit_test(test_as_planned), cmocka_unit_test(test_json_format),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
